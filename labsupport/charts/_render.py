"""The house look of every chart and the one renderer: live kernels get Vega-Lite, the book HTML."""

from __future__ import annotations

import hashlib
import html
import json
import os
from typing import Any

import altair as alt
import pandas as pd

from .. import presets as _presets
from ..errors import ConfigError

__all__ = ["ALTAIR_MAX_ROWS", "BOOK_BUILD_ENV", "CONCEPT_COLOURS", "PALETTE", "PERIOD_COLOURS", "legend_colours", "render_bundle"]


#: Set by :mod:`labsupport.book` while the book builds. The kernels that execute the pages inherit
#: it, and the renderer then emits the book's HTML instead of the Vega-Lite MIME type, which the
#: static book cannot draw (and which MyST-NB would report as unknown).
BOOK_BUILD_ENV = "LABSUPPORT_BOOK_BUILD"


#: Colours for categorical marks. Each has a contrast ratio of at least 3:1 against white (WCAG 2.1
#: SC 1.4.11, non-text contrast; ``tests/test_accessibility.py`` checks it). They are not all
#: distinguishable under every colour-vision deficiency (PALETTE[1] and PALETTE[4] are close under
#: deuteranopia), so a chart that must tell categories apart also varies shape or dash, or labels them.
PALETTE: tuple[str, ...] = ("#0b5cad", "#b3471b", "#1b7a4c", "#7a3f98", "#8a6d00", "#b0245e", "#3d3d3d")


#: One colour per impact period of the post-event summary, shared by every chart that shows them.
PERIOD_COLOURS: dict[str, str] = {
    "DynamoDB API errors": PALETTE[0],
    "EC2 launch failures": PALETTE[1],
    "NLB connection errors": PALETTE[2],
}


#: One colour per concept that charts on several pages compare run against run (a negative TTL,
#: an NLB run), whatever its position in a chart's legend. Labels come from :mod:`labsupport.presets`;
#: ``tests/test_chart_colours.py`` checks that no two charts of the book colour one label differently.
CONCEPT_COLOURS: dict[str, str] = {
    _presets.ttl_label(900.0): PALETTE[0],
    _presets.ttl_label(3_600.0): PALETTE[1],
    _presets.ttl_label(300.0): PALETTE[2],
    _presets.NLB_RUN_LABELS["nobody"]: PALETTE[1],
    _presets.NLB_RUN_LABELS["incident"]: PALETTE[0],
    _presets.NLB_RUN_LABELS["velocity"]: PALETTE[2],
}


def _series_range(labels: list[str]) -> list[str]:
    """Colours for a legend: a label of :data:`CONCEPT_COLOURS` keeps its colour; the others take
    the palette's colours in order, skipping those already used in this chart."""
    taken = {CONCEPT_COLOURS[label] for label in labels if label in CONCEPT_COLOURS}
    free = iter([c for c in PALETTE if c not in taken] + [c for c in PALETTE if c in taken])
    return [CONCEPT_COLOURS.get(label) or next(free) for label in labels]


def _text_alternative(spec: dict[str, Any]) -> str:
    title = spec.get("title", "")
    if isinstance(title, dict):
        title = title.get("text", "")
    if isinstance(title, list):
        title = " ".join(str(part) for part in title)
    if title is None:
        title = ""
    desc = spec.get("description", "") or ""
    return ". ".join(p for p in (str(title).strip(), str(desc).strip()) if p) or "Chart"


def render_bundle(spec: dict[str, Any], **options: Any) -> dict[str, Any]:
    """Return the MIME bundle for a Vega-Lite ``spec`` (the ``"labsupport"`` renderer).

    Args:
        spec: a Vega-Lite v5 specification, as from ``chart.to_dict()``.
        options: what Altair passes to a renderer; ``embed_options`` (a dict, as set by
            ``alt.renderers.set_embed_options``) is handed to ``vegaEmbed`` in the book and to the
            front end in the MIME bundle's metadata live; other options are ignored.

    Returns:
        In a live kernel, a dict with keys ``application/vnd.vegalite.v5+json`` (the spec) and
        ``text/plain`` (with ``embed_options``, a ``(bundle, metadata)`` pair, as Altair allows). While the book builds (:data:`BOOK_BUILD_ENV` set), a dict with keys
        ``text/html`` and ``text/plain``; the HTML's element id is derived from the spec, so the
        same chart gives the same output. Never both ``text/html`` and the Vega-Lite type: a front
        end that ranks HTML first would show the HTML, which draws only inside the book.
    """
    alt_text = _text_alternative(spec)
    embed = {"actions": False, "renderer": "svg", **(options.get("embed_options") or {})}
    if not os.environ.get(BOOK_BUILD_ENV):
        bundle = {"application/vnd.vegalite.v5+json": spec, "text/plain": alt_text}
        if options.get("embed_options"):
            return bundle, {"application/vnd.vegalite.v5+json": {"embed_options": options["embed_options"]}}
        return bundle
    payload = json.dumps(spec, sort_keys=True, separators=(",", ":"))
    div_id = "ls-vega-" + hashlib.sha1(payload.encode()).hexdigest()[:12]
    # No "<" at all inside the inline <script>: "</script>" would end it and "<!--<script" would
    # switch the HTML parser into a state where it never ends. JSON reads "\u003c" as "<".
    script_payload = payload.replace("<", "\\u003c")
    embed_payload = json.dumps(embed, sort_keys=True).replace("<", "\\u003c")
    body = f"""<div class="labsupport-vega" id="{div_id}" role="figure" aria-label="{html.escape(alt_text)}">
<noscript>{html.escape(alt_text)}</noscript></div>
<script>
(function () {{
  var el = document.getElementById("{div_id}");
  if (window.vegaEmbed) {{
    window.vegaEmbed(el, {script_payload}, {embed_payload})
      .catch(function (err) {{ el.textContent = "Chart failed to render: " + err; console.error(err); }});
  }} else {{
    el.textContent = "This chart needs the Vega libraries that the built course book bundles. "
      + el.getAttribute("aria-label");
  }}
}})();
</script>"""
    return {"text/html": body, "text/plain": alt_text}


def legend_colours(spec: object) -> dict[str, str]:
    """Label -> colour of every ``color`` encoding of a Vega-Lite ``spec`` that lists its domain and range.

    Args:
        spec: a chart's ``to_dict()``, or any part of one.

    Returns:
        A dict from each label (str) to its colour (str, as written in the spec); labels of scales
        without an explicit domain and range are not included. Used to check that one concept keeps
        one colour across the book's charts (``tests/browser/test_book_colours.py``).
    """
    found: dict[str, str] = {}

    def walk(node: object) -> None:
        if isinstance(node, dict):
            colour = node.get("color")
            if isinstance(colour, dict):
                scale = colour.get("scale") or {}
                domain, rng = scale.get("domain"), scale.get("range")
                if isinstance(domain, list) and isinstance(rng, list) and len(domain) == len(rng):
                    found.update({str(d): str(r) for d, r in zip(domain, rng) if isinstance(r, str)})
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(spec)
    return found


alt.renderers.register("labsupport", render_bundle)


alt.renderers.enable("labsupport")


#: Altair's own limit on the rows of one dataset (it raises MaxRowsError beyond it).
ALTAIR_MAX_ROWS = 5_000


def _datasets(chart: object) -> list[pd.DataFrame]:
    """Every DataFrame a chart (layers, concatenations and facets included) carries."""
    found = []
    data = getattr(chart, "data", None)
    if isinstance(data, pd.DataFrame):
        found.append(data)
    for attr in ("layer", "vconcat", "hconcat", "concat"):
        children = getattr(chart, attr, None)
        if isinstance(children, list):
            for child in children:
                found += _datasets(child)
    spec = getattr(chart, "spec", None)
    if spec is not None and not isinstance(spec, (str, dict)) and hasattr(spec, "to_dict"):
        found += _datasets(spec)
    return found


def _base_config(chart: alt.TopLevelMixin, *, too_many: str = "pass fewer rows") -> alt.TopLevelMixin:
    """White background (readable in the book's dark mode too) and readable font sizes.

    Also the one check of the row limit: a chart whose data would exceed
    :data:`ALTAIR_MAX_ROWS` rows in one dataset raises ConfigError (``too_many`` says which
    argument to change) instead of Altair's ``MaxRowsError`` when it is displayed.
    """
    biggest = max((len(d) for d in _datasets(chart)), default=0)
    if biggest > ALTAIR_MAX_ROWS:
        raise ConfigError(f"the chart's data would hold {biggest:,} rows, more than the {ALTAIR_MAX_ROWS:,} "
                          f"a chart may draw; {too_many}")
    return chart.configure(background="white").configure_axis(
        labelFontSize=12, titleFontSize=13, labelColor="#222", titleColor="#222"
    ).configure_legend(labelFontSize=12, titleFontSize=13)
