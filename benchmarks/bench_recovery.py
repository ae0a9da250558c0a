"""Speed of the recovery models' sweeps (network, nlb, dns_cache), as the labs and the chapter run them.

The two recovery labs' widget updates are timed by the ``labs`` group, events per second of the
network and NLB models against a bare simpy loop by ``simpy``, and their region-scale runs by
``scale``. Here: the sweeps of lab 03 (velocity-control caps) and lab 04 (negative TTLs, averaged
over restore times), in process and on two processes.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

import numpy as np
from _timing import repeat

from labsupport import dns_cache, nlb

CAPS = (0.05, 0.1, 0.2, 0.33, 0.5, 1.0)
TTLS = (60.0, 120.0, 300.0, 600.0, 900.0, 1_200.0, 1_800.0, 2_700.0, 3_600.0)
OFFSETS = tuple(np.linspace(0.0, 3_600.0, 12, endpoint=False))


def _dns_configs() -> list[dns_cache.DnsCacheConfig]:
    inc = dns_cache.INCIDENT
    return [
        replace(
            inc,
            soa_ttl_s=t,
            empty_duration_s=inc.empty_duration_s + o,
            horizon_s=inc.restored_s + o + max(3_600.0, 2 * t),
        )
        for t in TTLS
        for o in OFFSETS
    ]


def figures() -> list[dict]:
    """Measure and return the benchmark rows (see ``benchmarks/run.py`` for the format)."""
    nlb_configs = [replace(nlb.VELOCITY_CONTROL, max_removal_fraction=c) for c in CAPS]
    dns_configs = _dns_configs()
    rows = []
    with ProcessPoolExecutor(max_workers=2) as pool:
        for name, fn, configs in (("nlb", nlb.sweep, nlb_configs), ("dns_cache", dns_cache.sweep, dns_configs)):
            here = repeat(lambda fn=fn, configs=configs: fn(configs), runs=3, warmup=0)
            there = repeat(lambda fn=fn, configs=configs: fn(configs, executor=pool), runs=3, warmup=1)
            what = f"{len(configs)} runs"
            rows += [
                {
                    "figure": f"{name} sweep ({what}), in-process, median",
                    "value": here["median"],
                    "unit": "s",
                    "target": None,
                    "better": "lower",
                },
                {
                    "figure": f"{name} sweep ({what}), ProcessPoolExecutor(2), median",
                    "value": there["median"],
                    "unit": "s",
                    "target": None,
                    "better": "lower",
                },
            ]
    return rows
