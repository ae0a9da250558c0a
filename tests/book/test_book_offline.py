"""coursetools.book keeps pages offline: it drops dead CDN loaders and warns about anything else."""

from __future__ import annotations

import logging
from pathlib import Path
from types import SimpleNamespace

from sphinx.builders.html._assets import _CascadingStyleSheet, _JavaScript

from coursetools import book
from coursetools.student import STUDENT_COPY_KEY


def _app(thebe: bool = False, widgets_js: dict | None = None) -> SimpleNamespace:
    config = SimpleNamespace(html_theme_options={"launch_buttons": {"thebe": thebe}}, nb_ipywidgets_js=widgets_js or {})
    return SimpleNamespace(config=config)


def _context(suffix: str = ".ipynb", scripts=(), css=(), body: str = "") -> dict:
    return {
        "script_files": list(scripts),
        "css_files": list(css),
        "body": body,
        "page_source_suffix": suffix,
        "header_buttons": [{"label": "launch-buttons"}, {"label": "download-buttons"}],
    }


def _scripts() -> tuple[list, object, object]:
    """sphinx-thebe's two scripts, MyST-NB's widget state, and a local script."""
    thebe = [
        _JavaScript(None, body='const THEBE_JS_URL = "https://unpkg.com/thebe@0.8.2/lib/index.js"'),
        _JavaScript("sphinx-thebe.js", **{"async": "async"}),
    ]
    state = _JavaScript(None, type="application/vnd.jupyter.widget-state+json", body="{}")
    return thebe, state, _JavaScript("labsupport-vega.js", priority=300)


def _warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


def test_drops_thebe_and_widget_state_when_they_are_off(caplog):
    thebe, state, local = _scripts()
    context = _context(scripts=[*thebe, state, local])
    book._offline_page(_app(), "labs/x", "page.html", context, None)
    assert context["script_files"] == [local]
    assert not _warnings(caplog)
    assert context["default_mode"] == "auto"


def test_keeps_them_when_they_are_on():
    thebe, state, local = _scripts()
    context = _context(scripts=[*thebe, state, local])
    book._offline_page(_app(thebe=True, widgets_js={"local.js": {}}), "labs/x", "page.html", context, None)
    assert context["script_files"] == [*thebe, state, local]


def test_launch_buttons_only_on_notebook_pages_and_chapters_with_a_student_copy():
    lab, chapter, with_copy = _context(".ipynb"), _context(".md"), _context(".md")
    with_copy[STUDENT_COPY_KEY] = "student/chapter-z.ipynb"  # coursetools.student marks it first
    book._offline_page(_app(), "labs/x", "page.html", lab, None)
    book._offline_page(_app(), "chapters/y", "page.html", chapter, None)
    book._offline_page(_app(), "chapters/z", "page.html", with_copy, None)
    assert [b["label"] for b in lab["header_buttons"]] == ["launch-buttons", "download-buttons"]
    assert [b["label"] for b in chapter["header_buttons"]] == ["download-buttons"]
    assert [b["label"] for b in with_copy["header_buttons"]] == ["launch-buttons", "download-buttons"]


def test_warns_about_every_offsite_load(caplog):
    mathjax = _JavaScript("https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js")
    local = _scripts()[2]
    font = _CascadingStyleSheet("//fonts.example.org/inter.css")
    body = (
        '<p>ok <a href="https://aws.amazon.com/message/101925/">a link is fine</a></p>'
        '<script src="https://cdn.jsdelivr.net/npm/vega@5"></script><img src="http://example.org/x.png">'
        "<pre>&lt;script src=&quot;https://escaped.example.org/not-loaded.js&quot;&gt;</pre>"
    )
    context = _context(scripts=[mathjax, local], css=[font], body=body)
    with caplog.at_level(logging.WARNING):
        book._offline_page(_app(), "chapters/y", "page.html", context, None)
    warned = _warnings(caplog)
    for uri in ("tex-mml-chtml.js", "//fonts.example.org/inter.css", "npm/vega@5", "example.org/x.png"):
        assert any(uri in w for w in warned), f"no warning for {uri}: {warned}"
    assert not any("aws.amazon.com" in w or "escaped.example.org" in w for w in warned)
    assert any("MathJax" in w for w in warned)
    assert len(warned) == 4


def test_renderer_gives_live_front_ends_only_the_vega_lite_type(monkeypatch):
    # JupyterLab ranks text/html above Vega-Lite: a bundle holding both shows the book's HTML,
    # which draws nothing outside the book. So a live kernel gets the spec alone, the book the HTML.
    import altair as alt

    from labsupport import charts

    spec = alt.Chart(alt.Data(values=[{"x": 1}])).mark_point().encode(x="x:Q").properties(title="T").to_dict()
    monkeypatch.delenv(charts.BOOK_BUILD_ENV, raising=False)
    live = charts.render_bundle(spec)
    assert set(live) == {"application/vnd.vegalite.v5+json", "text/plain"}
    assert live["application/vnd.vegalite.v5+json"] == spec and live["text/plain"] == "T"
    monkeypatch.setenv(charts.BOOK_BUILD_ENV, "1")
    built = charts.render_bundle(spec)
    assert set(built) == {"text/html", "text/plain"}
    assert "vegaEmbed" in built["text/html"] and "cdn" not in built["text/html"].lower()


def test_book_html_survives_script_breaking_text_and_takes_embed_options(monkeypatch):
    import json
    import re

    from labsupport import charts

    monkeypatch.setenv(charts.BOOK_BUILD_ENV, "1")
    spec = {"title": ["<!--<script>", 2025, "</script>"], "mark": "point", "description": None}
    body = charts.render_bundle(spec, embed_options={"actions": True})["text/html"]
    script = body[body.index("<script>") + len("<script>") : body.rindex("</script>")]
    assert "<" not in script  # nothing inside the inline script can end it or confuse the parser
    payload, embed = re.search(r"vegaEmbed\(el, (\{.*?\}), (\{.*?\})\)", script).groups()
    assert json.loads(payload) == spec and json.loads(embed) == {"actions": True, "renderer": "svg"}
    assert charts.render_bundle(spec)["text/plain"] == "<!--<script> 2025 </script>"
    monkeypatch.delenv(charts.BOOK_BUILD_ENV)
    _bundle, metadata = charts.render_bundle(spec, embed_options={"actions": True})
    assert metadata == {"application/vnd.vegalite.v5+json": {"embed_options": {"actions": True}}}


_MENU = """<div class="dropdown dropdown-download-buttons"><ul class="dropdown-menu">
      <li><a href="../_sources/x.md" class="btn btn-sm btn-download-source-button dropdown-item">.md</a></li>
      <li><button onclick="window.print()"
  class="btn btn-sm btn-download-pdf-button dropdown-item" title="Print this page">Print this page</button></li>
  </ul></div>"""


def test_print_item_says_it_prints_the_page():
    context = _context(suffix=".md")
    context["header_buttons"][1]["buttons"] = [
        {"label": "download-source-button", "text": ".md"},
        {"label": "download-pdf-button", "text": ".pdf", "tooltip": "Print to PDF", "javascript": "window.print()"},
    ]
    book._offline_page(_app(), "chapters/x", "page.html", context, None)
    printed = context["header_buttons"][-1]["buttons"][1]
    assert printed["text"] == printed["tooltip"] == "Print this page"
    assert context["header_buttons"][-1]["buttons"][0]["text"] == ".md"


def test_menu_offers_the_pdf_only_once_it_exists(tmp_path):
    (tmp_path / "chapters").mkdir()
    page, search = tmp_path / "chapters" / "x.html", tmp_path / "search.html"
    page.write_text(_MENU, encoding="utf-8")
    search.write_text("<p>no menu</p>", encoding="utf-8")
    assert book.offer_pdf(tmp_path) == 0 and "book-pdf" not in page.read_text()
    (tmp_path / book.PDF_NAME).write_bytes(b"%PDF-1.7")
    assert book.offer_pdf(tmp_path) == 1
    text = page.read_text()
    assert f'href="../{book.PDF_NAME}"' in text and text.index("Print this page") < text.index("whole book")
    assert book.offer_pdf(tmp_path) == 0, "a second run adds a second entry"
    assert search.read_text() == "<p>no menu</p>"


def test_book_html_lists_the_charts_own_data_under_it(monkeypatch):
    """Every value a chart shows on hover is also in a table under it: its own data, its own titles."""
    import re

    import altair as alt
    import pandas as pd

    from labsupport import charts

    monkeypatch.setenv(charts.BOOK_BUILD_ENV, "1")
    rows = pd.DataFrame({"t": [0.5, 1.25], "when": ["2025-10-20T02:00:00", "a <b>"], "unused": [1, 2]})
    line = alt.Chart(rows).mark_line().encode(x="t:Q", y="when:N", tooltip=[alt.Tooltip("t:Q", title="minute")])
    body = charts.render_bundle(line.properties(title="T").to_dict())["text/html"]
    details = body[body.index("<details") :]
    assert "<summary>The data behind this chart</summary>" in details
    assert "<caption>Drawn as lines; 2 rows</caption>" in details
    headers = re.findall(r"<th>(.*?)</th>", details)
    assert headers == ["minute", "when"]  # the tooltip's title; a column no encoding uses is left out
    assert re.findall(r"<td>(.*?)</td>", details) == ["0.5", "2025-10-20 02:00:00", "1.25", "a &lt;b&gt;"]
    # A long dataset: evenly spaced rows, the first and the last among them, and the table says so.
    long = alt.Chart(pd.DataFrame({"x": range(1_000)})).mark_point().encode(x="x:Q")
    details = charts.render_bundle(long.to_dict())["text/html"]
    cells = re.findall(r"<td>(.*?)</td>", details)
    assert len(cells) == charts.DETAILS_MAX_ROWS and cells[0] == "0" and cells[-1] == "999"
    assert f"{charts.DETAILS_MAX_ROWS} of 1,000 rows, evenly spaced" in details
    # A layered chart: one table per dataset, each saying what it is drawn as.
    rule = alt.Chart(pd.DataFrame({"at": [1.0]})).mark_rule().encode(x="at:Q")
    details = charts.render_bundle(alt.layer(line, rule).to_dict())["text/html"]
    assert "Table 1 of 2: drawn as lines" in details and "Table 2 of 2: drawn as rules" in details


def test_book_table_keeps_small_numbers_that_are_not_zero(monkeypatch):
    """A value under 0.001 keeps three significant digits in the table under its chart, which draws
    it apart from zero: never "0.0" or "-0.0"."""
    import re

    import altair as alt
    import pandas as pd

    from labsupport import charts

    monkeypatch.setenv(charts.BOOK_BUILD_ENV, "1")
    rows = pd.DataFrame({"x": [0.0004, -0.00012345, 0.5, 1234.5678, 0.0, 3.0]})
    body = charts.render_bundle(alt.Chart(rows).mark_point().encode(x="x:Q").to_dict())["text/html"]
    cells = re.findall(r"<td>(.*?)</td>", body[body.index("<details") :])
    assert cells == ["0.0004", "-0.000123", "0.5", "1,234.568", "0", "3"]


def test_only_charts_that_ask_for_it_take_their_width_from_the_page(monkeypatch):
    import altair as alt
    import pytest

    from labsupport import charts
    from labsupport.errors import ConfigError

    monkeypatch.setenv(charts.BOOK_BUILD_ENV, "1")
    chart = alt.Chart(alt.Data(values=[{"x": 1}])).mark_point().encode(x="x:Q").properties(width=300)
    fixed = charts.render_bundle(chart.to_dict())["text/html"]
    reflow = charts.render_bundle(chart.properties(usermeta=charts.reflow_usermeta(120)).to_dict())["text/html"]
    assert "view.width(" not in fixed and "labsupport-reflow" not in fixed
    assert "view.width(width)" in reflow and "Math.min(widest, 120)" in reflow and "ResizeObserver" in reflow
    for bad in (0, 39, 5_000, 1.5, True, "160"):
        with pytest.raises(ConfigError, match="min_width"):
            charts.reflow_usermeta(bad)


def test_the_books_scripts_are_files_from_book_js_loaded_in_the_head(tmp_path, monkeypatch):
    """Each script of book_js/ is written beside the Vega bundle and added to every page after it."""
    import labsupport.charts as charts

    monkeypatch.setattr(book.vl_convert, "javascript_bundle", lambda vl_version: "var vega = {};")
    app = SimpleNamespace(doctreedir=str(tmp_path / "doctrees"), config=SimpleNamespace(html_static_path=[]))
    book._write_bundle(app)
    static = tmp_path / "labsupport_static"
    assert app.config.html_static_path == [str(static)]
    for served, source in book.JS_PARTS.items():
        assert (static / served).read_text(encoding="utf-8") == (book._JS_DIR / source).read_text(encoding="utf-8")
    assert "beforeprint" in (static / book.PRINT_JS_NAME).read_text(encoding="utf-8")
    assert "window.labsupportScrollRegions" in (static / book.SCROLL_REGIONS_JS_NAME).read_text(encoding="utf-8")
    # Every file of book_js/ is served; the chart's script is labsupport's renderer's, which inlines it.
    assert {p.name for p in book._JS_DIR.iterdir()} == set(book.JS_PARTS.values())
    assert (Path(charts.__file__).parent / "chart.js").is_file() and not (book._JS_DIR / "chart.js").exists()

    added: list[tuple[object, dict]] = []
    recorder = SimpleNamespace(
        connect=lambda *a, **k: None,
        add_css_file=lambda *a, **k: None,
        add_post_transform=lambda *a, **k: None,
        add_js_file=lambda name, **kw: added.append((name, kw)),
    )
    monkeypatch.setenv(charts.BOOK_BUILD_ENV, "")
    book.setup(recorder)
    assert [name for name, _ in added] == [
        book.BUNDLE_NAME,
        book.PRINT_JS_NAME,
        book.SCROLL_REGIONS_JS_NAME,
        book.QUIZ_JS_NAME,
    ]
    assert added[0][1] == {"priority": 300} and not any("body" in kw for _, kw in added)


def test_a_chart_that_takes_its_width_from_the_page_gets_the_reflow_script(monkeypatch):
    """The inline script is labsupport/charts/chart.js with its fields filled in; only a reflowing chart keeps
    the block that fits the plot to its container."""
    import altair as alt

    from labsupport import charts

    monkeypatch.setenv(charts.BOOK_BUILD_ENV, "1")
    chart = alt.Chart(alt.Data(values=[{"x": 1}])).mark_point().encode(x="x:Q")

    def script(spec: dict) -> str:
        body = charts.render_bundle(spec)["text/html"]
        return body[body.index("<script>\n") + len("<script>\n") : body.rindex("</script>")]

    fixed = script(chart.to_dict())
    fitted = script(chart.properties(usermeta=charts.reflow_usermeta(123)).to_dict())
    for text in (fixed, fitted):
        assert text.startswith("(function () {\n") and text.endswith("})();\n")  # no file header
        assert "__" not in text and "reflow:" not in text  # no field or marker left
        assert ".catch(function (err)" in text
    assert "ResizeObserver" not in fixed and ".then(function (result)" not in fixed
    assert "Math.min(widest, 123)" in fitted and "ResizeObserver" in fitted
