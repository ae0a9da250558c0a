"""A score that cannot be gamed: impact beside stage ends, each against AWS's play, and hindsight named.

Every figure is the chain model's, and every comparison is with **AWS's play in the same model**
(AWS's actions at AWS's times), so the model's own error cancels; AWS's real times stand beside
them. A difference counts only outside the model's **calibration band**: the course holds each of
the chain's calibrated stage durations within 20 % of the post-event summary's
(:func:`labsupport.chain.calibration`, ``tolerance_fraction=0.2``), so the model cannot tell apart
two nights whose figures differ by less. For a figure the band is 20 % of AWS's play's figure; for
a stage's end, 20 % of the summary's length of that impact period (DynamoDB 2 h 52 min: 34 min).
Each impact figure is read off the night's signals from the game's start to its horizon
(:func:`impact_measures`), never cut to a stage's window: a stage still going at the horizon, or
one the model has not begun by then (launches fail while DNS is still down), counts to the horizon.

An action that acts on the models is **hindsight** when nothing on the team's screen pointed to
what it acts on when it was taken: no alarm, no post, no investigation result (the evidence each
needs: :data:`NEEDS`). A night with hindsight is not compared with AWS's: its verdict says so. A
status update acts on no model and is never hindsight, whenever it is posted: it is communication,
not a remedy (a post before any alarm tells customers nothing they can act on, and changes nothing
the models compute); its time stands in the stage-end table, which never ranks a night.
Impact ranks a night (customers' requests failing, in customer-minutes; a night within the band
there but worse on another impact row, and better on none, is worse); stage ends are shown beside it
and never rank it, because a stage can end sooner for the wrong reason (automatic NLB failover never
turned off ends the NLB stage early, at more connection errors, and is worse).
"""

from __future__ import annotations

import functools
import math
from typing import cast

import numpy as np
import pandas as pd

from .. import timeline
from .alarms import ALARMS
from .config import ACTIONS, CLOCK

__all__ = [
    "BAND_FRACTION",
    "IMPACT_ROWS",
    "IMPACT_SIGNALS",
    "NEEDS",
    "VERDICTS",
    "band_of_end",
    "compare",
    "customer_minutes",
    "hindsight",
    "impact_measures",
    "impact_table",
    "signal_minutes",
]

#: The model's calibration band, as a fraction (:func:`labsupport.chain.calibration`'s tolerance).
BAND_FRACTION = 0.2
#: The impact rows, in order, each a (measure, unit) pair.
IMPACT_ROWS: tuple[tuple[str, str], ...] = (
    ("Customers' requests failing", "customer-minutes"),
    ("DynamoDB API errors", "customer-minutes"),
    ("Launches failing", "launch-minutes"),
    ("NLB connection errors", "connection-minutes"),
    ("Launches refused", "launches"),
)
#: A night's verdicts.
VERDICTS: tuple[str, ...] = (
    "hindsight",
    "not over",
    "better than AWS's play",
    "the same as AWS's play, within the model's band",
    "worse than AWS's play",
)
#: What must be on the team's screen (alarm, post or finding) before an action that acts on the
#: models counts as a decision rather than hindsight, as evidence keys of
#: :attr:`labsupport.game.alarms.Alarm.points_to` (or an alarm's system). A status update
#: (``"communicate"``) acts on no model and is not judged.
NEEDS: dict[str, tuple[str, ...]] = {
    "repair_dns": ("dns:DynamoDB",),
    "stop_automation": ("dns:DynamoDB",),
    "throttle_ec2": ("DWFM", "EC2"),
    "restart_dwfm": ("DWFM",),
    "throttle_network": ("Network Manager",),
    "disable_failover": ("NLB",),
}
#: What each post of the night points to (the timeline row -> evidence keys).
POST_POINTS: dict[str, tuple[str, ...]] = {
    "dash-potential-cause": ("dns:DynamoDB",),
    "dash-root-cause": ("NLB", "EC2"),
}
_PERIOD_ROWS = {
    "DynamoDB unreachable": "dynamodb_errors",
    "Launches failing": "launch_failures",
    "NLB connection errors": "nlb_period",
    "Whole event": "whole_event",
}
_LABEL = {a.name: a.label for a in ACTIONS}


#: Each impact row's source, the signal it integrates over the game (``labsupport.game.engine.SIGNALS``
#: and ``EXTRA_SIGNALS``): measure -> (panel, signal) pairs, summed; a share is integrated over time
#: (minutes of it), a count is added up.
IMPACT_SIGNALS: dict[str, tuple[tuple[str, str], ...]] = {
    "Customers' requests failing": (("Customers", "requests failing"),),
    "DynamoDB API errors": (("DynamoDB", "API error rate"),),
    "Launches failing": (("EC2", "launch error rate"),),
    "NLB connection errors": (("NLB", "connection error rate"),),
    "Launches refused": (
        ("DWFM", "launches refused for capacity"),
        ("Network Manager", "launches refused by throttle"),
    ),
}


def _rows(signals: pd.DataFrame, panel: str, signal: str, horizon_s: float) -> tuple[np.ndarray, np.ndarray]:
    rows = signals[(signals["panel"] == panel) & (signals["signal"] == signal)]
    rows = rows[rows["time_s"] <= horizon_s]
    return rows["time_s"].to_numpy(dtype=float), rows["value"].to_numpy(dtype=float)


def signal_minutes(signals: pd.DataFrame, panel: str, signal: str, horizon_s: float) -> float:
    """A share signal (``"fraction"``) integrated from the game's start to ``horizon_s``, in minutes of it.

    Each sample is the worst share over the interval that ends at it (as the dashboards report it),
    so it counts for that interval. Nothing beyond the horizon counts, and nothing is cut to a
    stage's window: a share still failing at the horizon counts to the horizon, whether or not its
    stage began or ended in the game (the score's impact is what the dashboards showed).

    Args:
        signals: ``labsupport.game.engine.signals`` (``time_s``, ``panel``, ``signal``, ``value``).
        panel, signal: the signal's names.
        horizon_s: the game's end, seconds on the chain clock.
    """
    t, v = _rows(signals, panel, signal, horizon_s)
    return float((v[1:] * np.diff(t)).sum() / 60.0) if len(t) > 1 else 0.0


def customer_minutes(signals: pd.DataFrame, horizon_s: float) -> float:
    """The "Customers: requests failing" signal integrated over the game, in customer-minutes
    (:func:`signal_minutes`)."""
    return signal_minutes(signals, "Customers", "requests failing", horizon_s)


def impact_measures(signals: pd.DataFrame, horizon_s: float) -> dict[str, float]:
    """Each impact row's figure (:data:`IMPACT_ROWS`) of one night, read off its signals up to ``horizon_s``.

    The shares (customers' requests, DynamoDB's API errors, launches, NLB connections failing) are
    integrated from the game's start to the horizon (:func:`signal_minutes`), the refused launches
    added up to the horizon (DWFM's for lack of capacity and those refused by a network throttle).
    No row is cut to a stage's window: launches that fail to the horizon count to the horizon, also
    when their stage (the summary's period, from DNS restored) has not begun or not ended by then.

    Args:
        signals: ``labsupport.game.engine.signals`` of the night.
        horizon_s: the game's end, seconds on the chain clock.

    Returns:
        measure (a name of :data:`IMPACT_ROWS`) -> figure (float, in the row's unit).
    """
    out = {}
    for measure, unit in IMPACT_ROWS:
        pairs = IMPACT_SIGNALS[measure]
        if unit == "launches":
            out[measure] = float(sum(_rows(signals, p, s, horizon_s)[1].sum() for p, s in pairs))
        else:
            out[measure] = sum(signal_minutes(signals, p, s, horizon_s) for p, s in pairs)
    return out


def impact_table(yours: dict[str, float], aws: dict[str, float]) -> pd.DataFrame:
    """The impact rows, yours beside AWS's play, each with the band and a verdict.

    Args:
        yours, aws: measure (a name of :data:`IMPACT_ROWS`) -> figure (the model's).

    Returns:
        One row per :data:`IMPACT_ROWS`: ``measure``, ``unit`` (string), ``yours``, ``aws_play``,
        ``band_low``, ``band_high`` (float64: AWS's play's figure times 1 -/+ :data:`BAND_FRACTION`)
        and ``verdict`` (string: ``"less"``, ``"more"`` or ``"within the band"``).
    """
    rows = []
    for measure, unit in IMPACT_ROWS:
        mine, theirs = float(yours[measure]), float(aws[measure])
        low, high = theirs * (1 - BAND_FRACTION), theirs * (1 + BAND_FRACTION)
        verdict = "less" if mine < low else "more" if mine > high else "within the band"
        rows.append((measure, unit, mine, theirs, low, high, verdict))
    frame = pd.DataFrame(rows, columns=["measure", "unit", "yours", "aws_play", "band_low", "band_high", "verdict"])
    return frame.astype({"measure": "string", "unit": "string", "verdict": "string"})


def band_of_end(row: str) -> float:
    """The band (seconds) around AWS's play's end of a score row: 20 % of the summary's length of that
    impact period; 0 for the first status update (the team's own time, not a model's)."""
    return _bands().get(row, 0.0)


@functools.cache
def _bands() -> dict[str, float]:
    d = timeline.durations()
    return {
        row: BAND_FRACTION * cast(pd.Timedelta, d.at[period, "duration"]).total_seconds()
        for row, period in _PERIOD_ROWS.items()
    }


def compare(yours: float, aws_play: float, band_s: float) -> str:
    """A stage's end against AWS's play's: ``"sooner"``, ``"later"`` or ``"within the band"`` (NaN: ``"n/a"``)."""
    if math.isnan(yours) or math.isnan(aws_play):
        return "n/a"
    return "sooner" if yours < aws_play - band_s else "later" if yours > aws_play + band_s else "within the band"


def _evidence(alarms: pd.DataFrame, findings: pd.DataFrame, feed: pd.DataFrame) -> list[tuple[float, str, str]]:
    """Everything that has been on the team's screen: (time, evidence key, what it was), in time order."""
    points = {a.name: a.points_to or a.system for a in ALARMS}
    out = [
        (float(t), points[str(name)], f"alarm '{name}'")
        for t, name, state in zip(alarms["time_s"], alarms["alarm"], alarms["state"], strict=True)
        if state == "ALARM"
    ]
    out += [
        (float(t), str(p), f"your '{_LABEL[str(a)]}'")
        for t, a, p in zip(findings["time_s"], findings["action"], findings["points_to"], strict=True)
        if p
    ]
    for t, rid in zip(feed["time_s"], feed["id"], strict=True):
        out += [(float(t), key, "the Health Dashboard's post") for key in POST_POINTS.get(str(rid), ())]
    return sorted(out, key=lambda e: e[0])


def hindsight(actions: pd.DataFrame, alarms: pd.DataFrame, findings: pd.DataFrame, feed: pd.DataFrame) -> pd.DataFrame:
    """Each action in effect that acts on the models, with what on the team's screen justified it.

    Args:
        actions: the log as played (``time_s``, ``action``, ``in_effect``).
        alarms, findings, feed: the whole game's alarm transitions, investigation results and posts
            (:func:`labsupport.game.alarms.evaluate`, :func:`labsupport.game.investigate.findings`,
            ``labsupport.game.engine.feed``).

    Returns:
        One row per such action, in the order played: ``time_s`` (float64), ``action``, ``label``,
        ``evidence`` (string: the first thing on the screen that pointed to it, ``""`` if none),
        ``evidence_s`` (float64, when it appeared; NaN if none before the action), ``hindsight``
        (bool: nothing pointed to it yet) and ``first_sign`` (string: for a hindsight action, the
        first thing that came to point to it, and when; ``""`` if nothing did in the game).
    """
    seen = _evidence(alarms, findings, feed)
    rows = []
    for t, name, live in zip(actions["time_s"], actions["action"], actions["in_effect"], strict=True):
        needs = NEEDS.get(str(name))
        if not live or needs is None:
            continue
        hit = next((e for e in seen if e[0] <= t and e[1] in needs), None)
        later = next((e for e in seen if e[1] in needs), None) if hit is None else None
        first = "" if later is None else f"{later[2]} at {CLOCK.time_of_day(later[0])}"
        found = ("", math.nan) if hit is None else (hit[2], hit[0])
        rows.append((float(t), str(name), _LABEL[str(name)], *found, first))
    frame = pd.DataFrame(rows, columns=["time_s", "action", "label", "evidence", "evidence_s", "first_sign"])
    frame.insert(5, "hindsight", frame["evidence"].eq("").astype(bool))
    strings = {c: "string" for c in ("action", "label", "evidence", "first_sign")}
    return frame.astype({"time_s": "float64", "evidence_s": "float64", **strings})
