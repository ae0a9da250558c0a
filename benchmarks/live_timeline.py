"""Where a panel's live wait goes: each output's first and last change, and the browser's long tasks.

``benchmarks/run.py live`` gives one figure per move (from the move to every output showing the new state). This
script splits one lab's moves into what the browser did, to find the floor a change in Python cannot
lower: in a real JupyterLab (the live tests' server and headless Chromium, network cut off), it
opens the lab, runs all cells, and for each of ``MOVES`` moves of the panel's first control of the
kind asked (``clock`` is lab 07's "+5 min" button) records, in milliseconds from the move:

- for each output after the controls (numbered as JupyterLab's output area numbers them, the
  controls' own output first), the first and the last DOM change in it: the first is when the
  kernel's new output arrived (its Python-side update plus the round trip), the last when it was
  drawn;
- the main thread's long tasks (over 50 ms; Chromium's Long Tasks API): a Vega-Lite chart's
  compile, draw and JupyterLab's PNG copy of it run as one;
- inside them, when each chart was put in the page (a Vega view's canvas or SVG added to an
  output) and when each PNG copy was made (a canvas turned into a data URL): JupyterLab's Vega
  renderer draws a chart, copies it to a PNG that it adds to the output, and, because the output
  changed, draws the chart again, all in that one task, so nothing is painted before its end.

The run cache is left as the lab leaves it (on), so a clock step of lab 07 reuses its chain run as a
player's does; set ``LABSUPPORT_RUN_CACHE=0`` to make every move run its model.

Usage::

    python benchmarks/live_timeline.py 02-dwfm-collapse.ipynb checkbox
    python benchmarks/live_timeline.py 07-game-day.ipynb clock

Needs what ``bench_live`` needs (Chromium, Playwright's Python package, JupyterLab).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "browser"))

import bench_live

MOVES = 4

_INSTALL = (
    "(index) => {"
    + bench_live._OUTPUTS
    + """
  window.__lsTimeline = {t0: 0, events: [], long: [], draws: [], pngs: []};
  const outs = outputsOf(index);
  const area = outs[0].closest('.jp-OutputArea');
  const children = () => [...area.querySelectorAll(':scope > .jp-OutputArea-child')];
  const indexOf = (node) => {
    const el = node.nodeType === 1 ? node : node.parentElement;
    const child = el && el.closest('.jp-OutputArea-child');
    return child ? children().indexOf(child) : -1;
  };
  // Every change, by output; and each chart drawn in an output (a Vega view's canvas or SVG put
  // in the page).
  new MutationObserver(ms => {
    const t = performance.now();
    for (const m of ms) {
      window.__lsTimeline.events.push([indexOf(m.target), t]);
      for (const n of m.addedNodes) if (n.nodeType === 1 && n.matches(DRAWING)) window.__lsTimeline.draws.push(t);
    }
  }).observe(area, {subtree: true, childList: true});
  // Each PNG copy (a canvas turned into a data URL, as @jupyterlab/vega5-extension does after
  // drawing a chart whose output has no PNG; its headless canvas is never in the page).
  if (!window.__lsToDataURL) {
    window.__lsToDataURL = HTMLCanvasElement.prototype.toDataURL;
    HTMLCanvasElement.prototype.toDataURL = function (...args) {
      const url = window.__lsToDataURL.apply(this, args);
      window.__lsTimeline.pngs.push(performance.now());
      return url;
    };
  }
  new PerformanceObserver(list => {
    for (const e of list.getEntries()) window.__lsTimeline.long.push([e.startTime, e.duration]);
  }).observe({type: 'longtask'});
  return outs.length;
}"""
)
_RESET = (
    "() => { const s = window.__lsTimeline;"
    " s.events = []; s.long = []; s.draws = []; s.pngs = []; s.t0 = performance.now(); }"
)


def main(lab: str, kind: str) -> int:
    import live  # tests/browser/live.py
    from playwright.sync_api import sync_playwright

    chromium = bench_live._chromium()
    if chromium is None:
        print("no Chromium: apt-get install chromium or set CHROMIUM", file=sys.stderr)
        return 2
    with live.LiveServer() as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=live.LAUNCH_ARGS)
        run = live.LabRun(server.fresh_copy(lab, "labs"))
        context, page = live.new_page(browser, run)
        try:
            live.open_notebook(page, server, run.path)
            live.run_all(page, server)
            live.wait_charts_settled(page)
            live.read_page(page, run)
            cell = run.panels[0]["cell"]
            print(f"{lab}: {page.evaluate(_INSTALL, cell)} outputs after the controls; times in ms from the move")
            for i in range(MOVES):
                control = bench_live.control_of(page, live, cell, bench_live.CLOCK_STEP if kind == "clock" else kind)
                control.scroll_into_view_if_needed()
                time.sleep(1)
                page.evaluate(_RESET)
                control.click()
                time.sleep(3)
                got = page.evaluate("() => window.__lsTimeline")
                spans: dict[int, list[float]] = {}
                for index, t in got["events"]:
                    span = spans.setdefault(index, [t, t])
                    span[0], span[1] = min(span[0], t), max(span[1], t)
                outputs = ", ".join(
                    f"output {k}: {v[0] - got['t0']:.0f}-{v[1] - got['t0']:.0f}" for k, v in sorted(spans.items())
                )
                tasks = ", ".join(f"{s - got['t0']:.0f}+{d:.0f}" for s, d in got["long"])
                draws = ", ".join(f"{t - got['t0']:.0f}" for t in got["draws"]) or "none"
                pngs = ", ".join(f"{t - got['t0']:.0f}" for t in got["pngs"]) or "none"
                print(f"  move {i + 1}: {outputs}; long tasks (start+length): {tasks or 'none'}")
                print(f"          charts put in the page at: {draws}; PNG copies at: {pngs}")
        finally:
            context.close()
            browser.close()
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[2] not in ("checkbox", "slider", "dropdown", "clock"):
        sys.exit(__doc__.split("Usage::")[1].split("Needs")[0])
    sys.exit(main(sys.argv[1], sys.argv[2]))
