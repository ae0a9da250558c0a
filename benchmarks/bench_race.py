"""Speed of the DNS plan race model: one incident run, the guard sweeps, the seed sweep.

Run with ``python benchmarks/run.py race``. Targets come from issue 3: the 16-combination sweep
under 5 s. The lab's widget update is timed by the ``labs`` group, events per second against a
bare simpy loop by ``simpy``, and the region-scale run by ``scale``.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor

from _timing import repeat

from labsupport import race


def figures() -> list[dict]:
    """Measure the race figures; see ``benchmarks/run.py`` for the row format."""
    rows = []
    run_only = repeat(lambda: race.run(race.INCIDENT), runs=15, warmup=1)
    rows.append(
        {
            "figure": "incident run alone (median)",
            "value": run_only["median"],
            "unit": "s",
            "target": None,
            "better": "lower",
            "note": f"p90 {run_only['p90']:.3f} s",
        }
    )
    sweep = repeat(race.guard_table, runs=3, warmup=1)
    rows.append(
        {
            "figure": "16-combination guard sweep (median)",
            "value": sweep["median"],
            "unit": "s",
            "target": 5.0,
            "better": "lower",
            "note": "in-process, no executor",
        }
    )
    with ProcessPoolExecutor(max_workers=2) as pool:
        pooled = repeat(lambda: race.guard_table(executor=pool), runs=3, warmup=1)
    rows.append(
        {
            "figure": "16-combination guard sweep, 2-process executor (median)",
            "value": pooled["median"],
            "unit": "s",
            "target": 5.0,
            "better": "lower",
            "note": "ProcessPoolExecutor(max_workers=2)",
        }
    )
    explorer = repeat(race.guard_explorer_data, runs=3, warmup=0)
    rows.append(
        {
            "figure": "guard explorer data, 16 runs binned (median)",
            "value": explorer["median"],
            "unit": "s",
            "target": None,
            "better": "lower",
        }
    )
    seeds = repeat(lambda: race.seed_sweep(race.INCIDENT, range(50)), runs=3, warmup=0)
    rows.append(
        {
            "figure": "seed sweep, 50 seeds (median)",
            "value": seeds["median"],
            "unit": "s",
            "target": None,
            "better": "lower",
            "note": "in-process",
        }
    )
    return rows
