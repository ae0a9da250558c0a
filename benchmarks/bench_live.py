"""Each lab's widget panel in a real JupyterLab: from a learner's move to every output showing the new state.

The server and the page moves are the live browser test's (``tests/browser/live.py``): ``jupyter
lab`` from this environment on a temporary copy of the labs, headless Debian Chromium (``CHROMIUM``
or ``/usr/bin/chromium``; Playwright never downloads one) with the network cut off. Per lab that
has a widget panel: open it, Run All Cells, then, for each kind of control the panel has
(checkbox, slider, dropdown; the first of each), :data:`CHANGES` moves of it: a click on the
checkbox, the ArrowRight / ArrowLeft key on the slider's handle, the next option of the dropdown.
Lab 07's game also has its clock step timed: :data:`CHANGES` clicks of its "+5 min" button.

**What is timed**: from the move until *every* output of the panel (each chart, table and
Markdown text after its controls) shows the new state: each output's old content is marked before
the move, and an output is redrawn when no marked element is left in it and, if it held a chart,
it holds a new drawing (kernel round trip, model run, charts built, Vega-Lite compiled and drawn).
A chart whose picture does not change still counts once it is drawn anew (the panel always sends a
chart again). The panel does not send again a table or a text equal to the one its output shows
(a step of lab 07's clock leaves its table of actions alone): such an output is left as it was, and
a move that leaves any is over when the others are redrawn, nothing in the outputs has changed for
:data:`QUIET_S` and the server says the kernel is idle; it is timed to the outputs' last change
(a MutationObserver's clock), not to the end of that wait. The note says how many outputs each
move left as they were.

**No cache**: the kernels run with the panels' run cache off (``LABSUPPORT_RUN_CACHE=0``), so every
move runs the model, as a learner's first visit to a setting does (a checkbox toggled back and forth
would otherwise hit the cache from the third move on). Lab 07 is then timed once more as a player
meets it, with the cache on, in its own server: a clock step (the run of the actions taken is
reused: the chain's run depends on the actions, not on the clock) and an action (which runs the
chain) in turns, rows "clock step, as played" and "action, as played".

Beside each panel: its Python-side update (``benchmarks/panel_update.py``: the model run, the charts
and each output's MIME bundle, no front end) and the model's run alone, the floor; the ratio of the
live median to that floor says how much of what the learner waits for is the model.

Targets (median; p90 in the note): 0.3 s (0.5 s) for every panel, the six-stop panel of lab 05
0.5 s (0.8 s). A move that never redraws counts as the 15 s timeout and says so in the note.

``BENCH_LABS=01,05`` times only those labs, ``BENCH_CHANGES`` sets the moves per control.
``BENCH_SRC=<checkout>`` times another checkout's ``labsupport`` (its kernels import it first
through ``PYTHONPATH``; the notebooks are this checkout's): how the figures of the commit before a
change are taken, side by side.

Needs Chromium, Playwright's Python package and JupyterLab; without them it prints why and gives
no rows.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))

CHANGES = int(os.environ.get("BENCH_CHANGES", "6"))
#: Run All Cells on a loaded machine can take minutes.
RUN_ALL_S = 600
TARGETS = {"05": (0.5, 0.8)}
DEFAULT_TARGET = (0.3, 0.5)
KINDS = ("checkbox", "slider", "dropdown")
#: Lab 07's clock: a click of its smallest step button, timed like a control's move. With the run
#: cache off a step runs the chain again, which a learner's step never does (the actions, and so the
#: run, are the same as the step before): the figure bounds a learner's wait from above.
CLOCK_STEP, CLOCK_STEP_BUTTON = "clock step", "+5 min"
#: Lab 07 as a player meets it, with the run cache on (a second server, after the others): a clock
#: step reuses the chain run of the actions already taken, since the run depends on the actions and
#: not on the clock; an action changes them, so its click runs the chain. Timed in turns, step then
#: action, each :data:`CHANGES` times.
PLAYED_STEP, PLAYED_ACTION = "clock step, as played", "action, as played"
PLAYED_ACTION_BUTTON = "Post a status update"
_BUTTONS = {CLOCK_STEP: CLOCK_STEP_BUTTON, PLAYED_STEP: CLOCK_STEP_BUTTON, PLAYED_ACTION: PLAYED_ACTION_BUTTON}

#: The panel's outputs after its controls (the top-level outputs of its cell that follow the one
#: holding the widgets), found again at every call.
_OUTPUTS = """
  const CELLS = '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell';
  const outputsOf = (index) => {
    const cell = document.querySelectorAll(CELLS)[index];
    if (!cell) return [];
    const all = [...cell.querySelectorAll('.jp-OutputArea-output')].filter(
      el => !el.parentElement.closest('.jp-OutputArea-output'));
    const controls = all.findIndex(
      el => el.querySelector('.jupyter-widgets, .widget-checkbox, .widget-slider, .widget-dropdown'));
    return controls < 0 ? [] : all.slice(controls + 1);
  };
  const DRAWING = 'svg.marks, canvas.marks';
"""

# Mark every element of every output; remember which outputs had content, how many elements and
# which a drawing; then watch the outputs (not the controls' own) for the time of their last change.
_MARK = (
    """(index) => {"""
    + _OUTPUTS
    + """
  let tracked = 0;
  const outs = outputsOf(index);
  for (const out of outs) {
    const has = Boolean(out.querySelector('*'));
    out.setAttribute('data-ls-tracked', has ? '1' : '0');
    out.setAttribute('data-ls-chart', out.querySelector(DRAWING) ? '1' : '0');
    out.querySelectorAll('*').forEach(el => el.setAttribute('data-ls-old', '1'));
    out.setAttribute('data-ls-count', String(out.querySelectorAll('*').length));
    tracked += has;
  }
  if (window.__lsObserver) window.__lsObserver.disconnect();
  window.__lsLast = null;
  const area = outs.length ? outs[0].closest('.jp-OutputArea') : null;
  const controls = area && outs[0].closest('.jp-OutputArea-child').previousElementSibling;
  window.__lsObserver = new MutationObserver(records => {
    for (const r of records) {
      const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      if (el && !(controls && controls.contains(el))) { window.__lsLast = performance.now(); return; }
    }
  });
  if (area) window.__lsObserver.observe(area, {subtree: true, childList: true, attributes: true, characterData: true});
  return tracked;
}"""
)

# Where the panel's outputs are since the move. An output is redrawn (none of its old elements left,
# some content, a drawing if it had one), left as it was (every old element there and no new one:
# the panel does not send again a table or a text equal to the one shown, as on a step of lab 07's
# clock its table of actions), or still to come. ``done``: every output redrawn, the old rule, which
# needs no wait for quiet. ``quiet_ms``: since the last change in the outputs (``null``: none yet).
# A panel may empty a slot (lab 07's debrief unticked shows an empty Markdown there): JupyterLab
# re-renders a Markdown output in place, so an empty rendered Markdown with none of its old elements
# is the new state, not a render still to come (the rule waited for content it never got: 15 s).
# With jupyterlab-myst installed (as the course installs it) a Markdown output is a
# .jp-RenderedMySTMarkdown, not a .jp-RenderedMarkdown: the rule knew only the latter, and three of
# lab 07's six debrief moves (each untick) counted as the 15 s timeout although the panel redrew.
_STATE = (
    """(index) => {"""
    + _OUTPUTS
    + """
  const emptied = out => out.matches('.jp-RenderedMarkdown, .jp-RenderedMySTMarkdown') && !out.textContent.trim();
  const outs = outputsOf(index);
  let redrawn = 0, kept = 0, pending = 0;
  for (const out of outs) {
    if (out.getAttribute('data-ls-tracked') !== '1') continue;
    const old = out.querySelectorAll('[data-ls-old]').length, all = out.querySelectorAll('*').length;
    const count = Number(out.getAttribute('data-ls-count'));
    if (old === count && all === count) { kept += 1; continue; }
    const drawn = old === 0 && (all > 0 || emptied(out))
      && (out.getAttribute('data-ls-chart') !== '1' || Boolean(out.querySelector(DRAWING)) || emptied(out));
    if (drawn) redrawn += 1; else pending += 1;
  }
  const quiet_ms = window.__lsLast === null ? null : performance.now() - window.__lsLast;
  return {outputs: outs.length, redrawn, kept, pending, quiet_ms, done: outs.length > 0 && pending === 0 && kept === 0};
}"""
)
#: A move that leaves some outputs as they were is over when the rest are redrawn, nothing in the
#: outputs has changed for this long and the kernel is idle (so nothing more is on its way); it is
#: timed to the last change, not to the end of this wait.
QUIET_S = 0.5
#: Is the move over? Every output redrawn, or none still to come and the outputs quiet.
_SETTLED = (
    f"(index) => {{ const s = ({_STATE})(index); return s.done || (s.pending === 0 && s.redrawn > 0"
    f" && s.quiet_ms !== null && s.quiet_ms >= {QUIET_S * 1000:.0f}); }}"
)

_KINDS_PRESENT = """(index) => {
  const cell = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell')[index];
  const q = (sel) => cell ? cell.querySelectorAll('.jp-OutputArea ' + sel).length : 0;
  return {checkbox: q('.widget-checkbox input[type=checkbox]'),
          slider: q('.widget-slider .noUi-handle') + q('.widget-hslider .noUi-handle'),
          dropdown: q('.widget-dropdown select')};
}"""


def _chromium() -> str | None:
    for candidate in [os.environ.get("CHROMIUM"), "/usr/bin/chromium", "chromium", "chromium-browser"]:
        if candidate:
            runnable = os.path.isfile(candidate) and os.access(candidate, os.X_OK)
            found = candidate if runnable else shutil.which(candidate)
            if found:
                return found
    return None


def control_of(page: Any, live: Any, cell: int, kind: str) -> Any:
    """The first control of ``kind`` in the panel of ``cell``: a checkbox, slider or dropdown, or the
    button a kind of :data:`_BUTTONS` clicks (a Playwright locator)."""
    if kind in _BUTTONS:
        return live._outputs(page, cell).locator("button.widget-button", has_text=_BUTTONS[kind]).first
    return live._control(page, cell, kind, 0)


def _move(page: Any, server: Any, live: Any, cell: int, kind: str, i: int) -> tuple[float | None, str, int]:
    """One move of the first control of ``kind``: seconds until every output shows the new state (each
    redrawn, or left as it was when its content did not change; None: never), the control's label,
    and how many outputs were left as they were."""
    control = control_of(page, live, cell, kind)
    control.scroll_into_view_if_needed()
    widget = control.locator("xpath=ancestor::*[contains(concat(' ', @class, ' '), ' widget-inline-hbox ')][1]")
    label = " ".join((widget.inner_text() if widget.count() else "").split())[:60]
    page.evaluate(_MARK, cell)
    if kind in _BUTTONS:
        label = _BUTTONS[kind]
        t0 = time.perf_counter()
        control.click()
    elif kind == "checkbox":
        t0 = time.perf_counter()
        control.click()
    elif kind == "dropdown":
        count = control.locator("option").count()
        current = control.evaluate("el => el.selectedIndex")
        t0 = time.perf_counter()
        control.select_option(index=(current + 1) % count)
    else:
        key = "ArrowRight" if i % 2 == 0 else "ArrowLeft"
        now, top, bottom = (control.get_attribute(a) for a in ("aria-valuenow", "aria-valuemax", "aria-valuemin"))
        if now is not None and now == (top if key == "ArrowRight" else bottom):
            key = "ArrowLeft" if key == "ArrowRight" else "ArrowRight"
        control.focus()
        t0 = time.perf_counter()
        control.press(key)
    deadline = t0 + live.REDRAW_S
    while True:
        try:
            page.wait_for_function(
                _SETTLED, arg=cell, timeout=max(1, (deadline - time.perf_counter()) * 1000), polling="raf"
            )
        except Exception:  # noqa: BLE001 - a timeout: some output never showed the new state
            return None, label, 0
        state = page.evaluate(_STATE, cell)
        now = time.perf_counter()
        if state["done"]:
            return now - t0, label, 0
        if server.kernels_idle():  # what the kernel sent is all here: the move ended at the last change
            return now - t0 - state["quiet_ms"] / 1000, label, state["kept"]
        if now > deadline:
            return None, label, 0
        time.sleep(0.05)


def _python_side(src: Path, numbers: list[str]) -> dict[str, dict[str, float]]:
    """panel_update.py's figures for every panel (in a subprocess, importing ``src``'s labsupport)."""
    sys.path.insert(0, str(Path(__file__).parent))
    from panel_update import LAB_PANELS

    names = [LAB_PANELS[n] for n in numbers if n in LAB_PANELS]
    script = str(Path(__file__).with_name("panel_update.py"))
    out = subprocess.run(
        [sys.executable, script, "--src", str(src), "--no-warm", *names], capture_output=True, text=True, check=False
    )
    try:
        found = json.loads(out.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        print(f"  (live: no Python-side figures: {out.stderr[-300:]})", file=sys.stderr)
        return {}
    return {number: found[name] for number, name in LAB_PANELS.items() if name in found}


def _lab_rows(
    browser: Any, server: Any, live: Any, lab: str, python: dict[str, dict[str, float]], *, played: bool = False
) -> list[dict]:
    """One lab's rows; ``played``: lab 07's :data:`PLAYED_STEP` and :data:`PLAYED_ACTION` in turns instead."""
    number = lab[:2]
    run = live.LabRun(server.fresh_copy(lab, "labs"))
    context, page = live.new_page(browser, run)
    timed: dict[str, tuple[list[float | None], str, list[int]]] = {}
    try:
        live.open_notebook(page, server, run.path)
        live.run_all(page, server, timeout_s=RUN_ALL_S)
        live.wait_charts_settled(page)
        live.read_page(page, run)
        if not run.panels:
            return []
        cell = run.panels[0]["cell"]
        if played:  # in turns, as a player steps and acts
            schedule = [(kind, i) for i in range(CHANGES) for kind in (PLAYED_STEP, PLAYED_ACTION)]
        else:
            present = page.evaluate(_KINDS_PRESENT, cell)
            present[CLOCK_STEP] = lab == live.GAME_LAB
            schedule = [(kind, i) for kind in (*KINDS, CLOCK_STEP) if present[kind] for i in range(CHANGES)]
        for kind, i in schedule:
            seconds, label, kept = _move(page, server, live, cell, kind, i)
            times, _, left = timed.setdefault(kind, ([], label, []))
            times.append(seconds)
            left.append(kept)
    finally:
        context.close()
        server.shutdown_kernels()
    if played:
        return _rows(live, timed, number, {}, cache="on, as a player's kernel has it")
    return _rows(live, timed, number, python.get(number, {}), cache="off")


def _rows(
    live: Any,
    timed: dict[str, tuple[list[float | None], str, list[int]]],
    number: str,
    side: dict[str, float],
    *,
    cache: str,
) -> list[dict]:
    """The median and p90 rows of each kind timed, and the Python-side row when ``side`` has it."""
    target, target_p90 = TARGETS.get(number, DEFAULT_TARGET)
    rows = []
    for kind, (seconds, label, kept) in timed.items():
        times = sorted(live.REDRAW_S if s is None else s for s in seconds)
        missed = sum(s is None for s in seconds)
        median, p90 = statistics.median(times), times[min(len(times) - 1, int(0.9 * len(times)))]
        note = (
            f"{CHANGES} moves of {kind} {label!r}: move to every output of the panel showing the new state, headless "
            f"Chromium, run cache {cache}; p90 target {target_p90:g} s"
        )
        if side:
            note += (
                f"; Python-side update {side['cold']:.3f} s, model alone {side['model']:.3f} s, "
                f"live median / model = {median / side['model']:.1f}"
                if side.get("model")
                else ""
            )
        if any(kept):
            note += (
                f"; outputs left as they were (their content unchanged, not sent again): "
                f"{', '.join(map(str, kept))} per move"
            )
        if missed:
            note += f"; {missed} of {CHANGES} moves never redrew every output (counted as {live.REDRAW_S:g} s)"
        rows += [
            {
                "figure": f"lab {number} {kind}: move to every output showing the new state, median",
                "value": median,
                "unit": "s",
                "target": target,
                "better": "lower",
                "note": note,
            },
            {
                "figure": f"lab {number} {kind}: move to every output showing the new state, p90",
                "value": p90,
                "unit": "s",
                "target": target_p90,
                "better": "lower",
            },
        ]
    if side:
        rows.append(
            {
                "figure": f"lab {number} Python-side update (model run + charts + bundles), median",
                "value": side["cold"],
                "unit": "s",
                "target": None,
                "better": "lower",
                "note": f"panel_update.py, median of 7 after 2, run cache emptied before each; model "
                f"alone {side['model']:.3f} s",
            }
        )
    return rows


def figures() -> list[dict]:
    chromium = _chromium()
    try:
        import live  # tests/browser/live.py
        from playwright.sync_api import sync_playwright
    except ImportError as err:
        print(f"  (live: skipped: {err}; pip install -e '.[browser]' -r requirements.txt)", file=sys.stderr)
        return []
    if chromium is None:
        print("  (live: skipped: no Chromium; apt-get install chromium or set CHROMIUM)", file=sys.stderr)
        return []
    src = Path(os.environ.get("BENCH_SRC") or ROOT).resolve()
    os.environ["LABSUPPORT_RUN_CACHE"] = "0"  # inherited by the server and its kernels
    if src != ROOT:
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(src), os.environ.get("PYTHONPATH")]))
        print(f"  (live: kernels import labsupport from {src})", file=sys.stderr)
    only = [n.strip() for n in os.environ.get("BENCH_LABS", "").split(",") if n.strip()]
    labs = [lab for lab in live.LABS if not only or lab[:2] in only]
    python = _python_side(src, [lab[:2] for lab in labs])
    rows = _time_labs(chromium, live, sync_playwright, [(lab, False) for lab in labs], python)
    if live.GAME_LAB in labs:
        del os.environ["LABSUPPORT_RUN_CACHE"]  # a new server, whose kernels keep their runs
        rows += _time_labs(chromium, live, sync_playwright, [(live.GAME_LAB, True)], python)
    return rows


def _time_labs(
    chromium: str, live: Any, sync_playwright: Any, labs: list[tuple[str, bool]], python: dict
) -> list[dict]:
    """Start a server and a browser, and time each ``(lab, played)`` in turn (see :func:`_lab_rows`)."""
    rows: list[dict] = []
    with live.LiveServer() as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=live.LAUNCH_ARGS)
        try:
            for lab, played in labs:
                try:
                    new = _lab_rows(browser, server, live, lab, python, played=played)
                except Exception as err:  # noqa: BLE001 - one lab that cannot be timed does not lose the others
                    new = [
                        {
                            "figure": f"lab {lab[:2]}: not timed" + (" (as played)" if played else ""),
                            "value": float("nan"),
                            "unit": "s",
                            "target": None,
                            "better": "lower",
                            "note": f"{type(err).__name__}: {err}"[:300],
                        }
                    ]
                rows += new
                for row in new:  # as they come, so that an interrupted run keeps what it measured
                    print("    live row: " + json.dumps(row), file=sys.stderr, flush=True)
        finally:
            browser.close()
    return rows


if __name__ == "__main__":
    for row in figures():
        print(row)
