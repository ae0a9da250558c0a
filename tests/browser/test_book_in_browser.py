"""Load every page of the built book in headless Chromium, as a reader with no network would.

The built book (``_build/html``, or ``--book-html``) is served on 127.0.0.1 by a thread of this
process. Every request a page makes is routed: anything that is not 127.0.0.1, localhost, file:,
data: or blob: is aborted and recorded. Per page the tests check:

* no request to another site, and no console error or uncaught page error;
* every chart container (``.labsupport-vega``) holds a rendered ``svg`` or ``canvas``, also when
  the page is opened from disk (``file://``), as the README tells readers to;
* every chart fits the page's content column at 1280 px (wider ones are cut off);
* every in-page Vega-Lite control (``.vega-bindings``) changes its chart's SVG when toggled or moved;
* every chart has a text alternative (a non-empty ``aria-label`` on its container);
* headings are in order (one h1, no level skipped);
* the HTML references no script, stylesheet, font, image or frame on another site, and neither do
  the stylesheets it links (``url(...)``, ``@import``);
* in the theme's dark mode, charts keep an opaque light background, the theme recolours none of
  their text, and their controls' labels keep 4.5:1 contrast on an opaque panel (the chart
  colours themselves are checked in tests/charts/test_accessibility.py).

Each page is loaded once at 1280 px over HTTP for every check of the page as served (``visits``,
axe-core's included), and a page with charts once more from disk in dark mode, for the checks from
disk and in dark mode alike (``dark_disk_visits``): what a page draws does not depend on the colour
scheme (the book's scripts never read it; only its CSS does), so one load serves both.

A full-page PNG of each page goes to ``_build/screenshots/`` (dark-mode ones to ``dark/`` inside it).
Lab pages must offer their ``.ipynb`` for download and launch buttons for Binder, Colab and JupyterHub.
Off by default: ``pytest tests/browser --run-browser`` (see conftest.py).
"""

from __future__ import annotations

import contextlib
import html.parser
import itertools
import json
import re
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import pytest

from coursetools.student import chapter_notebook_name

pytestmark = pytest.mark.browser

LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}
CHART_TIMEOUT_MS = 20_000
CONTROL_TIMEOUT_MS = 5_000
VIEWPORT = {"width": 1280, "height": 900}

# ---------------------------------------------------------------------------------------------
# In-page JavaScript


# True once every chart container holds an svg or a canvas, or shows an error text.
_CHARTS_SETTLED = """() => [...document.querySelectorAll('.labsupport-vega')].every(
    el => el.querySelector('svg, canvas') || /failed|needs the Vega/i.test(el.textContent))"""

_CHARTS = """() => [...document.querySelectorAll('.labsupport-vega')].map(el => {
  const svg = el.querySelector('svg'), canvas = el.querySelector('canvas');
  return {
    id: el.id,
    aria: (el.getAttribute('aria-label') || '').trim(),
    rendered: Boolean(svg || canvas),
    text: el.textContent.trim().slice(0, 300),
    controls: el.querySelectorAll('.vega-bindings .vega-bind').length,
    // Pixels by which the drawing sticks out to the right of the output area that holds it.
    overflow: svg || canvas ? Math.round((svg || canvas).getBoundingClientRect().right
                                         - el.parentElement.getBoundingClientRect().right) : 0,
  };
})"""

# A short fingerprint of what a chart shows: its SVG markup (or canvas pixels), hashed.
_KEY = """(id) => {
  const el = document.getElementById(id), svg = el && el.querySelector('svg');
  const canvas = el && el.querySelector('canvas');
  const s = svg ? svg.outerHTML : (canvas ? canvas.toDataURL() : '');
  let h = 0; for (let i = 0; i < s.length; i++) { h = (Math.imul(31, h) + s.charCodeAt(i)) | 0; }
  return s.length + ':' + h;
}"""

_HEADINGS = r"""() => {
  const root = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
  return [...root.querySelectorAll('h1, h2, h3, h4, h5, h6')]
    .filter(h => !h.closest('.labsupport-vega'))
    .map(h => [Number(h.tagName[1]), h.textContent.replace(/[#¶]\s*$/, '').trim()]);
}"""

# Dark mode: the chart's background and the colours of its text, as the browser computes them.
_CHART_COLOURS = """() => [...document.querySelectorAll('.labsupport-vega')].map(el => {
  const svg = el.querySelector('svg');
  if (!svg) return {id: el.id, background: null, texts: [], controls: null};
  const rect = svg.querySelector('rect.background, path.background');
  const background = [getComputedStyle(svg).backgroundColor,
                      rect ? getComputedStyle(rect).fill : null];
  const texts = [...svg.querySelectorAll('text')].filter(t => t.textContent.trim()).map(t => {
    const cs = getComputedStyle(t);
    let opacity = Number(cs.fillOpacity) * Number(cs.opacity);
    for (let n = t.parentElement; n && n !== svg; n = n.parentElement) opacity *= Number(getComputedStyle(n).opacity);
    return {text: t.textContent.trim().slice(0, 40), fill: cs.fill, opacity};
  });
  const form = el.querySelector('.vega-bindings');
  const controls = form && form.children.length ? {background: getComputedStyle(form).backgroundColor,
                                                   color: getComputedStyle(form).color} : null;
  return {id: el.id, background, texts, controls};
})"""


# ---------------------------------------------------------------------------------------------
# Serving the book, and the browser


def is_local(url: str) -> bool:
    """True for addresses a page of the offline book may load: this machine, or inline data."""
    parts = urlsplit(url)
    if parts.scheme == "file":  # file://host/... is a network share on some systems
        return (parts.hostname or "") in {"", "localhost"}
    if parts.scheme in {"data", "blob", "about"}:
        return True
    return parts.scheme in {"http", "https", "ws", "wss"} and (parts.hostname or "") in LOCAL_HOSTS


# ---------------------------------------------------------------------------------------------
# Visiting a page


@dataclass
class Visit:
    """What one page did in the browser."""

    page: str
    external: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)
    charts: list[dict[str, Any]] = field(default_factory=list)
    controls: list[dict[str, Any]] = field(default_factory=list)
    headings: list[tuple[int, str]] = field(default_factory=list)
    colours: list[dict[str, Any]] = field(default_factory=list)  # chart backgrounds and text colours
    axe: list[dict[str, Any]] = field(default_factory=list)  # axe-core's violations (test_book_axe.py)
    theme: str | None = None  # the theme's mode as the page shows it (data-theme), where it was read


def _watch(page: Any, visit: Visit) -> None:
    def route(r: Any) -> None:
        if is_local(r.request.url):
            r.continue_()
        else:
            visit.external.append(r.request.url)
            r.abort("blockedbyclient")

    page.route("**/*", route)
    # Requests that routing does not see (workers, websockets) are recorded too.
    page.on("request", lambda req: None if is_local(req.url) else visit.external.append(req.url))
    page.on("websocket", lambda ws: None if is_local(ws.url) else visit.external.append(ws.url))
    page.on(
        "console",
        lambda msg: (
            visit.console.append(
                f"console.{msg.type}: {msg.text} ({msg.location.get('url', '')}:{msg.location.get('lineNumber', '')})"
            )
            if msg.type == "error"
            else None
        ),
    )
    page.on("pageerror", lambda err: visit.console.append(f"uncaught page error: {err}"))


_REFRESH = re.compile(r"""<meta\s+http-equiv=["']?refresh["']?\s+content=["']?\d+\s*;\s*url=([^"'>\s]+)""", re.I)


def follow_redirect(html_dir: Path, page_path: str) -> str:
    """The page that ``page_path`` redirects to with a meta refresh (index.html), else itself."""
    match = _REFRESH.search((html_dir / page_path).read_text(encoding="utf-8", errors="replace")[:2000])
    if not match:
        return page_path
    target = (Path(page_path).parent / match.group(1)).as_posix()
    assert (html_dir / target).is_file(), f"{page_path} redirects to {target}, which does not exist"
    return target


_SCROLL_REGIONS_SETTLED = "() => !window.labsupportScrollRegions || window.labsupportScrollRegions.settled"


def _open(page: Any, url: str, chart_timeout_ms: int = CHART_TIMEOUT_MS) -> None:
    """Go to ``url`` and wait until its web fonts have loaded and its charts have settled."""
    page.goto(url, wait_until="load")
    page.evaluate("document.fonts.ready.then(() => true)")
    with contextlib.suppress(Exception):  # the chart check reports what did not render
        page.wait_for_function(_CHARTS_SETTLED, timeout=chart_timeout_ms)
    # The book's scroll-region script (tools/coursetools/book.py) labels boxes that scroll 150 ms after the
    # last change (a chart drawn, a font loaded); the checks must see the page after it.
    with contextlib.suppress(Exception):  # the axe and phone checks report what is not labelled
        page.wait_for_function(_SCROLL_REGIONS_SETTLED, timeout=chart_timeout_ms)


def _exercise_control(page: Any, chart_id: str, index: int) -> dict[str, Any]:
    """Toggle or move one control of a chart like a reader; report whether the chart changed."""
    bind = page.locator(f"#{chart_id} .vega-bindings .vega-bind").nth(index)
    name = bind.locator(".vega-bind-name")
    label = re.sub(r"\s+", " ", (name.first if name.count() else bind).inner_text()).strip()[:80]
    before = page.evaluate(_KEY, chart_id)
    checkbox = bind.locator("input[type=checkbox]")
    radios = bind.locator("input[type=radio]")
    rng = bind.locator("input[type=range]")
    select = bind.locator("select")
    other = bind.locator("input")
    undo: Any
    if checkbox.count():
        kind = "checkbox"
        checkbox.first.scroll_into_view_if_needed()
        checkbox.first.click()
        undo = checkbox.first.click
    elif radios.count():
        kind = "radio"
        states = [radios.nth(i).is_checked() for i in range(radios.count())]
        if all(states) or len(states) < 2:
            return {"label": label, "kind": kind, "changed": False, "note": "fewer than two options"}
        current = states.index(True) if True in states else None
        radios.nth(states.index(False)).click()
        undo = (lambda: radios.nth(current).click()) if current is not None else (lambda: None)
    elif rng.count():
        kind = "range"
        old = rng.first.input_value()
        lo, hi = rng.first.get_attribute("min") or "0", rng.first.get_attribute("max") or "100"
        new = lo if old == hi else hi
        setter = (
            "(el, v) => { el.value = v; el.dispatchEvent(new Event('input', {bubbles: true})); "
            "el.dispatchEvent(new Event('change', {bubbles: true})); }"
        )
        rng.first.evaluate(setter, new)
        undo = lambda: rng.first.evaluate(setter, old)  # noqa: E731
    elif select.count():
        kind = "select"
        options = select.first.locator("option")
        if options.count() < 2:
            return {"label": label, "kind": kind, "changed": False, "note": "fewer than two options"}
        old_index = select.first.evaluate("el => el.selectedIndex")
        select.first.select_option(index=(old_index + 1) % options.count())
        undo = lambda: select.first.select_option(index=old_index)  # noqa: E731
    elif other.count():
        kind = other.first.get_attribute("type") or "text"
        old = other.first.input_value()
        other.first.fill(str(float(old) + 1) if kind == "number" and old else old + "x")
        other.first.press("Enter")
        undo = lambda: other.first.fill(old)  # noqa: E731
    else:
        return {"label": label, "kind": "unknown", "changed": False, "note": "no input element"}
    try:
        page.wait_for_function(
            f"([id, before]) => ({_KEY})(id) !== before", arg=[chart_id, before], timeout=CONTROL_TIMEOUT_MS
        )
        changed = True
    except Exception:  # noqa: BLE001 - a timeout means the chart did not change
        changed = False
    toggled = page.evaluate(_KEY, chart_id)
    undo()
    # Put the control back, so that each control is tried from the page's initial state, and wait
    # until the chart has redrawn for it: back to its first drawing, or (not every control returns
    # the SVG to the identical markup) at least away from the drawing the move made.
    with contextlib.suppress(Exception):  # a control whose undo draws nothing new: the next move starts here
        page.wait_for_function(
            f"([id, before, toggled]) => {{ const k = ({_KEY})(id); return k === before || k !== toggled; }}",
            arg=[chart_id, before, toggled],
            timeout=CONTROL_TIMEOUT_MS,
        )
    return {"label": label, "kind": kind, "changed": changed}


def page_visits(browser: Any, base_url: str, book_html: Path, screenshots: Path):
    """The ``visits`` fixture (conftest.py): load a page once at 1280 px, with the network cut off.

    Each page is loaded once for every test about it at this width, axe-core's included: axe runs
    on the page as loaded, before any control is touched.
    """
    from test_book_axe import run_axe

    cache: dict[str, Visit] = {}
    context = browser.new_context(viewport=VIEWPORT, service_workers="block")

    def visit(page_path: str) -> Visit:
        if page_path in cache:
            return cache[page_path]
        result = Visit(page_path)
        page = context.new_page()
        _watch(page, result)
        try:
            # A redirect page (index.html) is checked as the page it leads to.
            _open(page, base_url + follow_redirect(book_html, page_path))
            result.charts = page.evaluate(_CHARTS)
            result.headings = [tuple(h) for h in page.evaluate(_HEADINGS)]
            result.colours = page.evaluate(_CHART_COLOURS)
            result.axe = run_axe(page, result.console, result.external)
            for chart in result.charts:
                if chart["rendered"]:
                    for i in range(chart["controls"]):
                        result.controls.append({"chart": chart["id"], **_exercise_control(page, chart["id"], i)})
            shoot(page, screenshots / _shot_name(page_path))
        finally:
            page.close()
        cache[page_path] = result
        return result

    try:
        yield visit
    finally:
        context.close()
        # What was checked, for a person reading the CI log or the screenshots folder.
        summary = {
            p: {
                "charts": len(v.charts),
                "controls": [
                    f"{c['kind']} {c['label']!r}: {'changes' if c['changed'] else 'DOES NOT change'} its chart"
                    for c in v.controls
                ],
                "external_requests": sorted(set(v.external)),
                "console_errors": v.console,
            }
            for p, v in sorted(cache.items())
        }
        (screenshots / "report.json").write_text(json.dumps(summary, indent=1, ensure_ascii=False), encoding="utf-8")


def dark_disk_visits(browser: Any, book_html: Path, screenshots: Path):
    """The ``dark_disk_visits`` fixture (conftest.py): a page opened from disk in dark mode, once.

    Opened as a reader opens the book from its folder (``file://``), with every request that is not
    local aborted and recorded, in the theme's dark mode (the colour scheme and the theme's stored
    choice both dark). It serves :func:`test_charts_render_from_disk` and
    :func:`test_charts_stay_readable_in_dark_mode`, which each loaded the page on their own before:
    the charts, requests and console from disk, and the theme and chart colours in dark mode. The
    light mode from disk is what ``python -m labsupport.pdf`` prints (it fails on a chart that does
    not draw and on a request to another site).
    """
    cache: dict[str, Visit] = {}
    context = browser.new_context(viewport=VIEWPORT, color_scheme="dark", service_workers="block")
    context.add_init_script("localStorage.setItem('mode', 'dark'); localStorage.setItem('theme', 'dark');")

    def visit(page_path: str) -> Visit:
        if page_path in cache:
            return cache[page_path]
        result = Visit(page_path)
        tab = context.new_page()
        _watch(tab, result)
        try:
            _open(tab, (book_html / follow_redirect(book_html, page_path)).as_uri())
            result.charts = tab.evaluate(_CHARTS)
            result.theme = tab.evaluate("document.documentElement.dataset.theme")
            result.colours = tab.evaluate(_CHART_COLOURS)
            shoot(tab, screenshots / "dark" / _shot_name(page_path))
        finally:
            tab.close()
        cache[page_path] = result
        return result

    try:
        yield visit
    finally:
        context.close()


#: A screenshot shows at most this many CSS pixels of a page's height: the API reference, when it was
#: one page, was about 144,000 px tall, and its whole-page PNG took Chromium 11 s of CPU (2.6 s for its first 20,000 px)
#: yet no one reads that far down a screenshot. Every check still runs on the whole page.
SHOT_MAX_HEIGHT_PX = 20_000


def shoot(page: Any, path: Path | str) -> None:
    """A whole-page screenshot, cut at :data:`SHOT_MAX_HEIGHT_PX` (the top of the page)."""
    size = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
    clip = {"x": 0, "y": 0, "width": size[0], "height": min(size[1], SHOT_MAX_HEIGHT_PX)}
    page.screenshot(path=str(path), full_page=True, clip=clip)


def _shot_name(page_path: str) -> str:
    return page_path.removesuffix(".html").replace("/", "__") + ".png"


# ---------------------------------------------------------------------------------------------
# Reading the HTML and CSS files


_FETCHING_RELS = {
    "stylesheet",
    "preload",
    "prefetch",
    "preconnect",
    "dns-prefetch",
    "modulepreload",
    "icon",
    "shortcut",
    "apple-touch-icon",
    "manifest",
    "mask-icon",
}
_CSS_URL = re.compile(r"""@import\s+(?:url\()?\s*['"]?([^'")\s;]+)|url\(\s*['"]?([^'")]+?)['"]?\s*\)""", re.I)
_JS_ASSET = re.compile(r"""(?:https?:)?//[^\s'"<>]+?\.(?:m?js|css|woff2?|ttf|otf|eot)\b""", re.I)


def is_offsite(ref: str) -> bool:
    """True for a reference to another site: http(s)://host/..., or protocol-relative //host/..."""
    ref = ref.strip()
    if ref.startswith("//"):
        ref = "https:" + ref
    return urlsplit(ref).scheme.lower() in {"http", "https", "ws", "wss", "ftp"} and not is_local(ref)


class _References(html.parser.HTMLParser):
    """Everything a page would fetch on load: scripts, stylesheets, images, frames, CSS urls."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.fetched: list[tuple[str, str]] = []  # (what, reference)
        self.stylesheets: list[str] = []
        self.inline_css: list[str] = []
        self.inline_js: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k.lower(): (v or "") for k, v in attrs}
        if tag == "script":
            if a.get("src"):
                self.fetched.append(("<script src>", a["src"]))
            self._in = (
                "script"
                if a.get("type", "text/javascript") in {"", "text/javascript", "module", "application/javascript"}
                else None
            )
        elif tag == "link" and a.get("href"):
            rels = set(a.get("rel", "").lower().split())
            if rels & _FETCHING_RELS:
                self.fetched.append((f"<link rel={a.get('rel')}>", a["href"]))
                if "stylesheet" in rels:
                    self.stylesheets.append(a["href"])
        elif tag in {"img", "iframe", "audio", "video", "source", "embed", "track", "input"} and a.get("src"):
            self.fetched.append((f"<{tag} src>", a["src"]))
        elif tag == "object" and a.get("data"):
            self.fetched.append(("<object data>", a["data"]))
        elif tag == "style":
            self._in = "style"
        if a.get("style"):
            self.inline_css.append(a["style"])

    def handle_endtag(self, tag: str) -> None:
        if tag in {"script", "style"}:
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "style":
            self.inline_css.append(data)
        elif self._in == "script":
            self.inline_js.append(data)


def _css_offsite(css_file: Path, root: Path, seen: set[Path]) -> list[str]:
    """Off-site url()/@import in a stylesheet and the local stylesheets it imports."""
    css_file = css_file.resolve()
    if css_file in seen or not css_file.is_file():
        return []
    seen.add(css_file)
    found = []
    for match in _CSS_URL.finditer(css_file.read_text(encoding="utf-8", errors="replace")):
        ref = next(g for g in match.groups() if g)
        if is_offsite(ref):
            found.append(f"{css_file.relative_to(root)}: {ref}")
        elif match.group(1) and not ref.startswith("data:"):
            found += _css_offsite(css_file.parent / ref.split("?")[0], root, seen)
    return found


def offsite_references(html_dir: Path, page_path: str) -> list[str]:
    """Every reference in a page, or in a stylesheet it links, to a script/style/font/image elsewhere."""
    parser = _References()
    page_file = html_dir / page_path
    parser.feed(page_file.read_text(encoding="utf-8", errors="replace"))
    found = [f"{what} {ref}" for what, ref in parser.fetched if is_offsite(ref)]
    for css in parser.inline_css:
        found += [
            f"inline CSS: {next(g for g in m.groups() if g)}"
            for m in _CSS_URL.finditer(css)
            if is_offsite(next(g for g in m.groups() if g))
        ]
    for js in parser.inline_js:
        found += [f"inline script names {m.group(0)}" for m in _JS_ASSET.finditer(js) if is_offsite(m.group(0))]
    seen: set[Path] = set()
    for href in parser.stylesheets:
        if not is_offsite(href):
            found += _css_offsite(page_file.parent / href.split("?")[0].split("#")[0], html_dir, seen)
    return found


# ---------------------------------------------------------------------------------------------
# Colours, for dark mode


def _rgba(css: str | None) -> tuple[float, float, float, float] | None:
    if not css:
        return None
    m = re.match(r"rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)", css.strip())
    if m:
        alpha = m.group(4) or "1"
        a = float(alpha[:-1]) / 100 if alpha.endswith("%") else float(alpha)
        return float(m.group(1)), float(m.group(2)), float(m.group(3)), a
    if re.fullmatch(r"#[0-9a-fA-F]{6}", css.strip()):
        h = css.strip()[1:]
        return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16), 1.0
    return {"white": (255.0, 255.0, 255.0, 1.0), "black": (0.0, 0.0, 0.0, 1.0)}.get(css.strip().lower())


def _contrast(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    hi, lo = sorted((_luminance(a[:3]), _luminance(b[:3])), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _luminance(rgb: tuple[float, ...]) -> float:
    def channel(v: float) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


# ---------------------------------------------------------------------------------------------
# The tests, per page


def test_no_request_leaves_this_machine(visits, page):
    visit = visits(page)
    assert not visit.external, f"{page} requested other sites: {sorted(set(visit.external))}"


def test_no_console_errors(visits, page):
    visit = visits(page)
    assert not visit.console, f"{page}:\n" + "\n".join(visit.console)


def test_every_chart_renders(visits, page):
    broken = [f"#{c['id']}: {c['text'] or 'empty'}" for c in visits(page).charts if not c["rendered"]]
    assert not broken, f"{page}: charts without an svg or canvas:\n" + "\n".join(broken)


def test_every_chart_fits_the_content_column(visits, page):
    """A chart wider than the text column is cut off (the output area scrolls sideways)."""
    wide = [f"#{c['id']}: {c['overflow']} px too wide" for c in visits(page).charts if c["overflow"] > 1]
    assert not wide, (
        f"{page} at {VIEWPORT['width']} px: charts wider than the content column "
        "(make them narrower; width= counts the plot only, not axis labels or legends):\n" + "\n".join(wide)
    )


def test_every_control_changes_its_chart(visits, page):
    dead = [
        f"#{c['chart']} {c['kind']} {c['label']!r} {c.get('note', '')}"
        for c in visits(page).controls
        if not c["changed"]
    ]
    assert not dead, f"{page}: controls that do not change their chart:\n" + "\n".join(dead)


def test_every_chart_has_a_text_alternative(visits, page):
    # Vega-Embed replaces the container's label with the chart's description once it has drawn.
    missing = [
        f"#{c['id']}: aria-label {c['aria']!r}"
        for c in visits(page).charts
        if c["aria"].strip().rstrip(".").lower() in {"", "chart"}
    ]
    assert not missing, f"{page}: charts without a text alternative (title= and description=):\n" + "\n".join(missing)


def test_headings_are_in_order(visits, page):
    headings = visits(page).headings
    if not headings:
        pytest.skip(f"{page} has no headings (a redirect or an empty page)")
    problems = []
    if headings[0][0] != 1:
        problems.append(f"first heading is h{headings[0][0]} {headings[0][1]!r}, not h1")
    if sum(1 for level, _ in headings if level == 1) != 1:
        problems.append(f"{sum(1 for level, _ in headings if level == 1)} h1 headings, not one")
    for (prev, _), (level, text) in itertools.pairwise(headings):
        if level > prev + 1:
            problems.append(f"h{prev} then h{level} {text!r}: skips a level")
    assert not problems, f"{page}: " + "; ".join(problems)


def test_html_references_nothing_offsite(book_html, page):
    found = offsite_references(book_html, page)
    assert not found, f"{page} references resources on other sites:\n" + "\n".join(found)


def test_charts_render_from_disk(dark_disk_visits, visits, page):
    """Readers open the book from disk (file://); the bundle must work there too."""
    if not visits(page).charts:
        pytest.skip(f"{page} has no charts")
    result = dark_disk_visits(page)
    assert not result.external, f"{page} from disk requested other sites: {sorted(set(result.external))}"
    assert not result.console, f"{page} from disk:\n" + "\n".join(result.console)
    broken = [c["id"] for c in result.charts if not c["rendered"]]
    assert not broken, f"{page} from disk: charts without an svg or canvas: {broken}"


def test_charts_stay_readable_in_dark_mode(dark_disk_visits, visits, page):
    """In dark mode a chart keeps its opaque light background, and the theme restyles none of its text."""
    light = visits(page)
    if not light.charts:
        pytest.skip(f"{page} has no charts")
    result = dark_disk_visits(page)
    theme, dark = result.theme, result.colours
    assert theme == "dark", f"the theme did not switch to dark mode (data-theme={theme!r})"
    problems = []
    for chart, light_chart in zip(dark, light.colours, strict=True):
        colours = [c for c in map(_rgba, chart["background"] or []) if c and c[3] > 0.99]
        if not colours:
            problems.append(
                f"#{chart['id']}: no opaque background ({chart['background']}): the dark page "
                "shows through behind dark text (use charts._base_config)"
            )
        elif _luminance(colours[-1][:3]) < 0.8:
            problems.append(f"#{chart['id']}: background {chart['background']} is not light")
        restyled = [
            (d["text"], l_["fill"], d["fill"])
            for d, l_ in zip(chart["texts"], light_chart["texts"], strict=True)
            if (d["fill"], d["opacity"]) != (l_["fill"], l_["opacity"])
        ]
        if restyled:
            problems.append(f"#{chart['id']}: dark mode recolours chart text (text, light, dark): {restyled[:5]}")
        if chart["controls"]:
            panel, ink = _rgba(chart["controls"]["background"]), _rgba(chart["controls"]["color"])
            if not panel or panel[3] < 0.99 or not ink or _contrast(ink, panel) < 4.5:
                problems.append(
                    f"#{chart['id']}: its controls' text {chart['controls']} is not 4.5:1 on an opaque "
                    "panel (tools/coursetools/book.py's CSS gives them a white one)"
                )
    assert not problems, f"{page} in dark mode:\n" + "\n".join(problems)


# ---------------------------------------------------------------------------------------------
# The tests, book-wide


def test_every_page_was_screenshotted(visits, book_pages, screenshots):
    for page_path in book_pages:
        visits(page_path)
    missing = [p for p in book_pages if not (screenshots / _shot_name(p)).is_file()]
    assert not missing, f"no screenshot for {missing}"


def test_the_book_has_charts(visits, book_pages):
    """Guards the checks above against passing because they found nothing to check."""
    assert sum(len(visits(p).charts) for p in book_pages) > 0, "no chart container found in the whole book"


def _lab_pages(book_pages: list[str]) -> list[str]:
    return [p for p in book_pages if p.startswith("labs/")]


def _student_copy(page_path: str) -> str:
    """The student copy a lab or chapter page serves: student/<lab>.ipynb or student/chapter-<x>.ipynb."""
    stem = Path(page_path).stem
    return f"student/{stem}.ipynb" if page_path.startswith("labs/") else f"student/{chapter_notebook_name(stem)}"


def _pages_with_a_copy(book_html: Path, book_pages: list[str]) -> list[str]:
    chapters = [p for p in book_pages if p.startswith("chapters/") and p.count("/") == 1]
    with_copy = [p for p in chapters if (book_html / _student_copy(p)).is_file()]  # copied in by the build
    return _lab_pages(book_pages) + with_copy


def test_lab_pages_offer_the_notebook_and_launch_buttons(book_html, book_pages, base_url):
    """Each lab page, and each chapter with exercises, serves its student copy: download and launch."""
    pages = _pages_with_a_copy(book_html, book_pages)
    if not _lab_pages(book_pages) or len(pages) == len(_lab_pages(book_pages)):
        pytest.skip("the book has no lab pages or no chapter with a student copy")
    problems = []
    for page_path in pages:
        text = (book_html / page_path).read_text(encoding="utf-8")
        # The buttons serve the page's student copy (coursetools.student), which reads right without MyST.
        name = _student_copy(page_path)
        download = re.search(r'href="((?:\.\./)+' + re.escape(name) + r')"', text)  # relative: served by the book
        if not download:
            problems.append(f"{page_path}: no download link to {name}")
        else:
            with urllib.request.urlopen(urljoin(base_url + page_path, download.group(1)), timeout=10) as response:
                notebook = json.loads(response.read().decode("utf-8"))
            if notebook.get("nbformat") != 4 or not notebook.get("cells"):
                problems.append(f"{page_path}: the download is not a notebook")
            elif any("```{" in "".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown"):
                problems.append(f"{page_path}: the download holds MyST directives (not the student copy)")
        for provider, pattern in (
            ("Binder", r"mybinder\.org/v2/gh/[^\"]+urlpath=lab/tree/" + re.escape(name)),
            ("Colab", r"colab\.research\.google\.com/github/[^\"]+/" + re.escape(name)),
            ("JupyterHub", r"/hub/user-redirect/git-pull\?[^\"]*" + re.escape(name)),
        ):
            if not re.search(pattern, text):
                problems.append(f"{page_path}: no {provider} launch button for {name}")
    assert not problems, "\n".join(problems)


def test_chapters_without_a_student_copy_have_no_launch_buttons(book_html, book_pages):
    """Binder and Colab cannot open a chapter's MyST Markdown as a notebook: no dead buttons there.

    A chapter with exercises has launch buttons, and they open its student copy (checked above).
    """
    served = set(_pages_with_a_copy(book_html, book_pages))
    chapters = [p for p in book_pages if p.startswith("chapters/") and p not in served]
    with_buttons = [p for p in chapters if "launch-buttons" in (book_html / p).read_text(encoding="utf-8")]
    assert chapters and not with_buttons, f"chapters with launch buttons: {with_buttons}"


# ---------------------------------------------------------------------------------------------
# The harness itself: the control and chart checks can fail


def test_harness_tells_live_controls_from_dead_ones(browser, book_html, tmp_path, monkeypatch):
    """A checkbox wired to the chart must count as changing it; one wired to nothing must not."""
    import altair as alt
    import pandas as pd

    from labsupport.charts import BOOK_BUILD_ENV, render_bundle

    monkeypatch.setenv(BOOK_BUILD_ENV, "1")  # the HTML the book's pages hold

    bundle = book_html / "_static" / "labsupport-vega.js"
    if not bundle.is_file():
        pytest.fail(f"{bundle} is missing: the book was not built with coursetools.book")
    data = pd.DataFrame({"x": [1, 2, 3], "y": [1, 4, 9], "even": [False, True, False]})
    live = alt.param(name="live", value=False, bind=alt.binding_checkbox(name="live "))
    dead = alt.param(name="dead", value=False, bind=alt.binding_checkbox(name="dead "))
    chart = (
        alt.Chart(data, title="t", description="d")
        .mark_point()
        .encode(x="x:Q", y="y:Q", opacity=alt.condition("live && datum.even", alt.value(0.2), alt.value(1.0)))
        .add_params(live, dead)
    )
    body = render_bundle(chart.to_dict())["text/html"]
    page_file = tmp_path / "harness-selftest.html"
    page_file.write_text(
        f'<!doctype html><html><head><script src="{bundle.as_uri()}"></script></head><body>{body}</body></html>',
        encoding="utf-8",
    )
    context = browser.new_context(viewport=VIEWPORT)
    try:
        tab = context.new_page()
        _open(tab, page_file.as_uri())
        chart_id = tab.evaluate(_CHARTS)[0]["id"]
        results = {r["label"].strip(): r["changed"] for r in (_exercise_control(tab, chart_id, i) for i in range(2))}
    finally:
        context.close()
    assert results == {"live": True, "dead": False}


def test_harness_catches_offsite_loads_errors_and_undrawn_charts(browser, tmp_path):
    """A page that loads from a CDN, throws, and never draws its chart fails every matching check."""
    (tmp_path / "bad.html").write_text(
        '<!doctype html><html><head><script src="https://cdn.example.invalid/vega.js"></script>'
        '<link rel="stylesheet" href="https://fonts.example.invalid/font.css"></head><body>'
        '<img src="//images.example.invalid/a.png" alt="">'
        '<div class="labsupport-vega" id="c1" aria-label="Chart"></div>'
        '<script>throw new Error("boom")</script></body></html>',
        encoding="utf-8",
    )
    result = Visit("bad.html")
    context = browser.new_context(viewport=VIEWPORT)
    try:
        tab = context.new_page()
        _watch(tab, result)
        _open(tab, (tmp_path / "bad.html").as_uri(), chart_timeout_ms=500)
        charts = tab.evaluate(_CHARTS)
    finally:
        context.close()
    assert {"cdn.example.invalid", "fonts.example.invalid"} <= {urlsplit(u).hostname for u in result.external}
    assert any("boom" in message for message in result.console)
    assert [c["rendered"] for c in charts] == [False]
    assert len(offsite_references(tmp_path, "bad.html")) == 3


def test_the_same_chart_twice_on_a_page_draws_twice(browser, book_html, tmp_path, monkeypatch):
    """Found at stop 20: two identical specs gave one element id, so the second box stayed empty."""
    import altair as alt
    import pandas as pd

    from labsupport import charts

    monkeypatch.setenv(charts.BOOK_BUILD_ENV, "1")
    spec = alt.Chart(pd.DataFrame({"x": [1, 2], "y": [3, 4]})).mark_line().encode(x="x:Q", y="y:Q").to_dict()
    body = charts.render_bundle(spec)["text/html"]
    bundle = next(book_html.glob("_static/labsupport-vega.js"))
    (tmp_path / "twice.html").write_text(
        f'<!doctype html><html><head><script src="{bundle.as_uri()}"></script></head><body>{body}{body}</body></html>',
        encoding="utf-8",
    )
    result = Visit("twice.html")
    context = browser.new_context(viewport=VIEWPORT)
    try:
        tab = context.new_page()
        _watch(tab, result)
        _open(tab, (tmp_path / "twice.html").as_uri())
        charts_found = tab.evaluate(_CHARTS)
    finally:
        context.close()
    assert [c["rendered"] for c in charts_found] == [True, True], charts_found
    assert not result.console
