"""Lab 06's graded version (every interleaving): each student's protocol bounds, the key, the checks.

Scenario:
    Every student id gives its own protocol (:func:`params`): how many DNS Enactors run, how many
    plan generations the DNS Planner makes, how many endpoints each plan is applied to and how
    old a plan must be before clean-up reaches it, derived from the id with SHA-256
    (:mod:`labsupport.grading._shared`), always among bounds where the unguarded protocol can empty
    an endpoint and the search stays under 35,000 states. No guard is on; what keeps the clean-up
    safe is the conditional delete the student writes
    (:attr:`labsupport.explore.ExploreConfig.cleanup_delete`). The hidden tests of
    ``assignments/06-every-interleaving`` call the ``check_*`` functions below, which compute the
    expected answer from the id with :mod:`labsupport.explore` at grading time: no answer is stored.
Covers:
    The PES's DynamoDB section: the clean-up that deleted plans "significantly older" than the one
    just applied, and with them the active plan, leaving the regional endpoint empty; DAT453's
    rollback record (AWS's later explanation), which a deleted plan leaves dangling. The model
    checker searches every interleaving, so a delete rule passes only if no schedule breaks it.

::

    student id --sha256--> Lab06Params(enactors, generations, endpoints, keep) --> ExploreConfig
                                 (no guard) --> explore.run / engine.search
                                               '--> key(id): the answers
    hidden test: check_*(answer or cleanup_delete, notebook id) --graded_id--> the id the grader was given
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from .. import explore
from .._memo import cached_run
from ..errors import ConfigError
from ..explore import engine
from ..strategy import DeleteRequest, call_strategy
from ._shared import PredictionBase, check_course_intact, check_prediction_made, digest, graded_id, recorded_requests

__all__ = [
    "ASSIGNMENT",
    "BOUNDS",
    "PROTOCOL_VARIANTS",
    "Lab06Params",
    "Prediction",
    "check_counterexample_steps",
    "check_delete_keeps_what_is_in_use",
    "check_delete_on_other_protocols",
    "check_delete_on_your_protocol",
    "check_delete_removes_what_is_unused",
    "check_prediction",
    "check_states_count",
    "config",
    "key",
    "params",
    "protocol_faults",
    "reference_cleanup_delete",
]

#: The assignment's name (its folder under ``assignments/`` and otter's assignment name).
ASSIGNMENT = "06-every-interleaving"
#: The bounds a student id can get: (enactor_count, generation_count, endpoint_count,
#: cleanup_keep_generations). In each the unguarded protocol can empty an endpoint, and the search
#: reaches at most 35,000 states (a second or less); the test suite checks both. None is a
#: protocol of :data:`PROTOCOL_VARIANTS`.
BOUNDS: tuple[tuple[int, int, int, int], ...] = (
    (2, 4, 1, 0),
    (2, 4, 1, 1),
    (2, 4, 2, 0),
    (2, 4, 2, 1),
    (2, 5, 1, 0),
    (2, 5, 1, 1),
    (2, 5, 1, 2),
    (2, 5, 2, 1),
    (2, 5, 2, 2),
    (3, 3, 1, 0),
    (3, 3, 2, 0),
    (3, 4, 1, 0),
    (3, 4, 1, 1),
    (3, 4, 2, 1),
    (3, 5, 1, 1),
    (3, 5, 1, 2),
)
#: Protocols that are no student's own (not in :data:`BOUNDS`), on which the delete rule must also
#: hold: two endpoints with the most eager clean-up, and three Enactors with five plans and the
#: most eager clean-up.
PROTOCOL_VARIANTS: tuple[tuple[int, int, int, int], ...] = ((2, 5, 2, 0), (3, 5, 1, 0))


@dataclass(frozen=True)
class Lab06Params:
    """One student's protocol: the bounds of the exhaustive check.

    Attributes:
        student_id: the id the parameters come from.
        enactor_count: DNS Enactors (2 or 3).
        generation_count: plan generations the DNS Planner makes, plan 1 included (3 to 5).
        endpoint_count: endpoints each plan is applied to (1 or 2).
        cleanup_keep_generations: clean-up deletes plans more than this many generations older
            than the plan just applied (0 to 2).
    """

    student_id: str
    enactor_count: int
    generation_count: int
    endpoint_count: int
    cleanup_keep_generations: int


def params(student_id: str) -> Lab06Params:
    """The parameters of ``student_id``'s protocol (deterministic; raises ConfigError on an empty id)."""
    d = digest(ASSIGNMENT, student_id)
    return Lab06Params(student_id.strip(), *BOUNDS[int.from_bytes(d[:4], "big") % len(BOUNDS)])


def _config(bounds: tuple[int, int, int, int], cleanup_delete: Callable[[DeleteRequest], bool] | None = None):
    enactors, generations, endpoints, keep = bounds
    return replace(
        explore.INCIDENT,
        enactor_count=enactors,
        generation_count=generations,
        endpoint_count=endpoints,
        cleanup_keep_generations=keep,
        cleanup_delete=cleanup_delete,
    )


def config(student_id: str) -> explore.ExploreConfig:
    """The :class:`~labsupport.explore.ExploreConfig` of ``student_id``'s protocol: their bounds, no guard."""
    p = params(student_id)
    return _config((p.enactor_count, p.generation_count, p.endpoint_count, p.cleanup_keep_generations))


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


@dataclass
class Prediction(PredictionBase):
    """A prediction recorded in the notebook before the check it predicts (``Prediction()``, then
    :meth:`record`; its fields are set only by :meth:`record` and :meth:`run`).

    Attributes:
        states: the predicted number of distinct reachable states (count).
        steps: the predicted number of atomic steps of the shortest path to an empty endpoint (count).
        made_before_run: whether it was recorded before :meth:`run` was first called.
    """

    states: int | None = field(default=None, init=False)
    steps: int | None = field(default=None, init=False)

    def record(self, states: int, steps: int) -> None:
        """Record the prediction; raises ConfigError unless both are whole numbers >= 1."""
        for name, value in (("states", states), ("steps", steps)):
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
                raise ConfigError(f"{name} must be a whole number >= 1, got {value!r}")
        self.states, self.steps = int(states), int(steps)
        self._recorded()

    def run(self, student_id: str) -> explore.ExploreResult:
        """Check ``student_id``'s protocol (the measurement), after the prediction; raises ConfigError before it."""
        self._running(self.states, "states=..., steps=...")
        return explore.run(config(student_id))


# -- hidden checks: each raises AssertionError with a message the student can act on -----------------
def check_prediction(prediction: object) -> None:
    """Credit for a prediction made: a :class:`Prediction` recorded before the run."""
    check_prediction_made(prediction, Prediction, "states")


def _check_count(answer: object, notebook_id: str, name: str, variable: str) -> None:
    expected = key(graded_id(notebook_id))[name]
    assert isinstance(answer, int) and not isinstance(answer, bool), (
        f"{variable} must be a Python int (int(...) turns a numpy integer into one)"
    )
    assert answer == expected, f"{variable} is not what your protocol gives"


def check_states_count(answer: object, notebook_id: str) -> None:
    """The measured number of reachable states equals the explorer's for the graded id."""
    _check_count(answer, notebook_id, "states_count", "states_count")


def check_counterexample_steps(answer: object, notebook_id: str) -> None:
    """The measured length of the shortest counterexample equals the explorer's for the graded id."""
    _check_count(answer, notebook_id, "counterexample_steps_count", "counterexample_steps")


def _ask(rule: Callable[[DeleteRequest], bool], request: DeleteRequest) -> bool:
    return call_strategy("cleanup_delete", rule, request)


@functools.lru_cache(maxsize=64)
def _seen_requests(student_id: str) -> tuple[DeleteRequest, ...]:
    """Every request the reference rule is asked in ``student_id``'s protocol (once per distinct request)."""
    return recorded_requests(explore.run, config(student_id), "cleanup_delete", reference_cleanup_delete)


def _table(notebook_id: str) -> list[DeleteRequest]:
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
    return made_up + list(_seen_requests(graded_id(notebook_id)))


def check_delete_keeps_what_is_in_use(rule: Callable[[DeleteRequest], bool], notebook_id: str) -> None:
    """Never delete the plan the endpoint's alias or its rollback record points at."""
    for request in _table(notebook_id):
        if request.plan in (request.active_plan, request.rollback_plan):
            used = "active" if request.plan == request.active_plan else "rollback"
            assert _ask(rule, request) is False, f"the {used} plan was deleted: {request}"


def check_delete_removes_what_is_unused(rule: Callable[[DeleteRequest], bool], notebook_id: str) -> None:
    """Delete every plan that neither the alias nor the rollback record points at (clean-up still cleans)."""
    for request in _table(notebook_id):
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
    faults = protocol_faults(_config(bounds, rule))
    enactors, plans, endpoints, keep = bounds
    label = f"{enactors} Enactors, {plans} plans, {endpoints} endpoint{'s' if endpoints > 1 else ''}, keep {keep}"
    assert not faults, f"{label}: " + "; ".join(faults)


def check_delete_on_your_protocol(rule: Callable[[DeleteRequest], bool], notebook_id: str) -> None:
    """Every interleaving of the graded id's protocol with the rule: :func:`protocol_faults` finds nothing."""
    p = params(graded_id(notebook_id))
    _assert_sound(rule, (p.enactor_count, p.generation_count, p.endpoint_count, p.cleanup_keep_generations))


def check_delete_on_other_protocols(rule: Callable[[DeleteRequest], bool], notebook_id: str) -> None:
    """The same on the protocols of :data:`PROTOCOL_VARIANTS`."""
    check_course_intact()
    for bounds in PROTOCOL_VARIANTS:
        _assert_sound(rule, bounds)
