"""Lab 08's graded version (write the Enactor): the student's side: each student's protocol and race.

Scenario:
    Every student id gives its own problem (:func:`params`), derived from the id with SHA-256
    (:func:`~labsupport.assignments.digest`): a protocol for the model checker (how many DNS
    Enactors, how many plan generations, how many endpoints, how old a plan must be before clean-up
    reaches it; one of :data:`BOUNDS`, each a protocol where the incident's step empties an
    endpoint and a right step is checked in a few seconds) and a race for the simulation (how many
    times in a row the delayed Enactor loses its lock, and which :data:`SEEDS_COUNT` seeds). The
    student measures the incident's step on both, then writes the Enactor's apply-and-clean-up step
    themselves (the contract of :mod:`labsupport.enactor`). The grader (``coursetools.grading``,
    which students do not install) compiles that step from the notebook's source with
    RestrictedPython and runs it over every interleaving of their protocol and of two others, and
    in their race; it computes every expected answer from the collected id at grading time.
Covers:
    The PES's DynamoDB section: the one-time check, one Route 53 transaction per endpoint, the
    clean-up of plans "significantly older" than the one just applied, the inconsistent state;
    DAT453's rollback record and the lock losses that delayed one Enactor (AWS's later explanation).

::

    student id --sha256--> Lab08Params(bounds, lock losses, seeds)
        --explore_config(id, step)--> explore.run: every interleaving of their protocol
        --race_config(id, step), seeds(id)--> explore.race_seeds: their race, seed by seed
    (the grader, coursetools.grading.lab08: key(id) and the hidden checks, from the collected id)
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field, replace

import pandas as pd

from .. import enactor, explore, race
from ..errors import ConfigError
from ._shared import PredictionBase, digest, strategy_problems

__all__ = [
    "ASSIGNMENT",
    "BOUNDS",
    "LOCK_LOSSES",
    "PROTOCOL_VARIANTS",
    "SEEDS_COUNT",
    "Lab08Params",
    "Prediction",
    "check_form",
    "explore_config",
    "params",
    "race_config",
    "seeds",
]

#: The assignment's name (its folder under ``assignments/`` and otter's assignment name).
ASSIGNMENT = "08-write-the-enactor"
#: The protocols a student id can get: (enactor_count, generation_count, endpoint_count,
#: cleanup_keep_generations). In each, the incident's step can empty an endpoint, and the course's
#: reference step is checked over every interleaving in under three seconds (the test suite checks
#: both). None is a protocol of :data:`PROTOCOL_VARIANTS`.
BOUNDS: tuple[tuple[int, int, int, int], ...] = (
    (2, 3, 1, 0),
    (2, 3, 2, 0),
    (2, 4, 1, 0),
    (2, 4, 1, 1),
    (2, 4, 2, 1),
    (2, 5, 1, 0),
    (2, 5, 1, 1),
    (2, 5, 1, 2),
    (3, 3, 1, 0),
)
#: Protocols that are no student's own (not in :data:`BOUNDS`), on which the step must also hold:
#: two endpoints with the most eager clean-up, and three Enactors.
PROTOCOL_VARIANTS: tuple[tuple[int, int, int, int], ...] = ((2, 4, 2, 0), (3, 4, 1, 1))
#: The lock losses in a row a student's delayed Enactor can get (the incident's is 9, DAT453).
LOCK_LOSSES: tuple[int, ...] = (6, 7, 8, 9, 10, 11, 12)
#: Seeds of a student's race: this many consecutive seeds from their first.
SEEDS_COUNT = 20


@dataclass(frozen=True)
class Lab08Params:
    """One student's problem: the bounds of their model check and the schedule of their race.

    Attributes:
        student_id: the id the parameters come from.
        enactor_count: DNS Enactors (2 or 3).
        generation_count: plan generations the DNS Planner makes, plan 1 included (3 to 5).
        endpoint_count: endpoints each plan is applied to (1 or 2).
        cleanup_keep_generations: clean-up deletes plans more than this many generations older than
            the plan just applied (0 to 2).
        lock_losses_count: times in a row the delayed Enactor (enactor-a) loses the lock on every
            endpoint in the race (count, 6 to 12).
        first_seed: the first of the race's :data:`SEEDS_COUNT` seeds.
    """

    student_id: str
    enactor_count: int
    generation_count: int
    endpoint_count: int
    cleanup_keep_generations: int
    lock_losses_count: int
    first_seed: int


def params(student_id: str) -> Lab08Params:
    """The parameters of ``student_id``'s problem (deterministic; raises ConfigError on an empty id)."""
    d = digest(ASSIGNMENT, student_id)
    bounds = BOUNDS[int.from_bytes(d[:4], "big") % len(BOUNDS)]
    losses = LOCK_LOSSES[d[4] % len(LOCK_LOSSES)]
    return Lab08Params(student_id.strip(), *bounds, losses, int.from_bytes(d[5:8], "big"))


def _bounds(p: Lab08Params) -> tuple[int, int, int, int]:
    return (p.enactor_count, p.generation_count, p.endpoint_count, p.cleanup_keep_generations)


def explore_config(
    where: str | tuple[int, int, int, int], step: enactor.StepFunction | None = None
) -> explore.ExploreConfig:
    """The model checker's config of a protocol, with ``step`` as every Enactor's step.

    Args:
        where: a student id (their protocol) or bounds ``(enactor_count, generation_count,
            endpoint_count, cleanup_keep_generations)`` as in :data:`BOUNDS`.
        step: the Enactor step (:mod:`labsupport.enactor`'s contract); ``None``: the incident's,
            :func:`labsupport.enactor.incident_step`.

    Raises:
        ConfigError: an empty id, or a step that breaks the contract's form.
    """
    n, g, e, keep = _bounds(params(where)) if isinstance(where, str) else where
    return replace(
        explore.INCIDENT_STEP,
        enactor_count=n,
        generation_count=g,
        endpoint_count=e,
        cleanup_keep_generations=keep,
        enactor_step=enactor.incident_step if step is None else step,
        max_states=300_000,
    )


def race_config(student_id: str, step: enactor.StepFunction | None = None) -> race.RaceConfig:
    """The race of ``student_id`` (:data:`labsupport.explore.STEP_RACE`, one hour of the incident's
    schedule, with their lock losses), with ``step`` as every Enactor's step (``None``: the
    incident's). Its seed is their first; :func:`seeds` lists them all."""
    p = params(student_id)
    delay = replace(race.INCIDENT_DELAY, lock_losses_count=p.lock_losses_count)
    return replace(
        explore.STEP_RACE,
        seed=p.first_seed,
        delays=(delay,),
        enactor_step=enactor.incident_step if step is None else step,
    )


def seeds(student_id: str) -> range:
    """The seeds of ``student_id``'s race: :data:`SEEDS_COUNT` in a row from their first."""
    first = params(student_id).first_seed
    return range(first, first + SEEDS_COUNT)


def check_form(step: object) -> None:
    """The public form check of the design answer: a generator function of the six step arguments
    (:func:`labsupport.enactor.check_step`), using nothing the grader does not give it
    (:func:`~labsupport.assignments.strategy_problems`), that runs through every interleaving of a
    small protocol without breaking the contract. Whether it is right is decided at grading time.

    Raises:
        AssertionError: saying what to change.
    """
    try:
        enactor.check_step("enactor_step", step)
    except ConfigError as exc:
        raise AssertionError(str(exc)) from None
    problems = strategy_problems(step)
    assert not problems, (
        "enactor_step is graded on its own, from your notebook's source: it may use its arguments, "
        "math, the basic builtins, and functions and constants defined at the top level of your notebook. "
        + "; ".join(problems)
    )
    try:
        explore.run(explore_config((2, 3, 1, 0), step))  # type: ignore[arg-type]
    except ConfigError as exc:
        raise AssertionError(f"enactor_step broke the contract when the model checker ran it: {exc}") from None


@dataclass
class Prediction(PredictionBase):
    """A prediction recorded in the notebook before the runs it predicts (``Prediction()``, then
    :meth:`record`; its fields are set only by :meth:`record` and :meth:`run`).

    Attributes:
        steps: the predicted number of atomic steps of the incident step's shortest path to an
            empty endpoint in the student's protocol (count).
        runs: the predicted number of the student's :data:`SEEDS_COUNT` race runs in which the
            incident's step empties an endpoint (count).
        made_before_run: whether it was recorded before :meth:`run` was first called.
    """

    steps: int | None = field(default=None, init=False)
    runs: int | None = field(default=None, init=False)

    def record(self, steps: int, runs: int) -> None:
        """Record the prediction; raises ConfigError unless ``steps`` is a whole number >= 1 and
        ``runs`` one from 0 to :data:`SEEDS_COUNT`."""
        for name, value, low, high in (("steps", steps, 1, 10**6), ("runs", runs, 0, SEEDS_COUNT)):
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not low <= value <= high:
                raise ConfigError(f"{name} must be a whole number from {low} to {high}, got {value!r}")
        self.steps, self.runs = int(steps), int(runs)
        self._recorded()

    def run(self, student_id: str) -> tuple[explore.ExploreResult, pd.DataFrame]:
        """The measurement, after the prediction: the incident's step checked over every
        interleaving of ``student_id``'s protocol, and run in their race once per seed
        (:func:`labsupport.explore.race_seeds`'s table). Raises ConfigError before a prediction."""
        self._running(self.steps, "steps=..., runs=...")
        checked = explore.run(explore_config(student_id))
        runs = explore.race_seeds(enactor.incident_step, seeds(student_id), config=race_config(student_id))
        return checked, runs
