"""The debrief's notes: why a night that beats AWS's in the model would not have worked on the real one.

The chain model is simpler than the night: it repairs DNS the moment a team acts, and it has no
AZ that really fails. Where a team's night gains from what the model leaves out, :func:`notes`
says so with the sources, and, where the model can, shows the cost: with automatic NLB failover
turned off, the NLB model runs again with one AZ really failing for 30 minutes
(:func:`failover_cost`), once with failover as the team left it and once with it on::

    GameResult --> hindsight actions, early DNS repair, DNS never repaired, failover off (NLB what-if
                   runs), failover never touched, throttle relaxed too soon, not over --> notes (Markdown)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

from .. import chain
from ..timeline import format_duration
from . import engine as _en
from .config import CLOCK
from .model import GameResult
from .night import AWS_ACTIONS

__all__ = ["AZ_DOWN_S", "FailoverCost", "failover_cost", "notes"]

#: How long the what-if's AZ is really down, seconds (the cost of failover left off is shown for one such failure).
AZ_DOWN_S = 1800.0


@dataclass(frozen=True)
class FailoverCost:
    """What one real AZ failure costs in the model while automatic failover is off (the NLB model's).

    Attributes:
        off_s: how long failover was off in the NLB run (seconds, to the game's end).
        on_s: when it came back on (chain clock; the game's end if never).
        at_s: when the what-if's AZ goes down (chain clock): half an hour into the off window, or its start.
        cost_off: NLB connection errors the failure adds, failover as the team left it (connection-minutes).
        cost_on: the same failure's added errors with automatic failover on all night (connection-minutes).
    """

    off_s: float
    on_s: float
    at_s: float
    cost_off: float
    cost_on: float


def _nlb_minutes(result: chain.ChainResult) -> float:
    n = result.runs.nlb
    return 0.0 if n is None else float((n.timeseries["error_fraction"] * n.config.sample_interval_s).sum() / 60.0)


@functools.lru_cache(maxsize=16)
def _with_az_down(ops: chain.OperatorActions, at_s: float) -> float:
    """The NLB's connection-minutes of ``ops``' night with its first AZ down for :data:`AZ_DOWN_S` from ``at_s``."""
    base = _en.chain_run(ops)
    back = base.times.leases_back_s
    assert back is not None  # the caller checked that the NLB ran
    nlb = replace(chain.INCIDENT.nlb, az_down_at_s=at_s - back, az_down_s=AZ_DOWN_S)
    return _nlb_minutes(chain.run(replace(chain.INCIDENT, nlb=nlb), operators=ops))


def failover_cost(result: GameResult) -> FailoverCost | None:
    """The cost, in the model, of one real AZ failure while the team had automatic NLB failover off.

    Returns:
        A :class:`FailoverCost`, or ``None`` if failover was never off while the NLB model ran.
    """
    t, horizon = result.chain.times, result.config.horizon_s
    back, off = t.leases_back_s, t.failover_disabled_s
    if result.chain.runs.nlb is None or back is None or off is None:
        return None
    on = horizon if t.failover_reenabled_s is None else t.failover_reenabled_s
    if on <= off:
        return None
    at = off + 1800.0 if on - off >= 3600.0 else off
    at = min(at, back + result.chain.runs.nlb.config.network.horizon_s)
    ops, _ = _en.fold(result.config.actions, horizon)
    always_on = replace(ops, failover_disabled_at_s=None, failover_reenabled_at_s=None)
    cost_off = _with_az_down(ops, at) - _nlb_minutes(result.chain)
    cost_on = _with_az_down(always_on, at) - _nlb_minutes(_en.chain_run(always_on))
    return FailoverCost(on - off, on, at, max(0.0, cost_off), max(0.0, cost_on))


def _when(t: float) -> str:
    return CLOCK.time_of_day(t)


def _hindsight_notes(result: GameResult) -> list[str]:
    out = []
    late = result.hindsight[result.hindsight["hindsight"]]
    for t, label, first in zip(late["time_s"].tolist(), late["label"], late["first_sign"], strict=True):
        later = f" (the first came later: {first})" if first else ""
        out.append(
            f"**Hindsight:** *{label}* at {_when(t)}: nothing on your screen pointed to it yet{later}. "
            "The score does not compare this night with AWS's."
        )
    return out


def _dns_note(result: GameResult) -> list[str]:
    taken = result.actions[(result.actions["action"] == "repair_dns") & result.actions["in_effect"]]
    aws_restore = next(t for t, n in AWS_ACTIONS if n == "repair_dns")
    if taken.empty or float(taken["time_s"].iloc[0]) >= aws_restore:
        return []
    return [
        f"**DNS repaired at {_when(float(taken['time_s'].iloc[0]))}, at once in the model.** On the night the "
        "engineers identified DynamoDB's DNS state as the source at 12:38 AM, temporary mitigations let some "
        "internal services reach DynamoDB and repaired key internal tooling at 1:15 AM, and all DNS information "
        "was restored at 2:25 AM (the post-event summary); the alarm pointing to the cause took 15 minutes to "
        "find in the noise (DAT453, AWS's later talk, not the summary). The model's repair time is the moment you "
        "act, an input, not something it simulates: a repair that is quicker than the night's is the model's "
        "simplification, not a plan that would have worked."
    ]


def _failover_notes(result: GameResult) -> list[str]:
    cost = failover_cost(result)
    if cost is not None:
        return [
            f"**Automatic NLB failover was off from {_when(cost.on_s - cost.off_s)} to {_when(cost.on_s)}** while "
            f"the NLB model ran ({format_duration(cost.off_s)}; AWS: 9:36 AM to 2:09 PM, 4 h 33 min). "
            f"Had one AZ really failed for {AZ_DOWN_S / 60:.0f} minutes from {_when(cost.at_s)}, the "
            f"model's NLB connection errors would have grown by {cost.cost_off:.1f} connection-minutes with failover "
            f"as you left it, against {cost.cost_on:.1f} with it on: the protection you gave up while it was off."
        ]
    if result.summary.nlb_end_s is None or not result.chain.stages["stage"].astype(str).eq(chain.STAGES[2]).any():
        return []
    nlb = result.impact.set_index("measure").loc["NLB connection errors"]
    return [
        f"**NLB failover on all through the NLB stage: it ended at {_when(result.summary.nlb_end_s)}**, when the "
        "flapping targets had their network state; AWS's period ran to 2:09 PM because the summary ends it when "
        "failover was turned back on, a precaution it kept while EC2 recovered. Meanwhile your customers saw "
        f"{nlb['yours']:.0f} connection-minutes of NLB errors against {nlb['aws_play']:.0f} in AWS's play: each "
        "failover took a whole AZ's capacity, instances that could serve included, out of DNS."
    ]


def _throttle_note(result: GameResult) -> list[str]:
    ops, back = _en.fold(result.config.actions, result.config.horizon_s)[0], result.chain.times.leases_back_s
    relaxed = ops.ec2_throttle_relaxed_at_s
    if relaxed is None or (back is not None and back <= relaxed):
        return []
    return [
        f"**The throttle on DWFM's incoming work was relaxed at {_when(relaxed)}**, before every droplet held a "
        "lease again: DWFM admitted every request once more"
        + (", and in the model its leases never all came back." if back is None else ".")
    ]


def _unrepaired_note(result: GameResult) -> list[str]:
    """DNS still empty at the horizon: why the launches stage has no bar, and what the launches cost all the same."""
    out, horizon = result.chain.times.outage, result.config.horizon_s
    if out is None or out[1] < horizon:
        return []
    rows = result.impact.set_index("measure")["yours"]
    return [
        f"**DynamoDB's DNS record was still empty at {_when(horizon)}.** The model's launches stage, like the "
        "summary's launch-failure period, begins when DNS is restored, so it had not begun by the game's end and "
        "the debrief chart draws no bar for it; launches failed all the same while DWFM could not reach DynamoDB: "
        f"{rows['Launches failing']:,.0f} launch-minutes and {rows['Launches refused']:,.0f} refused launches in "
        "the model, counted to the game's end in the impact table."
    ]


def notes(result: GameResult) -> list[str]:
    """The debrief's notes on ``result``: hindsight, and each gain that would not have held on the night.

    Args:
        result: a :func:`labsupport.game.play` result (its clock need not be at the end).

    Returns:
        Markdown paragraphs, model figures glued from the runs; ``[]`` for a night with nothing to say
        (AWS's own play says only what its failover window cost).
    """
    return [
        *_hindsight_notes(result),
        *_dns_note(result),
        *_unrepaired_note(result),
        *_failover_notes(result),
        *_throttle_note(result),
    ]
