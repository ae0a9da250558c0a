"""Altair charts of model output, and the renderer that lets them work offline.

Every function here takes a DataFrame (usually a model's ``.events`` or time series) and returns an
``alt.Chart``; none runs a model. Each chart carries a title and a ``description`` (its text
alternative, which Vega writes into the SVG's ``aria-label``).

Rendering offline
-----------------
Importing this module registers and enables the Altair renderer ``"labsupport"``. It emits:

* ``application/vnd.vegalite.v5+json``: JupyterLab draws this itself, with the Vega libraries it
  bundles, so live notebooks need no network;
* ``text/html``: a container plus a small script that calls the global ``vegaEmbed``. The
  built book defines that global from ``vl_convert.javascript_bundle()``, loaded once per page by the
  Sphinx extension :mod:`labsupport.book`; nothing comes from a CDN;
* ``text/plain``: the chart's title and description, the text alternative.

While the book builds (see :data:`BOOK_BUILD_ENV`) the first of these is left out.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
from typing import Any

import altair as alt
import pandas as pd

from ._validate import check_int
from .timeline import format_duration

__all__ = [
    "BOOK_BUILD_ENV",
    "PALETTE",
    "PERIOD_COLOURS",
    "render_bundle",
    "timeline_chart",
]

#: Set by :mod:`labsupport.book` while the book builds. The kernels that execute the pages inherit
#: it, and the renderer then leaves out the Vega-Lite MIME type, which the book does not use (it
#: shows the HTML) and which MyST-NB would otherwise report as unknown.
BOOK_BUILD_ENV = "LABSUPPORT_BOOK_BUILD"

#: Colours for categorical marks. Each has a contrast ratio of at least 3:1 against white (WCAG 2.1
#: SC 1.4.11, non-text contrast), and they stay distinguishable with common colour-vision deficiencies.
PALETTE: tuple[str, ...] = ("#0b5cad", "#b3471b", "#1b7a4c", "#7a3f98", "#8a6d00", "#b0245e", "#3d3d3d")

#: One colour per impact period of the post-event summary, shared by every chart that shows them.
PERIOD_COLOURS: dict[str, str] = {
    "DynamoDB API errors": PALETTE[0],
    "EC2 launch failures": PALETTE[1],
    "NLB connection errors": PALETTE[2],
}


def _text_alternative(spec: dict[str, Any]) -> str:
    title = spec.get("title", "")
    if isinstance(title, dict):
        title = title.get("text", "")
    if isinstance(title, list):
        title = " ".join(title)
    desc = spec.get("description", "")
    return ". ".join(p for p in (str(title).strip(), str(desc).strip()) if p) or "Chart"


def render_bundle(spec: dict[str, Any]) -> dict[str, Any]:
    """Return the MIME bundle for a Vega-Lite ``spec`` (the ``"labsupport"`` renderer).

    Args:
        spec: a Vega-Lite v5 specification, as from ``chart.to_dict()``.

    Returns:
        A dict with keys ``application/vnd.vegalite.v5+json``, ``text/html`` and ``text/plain``.
        The HTML's element id is derived from the spec, so the same chart gives the same output.
    """
    payload = json.dumps(spec, sort_keys=True, separators=(",", ":"))
    div_id = "ls-vega-" + hashlib.sha1(payload.encode()).hexdigest()[:12]
    alt_text = _text_alternative(spec)
    # "</" must not appear inside an inline <script>.
    script_payload = payload.replace("</", "<\\/")
    body = f"""<div class="labsupport-vega" id="{div_id}" role="figure" aria-label="{html.escape(alt_text)}">
<noscript>{html.escape(alt_text)}</noscript></div>
<script>
(function () {{
  var el = document.getElementById("{div_id}");
  if (window.vegaEmbed) {{
    window.vegaEmbed(el, {script_payload}, {{actions: false, renderer: "svg"}})
      .catch(function (err) {{ el.textContent = "Chart failed to render: " + err; console.error(err); }});
  }} else {{
    el.textContent = "This chart needs the Vega libraries that the built course book bundles. "
      + "In JupyterLab it renders natively. " + el.getAttribute("aria-label");
  }}
}})();
</script>"""
    bundle = {"text/html": body, "text/plain": alt_text}
    if not os.environ.get(BOOK_BUILD_ENV):
        bundle["application/vnd.vegalite.v5+json"] = spec
    return bundle


alt.renderers.register("labsupport", render_bundle)
alt.renderers.enable("labsupport")


def _base_config(chart: alt.TopLevelMixin) -> alt.TopLevelMixin:
    """White background (readable in the book's dark mode too) and readable font sizes."""
    return chart.configure(background="white").configure_axis(
        labelFontSize=12, titleFontSize=13, labelColor="#222", titleColor="#222"
    ).configure_legend(labelFontSize=12, titleFontSize=13)


def timeline_chart(periods: pd.DataFrame, events: pd.DataFrame, *, width: int = 560) -> alt.LayerChart:
    """Draw the summary's three impact periods as bars and the events as marks with tooltips.

    Args:
        periods: the frame from :func:`labsupport.timeline.impact_periods` (columns ``period``,
            ``start_pdt``, ``end_pdt``, ``duration``).
        events: rows of :func:`labsupport.timeline.load` (columns ``time_pdt``, ``service``,
            ``event``, ``impact_period``, ``tag``, ``source``). May be empty.
        width: chart width in pixels (> 0).

    Returns:
        An ``alt.LayerChart`` whose x axis is wall-clock time in PDT.

    Raises:
        ValueError: if ``width`` is not a positive integer or a required column is missing.
    """
    check_int("width", width, lo=100, hi=4000)
    for frame, cols, name in (
        (periods, ("period", "start_pdt", "end_pdt", "duration"), "periods"),
        (events, ("time_pdt", "service", "event", "impact_period", "tag", "source"), "events"),
    ):
        missing = [c for c in cols if c not in frame.columns]
        if missing:
            raise ValueError(f"{name} is missing columns {missing}")

    # Vega-Lite reads naive ISO strings as local time; we give it PDT wall-clock strings.
    p = pd.DataFrame(
        {
            "period": periods["period"],
            "start": periods["start_pdt"].dt.strftime("%Y-%m-%dT%H:%M:%S"),
            "end": periods["end_pdt"].dt.strftime("%Y-%m-%dT%H:%M:%S"),
            "length": periods["duration"].map(format_duration),
        }
    )
    e = pd.DataFrame(
        {
            "time": events["time_pdt"].dt.strftime("%Y-%m-%dT%H:%M:%S"),
            "when": events["time_pdt"].dt.strftime("%d %b %H:%M PDT"),
            "service": events["service"],
            "event": events["event"],
            "lane": events["impact_period"].fillna("Other services"),
            "tag": events["tag"],
            "source": events["source"],
        }
    )
    lanes = list(PERIOD_COLOURS) + ["Other services"]
    y = alt.Y("lane:N", sort=lanes, title=None, scale=alt.Scale(domain=lanes))
    colour = alt.Color(
        "period:N",
        scale=alt.Scale(domain=list(PERIOD_COLOURS), range=list(PERIOD_COLOURS.values())),
        legend=alt.Legend(title="Impact period", orient="bottom"),
    )
    bars = (
        alt.Chart(p)
        .transform_calculate(lane="datum.period")
        .mark_bar(height=22, opacity=0.85)
        .encode(
            x=alt.X("start:T", title="19–20 October 2025, PDT", axis=alt.Axis(format="%H:%M")),
            x2="end:T",
            y=y,
            color=colour,
            tooltip=[alt.Tooltip("period:N"), alt.Tooltip("length:N", title="length")],
        )
    )
    marks = (
        alt.Chart(e)
        .mark_point(shape="diamond", size=90, filled=True, color="#222", stroke="white", strokeWidth=1)
        .encode(
            x="time:T",
            y=y,
            opacity=alt.condition("datum.tag == 'UNVERIFIED'", alt.value(0.35), alt.value(1.0)),
            tooltip=["when:N", "service:N", "event:N", "tag:N", "source:N"],
        )
    )
    chart = alt.layer(bars, marks).properties(
        width=width,
        height=190,
        title="Impact periods of the 19–20 October 2025 us-east-1 event",
        description=(
            "Three horizontal bars on a PDT time axis: DynamoDB API errors, EC2 launch failures and "
            "NLB connection errors, with a diamond for each timeline event (hover for details; faded "
            "diamonds are unverified)."
        ),
    )
    return _base_config(chart)
