"""The data behind each chart in the book: its datasets as HTML tables, for readers without a mouse."""

from __future__ import annotations

import html
import re
from typing import Any

import numpy as np
import pandas as pd

from ._text import _cell

__all__ = ["DETAILS_MAX_ROWS"]


#: The most rows of one dataset that the table under a chart in the book lists; a longer dataset
#: is shown by this many evenly spaced rows (the first and the last among them), and the table says so.
DETAILS_MAX_ROWS = 64

# Mark types in words, for the captions of the data tables under the charts.
_MARK_WORDS = {
    "line": "lines",
    "trail": "lines",
    "area": "areas",
    "bar": "bars",
    "rect": "rectangles",
    "point": "points",
    "circle": "points",
    "square": "squares",
    "tick": "ticks",
    "rule": "rules",
    "text": "labels",
    "arc": "arcs",
    "geoshape": "shapes",
    "image": "images",
}
# A field named in a Vega expression: datum.name or datum['name'].
_DATUM_FIELD = re.compile(r"""datum\.(\w+)|datum\[['"]([^'"]+)['"]\]""")


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


def _rows_of(data: Any, named: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The rows of a spec's ``data`` entry: inline ``values``, or a named dataset's; ``None`` if neither."""
    if isinstance(data, dict):
        if isinstance(data.get("values"), list):
            return data["values"]
        if isinstance(data.get("name"), str) and isinstance(named.get(data["name"]), list):
            return named[data["name"]]
    return None


def _drawn_datasets(spec: dict[str, Any]) -> list[tuple[list[dict[str, Any]], list[str]]]:
    """Each dataset a spec draws (its rows) with the marks drawn from it, in the spec's order."""
    named: dict[str, Any] = spec["datasets"] if isinstance(spec.get("datasets"), dict) else {}
    found: dict[int, tuple[list[dict[str, Any]], list[str]]] = {}

    def walk(node: Any, rows: list[dict[str, Any]] | None) -> None:
        if isinstance(node, dict):
            own = _rows_of(node.get("data"), named)
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
            keep = sorted({round(x) for x in np.linspace(0, total - 1, DETAILS_MAX_ROWS)})
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
    return (
        '<details class="labsupport-chart-data"><summary>The data behind this chart</summary>\n'
        + "\n".join(tables)
        + "\n</details>"
    )
