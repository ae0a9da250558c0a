"""The one renderer and the house look of every chart: live kernels get Vega-Lite, the book HTML."""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
from pathlib import Path
from typing import Any, TypeVar, cast

import altair as alt
import pandas as pd

from ..errors import ConfigError
from ._tables import _data_details
from ._text import _text_alternative

__all__ = ["ALTAIR_MAX_ROWS", "BOOK_BUILD_ENV", "REFLOW_KEY", "reflow_usermeta", "render_bundle"]


#: Set by the book's Sphinx extension (``coursetools.book``, the course's machinery) while the book
#: builds. The kernels that execute the pages inherit it, and the renderer then emits the book's HTML
#: instead of the Vega-Lite MIME type, which the static book cannot draw (and which MyST-NB would
#: report as unknown).
BOOK_BUILD_ENV = "LABSUPPORT_BOOK_BUILD"


#: ``usermeta`` key of a spec whose chart takes its width from the page (see :func:`reflow_usermeta`).
REFLOW_KEY = "labsupport_reflow"


def reflow_usermeta(min_width: int = 160) -> dict[str, Any]:
    """The ``usermeta`` that makes a chart in the book take its width from the page.

    In the book, a chart whose spec carries it is drawn at its own width when the page has room,
    and narrower (down to ``min_width`` pixels of plot) when it has not: the inline script sets the
    view's ``width`` signal from the chart's container, on load and whenever the container is
    resized. Its controls keep their state. The chart's ``width`` is the plot's (as in Vega-Lite);
    its axes, legends and texts must fit beside it. Live kernels ignore ``usermeta``.

    Args:
        min_width: the narrowest plot width, in pixels (40 to 4000).

    Returns:
        A dict for ``chart.properties(usermeta=...)``.

    Raises:
        ConfigError: ``min_width`` not an int from 40 to 4000.
    """
    if isinstance(min_width, bool) or not isinstance(min_width, int) or not 40 <= min_width <= 4000:
        raise ConfigError(f"min_width must be an int from 40 to 4000 pixels, got {min_width!r}")
    return {REFLOW_KEY: {"min_width": min_width}}


# The script after each chart in the book (chart.js beside this module, whose first comment lines
# explain it): its placeholders, and its block that only a chart taking its width from the page keeps.
_CHART_JS = re.sub(r"\A(?://[^\n]*\n)+", "", Path(__file__).with_name("chart.js").read_text(encoding="utf-8"))
_CHART_FIELD = re.compile(r"__(CHART_ID|SPEC|EMBED_OPTIONS|MIN_WIDTH)__")
_REFLOW_BLOCK = re.compile(r"^ *// reflow: begin\n(.*?)^ *// reflow: end\n", re.MULTILINE | re.DOTALL)


def _chart_script(chart_id: str, spec_json: str, embed_json: str, min_width: int | None) -> str:
    """``chart.js`` for one chart: the reflow block kept only with a ``min_width``, the fields filled in."""
    template = _REFLOW_BLOCK.sub(r"\1" if min_width is not None else "", _CHART_JS)
    fields = {"CHART_ID": chart_id, "SPEC": spec_json, "EMBED_OPTIONS": embed_json, "MIN_WIDTH": str(min_width)}
    # One pass over the template: a field's value (the spec) is never searched for placeholders.
    return _CHART_FIELD.sub(lambda m: fields[m.group(1)], template)


def render_bundle(spec: dict[str, Any], **options: Any) -> dict[str, Any] | tuple[dict[str, Any], dict[str, Any]]:
    """Return the MIME bundle for a Vega-Lite ``spec`` (the ``"labsupport"`` renderer).

    Args:
        spec: a Vega-Lite v5 specification, as from ``chart.to_dict()``.
        options: what Altair passes to a renderer; ``embed_options`` (a dict, as set by
            ``alt.renderers.set_embed_options``) is handed to ``vegaEmbed`` in the book and to the
            front end in the MIME bundle's metadata live; other options are ignored.

    Returns:
        In a live kernel, a dict with keys ``application/vnd.vegalite.v5+json`` (the spec) and
        ``text/plain`` (with ``embed_options``, a ``(bundle, metadata)`` pair, as Altair allows).
        While the book builds (:data:`BOOK_BUILD_ENV` set), a dict with keys ``text/html`` and
        ``text/plain``; the HTML's element id is derived from the spec, so the same chart gives the
        same output. Never both ``text/html`` and the Vega-Lite type: a front end that ranks HTML
        first would show the HTML, which draws only inside the book.

        The book's HTML is the chart's container, its inline script (``labsupport/charts/chart.js``
        with the spec filled in) and, after it, a closed ``<details>`` "The data behind this chart"
        with the chart's own data as tables (see :data:`~labsupport.charts.DETAILS_MAX_ROWS`), so
        that every value the chart shows on hover is also reachable by keyboard, touch and screen
        reader. A spec with :func:`reflow_usermeta` takes its width from the page.
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
    usermeta: dict[str, Any] = spec["usermeta"] if isinstance(spec.get("usermeta"), dict) else {}
    reflow = usermeta.get(REFLOW_KEY) if isinstance(usermeta.get(REFLOW_KEY), dict) else None
    min_width = None if reflow is None else int(reflow["min_width"])
    script = _chart_script(div_id, script_payload, embed_payload, min_width)
    reflow_class = "" if reflow is None else " labsupport-reflow"
    body = f"""<div class="labsupport-vega{reflow_class}" id="{div_id}" role="figure" \
aria-label="{html.escape(alt_text)}">
<noscript>{html.escape(alt_text)}</noscript></div>
<script>
{script}</script>
{_data_details(spec)}"""
    return {"text/html": body, "text/plain": alt_text}


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


_Chart = TypeVar("_Chart", bound=alt.TopLevelMixin)


def _base_config(chart: _Chart, *, too_many: str = "pass fewer rows") -> _Chart:
    """White background (readable in the book's dark mode too) and readable font sizes.

    Also the one check of the row limit: a chart whose data would exceed
    :data:`ALTAIR_MAX_ROWS` rows in one dataset raises ConfigError (``too_many`` says which
    argument to change) instead of Altair's ``MaxRowsError`` when it is displayed.
    """
    biggest = max((len(d) for d in _datasets(chart)), default=0)
    if biggest > ALTAIR_MAX_ROWS:
        raise ConfigError(
            f"the chart's data would hold {biggest:,} rows, more than the {ALTAIR_MAX_ROWS:,} "
            f"a chart may draw; {too_many}"
        )
    # configure_* return the chart they are called on, of the same class.
    return cast(
        _Chart,
        chart.configure(background="white")
        .configure_axis(labelFontSize=12, titleFontSize=13, labelColor="#222", titleColor="#222")
        .configure_legend(labelFontSize=12, titleFontSize=13),
    )


alt.renderers.register("labsupport", render_bundle)
alt.renderers.enable("labsupport")
