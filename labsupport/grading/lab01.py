"""Lab 01's graded version (the race): each student's parameters, the key, and the hidden checks.

Scenario:
    Every student id gives its own race (:func:`params`): a seed and a number of lock losses of
    the delayed DNS Enactor, derived from the id with SHA-256, so that the same id always gives the
    same problem and two ids almost never share one. The hidden tests of
    ``assignments/01-enactor-race`` call the ``check_*`` functions below, which compute the expected
    answer from the id with :mod:`labsupport.race` and :mod:`labsupport.explore` at grading time:
    no answer is stored anywhere.
Covers:
    The PES's DynamoDB race (stale overwrite, clean-up of the active plan). The summary says only
    that AWS would fix the race and add protections against applying incorrect plans; the student
    writes the course's guard 1, a conditional write (compare-and-set) in the Enactor's writes
    (:attr:`labsupport.race.RaceConfig.conditional_write`).

::

    student id --sha256--> Lab01Params(seed, lock_losses_count) --> RaceConfig --> race.run
                                                                 '--> key(id): the answers
    hidden test: check_*(answer, notebook id) --graded_id--> the id the grader was given
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from .. import explore, race
from ..errors import ConfigError
from ..strategy import WriteRequest, call_strategy
from ._shared import GRADED_ID_VARIABLE, PredictionBase, check_course_intact, check_prediction_made, digest, graded_id

__all__ = [
    "ASSIGNMENT",
    "GRADED_ID_VARIABLE",
    "Lab01Params",
    "Prediction",
    "check_conditional_write_explorer",
    "check_conditional_write_seeds",
    "check_conditional_write_table",
    "check_first_stale_write_s",
    "check_prediction",
    "check_stale_overwrites",
    "config",
    "graded_id",
    "key",
    "params",
    "reference_conditional_write",
]

#: The assignment's name (its folder under ``assignments/`` and otter's assignment name).
ASSIGNMENT = "01-enactor-race"
#: Horizon of each run, seconds: long enough for the stale overwrite, short enough to grade fast.
HORIZON_S = 1800.0


@dataclass(frozen=True)
class Lab01Params:
    """One student's race.

    Attributes:
        student_id: the id the parameters come from.
        seed: the run's seed (0 to 2**31 - 1).
        lock_losses_count: consecutive lock losses of the delayed Enactor (4-9).
    """

    student_id: str
    seed: int
    lock_losses_count: int


def params(student_id: str) -> Lab01Params:
    """The parameters of ``student_id``'s race (deterministic; raises ConfigError on an empty id)."""
    d = digest(ASSIGNMENT, student_id)
    return Lab01Params(student_id.strip(), int.from_bytes(d[:4], "big") >> 1, 4 + d[4] % 6)


def config(student_id: str) -> race.RaceConfig:
    """The :class:`~labsupport.race.RaceConfig` of ``student_id``'s race: the incident with their parameters."""
    p = params(student_id)
    delay = replace(race.INCIDENT_DELAY, lock_losses_count=p.lock_losses_count)
    return replace(race.INCIDENT, seed=p.seed, delays=(delay,), horizon_s=HORIZON_S)


def reference_conditional_write(request: WriteRequest) -> bool:
    """The compare-and-set the design question asks for: commit only a plan newer than the active one."""
    return request.active_plan is None or request.new_plan > request.active_plan


def _first_stale_write_s(result: race.RaceResult) -> float:
    stale = result.events.loc[result.events["action"] == "stale_write", "time_s"]
    return float(stale.iloc[0]) if len(stale) else float("nan")


def key(student_id: str) -> dict[str, object]:
    """The instructor's key for ``student_id``: parameters and the expected measured answers.

    Returns:
        ``{"student_id", "seed", "lock_losses_count", "stale_overwrites", "first_stale_write_s"}``;
        the design question's answer is :func:`reference_conditional_write` for every id.
    """
    p = params(student_id)
    result = race.run(config(student_id))
    return {
        "student_id": p.student_id,
        "seed": p.seed,
        "lock_losses_count": p.lock_losses_count,
        "stale_overwrites": result.summary.stale_overwrites_count,
        "first_stale_write_s": _first_stale_write_s(result),
    }


@dataclass
class Prediction(PredictionBase):
    """A prediction recorded in the notebook before the run it predicts (``Prediction()``, then
    :meth:`record`; its fields are set only by :meth:`record` and :meth:`run`).

    Attributes:
        stale_overwrites: the predicted number of stale overwrites (count, >= 0).
        made_before_run: whether it was recorded before :meth:`run` was first called.
    """

    stale_overwrites: int | None = field(default=None, init=False)

    def record(self, stale_overwrites: int) -> None:
        """Record the prediction (an int >= 0); raises ConfigError otherwise."""
        if isinstance(stale_overwrites, bool) or not isinstance(stale_overwrites, int) or stale_overwrites < 0:
            raise ConfigError(f"stale_overwrites must be a whole number >= 0, got {stale_overwrites!r}")
        self.stale_overwrites = stale_overwrites
        self._recorded()

    def run(self, student_id: str) -> race.RaceResult:
        """Run ``student_id``'s race (the measurement), after the prediction; raises ConfigError before it."""
        self._running(self.stale_overwrites, "stale_overwrites=...")
        return race.run(config(student_id))


# -- hidden checks: each raises AssertionError with a message the student can act on -----------------
def check_prediction(prediction: object) -> None:
    """Credit for a prediction made: a :class:`Prediction` recorded before the run."""
    check_prediction_made(prediction, Prediction, "stale_overwrites")


def check_stale_overwrites(answer: object, notebook_id: str) -> None:
    """The measured number of stale overwrites equals the model's for the graded id."""
    expected = key(graded_id(notebook_id))["stale_overwrites"]
    assert isinstance(answer, int) and not isinstance(answer, bool), "stale_overwrites must be an int"
    assert answer == expected, "stale_overwrites is not what your race gives"


def check_first_stale_write_s(answer: object, notebook_id: str) -> None:
    """The measured time of the first stale overwrite is within 0.5 s of the model's for the graded id."""
    expected = float(key(graded_id(notebook_id))["first_stale_write_s"])  # type: ignore[arg-type]
    assert isinstance(answer, (int, float)) and not isinstance(answer, bool), "first_stale_write_s must be a number"
    assert abs(float(answer) - expected) <= 0.5, "first_stale_write_s is not what your race gives"


def check_conditional_write_table(strategy: Callable[[WriteRequest], bool]) -> None:
    """The strategy refuses every older or equal plan and commits every newer one (plans 1-8)."""
    check_course_intact()
    for active in range(1, 9):
        for new in range(1, 9):
            if new == active:
                continue
            request = WriteRequest("regional", active, new)
            got = call_strategy("conditional_write", strategy, request)
            assert got is (new > active), f"wrong decision for {request}: {got!r}"


def check_conditional_write_seeds(
    strategy: Callable[[WriteRequest], bool], notebook_id: str, seeds_count: int = 12
) -> None:
    """Over ``seeds_count`` seeds around the graded id's race: no endpoint ever empty, no stale write,
    and the regional endpoint ends within 2 plans of the newest (the writes still happen)."""
    base = config(graded_id(notebook_id))
    for k in range(seeds_count):
        cfg = replace(base, seed=base.seed + 7919 * k, conditional_write=strategy)
        result = race.run(cfg)
        s = result.summary
        assert s.endpoints_emptied == (), f"seed {cfg.seed}: endpoints answered empty: {s.endpoints_emptied}"
        assert s.stale_overwrites_count == 0, f"seed {cfg.seed}: {s.stale_overwrites_count} stale overwrites"
        assert s.max_generation_lag <= 4, f"seed {cfg.seed}: endpoints fell {s.max_generation_lag} plans behind"


def check_conditional_write_explorer(strategy: Callable[[WriteRequest], bool], *, recovers: bool) -> None:
    """The explorer over every interleaving (3 Enactors, 4 plans): never an alias to a deleted plan
    (``recovers=False``), and from every reachable state the newest plan can still be applied everywhere
    (``recovers=True``)."""
    check_course_intact()
    summary = explore.run(replace(explore.INCIDENT, conditional_write=strategy)).summary
    if recovers:
        assert summary.recovers, f"{summary.stuck_states_count} reachable states can never recover"
    else:
        assert summary.safe, (
            f"{summary.violating_states_count} reachable states have an alias to a deleted "
            f"plan (a path of {summary.counterexample_steps_count} steps)"
        )
