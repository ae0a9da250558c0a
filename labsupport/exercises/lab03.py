"""Lab 3's exercises (NLB health checks that flap), checked against the NLB and Network Manager models.

Every answer comes from :func:`labsupport.nlb.run` (which runs :func:`labsupport.network.run` for its
new targets) on the incident preset (:data:`labsupport.nlb.INCIDENT`) or a variant of it; the models
follow the post-event summary's NLB and Network Manager sections, with the assumptions
:mod:`labsupport.nlb` lists. Each ``exN(answer)`` returns a :class:`~labsupport.feedback.Feedback` and
never raises; each ``model_exN()`` returns the model's answer as a read-only dict (cached).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from .. import nlb
from ..feedback import Feedback, boolean, feedback, number, review

__all__ = ["CAPS", "ex1", "ex2", "ex3", "ex4", "model_ex1", "model_ex2", "model_ex3", "model_ex4"]

INC = nlb.INCIDENT
#: Exercise 3's caps, from 5 % to 50 % of the NLB's capacity per window, in steps of 5 %.
CAPS = tuple(round(0.05 * k, 2) for k in range(1, 11))


@functools.cache
def model_ex1() -> Mapping[str, Any]:
    """Health checks every 10, 30 and 60 s: ``flaps``, ``first_failover_s`` and ``error_min`` (minutes
    with more than 1 % of connections failing), each a dict keyed by the interval in seconds."""
    runs = {i: nlb.run(replace(INC, health_check_interval_s=float(i))).summary for i in (10, 30, 60)}
    return MappingProxyType(
        {
            "flaps": {i: int(s.flaps_count) for i, s in runs.items()},
            "first_failover_s": {i: s.first_failover_s for i, s in runs.items()},
            "error_min": {i: (s.error_s or 0.0) / 60 for i, s in runs.items()},
        }
    )


def ex1(answer: object) -> Feedback:
    """Check Exercise 1: ``{"flaps_10s": ..., "flaps_60s": ..., "failover_moves": True/False}``."""
    m = model_ex1()
    f10, f60 = m["first_failover_s"][10], m["first_failover_s"][60]
    moves = f10 is None or f60 is None or abs(f10 - f60) > 300
    why = (
        "The first failover comes at the same time either way: each health-check cell is sized for its normal "
        "work at whatever interval it runs, so what overloads it is the flapping, not the probing."
    )
    checks = {
        "flaps_10s": lambda v: number("flaps_10s", v, m["flaps"][10], tolerance=0, unit="flaps"),
        "flaps_60s": lambda v: number("flaps_60s", v, m["flaps"][60], tolerance=0, unit="flaps"),
        "failover_moves": lambda v: boolean("failover_moves", v, moves, why=why),
    }
    return feedback("Exercise 1", answer, checks)


@functools.cache
def model_ex2() -> Mapping[str, Any]:
    """Network Manager's backlog at 5:28 AM of 0, the incident's and 600 items: ``failovers`` (count),
    ``normal_min`` (minutes after 5:28 AM until propagation is normal), keyed by the backlog."""
    out: dict[str, dict[int, Any]] = {"failovers": {}, "normal_min": {}}
    for backlog in (0, INC.network.backlog_count, 600):
        r = nlb.run(replace(INC, network=replace(INC.network, backlog_count=backlog)))
        out["failovers"][backlog] = int(r.summary.failover_count)
        normal = r.network.summary.propagation_normal_s
        out["normal_min"][backlog] = normal / 60 if normal is not None else float("nan")
    return MappingProxyType(out)


def ex2(answer: object) -> Feedback:
    """Check Exercise 2: ``{"failover_without_backlog": ..., "failover_with_600": ..., "normal_600_min": ...}``."""
    m = model_ex2()
    checks = {
        "failover_without_backlog": lambda v: boolean(
            "failover_without_backlog",
            v,
            m["failovers"][0] > 0,
            why="Without a backlog new instances never wait long enough, in numbers, for the flapping to "
            "overload the health checks.",
        ),
        "failover_with_600": lambda v: boolean(
            "failover_with_600",
            v,
            m["failovers"][600] > 0,
            why=f"{m['failovers'][600]} failovers: the checks fall behind earlier and stay behind past 2:09 PM.",
        ),
        "normal_600_min": lambda v: number(
            "normal_600_min",
            v,
            m["normal_min"][600],
            tolerance=2,
            unit="min",
            why="network.summary.propagation_normal_s / 60, in the run's minutes after 5:28 AM.",
        ),
    }
    return feedback("Exercise 2", answer, checks)


@functools.cache
def model_ex3() -> Mapping[str, Any]:
    """Each cap of :data:`CAPS` on the velocity-control preset: ``peak_error`` (cap -> the worst
    fraction of failing connections) and ``largest_cap`` (the largest cap under 10 %, or None)."""
    grid = nlb.sweep([replace(nlb.VELOCITY_CONTROL, max_removal_fraction=c) for c in CAPS])
    peak = {c: float(e) for c, e in zip(CAPS, grid["peak_error_fraction"], strict=True)}
    ok = [c for c, e in peak.items() if e < 0.10]
    return MappingProxyType({"peak_error": peak, "largest_cap": max(ok) if ok else None})


def ex3(answer: object) -> Feedback:
    """Check Exercise 3: ``{"largest_cap": the largest cap, as a fraction (0.05 to 0.5)}``."""
    m = model_ex3()
    shown = ", ".join(f"{c:.0%}: {e:.1%}" for c, e in m["peak_error"].items())
    want = m["largest_cap"] if m["largest_cap"] is not None else float("nan")
    checks = {
        "largest_cap": lambda v: number(
            "largest_cap", v, want, tolerance=0.001, why=f"The worst failing fraction for each cap: {shown}."
        )
    }
    return feedback("Exercise 3", answer, checks)


@functools.cache
def model_ex4() -> Mapping[str, Any]:
    """Exercise 4 is a design question: no model answer (an empty dict)."""
    return MappingProxyType({})


def ex4(answer: object) -> Feedback:
    """Check Exercise 4's form: ``{"evidence": "...", "limits": "...", "page_when": "..."}``, in words."""
    checks = {name: (lambda v, name=name: review(name, v)) for name in ("evidence", "limits", "page_when")}
    note = (
        "A strong rule separates 'the AZ is unhealthy' from 'I do not know': late results do not count as "
        "failures, or need confirmation from an independent path (another checker fleet, data-plane signals); it "
        "limits the action with a velocity control and a floor, fails static when a limit is reached, and pages a "
        "person whenever a limit or the confirmation rule blocks an action."
    )
    return feedback("Exercise 4", answer, checks, note=note)
