"""coursetools.pdf reads the book's order from the built navigation; the printing itself is tested in
tests/browser/test_book_pdf.py (it needs Chromium and a built book)."""

from __future__ import annotations

import pytest

from coursetools.pdf import BookPage, book_pages, main, write_pdf
from labsupport import ConfigError

_ROOT = """<html><head><title>Home &#8212; A book</title></head><body>
<nav class="bd-docs-nav bd-links"><ul><li><a class="reference internal" href="#">Home</a></li></ul>
<p class="caption" role="heading"><span class="caption-text">Chapters</span></p>
<ul><li><a class="reference internal" href="chapters/one.html">One</a>
  <ul><li><a class="reference internal" href="chapters/one/sub.html">One, a section</a></li></ul></li>
<li><a class="reference internal" href="chapters/one.html#part">One again</a></li></ul>
<p class="caption"><span class="caption-text">Labs</span></p>
<ul><li><a class="reference internal" href="labs/00.html">Lab 0</a></li></ul></nav>
<article><a class="reference internal" href="labs/99.html">not in the navigation</a></article></body></html>"""


def test_pages_in_navigation_order_with_their_parts(tmp_path):
    (tmp_path / "index.html").write_text('<meta http-equiv="Refresh" content="0; url=intro.html" />')
    (tmp_path / "intro.html").write_text(_ROOT, encoding="utf-8")
    assert book_pages(tmp_path) == [
        BookPage("intro.html", "Home", ""),
        BookPage("chapters/one.html", "One", "Chapters"),
        BookPage("chapters/one/sub.html", "One, a section", "Chapters"),
        BookPage("labs/00.html", "Lab 0", "Labs"),
    ]


def test_no_built_book_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match=r"no index.html"):
        book_pages(tmp_path)


def test_a_page_missing_from_the_built_book_is_named_before_printing(tmp_path, capsys):
    # The navigation lists labs/00.html but the file is gone: a ConfigError naming it, and exit 2,
    # before Chromium starts (not Playwright's net::ERR_FILE_NOT_FOUND traceback).
    (tmp_path / "index.html").write_text(_ROOT, encoding="utf-8")
    for page in ("chapters/one.html", "chapters/one/sub.html"):
        (tmp_path / page).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / page).write_text("<html><body>x</body></html>")
    with pytest.raises(ConfigError, match=r"not in the built book: \['labs/00.html'\]"):
        write_pdf(tmp_path, tmp_path / "out.pdf", chromium="/nonexistent/chromium")
    assert main(["--html", str(tmp_path), "--out", str(tmp_path / "out.pdf")]) == 2
    assert "labs/00.html" in capsys.readouterr().err
    assert not (tmp_path / "out.pdf").exists()


def test_a_navigation_link_outside_the_book_is_a_config_error(tmp_path):
    # relative_to raised a bare ValueError for href="../elsewhere.html".
    (tmp_path / "index.html").write_text(_ROOT.replace("labs/00.html", "../elsewhere.html"), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"'\.\./elsewhere\.html' \('Lab 0'\), outside the built book"):
        book_pages(tmp_path)
