"""Each lab's widget panel in a real JupyterLab: from a click on a control to the chart redrawn.

The server and the page moves are the live browser test's (``tests/browser/live.py``): ``jupyter
lab`` from this environment on a temporary copy of the labs, headless Debian Chromium (``CHROMIUM``
or ``/usr/bin/chromium``; Playwright never downloads one) with the network cut off. Per lab that
has a widget panel: open it, Run All Cells, then 10 changes of the panel's first checkbox (clicks,
on and off in turn) or, if it has none, of its first slider (ArrowRight and ArrowLeft in turn).
Each change is timed from the click or key press until the nearest chart after the controls shows
a new drawing (kernel round trip, model run, Vega-Lite compile and draw). Median and p90;
targets: lab 01 0.3 s, lab 05 (the capstone) 1 s, the others 0.5 s (the widget-update targets of
``bench_labs``, which time the kernel side only). A change that never redraws counts as the
15 s timeout and says so in the note.

Needs Chromium, Playwright's Python package and JupyterLab; without them it prints why and gives
no rows.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))

CHANGES = 10
TARGETS = {"01": 0.3, "05": 1.0}
DEFAULT_TARGET = 0.5


def _chromium() -> str | None:
    for candidate in [os.environ.get("CHROMIUM"), "/usr/bin/chromium", "chromium", "chromium-browser"]:
        if candidate:
            found = (
                candidate if os.path.isfile(candidate) and os.access(candidate, os.X_OK) else shutil.which(candidate)
            )
            if found:
                return found
    return None


def _lab_rows(browser, server, live, lab: str) -> list[dict]:
    number = lab[:2]
    run = live.LabRun(server.fresh_copy(lab, "labs"))
    context, page = live.new_page(browser, run)
    try:
        live.open_notebook(page, server, run.path)
        live.run_all(page, server)
        live.wait_charts_settled(page)
        live.read_page(page, run)
        if not run.panels:
            return []
        panel = run.panels[0]
        kind = "checkbox" if panel["checkboxes"] else "slider"
        moves = [live.move_control(page, panel["cell"], kind, 0, key="ArrowRight" if i % 2 == 0 else "ArrowLeft")
                 for i in range(CHANGES)]
    finally:
        context.close()
        server.shutdown_kernels()
    times = sorted(m["seconds"] if m["changed"] else live.REDRAW_S for m in moves)
    missed = sum(not m["changed"] for m in moves)
    label = moves[0]["label"] or kind
    via = {m["via"] for m in moves}
    note = (f"{CHANGES} changes of {kind} {label!r} ({', '.join(sorted(via))}); click to new drawing of the "
            f"chart after the controls, in headless Chromium on this machine")
    if missed:
        note += f"; {missed} of {CHANGES} changes never redrew the chart (counted as {live.REDRAW_S:g} s)"
    return [
        {
            "figure": f"lab {number} live redraw in JupyterLab, median",
            "value": statistics.median(times),
            "unit": "s",
            "target": TARGETS.get(number, DEFAULT_TARGET),
            "better": "lower",
            "note": note,
        },
        {
            "figure": f"lab {number} live redraw in JupyterLab, p90",
            "value": times[min(len(times) - 1, int(0.9 * len(times)))],
            "unit": "s",
            "target": None,
            "better": "lower",
        },
    ]


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
    rows: list[dict] = []
    with live.LiveServer() as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=live.LAUNCH_ARGS)
        try:
            for lab in live.LABS:
                rows += _lab_rows(browser, server, live, lab)
        finally:
            browser.close()
    return rows


if __name__ == "__main__":
    for row in figures():
        print(row)
