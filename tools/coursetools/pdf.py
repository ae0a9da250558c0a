"""The PDF tool: write a PDF of the whole built book, offline: ``python -m coursetools.pdf``.

Run it after building the book (``jupyter-book build .``), with the ``pdf`` extra installed
(``pip install -e ".[pdf]"``: Playwright's Python package and pypdf) and Debian's Chromium
(``apt-get install chromium``; Playwright never downloads a browser here)::

    python -m coursetools.pdf               # _build/html -> _build/pdf/us-east-1-course.pdf

It opens every page of the built book from disk in headless Chromium, in the order of the book's
navigation (the table of contents, ``_toc.yml``, as the built root page lists it), with every
request that is not a local file aborted. On each page it waits until every chart
(``.labsupport-vega``) holds its drawing, opens the exercise solutions (``<details>`` dropdowns),
and prints the page with the book's print stylesheet (``coursetools/book_css/print.css``). pypdf
joins the pages into one file with a bookmark per part and per page, and turns links between
pages of the book into links inside the PDF. The PDF is written to ``_build/pdf/`` and copied into
the built HTML folder, where every page's download menu then offers it
(:func:`coursetools.book.offer_pdf`).

Options: ``--html`` (the built HTML folder, default ``_build/html``), ``--out`` (default
``_build/pdf/us-east-1-course.pdf``), ``--chromium`` (default ``/usr/bin/chromium``, else the first
``chromium`` on ``PATH``). Errors: :class:`labsupport.errors.ConfigError` for a folder with no built
book, a missing Chromium, a page whose charts do not draw, or a request to another site.
"""

from __future__ import annotations

import argparse
import html.parser
import io
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from labsupport.errors import ConfigError

from .book import PDF_NAME, offer_pdf

__all__ = ["BookPage", "book_pages", "main", "write_pdf"]

CHART_TIMEOUT_MS = 30_000
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# Schemes a page may load; everything else (http, https, ws...) is aborted: the book is offline.
_LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:")

# True once every chart container holds an svg or a canvas, or shows its error text.
_CHARTS_SETTLED = """() => [...document.querySelectorAll('.labsupport-vega')].every(
    el => el.querySelector('svg, canvas') || /failed|needs the Vega/i.test(el.textContent))"""
_CHARTS_MISSING = """() => [...document.querySelectorAll('.labsupport-vega')]
    .filter(el => !el.querySelector('svg, canvas')).map(el => el.id)"""
# Exercise solutions (sphinx-exercise's ":class: dropdown") and other dropdowns are <details>;
# print cannot open them, so they are opened before printing. A code cell's "Show code cell
# source" toggle (MyST-NB's hide-input, details.hide) stays closed: its output is what is printed.
# The tables of data under each chart (details.labsupport-chart-data) are for readers of the web book
# without a mouse; the printed chart stands for them, so they stay closed and print as nothing.
_OPEN_DETAILS = """() => document.querySelectorAll('details:not(.hide):not(.labsupport-chart-data)')
  .forEach(d => { d.open = true; })"""

_FOOTER = (
    '<div style="font-size:8px;width:100%;padding:0 12mm;color:#555;display:flex;'
    'justify-content:space-between"><span>{book}</span><span>{page}</span>'
    '<span><span class="pageNumber"></span> / <span class="totalPages"></span></span></div>'
)


@dataclass
class BookPage:
    """One page of the built book: ``path`` relative to the HTML folder, its navigation ``title`` and ``part``."""

    path: str
    title: str
    part: str = ""


class _Nav(html.parser.HTMLParser):
    """The book's navigation (sidebar) on its root page: captions and internal links, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.pages: list[BookPage] = []  # path is the link's href here
        self._depth = 0  # > 0 inside <nav class="bd-docs-nav">
        self._part = ""
        self._in_caption = False
        self._href: str | None = None
        self._text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "nav" and "bd-docs-nav" in classes:
            self._depth = 1
        elif self._depth and tag == "nav":
            self._depth += 1
        if not self._depth:
            return
        if tag == "p" and "caption" in classes:
            self._in_caption, self._part = True, ""
        if tag == "a" and "internal" in classes and a.get("href"):
            self._href, self._text = a["href"], ""

    def handle_endtag(self, tag: str) -> None:
        if not self._depth:
            return
        if tag == "nav":
            self._depth -= 1
        elif tag == "p" and self._in_caption:
            self._in_caption = False
            self._part = " ".join(self._part.split())
        elif tag == "a" and self._href is not None:
            self.pages.append(BookPage(self._href, " ".join(self._text.split()), self._part))
            self._href = None

    def handle_data(self, data: str) -> None:
        if self._in_caption:
            self._part += data
        elif self._href is not None:
            self._text += data


def _root_page(html_dir: Path) -> Path:
    """The book's root page: index.html, or the page it redirects to (Jupyter Book's root)."""
    index = html_dir / "index.html"
    if not index.is_file():
        raise ConfigError(
            f"html={html_dir}: no index.html, so no built book there; build it first (jupyter-book build .)"
        )
    text = index.read_text(encoding="utf-8")
    marker = "url="
    if "http-equiv" in text and marker in text:
        target = text.split(marker, 1)[1].split('"', 1)[0].strip()
        candidate = html_dir / unquote(target)
        if candidate.is_file():
            return candidate
    return index


def book_pages(html_dir: Path) -> list[BookPage]:
    """Every page of the built book in its table-of-contents order, the root page first.

    Args:
        html_dir: the built HTML folder (``_build/html``).

    Returns:
        One :class:`BookPage` per page (``path`` relative to ``html_dir``, ``title`` as the
        navigation shows it, ``part`` the navigation caption it sits under, "" for the root page).

    Raises:
        ConfigError: when ``html_dir`` holds no built book or its navigation lists no page.
    """
    root = _root_page(html_dir)
    nav = _Nav()
    nav.feed(root.read_text(encoding="utf-8"))
    seen: dict[str, BookPage] = {}
    root_rel = root.relative_to(html_dir).as_posix()
    for page in nav.pages:
        path = urlsplit(page.path).path
        try:
            rel = (
                (root.parent / unquote(path)).resolve().relative_to(html_dir.resolve()).as_posix() if path else root_rel
            )
        except ValueError:
            raise ConfigError(
                f"html={html_dir}: the navigation links {page.path!r} ({page.title!r}), outside the built book"
            ) from None
        seen.setdefault(rel, BookPage(rel, page.title, page.part))
    if not seen:
        raise ConfigError(f"html={html_dir}: the root page {root_rel} lists no pages in its navigation")
    if root_rel in seen:  # the theme lists the root page first ("home_page_in_navbar")
        seen[root_rel].part = ""
        return [seen[root_rel], *[p for rel, p in seen.items() if rel != root_rel]]
    return [BookPage(root_rel, _page_title(root)), *seen.values()]


def _chromium(chosen: str | None) -> str:
    for candidate in [chosen] if chosen else ["/usr/bin/chromium", "chromium", "chromium-browser"]:
        found = shutil.which(candidate)
        if found:
            return found
    raise ConfigError(
        f"chromium={chosen or '/usr/bin/chromium'}: no such Chromium; install Debian's "
        "(apt-get install chromium) or pass --chromium PATH"
    )


def _print_pages(html_dir: Path, pages: list[BookPage], chromium: str, book_title: str) -> list[bytes]:
    from playwright.sync_api import sync_playwright

    blocked: list[str] = []

    def route(r) -> None:  # noqa: ANN001 - Playwright's Route
        if r.request.url.startswith(_LOCAL_SCHEMES):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    printed: list[bytes] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=LAUNCH_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            context.route("**/*", route)
            page = context.new_page()
            for book_page in pages:
                page.goto((html_dir / book_page.path).resolve().as_uri(), wait_until="load")
                try:
                    page.wait_for_function(_CHARTS_SETTLED, timeout=CHART_TIMEOUT_MS)
                except Exception as err:  # Playwright's TimeoutError
                    raise ConfigError(
                        f"page={book_page.path}: its charts did not draw within {CHART_TIMEOUT_MS} ms"
                    ) from err
                missing = page.evaluate(_CHARTS_MISSING)
                if missing:
                    raise ConfigError(f"page={book_page.path}: charts {missing} did not draw (see the browser test)")
                page.evaluate(_OPEN_DETAILS)
                page.emulate_media(media="print")
                printed.append(
                    page.pdf(
                        format="A4",
                        print_background=True,
                        display_header_footer=True,
                        header_template="<span></span>",
                        footer_template=_FOOTER.format(book=html.escape(book_title), page=html.escape(book_page.title)),
                        margin={"top": "14mm", "bottom": "16mm", "left": "12mm", "right": "12mm"},
                    )
                )
                page.emulate_media(media="screen")
        finally:
            browser.close()
    if blocked:
        raise ConfigError(
            f"requests={sorted(set(blocked))[:5]}: pages of the book asked for files on "
            "another site; the book must be offline (see coursetools/book.py)"
        )
    return printed


def _join(html_dir: Path, pages: list[BookPage], printed: list[bytes], book_title: str):  # noqa: ANN202
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import ArrayObject, DictionaryObject, NameObject, NullObject

    writer = PdfWriter()
    first_page: dict[str, int] = {}
    parts: dict[str, Any] = {}
    for book_page, data in zip(pages, printed, strict=False):
        start = len(writer.pages)
        first_page[(html_dir / book_page.path).resolve().as_uri()] = start
        writer.append(PdfReader(io.BytesIO(data)), import_outline=False)
        parent = None
        if book_page.part:
            if book_page.part not in parts:
                parts[book_page.part] = writer.add_outline_item(title=book_page.part, page_number=start)
            parent = parts[book_page.part]
        writer.add_outline_item(title=book_page.title or book_page.path, page_number=start, parent=parent)
    # Chromium writes a link to another page of the book as a file:// address on this machine;
    # point it at that page's first page in the PDF instead (a link to a fragment lands on the
    # page's start), and drop links to files the PDF does not hold (downloads, sources).
    for pdf_page in writer.pages:
        annots = pdf_page.get("/Annots")
        if not annots:
            continue
        kept = ArrayObject()
        for ref in annots.get_object():
            annot = ref.get_object()
            action = annot.get("/A")
            uri = action.get_object().get("/URI") if action is not None else None
            if not (isinstance(uri, str) and uri.startswith("file:")):
                kept.append(ref)
                continue
            target = first_page.get(urlsplit(uri)._replace(fragment="").geturl())
            if target is None:
                continue
            annot[NameObject("/A")] = DictionaryObject(
                {
                    NameObject("/S"): NameObject("/GoTo"),
                    NameObject("/D"): ArrayObject([writer.pages[target].indirect_reference, NameObject("/Fit")]),
                }
            )
            kept.append(ref)
        pdf_page[NameObject("/Annots")] = kept if kept else NullObject()
        if not kept:
            del pdf_page["/Annots"]
    writer.add_metadata({"/Title": book_title, "/Creator": "coursetools.pdf (Chromium, pypdf)"})
    writer.page_mode = "/UseOutlines"
    return writer


def _title_parts(page: Path) -> tuple[str, str]:
    """(page title, book title) from a built page's <title>, "Page — Book"."""
    text = page.read_text(encoding="utf-8")
    title = html.unescape(text.split("<title>", 1)[1].split("</title>", 1)[0]) if "<title>" in text else ""
    head, _, tail = " ".join(title.split()).rpartition(" — ")
    return (head, tail) if head else (tail, tail)


def _page_title(page: Path) -> str:
    return _title_parts(page)[0]


def _book_title(root: Path) -> str:
    return _title_parts(root)[1] or "Book"


def write_pdf(
    html_dir: Path | str = "_build/html", out: Path | str = "_build/pdf/" + PDF_NAME, chromium: str | None = None
) -> Path:
    """Print every page of the built book and join them into one PDF.

    Args:
        html_dir: the built HTML folder.
        out: the PDF to write (its folder is made); a copy goes into ``html_dir`` as
            :data:`coursetools.book.PDF_NAME`, and every page's download menu links it.
        chromium: the Chromium executable (default Debian's ``/usr/bin/chromium``).

    Returns:
        The path of the PDF written.

    Raises:
        ConfigError: no built book in ``html_dir``, no Chromium, a chart that does not draw, or a
            request to another site.
    """
    html_dir, out = Path(html_dir).resolve(), Path(out).resolve()
    pages = book_pages(html_dir)
    # Before Chromium starts, so that a missing page is named, not a Playwright net::ERR_FILE_NOT_FOUND traceback.
    missing = [p.path for p in pages if not (html_dir / p.path).is_file()]
    if missing:
        raise ConfigError(
            f"html={html_dir}: the navigation lists pages that are not in the built book: "
            f"{missing[:5]}; rebuild it (jupyter-book build .)"
        )
    title = _book_title(_root_page(html_dir))
    printed = _print_pages(html_dir, pages, _chromium(chromium), title)
    writer = _join(html_dir, pages, printed, title)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("wb") as fh:
        writer.write(fh)
    if out != html_dir / PDF_NAME:
        shutil.copyfile(out, html_dir / PDF_NAME)
    offer_pdf(html_dir)
    return out


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m coursetools.pdf [--html DIR] [--out FILE] [--chromium PATH]``."""
    parser = argparse.ArgumentParser(prog="python -m coursetools.pdf", description=__doc__.split("\n\n")[0])
    parser.add_argument("--html", default="_build/html", help="built HTML folder (default: _build/html)")
    parser.add_argument("--out", default="_build/pdf/" + PDF_NAME, help="PDF to write (default: %(default)s)")
    parser.add_argument("--chromium", default=None, help="Chromium executable (default: /usr/bin/chromium)")
    args = parser.parse_args(argv)
    started = time.monotonic()
    try:
        out = write_pdf(args.html, args.out, args.chromium)
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    from pypdf import PdfReader

    count = len(PdfReader(out).pages)
    print(
        f"wrote {out} ({count} pages, {out.stat().st_size / 1e6:.1f} MB, "
        f"{time.monotonic() - started:.0f} s); the book's download menu now offers it"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
