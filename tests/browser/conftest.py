"""Fixtures and options for the browser test of the built book; it is off unless ``--run-browser``.

Run it after building the book::

    jupyter-book build .
    pip install -e ".[browser]"          # Playwright's Python package only: no browser download
    pytest tests/browser --run-browser -p no:cacheprovider

Options: ``--book-html PATH`` (or the environment variable ``BOOK_HTML``) names the built HTML
folder (default ``_build/html``); ``--chromium PATH`` (or ``CHROMIUM``) the browser (default
``/usr/bin/chromium``, Debian's package, else the first ``chromium`` on ``PATH``). Screenshots go to
``<html folder>/../screenshots/``, that is ``_build/screenshots/`` by default.

The live test (test_labs_live.py) needs no built book: the fixture ``live_server`` starts
``jupyter lab`` from this environment on a temporary copy of ``labs/`` and ``chapters/`` (see
live.py), and every lab is run in it from the browser. Its screenshots go to
``_build/screenshots/live/``, and a summary (charts drawn per lab, widget redraw times) is printed
at the end of the run.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("browser", "browser test of the built book (tests/browser)")
    group.addoption(
        "--run-browser",
        action="store_true",
        default=False,
        help="run the browser test of the built book (off by default)",
    )
    group.addoption(
        "--book-html", default=None, help="built HTML folder to test (default: $BOOK_HTML, else _build/html)"
    )
    group.addoption("--chromium", default=None, help="Chromium executable (default: $CHROMIUM, else /usr/bin/chromium)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "browser: loads the built book in headless Chromium (deselected unless --run-browser)"
    )
    config.addinivalue_line(
        "markers", "phone: a check of the built book at 390 px (-m phone runs only them, -m 'not phone' the rest)"
    )


def _is_phone(item: pytest.Item) -> bool:
    """A test of the book at 390 px: it reads ``phone_visits``, and is not the 1280 px case of a ``width``."""
    callspec = getattr(item, "callspec", None)
    width = callspec.params.get("width") if callspec else None
    return "phone_visits" in getattr(item, "fixturenames", ()) and width in (None, "390")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # ``-m phone`` and ``-m "not phone"`` split the built book's tests by width: each half loads
    # every page once at its width, so CI runs the halves side by side (.ci/run).
    for item in items:
        if _is_phone(item):
            item.add_marker(pytest.mark.phone)
    if config.getoption("--run-browser", default=False):
        return
    deselected = [item for item in items if item.get_closest_marker("browser")]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = [item for item in items if not item.get_closest_marker("browser")]


def _book_html_dir(config: pytest.Config) -> Path:
    chosen = config.getoption("--book-html", default=None) or os.environ.get("BOOK_HTML") or "_build/html"
    path = Path(chosen).expanduser()
    return (path if path.is_absolute() else ROOT / path).resolve()


def _pages(html: Path) -> list[str]:
    """Every HTML page of the book, as paths relative to ``html`` (theme folders like _static excluded)."""
    return sorted(
        p.relative_to(html).as_posix()
        for p in html.rglob("*.html")
        if not any(part.startswith("_") for part in p.relative_to(html).parts[:-1])
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "page" not in metafunc.fixturenames:
        return
    html = _book_html_dir(metafunc.config)
    pages = _pages(html) if (html / "index.html").is_file() else []
    if pages:
        metafunc.parametrize("page", pages)
    else:
        reason = f"no built book at {html} (build it first: jupyter-book build .)"
        metafunc.parametrize("page", [pytest.param(None, marks=pytest.mark.skip(reason=reason))], ids=["no-book"])


@pytest.fixture(scope="session")
def book_html(pytestconfig: pytest.Config) -> Path:
    """The built HTML folder; skips when it has no index.html."""
    html = _book_html_dir(pytestconfig)
    if not (html / "index.html").is_file():
        pytest.skip(f"no built book at {html} (build it first: jupyter-book build .)")
    return html


@pytest.fixture(scope="session")
def book_pages(book_html: Path) -> list[str]:
    """Every HTML page of the built book (paths relative to the HTML folder)."""
    return _pages(book_html)


@pytest.fixture(scope="session")
def chromium_executable(pytestconfig: pytest.Config) -> str:
    """Debian's Chromium (never a browser that Playwright downloads); skips when there is none."""
    chosen = pytestconfig.getoption("--chromium", default=None) or os.environ.get("CHROMIUM")
    for candidate in [chosen] if chosen else ["/usr/bin/chromium", "chromium", "chromium-browser"]:
        found = candidate if os.path.isfile(candidate) and os.access(candidate, os.X_OK) else shutil.which(candidate)
        if found:
            return found
    pytest.skip("no Chromium found (apt-get install chromium, or pass --chromium PATH)")


# ---------------------------------------------------------------------------------------------
# The built book, served on 127.0.0.1 (shared by test_book_in_browser.py and test_book_axe.py)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        pass


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # The browser closes connections it no longer needs (a page closed mid-download): not an error.
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@pytest.fixture(scope="session")
def base_url(book_html: Path):
    """The book served on 127.0.0.1 at a free port, by a thread of this process."""
    server = _Server(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(book_html)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


# ---------------------------------------------------------------------------------------------
# The live test: a real Jupyter server (test_labs_live.py)


@pytest.fixture(scope="session")
def live_server():
    """``jupyter lab`` on 127.0.0.1 (a free port, a random token) rooted at a temporary copy of the labs.

    Stopped at the end of the session with its kernels. Skips if JupyterLab is not installed here.
    """
    import importlib.util

    if importlib.util.find_spec("jupyterlab") is None:
        pytest.skip("JupyterLab is not installed in this environment (pip install -r requirements.txt)")
    from live import LiveServer  # tests/browser/live.py

    server = LiveServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def live_screenshots() -> Path:
    folder = ROOT / "_build" / "screenshots" / "live"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:  # noqa: ANN001
    import sys

    axe = sys.modules.get("test_book_axe")  # imported only if the axe test was collected
    rows = config.stash.get(axe.AXE_SUMMARY, None) if axe else None
    if rows:
        terminalreporter.section(f"axe-core on every page of the built book (also in _build/{axe.report_name(rows)})")
        for line in axe.report_lines(rows):
            terminalreporter.write_line(line)
    live = sys.modules.get("live")  # tests/browser/live.py, imported only if the live test ran
    summary = config.stash.get(live.LIVE_SUMMARY, None) if live else None
    if not summary:
        return
    terminalreporter.section("labs live in JupyterLab / Notebook 7")
    for name, row in sorted(summary.items()):
        terminalreporter.write_line(f"{name}: {row}")


@pytest.fixture(scope="session")
def browser(chromium_executable: str):
    """Headless Debian Chromium driven by Playwright's Python package."""
    # One Chromium for the whole session, shared by every browser test module: a second
    # sync_playwright() inside the first one's event loop is refused by Playwright.
    from test_book_in_browser import LAUNCH_ARGS

    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Playwright's Python package is not installed (pip install -e '.[browser]')")
    with sync_playwright() as pw:
        # An installed Chromium that does not start is an error, not a reason to skip.
        chromium = pw.chromium.launch(executable_path=chromium_executable, headless=True, args=LAUNCH_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


# ---------------------------------------------------------------------------------------------
# Each page of the built book loaded once per width, for every test about it (axe-core's too)


@pytest.fixture(scope="session")
def screenshots(book_html: Path) -> Path:
    folder = book_html.parent / "screenshots"
    (folder / "dark").mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def phone_screenshots(book_html: Path) -> Path:
    folder = book_html.parent / "screenshots" / "phone"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def visits(browser, base_url: str, book_html: Path, screenshots: Path):
    """``visits(page)``: the page loaded at 1280 px, once (test_book_in_browser.page_visits)."""
    from test_book_in_browser import page_visits

    yield from page_visits(browser, base_url, book_html, screenshots)


@pytest.fixture(scope="session")
def dark_disk_visits(browser, book_html: Path, screenshots: Path):
    """``dark_disk_visits(page)``: the page opened from disk in dark mode, once (see test_book_in_browser)."""
    from test_book_in_browser import dark_disk_visits as visits_from_disk_in_dark_mode

    yield from visits_from_disk_in_dark_mode(browser, book_html, screenshots)


@pytest.fixture(scope="session")
def phone_visits(browser, base_url: str, book_html: Path, phone_screenshots: Path):
    """``phone_visits(page)``: the page loaded at 390 px on a phone, once (test_book_phone.phone_page_visits).

    axe-core runs on it only where the content's layout differs from 1280 px: why, and what was
    measured, is in test_book_axe.py's docstring.
    """
    from test_book_phone import phone_page_visits

    yield from phone_page_visits(browser, base_url, book_html, phone_screenshots)
