"""Speed of the capstone chain: one run plus redraw, the 64-combination sweep, and its parts.

Run with ``python benchmarks/run.py chain``. Targets come from issue 6: one capstone run plus the
redraw of one checkbox change under 1 s (median), the 64-combination sweep under 60 s.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

from _timing import once_with_memory, repeat

from labsupport import _memo, chain, charts, dependencies, dwfm, network, nlb, race, widgets


def _checkbox_change(incident: chain.ChainResult) -> None:
    """What the lab's panel does when a box changes: run the chain, build and serialise the view."""
    cfg = replace(chain.INCIDENT, stop_points=chain.StopPoints.of(5))
    for item in widgets.chain_view(cfg, reference=incident)[1:2]:
        item.to_dict()


def _cpus() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def figures() -> list[dict]:
    """Measure the chain figures; see ``benchmarks/run.py`` for the row format."""
    rows = []
    incident = chain.run(chain.INCIDENT)
    change = repeat(lambda: _checkbox_change(incident), runs=7, warmup=1)
    rows.append(
        {
            "figure": "capstone run + redraw, stop point 5 on beside the incident (median)",
            "value": change["median"],
            "unit": "s",
            "target": 1.0,
            "better": "lower",
            "note": f"p90 {change['p90']:.3f} s; the labs group times the panel at its defaults",
        }
    )
    alone = repeat(lambda: chain.run(chain.INCIDENT), runs=7, warmup=0)
    rows.append(
        {
            "figure": "incident chain run alone (median)",
            "value": alone["median"],
            "unit": "s",
            "target": None,
            "better": "lower",
        }
    )
    parts = {
        "race": lambda: race.run(race.INCIDENT),
        "dwfm": lambda: dwfm.run(dwfm.INCIDENT),
        "network": lambda: network.run(network.INCIDENT),
        "nlb (runs network too)": lambda: nlb.run(nlb.INCIDENT),
        "dependency query": lambda: dependencies.blast_radius("DynamoDB", "us-east-1"),
    }
    for name, fn in parts.items():
        t = repeat(fn, runs=5, warmup=1)
        rows.append(
            {"figure": f"  part: {name} (median)", "value": t["median"], "unit": "s", "target": None, "better": "lower"}
        )

    def cold_sweep() -> None:  # a first sweep: nothing in the model-run memo (labsupport/_memo.py)
        _memo.clear_run_cache()
        chain.stop_point_table()

    sweep = repeat(cold_sweep, runs=2, warmup=0)
    rows.append(
        {
            "figure": "64-combination sweep, in-process, memo cleared first (median)",
            "value": sweep["median"],
            "unit": "s",
            "target": 60.0,
            "better": "lower",
            "note": "32 distinct chain runs (stop point 6 changes none), sharing 16 race, 6 DWFM and 5 NLB runs",
        }
    )
    os.environ[_memo.RUN_CACHE_ENV] = "0"
    try:
        unmemoised = repeat(chain.stop_point_table, runs=1, warmup=0)
    finally:
        del os.environ[_memo.RUN_CACHE_ENV]
    rows.append(
        {
            "figure": "  the same sweep with the memo off (every sub-run runs)",
            "value": unmemoised["median"],
            "unit": "s",
            "target": None,
            "better": "lower",
        }
    )
    with ProcessPoolExecutor(_cpus()) as pool:
        pooled = repeat(lambda: chain.stop_point_table(executor=pool), runs=1, warmup=0)
    rows.append(
        {
            "figure": f"64-combination sweep, {_cpus()} processes",
            "value": pooled["median"],
            "unit": "s",
            "target": 60.0,
            "better": "lower",
        }
    )
    table = chain.stop_point_table()
    explorer = repeat(lambda: charts.chain_explorer_chart(table).to_dict(), runs=5, warmup=1)
    rows.append(
        {
            "figure": "in-page explorer chart from the sweep (median)",
            "value": explorer["median"],
            "unit": "s",
            "target": None,
            "better": "lower",
        }
    )
    _, peak_mib, _ = once_with_memory(lambda: chain.run(chain.INCIDENT))
    rows.append(
        {
            "figure": "incident chain run: peak traced memory",
            "value": peak_mib,
            "unit": "MiB",
            "target": None,
            "better": "lower",
            "note": "the scale group runs it at region scale",
        }
    )
    return rows
