"""Lab 8's exercises (write the Enactor), checked by running the learner's own step in both engines.

An answer here holds code: the learner's DNS Enactor step, a generator function of
:mod:`labsupport.enactor`'s contract. Exercise 1's check is :func:`labsupport.explore.check_step`
(every interleaving at :data:`~labsupport.explore.STEP_CHECK_BOUNDS`, then the race simulation over
50 seeds), and it lists the step's shortest counterexample, in its own operations, while there is
one. Exercises 2 and 3 ask for a step the exercise describes: the check first confirms that the
learner's step does what the text says (:func:`first_difference`, then the state space with two
endpoints), then compares the predicted verdicts with the explorer's on :data:`REFERENCE_STEPS`,
the steps the text describes, at :data:`labsupport.explore.INCIDENT_STEP`'s bounds (two Enactors,
plans 1 to 4, the regional endpoint, a clean-up that keeps one generation).

The model follows the PES's DNS Enactor as :mod:`labsupport.enactor` does: one Route 53 transaction
per operation, a clean-up of plans "significantly older" than the one just applied, and the
rollback record of AWS's talk DAT453. Each ``exN(answer)`` returns a
:class:`~labsupport.feedback.Feedback` and never raises, whatever the step does (a step that breaks
its contract gets its error as the message); each ``model_exN()`` returns the explorer's answer as a
read-only dict (cached). No step here passes Exercise 1's check: the references are the wrong steps
that Exercises 2 and 3 ask about.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any, cast

import pandas as pd

from .. import enactor, explore
from ..enactor import StepFunction
from ..errors import ConfigError, LimitExceeded
from ..feedback import Feedback, Part, answered, boolean, feedback
from ..route53 import Read, ZoneView
from ..strategy import RunBudget, strategy_name

__all__ = [
    "COMPARE_ZONES",
    "REFERENCE_STEPS",
    "cas_only_reference",
    "cleanup_careful_reference",
    "cleanup_careless_reference",
    "ex1",
    "ex2",
    "ex3",
    "first_difference",
    "model_ex1",
    "model_ex2",
    "model_ex3",
]

INC = explore.INCIDENT_STEP


def cas_only_reference(plan, endpoints, keep, read, write, delete):
    """Exercise 2's step: read, one compare-and-set write if the alias is older (no retry), the incident's clean-up."""
    for endpoint in endpoints:
        zone = yield read(endpoint)
        if zone.alias < plan:
            yield write(endpoint, plan, expect=zone)
    for endpoint in endpoints:
        zone = yield read(endpoint)
        for old in zone.trees:
            if old < plan - keep:
                yield delete(endpoint, old)


def _cleanup_only(*, expect: bool, stop_on_refusal: bool) -> StepFunction:
    """Exercise 3's step: the incident's blind writes, then delete only a tree neither record refers to."""

    def step(plan, endpoints, keep, read, write, delete):
        for endpoint in endpoints:
            committed = yield write(endpoint, plan)
            if not committed and stop_on_refusal:
                return
        for endpoint in endpoints:
            zone = yield read(endpoint)
            for old in zone.trees:
                if old < plan - keep and old not in (zone.alias, zone.rollback):
                    yield (delete(endpoint, old, expect=zone) if expect else delete(endpoint, old))

    step.__name__ = step.__qualname__ = f"cleanup_{'careful' if expect else 'careless'}_reference"
    delete = "with expect=zone on its delete" if expect else "without expect= on its delete (read, decide, then delete)"
    refusal = "ends the step on a refused write, as the incident's does" if stop_on_refusal else "goes on after one"
    step.__doc__ = f"Exercise 3's step: the incident's blind writes, then the careful clean-up, {delete}; {refusal}."
    return step


#: Exercise 3's step with ``expect=zone`` on its delete, and without it (the decision and the delete
#: are then two atomic steps). Both end the step on a refused write, as the incident's does.
cleanup_careful_reference = _cleanup_only(expect=True, stop_on_refusal=True)
cleanup_careless_reference = _cleanup_only(expect=False, stop_on_refusal=True)

#: The steps Exercises 2 and 3 describe, by exercise, each under what sets it apart. A learner's step
#: must do what one of them does. Exercise 3 takes either delete, and a write loop that ends the step
#: on a refused write (the incident's) or goes on.
REFERENCE_STEPS: Mapping[int, Mapping[str, StepFunction]] = MappingProxyType(
    {
        2: MappingProxyType({"a compare-and-set write, no retry": cas_only_reference}),
        3: MappingProxyType(
            {
                "with expect=zone on its delete": cleanup_careful_reference,
                "without expect= on its delete": cleanup_careless_reference,
                "with expect=zone on its delete, going on after a refused write": _cleanup_only(
                    expect=True, stop_on_refusal=False
                ),
                "without expect= on its delete, going on after a refused write": _cleanup_only(
                    expect=False, stop_on_refusal=False
                ),
            }
        ),
    }
)

# The small world first_difference compares two steps in: plan 4 on the regional endpoint, and a
# clean-up that keeps one generation (plans 1 and 2 are old enough).
COMPARE_PLAN, COMPARE_KEEP, COMPARE_ENDPOINTS = 4, 1, ("regional",)
#: What a read may return in the small world :func:`first_difference` compares two steps in (plan 4
#: on the regional endpoint, a clean-up keeping one generation): an older alias, this plan's, a newer
#: one, and a stale overwrite's (alias 2, rollback 4).
COMPARE_ZONES = (
    ZoneView("regional", 3, 2, (1, 2, 3)),
    ZoneView("regional", 4, 3, (1, 2, 3, 4)),
    ZoneView("regional", 5, 4, (1, 2, 3, 4, 5)),
    ZoneView("regional", 2, 4, (1, 2, 4)),
)


def _ops(fn: StepFunction, replies: tuple[object, ...], budget: RunBudget) -> list[object]:
    """The operations ``fn`` yields on the compare world's plan along ``replies`` (None once it returned)."""
    call = enactor.StepCall("step", fn, COMPARE_PLAN, COMPARE_ENDPOINTS, COMPARE_KEEP, budget)
    ops: list[object] = [call.advance()]
    for reply in replies:
        if ops[-1] is None:
            break
        ops.append(call.advance(cast(Any, reply)))
    call.close()
    return ops


def first_difference(
    step: StepFunction, reference: StepFunction
) -> tuple[tuple[tuple[object, object], ...], object, object] | None:
    """The first point where ``step`` yields another operation than ``reference``, or None if there is none.

    Both steps run on plan 4 of the regional endpoint (clean-up keeps 1), fed every sequence of
    replies the reference can get there: each read answered with each zone of
    :data:`COMPARE_ZONES`, each write and delete with ``True`` and ``False``. Depth first, the
    first sequence after which the two steps yield different operations (or one returns) wins.

    Args:
        step: the learner's step (:mod:`labsupport.enactor`'s contract).
        reference: a step of :data:`REFERENCE_STEPS`.

    Returns:
        ``(history, reference's operation, step's operation)``: the operations both yielded, each
        with the reply it got, then what each yields next (None where a step returned); or None
        when the two agree on every sequence.

    Raises:
        ConfigError: either step breaks its contract (raises, yields something that is not an
            operation, takes too many Python steps or operations).
    """
    budget, todo = RunBudget(), [cast(tuple[object, ...], ())]
    while todo:
        replies = todo.pop()
        theirs, mine = _ops(reference, replies, budget), _ops(step, replies, budget)
        want, got = theirs[-1], mine[-1]
        if want != got:
            return tuple(zip(theirs, replies, strict=False)), want, got
        if want is not None:
            options: tuple[object, ...] = COMPARE_ZONES if isinstance(want, Read) else (False, True)
            todo += [(*replies, r) for r in reversed(options)]
    return None


def _said(history: tuple[tuple[object, object], ...]) -> str:
    if not history:
        return "at its start"
    return "after " + ", then ".join(f"{op} -> {reply}" for op, reply in history)


def _conforms(step: object, name: str, n: int, what: str) -> Part:
    """Whether ``step`` does what Exercise ``n`` describes (one of its :data:`REFERENCE_STEPS`), and why not."""
    if not answered(step):
        return Part(name, "not answered", f"give your step: the function you wrote, {what}.")
    try:
        enactor.check_step(name, step)
        fn = cast(StepFunction, step)
        found = [(label, ref, first_difference(fn, ref)) for label, ref in REFERENCE_STEPS[n].items()]
    except ConfigError as err:
        return Part(name, "cannot check", f"{err}.")
    match = [(label, ref) for label, ref, diff in found if diff is None]
    if not match:
        differ = [diff for _, _, diff in found if diff is not None]
        history, want, got = max(differ, key=lambda d: len(d[0]))  # where the agreement went furthest
        yours = "returns" if got is None else f"yields {got}"
        theirs = "returns" if want is None else f"yields {want}"
        return Part(
            name,
            "wrong",
            f"it is not the step the exercise describes: on plan {COMPARE_PLAN} of the regional endpoint, "
            f"{_said(history)}, your step {yours} where that step {theirs}.",
        )
    both = replace(INC, generation_count=3, endpoint_count=2, cleanup_keep_generations=0, max_states=200_000)
    try:
        mine, theirs_s = (explore.run(replace(both, enactor_step=f)).summary for f in (fn, match[0][1]))
    except (ConfigError, LimitExceeded) as err:
        return Part(name, "wrong", f"with two endpoints it could not be checked: {err}.")
    if (mine.states_count, mine.transitions_count) != (theirs_s.states_count, theirs_s.transitions_count):
        return Part(
            name,
            "wrong",
            f"on one endpoint it does what the exercise describes; with two endpoints its state space has "
            f"{mine.states_count:,} states, the described step's {theirs_s.states_count:,}: write every endpoint "
            "first, then clean every endpoint up, as the incident's step does.",
        )
    return Part(name, "right", f"{strategy_name(fn)} does what the exercise describes: {match[0][0]}.")


def _summary(step: StepFunction) -> Any:
    """The step at the lab's bounds, with :func:`labsupport.explore.check_step`'s cap on the states searched."""
    return explore.run(replace(INC, enactor_step=step, max_states=200_000))


def _counterexample_lines(events: pd.DataFrame) -> list[str]:
    """A counterexample of :func:`labsupport.explore.run`, one line per atomic step ("3. enactor-a: ...")."""
    lines = []
    for row in events.to_dict("records"):
        head = f"{row['step']}. {row['actor']}: "
        if row["action"] == "read":
            lines.append(f"{head}{row['operation']} -> {row['reply']}")
        elif row["operation"]:
            lines.append(f"{head}{row['operation']} -> {row['reply']}: {row['outcome']}")
        else:
            lines.append(f"{head}{row['action']}, plan {row['plan_generation']}: {row['outcome']}")
    return lines


@functools.cache
def model_ex1() -> Mapping[str, Any]:
    """What Exercise 1's check asks, and how its starting point (the incident's step) fares.

    Returns:
        ``checks`` (the rows of :func:`labsupport.explore.check_step`, a tuple of str) and
        ``incident_passed`` (each row's verdict for :func:`labsupport.enactor.incident_step`, bools).
    """
    rows = explore.check_step(enactor.incident_step)
    return MappingProxyType({"checks": tuple(rows["check"]), "incident_passed": tuple(bool(p) for p in rows["passed"])})


def _step_passes(step: object) -> tuple[Part, str]:
    if not answered(step):
        return Part("step", "not answered", "give your step: replace ... with my_step."), ""
    rows = explore.check_step(step)
    failed = rows.loc[~rows["passed"]]
    if len(rows) == 1 and not str(rows["check"].iat[0]).startswith("the race"):  # the contract, before any run
        return Part("step", "cannot check", f"{rows['why'].iat[0]}."), ""
    if failed.empty:
        bounds = len(explore.STEP_CHECK_BOUNDS)
        said = f"safe, recovers and cleans over every interleaving at {bounds} bounds, and {rows['check'].iat[-1]}"
        return Part("step", "right", f"all {len(rows)} checks pass: {said.replace('the race: ', 'in the race, ')}."), ""
    part = Part("step", "wrong", f"{len(failed)} of {len(rows)} checks fail: {'; '.join(failed['check'])}.")
    why = "Why each fails:\n\n" + "\n".join(f"- {c}: {w}." for c, w in zip(failed["check"], failed["why"], strict=True))
    if bool(rows["passed"].iat[0]):  # safe at the lab's bounds: no counterexample to list
        return part, why
    try:
        events = _summary(cast(StepFunction, step)).events
    except (ConfigError, LimitExceeded):
        return part, why
    if events.empty:
        return part, why
    lines = "\n".join(_counterexample_lines(events))
    return part, (
        f"{why}\n\nYour step's shortest counterexample (2 Enactors, plans 1 to 4, the regional endpoint), one atomic "
        f"step a line:\n\n{lines}"
    )


def ex1(answer: object) -> Feedback:
    """Check Exercise 1: ``{"step": my_step}``, a step that passes every row of :func:`~labsupport.explore.check_step`.

    Feedback: the rows that fail with their figures, and the step's shortest counterexample at
    :data:`~labsupport.explore.INCIDENT_STEP`'s bounds while there is one. Takes 10 to 30 s (the
    explorer at two bounds and 50 race runs).
    """
    notes: list[str] = []

    def step(v: object) -> Part:
        part, note = _step_passes(v)
        notes.append(note)
        return part

    fb = feedback("Exercise 1", answer, {"step": step})
    return replace(fb, note=" ".join(n for n in (fb.note, *notes) if n))


@functools.cache
def model_ex2() -> Mapping[str, Any]:
    """Exercise 2's step (:func:`cas_only_reference`) at the lab's bounds.

    Returns:
        ``safe``, ``recovers`` and ``stale_overwrite_reachable`` (bools); ``refused_by`` (the Enactor
        whose compare-and-set write was refused first), ``emptied_by`` and ``last_action`` (the last
        step's actor and its action in the race's vocabulary) of the shortest counterexample.
    """
    res = _summary(cas_only_reference)
    s, ev = res.summary, res.events
    refused = ev.loc[ev["race_action"] == "write_refused", "actor"]
    return MappingProxyType(
        {
            "safe": bool(s.safe),
            "recovers": bool(s.recovers),
            "stale_overwrite_reachable": bool(s.stale_overwrite_reachable),
            "refused_by": str(refused.iat[0]) if len(refused) else "",
            "emptied_by": str(ev["actor"].iat[-1]) if len(ev) else "",
            "last_action": str(ev["race_action"].iat[-1]) if len(ev) else "",
        }
    )


def ex2(answer: object) -> Feedback:
    """Check Exercise 2: ``{"step": cas_only_step, "safe": True/False, "stale_overwrite_reachable": True/False}``."""
    m = model_ex2()
    why = (
        "Every write that commits moves the alias forward, yet a refused compare-and-set only means that something "
        "changed: the Enactor that skips the endpoint on a refusal cleans up by age, and deletes the plan the alias "
        "points at."
    )
    checks: dict[str, Callable[[Any], Part]] = {
        "step": lambda v: _conforms(v, "step", 2, "cas_only_step"),
        "safe": lambda v: boolean("safe", v, m["safe"], why=why, by="the explorer"),
        "stale_overwrite_reachable": lambda v: boolean(
            "stale_overwrite_reachable", v, m["stale_overwrite_reachable"], by="the explorer"
        ),
    }
    return feedback("Exercise 2", answer, checks)


@functools.cache
def model_ex3() -> Mapping[str, Any]:
    """Exercise 3's steps at the lab's bounds, with and without ``expect=`` on the clean-up's delete.

    Returns:
        ``safe_with_expect``, ``recovers_with_expect``, ``stale_overwrite_reachable`` (with it) and
        ``safe_without_expect`` (bools); ``stale_writes_between`` (int: stale writes in the
        careless step's shortest counterexample between its cleaner's last read and the delete) and
        ``deleted_the_stale_plan`` (bool: that delete hit the plan the stale write put in place).
    """
    careful, careless = _summary(cleanup_careful_reference).summary, _summary(cleanup_careless_reference)
    ev = careless.events
    cleaner = ev["actor"].iat[-1]
    look = ev.loc[(ev["actor"] == cleaner) & (ev["action"] == "read"), "step"].iat[-1]
    stale = ev.loc[(ev["step"] > look) & (ev["race_action"] == "stale_write")]
    return MappingProxyType(
        {
            "safe_with_expect": bool(careful.safe),
            "recovers_with_expect": bool(careful.recovers),
            "stale_overwrite_reachable": bool(careful.stale_overwrite_reachable),
            "safe_without_expect": bool(careless.summary.safe),
            "stale_writes_between": len(stale),
            "deleted_the_stale_plan": bool(
                len(stale) == 1 and stale["plan_generation"].iat[0] == ev["plan_generation"].iat[-1]
            ),
        }
    )


def ex3(answer: object) -> Feedback:
    """Check Exercise 3: ``{"step": cleanup_only_step, "safe_with_expect": ..., "safe_without_expect": ...,
    "stale_overwrite_reachable": ...}`` (True/False each)."""
    m = model_ex3()
    why = (
        "Between the clean-up's read and its delete, a stale write can point the alias at the very tree the "
        "clean-up decided was unreferenced: the decision needs the read's condition in the same atomic step."
    )
    checks: dict[str, Callable[[Any], Part]] = {
        "step": lambda v: _conforms(v, "step", 3, "cleanup_only_step"),
        "safe_with_expect": lambda v: boolean("safe_with_expect", v, m["safe_with_expect"], by="the explorer"),
        "safe_without_expect": lambda v: boolean(
            "safe_without_expect", v, m["safe_without_expect"], why=why, by="the explorer"
        ),
        "stale_overwrite_reachable": lambda v: boolean(
            "stale_overwrite_reachable",
            v,
            m["stale_overwrite_reachable"],
            why="The writes are still blind: the endpoint can serve an older plan for a while, never an empty answer.",
            by="the explorer",
        ),
    }
    return feedback("Exercise 3", answer, checks)
