"""Lab 2's exercises (congestive collapse in DWFM), checked against the DWFM model.

Every model answer comes from :func:`labsupport.dwfm.run` on the incident preset without the
operators' 4:14 AM actions (:data:`UNATTENDED`) or a variant of it; the runs follow the post-event
summary's EC2 section as :mod:`labsupport.dwfm` does. Each ``exN(answer)`` returns a
:class:`~labsupport.feedback.Feedback` and never raises; each ``model_exN()`` returns the model's
answer as a read-only dict (cached: the same runs serve the check and the lab's self-check).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from .. import dwfm
from ..feedback import Feedback, Part, answered, boolean, feedback, number, review
from ..timeline import format_duration

__all__ = [
    "CAPS_S",
    "UNATTENDED",
    "ex1",
    "ex2",
    "ex3",
    "ex4",
    "ex5",
    "model_ex1",
    "model_ex2",
    "model_ex3",
    "model_ex4",
    "model_ex5",
]

INC = dwfm.INCIDENT
#: The incident preset without the operators' restart and throttle.
UNATTENDED = replace(INC, operator_restart_at_s=None, operator_throttle_at_s=None)
#: The backoff caps Exercise 3 tries, in seconds (30 min, 1 h, 2 h, 4 h).
CAPS_S = (1_800.0, 3_600.0, 7_200.0, 14_400.0)


def _first_pass(cfg: dwfm.DwfmConfig) -> float:
    """Items one host finishes inside their deadline from a freshly filled queue."""
    return cfg.host_concurrency_count / cfg.lease_establish_s * (cfg.work_deadline_s - cfg.lease_establish_s)


def _missing_at(cfg: dwfm.DwfmConfig, t_s: float) -> int:
    """Droplets without a lease at ``t_s`` (runs sampled every minute; sampling changes no event)."""
    ts = dwfm.run(replace(cfg, report_interval_s=60.0)).timeseries
    return int(cfg.fleet_droplets_count - ts.loc[ts["time_s"] <= t_s, "leased_count"].iloc[-1])


def _clock(t_s: float | None) -> str:
    return "never" if t_s is None else dwfm.CLOCK.time_of_day(t_s)


@functools.cache
def model_ex1() -> Mapping[str, Any]:
    """A one-hour deadline, no operators: ``recovers`` (bool), ``hours_after_dns`` (float, h after
    2:25 AM until every lease is back, NaN if never), ``recovered_at_s``, ``first_pass`` and
    ``per_host`` (items a host finishes in time from a fresh queue; droplets per host)."""
    cfg = replace(UNATTENDED, work_deadline_s=3_600.0)
    s = dwfm.run(cfg).summary
    hours = (s.recovered_at_s - cfg.outage_end_s) / 3_600 if s.recovered_at_s is not None else float("nan")
    return MappingProxyType(
        {
            "recovers": bool(s.recovered),
            "hours_after_dns": float(hours),
            "recovered_at_s": s.recovered_at_s,
            "first_pass": _first_pass(cfg),
            "per_host": cfg.fleet_droplets_count / cfg.dwfm_hosts_count,
        }
    )


def ex1(answer: object) -> Feedback:
    """Check Exercise 1: ``{"recovers": True/False, "hours_after_dns": hours after 2:25 AM}``."""
    m = model_ex1()
    why = (
        f"With a one-hour deadline a host finishes about {m['first_pass']:.0f} items in time from a freshly "
        f"filled queue, against its share of about {m['per_host']:.0f} droplets: the items that miss are few "
        "enough for their retries to finish."
    )
    checks = {
        "recovers": lambda v: boolean("recovers", v, m["recovers"], why=why),
        "hours_after_dns": lambda v: number(
            "hours_after_dns",
            v,
            m["hours_after_dns"],
            tolerance=0.25,
            unit="h",
            why=f"All leases are back at {_clock(m['recovered_at_s'])} (summary.recovered_at_s).",
        ),
    }
    return feedback("Exercise 1", answer, checks)


@functools.cache
def model_ex2() -> Mapping[str, Any]:
    """The 4:14 AM restart without the throttle, and the same after a 12:38 AM repair.

    Keys: ``recovers`` (bool, the 4:14 AM restart alone), ``missing_at_restart`` (int, droplets
    without a lease at 4:14 AM), ``leases_in_two_deadlines`` (int, leases established within two
    deadlines after the restart), ``last_goodput`` (int, leases in the run's last report interval),
    and for a repair at 12:38 AM: ``early_missing`` (droplets without a lease at the repair),
    ``early_later_missing`` / ``early_later_recovers`` / ``early_later_clock`` (a restart 15 minutes
    after it) and ``early_at_once_recovers`` (a restart at the moment of the repair).
    """
    restart_only = replace(INC, operator_throttle_at_s=None)
    t = INC.operator_restart_at_s
    assert t is not None  # the incident preset's restart time
    run = dwfm.run(restart_only)
    ts = run.timeseries
    after = ts[ts["time_s"] > t]
    early_end = dwfm.CLOCK.seconds("2025-10-20 00:38")
    early = replace(UNATTENDED, outage_end_s=early_end)
    later = replace(early, operator_restart_at_s=early_end + 900.0)
    later_s = dwfm.run(later).summary
    return MappingProxyType(
        {
            "recovers": bool(run.summary.recovered),
            "missing_at_restart": _missing_at(restart_only, t),
            "leases_in_two_deadlines": int(
                after.loc[after["time_s"] <= t + 2 * INC.work_deadline_s, "goodput_count"].sum()
            ),
            "last_goodput": int(after["goodput_count"].iloc[-1]),
            "early_missing": _missing_at(early, early_end),
            "early_later_missing": _missing_at(later, early_end + 900.0),
            "early_later_recovers": bool(later_s.recovered),
            "early_later_clock": _clock(later_s.recovered_at_s),
            "early_at_once_recovers": bool(dwfm.run(replace(early, operator_restart_at_s=early_end)).summary.recovered),
        }
    )


def ex2(answer: object) -> Feedback:
    """Check Exercise 2: ``{"recovers": True/False, "missing_at_restart": droplets without a lease}``."""
    m = model_ex2()
    why = (
        f"The restart empties the queues, not the {m['missing_at_restart']:,} droplets without a lease: each asks "
        f"again at its next state check, {format_duration(INC.state_check_interval_s)} later, and the queues refill."
    )
    checks = {
        "recovers": lambda v: boolean("recovers", v, m["recovers"], why=why),
        "missing_at_restart": lambda v: number(
            "missing_at_restart",
            v,
            m["missing_at_restart"],
            tolerance=0.02,
            relative=True,
            unit="droplets",
            why="Read leased_count in the row at the restart (4:14 AM) and subtract it from the fleet.",
        ),
    }
    return feedback("Exercise 2", answer, checks)


@functools.cache
def model_ex3() -> Mapping[str, Any]:
    """Backoff with full jitter, no operators, for each cap of :data:`CAPS_S`: ``recovered`` (tuple
    of bool) and ``leases`` (tuple of int, leases established by the end of the run), in cap order."""
    runs = [
        dwfm.run(replace(UNATTENDED, retry_policy="backoff_full_jitter", retry_cap_s=cap)).summary for cap in CAPS_S
    ]
    return MappingProxyType(
        {"recovered": tuple(bool(r.recovered) for r in runs), "leases": tuple(int(r.goodput_count) for r in runs)}
    )


def ex3(answer: object) -> Feedback:
    """Check Exercise 3: ``{"any_recovers": True/False, "leases_with_4h_cap": leases established}``."""
    m = model_ex3()
    why = (
        "Backoff spreads the retries over time, but an item that does join the queue still waits behind hundreds "
        "of others for longer than its deadline."
    )
    checks = {
        "any_recovers": lambda v: boolean("any_recovers", v, any(m["recovered"]), why=why),
        "leases_with_4h_cap": lambda v: number(
            "leases_with_4h_cap",
            v,
            m["leases"][-1],
            tolerance=0.05,
            relative=True,
            unit="leases",
            why="That is summary.goodput_count with the 4-hour cap: longer caps let more leases through "
            f"({', '.join(f'{n:,}' for n in m['leases'])} for caps of 30 min to 4 h).",
        ),
    }
    return feedback("Exercise 3", answer, checks)


@functools.cache
def model_ex4() -> Mapping[str, Any]:
    """The largest fleet (to 10 droplets) that recovers by itself, by bisection: ``threshold`` (int,
    a fleet that recovers; ``threshold + 10`` does not), ``per_host`` and ``first_pass`` (items)."""
    lo, hi = 500, 6_000
    while hi - lo > 10:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if dwfm.run(replace(UNATTENDED, fleet_droplets_count=mid)).summary.recovered else (lo, mid)
    return MappingProxyType(
        {"threshold": lo, "per_host": lo / INC.dwfm_hosts_count, "first_pass": _first_pass(INC), "upper": hi}
    )


def ex4(answer: object) -> Feedback:
    """Check Exercise 4: ``{"threshold_fleet": the largest fleet that recovers by itself}``."""
    m = model_ex4()
    why = (
        f"That is about {m['per_host']:.0f} droplets per host, a little above twice the {m['first_pass']:.0f} items "
        "a host finishes in time from a freshly filled queue."
    )
    checks = {
        "threshold_fleet": lambda v: number(
            "threshold_fleet", v, m["threshold"], tolerance=20, unit="droplets", why=why
        ),
    }
    return feedback("Exercise 4", answer, checks)


@functools.cache
def model_ex5() -> Mapping[str, Any]:
    """Admission control's limit: ``bound`` (float, the largest queue whose last item still finishes
    in time), and ``recovers`` (a function-free dict of limit -> bool for 50 and 100)."""
    per_s = INC.host_concurrency_count / INC.lease_establish_s
    return MappingProxyType(
        {
            "bound": (INC.work_deadline_s - INC.lease_establish_s) * per_s,
            "recovers": {lim: _recovers_with_limit(lim) for lim in (50, 100)},
        }
    )


@functools.cache
def _recovers_with_limit(limit: int) -> bool:
    cfg = replace(UNATTENDED, throttle_by_queue_length=True, queue_limit_count=limit)
    return bool(dwfm.run(cfg).summary.recovered)


def _limit_part(name: str, value: object, should_recover: bool) -> Part:
    if not answered(value):
        return Part(name, "not answered", "give a queue limit, a whole number of items per host.")
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 10_000:
        return Part(name, "cannot check", f"a queue limit is a whole number of items from 1 to 10,000, got {value!r}.")
    ok = _recovers_with_limit(value)
    bound = model_ex5()["bound"]
    said = f"With queue_limit_count={value} the model {'recovers' if ok else 'does not recover'} by itself"
    if ok == should_recover:
        return Part(name, "right", f"{said}; the bound on the limit is about {bound:.0f} items.")
    wanted = "one that recovers" if should_recover else "one that does not"
    return Part(name, "wrong", f"{said}: this part asks for {wanted}. Compare {value} with about {bound:.0f}.")


def ex5(answer: object) -> Feedback:
    """Check Exercise 5: ``{"limit_that_works": int, "limit_too_high": int, "dashboard": str}``.

    The two limits are run in the model (no operators, admission control on); the dashboard is
    written, so its check only confirms that it was answered and lists what a strong answer covers.
    """
    checks = {
        "limit_that_works": lambda v: _limit_part("limit_that_works", v, True),
        "limit_too_high": lambda v: _limit_part("limit_too_high", v, False),
        "dashboard": lambda v: review("dashboard", v),
    }
    note = (
        "A strong dashboard plots goodput next to throughput (throughput stays at 100 % during the collapse), "
        "the age of the oldest queued item against the deadline, and the share of droplets with a lease, and "
        "alerts when goodput falls below a fraction of throughput or the oldest item outlives the deadline."
    )
    return feedback("Exercise 5", answer, checks, note=note)
