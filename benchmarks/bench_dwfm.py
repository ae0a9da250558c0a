"""Speed figures of the DWFM lease-collapse model (issue 4): widget, region scale, sweeps, events/s.

Run through ``python benchmarks/run.py dwfm``; ``figures()`` returns the rows.
"""

from __future__ import annotations

import contextlib
import io
import random
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

import simpy

from _timing import once_with_memory, repeat
from labsupport import _dwfm_sim, dwfm, dwfm_sweep, widgets

#: The region-scale run: 100,000 droplets with the incident's load per DWFM host (825 droplets),
#: no operators, so the collapse lasts all 15 simulated hours (the most work the model can do).
REGION = replace(dwfm.INCIDENT, fleet_droplets_count=100_000, dwfm_hosts_count=121,
                 operator_restart_at_s=None, operator_throttle_at_s=None)


def _widget_row() -> dict:
    with contextlib.redirect_stdout(io.StringIO()):  # outside a kernel, display() prints
        panel = widgets.dwfm_panel()
    values = panel.values()
    flip = [dict(values, throttle_by_queue_length=t, fleet_droplets_count=n)
            for t in (False, True) for n in (values["fleet_droplets_count"], 9_000)]
    state = {"i": 0}

    def change() -> None:
        v = flip[state["i"] % len(flip)]
        state["i"] += 1
        with contextlib.redirect_stdout(io.StringIO()):  # outside a kernel, display() prints
            items = panel.update(**v)
        items[0].to_dict()  # the chart's full Vega-Lite spec, as the front end receives it

    t = repeat(change, runs=15, warmup=2)
    return {"figure": "dwfm widget change (run + chart spec), median", "value": t["median"], "unit": "s",
            "target": 0.5, "better": "lower",
            "note": f"p90 {t['p90']:.3f} s; {values['fleet_droplets_count']:,} and 9,000 droplets, "
                    "throttle off/on, 15 simulated hours"}


def _count_events(cfg: dwfm.DwfmConfig) -> tuple[int, float, int]:
    """Run the model step by step; return (simpy events, seconds, work items started)."""
    model = _dwfm_sim._Model(cfg, random.Random(cfg.seed))
    env, events = model.env, 0
    t0 = time.perf_counter()
    while env.peek() < cfg.horizon_s:
        env.step()
        events += 1
    return events, time.perf_counter() - t0, model.counts["started"]


def _bare_simpy(n: int = 300_000) -> float:
    env = simpy.Environment()

    def ticker(env):
        for _ in range(n):
            yield env.timeout(1)

    env.process(ticker(env))
    t0 = time.perf_counter()
    env.run()
    return n / (time.perf_counter() - t0)


def figures() -> list[dict]:
    rows = [_widget_row()]

    region_s = repeat(lambda: dwfm.run(REGION), runs=3, warmup=0)["median"]
    _, peak_mib, result = once_with_memory(lambda: dwfm.run(REGION))
    note = (f"{result.summary.started_count:,} work items started, {len(result.events):,} event rows; "
            "121 DWFM hosts, no operators")
    rows += [
        {"figure": "dwfm 100,000 droplets x 15 h, median of 3", "value": region_s, "unit": "s",
         "target": 30.0, "better": "lower", "note": note},
        {"figure": "dwfm 100,000 droplets x 15 h, peak traced memory", "value": peak_mib, "unit": "MiB",
         "target": 2048.0, "better": "lower", "note": "tracemalloc peak (Python and numpy allocations)"},
    ]

    t0 = time.perf_counter()
    grid = dwfm_sweep.sweep()
    rows.append({"figure": "dwfm sweep, in-process", "value": time.perf_counter() - t0, "unit": "s",
                 "target": None, "better": "lower",
                 "note": f"{len(grid)} runs: 8 fleet sizes x 5 outage lengths x throttle off/on"})
    with ProcessPoolExecutor(max_workers=2) as pool:
        t0 = time.perf_counter()
        dwfm_sweep.sweep(executor=pool)
        rows.append({"figure": "dwfm sweep, ProcessPoolExecutor(2)", "value": time.perf_counter() - t0,
                     "unit": "s", "target": None, "better": "lower", "note": "same rows, same order"})
    t0 = time.perf_counter()
    dwfm_sweep.explorer_grid()
    rows.append({"figure": "dwfm in-page explorer grid (10 runs)", "value": time.perf_counter() - t0,
                 "unit": "s", "target": None, "better": "lower"})

    events, seconds, items = _count_events(REGION)
    model_rate, bare_rate = events / seconds, _bare_simpy()
    rows += [
        {"figure": "dwfm model simpy events/s (region run)", "value": model_rate, "unit": "events/s",
         "target": None, "better": "higher",
         "note": f"{events:,} events; each is a host round of up to 10 items or a cohort check of "
                 f"{REGION.fleet_droplets_count // _dwfm_sim.COHORTS:,} droplets"},
        {"figure": "bare simpy timeout loop events/s (same run)", "value": bare_rate, "unit": "events/s",
         "target": None, "better": "higher"},
        {"figure": "dwfm overhead per simpy event vs bare loop", "value": bare_rate / model_rate,
         "unit": "x", "target": 5.0, "better": "lower",
         "note": "aggregated events carry many items each; see the per-item row"},
        {"figure": "dwfm overhead per work item vs bare simpy event", "value": bare_rate * seconds / items,
         "unit": "x", "target": 5.0, "better": "lower",
         "note": f"{items:,} items started (each also finishes) in {seconds:.2f} s"},
    ]
    return rows
