"""The PDF of the whole book (``python -m coursetools.pdf``): every page present, in order, with its charts.

Run after the command, which prints the built book (``_build/html``) to ``_build/pdf/``::

    python -m coursetools.pdf
    pytest tests/browser/test_book_pdf.py --run-browser -p no:cacheprovider

It skips, naming the command, when there is no PDF. It fails when the PDF is older than the built
book, when a page of the book's navigation is missing from it (each page's h1 is looked for in the
text of the PDF pages its bookmark points to), when a chart's text (its title or an axis or legend
title, as drawn by Vega) is missing from its page's PDF pages, or when the download menu of a built
page does not offer the PDF.
"""

from __future__ import annotations

import html.parser
import json
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

pypdf = pytest.importorskip("pypdf", reason="pypdf is not installed (pip install -e '.[pdf]')")

from coursetools.book import PDF_NAME  # noqa: E402
from coursetools.pdf import book_pages  # noqa: E402

# At least one PDF page per book page, and the book is long: its ~25 pages print to well over this.
MIN_PAGES = 100
# A chart counts as printed when one of its titles this long (or longer) is in its page's text.
LONG_TITLE = 12


def _norm(text: str) -> str:
    return " ".join(text.replace("\u00ad", "").split()).casefold()


class _Page(html.parser.HTMLParser):
    """A built page's first h1 (without its "#" link) and its charts' Vega-Lite specs."""

    def __init__(self) -> None:
        super().__init__()
        self.h1 = ""
        self._h1_depth = 0
        self._skip = 0
        self._script = False
        self.scripts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "h1" and not self.h1 and not self._h1_depth:
            self._h1_depth = 1
        elif self._h1_depth and tag == "a" and "headerlink" in (a.get("class") or ""):
            self._skip += 1
        self._script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        if self._h1_depth and tag == "h1":
            self._h1_depth = 0
            self.h1 = " ".join(self.h1.split())
        elif self._skip and tag == "a":
            self._skip -= 1
        if tag == "script":
            self._script = False

    def handle_data(self, data: str) -> None:
        if self._h1_depth and not self._skip:
            self.h1 += data
        if self._script and "vegaEmbed(el," in data:
            self.scripts.append(data)


def _chart_specs(scripts: list[str]) -> list[dict]:
    decoder = json.JSONDecoder()
    specs = []
    for script in scripts:
        start = script.index("vegaEmbed(el,") + len("vegaEmbed(el,")
        spec, _ = decoder.raw_decode(script[start:].lstrip())
        specs.append(spec)
    return specs


def _titles(node: object) -> list[str]:
    """Every title string in a spec (chart, axis and legend titles), as Vega draws them."""
    found: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "title":
                parts = value.get("text") if isinstance(value, dict) else value
                parts = parts if isinstance(parts, list) else [parts]
                found += [p for p in parts if isinstance(p, str) and p.strip()]
            found += _titles(value)
    elif isinstance(node, list):
        for value in node:
            found += _titles(value)
    return found


@pytest.fixture(scope="module")
def book_pdf(book_html: Path) -> Path:
    pdf = book_html.parent / "pdf" / PDF_NAME
    if not pdf.is_file():
        pytest.skip(f"no PDF at {pdf} (write it first: python -m coursetools.pdf)")
    assert pdf.stat().st_mtime >= (book_html / "index.html").stat().st_mtime, (
        f"{pdf} is older than the built book: run python -m coursetools.pdf again"
    )
    return pdf


@pytest.fixture(scope="module")
def reader(book_pdf: Path):  # noqa: ANN201
    return pypdf.PdfReader(book_pdf)


def _page_ranges(reader) -> dict[str, range]:  # noqa: ANN001
    """Bookmark title -> the PDF pages (0-based) from it to the next page's bookmark."""
    starts: list[tuple[str, int]] = []

    def walk(items: list) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item)
            else:
                starts.append((item.title, reader.get_destination_page_number(item)))

    walk(reader.outline)
    # Part bookmarks share their first page with their first page's bookmark; keep page ones.
    ends = [*sorted({start for _, start in starts}), len(reader.pages)]
    return {title: range(start, next(e for e in ends if e > start)) for title, start in starts}


def test_pdf_has_every_page_of_the_book_in_order(book_html: Path, reader) -> None:  # noqa: ANN001
    pages = book_pages(book_html)
    assert len(reader.pages) >= max(MIN_PAGES, len(pages)), f"only {len(reader.pages)} PDF pages"
    ranges = _page_ranges(reader)
    missing, starts = [], []
    for page in pages:
        assert page.title in ranges, f"no bookmark for {page.path} ({page.title!r}); bookmarks: {list(ranges)}"
        parsed = _Page()
        parsed.feed((book_html / page.path).read_text(encoding="utf-8"))
        text = _norm(" ".join(reader.pages[i].extract_text() for i in ranges[page.title]))
        if _norm(parsed.h1) not in text:
            missing.append(f"{page.path}: h1 {parsed.h1!r} not in PDF pages {ranges[page.title]}")
        starts.append(ranges[page.title].start)
    assert not missing, "\n".join(missing)
    assert starts == sorted(starts), "the PDF's pages are not in the book's order"


def test_pdf_has_every_chart(book_html: Path, reader) -> None:  # noqa: ANN001
    ranges = _page_ranges(reader)
    checked, missing = 0, []
    for page in book_pages(book_html):
        parsed = _Page()
        parsed.feed((book_html / page.path).read_text(encoding="utf-8"))
        specs = _chart_specs(parsed.scripts)
        if not specs:
            continue
        text = _norm(" ".join(reader.pages[i].extract_text() for i in ranges[page.title]))
        for n, spec in enumerate(specs, 1):
            # Short titles ("time", "count") would be found in the prose anyway; look for the long ones.
            titles = [_norm(t) for t in _titles(spec) if len(t.strip()) >= LONG_TITLE]
            assert titles, f"{page.path}: chart {n} has no title of {LONG_TITLE}+ characters to look for"
            checked += 1
            if not any(t in text for t in titles):
                missing.append(f"{page.path}: chart {n} (none of {titles[:4]} in its PDF pages)")
    assert checked, "no charts found in the built book"
    assert not missing, f"{len(missing)} of {checked} charts missing from the PDF:\n" + "\n".join(missing)


def test_download_menu_offers_the_pdf(book_html: Path, book_pdf: Path, book_pages: list[str]) -> None:
    assert (book_html / PDF_NAME).read_bytes() == book_pdf.read_bytes(), "the built book's copy differs"
    without = []
    for rel in book_pages:
        text = (book_html / rel).read_text(encoding="utf-8")
        if "dropdown-download-buttons" not in text:
            continue  # search and index pages have no download menu
        match = re.search(r'<a href="([^"]+)"[^>]*btn-download-book-pdf-button', text)
        if not match or (book_html / rel).parent.joinpath(match.group(1)).resolve() != (book_html / PDF_NAME).resolve():
            without.append(rel)
    assert not without, f"download menu without the PDF on: {without}"
