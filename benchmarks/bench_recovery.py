"""Speed of the recovery models (network, nlb, dns_cache) and of the two recovery labs' widgets.

Figures:

* one widget change in lab 03 (NLB flapping) and lab 04 (DNS caches) at the labs' default sizes:
  the model run plus the redraw (the charts serialised to Vega-Lite, the table to HTML), exactly
  what :func:`labsupport.widgets.nlb_view` / :func:`labsupport.widgets.dns_view` do for a panel;
  target under 0.5 s median;
* simpy events per second of the network and NLB models, beside a bare simpy loop of timeouts
  stepped the same way (the models' overhead per event).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import simpy

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import repeat  # noqa: E402

from labsupport import network, nlb, widgets  # noqa: E402


def _nlb_widget_change() -> None:
    cfg = widgets.nlb_config(backlog_count=network.INCIDENT.backlog_count, health_check_interval_s=30,
                             limit_capacity_removal=True, max_removal_fraction=0.2,
                             failover=next(iter(widgets.NLB_FAILOVER_CHOICES)))
    chart, table = widgets.nlb_view(cfg)
    chart.to_dict()
    table.to_html()


def _dns_widget_change() -> None:
    cfg = widgets.dns_config(positive_ttl_s=60, negative_ttl_s=1_800, empty_min=157, clients_count=10_000)
    *charts, table = widgets.dns_view(cfg)
    for chart in charts:
        chart.to_dict()
    table.to_html()


def _bare_simpy(events: int) -> float:
    """Events per second of a loop of three processes doing nothing but timeouts."""
    env = simpy.Environment()

    def ticker(env: simpy.Environment, period: float):
        while True:
            yield env.timeout(period)

    for period in (1.0, 1.3, 1.7):
        env.process(ticker(env, period))
    t0 = time.perf_counter()
    for _ in range(events):
        env.step()
    return events / (time.perf_counter() - t0)


def _events_per_s(fn, count_of) -> float:
    t0 = time.perf_counter()
    result = fn()
    return count_of(result) / (time.perf_counter() - t0)


def figures() -> list[dict]:
    """Measure and return the benchmark rows (see ``benchmarks/run.py`` for the format)."""
    rows = []
    for name, fn in (("lab 03 widget change: NLB run + redraw", _nlb_widget_change),
                     ("lab 04 widget change: DNS-cache run + redraw", _dns_widget_change)):
        t = repeat(fn, runs=9, warmup=1)
        rows.append({"figure": name, "value": t["median"], "unit": "s", "target": 0.5, "better": "lower",
                     "note": f"p90 {t['p90']:.3f} s, default lab sizes"})
    bare = max(_bare_simpy(50_000) for _ in range(3))
    net = max(_events_per_s(lambda: network.run(network.INCIDENT), lambda r: r.summary.sim_events_count)
              for _ in range(3))
    lb = nlb.run(nlb.INCIDENT)
    per_run = lb.summary.sim_events_count
    nlb_rate = max(_events_per_s(lambda: nlb.run(nlb.INCIDENT), lambda r: r.summary.sim_events_count
                                 + r.network.summary.sim_events_count) for _ in range(3))
    rows += [
        {"figure": "bare simpy loop (timeouts only)", "value": bare, "unit": "events/s", "target": None,
         "better": "higher"},
        {"figure": "network model (INCIDENT)", "value": net, "unit": "events/s", "target": None,
         "better": "higher", "note": f"{net / bare:.0%} of the bare loop"},
        {"figure": "nlb model incl. its network run (INCIDENT)", "value": nlb_rate, "unit": "events/s",
         "target": None, "better": "higher",
         "note": f"{nlb_rate / bare:.0%} of the bare loop; {per_run:,} NLB events per run"},
    ]
    return rows


if __name__ == "__main__":
    for row in figures():
        print(row)
