"""Practice on the NLB model: an NLB, its health checks and its failover, through the morning.

Scenario:
    ``practice(seed)`` draws an NLB unlike the incident's: 10 to 60 targets per Availability Zone,
    health checks every 15, 30 or 60 seconds, a failover threshold of 2 to 6 minutes of late
    results, and either automatic failover left on all day (nobody intervenes) or a velocity control
    that lets it remove at most 10 % to 40 % of the capacity per 15 minutes. Network Manager's
    backlog is the incident's. The question: does failover ever take an AZ out of DNS, and what is
    the lowest fraction of the NLB's capacity in service? The check runs :func:`labsupport.nlb.run`
    and says why from the run: how late the health-check results got against the threshold, when
    the first failover came, and how often the velocity control held failover back.
Covers:
    The post-event summary's NLB section as :mod:`labsupport.nlb` models it: new targets without
    network state flap, the flapping slows the shared health checks, and late results trigger AZ DNS
    failover that removes healthy capacity; the velocity control AWS announced bounds it::

        seed ──rng──> targets, check interval, threshold, failover rule ──nlb.run──> failover? lowest capacity
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from .. import nlb as model
from ..feedback import Part, boolean, number
from ._problem import Problem, rng

__all__ = ["NlbProblem", "practice"]


@dataclass(frozen=True)
class NlbProblem(Problem):
    """An NLB's morning to predict: see :func:`practice`. ``config`` is its :class:`~labsupport.nlb.NlbConfig`."""

    model = "nlb"
    fields = (
        ("any_failover", "True or False: does automatic failover take an AZ out of DNS at all?"),
        ("min_capacity", "the lowest fraction of the NLB's capacity in service, 0 to 1"),
    )
    hint = (
        "Run it: s = nlb.run(problem.config).summary; s.failover_count and s.min_capacity_fraction; "
        "s.peak_check_latency_s against problem.config.failover_delay_threshold_s says why."
    )

    def _solve(self) -> Mapping[str, Any]:
        s = model.run(self.config).summary
        return {
            "any_failover": bool(s.failover_count > 0),
            "min_capacity": float(s.min_capacity_fraction),
            "first_failover_s": s.first_failover_s,
            "peak_latency_s": float(s.peak_check_latency_s),
            "limited": int(s.limited_count),
            "flaps": int(s.flaps_count),
        }

    def _parts(self, m: Mapping[str, Any]) -> dict[str, Callable[[Any], Part]]:
        return {
            "any_failover": lambda v: boolean("any_failover", v, m["any_failover"]),
            "min_capacity": lambda v: number("min_capacity", v, m["min_capacity"], tolerance=0.01),
        }

    def _why(self, m: Mapping[str, Any]) -> str:
        cfg = self.config
        first = (
            f"the first failover came at {model.CLOCK.time_of_day(m['first_failover_s'])}"
            if m["first_failover_s"] is not None
            else "no failover came"
        )
        held = f"; the velocity control held failover back {m['limited']} times" if cfg.limit_capacity_removal else ""
        return (
            f"Why: this NLB's targets flapped {m['flaps']} times, and the shared health checks' results got as late as "
            f"{m['peak_latency_s']:.0f} s against a failover threshold of {cfg.failover_delay_threshold_s:.0f} s: "
            f"{first}{held}."
        )


def practice(seed: int = 0) -> NlbProblem:
    """A fresh NLB problem drawn from ``seed`` (the same seed, the same problem).

    Args:
        seed: an integer from 0 to 2**63 - 1.

    Returns:
        An :class:`NlbProblem`. Its config varies :data:`labsupport.nlb.INCIDENT` with nobody
        disabling failover: ``targets_per_az_count`` (10 to 60), ``health_check_interval_s`` (15, 30
        or 60), ``failover_delay_threshold_s`` (120 to 360 s, in 30 s steps), the model's ``seed``,
        and either failover on all day or ``limit_capacity_removal`` with ``max_removal_fraction``
        from 0.1 to 0.4.

    Raises:
        ConfigError: ``seed`` is not an integer from 0 to 2**63 - 1.
    """
    r = rng(seed, "nlb")
    targets, interval = r.randint(10, 60), float(r.choice((15, 30, 60)))
    threshold = float(r.randrange(120, 361, 30))
    cap = r.choice((None, 0.1, 0.2, 0.3, 0.4))
    cfg = replace(
        model.INCIDENT,
        targets_per_az_count=targets,
        health_check_interval_s=interval,
        failover_delay_threshold_s=threshold,
        disable_failover_at_s=None,
        reenable_failover_at_s=None,
        limit_capacity_removal=cap is not None,
        max_removal_fraction=cap if cap is not None else model.INCIDENT.max_removal_fraction,
        seed=r.randrange(2**31),
    )
    rule = (
        "Nobody disables automatic failover."
        if cap is None
        else f"A velocity control lets failover remove at most {cap:.0%} of the NLB's capacity per 15 minutes."
    )
    text = (
        f"An NLB with {targets} targets in each of its three AZs, health checks every {interval:.0f} s, and AZ DNS "
        f"failover when the results are {threshold:.0f} s late; Network Manager's backlog is the incident's, and "
        f"every other setting is nlb.INCIDENT's. {rule} From 5:28 AM on, does failover take an AZ out of DNS, and "
        "what is the lowest fraction of the NLB's capacity in service?"
    )
    return NlbProblem(seed=int(seed), config=cfg, text=text)
