"""The book's Sphinx extension: serve the Vega JavaScript from the book itself, never from a CDN.

At build time it asks ``vl_convert.javascript_bundle()`` (a Python dependency) for one bundle of
Vega, Vega-Lite and Vega-Embed, writes it next to the build output, and adds it to every page as a
script in the page head. The charts' HTML (see :func:`labsupport.charts.render_bundle`) calls the global
``vegaEmbed`` that the bundle defines. Nothing is committed and nothing is fetched. One stylesheet
(:data:`CSS_NAME`, from the files in ``coursetools/book_css/``) lays out the charts' in-page controls,
narrow screens, accessibility fixes and print. Three small scripts from ``coursetools/book_js/``: one
opens the dropdowns before a reader prints a page (:data:`PRINT_JS_NAME`); one makes every box
of a page that scrolls (a wide table, code block or chart on a phone) a labelled, keyboard-focusable
region (:data:`SCROLL_REGIONS_JS_NAME`); one checks the concept quiz's answers in the page
(:data:`QUIZ_JS_NAME`, see :mod:`coursetools.quiz`).

The download menu's ".pdf" item (the theme's ``window.print()``) is labelled "Print this page";
once ``python -m coursetools.pdf`` has written the PDF of the whole book into the built HTML folder,
every page's menu also offers that PDF (:func:`offer_pdf`, run by the command and after each build).

It also keeps every page of the built book offline (see :func:`_offline_page`):

* it drops scripts that could only ever fetch code from a CDN: sphinx-thebe's loader when the
  ``launch_buttons.thebe`` option is off, and MyST-NB's saved widget state when
  ``nb_ipywidgets_js`` is empty (no widget manager is loaded, so the state is dead weight);
* it shows the launch buttons (Binder, Colab, JupyterHub) on notebook pages, and on a chapter
  with a student copy of its exercises (``coursetools.student`` points them at the copy): a
  chapter's MyST Markdown source itself cannot be opened as a notebook there;
* it gives the theme a default colour mode ("auto"), without which every first page view logs a
  console error;
* it warns, naming the page, about any script, stylesheet, image or frame that a page would still
  load from another site (MathJax on a page with math, a CDN ``<script>`` in an output, ...). With
  ``-W`` that warning fails the build, before the browser test in ``tests/browser`` would.

and fixes, page by page, what axe-core finds in HTML that the course does not write itself (see
:func:`_accessible_page`; ``tests/browser/test_book_axe.py`` runs axe-core on every page).

Enable it in ``_config.yml``::

    sphinx:
      extra_extensions: [coursetools.book]
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import altair as alt
import vl_convert
from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging

from labsupport.charts import BOOK_BUILD_ENV

from .student import STUDENT_COPY_KEY as _STUDENT_COPY

__all__ = [
    "BRAND_TEMPLATE",
    "BUNDLE_NAME",
    "CSS_NAME",
    "ExercisesNumberedPerPage",
    "offer_pdf",
    "PDF_NAME",
    "PRINT_JS_NAME",
    "QUIZ_JS_NAME",
    "SCROLL_REGIONS_JS_NAME",
    "setup",
]

BUNDLE_NAME = "labsupport-vega.js"
_STAMP = "iife-"  # bump when the way the bundle is written changes

logger = logging.getLogger(__name__)

# An address on another site: "https://...", "http://..." or protocol-relative "//...".
_OFFSITE = re.compile(r"^\s*(?:[a-z][a-z0-9+.-]*:)?//", re.IGNORECASE)
# Elements in a page body that the browser fetches as soon as the page loads.
_BODY_FETCH = re.compile(
    r"<(?:script|img|iframe|audio|video|source|embed|track)\b[^>]*?\ssrc\s*=\s*[\"']?"
    r"((?:https?:)?//[^\"'\s>]+)"
    r"|<link\b[^>]*?\shref\s*=\s*[\"']?((?:https?:)?//[^\"'\s>]+)"
    r"|@import\s+(?:url\()?\s*[\"']?((?:https?:)?//[^\"'\s)]+)",
    re.IGNORECASE,
)
_WIDGET_STATE = "application/vnd.jupyter.widget-state+json"

CSS_NAME = "labsupport-book.css"
# The book's stylesheet is the concatenation of the files in book_css/, in this order; each file
# says what it is for. One file per concern keeps each rule near its reason.
CSS_PARTS = ("charts.css", "layout.css", "a11y.css", "print.css", "quiz.css")
_CSS_DIR = Path(__file__).with_name("book_css")

# The book's own scripts: served name -> source file in book_js/ (each file says what it does).
# Classic scripts in the page head, after the Vega bundle, in this order. (The script after each
# chart is labsupport.charts' own, labsupport/charts/chart.js: its renderer inlines it.)
PRINT_JS_NAME = "labsupport-print.js"
SCROLL_REGIONS_JS_NAME = "labsupport-scroll-regions.js"
# The concept quiz's script (coursetools.quiz writes the quiz's HTML) acts only on a page with a quiz.
QUIZ_JS_NAME = "labsupport-quiz.js"
JS_PARTS = {PRINT_JS_NAME: "print.js", SCROLL_REGIONS_JS_NAME: "scroll-regions.js", QUIZ_JS_NAME: "quiz.js"}
_JS_DIR = Path(__file__).with_name("book_js")


# The PDF of the whole book (written by ``python -m coursetools.pdf`` into _build/pdf/ and copied
# into the built HTML folder under this name); the download menu offers it once it exists.
PDF_NAME = "us-east-1-course.pdf"
_PDF_LABEL = "download-book-pdf-button"
_PDF_TEXT = "PDF of the whole book"
# The theme's ".pdf" item only prints the page in view; it says so.
_PRINT_TEXT = "Print this page"
_MENU_AFTER = re.compile(r"(<li>\s*<button[^>]*\bbtn-download-pdf-button\b.*?</li>)", re.DOTALL)


def offer_pdf(html_dir: Path | str) -> int:
    """Add "PDF of the whole book" to the download menu of every built page, if the PDF is there.

    Args:
        html_dir: the built HTML folder; the PDF is ``html_dir / PDF_NAME``.

    Returns:
        The number of pages changed (0 when the PDF does not exist, or every menu has the entry).
        Pages without the theme's download menu (search, index) are left alone.
    """
    html_dir = Path(html_dir)
    pdf = html_dir / PDF_NAME
    if not pdf.is_file():
        return 0
    changed = 0
    for page in html_dir.rglob("*.html"):
        if any(part.startswith("_") for part in page.relative_to(html_dir).parts[:-1]):
            continue
        text = page.read_text(encoding="utf-8")
        if _PDF_LABEL in text or not _MENU_AFTER.search(text):
            continue
        url = os.path.relpath(pdf, page.parent).replace(os.sep, "/")
        item = (
            f'<li><a href="{url}" target="_blank" class="btn btn-sm btn-{_PDF_LABEL} dropdown-item" '
            f'title="{_PDF_TEXT}" data-bs-placement="left" data-bs-toggle="tooltip">'
            f'<span class="btn__icon-container"><i class="fas fa-book"></i></span>'
            f'<span class="btn__text-container">{_PDF_TEXT}</span></a></li>'
        )
        # The substitution calls the lambda at once, with this iteration's item.
        page.write_text(
            _MENU_AFTER.sub(lambda m: m.group(1) + "\n" + item, text, count=1),  # noqa: B023
            encoding="utf-8",
        )
        changed += 1
    return changed


def _css() -> str:
    parts = [f"/* {name} */\n" + (_CSS_DIR / name).read_text(encoding="utf-8") for name in CSS_PARTS]
    return "/* Written by coursetools/book.py from coursetools/book_css/. */\n" + "\n".join(parts)


def _vega_lite_version() -> str:
    # Altair 5.5 reports "v5.20.1"; vl-convert wants "5.20"-style minor versions.
    major, minor = alt.SCHEMA_VERSION.lstrip("v").split(".")[:2]
    return f"{major}.{minor}"


def _write_bundle(app: Sphinx) -> None:
    folder = Path(app.doctreedir).parent / "labsupport_static"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / BUNDLE_NAME
    version = _vega_lite_version()
    stamp = folder / "version.txt"
    if not target.exists() or not stamp.exists() or stamp.read_text() != _STAMP + version:
        # Wrapped in a function so that its top-level names cannot clash with other classic scripts.
        # vl-convert's stub marks snippet as required; its docstring and the code make it optional.
        bundle = vl_convert.javascript_bundle(vl_version=version)  # type: ignore[call-arg]
        target.write_text(f"(function () {{\n{bundle}\n}})();\n", encoding="utf-8")
        stamp.write_text(_STAMP + version)
    css = folder / CSS_NAME
    text = _css()
    if not css.exists() or css.read_text(encoding="utf-8") != text:
        css.write_text(text, encoding="utf-8")
    for name, source in JS_PARTS.items():
        script = folder / name
        text = (_JS_DIR / source).read_text(encoding="utf-8")
        if not script.exists() or script.read_text(encoding="utf-8") != text:
            script.write_text(text, encoding="utf-8")
    app.config.html_static_path.append(str(folder))


def _is_dead_script(app: Sphinx, js: Any) -> bool:
    """True for a script that, in this book, could only fetch code from a CDN or does nothing."""
    filename = os.fspath(getattr(js, "filename", None) or "")
    attributes = getattr(js, "attributes", {}) or {}
    launch = app.config.html_theme_options.get("launch_buttons") or {}
    # sphinx-thebe loads thebe from unpkg.com when its button is pressed; without thebe there is no button.
    if not launch.get("thebe") and (
        filename.endswith("sphinx-thebe.js") or "THEBE_JS_URL" in str(attributes.get("body", ""))
    ):
        return True
    return bool(attributes.get("type") == _WIDGET_STATE and not getattr(app.config, "nb_ipywidgets_js", None))


def _offline_page(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: object) -> None:
    """Keep one page offline-clean; warn about anything it would still fetch from another site."""
    # The theme reads its colour mode from the template variable default_mode. Left empty, every
    # first page view logs "Got invalid theme mode" as a console error and falls back to "auto"
    # (follow the reader's system setting); say "auto" up front.
    if not context.get("default_mode"):
        context["default_mode"] = "auto"
    scripts = context.get("script_files")
    if isinstance(scripts, list):
        scripts[:] = [js for js in scripts if not _is_dead_script(app, js)]
    buttons = context.get("header_buttons")
    # coursetools.student marks a page with a student copy (its launch buttons open the copy).
    if isinstance(buttons, list) and context.get("page_source_suffix") != ".ipynb" and not context.get(_STUDENT_COPY):
        buttons[:] = [b for b in buttons if not (isinstance(b, dict) and b.get("label") == "launch-buttons")]
    for group in buttons if isinstance(buttons, list) else []:
        if isinstance(group, dict) and group.get("label") == "download-buttons":
            for button in group.get("buttons") or []:
                if button.get("label") == "download-pdf-button":
                    button.update(text=_PRINT_TEXT, tooltip=_PRINT_TEXT, icon="fas fa-print")

    offsite = [
        os.fspath(getattr(asset, "filename", None) or "")
        for asset in [*(context.get("script_files") or []), *(context.get("css_files") or [])]
    ]
    offsite = [uri for uri in offsite if _OFFSITE.match(uri)]
    for match in _BODY_FETCH.finditer(str(context.get("body", ""))):
        offsite.append(next(g for g in match.groups() if g))
    for uri in dict.fromkeys(offsite):
        hint = " (MathJax: this page has math; write the formula as code or text)" if "mathjax" in uri.lower() else ""
        logger.warning(
            "page %s loads %s from another site, so it breaks offline: the built book must not fetch anything%s",
            pagename,
            uri,
            hint,
            location=pagename,
            type="labsupport",
            subtype="offline",
        )


# Templates for the theme's chrome (coursetools/book_templates/), and the one that wraps its logo.
_TEMPLATES_DIR = Path(__file__).with_name("book_templates")
BRAND_TEMPLATE = "labsupport-brand.html"
# MyST-NB names its "Show code cell source" toggles "Toggle hidden content", a name that hides the
# visible text (axe: label-content-name-mismatch); without it the name is the visible text.
_TOGGLE_LABEL = '<summary aria-label="Toggle hidden content">'
# docutils writes each citation as role="doc-biblioentry", a role DPUB-ARIA 1.1 deprecates, inside a
# role="list" that may then hold only listitems (axe: aria-deprecated-role, aria-required-children).
_BIBLIOENTRY = ' role="doc-biblioentry"'
# pandas writes the empty corner cells of a DataFrame's header as <th></th>: an empty header cell
# names nothing (axe: empty-table-header); an empty data cell says the same without the claim.
# A pandas Styler writes them as <th class="blank ..." >&nbsp;</th>: the same cell, styled.
_EMPTY_TH = re.compile(r'<th((?: class="blank[^"]*")?)\s*>(?:&nbsp;)?</th>')


def _add_templates(app: Sphinx, config: Any) -> None:
    config.templates_path.append(str(_TEMPLATES_DIR))


def _accessible_page(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: object) -> None:
    """Fix what axe-core finds in one page's HTML that docutils, pandas or the theme wrote.

    * citations: role ``listitem`` instead of the deprecated ``doc-biblioentry``;
    * empty header cells of DataFrame tables become empty data cells;
    * MyST-NB's code toggles are named by their visible text ("Show code cell source");
    * the sidebar's section toggles (``<summary>`` holding only a chevron) get a name, "Pages in
      <section>", from the link beside them;
    * the sidebar's book title and logo sit inside a ``<nav>`` landmark (:data:`BRAND_TEMPLATE`).

    The theme's search and colour-mode buttons are named by their visible text through two
    templates in ``coursetools/book_templates/`` that replace the theme's own.
    """
    body = context.get("body")
    if isinstance(body, str):
        body = _EMPTY_TH.sub(r"<td\1></td>", body.replace(_BIBLIOENTRY, ' role="listitem"'))
        context["body"] = body.replace(_TOGGLE_LABEL, "<summary>")
    toctree = context.get("generate_toctree_html")
    if callable(toctree):
        context["generate_toctree_html"] = _with_named_toggles(toctree)
    sidebars = context.get("sidebars")
    if isinstance(sidebars, list):
        context["sidebars"] = [BRAND_TEMPLATE if name == "navbar-logo.html" else name for name in sidebars]


def _with_named_toggles(generate: Any) -> Any:
    """Wrap the theme's toctree function so that every unnamed ``<summary>`` it writes gets a name."""

    def generate_named(*args: Any, **kwargs: Any) -> Any:
        from bs4 import BeautifulSoup  # the theme's own dependency

        html = generate(*args, **kwargs)
        soup = html if isinstance(html, BeautifulSoup) else BeautifulSoup(str(html), "html.parser")
        for summary in soup.select("details > summary"):
            if summary.get_text(strip=True) or summary.get("aria-label"):
                continue
            link = summary.parent.find_previous_sibling("a") if summary.parent is not None else None
            summary["aria-label"] = f"Pages in {link.get_text(' ', strip=True)}" if link else "Pages in this section"
        return soup if isinstance(html, BeautifulSoup) else str(soup)

    return generate_named


class ExercisesNumberedPerPage(SphinxPostTransform):
    """Number each page's exercises 1, 2, 3, ... as the student copies do (:mod:`coursetools.student`).

    The course's exercises are sphinx-exercise directives with ``:nonumber:``: numbered, Sphinx
    would count them across the whole book (the book's table of contents has no section numbers),
    so lab 03's first exercise would be "Exercise 37". This transform turns each unnumbered
    exercise's title "Exercise" into "Exercise N", N counting the page's exercises in order, before
    sphinx-exercise resolves the titles (its priority 20), and does the same to the copy that
    sphinx-exercise keeps for solution titles, so a solution reads "Solution to Exercise N".
    """

    default_priority = 19

    def run(self, **kwargs: Any) -> None:
        from sphinx_exercise.nodes import exercise_node, exercise_title  # type: ignore[import-untyped]

        registry = getattr(self.env, "sphinx_exercise_registry", {})
        for number, node in enumerate(self.document.findall(exercise_node), start=1):
            copies = [node]
            entry = registry.get(node.get("label", ""))
            if entry is not None and entry.get("docname") == self.env.docname and entry.get("node") is not None:
                copies.append(entry["node"])
            for copy in copies:
                title = copy.children[0] if copy.children else None
                if isinstance(title, exercise_title) and title.children and isinstance(title.children[0], nodes.Text):
                    text = title.children[0].astext()
                    if text.strip() and not text.rstrip().endswith(f" {number}"):
                        title.replace(title.children[0], nodes.Text(f"{text.rstrip()} {number}"))


def setup(app: Sphinx) -> dict[str, object]:
    """Register the extension with Sphinx (called by Sphinx; not for direct use)."""
    app.add_post_transform(ExercisesNumberedPerPage)
    # Kernels started by MyST-NB inherit this; see labsupport.charts.BOOK_BUILD_ENV.
    os.environ[BOOK_BUILD_ENV] = "1"
    app.connect("builder-inited", _write_bundle)
    # A classic, synchronous script in <head> (module scripts are blocked on file:// pages, and
    # readers open the book from disk), loaded before require.js (priority 300 < 500) so that
    # require.js cannot capture it as an anonymous AMD module. The charts' inline scripts run later.
    app.add_js_file(BUNDLE_NAME, priority=300)
    app.add_css_file(CSS_NAME)
    for name in JS_PARTS:
        app.add_js_file(name)
    # A rebuilt page loses the PDF entry that python -m coursetools.pdf added; put it back.
    app.connect(
        "build-finished", lambda app, exc: exc is None and app.builder.format == "html" and offer_pdf(app.outdir)
    )
    # After MyST-NB, sphinx.ext.mathjax and the book theme's launch buttons (priority 501).
    app.connect("html-page-context", _offline_page, priority=900)
    # After the theme's toctree functions (pydata-sphinx-theme, priority 500).
    app.connect("config-inited", _add_templates)
    app.connect("html-page-context", _accessible_page, priority=910)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "0.1"}
