"""The Python side of one panel update, as the kernel does it; optionally its profile.

For each lab panel: build it, display it in an IPython shell (as a kernel would, so each change
formats every output's MIME bundle through IPython's display formatter: each chart's Vega-Lite
spec, each table's HTML), then time ``panel.update(**panel.values())``, which re-runs the model,
builds the charts and sends every output's new bundle (the panel first forgets what its outputs
show, so that its tables and texts are sent too, as on a move that changes each of them; the same
values again would leave them unsent). Median of 7 after 2 warm-ups. Before
each timed update the package's model-run caches are emptied (``labsupport.clear_caches``, where
the package has it), so every update runs its model: a learner's first visit to a setting. The
``warm`` column is the same update with the caches kept (a setting seen before; median of 3
after 1). ``model`` is the model's run alone for the panel's default config (the floor; median of
3 after 1).

Lab 07's game is timed as a player meets it (``--game``), with the run cache on, as a player's
kernel has it: each figure is the median of :data:`GAME_MOVES` clicks of the panel's own buttons,
from 4:03 AM of AWS's night: a *step* (+5 min: the chain run of the actions taken is reused), a
*status update* (the live benchmark's "action, as played": the chain run is reused too), and two
actions that re-run models: *disable failover* (the NLB) and *restart DWFM* (DWFM, Network Manager,
the NLB). Each re-running action is undone at once (back to a run seen before) and the clock
stepped, so that every timed click is a new run. Each figure comes twice: wall-clock seconds, and
this process's CPU seconds (``, CPU``), the one to compare when other work shares the machine.

Usage::

    python benchmarks/panel_update.py                      # this checkout
    python benchmarks/panel_update.py --src /tmp/other     # another checkout's labsupport
    python benchmarks/panel_update.py --profile dwfm       # cProfile of one update, top 25
    python benchmarks/panel_update.py --game               # lab 07's step and actions, as played

It is a standalone script (not a ``run.py`` group) so that it can time an older checkout, whose
``labsupport`` it imports from ``--src``, with this same code.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

RUNS, WARMUP = 7, 2


def _panels() -> dict[str, tuple[Callable[[], Any], Callable[[], Any]]]:
    """panel name -> (panel factory, the model run alone at the panel's defaults)."""
    from dataclasses import replace

    from labsupport import chain, dns_cache, dwfm, explore, nlb, race, timeline, widgets

    return {
        "timeline": (widgets.timeline_panel, lambda: timeline.load()),
        "race": (widgets.race_panel, lambda: race.run(race.INCIDENT)),
        "dwfm": (widgets.dwfm_panel, lambda: dwfm.run(replace(dwfm.INCIDENT, throttle_by_queue_length=False))),
        "nlb": (widgets.nlb_panel, lambda: nlb.run(nlb.INCIDENT)),
        "dns": (widgets.dns_panel, lambda: dns_cache.run(dns_cache.INCIDENT)),
        "chain": (widgets.chain_panel, lambda: chain.run(chain.INCIDENT)),
        "explore": (widgets.explore_panel, lambda: explore.run(replace(explore.INCIDENT, max_states=400_000))),
    }


#: Each lab notebook's panel, as named here.
LAB_PANELS = {"00": "timeline", "01": "race", "02": "dwfm", "03": "nlb", "04": "dns", "05": "chain", "06": "explore"}


def _shell() -> Any:
    """An IPython shell whose display publisher keeps the bundles instead of printing them."""
    from IPython.core.displaypub import DisplayPublisher
    from IPython.core.interactiveshell import InteractiveShell

    class Keep(DisplayPublisher):
        def publish(self, data, metadata=None, source=None, *, transient=None, update=False, **kw):  # noqa: ANN001
            pass  # the bundle was built (that is what is timed); a front end would draw it

    shell = InteractiveShell.instance()
    shell.display_pub = Keep(shell=shell)
    return shell


def _clear() -> None:
    # The model-run memo: labsupport._memo (older checkouts: labsupport.widgets._runs, or none).
    for name in ("labsupport._memo", "labsupport.widgets._runs"):
        clear = getattr(sys.modules.get(name), "clear_run_cache", None)
        if clear is not None:
            clear()


def _forget(panel: Any) -> None:
    """Make the panel send every output on its next update, as a move that changes each of them does.

    The same values every time would otherwise leave its tables and texts unsent (a panel does not
    send again one equal to what its output shows), and the figure would leave out their HTML."""
    panel._sent = [None] * len(panel._sent)


def _median(
    fn: Callable[[], Any], before: Callable[[], None] = lambda: None, *, runs: int = RUNS, warmup: int = WARMUP
) -> float:
    times = []
    for i in range(warmup + runs):
        before()
        t0 = time.perf_counter()
        fn()
        if i >= warmup:
            times.append(time.perf_counter() - t0)
    return statistics.median(times)


def measure(names: list[str], *, warm: bool = True) -> dict[str, dict[str, float]]:
    from IPython.display import display

    _shell()
    out = {}
    for name in names:
        factory, model = _panels()[name]
        panel = factory()
        display(panel)
        values = panel.values()

        def change(panel: Any = panel, values: dict = values) -> None:
            panel.update(**values)

        def cold(panel: Any = panel) -> None:
            _clear()
            _forget(panel)

        out[name] = {"cold": _median(change, cold)}
        if warm:
            out[name]["warm"] = _median(change, lambda panel=panel: _forget(panel), runs=3, warmup=1)
        out[name]["model"] = _median(model, runs=3, warmup=1)
        print(f"{name}: " + ", ".join(f"{k} {v:.3f} s" for k, v in out[name].items()), file=sys.stderr, flush=True)
    return out


def profile(name: str, top: int = 25) -> str:
    from IPython.display import display

    _shell()
    panel = _panels()[name][0]()
    display(panel)
    values = panel.values()
    for _ in range(WARMUP):
        _clear()
        _forget(panel)
        panel.update(**values)
    _clear()
    _forget(panel)
    prof = cProfile.Profile()
    prof.enable()
    panel.update(**values)
    prof.disable()
    text = io.StringIO()
    pstats.Stats(prof, stream=text).sort_stats("cumulative").print_stats(top)
    return text.getvalue()


#: Clicks timed per kind of game move.
GAME_MOVES = 9


def measure_game(moves: int = GAME_MOVES) -> dict[str, float]:
    """Lab 07's panel as played: median seconds of a clock step, a status update and two model re-runs."""
    from IPython.display import display

    from labsupport import game, widgets

    _shell()
    start = 51 * 300.0  # 4:03 AM: the clock moves in 5-minute steps from 11:48 PM
    panel = widgets.game_panel(
        game.GameConfig(actions=((1380.0, "communicate"), (9420.0, "repair_dns")), clock_s=start)
    )
    display(panel)
    kinds = ("step", "status update", "disable failover", "restart DWFM")
    timed: dict[str, list[float]] = {k: [] for k in (*kinds, *(f"{k}, CPU" for k in kinds))}

    def button(name: str) -> Any:
        """The button a player clicks for an action: the panel's own (before the game had systems), or
        the verb's once the system is chosen (its redraw is a move of its own, untimed)."""
        if hasattr(panel, "buttons"):
            return panel.buttons[name]
        action = next(a for a in game.ACTIONS if a.name == name)
        if action.system:
            panel.system.value = action.system
        return panel.verbs[action.verb]

    def click(target: Any, kind: str | None = None) -> None:
        t0, c0 = time.perf_counter(), time.process_time()
        target.click()
        if kind is not None:  # wall clock, and this process's CPU (the figure to compare on a busy machine)
            timed[kind].append(time.perf_counter() - t0)
            timed[f"{kind}, CPU"].append(time.process_time() - c0)

    for _ in range(moves):
        click(panel.steps[300.0], "step")
        click(button("communicate"), "status update")
        for name, kind in (("disable_failover", "disable failover"), ("restart_dwfm", "restart DWFM")):
            click(button(name), kind)
            click(button("undo"))
    out = {kind: statistics.median(times) for kind, times in timed.items()}
    print("game: " + ", ".join(f"{k} {v:.3f} s" for k, v in out.items()), file=sys.stderr, flush=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", help="a checkout whose labsupport to time (default: this one)")
    parser.add_argument("--profile", help="print the cProfile of one update of this panel instead")
    parser.add_argument("--no-warm", action="store_true", help="leave out the updates with the cache kept")
    parser.add_argument("--game", action="store_true", help="time lab 07's game as played instead (see above)")
    parser.add_argument(
        "panels", nargs="*", default=["race", "dwfm", "nlb", "chain"], help=f"of {sorted(LAB_PANELS.values())}"
    )
    args = parser.parse_args()
    sys.path.insert(0, str(Path(args.src or Path(__file__).resolve().parents[1]).resolve()))
    with contextlib.redirect_stdout(io.StringIO()):
        import labsupport  # noqa: F401  (imported from --src first)
    if args.profile:
        print(profile(args.profile))
        return 0
    if args.game:
        print(json.dumps({"game": measure_game()}))
        return 0
    print(json.dumps(measure(args.panels, warm=not args.no_warm)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
