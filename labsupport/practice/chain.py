"""Practice on the chain model: some of the six stop points switched on, and what is left of the event.

Scenario:
    ``practice(seed)`` switches on a random set of the six stop points (none to three of them) and
    asks how long the event lasts from 11:48 PM and how many of its three stages (DynamoDB
    unreachable, launches failing, NLB connection errors) remain. The check runs
    :func:`labsupport.chain.run` and says why from the run's stages.
Covers:
    The whole chain as :mod:`labsupport.chain` models it, calibrated to the post-event summary's
    stage boundaries, and the six stop points of the seed articles::

        seed ──rng──> stop points on ──chain.run──> total hours; stages left, with their lengths
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from .. import chain as model
from ..feedback import Part, number
from ..timeline import format_duration
from ._problem import Problem, rng

__all__ = ["ChainProblem", "practice"]

#: What each stop point does, in a few words (the seed articles' list, as lab 05 gives it).
POINTS = {
    1: "compare versions when writing",
    2: "never delete a plan in use",
    3: "refuse empty records",
    4: "recover automatically from the inconsistent state",
    5: "throttle work during recovery, and limit what health checks may remove",
    6: "no hidden dependence on one Region",
}


@dataclass(frozen=True)
class ChainProblem(Problem):
    """The chain with some stop points on: see :func:`practice`.

    ``config`` is its :class:`~labsupport.chain.ChainConfig`.
    """

    model = "chain"
    fields = (
        ("total_h", "hours the event lasts, from 11:48 PM (0 if nothing fails)"),
        ("stages_left", "how many of the three stages remain: 0 to 3"),
    )
    hint = "Run it: r = chain.run(problem.config); r.summary.total_s / 3600 and len(r.stages)."

    def _solve(self) -> Mapping[str, Any]:
        r = model.run(self.config)
        pairs = zip(r.stages["stage"], r.stages["duration_s"], strict=True)
        stages = [f"{stage} ({format_duration(float(length))})" for stage, length in pairs]
        return {"total_h": r.summary.total_s / 3_600, "stages_left": len(r.stages), "stages": stages}

    def _parts(self, m: Mapping[str, Any]) -> dict[str, Callable[[Any], Part]]:
        return {
            "total_h": lambda v: number("total_h", v, m["total_h"], tolerance=0.05, unit="h"),
            "stages_left": lambda v: number("stages_left", v, m["stages_left"], tolerance=0),
        }

    def _why(self, m: Mapping[str, Any]) -> str:
        left = "; ".join(m["stages"]) if m["stages"] else "none"
        return f"Why: the stages that remain: {left}."


def practice(seed: int = 0) -> ChainProblem:
    """A fresh chain problem drawn from ``seed`` (the same seed, the same problem).

    Args:
        seed: an integer from 0 to 2**63 - 1.

    Returns:
        A :class:`ChainProblem` whose config is :data:`labsupport.chain.INCIDENT` with zero to three
        stop points on (``stop_points``) and the model's ``seed`` drawn.

    Raises:
        ConfigError: ``seed`` is not an integer from 0 to 2**63 - 1.
    """
    r = rng(seed, "chain")
    points = sorted(r.sample(sorted(POINTS), r.randint(0, 3)))
    cfg = replace(model.INCIDENT, stop_points=model.StopPoints.of(*points), seed=r.randrange(2**31))
    on = "; ".join(f"{p}, {POINTS[p]}" for p in points) if points else "none"
    text = (
        f"The whole chain of the outage (chain.INCIDENT, model seed {cfg.seed}) with these stop points on: {on}. "
        "How many hours does the event last from 11:48 PM, and how many of its three stages remain?"
    )
    return ChainProblem(seed=int(seed), config=cfg, text=text)
