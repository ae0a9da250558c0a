"""Each model at region scale: run time (median of 3) and peak memory (tracemalloc, one more run).

"Region scale" is the largest run the course would ask of the model for the whole of us-east-1:

* race: the incident's three Enactors and five endpoints, for a whole day of plans (24 h);
* explore: the largest state space the lab's controls reach below its 400,000-state bound that
  :mod:`benchmarks.bench_explore` also times (3 Enactors, 5 plans, 2 endpoints);
* dwfm: 100,000 droplets on 121 DWFM hosts (the incident's load per host), 15 h, no operators;
* network: the incident's backlog, retries and rates times 24 (each modelled launch then stands
  for one fleet target, where the NLB model scales one launch up to 24);
* nlb: the incident driven by that region-scale network run;
* dns_cache: 1,000,000 clients (the config's upper bound) through the 2 h 37 min empty answer;
* chain: the whole chain with the region-scale DWFM fleet (100,000 droplets on 121 hosts).

Adding a model is one line in :data:`REGION`. Targets are the model issues' where they set one.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from _timing import once_with_memory, repeat


def _network(m: Any) -> Any:
    return replace(
        m.INCIDENT,
        backlog_count=318 * 24,
        retry_launches_count=627 * 24,
        launch_rate_per_min=72.0,
        propagation_rate_per_min=144.0,
    )


#: model -> (module, config(module), what it is, run-time target s or None, memory target MiB or None)
REGION: dict[str, tuple[str, Callable[[Any], Any], str, float | None, float | None]] = {
    "race": (
        "labsupport.race",
        lambda m: replace(m.INCIDENT, horizon_s=86_400.0),
        "3 Enactors, 5 endpoints, 24 h",
        None,
        None,
    ),
    "explore": (
        "labsupport.explore",
        lambda m: replace(m.INCIDENT, generation_count=5, endpoint_count=2),
        "3 Enactors, 5 plans, 2 endpoints, every interleaving",
        60.0,
        None,
    ),
    "dwfm": (
        "labsupport.dwfm",
        lambda m: replace(
            m.INCIDENT,
            fleet_droplets_count=100_000,
            dwfm_hosts_count=121,
            operator_restart_at_s=None,
            operator_throttle_at_s=None,
        ),
        "100,000 droplets, 121 hosts, 15 h, no operators",
        30.0,
        2048.0,
    ),
    "network": ("labsupport.network", _network, "incident x24: 7,632 backlog items, 15,048 retries", None, None),
    "nlb": (
        "labsupport.nlb",
        lambda m: replace(
            m.INCIDENT,
            network=_network(importlib.import_module("labsupport.network")),
            fleet_targets_per_launch_count=1,
        ),
        "driven by the x24 network run",
        None,
        None,
    ),
    "dns_cache": (
        "labsupport.dns_cache",
        lambda m: replace(m.INCIDENT, clients_count=1_000_000),
        "1,000,000 clients",
        None,
        None,
    ),
    "chain": (
        "labsupport.chain",
        lambda m: replace(
            m.INCIDENT, dwfm=replace(m.INCIDENT.dwfm, fleet_droplets_count=100_000, dwfm_hosts_count=121)
        ),
        "every stage, DWFM at 100,000 droplets",
        None,
        None,
    ),
}


def figures() -> list[dict]:
    """Measure and return the rows (see ``benchmarks/run.py`` for the format)."""
    rows = []
    for name, (module, config, what, time_target, memory_target) in REGION.items():
        mod = importlib.import_module(module)
        cfg = config(mod)
        t = repeat(lambda mod=mod, cfg=cfg: mod.run(cfg), runs=3, warmup=0)
        _, peak_mib, result = once_with_memory(lambda mod=mod, cfg=cfg: mod.run(cfg))
        size = f"{len(result.events):,} event rows" if hasattr(result, "events") else ""
        if hasattr(result.summary, "states_count"):
            size = f"{result.summary.states_count:,} states"
        rows += [
            {
                "figure": f"{name} at region scale: run time, median of 3",
                "value": t["median"],
                "unit": "s",
                "target": time_target,
                "better": "lower",
                "note": f"{what}; {size}",
            },
            {
                "figure": f"{name} at region scale: peak traced memory",
                "value": peak_mib,
                "unit": "MiB",
                "target": memory_target,
                "better": "lower",
                "note": "tracemalloc peak (Python and numpy)",
            },
        ]
    return rows
