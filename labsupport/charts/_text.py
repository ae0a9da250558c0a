"""The charts' words: a chart's text alternative, state lines that wrap, and values as a table prints them."""

from __future__ import annotations

import json
import math
import re
import textwrap
from typing import Any

import altair as alt
import pandas as pd

__all__: list[str] = []

# A date and time as Altair writes a timestamp into a chart's data ("2025-10-19T23:48:00").
_ISO_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?$")


def _text_alternative(spec: dict[str, Any]) -> str:
    """A chart's title and description joined into its text alternative ("Chart" when it has neither).

    The book writes it into the chart's ``aria-label`` and ``<noscript>``; every front end gets it as
    ``text/plain``.
    """
    title = spec.get("title", "")
    if isinstance(title, dict):
        title = title.get("text", "")
    if isinstance(title, list):
        title = " ".join(str(part) for part in title)
    if title is None:
        title = ""
    desc = spec.get("description", "") or ""
    return ". ".join(p for p in (str(title).strip(), str(desc).strip()) if p) or "Chart"


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
    out[f"{column}_lines"] = [
        textwrap.fill(t, width=chars, break_long_words=False, break_on_hyphens=False) for t in texts
    ]
    out[f"{column}_px"] = [math.ceil(len(t) * _CHAR_PX_13 + offset_px) for t in texts]
    return out


def _state_text(column: str) -> Any:
    """The text channel of a state line: one line when the plot (the ``width`` signal) has room
    for it, else the wrapped lines of :func:`_wrapped`."""
    return alt.Text(
        f"{column}:N",
        condition={"test": f"width < datum['{column}_px']", "value": {"expr": f"datum['{column}_lines']"}},
    )


def _cell(value: Any) -> str:
    """One value of a chart's data as the table under the chart prints it."""
    if value is None or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        if float(value).is_integer() and abs(value) < 1e15:
            return f"{int(value):,}"
        if abs(value) < 1:  # three significant digits: 0.0004 must not read "0.0"
            return f"{float(value):.3g}"
        return f"{round(float(value), 3):,}"
    if isinstance(value, str) and _ISO_TIME.match(value):
        return value.replace("T", " ")
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)
