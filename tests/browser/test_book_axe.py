"""Run axe-core on every page of the built book at 1280 px, and at 390 px (a phone) where the layout differs.

axe runs on the pages that the other browser tests load (conftest.py's ``visits`` at 1280 px and
``phone_visits`` at 390 px), so a page is loaded once per width for every check. At 390 px it runs
on every page whose content has a box that scrolls at that width or a chart: there the book's
scroll-region script gives tables, code and outputs a role, a name and a tab stop that they lack at
1280 px, and Vega draws each chart anew for the narrower column, so axe sees different markup. A
page with neither (the glossary, the references, search) has at 390 px the markup axe checked at
1280 px, with the theme's phone layout around it, which axe checks on every other page at 390 px.
Measured before this rule (every page at both widths, 54 page views): no violation at either
width, so no finding was seen only at 390 px; a page load and axe took 4 to 25 s a page at 390 px on
a busy 2-core machine (190 s in all), most on the labs' chart-heavy pages, which keep both widths.

axe-core comes from the ``axe-playwright-python`` package (the ``[browser]`` extra), which bundles
``axe.min.js``; it is injected into each page by Playwright, so nothing is fetched. Pages are
served on 127.0.0.1 (the ``base_url`` fixture in conftest.py) with every other request blocked.

Each violation is classed by where its elements are:

* **content**: at least one element inside the article (``article.bd-article``), that is, the
  course's own pages: prose, tables, charts, exercise boxes, the bibliography;
* **theme**: every element in the theme's chrome (header, sidebars, navbar, footer, buttons).

A page fails on any serious or critical violation, on any content violation whatever its impact,
and on a theme violation that :data:`THEME_ALLOWED` does not list with the theme's issue number.
A table of what was found (page, width, rule, impact, elements, class) is written to
``_build/axe-report.txt`` and printed at the end of the pytest run, so that CI's log shows it (a
run of one width, such as CI's two halves ``-m phone`` and ``-m "not phone"``, writes
``_build/axe-report-390px.txt`` or ``_build/axe-report-1280px.txt``).
Off by default: ``pytest tests/browser --run-browser`` (see conftest.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from test_book_in_browser import VIEWPORT, _open
from test_book_phone import PHONE

pytestmark = pytest.mark.browser

#: The two widths axe checks: the 1280 px page of test_book_in_browser.py and the 390 px phone of
#: test_book_phone.py (a mobile viewport with touch), on the very pages those tests load.
WIDTHS = {"1280": VIEWPORT, "390": PHONE}
FAILING_IMPACTS = {"serious", "critical"}
CONTENT = "article.bd-article"
# Theme violations (minor or moderate, outside the article) that are known upstream and cannot be
# fixed through the theme's options or tools/coursetools/book_css/a11y.css: rule id -> the theme's issue.
# Empty: every theme violation axe found is fixed in this book (see a11y.css and tools/coursetools/book.py).
THEME_ALLOWED: dict[str, str] = {}
# The WCAG 2.0/2.1/2.2 A and AA rules plus axe's best practices: everything axe checks by default.
AXE_OPTIONS = {"resultTypes": ["violations"], "rules": {"label-content-name-mismatch": {"enabled": True}}}
AXE_SUMMARY = pytest.StashKey[list[dict[str, Any]]]()

# Runs axe (already injected) and says, for each violation, whether its elements are in the article.
_RUN_AXE = """async ([options, content]) => {
  const results = await axe.run(document, options);
  const where = target => {
    const first = Array.isArray(target[0]) ? target[0][0] : target[0];  // shadow DOM: its host
    let el = null;
    try { el = document.querySelector(first); } catch (e) { el = null; }
    return el && el.closest(content) ? 'content' : 'theme';
  };
  return results.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({target: n.target.flat().join(' '), html: n.html.slice(0, 200),
                              where: where(n.target), summary: (n.failureSummary || '').slice(0, 300)})),
  }));
}"""


def _axe_script() -> str:
    try:
        from axe_playwright_python.base import AXE_SCRIPT
    except ImportError:
        pytest.skip("axe-playwright-python is not installed (pip install -e '.[browser]')")
    return AXE_SCRIPT


def run_axe(tab: Any, *watched: list[str]) -> list[dict[str, Any]]:
    """Inject axe-core into the open page, run it, and return its violations, each node classed.

    ``watched``: lists that the page's listeners fill (console errors, off-site requests; see
    ``_watch`` in test_book_in_browser.py). What axe itself causes while it runs (it fetches the
    page's stylesheets again, and logs a 404 for an ``@import`` it resolves against the page) is
    taken out of them again, so that the page's own checks see only the page.
    """
    marks = [len(w) for w in watched]
    tab.evaluate(_axe_script())
    violations = tab.evaluate(_RUN_AXE, [AXE_OPTIONS, CONTENT])
    for w, n in zip(watched, marks, strict=True):
        del w[n:]
    for v in violations:
        v["where"] = "content" if any(n["where"] == "content" for n in v["nodes"]) else "theme"
    return violations


def failures(violations: Iterable[dict[str, Any]]) -> list[str]:
    """The violations that fail a page, each as one line saying why."""
    out = []
    for v in violations:
        why = []
        if v["impact"] in FAILING_IMPACTS:
            why.append(f"{v['impact']}")
        if v["where"] == "content":
            why.append("in the course's content")
        elif v["id"] not in THEME_ALLOWED:
            why.append("in the theme, not listed in THEME_ALLOWED with the theme's issue")
        if why:
            nodes = "; ".join(f"{n['target']} {n['html'][:100]!r}" for n in v["nodes"][:4])
            out.append(
                f"{v['id']} ({v['impact']}, {len(v['nodes'])} elements; {', '.join(why)}): {v['help']}\n    {nodes}"
            )
    return out


@pytest.fixture(scope="session")
def axe_rows(pytestconfig: pytest.Config, book_html: Path):
    """Rows of the axe table (one per page, width and rule), written out at the end of the session."""
    rows: list[dict[str, Any]] = []
    pytestconfig.stash[AXE_SUMMARY] = rows
    yield rows
    if rows:
        (book_html.parent / report_name(rows)).write_text("\n".join(report_lines(rows)) + "\n", encoding="utf-8")


def report_name(rows: list[dict[str, Any]]) -> str:
    """``axe-report.txt`` for a run at both widths; ``axe-report-390px.txt`` for one at 390 px only (``-m phone``)."""
    widths = sorted({r["width"] for r in rows}, key=int)
    return (
        "axe-report.txt" if set(widths) == set(WIDTHS) else "axe-report-" + "-".join(f"{w}px" for w in widths) + ".txt"
    )


def report_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The table CI prints: one line per page, width and rule, then the totals."""
    lines = [f"{'page':<52} {'px':>4}  {'rule':<32} {'impact':<9} {'n':>3}  where"]
    pages = sorted({(r["page"], r["width"]) for r in rows})
    for page, width in pages:
        found = [r for r in rows if (r["page"], r["width"]) == (page, width) and r["id"]]
        if not found:
            lines.append(f"{page:<52} {width:>4}  {'(no violations)':<32}")
        for r in found:
            lines.append(f"{page:<52} {width:>4}  {r['id']:<32} {r['impact']:<9} {r['n']:>3}  {r['where']}")
    real = [r for r in rows if r["id"]]
    serious = sum(1 for r in real if r["impact"] in FAILING_IMPACTS)
    content = sum(1 for r in real if r["where"] == "content")
    theme = sum(1 for r in real if r["where"] == "theme")
    lines.append(
        f"axe-core on {len(pages)} page views: {serious} serious or critical, {content} in the "
        f"course's content, {theme} in the theme "
        f"({sum(1 for r in real if r['where'] == 'theme' and r['id'] in THEME_ALLOWED)} "
        "of them listed with the theme's issue)"
    )
    return lines


@pytest.mark.parametrize("width", WIDTHS)
def test_axe_finds_no_failing_violation(visits, phone_visits, axe_rows, page, width):
    # axe runs on the page that the other tests at that width load (conftest.py's visits and
    # phone_visits fixtures), as loaded: one page load per page and width for every check.
    violations = visits(page).axe if width == "1280" else phone_visits(page)["axe"]
    if violations is None:
        pytest.skip(
            f"{page} at 390 px: no box scrolls and no chart, so its content is laid out as at 1280 px, "
            "where axe checked it; the theme at 390 px is checked on the pages that have one"
        )
    axe_rows.append({"page": page, "width": width, "id": "", "impact": "", "n": 0, "where": ""})
    axe_rows.extend(
        {"page": page, "width": width, "id": v["id"], "impact": v["impact"], "n": len(v["nodes"]), "where": v["where"]}
        for v in violations
    )
    found = failures(violations)
    assert not found, f"{page} at {width} px, axe-core:\n" + "\n".join(found)


def test_axe_checks_the_phone_layout_of_most_pages(phone_visits, book_pages):
    """Guards the 390 px rule above: axe ran at 390 px on every page with a chart and on most pages."""
    checked = [p for p in book_pages if phone_visits(p)["axe"] is not None]
    with_charts = [p for p in book_pages if phone_visits(p)["charts"]]
    assert set(with_charts) <= set(checked), sorted(set(with_charts) - set(checked))
    assert len(checked) * 2 > len(book_pages), f"axe ran at 390 px on only {checked}"


# ---------------------------------------------------------------------------------------------
# Languages (WCAG 3.1.2): axe checks that a lang attribute is valid, not that text in another
# language has one. The book is in English (<html lang="en">); its Japanese, French, Portuguese and
# Spanish runs are the glossary's translations, each a span with its own lang.

# Hiragana, katakana and CJK ideographs, and the full-width forms Japanese text uses.
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
GLOSSARY_LANGS = ("ja", "fr", "pt", "es")


def _lang(node: Any) -> str:
    """The language a text node is in: the lang of its nearest element that has one."""
    el = node.parent
    while el is not None and getattr(el, "name", None) not in (None, "[document]"):
        if el.get("lang"):
            return el["lang"]
        el = el.parent
    return ""


def japanese_without_lang(markup: str) -> list[str]:
    """Every text run with Japanese characters that is not inside an element with lang="ja"."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(markup, "html.parser")
    return [
        str(s).strip()[:60]
        for s in soup.find_all(string=JAPANESE)
        if s.parent.name not in {"script", "style", "template"} and not _lang(s).startswith("ja")
    ]


def test_japanese_text_is_marked_lang_ja(book_html, page):
    found = japanese_without_lang((book_html / page).read_text(encoding="utf-8"))
    assert not found, f'{page}: Japanese text without lang="ja" (write [text]{{.language-ja}}): {found[:10]}'


def test_glossary_translations_carry_their_languages(book_html):
    """Every glossary entry has a span in each language, each with its lang (a real rendering check)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup((book_html / "chapters" / "glossary.html").read_text(encoding="utf-8"), "html.parser")
    entries = soup.select("dl.glossary > dt")
    # Entries with a span in each language (an entry's prose may quote a seed in its language too).
    counts = {
        lang: sum(bool(dd.select(f"span[lang={lang}]")) for dd in soup.select("dl.glossary > dd"))
        for lang in GLOSSARY_LANGS
    }
    assert entries, "no glossary entries found in chapters/glossary.html"
    assert all(n > 0 for n in counts.values()) and len(set(counts.values())) == 1, counts
    # Aliases share an entry: one dd per entry, one span per language in each.
    assert counts["ja"] == len(soup.select("dl.glossary > dd")), (counts, len(entries))


# ---------------------------------------------------------------------------------------------
# The harness itself: the classification and the failure rule can fail


_BAD_PAGE = """<!doctype html><html lang="en"><head><title>t</title></head><body>
<header class="bd-header"><button class="theme-switch-button"><svg width="10" height="10"></svg></button></header>
<main><article class="bd-article"><h1>Page</h1><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<p>Some text that is fine.</p></article></main></body></html>"""


def test_harness_classes_and_fails_what_it_should(browser, tmp_path):
    """An unnamed theme button is 'theme'; an image without alt in the article is 'content'; both fail."""
    (tmp_path / "bad.html").write_text(_BAD_PAGE, encoding="utf-8")
    context = browser.new_context(viewport=WIDTHS["1280"])
    try:
        tab = context.new_page()
        _open(tab, (tmp_path / "bad.html").as_uri(), chart_timeout_ms=100)
        violations = {v["id"]: v for v in run_axe(tab)}
    finally:
        context.close()
    assert violations["button-name"]["where"] == "theme"
    assert violations["image-alt"]["where"] == "content"
    failed = failures(violations.values())
    assert any(line.startswith("button-name") for line in failed)
    assert any(line.startswith("image-alt") and "content" in line for line in failed)
    # A minor theme violation listed with its issue passes; the same one unlisted fails.
    minor = {"id": "x-minor", "impact": "minor", "help": "h", "where": "theme", "nodes": []}
    assert failures([minor])
    THEME_ALLOWED["x-minor"] = "https://example.invalid/issue/1"
    try:
        assert not failures([minor])
        assert failures([{**minor, "impact": "serious"}]), "a listed serious violation must still fail"
    finally:
        del THEME_ALLOWED["x-minor"]


def test_harness_finds_japanese_without_lang():
    assert japanese_without_lang('<html lang="en"><p>A <span>競合</span> B</p></html>') == ["競合"]
    assert japanese_without_lang('<html lang="en"><p>A <span lang="ja">競合<b>状態</b></span></p></html>') == []
    assert japanese_without_lang('<html lang="en"><script>var s = "競合";</script></html>') == []
