"""Events per second of every simpy model, next to a bare simpy loop measured in the same run.

An *event* is one step of a simpy environment (``Environment.step``): the same unit for every model
and for the bare loop, which does nothing but ``yield env.timeout(1)``. Each model's events are
counted in one extra run with ``Environment.step`` wrapped by a counter; its time is the median
of unwrapped runs.

The ratio bare/model is the model's overhead per event (target: at most 5x), measured on the
incident's run, the run a lab makes; a run scaled up about four times (x4: a longer run, a bigger
fleet with the same load per host, or checks four times as often) shows how the rate holds up.
Some models make one event do a lot of work (a DWFM host round of up to ten items, an NLB probe
round of every target of an AZ); where the result says how much, a row per unit of work is added.

The capstone chain is not listed: it runs these same models, whose events are counted here.
Adding a simpy model is one line in :data:`MODELS`.
"""

from __future__ import annotations

import functools
import importlib
import statistics
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import simpy
from _timing import repeat

#: name -> (module, ``config(module, k)``: the incident scaled k times). A model that runs another
#: (nlb runs network) counts the events of both.
MODELS: dict[str, tuple[str, Callable[[Any, int], Any]]] = {
    "race": ("labsupport.race", lambda m, k: replace(m.INCIDENT, horizon_s=m.INCIDENT.horizon_s * k)),
    "dwfm": (
        "labsupport.dwfm",
        lambda m, k: replace(m.INCIDENT, fleet_droplets_count=6_600 * k, dwfm_hosts_count=8 * k),
    ),
    "network": (
        "labsupport.network",
        lambda m, k: replace(
            m.INCIDENT,
            backlog_count=318 * k,
            retry_launches_count=627 * k,
            launch_rate_per_min=3.0 * k,
            propagation_rate_per_min=6.0 * k,
        ),
    ),
    "nlb": (
        "labsupport.nlb",
        lambda m, k: replace(m.INCIDENT, health_check_interval_s=30.0 / k, sample_interval_s=60.0 / k),
    ),
}
SCALE = 4

#: Work that one event of a model stands for: name -> (result -> count, what is counted, note).
WORK: dict[str, tuple[Callable[[Any], int], str]] = {
    "dwfm": (lambda r: r.summary.started_count, "work item started"),
}
NOTES = {
    "dwfm": "one event is a host round of up to host_concurrency_count items, or a state check of a "
    "cohort of droplets (numpy); see the per-work-item row",
    "nlb": "one prober event probes every registered target of an AZ (vectorised); the network run's "
    "events are included",
}

BARE_EVENTS = 200_000
OVERHEAD_TARGET = 5.0


def count_steps(fn: Callable[[], Any]) -> int:
    """Run ``fn`` once with every simpy ``Environment.step`` counted; return the count."""
    original = simpy.core.Environment.step
    count = 0

    def counted(self):
        nonlocal count
        count += 1
        return original(self)

    simpy.core.Environment.step = counted
    try:
        fn()
    finally:
        simpy.core.Environment.step = original
    return count


def bare_loop(n: int = BARE_EVENTS) -> None:
    env = simpy.Environment()

    def ticker(env: simpy.Environment):
        for _ in range(n):
            yield env.timeout(1.0)

    env.process(ticker(env))
    env.run()


def rate(fn: Callable[[], Any], runs: int) -> tuple[float, int, float, Any]:
    """(events per second, events per run, median seconds per run, the last result)."""
    events = count_steps(fn)
    seconds = repeat(fn, runs=runs, warmup=1)["median"]
    return events / seconds, events, seconds, fn()


def figures() -> list[dict]:
    """Measure and return the rows (see ``benchmarks/run.py`` for the format)."""
    bare_rates = []
    rows = []
    # The bare loop is measured before and after the models; the median of the two guards against a
    # machine that speeds up or slows down while the models run.
    bare_rates.append(rate(bare_loop, runs=5)[0])
    model_rates = {}
    for name, (module, config) in MODELS.items():
        mod = importlib.import_module(module)
        model_rates[name] = [
            rate(functools.partial(mod.run, config(mod, k)), runs=15 if k == 1 else 5) for k in (1, SCALE)
        ]
    bare_rates.append(rate(bare_loop, runs=5)[0])
    bare = statistics.median(bare_rates)
    rows.append(
        {
            "figure": "bare simpy loop (timeouts only)",
            "value": bare,
            "unit": "events/s",
            "target": None,
            "better": "higher",
            "note": f"{BARE_EVENTS:,} timeouts; measured before and after the models "
            f"({bare_rates[0]:,.0f} and {bare_rates[1]:,.0f}), median",
        }
    )
    for name, ((per_s, events, seconds, result), (per_s_k, events_k, seconds_k, _)) in model_rates.items():
        rows.append(
            {
                "figure": f"{name}: simpy events/s (incident run)",
                "value": per_s,
                "unit": "events/s",
                "target": None,
                "better": "higher",
                "note": f"{events:,} events in {seconds:.3f} s, median of 15; x{SCALE} run: {events_k:,} "
                f"events in {seconds_k:.3f} s ({per_s_k:,.0f}/s)",
            }
        )
        rows.append(
            {
                "figure": f"{name}: overhead per event vs the bare loop",
                "value": bare / per_s,
                "unit": "x",
                "target": OVERHEAD_TARGET,
                "better": "lower",
                "note": NOTES.get(name, f"x{SCALE} run: {bare / per_s_k:.1f}x"),
            }
        )
        if name in WORK:
            count, what = WORK[name]
            work = count(result)
            rows.append(
                {
                    "figure": f"{name}: overhead per {what} vs a bare-loop event",
                    "value": bare * seconds / work,
                    "unit": "x",
                    "target": OVERHEAD_TARGET,
                    "better": "lower",
                    "note": f"{work:,} in {seconds:.3f} s",
                }
            )
    return rows
