"""Speed figures of the exhaustive explorer (issue 7): default check, 16-row table, states per second, and
a student's Enactor step (lab 08): the checker replaying it, and the race running it over 50 seeds.

Run through ``python benchmarks/run.py explore``; ``figures()`` returns the rows. The lab's widget
update is timed by the ``labs`` group.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

from _timing import once_with_memory, repeat

from labsupport import enactor, explore

#: The largest state space the lab's controls reach below the widget's bound (3 Enactors,
#: 5 generations, 2 endpoints, no guard).
LARGE = replace(explore.INCIDENT, generation_count=5, endpoint_count=2)


def _default_rows() -> list[dict]:
    t = repeat(lambda: explore.run(explore.INCIDENT), runs=15, warmup=2)
    s = explore.run(explore.INCIDENT).summary
    return [
        {
            "figure": "explore default check (3 Enactors, 4 plans, 1 endpoint), median",
            "value": t["median"],
            "unit": "s",
            "target": 5.0,
            "better": "lower",
            "note": f"p90 {t['p90']:.4f} s; {s.states_count:,} states, {s.transitions_count:,} transitions, "
            "every interleaving, symmetry reduced",
        },
        {
            "figure": "explore default check, no symmetry reduction, median",
            "value": repeat(lambda: explore.run(replace(explore.INCIDENT, reduce_symmetry=False)), runs=5)["median"],
            "unit": "s",
            "target": 5.0,
            "better": "lower",
            "note": f"{explore.run(replace(explore.INCIDENT, reduce_symmetry=False)).summary.states_count:,} states",
        },
    ]


def _table_rows() -> list[dict]:
    t = repeat(lambda: explore.verdict_table(), runs=5, warmup=1)
    with ProcessPoolExecutor(max_workers=2) as pool:
        tp = repeat(lambda: explore.verdict_table(explore.INCIDENT, executor=pool), runs=5, warmup=1)
    seconds, peak_mib, table = once_with_memory(lambda: explore.verdict_table(replace(LARGE, enactor_count=2)))
    return [
        {
            "figure": "explore 16-combination table, default bounds, median",
            "value": t["median"],
            "unit": "s",
            "target": 60.0,
            "better": "lower",
            "note": f"p90 {t['p90']:.3f} s; one process",
        },
        {
            "figure": "explore 16-combination table, 2-process executor, median",
            "value": tp["median"],
            "unit": "s",
            "target": 60.0,
            "better": "lower",
            "note": "ProcessPoolExecutor(max_workers=2)",
        },
        {
            "figure": "explore 16-combination table, 2 Enactors 5 plans 2 endpoints",
            "value": seconds,
            "unit": "s",
            "target": 60.0,
            "better": "lower",
            "note": f"{int(table['states_count'].sum()):,} states in all; peak traced memory {peak_mib:.0f} MiB",
        },
    ]


def _speed_rows() -> list[dict]:
    t = repeat(lambda: explore.run(LARGE), runs=3, warmup=1)
    s = explore.run(LARGE).summary
    t0 = repeat(lambda: explore.run(explore.INCIDENT), runs=15)
    s0 = explore.run(explore.INCIDENT).summary
    return [
        {
            "figure": "explore states per second (3 Enactors, 5 plans, 2 endpoints)",
            "value": s.states_count / t["median"],
            "unit": "states/s",
            "target": None,
            "better": "higher",
            "note": f"{s.states_count:,} states, {s.transitions_count:,} transitions; median {t['median']:.2f} s "
            "for the whole check (search, reverse reachability, path tables)",
        },
        {
            "figure": "explore states per second (default check)",
            "value": s0.states_count / t0["median"],
            "unit": "states/s",
            "target": None,
            "better": "higher",
            "note": f"{s0.states_count:,} states; small, so fixed costs weigh more",
        },
    ]


def _step_rows() -> list[dict]:
    t = repeat(lambda: explore.run(explore.INCIDENT_STEP), runs=5, warmup=1)
    s = explore.run(explore.INCIDENT_STEP).summary
    seeds = repeat(lambda: explore.race_seeds(enactor.incident_step, range(50)), runs=3, warmup=0)
    return [
        {
            "figure": "explore, the incident's Enactor step replayed (2 Enactors, 4 plans, 1 endpoint), median",
            "value": t["median"],
            "unit": "s",
            "target": 5.0,
            "better": "lower",
            "note": f"{s.states_count:,} states; the step re-run from its start per new history of replies",
        },
        {
            "figure": "race, the incident's Enactor step over 50 seeds (one hour each), median",
            "value": seeds["median"],
            "unit": "s",
            "target": 30.0,
            "better": "lower",
            "note": "each resumption of the step traced within the step budget",
        },
    ]


def figures() -> list[dict]:
    """Measure and return the explorer's speed rows (see ``benchmarks/run.py`` for the format)."""
    return [*_default_rows(), *_table_rows(), *_speed_rows(), *_step_rows()]
