"""Lab 03's graded version (NLB failover on flapping health checks): the student's side: each student's NLB.

Scenario:
    Every student id gives its own NLB (:func:`params`): a seed, the targets each Availability Zone
    starts with and the failover delay threshold, derived from the id with SHA-256
    (:func:`~labsupport.assignments.digest`). Nobody disables automatic failover and the NLB has no
    velocity control of its own, so what limits the capacity failover removes is the failover
    decision the student writes. The grader (``coursetools.grading``, which students do not install)
    holds the key and the hidden checks and computes each expected answer from the collected id at
    grading time.
Covers:
    The PES's NLB section: health checks delayed by Network Manager's backlog made healthy targets
    look failed, automatic DNS failover removed capacity, and AWS's fix adds a velocity control
    that limits the capacity a single NLB can remove when health-check failures cause AZ failover.
    The student writes that decision (:attr:`labsupport.nlb.NlbConfig.failover_decision`).

::

    student id --sha256--> Lab03Params(seed, targets, threshold) --> NlbConfig (no operators) --> nlb.run
    (the grader, coursetools.grading.lab03: key(id) and the hidden checks, from the collected id)
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field, replace
from typing import Any

from .. import nlb
from ..errors import ConfigError
from ._shared import PredictionBase, digest

__all__ = [
    "ASSIGNMENT",
    "MAX_AZS_OUT",
    "MAX_FAILOVERS",
    "NLB_VARIANTS",
    "Lab03Params",
    "Prediction",
    "config",
    "params",
]

#: The assignment's name (its folder under ``assignments/`` and otter's assignment name).
ASSIGNMENT = "03-nlb-flapping"
#: Most AZs failover may hold out of DNS at once (count): the velocity control the design question
#: asks for. (A cap on the capacity share would be too close to call: one AZ's share reaches 0.49 of
#: the NLB's capacity, two AZs' can be as little as 0.54.)
MAX_AZS_OUT = 1
#: Most AZ failovers in a night: more means the decision flaps (removes, restores, removes again).
MAX_FAILOVERS = 3
#: NLBs unlike the student's own, on which the decision must also hold: few targets per AZ (the
#: AZs' shares then differ most) and a short failover threshold.
NLB_VARIANTS: tuple[dict[str, Any], ...] = ({"targets_per_az_count": 10}, {"failover_delay_threshold_s": 120.0})
_THRESHOLDS_S = (120.0, 180.0, 240.0, 300.0, 360.0)


@dataclass(frozen=True)
class Lab03Params:
    """One student's NLB.

    Attributes:
        student_id: the id the parameters come from.
        seed: the run's seed (0 to 2**31 - 1).
        targets_per_az_count: targets each AZ has before the night's launches (10 to 80, by 5).
        failover_delay_threshold_s: how old an AZ's newest health-check result may be before the
            NLB's rule fails it over, seconds (120 to 360, by 60).
    """

    student_id: str
    seed: int
    targets_per_az_count: int
    failover_delay_threshold_s: float


def params(student_id: str) -> Lab03Params:
    """The parameters of ``student_id``'s NLB (deterministic; raises ConfigError on an empty id)."""
    d = digest(ASSIGNMENT, student_id)
    return Lab03Params(
        student_id.strip(),
        int.from_bytes(d[:4], "big") >> 1,
        10 + 5 * (d[4] % 15),
        _THRESHOLDS_S[d[5] % len(_THRESHOLDS_S)],
    )


def config(student_id: str) -> nlb.NlbConfig:
    """The :class:`~labsupport.nlb.NlbConfig` of ``student_id``'s NLB: the incident with their
    parameters, automatic failover never disabled, and no velocity control of the NLB's own."""
    p = params(student_id)
    return replace(
        nlb.INCIDENT,
        seed=p.seed,
        targets_per_az_count=p.targets_per_az_count,
        failover_delay_threshold_s=p.failover_delay_threshold_s,
        disable_failover_at_s=None,
        reenable_failover_at_s=None,
        limit_capacity_removal=False,
    )


@dataclass
class Prediction(PredictionBase):
    """A prediction recorded in the notebook before the run it predicts (``Prediction()``, then
    :meth:`record`; its fields are set only by :meth:`record` and :meth:`run`).

    Attributes:
        failovers: the predicted number of AZ failovers in the night (count).
        min_capacity_fraction: the predicted lowest share of capacity in service (fraction, 0 to 1).
        made_before_run: whether it was recorded before :meth:`run` was first called.
    """

    failovers: int | None = field(default=None, init=False)
    min_capacity_fraction: float | None = field(default=None, init=False)

    def record(self, failovers: int, min_capacity_fraction: float) -> None:
        """Record the prediction; raises ConfigError unless a whole number >= 0 and a fraction in [0, 1]."""
        if isinstance(failovers, bool) or not isinstance(failovers, numbers.Integral) or failovers < 0:
            raise ConfigError(f"failovers must be a whole number >= 0, got {failovers!r}")
        if (
            isinstance(min_capacity_fraction, bool)
            or not isinstance(min_capacity_fraction, numbers.Real)
            or not 0.0 <= float(min_capacity_fraction) <= 1.0
        ):
            raise ConfigError(f"min_capacity_fraction must be a number from 0 to 1, got {min_capacity_fraction!r}")
        self.failovers, self.min_capacity_fraction = int(failovers), float(min_capacity_fraction)
        self._recorded()

    def run(self, student_id: str) -> nlb.NlbResult:
        """Run ``student_id``'s NLB (the measurement), after the prediction; raises ConfigError before it."""
        self._running(self.failovers, "failovers=..., min_capacity_fraction=...")
        return nlb.run(config(student_id))
