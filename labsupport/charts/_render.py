"""The house look of every chart and the one renderer: live kernels get Vega-Lite, the book HTML."""

from __future__ import annotations

import hashlib
import html
import json
import math
import os
import re
import textwrap
from pathlib import Path
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from .. import presets as _presets
from ..errors import ConfigError

__all__ = ["ALTAIR_MAX_ROWS", "BOOK_BUILD_ENV", "CONCEPT_COLOURS", "DETAILS_MAX_ROWS", "PALETTE", "PERIOD_COLOURS",
           "legend_colours", "reflow_usermeta", "render_bundle"]


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


#: ``usermeta`` key of a spec whose chart takes its width from the page (see :func:`reflow_usermeta`).
REFLOW_KEY = "labsupport_reflow"

#: The most rows of one dataset that the table under a chart in the book lists; a longer dataset
#: is shown by this many evenly spaced rows (the first and the last among them), and the table says so.
DETAILS_MAX_ROWS = 64

# Mark types in words, for the captions of the data tables under the charts.
_MARK_WORDS = {"line": "lines", "trail": "lines", "area": "areas", "bar": "bars", "rect": "rectangles",
               "point": "points", "circle": "points", "square": "squares", "tick": "ticks", "rule": "rules",
               "text": "labels", "arc": "arcs", "geoshape": "shapes", "image": "images"}
_ISO_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?$")
_DATUM_FIELD = re.compile(r"""datum\.(\w+)|datum\[['"]([^'"]+)['"]\]""")


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


#: Average advance of one character of the charts' 13 px text, in pixels (measured in Chromium:
#: 5.4-5.7 for the state lines; rounded up so that a line wraps a little early rather than late).
_CHAR_PX_13 = 6.0


def _wrapped(frame: pd.DataFrame, column: str, *, chars: int, offset_px: float) -> pd.DataFrame:
    """``frame`` with two more columns for a state line that wraps on narrow screens.

    ``<column>_lines`` is the text of ``column`` wrapped at ``chars`` characters (lines joined by
    "\\n", for a text mark with ``lineBreak="\\n"``), ``<column>_px`` the estimated width in pixels
    of the unwrapped text plus ``offset_px`` (where the text starts in the plot). See :func:`_state_text`.
    """
    out = frame.copy()
    texts = [str(t) for t in out[column]]
    out[f"{column}_lines"] = [textwrap.fill(t, width=chars, break_long_words=False, break_on_hyphens=False)
                               for t in texts]
    out[f"{column}_px"] = [int(math.ceil(len(t) * _CHAR_PX_13 + offset_px)) for t in texts]
    return out


def _state_text(column: str) -> Any:
    """The text channel of a state line: one line when the plot (the ``width`` signal) has room
    for it, else the wrapped lines of :func:`_wrapped`."""
    return alt.Text(f"{column}:N", condition={"test": f"width < datum['{column}_px']",
                                              "value": {"expr": f"datum['{column}_lines']"}})


def _cell(value: Any) -> str:
    """One value of a chart's data as the table under the chart prints it."""
    if value is None or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        if float(value).is_integer() and abs(value) < 1e15:
            return f"{int(value):,}"
        if abs(value) < 1:   # three significant digits: 0.0004 must not read "0.0"
            return f"{float(value):.3g}"
        return f"{round(float(value), 3):,}"
    if isinstance(value, str) and _ISO_TIME.match(value):
        return value.replace("T", " ")
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _fields(spec: Any) -> tuple[set[str], dict[str, str]]:
    """Every field name a spec uses (encodings, transforms, expressions) and a title per field.

    Tooltip titles come first (they name one value, as a table cell does), then other titles.
    """
    used: set[str] = set()
    tip: dict[str, str] = {}
    other: dict[str, str] = {}

    def walk(node: Any, in_tooltip: bool) -> None:
        if isinstance(node, dict):
            field = node.get("field")
            if isinstance(field, str):
                used.add(field)
                title = node.get("title")
                title = " ".join(str(t) for t in title) if isinstance(title, list) else title
                if isinstance(title, str) and title.strip():
                    (tip if in_tooltip else other).setdefault(field, title.strip())
            for key, value in node.items():
                if key not in ("datasets", "values"):
                    walk(value, in_tooltip or key == "tooltip")
        elif isinstance(node, list):
            for value in node:
                walk(value, in_tooltip)
        elif isinstance(node, str):
            used.add(node)
            used.update(a or b for a, b in _DATUM_FIELD.findall(node))

    walk(spec, False)
    return used, {**other, **tip}


def _drawn_datasets(spec: dict[str, Any]) -> list[tuple[list[dict[str, Any]], list[str]]]:
    """Each dataset a spec draws (its rows) with the marks drawn from it, in the spec's order."""
    named = spec.get("datasets") if isinstance(spec.get("datasets"), dict) else {}
    found: dict[int, tuple[list[dict[str, Any]], list[str]]] = {}

    def rows_of(data: Any) -> list[dict[str, Any]] | None:
        if isinstance(data, dict):
            if isinstance(data.get("values"), list):
                return data["values"]
            if isinstance(data.get("name"), str) and isinstance(named.get(data["name"]), list):
                return named[data["name"]]
        return None

    def walk(node: Any, rows: list[dict[str, Any]] | None) -> None:
        if isinstance(node, dict):
            own = rows_of(node.get("data"))
            rows = own if own is not None else rows
            mark = node.get("mark")
            mark = mark.get("type") if isinstance(mark, dict) else mark
            if isinstance(mark, str) and rows is not None:
                entry = found.setdefault(id(rows), (rows, []))
                word = _MARK_WORDS.get(mark, mark + " marks")
                if word not in entry[1]:
                    entry[1].append(word)
            for key, value in node.items():
                if key in ("layer", "vconcat", "hconcat", "concat", "spec"):
                    walk(value, rows)
        elif isinstance(node, list):
            for value in node:
                walk(value, rows)

    walk(spec, None)
    return [entry for entry in found.values() if entry[0] and all(isinstance(r, dict) for r in entry[0])]


def _data_details(spec: dict[str, Any]) -> str:
    """A closed ``<details>`` with the chart's own data as tables, for readers without a mouse.

    One table per dataset the chart draws, its columns those the spec uses (named by their
    tooltip or axis titles), at most :data:`DETAILS_MAX_ROWS` rows (evenly spaced ones, said so,
    when the dataset is longer). Empty when the spec draws no inline data.
    """
    drawn = _drawn_datasets(spec)
    if not drawn:
        return ""
    used, titles = _fields({k: v for k, v in spec.items() if k != "datasets"})
    tables = []
    for i, (rows, marks) in enumerate(drawn, start=1):
        frame = pd.DataFrame(rows)
        columns = [c for c in frame.columns if c in used] or list(frame.columns)
        total = len(frame)
        if total > DETAILS_MAX_ROWS:
            keep = sorted({int(round(x)) for x in np.linspace(0, total - 1, DETAILS_MAX_ROWS)})
            frame = frame.iloc[keep]
            extent = f"{len(frame)} of {total:,} rows, evenly spaced from the first to the last"
        else:
            extent = f"{total:,} row{'s' if total != 1 else ''}"
        shown = frame[columns].map(_cell)
        shown.columns = [titles.get(c, c) for c in columns]
        what = " and ".join(marks) if marks else "marks"
        caption = (f"Table {i} of {len(drawn)}: d" if len(drawn) > 1 else "D") + f"rawn as {what}; {extent}"
        table = shown.to_html(index=False, border=0, escape=True, classes="labsupport-data-table")
        table = table.replace(">", f"><caption>{html.escape(caption)}</caption>", 1)
        tables.append(f'<div class="labsupport-scroll">{table}</div>')
    return ('<details class="labsupport-chart-data"><summary>The data behind this chart</summary>\n'
            + "\n".join(tables) + "\n</details>")


# The script after each chart in the book (book_js/chart.js, whose first comment lines explain it):
# its placeholders, and its block that only a chart taking its width from the page keeps.
_CHART_JS = re.sub(r"\A(?://[^\n]*\n)+", "",
                   (Path(__file__).parents[1] / "book_js" / "chart.js").read_text(encoding="utf-8"))
_CHART_FIELD = re.compile(r"__(CHART_ID|SPEC|EMBED_OPTIONS|MIN_WIDTH)__")
_REFLOW_BLOCK = re.compile(r"^ *// reflow: begin\n(.*?)^ *// reflow: end\n", re.MULTILINE | re.DOTALL)


def _chart_script(chart_id: str, spec_json: str, embed_json: str, min_width: int | None) -> str:
    """``book_js/chart.js`` for one chart: its reflow block kept only with a ``min_width``, its fields filled in."""
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

        The book's HTML is the chart's container, its inline script (``labsupport/book_js/chart.js``
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
    usermeta = spec.get("usermeta") if isinstance(spec.get("usermeta"), dict) else {}
    reflow = usermeta.get(REFLOW_KEY) if isinstance(usermeta.get(REFLOW_KEY), dict) else None
    script = _chart_script(div_id, script_payload, embed_payload, None if reflow is None else int(reflow["min_width"]))
    reflow_class = "" if reflow is None else " labsupport-reflow"
    body = f"""<div class="labsupport-vega{reflow_class}" id="{div_id}" role="figure" aria-label="{html.escape(alt_text)}">
<noscript>{html.escape(alt_text)}</noscript></div>
<script>
{script}</script>
{_data_details(spec)}"""
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
