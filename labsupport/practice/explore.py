"""Practice on the explorer: a protocol's bounds and a guard, and whether every interleaving is safe.

Scenario:
    ``practice(seed)`` draws bounds for the DNS Planner/Enactor protocol (two or three Enactors,
    three to five plan generations, a clean-up that keeps one to three generations, one endpoint)
    and either no guard or one of the four, and asks: is the protocol safe over every interleaving,
    and if not, how many steps is its shortest counterexample? The check runs
    :func:`labsupport.explore.run` and says why: how many states it searched, and for a
    counterexample, what its last steps did.
Covers:
    The race as :mod:`labsupport.explore` models it, breadth first over every interleaving, with the
    safety property "no alias points at a deleted plan tree"::

        seed ──rng──> Enactors, plans, clean-up age, guard ──explore.run──> safe? shortest counterexample
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from .. import explore as model
from .. import race
from ..feedback import Part, boolean, number
from ._problem import Problem, rng

__all__ = ["ExploreProblem", "practice"]

#: The guards, by their number in the course (1 to 4).
GUARD_NUMBERS = {name: i + 1 for i, name in enumerate(model.GUARDS)}


@dataclass(frozen=True)
class ExploreProblem(Problem):
    """A protocol to check: see :func:`practice`. ``config`` is its :class:`~labsupport.explore.ExploreConfig`."""

    model = "explore"
    fields = (
        ("safe", "True or False: is the endpoint never empty, over every interleaving?"),
        ("steps", "steps of the shortest counterexample, or 0 if it is safe"),
    )
    hint = (
        "Run it: s = explore.run(problem.config).summary; s.safe and s.counterexample_steps_count; "
        "explore.run(...).counterexample lists the steps."
    )

    def _solve(self) -> Mapping[str, Any]:
        result = model.run(self.config)
        s = result.summary
        steps = int(s.counterexample_steps_count) if not s.safe else 0
        return {"safe": bool(s.safe), "steps": steps, "states": int(s.states_count)}

    def _parts(self, m: Mapping[str, Any]) -> dict[str, Callable[[Any], Part]]:
        return {
            "safe": lambda v: boolean("safe", v, m["safe"], by="the explorer"),
            "steps": lambda v: number("steps", v, m["steps"], tolerance=0, unit="steps", by="the explorer"),
        }

    def _why(self, m: Mapping[str, Any]) -> str:
        verdict = (
            "no reachable state has an alias pointing at a deleted tree"
            if m["safe"]
            else f"breadth first, the first bad state it meets is {m['steps']} steps from the start"
        )
        return f"Why: the explorer searched {m['states']:,} states; {verdict}."


def practice(seed: int = 0) -> ExploreProblem:
    """A fresh explorer problem drawn from ``seed`` (the same seed, the same problem).

    Args:
        seed: an integer from 0 to 2**63 - 1.

    Returns:
        An :class:`ExploreProblem`. Its config varies :data:`labsupport.explore.INCIDENT`:
        ``enactor_count`` (2 or 3), ``generation_count`` (3 to 5), ``cleanup_keep_generations``
        (1 to 3) and ``guards`` (none, or one of the four), one endpoint.

    Raises:
        ConfigError: ``seed`` is not an integer from 0 to 2**63 - 1.
    """
    r = rng(seed, "explore")
    enactors, plans, keep = r.choice((2, 3)), r.randint(3, 5), r.choice((1, 1, 2, 3))
    guard = r.choice((None, None, *model.GUARDS))
    guards = race.Guards(**({guard: True} if guard else {}))
    cfg = replace(
        model.INCIDENT,
        enactor_count=enactors,
        generation_count=plans,
        cleanup_keep_generations=keep,
        endpoint_count=1,
        guards=guards,
    )
    on = f"guard {GUARD_NUMBERS[guard]} alone ({guard})" if guard else "no guard"
    text = (
        f"The DNS Planner/Enactor protocol with {enactors} Enactors, plans 1 to {plans}, a clean-up that deletes plans "
        f"more than {keep} generations older than the one just applied, one endpoint, and {on}. Over every "
        "interleaving, is the endpoint never empty? If it can go empty, how many steps is the shortest way there?"
    )
    return ExploreProblem(seed=int(seed), config=cfg, text=text)
