"""One concept, one colour, across every chart of the built book.

Reads the Vega-Lite spec of every chart in every page of the built book (the JSON each chart's
script hands to ``vegaEmbed``), collects every colour scale that names its labels, and fails when
one label has two colours, naming the pages. Needs a built book; runs with ``--run-browser`` but
needs no browser.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

from labsupport import presets
from labsupport.charts import legend_colours as colour_map

pytestmark = pytest.mark.browser

_PAYLOAD = re.compile(r'window\.vegaEmbed\(el, (\{.*?\}), \{"actions": ')


def specs(page: Path) -> list[dict]:
    """The Vega-Lite specs of the charts on one built page."""
    return [json.loads(m.group(1)) for m in _PAYLOAD.finditer(page.read_text(encoding="utf-8"))]


def test_no_two_charts_of_the_book_give_one_label_two_colours(book_html: Path, book_pages: list[str]) -> None:
    seen: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    charts_read = 0
    for page in book_pages:
        for spec in specs(book_html / page):
            charts_read += 1
            for label, colour in colour_map(spec).items():
                seen[label][colour.lower()].add(page)
    assert charts_read >= 30, f"read only {charts_read} charts from the built book"
    clashes = {label: {c: sorted(p) for c, p in by.items()} for label, by in seen.items() if len(by) > 1}
    assert not clashes, f"one concept, two colours across the book's charts: {clashes}"
    # The check is not vacuous: the concepts the book compares on several pages were seen there.
    for label in (presets.ttl_label(900.0), presets.NLB_RUN_LABELS["velocity"]):
        pages_with = set().union(*seen[label].values()) if label in seen else set()
        assert len(pages_with) >= 2, f"{label!r} drawn on {sorted(pages_with)}; expected a chapter and a lab"
