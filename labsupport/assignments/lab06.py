"""Lab 06's graded version (every interleaving): the student's side: each student's protocol bounds.

Scenario:
    Every student id gives its own protocol (:func:`params`): how many DNS Enactors run, how many
    plan generations the DNS Planner makes, how many endpoints each plan is applied to and how old a
    plan must be before clean-up reaches it, derived from the id with SHA-256
    (:func:`~labsupport.assignments.digest`), always among bounds where the unguarded protocol can
    empty an endpoint and the search stays under 35,000 states. No guard is on; what keeps the
    clean-up safe is the conditional delete the student writes
    (:attr:`labsupport.explore.ExploreConfig.cleanup_delete`). The grader (``coursetools.grading``,
    which students do not install) holds the key and the hidden checks and computes each expected
    answer from the collected id at grading time.
Covers:
    The PES's DynamoDB section: the clean-up that deleted plans "significantly older" than the one
    just applied, and with them the active plan, leaving the regional endpoint empty; DAT453's
    rollback record (AWS's later explanation), which a deleted plan leaves dangling. The model
    checker searches every interleaving, so a delete rule passes only if no schedule breaks it.

::

    student id --sha256--> Lab06Params(enactors, generations, endpoints, keep) --> ExploreConfig
                                 (no guard) --> explore.run / engine.search
    (the grader, coursetools.grading.lab06: key(id) and the hidden checks, from the collected id)
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from .. import explore
from ..errors import ConfigError
from ..strategy import DeleteRequest
from ._shared import PredictionBase, digest

__all__ = [
    "ASSIGNMENT",
    "BOUNDS",
    "PROTOCOL_VARIANTS",
    "Lab06Params",
    "Prediction",
    "config",
    "config_of_bounds",
    "params",
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


def config_of_bounds(
    bounds: tuple[int, int, int, int], cleanup_delete: Callable[[DeleteRequest], bool] | None = None
) -> explore.ExploreConfig:
    """The :class:`~labsupport.explore.ExploreConfig` of a protocol's bounds ``(enactor_count,
    generation_count, endpoint_count, cleanup_keep_generations)`` (as in :data:`BOUNDS`), with
    ``cleanup_delete`` as its conditional delete and no guard."""
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
    return config_of_bounds((p.enactor_count, p.generation_count, p.endpoint_count, p.cleanup_keep_generations))


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
