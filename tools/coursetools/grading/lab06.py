"""Lab 06's graded version, the instructor's side: the key, the reference rule and the hidden checks.

Scenario:
    The student's side (each id's protocol bounds, its config, the prediction) is
    :mod:`labsupport.assignments.lab06`. The checks below compute every expected answer from the
    collected id with :mod:`labsupport.explore` at grading time (no answer is stored anywhere) and
    run the student's conditional delete, compiled from the notebook's source, over every
    interleaving.
Covers:
    The PES's DynamoDB section (the clean-up that deleted the active plan); DAT453's rollback
    record (AWS's later explanation).

::

    collected id --key(id)--> the answers     student's cleanup_delete --check_delete_*--> pass / fail
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import asdict

from labsupport import explore
from labsupport._memo import cached_run
from labsupport.assignments.lab06 import ASSIGNMENT, PROTOCOL_VARIANTS, config, config_of_bounds, params
from labsupport.explore import engine
from labsupport.strategy import DeleteRequest, call_strategy

from ._shared import answer_check, check_prediction, prediction_answers, recorded_requests
from .spec import Answer, Check, Question, Spec

__all__ = [
    "SPEC",
    "check_counterexample_steps",
    "check_delete_keeps_what_is_in_use",
    "check_delete_on_other_protocols",
    "check_delete_on_your_protocol",
    "check_delete_removes_what_is_unused",
    "check_states_count",
    "key",
    "protocol_faults",
    "reference_cleanup_delete",
]


def reference_cleanup_delete(request: DeleteRequest) -> bool:
    """A conditional delete: delete a plan tree only if neither the alias nor the rollback record
    points at it (the rule of guard 2, ``delete_only_unreferenced``)."""
    return request.plan != request.active_plan and request.plan != request.rollback_plan


def key(student_id: str) -> dict[str, object]:
    """The instructor's key for ``student_id``: the bounds and the expected measured answers.

    Returns:
        ``{"student_id", "enactor_count", "generation_count", "endpoint_count",
        "cleanup_keep_generations", "states_count", "counterexample_steps_count"}`` (ints but the
        id); the design question's answer is :func:`reference_cleanup_delete` (or any rule that
        passes the checks).
    """
    p = params(student_id)
    s = cached_run(explore.run, config(student_id)).summary
    return {
        "student_id": p.student_id,
        "enactor_count": p.enactor_count,
        "generation_count": p.generation_count,
        "endpoint_count": p.endpoint_count,
        "cleanup_keep_generations": p.cleanup_keep_generations,
        "states_count": s.states_count,
        "counterexample_steps_count": s.counterexample_steps_count,
    }


def _check_count(answer: object, student_id: str, name: str, variable: str) -> None:
    expected = key(student_id)[name]
    assert isinstance(answer, int) and not isinstance(answer, bool), (
        f"{variable} must be a Python int (int(...) turns a numpy integer into one)"
    )
    assert answer == expected, f"{variable} is not what your protocol gives"


def check_states_count(answer: object, student_id: str) -> None:
    """The measured number of reachable states equals the explorer's for the id."""
    _check_count(answer, student_id, "states_count", "states_count")


def check_counterexample_steps(answer: object, student_id: str) -> None:
    """The measured length of the shortest counterexample equals the explorer's for the id."""
    _check_count(answer, student_id, "counterexample_steps_count", "counterexample_steps")


def _ask(rule: Callable[[DeleteRequest], bool], request: DeleteRequest) -> bool:
    return call_strategy("cleanup_delete", rule, request)


@functools.lru_cache(maxsize=64)
def _seen_requests(student_id: str) -> tuple[DeleteRequest, ...]:
    """Every request the reference rule is asked in ``student_id``'s protocol (once per distinct request)."""
    return recorded_requests(explore.run, config(student_id), "cleanup_delete", reference_cleanup_delete)


def _table(student_id: str) -> list[DeleteRequest]:
    """Made-up requests over both endpoints and plans 1 to 6 (every plan older than the plan just
    applied, with every active and rollback plan), then every one the checker asks in the graded
    id's protocol, so that a table cannot be told apart from a check."""
    made_up = [
        DeleteRequest(endpoint, plan, active, rollback, applied)
        for endpoint in explore.ENDPOINT_NAMES
        for applied in range(2, 7)
        for plan in range(1, applied)
        for active in range(1, 7)
        for rollback in range(1, 7)
    ]
    return made_up + list(_seen_requests(student_id))


def check_delete_keeps_what_is_in_use(rule: Callable[[DeleteRequest], bool], student_id: str) -> None:
    """Never delete the plan the endpoint's alias or its rollback record points at."""
    for request in _table(student_id):
        if request.plan in (request.active_plan, request.rollback_plan):
            used = "active" if request.plan == request.active_plan else "rollback"
            assert _ask(rule, request) is False, f"the {used} plan was deleted: {request}"


def check_delete_removes_what_is_unused(rule: Callable[[DeleteRequest], bool], student_id: str) -> None:
    """Delete every plan that neither the alias nor the rollback record points at (clean-up still cleans)."""
    for request in _table(student_id):
        if request.plan not in (request.active_plan, request.rollback_plan):
            assert _ask(rule, request) is True, f"a plan nothing points at was kept: {request}"


def protocol_faults(cfg: explore.ExploreConfig) -> list[str]:
    """What the exhaustive check of ``cfg`` finds wrong with its clean-up, as sentences (empty: nothing).

    Four properties over every reachable state: no endpoint's alias points at a deleted plan tree
    (safety); from every state the newest plan can still be applied everywhere (recovery); no
    rollback record points at a deleted plan tree (a rollback is always one alias flip away, lab
    06's exercise 3); and at rest (newest plan applied everywhere, every Enactor idle) no endpoint
    holds more than ``cleanup_keep_generations + 2`` plan trees (the active plan, the rollback plan
    and the generations clean-up keeps: clean-up still cleans).
    """
    graph = engine.search(cfg)
    e, keep, generations = cfg.endpoint_count, cfg.cleanup_keep_generations, cfg.generation_count
    faults = []
    bad = int(graph.bad.sum())
    if bad:
        faults.append(f"{bad} reachable states have an endpoint whose alias points at a deleted plan (empty)")
    if len(graph.stuck):
        faults.append(f"{len(graph.stuck)} reachable states can never get the newest plan applied everywhere")
    dangling = sum(engine.rollback_dangles(s, e) for s in graph.states)
    if dangling:
        faults.append(f"{dangling} reachable states have a rollback record pointing at a deleted plan")
    most = max((engine.most_trees(s, e) for s in graph.states if engine.at_rest(s, e, generations)), default=0)
    if most > keep + 2:
        faults.append(
            f"at rest an endpoint still holds {most} plan trees (at most {keep + 2}): clean-up does not clean"
        )
    return faults


def _assert_sound(rule: Callable[[DeleteRequest], bool], bounds: tuple[int, int, int, int]) -> None:
    faults = protocol_faults(config_of_bounds(bounds, rule))
    enactors, plans, endpoints, keep = bounds
    label = f"{enactors} Enactors, {plans} plans, {endpoints} endpoint{'s' if endpoints > 1 else ''}, keep {keep}"
    assert not faults, f"{label}: " + "; ".join(faults)


def check_delete_on_your_protocol(rule: Callable[[DeleteRequest], bool], student_id: str) -> None:
    """Every interleaving of the id's protocol with the rule: :func:`protocol_faults` finds nothing."""
    p = params(student_id)
    _assert_sound(rule, (p.enactor_count, p.generation_count, p.endpoint_count, p.cleanup_keep_generations))


def check_delete_on_other_protocols(rule: Callable[[DeleteRequest], bool], student_id: str) -> None:
    """The same on the protocols of :data:`PROTOCOL_VARIANTS`."""
    for bounds in PROTOCOL_VARIANTS:
        _assert_sound(rule, bounds)


def _prepare(student_id: str) -> None:
    key(student_id)
    _seen_requests(student_id)


SPEC = Spec(
    assignment=ASSIGNMENT,
    questions=(
        Question("q1_predict", 1),
        Question("q2_measure", 2),
        Question("q3_design", 4),
        Question("q4_explain", 3, manual=True),
    ),
    answers=(
        *prediction_answers({"states": ("int", 1, 10**12), "steps": ("int", 1, 10**12)}),
        Answer("states_count", "states_count", "int", 1, 10**12),
        Answer("counterexample_steps", "counterexample_steps", "int", 1, 10**12),
    ),
    strategy="cleanup_delete",
    strategy_field="cleanup_delete",
    checks=(
        Check("q1_predict", "made before the run", 1, "prediction", check_prediction),
        answer_check("q2_measure", "states_count", 1, check_states_count, "states_count"),
        answer_check("q2_measure", "counterexample_steps", 1, check_counterexample_steps, "counterexample_steps"),
        Check("q3_design", "keeps what is in use", 1, "strategy", check_delete_keeps_what_is_in_use),
        Check("q3_design", "removes what is unused", 1, "strategy", check_delete_removes_what_is_unused),
        Check("q3_design", "your protocol", 1, "strategy", check_delete_on_your_protocol),
        Check("q3_design", "other protocols", 1, "strategy", check_delete_on_other_protocols),
    ),
    references=(reference_cleanup_delete,),
    prepare=_prepare,
    params=lambda i: {k: v for k, v in asdict(params(i)).items() if k != "student_id"},
    key=key,
    prediction=("states", "steps"),
)
