"""coursetools.book fixes what axe-core finds in HTML the course does not write itself.

tests/browser/test_book_axe.py runs axe-core on the built book; these tests pin each fix on small
inputs, so that a change in docutils', pandas' or the theme's HTML shows here first.
"""

from __future__ import annotations

from types import SimpleNamespace

from bs4 import BeautifulSoup

from coursetools import book

_CITATIONS = (
    '<div role="list" class="citation-list">\n<div class="citation" id="id1" role="doc-biblioentry">'
    '<span class="label">x</span><p>A.</p></div>\n</div>'
)
_TABLE = "<table><thead><tr><th></th><th>count</th></tr></thead><tbody><tr><th>a</th><td>1</td></tr></tbody></table>"
_TOCTREE = (
    '<ul><li class="toctree-l1 has-children"><a class="reference internal" href="g.html">Instructor '
    'guide</a><details><summary><span class="toctree-toggle" role="presentation"><i></i></span></summary>'
    '<ul><li><a href="h.html">Half day</a></li></ul></details></li>'
    '<li><details><summary><p class="caption">Labs</p></summary></details></li></ul>'
)


def _page(body: str = "", toctree: str = _TOCTREE, sidebars: list[str] | None = None) -> dict:
    return {
        "body": body,
        "generate_toctree_html": lambda kind, **kwargs: BeautifulSoup(toctree, "html.parser"),
        "sidebars": sidebars if sidebars is not None else ["navbar-logo.html", "sbt-sidebar-nav.html"],
    }


def test_citations_are_list_items_not_deprecated_biblioentries():
    context = _page(_CITATIONS)
    book._accessible_page(SimpleNamespace(), "chapters/references", "page.html", context, None)
    assert "doc-biblioentry" not in context["body"]
    assert '<div class="citation" id="id1" role="listitem">' in context["body"]
    assert 'role="list" class="citation-list"' in context["body"]


def test_empty_header_cells_become_data_cells_and_named_ones_stay():
    context = _page(_TABLE)
    book._accessible_page(SimpleNamespace(), "labs/x", "page.html", context, None)
    assert context["body"] == _TABLE.replace("<th></th>", "<td></td>", 1)
    assert "<th>count</th>" in context["body"] and "<th>a</th>" in context["body"]


def test_a_stylers_blank_corner_cells_become_data_cells():
    # A pandas Styler (lab 00's styled tables) writes its corner as <th class="blank level0" >&nbsp;</th>.
    styled = (
        '<table id="T_x"><thead><tr><th class="blank level0" >&nbsp;</th>'
        '<th id="T_x_level0_col0" class="col_heading level0 col0" >time</th></tr></thead></table>'
    )
    context = _page(styled)
    book._accessible_page(SimpleNamespace(), "labs/x", "page.html", context, None)
    assert '<td class="blank level0"></td>' in context["body"] and "&nbsp;</th>" not in context["body"]
    assert 'class="col_heading level0 col0" >time</th>' in context["body"]


def test_sidebar_toggles_get_a_name_from_their_section():
    context = _page()
    book._accessible_page(SimpleNamespace(), "intro", "page.html", context, None)
    soup = context["generate_toctree_html"]("sidebar", startdepth=0)
    summaries = soup.select("summary")
    assert summaries[0]["aria-label"] == "Pages in Instructor guide"
    assert not summaries[1].get("aria-label")  # it already has visible text, its caption


def test_the_logo_is_wrapped_in_a_landmark_template_that_exists():
    context = _page(sidebars=["navbar-logo.html", "icon-links.html"])
    book._accessible_page(SimpleNamespace(), "intro", "page.html", context, None)
    assert context["sidebars"] == [book.BRAND_TEMPLATE, "icon-links.html"]
    template = (book._TEMPLATES_DIR / book.BRAND_TEMPLATE).read_text(encoding="utf-8")
    assert "<nav " in template and 'include "navbar-logo.html"' in template


def test_code_toggles_are_named_by_their_visible_text():
    toggle = (
        '<details class="hide above-input"><summary aria-label="Toggle hidden content">'
        '<span class="collapsed">Show code cell source</span></summary></details>'
    )
    context = _page(toggle)
    book._accessible_page(SimpleNamespace(), "labs/x", "page.html", context, None)
    assert "aria-label" not in context["body"] and "Show code cell source" in context["body"]


def test_the_theme_button_templates_name_buttons_by_their_visible_text():
    search = (book._TEMPLATES_DIR / "search-button-field.html").read_text(encoding="utf-8")
    switch = (book._TEMPLATES_DIR / "theme-switcher.html").read_text(encoding="utf-8")
    assert "aria-label" not in search.split("-#}")[-1] and "search-button__default-text" in search
    assert "aria-label" not in switch.split("-#}")[-1] and switch.count("{{ _('Color mode') }}:") == 3
