"""Lab 7's exercises (game day), checked against the game's own plays of the chain model.

Every answer comes from :func:`labsupport.game.play` on AWS's night (:data:`labsupport.game.AWS_ACTIONS`,
the actions the post-event summary times) or a variant of it, scored as the game scores every night
(:mod:`labsupport.game.score`); the chain model's results are the model's, not facts about AWS.
Each ``exN(answer)`` returns a :class:`~labsupport.feedback.Feedback` and never raises; each
``model_exN()`` returns the model's answer as a read-only dict (cached).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from .. import game
from ..feedback import Feedback, boolean, choice, feedback, review
from ..game import AWS_ACTIONS, CLOCK, HORIZON_S, GameConfig, play

__all__ = [
    "COLLAPSE_HELD_REPORTS",
    "COLLAPSE_QUEUE",
    "ex1",
    "ex2",
    "ex3",
    "model_ex1",
    "model_ex2",
    "model_ex3",
]

#: Exercise 3's alarm fires on DWFM work queued above this many items, while more times out than completes, ...
COLLAPSE_QUEUE = 1000
#: ... for this many 5-minute reports in a row (15 minutes held).
COLLAPSE_HELD_REPORTS = 4


@functools.cache
def _aws_night() -> game.GameResult:
    return play(GameConfig(actions=AWS_ACTIONS, clock_s=HORIZON_S))


@functools.cache
def model_ex1() -> Mapping[str, Any]:
    """AWS's night without ``relax_throttles``: ``over`` (bool), ``verdict`` (one of
    :data:`labsupport.game.VERDICTS`) and ``ec2_recovered_at_s`` (None: EC2 never counts as recovered)."""
    night = play(GameConfig(actions=tuple(e for e in AWS_ACTIONS if e[1] != "relax_throttles"), clock_s=HORIZON_S))
    return MappingProxyType(
        {
            "over": bool(night.summary.over),
            "verdict": night.summary.verdict,
            "ec2_recovered_at_s": night.chain.summary.ec2_recovered_at_s,
        }
    )


def ex1(answer: object) -> Feedback:
    """Check Exercise 1: ``{"over": True/False, "why": "..."}``."""
    m = model_ex1()
    why = (
        "A throttle never relaxed is never unwound: EC2 never counts as recovered "
        f"(the game's verdict: {m['verdict']!r})."
    )
    checks = {
        "over": lambda v: boolean("over", v, m["over"], why=why, by="the game"),
        "why": lambda v: review("why", v, min_words=8),
    }
    note = (
        "A strong answer names the rule: launches refused with 'request limit exceeded' count as failing while a "
        "throttle is in force, so the event ends only once someone unwinds it. A throttle is a recovery tool with a "
        "cost, and someone has to own taking it off."
    )
    return feedback("Exercise 1", answer, checks, note=note)


@functools.cache
def model_ex2() -> Mapping[str, Any]:
    """AWS's night with NLB failover off at 5:30 AM instead of 9:36 AM: ``nlb_minutes`` (``"aws"`` and
    ``"early"``: NLB connection-minutes), ``verdict`` (the early night's), ``nlb_end_s`` (the NLB
    stage's end in each, keyed the same) and ``failover_off_s`` (how long failover is off in each,
    seconds, from :func:`labsupport.game.debrief.failover_cost`; 0 if never off)."""
    early_log = tuple((CLOCK.seconds("2025-10-20 05:30") if n == "disable_failover" else t, n) for t, n in AWS_ACTIONS)
    nights = {"aws": _aws_night(), "early": play(GameConfig(actions=early_log, clock_s=HORIZON_S))}
    nlb_end, minutes, off = {}, {}, {}
    for k, r in nights.items():
        stage = r.chain.stages.loc[r.chain.stages["stage"].astype(str) == "NLB connection errors", "end_s"]
        nlb_end[k] = float(stage.iloc[0])
        minutes[k] = float(r.impact.loc[r.impact["measure"] == "NLB connection errors", "yours"].iloc[0])
        cost = game.debrief.failover_cost(r)
        off[k] = 0.0 if cost is None else float(cost.off_s)
    return MappingProxyType(
        {
            "nlb_minutes": minutes,
            "verdict": nights["early"].summary.verdict,
            "nlb_end_s": nlb_end,
            "failover_off_s": off,
        }
    )


def ex2(answer: object) -> Feedback:
    """Check Exercise 2: ``{"fewer_nlb_errors": True/False, "verdict": one of the game's verdicts}``."""
    m = model_ex2()
    minutes = m["nlb_minutes"]
    checks = {
        "fewer_nlb_errors": lambda v: boolean(
            "fewer_nlb_errors",
            v,
            minutes["early"] < minutes["aws"],
            why=f"{minutes['early']:.0f} NLB connection-minutes against {minutes['aws']:.0f} in AWS's play: with "
            "failover off, delayed health checks no longer take a whole AZ's capacity out of DNS.",
            by="the game",
        ),
        "verdict": lambda v: choice(
            "verdict",
            v,
            m["verdict"],
            game.VERDICTS,
            why="At 5:30 AM nothing on the team's screen pointed to the NLB yet, so the score calls the action "
            "hindsight and does not compare the night with AWS's.",
            by="the game",
        ),
    }
    return feedback("Exercise 2", answer, checks)


@functools.cache
def model_ex3() -> Mapping[str, Any]:
    """An alarm on DWFM's collapse, evaluated on AWS's night from 2:25 AM: work queued above
    :data:`COLLAPSE_QUEUE` items while more work times out than completes, for
    :data:`COLLAPSE_HELD_REPORTS` reports in a row. ``fires_at_s`` (float, the chain clock, or None),
    ``after_dns_s`` (seconds after 2:25 AM) and ``before_intervention_s`` (seconds before 4:14 AM)."""
    signals = _aws_night().signals
    sig = signals.pivot_table(index="time_s", columns="signal", values="value", aggfunc="last").ffill()
    dns_back, intervention = CLOCK.seconds("2:25 AM"), CLOCK.seconds("4:14 AM")
    after = sig.loc[sig.index >= dns_back]
    signature = (after["work queued"] > COLLAPSE_QUEUE) & (after["work timed out"] > after["work completed"])
    held = signature.rolling(COLLAPSE_HELD_REPORTS).sum() == COLLAPSE_HELD_REPORTS
    fires = float(held[held].index.min()) if held.any() else None
    return MappingProxyType(
        {
            "fires_at_s": fires,
            "after_dns_s": None if fires is None else fires - dns_back,
            "before_intervention_s": None if fires is None else intervention - fires,
        }
    )


def ex3(answer: object) -> Feedback:
    """Check Exercise 3's form: ``{"signal": "...", "threshold": "...", "evidence": "..."}``, each in words."""
    m = model_ex3()
    checks = {name: (lambda v, name=name: review(name, v)) for name in ("signal", "threshold", "evidence")}
    fired = (
        f"fires at {CLOCK.time_of_day(m['fires_at_s'])} on AWS's night, {m['after_dns_s'] / 60:.0f} min after DNS "
        f"came back and {m['before_intervention_s'] / 60:.0f} min before the intervention at 4:14 AM"
        if m["fires_at_s"] is not None
        else "never fires on AWS's night"
    )
    note = (
        "Strong signals: the share of DWFM's work that times out before it completes (wasted work, the opposite of "
        "goodput), or queue depth against leases established per minute; a queue that grows while goodput does not "
        f"is congestive collapse. In the model, an alarm on work queued above {COLLAPSE_QUEUE:,} items while more "
        f"times out than completes, held for 15 minutes, {fired}."
    )
    return feedback("Exercise 3", answer, checks, note=note)
