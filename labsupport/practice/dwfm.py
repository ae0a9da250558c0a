"""Practice on the DWFM model: a fleet, an outage, maybe a restart without throttling.

Scenario:
    ``practice(seed)`` draws a night unlike the incident's: a fleet of 1,000 to 9,000 droplets on
    6 to 12 DWFM hosts, DynamoDB unreachable from 11:48 PM for 30 minutes to 3 hours, and either
    nobody intervening or the operators restarting every host, without a throttle, 0 to 60 minutes
    after DynamoDB returns. The question: does every droplet get a lease again before the run ends,
    and when? The check runs :func:`labsupport.dwfm.run` on the problem's config and says why from
    the run: the backlog each host faced against what it can finish inside one deadline, what a
    restart left without a lease, the peak queue and the wasted work.
Covers:
    The post-event summary's EC2 section as :mod:`labsupport.dwfm` models it: leases lapse during
    the outage, the backlog's work times out and is queued again (congestive collapse), and a
    restart clears the queues but not the droplets without a lease::

        seed ──rng──> fleet, hosts, outage, restart? ──> DwfmConfig ──dwfm.run──> recovered? when?
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from .. import dwfm as model
from ..feedback import Part, boolean
from ..timeline import format_duration
from ._problem import Problem, never_or_number, rng

__all__ = ["DwfmProblem", "practice"]

_BASE = replace(model.INCIDENT, operator_restart_at_s=None, operator_throttle_at_s=None)


@dataclass(frozen=True)
class DwfmProblem(Problem):
    """A DWFM night to predict: see :func:`practice`. ``config`` is its :class:`~labsupport.dwfm.DwfmConfig`."""

    model = "dwfm"
    fields = (
        ("recovers", "True or False: does every droplet hold a lease again before the model's run ends?"),
        ("hours_after_dns", "hours after DynamoDB returns until the last lease, or predict.NEVER"),
    )
    hint = (
        "Run it: s = dwfm.run(problem.config).summary; s.recovered and s.recovered_at_s (seconds after "
        "11:48 PM); DynamoDB returns at problem.config.outage_end_s."
    )

    def _solve(self) -> Mapping[str, Any]:
        cfg = self.config
        run = model.run(replace(cfg, report_interval_s=60.0))  # one-minute samples; the same events
        s, ts = run.summary, run.timeseries
        restart = cfg.operator_restart_at_s
        at = restart if restart is not None else cfg.outage_end_s
        missing = int(cfg.fleet_droplets_count - ts.loc[ts["time_s"] <= at, "leased_count"].iloc[-1])
        return {
            "recovers": bool(s.recovered),
            "hours_after_dns": (s.recovered_at_s - cfg.outage_end_s) / 3_600 if s.recovered else None,
            "missing": missing,
            "peak_queue": int(s.peak_queue_count),
            "wasted": float(s.wasted_fraction),
            "first_pass": cfg.host_concurrency_count
            / cfg.lease_establish_s
            * (cfg.work_deadline_s - cfg.lease_establish_s),
        }

    def _parts(self, m: Mapping[str, Any]) -> dict[str, Callable[[Any], Part]]:
        return {
            "recovers": lambda v: boolean("recovers", v, m["recovers"]),
            "hours_after_dns": lambda v: never_or_number(
                "hours_after_dns", v, m["hours_after_dns"], tolerance=0.1, unit="h"
            ),
        }

    def _why(self, m: Mapping[str, Any]) -> str:
        cfg = self.config
        hosts = cfg.dwfm_hosts_count
        when = "at the restart" if cfg.operator_restart_at_s is not None else "when DynamoDB returned"
        outcome = (
            f"every lease is back at {model.CLOCK.time_of_day(cfg.outage_end_s + 3_600 * m['hours_after_dns'])}"
            if m["recovers"]
            else f"the fleet is still collapsed when the run ends at {model.CLOCK.time_of_day(cfg.horizon_s)}"
        )
        return (
            f"Why: {m['missing']:,} droplets had no lease {when}, about {m['missing'] / hosts:.0f} per host, and a "
            f"host finishes about {m['first_pass']:.0f} items inside one deadline from a freshly filled queue. "
            f"The queues peaked at {m['peak_queue']:,} items, {m['wasted']:.0%} of the finished work was wasted, "
            f"and {outcome}."
        )


def practice(seed: int = 0) -> DwfmProblem:
    """A fresh DWFM problem drawn from ``seed`` (the same seed, the same problem).

    Args:
        seed: an integer from 0 to 2**63 - 1.

    Returns:
        A :class:`DwfmProblem`: show it for its text, fill ``problem.skeleton()``, then
        ``problem.check(answer)``. Its config varies :data:`labsupport.dwfm.INCIDENT` without the
        operators' 4:14 AM throttle: ``fleet_droplets_count`` (1,000 to 9,000, in hundreds),
        ``dwfm_hosts_count`` (6, 8, 10 or 12), ``outage_end_s`` (30 to 180 min, in fives), the
        model's ``seed``, and ``operator_restart_at_s`` (none, or 0, 15, 30 or 60 min after the outage).

    Raises:
        ConfigError: ``seed`` is not an integer from 0 to 2**63 - 1.
    """
    r = rng(seed, "dwfm")
    fleet, hosts = r.randrange(1_000, 9_001, 100), r.choice((6, 8, 10, 12))
    outage_min = r.randrange(30, 181, 5)
    restart_min = r.choice((None, None, 0, 15, 30, 60))
    end_s = 60.0 * outage_min
    cfg = replace(
        _BASE,
        fleet_droplets_count=fleet,
        dwfm_hosts_count=hosts,
        outage_end_s=end_s,
        operator_restart_at_s=None if restart_min is None else end_s + 60.0 * restart_min,
        seed=r.randrange(2**31),
    )
    act = (
        "Nobody intervenes: no throttle, no restart."
        if restart_min is None
        else f"The operators restart every DWFM host {restart_min} minutes after DynamoDB returns, without throttling."
    )
    text = (
        f"DynamoDB is unreachable from 11:48 PM for {format_duration(end_s)}, until "
        f"{model.CLOCK.time_of_day(end_s)}. DWFM has {hosts} hosts and {fleet:,} droplets; every other setting is "
        f"the incident preset's (dwfm.INCIDENT). {act} Does every droplet hold a lease again before the model's run "
        f"ends at {model.CLOCK.time_of_day(cfg.horizon_s)}, and how many hours after DynamoDB returns?"
    )
    return DwfmProblem(seed=int(seed), config=cfg, text=text)
