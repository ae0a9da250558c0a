"""Lab 01's graded version (the race): the student's side: each student's parameters and the prediction.

Scenario:
    Every student id gives its own race (:func:`params`): a seed and a number of lock losses of the
    delayed DNS Enactor, derived from the id with SHA-256, so that the same id always gives the same
    problem and two ids almost never share one. The grader (``coursetools.grading``, which students
    do not install) holds the key and the hidden checks and computes each expected answer from the
    collected id at grading time.
Covers:
    The PES's DynamoDB race (stale overwrite, clean-up of the active plan). The summary says only
    that AWS would fix the race and add protections against applying incorrect plans; the student
    writes the course's guard 1, a conditional write (compare-and-set) in the Enactor's writes
    (:attr:`labsupport.race.RaceConfig.conditional_write`).

::

    student id --sha256--> Lab01Params(seed, lock_losses_count) --> RaceConfig --> race.run
    (the grader, coursetools.grading.lab01: key(id) and the hidden checks, from the collected id)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .. import race
from ..errors import ConfigError
from ._shared import PredictionBase, digest

__all__ = [
    "ASSIGNMENT",
    "Lab01Params",
    "Prediction",
    "config",
    "params",
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
