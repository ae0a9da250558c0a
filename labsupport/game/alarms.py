"""The alarms a team's pager shows: fed by the models' signals, most of them symptoms.

DAT453 (AWS's re:Invent talk, not the summary) says the alarm pointing to the root cause took 15
minutes to find because it "got lost in the noise" [OTHER]. The game's alarms are the course's
design, not AWS's: one watches the DNS record of DynamoDB's regional endpoint and points to the
cause; the others watch the dashboards' signals, and one per service that requires DynamoDB in
the course's dependency graph (:mod:`labsupport.dependencies`) watches what that service calls,
so they all fire within minutes of one another. Each alarm is evaluated once a minute on the
signal's latest sample (``labsupport.game.engine.signals``): it fires when ``datapoints``
minutes in a row breach its threshold and clears when as many in a row do not, so its state at a
minute depends on nothing later (an action at ``t`` changes no alarm before ``t``)::

    signals (model, each value known at its time) --once a minute--> breach? --datapoints in a row-->
        ALARM / OK transitions  --play(config)--> the pager up to the clock, newest first
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import dependencies

__all__ = ["ALARMS", "ALARM_COLUMNS", "Alarm", "evaluate"]

#: The columns of :func:`evaluate`, in order.
ALARM_COLUMNS: tuple[str, ...] = ("time_s", "alarm", "system", "state", "value", "threshold")


@dataclass(frozen=True)
class Alarm:
    """One alarm (the course's design).

    Attributes:
        name: as the pager shows it (real names; a disguised game renames them).
        system: the system it belongs to (a key of :data:`labsupport.game.SYSTEMS`, or ``"Customers"``).
        watches: the ``(panel, signal)`` pairs of ``labsupport.game.engine.signals`` it reads; with
            several, the worst of them.
        threshold: the value it compares with.
        below: it breaches below the threshold (else above it).
        datapoints: minutes in a row that breach to fire, and that do not to clear (1 to 15).
        points_to: what it is evidence of for the score's hindsight check: ``"dns:DynamoDB"`` (the
            regional endpoint's record), a system's name (that system is unwell), or ``""``.
        reading: what it tells, for the debrief: the cause, or a symptom of what.
    """

    name: str
    system: str
    watches: tuple[tuple[str, str], ...]
    threshold: float
    below: bool = False
    datapoints: int = 3
    points_to: str = ""
    reading: str = ""


_API = ("DynamoDB", "API error rate")
_LAUNCH = ("EC2", "launch error rate")
_NLB = ("NLB", "connection error rate")
#: The dependency graph's nodes (us-east-1) the game has a system and a signal for.
_NODE_SYSTEM = {
    "Lambda": "Lambda",
    "STS": "STS",
    "Console sign-in (IAM users)": "Console sign-in",
    "Redshift cluster": "Redshift",
    "AWS Support Center": "Support Center",
    "Amazon Connect": "Connect",
}
_NODE_SIGNAL = {"DynamoDB": _API, "EC2 instance launches": _LAUNCH, "NLB health checks": _NLB, "Lambda": _API}


def _symptoms() -> tuple[Alarm, ...]:
    """One error alarm per service that requires DynamoDB in us-east-1 (the dependency graph, tags
    above UNVERIFIED), watching the worst of the signals of what it requires."""
    edges = dependencies.load()
    edges = edges[
        (edges["dependent_region"] == "us-east-1")
        & (edges["dependency_region"] == "us-east-1")
        & (edges["kind"] == "requires")
        & (edges["tag"] != "UNVERIFIED")
    ]
    out = []
    for node, system in _NODE_SYSTEM.items():
        needs = [str(d) for d in edges.loc[edges["dependent"] == node, "dependency"]]
        watches = tuple(dict.fromkeys(_NODE_SIGNAL[d] for d in needs if d in _NODE_SIGNAL))
        called = ", ".join(d for d in needs if d in _NODE_SIGNAL)
        out.append(
            Alarm(
                f"{system}: error rate above 5 %",
                system,
                watches,
                0.05,
                reading=f"a symptom: {system} fails with what it requires ({called})",
            )
        )
    return tuple(out)


#: The pager's alarms, the one that points to the cause first, then the dashboards', then one per
#: service that requires DynamoDB.
ALARMS: tuple[Alarm, ...] = (
    Alarm(
        "DNS: dynamodb.us-east-1.amazonaws.com resolves to no addresses",
        "DynamoDB",
        (("DynamoDB", "regional endpoint answers empty"),),
        0.5,
        datapoints=1,
        points_to="dns:DynamoDB",
        reading="points to the cause: the regional endpoint's DNS record is empty",
    ),
    Alarm(
        "DynamoDB: API error rate above 5 %",
        "DynamoDB",
        (_API,),
        0.05,
        reading="a symptom: clients cannot resolve the endpoint, so their requests never arrive",
    ),
    Alarm(
        "EC2: launch error rate above 5 %",
        "EC2",
        (_LAUNCH,),
        0.05,
        reading="a symptom: DWFM's leases lapse (insufficient capacity), later new instances wait for network state",
    ),
    Alarm(
        "DWFM: droplets with a lease below 95 %",
        "DWFM",
        (("DWFM", "droplets with a lease"),),
        0.95,
        below=True,
        datapoints=1,
        points_to="DWFM",
        reading="DWFM is unwell: its state checks fail while DynamoDB is unreachable, then it cannot keep up",
    ),
    Alarm(
        "DWFM: work queued above 1,000",
        "DWFM",
        (("DWFM", "work queued"),),
        1000.0,
        datapoints=1,
        points_to="DWFM",
        reading="the mechanism of the collapse: queued lease work that times out and is queued again",
    ),
    Alarm(
        "Network Manager: propagation delay above 2 minutes",
        "Network Manager",
        (("Network Manager", "propagation delay"),),
        120.0,
        points_to="Network Manager",
        reading="Network Manager's backlog: new instances wait for their network state",
    ),
    Alarm(
        "NLB: health checks flapping",
        "NLB",
        (("NLB", "health-check flaps per minute"),),
        0.0,
        datapoints=1,
        points_to="NLB",
        reading="misleading: the flapping targets are new instances still waiting for their network state",
    ),
    Alarm(
        "NLB: capacity removed by AZ failover",
        "NLB",
        (("NLB", "capacity removed by AZ failover"),),
        0.0,
        datapoints=1,
        points_to="NLB",
        reading="the NLB's health checks are late, and each failover takes a whole AZ's capacity out of DNS",
    ),
    Alarm(
        "NLB: connection error rate above 1 %",
        "NLB",
        (_NLB,),
        0.01,
        points_to="NLB",
        reading="customers' connections through the NLBs fail",
    ),
    Alarm(
        "Customers: requests failing above 5 %",
        "Customers",
        (("Customers", "requests failing"),),
        0.05,
        reading="a symptom of everything at once",
    ),
    *_symptoms(),
)


def _minute_values(
    series: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]], watches: tuple[tuple[str, str], ...], grid: np.ndarray
) -> np.ndarray:
    """The worst of the watched signals at each minute of ``grid``: each one's latest sample at or before it."""
    worst = np.full(len(grid), -np.inf)
    for key in watches:
        times, values = series.get(key, (np.zeros(1), np.zeros(1)))  # a signal with no sample reads 0
        at = np.searchsorted(times, grid, side="right") - 1
        worst = np.maximum(worst, np.where(at >= 0, values[np.maximum(at, 0)], 0.0))
    return worst


def evaluate(signals: pd.DataFrame, horizon_s: float) -> pd.DataFrame:
    """Every alarm's transitions over the game, from the signals of one run (filter by time to play).

    Args:
        signals: ``labsupport.game.engine.signals`` of the run (its ``time_s``, ``panel``,
            ``signal`` and ``value`` columns; sorted by time within a signal).
        horizon_s: the game's end, seconds; alarms are evaluated at each whole minute from 1 to it.

    Returns:
        One row per transition, in time order (then :data:`ALARMS` order): ``time_s`` (float64, the
        minute it happened), ``alarm`` and ``system`` (string), ``state`` (string: ``"ALARM"`` or
        ``"OK"``), ``value`` (float64, the worst watched value then) and ``threshold`` (float64).
    """
    grid = np.arange(60.0, horizon_s + 1e-9, 60.0)
    series = {
        (str(panel), str(signal)): (part["time_s"].to_numpy(dtype=float), part["value"].to_numpy(dtype=float))
        for (panel, signal), part in signals.groupby(["panel", "signal"], sort=False, observed=True)
    }
    rows = []
    for alarm in ALARMS:
        values = _minute_values(series, alarm.watches, grid)
        breach = values < alarm.threshold if alarm.below else values > alarm.threshold
        firing, run = False, 0
        for k, b in enumerate(breach.tolist()):
            run = run + 1 if b != firing else 0
            if run >= alarm.datapoints:
                firing, run = not firing, 0
                state = "ALARM" if firing else "OK"
                rows.append((float(grid[k]), alarm.name, alarm.system, state, float(values[k]), alarm.threshold))
    frame = pd.DataFrame(rows, columns=list(ALARM_COLUMNS))
    order = {a.name: i for i, a in enumerate(ALARMS)}
    frame = frame.sort_values(["time_s", "alarm"], key=lambda c: c.map(order) if c.name == "alarm" else c)
    return (
        frame.astype(
            {"time_s": "float64", "value": "float64", "threshold": "float64", "alarm": "string", "system": "string"}
        )
        .astype({"state": "string"})[list(ALARM_COLUMNS)]
        .reset_index(drop=True)
    )
