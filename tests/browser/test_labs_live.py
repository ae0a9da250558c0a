"""Run every lab in a real JupyterLab and in Notebook 7, in headless Chromium, as a learner would.

The server (fixture ``live_server``, conftest.py and live.py) is ``jupyter lab`` from this
environment, rooted at a temporary copy of ``labs/`` and ``chapters/``, so that nothing the run
writes (JupyterLab autosaves) reaches the repository's notebooks. Every request the page makes
that is not local is aborted and recorded. For each lab the test opens
``/lab/tree/labs/<lab>``, clicks Run > Run All Cells, waits until the kernel is idle with no cell
left queued (up to ``live.RUN_ALL_S``, five minutes), and then checks:

* every chart output (``.jp-RenderedVegaCommon5`` / ``.vega-embed``, or the book's HTML container
  ``.labsupport-vega``, which a live front end cannot draw) holds an SVG or a canvas;
* no raw MyST role or glue placeholder is visible in rendered Markdown or outputs;
* no output is an error or a traceback, every code cell ran, and the page threw nothing;
* JupyterLab's Vega-Lite compiles every chart without a "Conflicting ..." warning;
* the page asked for nothing outside this machine;
* each widget panel redraws the nearest chart after its controls after one checkbox click, one
  slider step (ArrowRight on the focused handle) and one pick in each dropdown, and every dropdown
  shows its choice (ipywidgets 8 shows a Dropdown whose value is ``None`` as an empty box);
* the game (lab 07) is played by its buttons (``live.GAME_CLICKS``: clock steps, actions, an undo),
  each click redrawing its dashboards, and its *Projector mode* button zooms the whole panel and
  back (a screenshot of it, zoomed, goes to ``_build/screenshots/live/07-game-day-projector.png``).

A PNG of the whole notebook goes to ``_build/screenshots/live/<lab>.png``. In JupyterLab each lab is
also saved (Ctrl+S) as soon as it is open, before Run All, and those bytes are compared with the
repository's (opening and saving must change nothing). Off unless ``--run-browser`` (see conftest.py).
"""

from __future__ import annotations

import difflib
import json
import re
import statistics
from pathlib import Path
from typing import Any

import live
import pytest

pytestmark = pytest.mark.browser

LABS = live.LABS

#: Raw MyST syntax that must never be visible to a learner.
RAW_MARKERS = ("{glue", "{term}", "{doc}", "{cite}", "{ref}", "{numref}", "{exercise", "{solution", "-start}", "-end}")
#: Glue-style names (lab1_g4_empty, lab00_union, ex6_states): a placeholder nobody filled in.
GLUE_NAME = re.compile(r"\b(?:lab\d+|ex\d+)_[a-z0-9_]+\b")


def _glue_names(lab: str) -> set[str]:
    """Every name the lab's code glues (``glue("name", ...)``): none may show up as text."""
    nb = json.loads((live.ROOT / "labs" / lab).read_text(encoding="utf-8"))
    names: set[str] = set()
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            names |= set(re.findall(r"""\bglue\(\s*["']([A-Za-z0-9_]+)["']""", "".join(cell["source"])))
    return names


def _run_lab(browser: Any, server: live.LiveServer, lab: str, shots: Path, *, ui: str = "lab") -> live.LabRun:
    path = server.fresh_copy(lab, "labs")  # what the repository holds now, not an autosaved run
    run = live.LabRun(path, ui=ui)
    context, page = live.new_page(browser, run)
    try:
        live.open_notebook(page, server, path, ui=ui)
        if ui == "lab":  # opening and saving must change nothing (test_opening_and_saving_changes_nothing)
            run.original = (live.ROOT / "labs" / lab).read_bytes()
            live.save(page)
            run.saved_unrun = (server.root / path).read_bytes()
        run.run_s = live.run_all(page, server)
        live.wait_charts_settled(page)
        live.read_page(page, run)
        game = live.game_cell(page, run.panels) if ui == "lab" and lab == live.GAME_LAB else None
        if game is not None:  # the game is played by its buttons from 11:48 PM to the horizon,
            # and shown as a projector shows it; then its controls are moved like every panel's
            run.game = live.play_game(page, game)
            run.projector = live.toggle_projector(page, game, shots / f"{Path(lab).stem}-projector.png")
        for panel in run.panels:
            # The first checkbox and the first slider, and every dropdown (each its own choices).
            moves = [("checkbox", 0)] if panel["checkboxes"] else []
            moves += [("slider", 0)] if panel["sliders"] else []
            moves += [("dropdown", i) for i in range(len(panel["dropdowns"]))]
            for kind, index in moves:
                run.moves.append(live.move_control(page, panel["cell"], kind, index, mouse=ui == "notebook"))
        live.screenshot_whole_notebook(page, shots / f"{'' if ui == 'lab' else ui + '-'}{Path(lab).stem}.png")
        # Every code cell has an execution count: read from the notebook as saved (the prompts
        # of cells whose input is hidden show nothing).
        live.save(page)
        saved = json.loads((server.root / path).read_text(encoding="utf-8"))
        run.prompts = [c.get("execution_count") for c in saved["cells"] if c["cell_type"] == "code"]
        run.saved_errors = [
            (i, o.get("ename") or "stderr", (o.get("evalue") or "".join(o.get("text", "")))[:300])
            for i, c in enumerate(saved["cells"])
            if c["cell_type"] == "code"
            for o in c.get("outputs", [])
            if o.get("output_type") == "error"
            or (o.get("name") == "stderr" and "Traceback" in "".join(o.get("text", "")))
        ]
    finally:
        context.close()
        server.shutdown_kernels()
    return run


@pytest.fixture(scope="session")
def live_runs(browser, live_server, live_screenshots, pytestconfig):
    """Run a lab once in the browser (cached for every test about it)."""
    cache: dict[tuple[str, str], live.LabRun] = {}
    summary = pytestconfig.stash.setdefault(live.LIVE_SUMMARY, {})

    def get(lab: str, ui: str = "lab") -> live.LabRun:
        if (lab, ui) not in cache:
            run = cache[(lab, ui)] = _run_lab(browser, live_server, lab, live_screenshots, ui=ui)
            summary[f"{ui} {lab}"] = (
                f"ran in {run.run_s:.1f} s; charts drawn {sum(c['drawn'] for c in run.charts)}/{len(run.charts)}; "
                f"panels {len(run.panels)}; redraws "
                + (
                    ", ".join(
                        f"{m['kind']} {'{:.2f} s'.format(m['seconds']) if m['changed'] else 'NONE'}"
                        + (f" [{m['via']}]" if m["via"].startswith("drag") else "")
                        for m in run.moves
                    )
                    or "-"
                )
                + _game_times(run)
                + (f"; {len(set(run.external))} off-site requests" if run.external else "")
                + (
                    f"; console: {len(run.console)} warnings/errors, e.g. {sorted(set(run.console))[:3]}"
                    if run.console
                    else ""
                )
            )
        return cache[(lab, ui)]

    return get


def _game_times(run: live.LabRun) -> str:
    """The game's clicks, click to dashboards redrawn: median and 90th percentile (seconds)."""
    times = [s["seconds"] for s in run.game if s["seconds"] is not None]
    if len(times) < 2:
        return ""
    p90 = statistics.quantiles(times, n=10, method="inclusive")[-1]
    return f"; game: {len(times)} clicks redrawn, median {statistics.median(times):.2f} s, p90 {p90:.2f} s"


def _where(run: live.LabRun, cell: int) -> str:
    return f"{run.path} cell {cell}"


def _empty_dropdowns(run: live.LabRun) -> list[str]:
    """Every dropdown that shows an empty box: after the run, or after its pick."""
    problems = [
        f"{_where(run, panel['cell'])}: the dropdown {d['label']!r} shows an empty box"
        for panel in run.panels
        for d in panel["dropdowns"]
        if not d["shown"]
    ]
    return problems + [
        f"{_where(run, m['cell'])}: the dropdown {m['label']!r} shows an empty box after a pick"
        for m in run.moves
        if m["kind"] == "dropdown" and not m["shown"]
    ]


# ---------------------------------------------------------------------------------------------
# Each lab in JupyterLab


def test_the_game_plays_by_its_buttons_and_projector_mode_enlarges_it(live_runs):
    """Lab 07 in JupyterLab: every click of a whole game redraws the dashboards; the projector zooms
    its controls and its charts alike."""
    from labsupport.game import HORIZON_S

    assert live.GAME_CLICKS_MINUTES * 60 == HORIZON_S, "the scripted game must end at the horizon"
    run = live_runs(live.GAME_LAB)
    assert [s["click"] for s in run.game] == list(live.GAME_CLICKS), "the game's panel was not found or not played"
    stuck = [s["click"] for s in run.game if s["seconds"] is None]
    assert not stuck, f"{run.path}: these clicks did not redraw the dashboards within {live.REDRAW_S} s: {stuck}"
    from labsupport.widgets.game import PROJECTOR_ZOOM

    on, off = (pytest.approx(z) for z in (PROJECTOR_ZOOM, 1.0))
    assert run.projector == {"on": {"panel": on, "chart": on}, "off": {"panel": off, "chart": off}}, run.projector


@pytest.mark.parametrize("lab", LABS)
def test_lab_runs_without_errors(live_runs, lab):
    run = live_runs(lab)
    problems = [f"{_where(run, e['cell'])}: error output: {e['text']}" for e in run.errors]
    problems += [f"{run.path} code cell {i}: {name}: {text}" for i, name, text in run.saved_errors]
    not_run = [i for i, count in enumerate(run.prompts) if count is None]
    if not_run:
        problems.append(f"{run.path}: code cells {not_run} never ran (Run All stops at the first error)")
    problems += [f"{run.path}: uncaught page error: {e}" for e in run.page_errors]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lab", LABS)
def test_lab_charts_draw(live_runs, lab):
    run = live_runs(lab)
    assert run.charts, f"{run.path}: no chart output at all after Run All Cells"
    broken = [
        f"chart {c['index']} in cell {c['cell']}: no svg or canvas"
        + (f" (it says {c['text'][:160]!r})" if c["text"] else "")
        for c in run.charts
        if not c["drawn"]
    ]
    assert not broken, f"{run.path}: {len(broken)} of {len(run.charts)} charts not drawn:\n" + "\n".join(broken)


@pytest.mark.parametrize("lab", LABS)
def test_lab_shows_no_raw_roles_or_placeholders(live_runs, lab):
    run = live_runs(lab)
    glue_names = _glue_names(lab)
    names = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(glue_names))) + r")\b") if glue_names else None
    problems = []
    for part in run.texts:
        text = part["text"]
        found = [m for m in RAW_MARKERS if m in text] + GLUE_NAME.findall(text)
        found += names.findall(text) if names else []
        for marker in dict.fromkeys(found):
            at = text.find(marker)
            problems.append(
                f"{_where(run, part['cell'])} ({part['kind']}): {marker!r} in {text[max(0, at - 60) : at + 60]!r}"
            )
    assert not problems, f"{run.path}: raw MyST or placeholders visible:\n" + "\n".join(problems)


@pytest.mark.parametrize("lab", LABS)
def test_lab_charts_compile_without_conflicts(live_runs, lab):
    """JupyterLab's own Vega-Lite, older than the book's, merges every chart's layers without a conflict.

    A "WARN Conflicting scale property" (or legend property) means two layers or channels described
    one scale or legend in two ways and Vega-Lite chose for them; the chart's author should choose.
    """
    run = live_runs(lab)
    conflicts = sorted({m[:300] for m in run.console if "WARN Conflicting" in m})
    assert not conflicts, f"{run.path}: Vega-Lite warned while drawing its charts:\n" + "\n".join(conflicts)


@pytest.mark.parametrize("lab", LABS)
def test_lab_requests_nothing_offsite(live_runs, lab):
    run = live_runs(lab)
    assert not run.external, f"{run.path} asked for other sites: {sorted(set(run.external))}"


@pytest.mark.parametrize("lab", LABS)
def test_lab_widget_panels_redraw_their_chart(live_runs, lab):
    run = live_runs(lab)
    if not run.panels:
        pytest.skip(f"{run.path} has no widget panel")
    problems = []
    for panel in run.panels:
        if not panel["chart"]:
            problems.append(f"{_where(run, panel['cell'])}: no drawn chart after the panel's controls")
        if not (panel["checkboxes"] or panel["sliders"]):
            problems.append(
                f"{_where(run, panel['cell'])}: a panel with neither a checkbox nor a slider ({panel['labels']})"
            )
    problems += _empty_dropdowns(run)
    for move in run.moves:
        if not move["changed"]:
            problems.append(
                f"{_where(run, move['cell'])}: {move['kind']} {move['label']!r} did not redraw the "
                f"chart after the controls within {live.REDRAW_S} s"
            )
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------------------------------------
# Opening and saving must not change a lab


@pytest.mark.parametrize("lab", LABS)
def test_opening_and_saving_changes_nothing(live_runs, lab):
    run = live_runs(lab)  # saved right after it opened, before Run All (_run_lab)
    original, saved = run.original, run.saved_unrun
    assert original is not None and saved is not None, f"labs/{lab} was not saved before it ran"
    if saved != original:
        diff = difflib.unified_diff(
            original.decode("utf-8", "replace").splitlines(),
            saved.decode("utf-8", "replace").splitlines(),
            f"labs/{lab} (repository)",
            f"labs/{lab} (opened and saved)",
            lineterm="",
            n=2,
        )
        pytest.fail(f"opening labs/{lab} in JupyterLab and saving it changes the file:\n" + "\n".join(list(diff)[:80]))


# ---------------------------------------------------------------------------------------------
# Notebook 7


@pytest.mark.parametrize("lab", LABS)
def test_lab_charts_draw_in_notebook7(live_server, live_runs, lab):
    if not live_server.has_notebook7():
        pytest.skip(
            "Jupyter Notebook 7 is not installed here (the `notebook` package; "
            "pip install -r requirements.txt): /notebooks/... is not served"
        )
    run = live_runs(lab, ui="notebook")
    problems = [f"{_where(run, e['cell'])}: error output: {e['text']}" for e in run.errors]
    problems += [f"{run.path} code cell {i}: {name}: {text}" for i, name, text in run.saved_errors]
    if not run.charts:
        problems.append("no chart output at all after Run All Cells")
    problems += [
        f"chart {c['index']} in cell {c['cell']}: no svg or canvas"
        + (f" (it says {c['text'][:160]!r})" if c["text"] else "")
        for c in run.charts
        if not c["drawn"]
    ]
    problems += [f"{m['kind']} {m['label']!r} did not redraw its chart" for m in run.moves if not m["changed"]]
    problems += _empty_dropdowns(run)
    problems += [
        f"{_where(run, part['cell'])}: raw MyST or a placeholder: {marker!r}"
        for part in run.texts
        for marker in dict.fromkeys([m for m in RAW_MARKERS if m in part["text"]] + GLUE_NAME.findall(part["text"]))
    ]
    if run.external:
        problems.append(f"asked for other sites: {sorted(set(run.external))}")
    assert not problems, f"{run.path} in Notebook 7:\n" + "\n".join(problems)
