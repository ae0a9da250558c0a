"""Speed of the DNS plan race model: one widget change, the 16-combination sweep, events per second.

Run with ``python benchmarks/run.py race``. Targets come from issue 3: one incident run plus the
charts of one widget change under 0.3 s (median), the 16-combination sweep under 5 s.
"""

from __future__ import annotations

import time
from dataclasses import replace

import simpy

from _timing import once_with_memory, repeat
from labsupport import race, widgets


def _widget_change() -> None:
    """What the lab's panel does when a checkbox changes: run the model, build and serialise the charts."""
    cfg = replace(race.INCIDENT, guards=race.Guards(self_repair=True))
    for item in widgets.race_view(cfg)[1:]:
        item.to_dict()


def _bare_simpy(n: int) -> int:
    env = simpy.Environment()

    def ticker(env: simpy.Environment):
        for _ in range(n):
            yield env.timeout(1.0)

    env.process(ticker(env))
    env.run()
    return n


def _per_second(fn, count: int, runs: int = 5) -> float:
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return count / best


def figures() -> list[dict]:
    """Measure the race figures; see ``benchmarks/run.py`` for the row format."""
    rows = []
    widget = repeat(_widget_change, runs=15, warmup=2)
    rows.append({"figure": "incident run + charts for one widget change (median)", "value": widget["median"],
                 "unit": "s", "target": 0.3, "better": "lower", "note": f"p90 {widget['p90']:.3f} s"})
    run_only = repeat(lambda: race.run(race.INCIDENT), runs=15, warmup=1)
    rows.append({"figure": "incident run alone (median)", "value": run_only["median"], "unit": "s",
                 "target": None, "better": "lower"})
    sweep = repeat(race.guard_table, runs=3, warmup=1)
    rows.append({"figure": "16-combination guard sweep (median)", "value": sweep["median"], "unit": "s",
                 "target": 5.0, "better": "lower", "note": "in-process, no executor"})
    explorer = repeat(race.guard_explorer_data, runs=3, warmup=0)
    rows.append({"figure": "guard explorer data, 16 runs binned (median)", "value": explorer["median"],
                 "unit": "s", "target": None, "better": "lower"})
    n_events = len(race.run(race.INCIDENT).events)
    model_rate = _per_second(lambda: race.run(race.INCIDENT), n_events)
    bare_rate = _per_second(lambda: _bare_simpy(n_events), n_events)
    rows.append({"figure": "model: logged events per second", "value": model_rate, "unit": "events/s",
                 "target": None, "better": "higher", "note": f"{n_events} events in the incident run"})
    rows.append({"figure": "bare simpy timeout loop: events per second", "value": bare_rate, "unit": "events/s",
                 "target": None, "better": "higher",
                 "note": f"same count; the model is {bare_rate / model_rate:.1f}x slower per logged event"})
    _, peak_mib, _ = once_with_memory(lambda: race.run(race.INCIDENT))
    rows.append({"figure": "incident run: peak traced memory", "value": peak_mib, "unit": "MiB",
                 "target": None, "better": "lower"})
    return rows
