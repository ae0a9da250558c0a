"""Lab 02's graded version (DWFM's congestive collapse): the student's side: each student's fleet and the prediction.

Scenario:
    Every student id gives its own night (:func:`params`): a seed, a fleet size and an outage
    length, derived from the id with SHA-256 (:func:`~labsupport.assignments.digest`). The operators
    do not act (no throttle, no restarts), so the only way out of the collapse is the admission
    policy the student writes. The grader (``coursetools.grading``, which students do not install)
    holds the key and the hidden checks and computes each expected answer from the collected id at
    grading time.
Covers:
    The PES's DWFM section: droplet leases lapse while DynamoDB is unreachable, the backlog of
    lease re-establishments takes longer than the work's timeout, the work is retried and DWFM
    enters congestive collapse. For DWFM the summary announces a test suite of its recovery
    workflow; the throttling by the size of the waiting queue it announces is for EC2's data
    propagation systems. The student writes admission control for DWFM, the course's stop point 5
    (:attr:`labsupport.dwfm.DwfmConfig.admission_policy`).

::

    student id --sha256--> Lab02Params(seed, fleet, outage) --> DwfmConfig (operators off) --> dwfm.run
    (the grader, coursetools.grading.lab02: key(id) and the hidden checks, from the collected id)
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field, replace
from typing import Any

from .. import dwfm
from ..errors import ConfigError
from ._shared import PredictionBase, digest

__all__ = [
    "ASSIGNMENT",
    "CAPACITY_VARIANTS",
    "Lab02Params",
    "Prediction",
    "RECOVERY_SLACK",
    "WASTE_LIMIT",
    "config",
    "params",
    "recovery_bound_s",
]

#: The assignment's name (its folder under ``assignments/`` and otter's assignment name).
ASSIGNMENT = "02-dwfm-collapse"
#: A recovery counts if every lease is back within this many times the ideal drain time (see
#: :func:`recovery_bound_s`).
RECOVERY_SLACK = 1.5
#: Most wasted fraction of started work (timed out after the host worked on it) a passing policy may have.
WASTE_LIMIT = 0.05
#: Hosts unlike the student's own, on which the policy must also work: a 240 s deadline (four
#: rounds), and 40 slots per host. No constant queue limit passes every check: below 40 it refuses
#: a short queue on the 40-slot hosts; from 40 on, work waits past the 240 s deadline (the tests
#: check 30, 40, 50 and 1,000).
CAPACITY_VARIANTS: tuple[dict[str, Any], ...] = ({"work_deadline_s": 240.0}, {"host_concurrency_count": 40})


@dataclass(frozen=True)
class Lab02Params:
    """One student's night.

    Attributes:
        student_id: the id the parameters come from.
        seed: the run's seed (0 to 2**31 - 1).
        fleet_droplets_count: droplets whose leases DWFM holds (5,000 to 8,000, by 100).
        outage_end_s: when DynamoDB is reachable again, seconds after 11:48 PM (7,200 to 10,800, by 300).
    """

    student_id: str
    seed: int
    fleet_droplets_count: int
    outage_end_s: float


def params(student_id: str) -> Lab02Params:
    """The parameters of ``student_id``'s night (deterministic; raises ConfigError on an empty id)."""
    d = digest(ASSIGNMENT, student_id)
    return Lab02Params(
        student_id.strip(),
        int.from_bytes(d[:4], "big") >> 1,
        5_000 + 100 * (d[4] % 31),
        7_200.0 + 300.0 * (d[5] % 13),
    )


def config(student_id: str) -> dwfm.DwfmConfig:
    """The :class:`~labsupport.dwfm.DwfmConfig` of ``student_id``'s night: the incident with their
    fleet, outage and seed, and no operator action (no throttle, no restart)."""
    p = params(student_id)
    return replace(
        dwfm.INCIDENT,
        seed=p.seed,
        fleet_droplets_count=p.fleet_droplets_count,
        outage_end_s=p.outage_end_s,
        operator_throttle_at_s=None,
        operator_restart_at_s=None,
    )


def recovery_bound_s(cfg: dwfm.DwfmConfig) -> float:
    """Seconds after DynamoDB's return within which a passing policy gets every lease back.

    :data:`RECOVERY_SLACK` times the ideal drain time (every droplet needs one lease
    establishment, at the hosts' full capacity, ``fleet / capacity``), plus one state-check
    interval (a droplet asks only when it is checked).
    """
    drain_s = cfg.fleet_droplets_count / (cfg.capacity_per_min / 60.0)
    return RECOVERY_SLACK * drain_s + cfg.state_check_interval_s


@dataclass
class Prediction(PredictionBase):
    """A prediction recorded in the notebook before the run it predicts (``Prediction()``, then
    :meth:`record`; its fields are set only by :meth:`record` and :meth:`run`).

    Attributes:
        recovers: whether the fleet gets every lease back by itself within the 15-hour horizon.
        wasted_fraction: the predicted share of started work that is wasted (fraction, 0 to 1).
        made_before_run: whether it was recorded before :meth:`run` was first called.
    """

    recovers: bool | None = field(default=None, init=False)
    wasted_fraction: float | None = field(default=None, init=False)

    def record(self, recovers: bool, wasted_fraction: float) -> None:
        """Record the prediction; raises ConfigError unless ``recovers`` is a bool and the fraction in [0, 1]."""
        if not isinstance(recovers, bool):
            raise ConfigError(f"recovers must be True or False, got {recovers!r}")
        if (
            isinstance(wasted_fraction, bool)
            or not isinstance(wasted_fraction, numbers.Real)  # numpy's numbers too
            or not 0.0 <= float(wasted_fraction) <= 1.0
        ):
            raise ConfigError(f"wasted_fraction must be a number from 0 to 1, got {wasted_fraction!r}")
        self.recovers, self.wasted_fraction = recovers, float(wasted_fraction)
        self._recorded()

    def run(self, student_id: str) -> dwfm.DwfmResult:
        """Run ``student_id``'s night (the measurement), after the prediction; raises ConfigError before it."""
        self._running(self.recovers, "recovers=..., wasted_fraction=...")
        return dwfm.run(config(student_id))
