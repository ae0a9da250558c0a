"""Every link inside the built book reaches an existing page and, when it names one, an existing id.

The labs link glossary terms and chapters as plain Markdown links (``glossary.md#term-Lease``), which
also work live in JupyterLab; MyST cannot check their fragments, so this test does, on the HTML.
Needs a built book (``jupyter-book build .``); runs with the other browser tests (``--run-browser``)
but needs no browser.
"""

from __future__ import annotations

import html.parser
from functools import cache
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

pytestmark = pytest.mark.browser


class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("href"):
            self.hrefs.append(a["href"])


@cache
def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def test_every_internal_link_resolves(book_html: Path, book_pages: list[str]) -> None:
    broken = []
    for page in book_pages:
        source = book_html / page
        for href in _parse(source).hrefs:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:")):
                continue
            target = (source.parent / unquote(parts.path)).resolve() if parts.path else source
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                broken.append(f"{page}: {href} (no such file)")
            elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in _parse(target).ids:
                broken.append(f"{page}: {href} (no element with that id)")
    assert not broken, f"{len(broken)} broken links:\n" + "\n".join(sorted(set(broken))[:40])
