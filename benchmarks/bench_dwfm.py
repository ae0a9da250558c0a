"""Speed figures of the DWFM lease-collapse model (issue 4): the sweeps behind the lab and the chapter.

Run through ``python benchmarks/run.py dwfm``; ``figures()`` returns the rows. The lab's widget
update is timed by the ``labs`` group, the 100,000-droplet region-scale run (time and memory) by
``scale``, and events per second against a bare simpy loop (per event and per work item) by
``simpy``.
"""

from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor

from labsupport import dwfm


def figures() -> list[dict]:
    """Measure and return the DWFM sweep rows (see ``benchmarks/run.py`` for the format)."""
    rows = []
    t0 = time.perf_counter()
    grid = dwfm.phase_sweep()
    rows.append(
        {
            "figure": "dwfm sweep, in-process",
            "value": time.perf_counter() - t0,
            "unit": "s",
            "target": None,
            "better": "lower",
            "note": f"{len(grid)} runs: 8 fleet sizes x 5 outage lengths x throttle off/on; one run",
        }
    )
    with ProcessPoolExecutor(max_workers=2) as pool:
        t0 = time.perf_counter()
        dwfm.phase_sweep(executor=pool)
        rows.append(
            {
                "figure": "dwfm sweep, ProcessPoolExecutor(2)",
                "value": time.perf_counter() - t0,
                "unit": "s",
                "target": None,
                "better": "lower",
                "note": "same rows, same order; one run",
            }
        )
    t0 = time.perf_counter()
    dwfm.explorer_grid()
    rows.append(
        {
            "figure": "dwfm in-page explorer grid (10 runs)",
            "value": time.perf_counter() - t0,
            "unit": "s",
            "target": None,
            "better": "lower",
            "note": "one run",
        }
    )
    return rows
