"""A real Jupyter server and the learner's moves in it, shared by test_labs_live.py and benchmarks/bench_live.py.

:class:`LiveServer` starts ``jupyter lab`` from this Python environment on 127.0.0.1 at a free port,
rooted at a temporary folder that holds copies of ``labs/`` and ``chapters/`` (JupyterLab
autosaves, so running the labs must not write outputs into the repository's notebooks), with a
random token and settings of its own (no news or update checks, every cell kept in the page). The
same server serves Notebook 7's ``/notebooks/...`` pages when the ``notebook`` package is installed.

The page helpers drive JupyterLab as a learner does: open a notebook, Run > Run All Cells, wait
until every code cell has run and the kernel is idle, then read what the page shows (charts, text,
errors, widget panels) and move one widget control at a time, timing the chart's redraw.

Nothing here asserts: the test module decides what is a failure.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from test_book_in_browser import LAUNCH_ARGS, is_local  # noqa: F401 - re-exported for bench_live

ROOT = Path(__file__).resolve().parents[2]
LABS = sorted(p.name for p in (ROOT / "labs").glob("*.ipynb"))
VIEWPORT = {"width": 1280, "height": 900}
SERVER_START_S = 90
KERNEL_READY_S = 60
# How long Run All may take before the lab counts as hung: a guard, not a speed check (the speed is in
# benchmarks/bench_live.py). Lab 02 alone runs in about 28 s; on 2 cores shared with the other browser
# jobs one run took over 120 s, so the guard leaves room for a loaded machine.
RUN_ALL_S = 300
REDRAW_S = 15

try:  # pytest's stash key for the per-lab summary that conftest.py prints (no pytest in benchmarks: fine)
    import pytest

    LIVE_SUMMARY: Any = pytest.StashKey[dict]()
except ImportError:  # pragma: no cover
    LIVE_SUMMARY = None

# JupyterLab settings for the test server (its own settings folder, not the user's).
_LAB_SETTINGS = {
    # Every cell stays in the DOM (the default windowing leaves cells out of view un-rendered),
    # so that every output can be checked and the screenshot shows the whole notebook.
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    # No news or update checks: the server would fetch them from jupyter.org.
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
}


# ---------------------------------------------------------------------------------------------
# The server


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    """``jupyter lab`` from this environment, rooted at a temporary copy of the labs and chapters."""

    def __init__(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="labs-live-"))
        self.root = self.tmp / "root"
        self.token = secrets.token_hex(24)
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = self.tmp / "jupyter.log"
        self.proc: subprocess.Popen[bytes] | None = None

    # The copies --------------------------------------------------------------------------

    def _populate(self) -> None:
        ignore = shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__", "_build")
        for folder in ("labs", "chapters"):
            if (ROOT / folder).is_dir():
                shutil.copytree(ROOT / folder, self.root / folder, ignore=ignore)

    def fresh_copy(self, lab: str, folder: str) -> str:
        """Copy ``labs/<lab>`` from the repository to ``<folder>/<lab>`` under the root; its server path."""
        target = self.root / folder / lab
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / "labs" / lab, target)
        return f"{folder}/{lab}"

    # Starting and stopping ----------------------------------------------------------------

    def start(self) -> LiveServer:
        self._populate()
        env = dict(os.environ)
        settings = self.tmp / "lab-settings"
        for name, value in _LAB_SETTINGS.items():
            path = settings / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(value), encoding="utf-8")
        env.update(
            {
                # The server's own settings, workspaces, config and runtime files: not the user's.
                "JUPYTERLAB_SETTINGS_DIR": str(settings),
                "JUPYTERLAB_WORKSPACES_DIR": str(self.tmp / "lab-workspaces"),
                "JUPYTER_CONFIG_DIR": str(self.tmp / "jupyter-config"),
                "JUPYTER_RUNTIME_DIR": str(self.tmp / "jupyter-runtime"),
                "PYTHONDONTWRITEBYTECODE": "1",
            }
        )
        env.pop("LABSUPPORT_BOOK_BUILD", None)  # the kernels must render as in a live notebook
        cmd = [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0",
            f"--ServerApp.root_dir={self.root}",
            f"--IdentityProvider.token={self.token}",
            "--ServerApp.open_browser=False",
            "--LabApp.news_url=",
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.append("--allow-root")
        log = open(self.log_path, "wb")  # noqa: SIM115 - closed in stop()
        self._log = log
        self.proc = subprocess.Popen(
            cmd,
            cwd=self.root,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + SERVER_START_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jupyter lab exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                self.api("GET", "/api/status", timeout=2)
                return self
            except (OSError, urllib.error.URLError):
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"jupyter lab did not answer within {SERVER_START_S} s:\n{self.log_tail()}")

    def stop(self) -> None:
        """Shut down every kernel and the server (by its id and process group), and delete the copies."""
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            try:
                for kernel in self.api("GET", "/api/kernels", timeout=5):
                    self.api("DELETE", f"/api/kernels/{kernel['id']}", timeout=10)
                self.api("POST", "/api/shutdown", timeout=5)
            except (OSError, urllib.error.URLError, ValueError):
                pass
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGTERM)  # the group this class started: server and kernels
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait(timeout=10)
        if getattr(self, "_log", None):
            self._log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self) -> LiveServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # Talking to it ------------------------------------------------------------------------

    def api(self, method: str, path: str, *, timeout: float = 10) -> Any:
        """One REST call to the server, its JSON body decoded (None if empty).

        A GET that the server answers with a 5xx is asked again, up to three times in all: jupyter_server
        can fail ``GET /api/kernels`` with a 500 while a kernel is shutting down (its list is read as an
        entry leaves; jupyter/notebook#5875 describes the race), and JupyterLab's own poll simply asks
        again. A third 5xx, or any error on another method, raises ``urllib.error.HTTPError`` with the
        server log's tail in its message.
        """
        attempts = 3 if method == "GET" else 1
        for attempt in range(1, attempts + 1):
            request = urllib.request.Request(
                self.url + path, method=method, headers={"Authorization": f"token {self.token}"}
            )
            try:
                with urllib.request.urlopen(request, timeout=timeout) as response:
                    body = response.read()
                return json.loads(body) if body else None
            except urllib.error.HTTPError as err:
                if err.code < 500 or attempt == attempts:
                    raise urllib.error.HTTPError(
                        err.url,
                        err.code,
                        f"{err.msg} ({method} {path}); server log:\n{self.log_tail()}",
                        err.hdrs,
                        None,
                    ) from err
                time.sleep(0.5 * attempt)
        raise AssertionError("unreachable")

    def page_url(self, path: str, *, ui: str = "lab") -> str:
        if ui == "lab":  # reset: a fresh workspace, not the tabs an earlier page left open
            return f"{self.url}/lab/tree/{path}?reset&token={self.token}"
        return f"{self.url}/notebooks/{path}?token={self.token}"

    def has_notebook7(self) -> bool:
        """True if this server serves Notebook 7's pages (the ``notebook`` package is installed)."""
        try:
            request = urllib.request.Request(f"{self.url}/tree?token={self.token}")
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status == 200
        except urllib.error.HTTPError:
            return False

    def shutdown_kernels(self) -> None:
        """End every session (and so its kernel): a closed tab leaves its kernel running."""
        for session in self.api("GET", "/api/sessions"):
            self.api("DELETE", f"/api/sessions/{session['id']}", timeout=30)
        for kernel in self.api("GET", "/api/kernels"):
            self.api("DELETE", f"/api/kernels/{kernel['id']}", timeout=30)

    def kernels_idle(self) -> bool:
        return all(k.get("execution_state") == "idle" for k in self.api("GET", "/api/kernels"))

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


# ---------------------------------------------------------------------------------------------
# In-page JavaScript

#: The notebook on show (JupyterLab keeps other tabs' notebooks in the page, hidden).
NOTEBOOK = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook"

#: Chart outputs: JupyterLab's Vega renderer (and vega-embed inside it), or the book's HTML
#: container, which a live front end cannot draw. Nested matches count once.
CHART_SELECTOR = ".jp-RenderedVegaCommon5, .vega-embed, .labsupport-vega"
#: What Vega draws a chart into. (vega-embed's actions menu has an svg icon too: not a drawing.)
DRAWING = "svg.marks, canvas.marks"

_CHARTS = """(sel) => {
  const all = [...document.querySelectorAll(sel)].filter(el => !el.parentElement.closest(sel));
  const DRAWING = "svg.marks, canvas.marks";
  return all.map((el, i) => {
    const cell = el.closest('.jp-Cell');
    const cells = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell')];
    return {
      index: i,
      cell: cell ? cells.indexOf(cell) : -1,
      drawn: Boolean(el.querySelector(DRAWING)),
      text: el.innerText.trim().slice(0, 200),
      in_widget: Boolean(el.closest('.jupyter-widgets, .widget-output')),
    };
  });
}"""

# A chart's fingerprint: its SVG markup (or canvas pixels) with the ids Vega numbers afresh at
# every render taken out, hashed. '' while the chart has no drawing.
_FINGERPRINT_FN = """(el) => {
  const svg = el && el.querySelector('svg.marks'), canvas = el && el.querySelector('canvas.marks');
  let s = svg ? svg.outerHTML : (canvas ? canvas.toDataURL() : '');
  if (!s) return '';
  s = s.replace(/\\s(id|aria-labelledby|aria-describedby)="[^"]*"/g, '').replace(/url\\(#[^)]*\\)/g, 'url()')
       .replace(/(xlink:)?href="#[^"]*"/g, '');
  let h = 0; for (let i = 0; i < s.length; i++) { h = (Math.imul(31, h) + s.charCodeAt(i)) | 0; }
  return s.length + ':' + h;
}"""

# A dropdown's description and the choice it shows ('' for an empty box), for a <select> element ``s``.
_DROPDOWN_LABEL = "(s.closest('.widget-dropdown').querySelector('label') || {innerText: ''}).innerText.trim()"
_DROPDOWN_SHOWN = "(s.selectedIndex >= 0 ? s.options[s.selectedIndex].text.trim() : '')"

# Widget panels: every output that holds ipywidgets controls. For each, the kinds of control it
# has and the fingerprint of the nearest chart after its controls (same cell, document order).
_PANEL_HELPERS = """
  const CONTROL = '.widget-checkbox, .widget-slider, .widget-hslider, .widget-dropdown, .widget-select-multiple, '
                + '.widget-toggle-buttons, .widget-radio, .widget-text, .widget-inline-hbox';
  const panels = () => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell')]
    .map((cell, index) => ({cell, index}))
    .filter(({cell}) => cell.querySelector('.jp-OutputArea .widget-checkbox, .jp-OutputArea .widget-slider, '
                                          + '.jp-OutputArea .widget-hslider'));
  const chartAfter = (cell) => {
    const controls = [...cell.querySelectorAll('.jp-OutputArea ' + CONTROL.split(', ').join(', .jp-OutputArea '))];
    const last = controls[controls.length - 1];
    const charts = [...cell.querySelectorAll(SEL)].filter(el => !el.parentElement.closest(SEL));
    return charts.find(el => last && (last.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING)) || null;
  };
"""

_PANELS = (
    """(SEL) => {"""
    + _PANEL_HELPERS
    + """
  const fp = """
    + _FINGERPRINT_FN
    + """;
  return panels().map(({cell, index}) => ({
    cell: index,
    checkboxes: cell.querySelectorAll('.jp-OutputArea .widget-checkbox input[type=checkbox]').length,
    sliders: cell.querySelectorAll('.jp-OutputArea .widget-slider .noUi-handle, '
                                   + '.jp-OutputArea .widget-hslider .noUi-handle').length,
    // Each dropdown's label and the choice it shows ('' when it shows an empty box).
    dropdowns: [...cell.querySelectorAll('.jp-OutputArea .widget-dropdown select')].map(s => ({
      label: """
    + _DROPDOWN_LABEL
    + """,
      shown: """
    + _DROPDOWN_SHOWN
    + """,
    })),
    labels: [...cell.querySelectorAll('.jp-OutputArea .widget-checkbox, .jp-OutputArea .widget-slider, '
                                      + '.jp-OutputArea .widget-hslider')]
              .map(w => w.innerText.replace(/\\s+/g, ' ').trim()).slice(0, 20),
    chart: fp(chartAfter(cell)),
  }));
}"""
)

# Mark the drawing of the nearest chart after a panel's controls, so that a new drawing (the panel
# redrew, whether or not the picture differs) can be told from the old one.
_MARK_DRAWING = (
    """([SEL, index]) => {"""
    + _PANEL_HELPERS
    + """
  const cell = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell')[index];
  const chart = cell && chartAfter(cell), drawing = chart && chart.querySelector('svg.marks, canvas.marks');
  if (drawing) drawing.setAttribute('data-ls-before', '1');
  return Boolean(drawing);
}"""
)

_REDRAWN = (
    """([SEL, index]) => {"""
    + _PANEL_HELPERS
    + """
  const cell = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell')[index];
  const chart = cell && chartAfter(cell), drawing = chart && chart.querySelector('svg.marks, canvas.marks');
  return Boolean(drawing) && !drawing.hasAttribute('data-ls-before');
}"""
)

_PANEL_CHART_FP = (
    """([SEL, index]) => {"""
    + _PANEL_HELPERS
    + """
  const fp = """
    + _FINGERPRINT_FN
    + """;
  const cell = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell')[index];
  return cell ? fp(chartAfter(cell)) : '';
}"""
)

# Text a learner sees: rendered Markdown and every output, not the code editors.
_VISIBLE_TEXT = """() => {
  const parts = [];
  document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell').forEach((cell, index) => {
    const md = cell.classList.contains('jp-MarkdownCell')
      ? [...cell.querySelectorAll('.jp-RenderedMarkdown, .jp-MarkdownOutput, .myst')].filter(
          el => !el.parentElement.closest('.jp-RenderedMarkdown, .jp-MarkdownOutput, .myst')) : [];
    const outs = [...cell.querySelectorAll('.jp-OutputArea-output')].filter(
      el => !el.parentElement.closest('.jp-OutputArea-output'));
    for (const el of [...md, ...outs]) {
      const t = el.innerText;
      if (t && t.trim()) parts.push({cell: index, kind: md.includes(el) ? 'markdown' : 'output', text: t});
    }
  });
  return parts;
}"""

_ERRORS = """() => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell')]
  .flatMap((cell, index) =>
  [...cell.querySelectorAll('.jp-OutputArea-output')].filter(el =>
      el.matches('[data-mime-type="application/vnd.jupyter.error"]')
      || el.querySelector('[data-mime-type="application/vnd.jupyter.error"]')
      || ((el.matches('[data-mime-type="application/vnd.jupyter.stderr"]')
           || el.querySelector('[data-mime-type="application/vnd.jupyter.stderr"]'))
          && /Traceback|Error\\b/.test(el.innerText)))
    .map(el => ({cell: index, text: el.innerText.trim().slice(0, 600)})))"""

_PROMPTS = """() => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-CodeCell')]
  .map(cell => {
  const p = cell.querySelector('.jp-InputPrompt');
  return p ? p.textContent.trim() : '?';
})"""


# ---------------------------------------------------------------------------------------------
# Driving the page


@dataclass
class LabRun:
    """What one notebook did in the browser."""

    path: str
    ui: str = "lab"
    external: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)  # console errors and warnings (reported, not judged)
    prompts: list[str] = field(default_factory=list)
    charts: list[dict[str, Any]] = field(default_factory=list)
    texts: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    panels: list[dict[str, Any]] = field(default_factory=list)
    moves: list[dict[str, Any]] = field(default_factory=list)
    saved_errors: list[tuple[int, str, str]] = field(default_factory=list)  # (code cell, name, text)
    run_s: float = 0.0
    #: The lab's bytes as the repository holds them, and as saved (Ctrl+S) right after opening, before
    #: anything ran (``None`` where that check was not made: Notebook 7).
    original: bytes | None = None
    saved_unrun: bytes | None = None
    #: Lab 07 in JupyterLab: each click of :data:`GAME_CLICKS` (``click``, ``seconds`` to the dashboard
    #: redrawn, ``None`` if it was not), and the effective CSS zoom of the panel's controls and chart
    #: with *Projector mode* on and off again.
    game: list[dict[str, Any]] = field(default_factory=list)
    projector: dict[str, dict[str, float]] = field(default_factory=dict)


def watch(page: Any, run: LabRun) -> None:
    """Abort and record every request that is not local; record uncaught page errors."""

    def route(r: Any) -> None:
        if is_local(r.request.url):
            r.continue_()
        else:
            run.external.append(r.request.url)
            r.abort("blockedbyclient")

    page.route("**/*", route)
    page.on("request", lambda req: None if is_local(req.url) else run.external.append(req.url))
    page.on("websocket", lambda ws: None if is_local(ws.url) else run.external.append(ws.url))
    page.on("pageerror", lambda err: run.page_errors.append(str(err)))
    page.on(
        "console",
        lambda msg: (
            run.console.append(f"console.{msg.type}: {msg.text[:300]}") if msg.type in ("error", "warning") else None
        ),
    )


def new_page(browser: Any, run: LabRun) -> tuple[Any, Any]:
    context = browser.new_context(viewport=VIEWPORT, service_workers="block")
    page = context.new_page()
    watch(page, run)
    return context, page


def open_notebook(page: Any, server: LiveServer, path: str, *, ui: str = "lab") -> None:
    """Go to the notebook and wait until its cells are on the page and its kernel is idle."""
    page.goto(server.page_url(path, ui=ui), wait_until="domcontentloaded", timeout=60_000)
    page.wait_for_selector(f"{NOTEBOOK} .jp-Cell", timeout=60_000)
    wait_kernel_idle(page, server, KERNEL_READY_S)


def wait_kernel_idle(page: Any, server: LiveServer, timeout_s: float) -> None:
    """Until the notebook's kernel is connected and idle (the toolbar indicator or the server says so)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        status = page.evaluate("""() => {
          const el = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook-ExecutionIndicator')
                  || document.querySelector('.jp-Notebook-ExecutionIndicator');
          return el ? el.getAttribute('data-status') : null; }""")
        kernels = server.api("GET", "/api/kernels")
        if kernels and all(k.get("execution_state") == "idle" for k in kernels) and status in (None, "idle"):
            return
        page.wait_for_timeout(250)
    raise TimeoutError(f"the kernel was not idle within {timeout_s:.0f} s")


def _menu_command(page: Any, menu: str, item: str) -> None:
    """Click ``menu`` in the menu bar, then its item labelled ``item`` (JupyterLab and Notebook 7)."""
    page.locator(".lm-MenuBar-item", has_text=re.compile(rf"^\s*{menu}\s*$")).first.click()
    page.locator(".lm-Menu-item .lm-Menu-itemLabel", has_text=re.compile(rf"^\s*{item}\s*$")).first.click()


def run_all(page: Any, server: LiveServer, timeout_s: float = RUN_ALL_S) -> float:
    """Run > Run All Cells; wait until no cell is queued or running and the kernel is idle. Seconds taken."""
    page.locator(NOTEBOOK).first.click(position={"x": 5, "y": 5})
    t0 = time.monotonic()
    _menu_command(page, "Run", "Run All Cells")
    deadline = t0 + timeout_s
    quiet_since = None
    while time.monotonic() < deadline:
        prompts = page.evaluate(_PROMPTS)
        busy = any("*" in p for p in prompts) or not server.kernels_idle()
        started = any(re.search(r"\[\d+\]", p) for p in prompts)
        if started and not busy:
            quiet_since = quiet_since or time.monotonic()
            if time.monotonic() - quiet_since > 1.0:  # idle for a second: the run is over
                return time.monotonic() - t0
        else:
            quiet_since = None
        page.wait_for_timeout(300)
    raise TimeoutError(f"Run All Cells did not finish within {timeout_s:.0f} s")


def wait_charts_settled(page: Any, timeout_ms: int = 20_000) -> None:
    """Until every chart output holds a drawing or shows text (a fallback message), or the timeout."""
    with contextlib.suppress(Exception):  # the chart check reports what did not draw
        page.wait_for_function(
            "(sel) => [...document.querySelectorAll(sel)].every(el => el.querySelector('svg.marks, canvas.marks') "
            "|| el.innerText.trim())",
            arg=CHART_SELECTOR,
            timeout=timeout_ms,
        )


def read_page(page: Any, run: LabRun) -> None:
    run.prompts = page.evaluate(_PROMPTS)
    run.charts = page.evaluate(_CHARTS, CHART_SELECTOR)
    run.texts = page.evaluate(_VISIBLE_TEXT)
    run.errors = page.evaluate(_ERRORS)
    run.panels = page.evaluate(_PANELS, CHART_SELECTOR)


def panel_chart(page: Any, cell: int) -> str:
    return page.evaluate(_PANEL_CHART_FP, [CHART_SELECTOR, cell])


def _outputs(page: Any, cell: int) -> Any:
    """The output area of the notebook's ``cell``-th cell (a Playwright locator)."""
    return page.locator(f"{NOTEBOOK} .jp-Cell").nth(cell).locator(".jp-OutputArea")


def _seconds_to_redraw(page: Any, cell: int, t0: float, timeout_s: float = REDRAW_S) -> float | None:
    """Seconds from ``t0`` until the chart after the cell's controls holds a new drawing (marked
    before the move with ``_MARK_DRAWING``); ``None`` if it was not redrawn within ``timeout_s``."""
    try:
        page.wait_for_function(_REDRAWN, arg=[CHART_SELECTOR, cell], timeout=timeout_s * 1000, polling="raf")
    except Exception:  # noqa: BLE001 - a timeout means the chart did not change
        return None
    return time.perf_counter() - t0


def _control(page: Any, cell: int, kind: str, index: int) -> Any:
    outputs = _outputs(page, cell)
    if kind == "checkbox":
        return outputs.locator(".widget-checkbox input[type=checkbox]").nth(index)
    if kind == "dropdown":
        return outputs.locator(".widget-dropdown select").nth(index)
    return outputs.locator(".widget-slider .noUi-handle, .widget-hslider .noUi-handle").nth(index)


def move_control(
    page: Any,
    cell: int,
    kind: str,
    index: int = 0,
    *,
    timeout_s: float = REDRAW_S,
    key: str = "ArrowRight",
    mouse: bool = False,
) -> dict[str, Any]:
    """One learner's move: click a checkbox, pick a dropdown's first choice (its second if the first is
    shown), or focus a slider's handle and press ``key`` (one step).

    With ``mouse=True`` a slider's handle is dragged with the mouse instead (Notebook 7's notebook
    takes arrow keys for itself: a learner there drags). If the key does not reach the slider (its
    readout keeps its value for a second), the handle is dragged too, and ``via`` says so.
    Returns the control's label, whether the nearest chart after the panel's controls was drawn
    anew (``changed``; a redraw counts even when the new picture equals the old one, as when a
    setting does not change the result), whether its picture differs (``different``), and the
    seconds from the move to the new drawing (None if it was not redrawn). For a dropdown, ``shown``
    is the choice it shows after the move ('' for an empty box).
    """
    control = _control(page, cell, kind, index)
    control.scroll_into_view_if_needed()
    widget = control.locator("xpath=ancestor::*[contains(concat(' ', @class, ' '), ' widget-inline-hbox ')][1]")
    label = re.sub(r"\s+", " ", widget.inner_text() if widget.count() else "").strip().strip("\u200b ")[:80]
    if kind == "dropdown":  # its description, not its choices
        label = control.evaluate(f"s => {_DROPDOWN_LABEL}")
    before = panel_chart(page, cell)
    page.evaluate(_MARK_DRAWING, [CHART_SELECTOR, cell])
    via = {"checkbox": "click", "dropdown": "select"}.get(kind, "key")
    if kind == "checkbox":
        t0 = time.perf_counter()
        control.click()
    elif kind == "dropdown":
        target = 1 if control.evaluate("s => s.selectedIndex") == 0 else 0
        t0 = time.perf_counter()
        control.select_option(index=target)
    else:
        readout = widget.locator(".widget-readout")
        old = readout.first.text_content() if readout.count() else None
        now, top, bottom = (control.get_attribute(a) for a in ("aria-valuenow", "aria-valuemax", "aria-valuemin"))
        if now is not None and now == (top if key == "ArrowRight" else bottom):  # at the end: step back instead
            key = "ArrowLeft" if key == "ArrowRight" else "ArrowRight"
        if not mouse:
            control.focus()
            t0 = time.perf_counter()
            control.press(key)
            if old is not None:
                try:
                    page.wait_for_function(
                        "([el, old]) => el.textContent !== old",
                        arg=[readout.first.element_handle(), old],
                        timeout=1_000,
                    )
                except Exception:  # noqa: BLE001 - the key went elsewhere: drag the handle instead
                    via, mouse = "drag (the key did not reach the slider)", True
                    control.scroll_into_view_if_needed()
        else:
            via = "drag"
        if mouse:
            box = control.bounding_box()
            track = widget.locator(".noUi-target").first.bounding_box()
            x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
            # One value's width on the track (a slider of three values needs half of it), or an
            # eighth of the track for long ones: enough to change the value by at least one step.
            width = track["width"] if track else 200.0
            try:
                span = float(top) - float(bottom)
            except (TypeError, ValueError):
                span = 8.0
            step = max(8.0, width / min(8.0, span) if span > 0 else width / 8)
            page.mouse.move(x, y)
            page.mouse.down()
            page.mouse.move(x + step if key == "ArrowRight" else x - step, y, steps=8)
            t0 = time.perf_counter()
            page.mouse.up()
    seconds = _seconds_to_redraw(page, cell, t0, timeout_s)
    after = panel_chart(page, cell)
    shown = control.evaluate(f"s => {_DROPDOWN_SHOWN}") if kind == "dropdown" else None
    return {
        "shown": shown,
        "cell": cell,
        "kind": kind,
        "index": index,
        "label": label,
        "via": via,
        "before": before,
        "after": after,
        "changed": seconds is not None,
        "different": after != before,
        "seconds": seconds,
    }


def save(page: Any) -> None:
    """Ctrl+S, as a learner saves; waits for the server to have written the file."""
    page.locator(NOTEBOOK).first.click(position={"x": 5, "y": 5})
    page.keyboard.press("Escape")
    with page.expect_response(
        lambda r: "/api/contents/" in r.url and r.request.method == "PUT", timeout=20_000
    ) as response:
        page.keyboard.press("Control+s")
    assert response.value.ok, f"saving failed: HTTP {response.value.status}"


#: The lab whose panel is a game (its buttons are played, not only its controls moved).
GAME_LAB = "07-game-day.ipynb"
#: A whole game as a team might play it, 11:48 PM to the horizon (16 hours of clock, the steps and the
#: investigations' time together): a status update, investigations, the DNS repair, a DWFM restart
#: taken, undone and taken again, the throttle, NLB failover off and on again. "verb @ system" chooses
#: the system in the panel's dropdown, then clicks the verb. Every click must redraw the dashboards.
GAME_CLICKS: tuple[str, ...] = (
    "+60 min",
    "+15 min",
    "Post a status update",
    "Search its logs (15 min) @ Lambda",
    "+60 min",
    "+60 min",
    "Look up its endpoint in DNS (5 min) @ DynamoDB",
    "Edit DNS records by hand @ DynamoDB",
    "+5 min",
    "Restart hosts @ DWFM",
    "Undo the last action",
    "Restart hosts @ DWFM",
    "Throttle incoming work @ DWFM",
    "+60 min",
    "+60 min",
    "+60 min",
    "Turn off an automation @ NLB",
    "+60 min",
    "+60 min",
    "+60 min",
    "Relax every throttle",
    "+60 min",
    "+60 min",
    "+60 min",
    "Turn an automation back on @ NLB",
    *("+60 min",) * 3,
    "+15 min",
    "+5 min",
)
#: Minutes of clock the clicks above add, steps ("+15 min") and investigations ("(15 min)"): the game's
#: whole 16 hours, to the horizon.
GAME_CLICKS_MINUTES = sum(int(m) for c in GAME_CLICKS for m in re.findall(r"[+(](\d+) min", c))


def game_cell(page: Any, panels: list[dict[str, Any]]) -> int | None:
    """The index of the cell whose panel has the game's *Projector mode* button, if any."""
    for panel in panels:
        if _outputs(page, panel["cell"]).locator("button", has_text="Projector mode").count():
            return int(panel["cell"])
    return None


def play_game(page: Any, cell: int, clicks: tuple[str, ...] = GAME_CLICKS) -> list[dict[str, Any]]:
    """Click the game panel's buttons in order, each once; time each from the click to the dashboards redrawn."""
    outputs = _outputs(page, cell)
    steps = []
    for text in clicks:
        verb, _, system = text.partition(" @ ")
        if system:  # choose the system first (no redraw); the click below waits for its button to be enabled
            outputs.locator(".widget-dropdown select").first.select_option(label=system)
        button = outputs.locator("button.widget-button", has_text=verb).first
        button.scroll_into_view_if_needed()
        page.evaluate(_MARK_DRAWING, [CHART_SELECTOR, cell])
        t0 = time.perf_counter()
        button.click()
        steps.append({"click": text, "seconds": _seconds_to_redraw(page, cell, t0)})
    return steps


_ZOOM = """(cell) => {
  const c = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell')[cell];
  const box = c.querySelector('.jp-OutputArea .widget-vbox');
  const chart = c.querySelector('.jp-OutputArea svg.marks, .jp-OutputArea canvas.marks');
  // The effective zoom of each (Element.currentCSSZoom: the product of every ancestor's CSS zoom).
  return {panel: box ? box.currentCSSZoom : null, chart: chart ? chart.currentCSSZoom : null};
}"""


def toggle_projector(page: Any, cell: int, shot: Path) -> dict[str, dict[str, float]]:
    """Press *Projector mode*, read the effective CSS zoom of the panel's controls and of its first chart,
    take a screenshot, press it again: ``{"on": {"panel": .., "chart": ..}, "off": {...}}``."""
    outputs = _outputs(page, cell)
    button = outputs.locator("button.widget-toggle-button", has_text="Projector mode").first
    zoom: dict[str, dict[str, float]] = {}
    for state in ("on", "off"):
        button.scroll_into_view_if_needed()
        button.click()
        page.wait_for_function(  # the kernel's round trip puts the class on the panel, or takes it off
            "([cell, on]) => Boolean(document.querySelectorAll("
            "'.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell')[cell]"
            ".querySelector('.labsupport-projector')) === on",
            arg=[cell, state == "on"],
            timeout=REDRAW_S * 1000,
        )
        zoom[state] = page.evaluate(_ZOOM, cell)
        if state == "on":  # the panel's controls, then its dashboards, as the room sees them
            shot.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(shot))
            chart = outputs.locator("svg.marks, canvas.marks").first
            chart.scroll_into_view_if_needed()
            page.screenshot(path=str(shot.with_name(shot.stem + "-charts.png")))
    return zoom


def screenshot_whole_notebook(page: Any, path: Path, *, max_height: int = 30_000) -> None:
    """A PNG of the whole notebook: the viewport is made as tall as the notebook's content first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    height = page.evaluate("""() => {
      const nb = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook');
      const scroller = nb && (nb.closest('.jp-WindowedPanel-outer')
                              || nb.querySelector('.jp-WindowedPanel-outer') || nb);
      const shell = document.body.scrollHeight;
      return scroller ? shell - scroller.clientHeight + scroller.scrollHeight : shell; }""")
    page.set_viewport_size(
        {"width": VIEWPORT["width"], "height": int(min(max(height, VIEWPORT["height"]), max_height))}
    )
    page.evaluate(f"""() => {{ const nb = document.querySelector('{NOTEBOOK}');
      const scroller = nb && (nb.querySelector('.jp-WindowedPanel-outer') || nb);
      if (scroller) scroller.scrollTop = 0; }}""")
    page.wait_for_timeout(500)
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size(VIEWPORT)
