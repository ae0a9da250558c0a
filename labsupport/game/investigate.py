"""Investigations: what a team finds when it looks, read off the models' signals when the result comes back.

An investigation (:data:`labsupport.game.INVESTIGATIONS`) changes nothing on the systems; it costs
game time, and its result is read at ``started + cost_s`` from ``labsupport.game.engine.signals``
up to that moment (and from the course's dependency graph, :mod:`labsupport.dependencies`), so an
action taken later changes no result that came back before it. The words are the model's: where
the model has no such log or metric (DynamoDB's servers, Lambda's), the result says what the
model implies (their errors come from what they call) and no more::

    (started, "search_logs:DWFM") --cost_s--> signals up to started + cost_s --> one finding (text, points_to)

``points_to`` is what a finding is evidence of, as the score's hindsight check reads it:
``"dns:DynamoDB"`` (the regional endpoint's record), a system's name (that system is unwell), or ``""``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from .. import nlb
from .alarms import ALARMS
from .config import ACTIONS

__all__ = ["FINDING_COLUMNS", "Series", "findings", "series_of"]

#: The columns of :func:`findings`, in order.
FINDING_COLUMNS: tuple[str, ...] = ("time_s", "started_s", "action", "verb", "system", "text", "points_to")
_BY_NAME = {a.name: a for a in ACTIONS}
_ENDPOINTS = {
    "DynamoDB": "dynamodb.us-east-1.amazonaws.com",
    "EC2": "ec2.us-east-1.amazonaws.com",
    "STS": "sts.us-east-1.amazonaws.com",
    "Lambda": "lambda.us-east-1.amazonaws.com",
}
_EMPTY = ("DynamoDB", "regional endpoint answers empty")
_API = ("DynamoDB", "API error rate")
_LAUNCH = ("EC2", "launch error rate")
_LEASED = ("DWFM", "droplets with a lease")
_QUEUED = ("DWFM", "work queued")
_DELAY = ("Network Manager", "propagation delay")
_NLB_ERR = ("NLB", "connection error rate")
_SIGNAL_SYSTEM = {_API: "DynamoDB", _LAUNCH: "EC2", _NLB_ERR: "NLB"}
_FAILOVER_S = nlb.INCIDENT.failover_delay_threshold_s

#: The signals of one run as arrays, ``(panel, signal) -> (times, values)``, each sorted by time.
Series = dict[tuple[str, str], tuple[np.ndarray, np.ndarray]]


class _Reader:
    """The signals of one run as a team could read them at ``t``: latest values and sums over a window."""

    def __init__(self, series: Series, t: float) -> None:
        self.series, self.t = series, t

    def now(self, key: tuple[str, str]) -> float:
        times, values = self.series.get(key, (np.zeros(0), np.zeros(0)))
        at = int(np.searchsorted(times, self.t, side="right")) - 1
        return float(values[at]) if at >= 0 else 0.0

    def total(self, key: tuple[str, str], window_s: float) -> int:
        times, values = self.series.get(key, (np.zeros(0), np.zeros(0)))
        inside = (times > self.t - window_s) & (times <= self.t)
        return round(float(values[inside].sum()))


Finding = tuple[str, str]  # (text, points_to)


def _lookup(system: str, r: _Reader) -> Finding:
    name = _ENDPOINTS[system]
    if system == "DynamoDB" and r.now(_EMPTY) > 0.5:
        return f"{name}: the answer holds no addresses (NOERROR, an empty answer).", "dns:DynamoDB"
    if system == "DynamoDB" and r.now(_API) > 0.01:
        return (
            f"{name}: addresses returned; {r.now(_API):.0%} of clients still fail to resolve it "
            "(their resolvers hold an earlier answer).",
            "",
        )
    return f"{name}: addresses returned.", ""


def _dynamodb(r: _Reader) -> Finding:
    err = r.now(_API)
    if err <= 0.01:
        return "No server errors; requests arrive at their normal rate.", ""
    return (
        f"No server errors. Requests arriving: about {1 - err:.0%} of normal; the others never reach the "
        "service, and its servers see nothing of them.",
        "",
    )


def _dwfm(r: _Reader) -> Finding:
    leased, queued, err = r.now(_LEASED), r.now(_QUEUED), r.now(_API)
    if err > 0.05:
        return (
            f"State checks fail: calls to DynamoDB fail ({err:.0%} of them). Leases lapse as they expire: "
            f"{leased:.0%} of droplets hold one.",
            "DWFM",
        )
    done, lost = r.total(("DWFM", "work completed"), 900.0), r.total(("DWFM", "work timed out"), 900.0)
    if leased < 0.999 or queued > 0:
        return (
            f"Lease work in the last 15 minutes: {done:,} leases established, {lost:,} items timed out and "
            f"queued again; {queued:,.0f} items waiting; {leased:.0%} of droplets hold a lease.",
            "DWFM",
        )
    return "Every droplet holds a lease; lease work normal.", ""


def _ec2(r: _Reader) -> Finding:
    capacity = r.total(("DWFM", "launches refused for capacity"), 900.0)
    throttled = r.total(("Network Manager", "launches refused by throttle"), 900.0)
    text = (
        f"RunInstances, last 15 minutes (the model's counts): {capacity:,} 'insufficient capacity' errors, "
        f"{throttled:,} launches refused by a throttle; launch error rate now {r.now(_LAUNCH):.0%}."
    )
    if r.now(_LEASED) < 0.95:
        return text + " The capacity errors name droplets without a lease.", "DWFM"
    if r.now(_DELAY) > 120.0:
        return text + " Instances that launch wait for their network state before they connect.", "Network Manager"
    return text, ""


def _network(r: _Reader) -> Finding:
    queue, delay = r.now(("Network Manager", "propagation queue")), r.now(_DELAY)
    if queue <= 0 and delay <= 120.0:
        return "No backlog; network state reaches new instances in the normal time.", ""
    return (
        f"Propagation backlog: {queue:,.0f} items waiting; new instances wait {delay / 60:.0f} minutes on "
        "average for their network state (normal: under 2).",
        "Network Manager" if delay > 120.0 else "",
    )


def _nlb(r: _Reader) -> Finding:
    flaps, removed = r.now(("NLB", "health-check flaps per minute")), r.now(("NLB", "capacity removed by AZ failover"))
    late, err = r.now(("NLB", "health-check latency")), r.now(_NLB_ERR)
    if max(flaps, removed, late, err) <= 0:
        return "Health checks normal; every AZ in DNS.", ""
    flapping = f"{flaps:g} target state changes a minute, all on targets registered in the last hours (new instances)"
    return (
        f"Health checks: {flapping if flaps > 0 else 'no target changing state'}; results arrive {late:.0f} s late "
        f"(an AZ whose results are {_FAILOVER_S:.0f} s old is failed over); AZ failover has removed {removed:.0%} of "
        f"capacity from DNS; connections failing: {err:.1%}.",
        "NLB",
    )


def _caller(system: str, r: _Reader) -> Finding:
    """A service of the dependency graph: its errors are those of what it requires."""
    alarm = next(a for a in ALARMS if a.system == system and a.watches and a.points_to == "")
    failing = [(key, r.now(key)) for key in alarm.watches if r.now(key) > 0.01]
    if not failing:
        return "No errors calling what it depends on.", ""
    words = []
    for key, value in failing:
        if key == _API:
            what = "does not resolve" if r.now(_EMPTY) > 0.5 else "fails"
            words.append(f"calls to DynamoDB fail ({value:.0%}): {_ENDPOINTS['DynamoDB']} {what}")
        else:
            words.append(f"calls through {_SIGNAL_SYSTEM[key]} fail ({value:.0%})")
    key = failing[0][0]
    return "Errors: " + "; ".join(words) + ".", "dns:DynamoDB" if key == _API and r.now(_EMPTY) > 0.5 else ""


_LOGS: dict[str, Callable[[_Reader], Finding]] = {
    "DynamoDB": _dynamodb,
    "DWFM": _dwfm,
    "EC2": _ec2,
    "Network Manager": _network,
    "NLB": _nlb,
}


def _logs(system: str, r: _Reader) -> Finding:
    return _LOGS[system](r) if system in _LOGS else _caller(system, r)


def _health(key: tuple[str, str], r: _Reader) -> tuple[str, str]:
    """How one dependency is now, in words, and what that is evidence of ("" if it is well)."""
    v = r.now(key)
    if key == _EMPTY:
        return ("no addresses", "dns:DynamoDB") if v > 0.5 else ("addresses present", "")
    words = {
        _API: (f"API error rate {v:.0%}", "DynamoDB" if v > 0.05 else ""),
        _LEASED: (f"{v:.0%} of droplets hold a lease", "DWFM" if v < 0.95 else ""),
        _DELAY: (f"new instances wait {v / 60:.0f} min for network state", "Network Manager" if v > 120 else ""),
        _LAUNCH: (f"launch error rate {v:.0%}", "EC2" if v > 0.05 else ""),
        _NLB_ERR: (f"connection errors {v:.1%}", "NLB" if v > 0.01 else ""),
        ("NLB", "health-check latency"): (f"results {v:.0f} s late", "NLB" if v > 0 else ""),
    }
    return words[key]


#: What each system depends on in the chain model (the summary's account, as the models follow it),
#: as (what, the signal that shows its health) pairs.
_DEPENDS: dict[str, tuple[tuple[str, tuple[str, str]], ...]] = {
    "DynamoDB": (
        ("the regional endpoint's DNS record, kept by its DNS automation (DNS Planner, DNS Enactor)", _EMPTY),
    ),
    "EC2": (("DWFM, whose leases make droplets candidates for launches", _LEASED), ("Network Manager", _DELAY)),
    "DWFM": (("DynamoDB, which its state checks call", _API),),
    "Network Manager": (("DWFM, which held back the network state of its droplets' instances", _LEASED),),
    "NLB": (
        ("EC2, whose new instances become targets", _LAUNCH),
        ("Network Manager, which gives targets their network state", _DELAY),
        ("its health-check fleet", ("NLB", "health-check latency")),
    ),
}


def _dependencies(system: str, r: _Reader) -> Finding:
    if system in _DEPENDS:
        parts = [(what, *_health(key, r)) for what, key in _DEPENDS[system]]
    else:  # a service of the dependency graph: what it requires, with the edge's tag
        alarm = next(a for a in ALARMS if a.system == system and a.points_to == "")
        parts = [(_SIGNAL_SYSTEM[key], *_health(key, r)) for key in alarm.watches]
    text = "It depends on: " + "; ".join(f"{what} ({state})" for what, state, _ in parts) + "."
    return text, next((p for _, _, p in parts if p), "")


def _metrics(system: str, r: _Reader) -> Finding:
    if system == "DynamoDB":
        return f"Server errors: 0. Requests received: {1 - r.now(_API):.0%} of normal. Latency: normal.", ""
    if system == "EC2":
        return _ec2(r)
    if system == "DWFM":
        done, lost = r.total(("DWFM", "work completed"), 1800.0), r.total(("DWFM", "work timed out"), 1800.0)
        refused = r.total(("DWFM", "launches refused for capacity"), 1800.0)
        text = (
            f"Last 30 minutes: {done:,} leases established, {lost:,} items timed out; {refused:,} launches refused "
            f"for capacity; {r.now(_QUEUED):,.0f} items queued now; {r.now(_LEASED):.0%} of droplets leased."
        )
        return text, "DWFM" if lost > 0 or r.now(_LEASED) < 0.95 else ""
    if system == "Network Manager":
        refused = r.total(("Network Manager", "launches refused by throttle"), 1800.0)
        return _network(r)[0] + f" Launches refused by a throttle in the last 30 minutes: {refused:,}.", _network(r)[1]
    return _nlb(r)


_RESULTS: dict[str, Callable[[str, _Reader], Finding]] = {
    "dns_lookup": _lookup,
    "search_logs": _logs,
    "dependencies": _dependencies,
    "metrics": _metrics,
}


def series_of(signals: pd.DataFrame) -> Series:
    """``{(panel, signal): (times, values)}`` of ``labsupport.game.engine.signals``, each sorted by time."""
    return {
        (str(panel), str(signal)): (part["time_s"].to_numpy(dtype=float), part["value"].to_numpy(dtype=float))
        for (panel, signal), part in signals.groupby(["panel", "signal"], sort=False, observed=True)
    }


def findings(
    actions: pd.DataFrame, signals: pd.DataFrame, horizon_s: float, *, series: Series | None = None
) -> pd.DataFrame:
    """The result of each investigation in a played log, read when it comes back.

    Args:
        actions: the log as played (``labsupport.game.engine.fold``'s frame: ``time_s``, ``action``,
            ``outcome``); entries whose outcome is ``"investigating"`` are read.
        signals: ``labsupport.game.engine.signals`` of the run, over the whole game.
        horizon_s: the game's end; a result due after it never comes.
        series: :func:`series_of` of ``signals``, if the caller has it already.

    Returns:
        One row per result, in the order they come back: ``time_s`` (float64, when it came back),
        ``started_s`` (float64), ``action``, ``verb``, ``system``, ``text`` (the finding, the model's)
        and ``points_to`` (string: what it is evidence of, ``""`` if nothing).
    """
    played = actions[actions["outcome"] == "investigating"]
    series = series_of(signals) if series is None and len(played) else (series or {})
    rows = []
    for started, name in zip(played["time_s"], played["action"], strict=True):
        action = _BY_NAME[str(name)]
        due = float(started) + action.cost_s
        if due > horizon_s:
            continue
        text, points = _RESULTS[action.verb](action.system, _Reader(series, due))
        rows.append((due, float(started), action.name, action.verb, action.system, text, points))
    frame = pd.DataFrame(rows, columns=list(FINDING_COLUMNS)).sort_values(["time_s", "started_s"], kind="stable")
    strings = {c: "string" for c in FINDING_COLUMNS[2:]}
    return frame.astype({"time_s": "float64", "started_s": "float64", **strings}).reset_index(drop=True)
