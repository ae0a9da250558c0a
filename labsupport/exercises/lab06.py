"""Lab 6's exercises (every interleaving), checked against the explicit-state explorer.

Every answer comes from :func:`labsupport.explore.run` or :func:`labsupport.explore.states_table` on the
explorer's incident bounds (:data:`labsupport.explore.INCIDENT`: three Enactors, four plan
generations, one endpoint) or a variant; the explorer searches every interleaving of the DNS
Planner/Enactor protocol the post-event summary describes, with the rollback record of AWS's later
talk. Each ``exN(answer)`` returns a :class:`~labsupport.feedback.Feedback` and never raises; each
``model_exN()`` returns the explorer's answer as a read-only dict (cached).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

import pandas as pd

from .. import explore, race
from ..feedback import Feedback, Part, answered, boolean, feedback, review

__all__ = ["ex1", "ex2", "ex3", "ex4", "model_ex1", "model_ex2", "model_ex3", "model_ex4", "rollback_dangles"]

INC = explore.INCIDENT


@functools.cache
def model_ex1() -> Mapping[str, Any]:
    """One Enactor, six plan generations, no guard: ``safe``, ``recovers`` and
    ``stale_overwrite_reachable`` (bools)."""
    s = explore.run(replace(INC, enactor_count=1, generation_count=6)).summary
    return MappingProxyType(
        {
            "safe": bool(s.safe),
            "recovers": bool(s.recovers),
            "stale_overwrite_reachable": bool(s.stale_overwrite_reachable),
        }
    )


def ex1(answer: object) -> Feedback:
    """Check Exercise 1: ``{"safe": True/False, "stale_overwrite_reachable": True/False}``."""
    m = model_ex1()
    why = "With one Enactor there is no interleaving to get wrong: its check and its write describe the same world."
    checks = {
        "safe": lambda v: boolean("safe", v, m["safe"], by="the explorer"),
        "stale_overwrite_reachable": lambda v: boolean(
            "stale_overwrite_reachable", v, m["stale_overwrite_reachable"], why=why, by="the explorer"
        ),
    }
    return feedback("Exercise 1", answer, checks)


@functools.cache
def model_ex2() -> Mapping[str, Any]:
    """Clean-up keeping 2 generations, no guard: ``safe`` keyed by the plan generations (4 and 5)."""
    return MappingProxyType(
        {
            "safe": {
                g: bool(explore.run(replace(INC, cleanup_keep_generations=2, generation_count=g)).summary.safe)
                for g in (4, 5)
            }
        }
    )


def ex2(answer: object) -> Feedback:
    """Check Exercise 2: ``{"safe_with_4": True/False, "safe_with_5": True/False}``."""
    m = model_ex2()["safe"]
    why = (
        "With plans 1 to 4 the clean-up after plan 4 deletes only plan 1, older than anything a stale Enactor "
        "holds; with a fifth plan, the clean-up after plan 5 deletes plans 1 and 2, and the race is back."
    )
    checks = {
        "safe_with_4": lambda v: boolean("safe_with_4", v, m[4], by="the explorer"),
        "safe_with_5": lambda v: boolean("safe_with_5", v, m[5], why=why, by="the explorer"),
    }
    return feedback("Exercise 2", answer, checks)


def rollback_dangles(states: pd.DataFrame) -> pd.Series:
    """For each row of :func:`labsupport.explore.states_table`: True where the regional endpoint's
    rollback record points at a plan whose tree no longer exists."""
    return pd.Series(
        [
            str(r) not in t.split(",")
            for r, t in zip(states["regional_rollback"], states["regional_trees"], strict=True)
        ],
        index=states.index,
        dtype=bool,
    )


@functools.cache
def model_ex3() -> Mapping[str, Any]:
    """Each guard alone: ``dangling`` (guard name -> safe states whose rollback record dangles) and
    ``keeps`` (the guards with none, sorted)."""
    dangling = {}
    for g in explore.GUARDS:
        states = explore.states_table(replace(INC, guards=race.Guards(**{g: True}))).query("safe")
        dangling[g] = int(rollback_dangles(states).sum())
    return MappingProxyType({"dangling": dangling, "keeps": tuple(sorted(g for g, n in dangling.items() if n == 0))})


def ex3(answer: object) -> Feedback:
    """Check Exercise 3: ``{"guards_that_keep_it": [guard names], "guard_3_keeps_it": True/False}``."""
    m = model_ex3()
    names = tuple(explore.GUARDS)

    def keeps(v: object) -> Part:
        if not answered(v):
            return Part("guards_that_keep_it", "not answered", f"give a list of guard names from {names}.")
        if not isinstance(v, (list, tuple, set)) or not all(g in names for g in v):
            return Part(
                "guards_that_keep_it", "cannot check", f"this part takes a list of names from {names}, got {v!r}."
            )
        counts = ", ".join(f"{g}: {n}" for g, n in m["dangling"].items())
        if sorted(set(v)) == list(m["keeps"]):
            return Part("guards_that_keep_it", "right", f"Safe states with a dangling rollback record: {counts}.")
        return Part(
            "guards_that_keep_it",
            "wrong",
            f"you said {sorted(set(v))}; the explorer gives {list(m['keeps'])}. Safe states with a dangling rollback "
            f"record: {counts}.",
        )

    checks = {
        "guards_that_keep_it": keeps,
        "guard_3_keeps_it": lambda v: boolean(
            "guard_3_keeps_it",
            v,
            "reject_empty_records" in m["keeps"],
            why="Guard 3 passes the course's safety property and fails this stronger one: which property you check "
            "decides what 'safe' means.",
            by="the explorer",
        ),
    }
    return feedback("Exercise 3", answer, checks)


@functools.cache
def model_ex4() -> Mapping[str, Any]:
    """Exercise 4 is a design question: no model answer (an empty dict)."""
    return MappingProxyType({})


def ex4(answer: object) -> Feedback:
    """Check Exercise 4's form: ``{"mechanism_1": "...", "mechanism_2": "..."}``, each in words."""
    checks = {name: (lambda v, name=name: review(name, v, min_words=15)) for name in ("mechanism_1", "mechanism_2")}
    note = (
        "Strong mechanisms: replay the model's shortest counterexamples as scripted schedules against the real "
        "Enactor in a test harness (the October schedule would have failed while the guards were missing); write the "
        "model's invariants into the code as runtime checks (a clean-up that refuses to delete a tree an alias points "
        "at); keep the model beside the code, changed in the same review and checked in CI at small bounds."
    )
    return feedback("Exercise 4", answer, checks, note=note)
