"""Lab 03's graded version (NLB failover on flapping health checks): each student's NLB, the key, the checks.

Scenario:
    Every student id gives its own NLB (:func:`params`): a seed, the targets each Availability Zone
    starts with and the failover delay threshold, derived from the id with SHA-256
    (:mod:`labsupport.grading._shared`). Nobody disables automatic failover and the NLB has no velocity
    control of its own, so what limits the capacity failover removes is the failover decision the
    student writes. The hidden tests of ``assignments/03-nlb-flapping`` call the ``check_*``
    functions below, which compute the expected answer from the id with :mod:`labsupport.nlb` at
    grading time: no answer is stored anywhere.
Covers:
    The PES's NLB section: health checks delayed by Network Manager's backlog made healthy targets
    look failed, automatic DNS failover removed capacity, and AWS's fix adds a velocity control
    that limits the capacity a single NLB can remove when health-check failures cause AZ failover.
    The student writes that decision (:attr:`labsupport.nlb.NlbConfig.failover_decision`).

::

    student id --sha256--> Lab03Params(seed, targets, threshold) --> NlbConfig (no operators) --> nlb.run
                                                                   '--> key(id): the answers
    hidden test: check_*(answer or decision, notebook id) --graded_id--> the id the grader was given
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from .. import nlb
from .._memo import cached_run
from ..errors import ConfigError
from ..strategy import FailoverRequest, call_strategy
from ._shared import PredictionBase, check_prediction_made, digest, graded_id, recorded_requests

__all__ = [
    "ASSIGNMENT",
    "MAX_AZS_OUT",
    "MAX_FAILOVERS",
    "NLB_VARIANTS",
    "Lab03Params",
    "Prediction",
    "check_decision_keeps_a_fresh_az",
    "check_decision_removes_one_stale_az",
    "check_decision_on_other_nlbs",
    "check_decision_on_your_nlb",
    "check_first_failover_s",
    "check_peak_removed_fraction",
    "check_prediction",
    "config",
    "key",
    "params",
    "reference_failover_decision",
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


def reference_failover_decision(request: FailoverRequest) -> bool:
    """Velocity control written as the decision: at most one AZ out of DNS at a time.

    A fresh AZ is never failed over (``False`` restores it); a stale AZ already out stays out
    (``True``: answering ``False`` would restore it and the next review remove it again); a stale
    AZ in service is failed over only while no capacity is removed.
    """
    if request.result_age_s <= request.threshold_s:
        return False
    return request.dns_weight < 1.0 or request.removed_fraction <= 1e-9


def _first_failover_s(result: nlb.NlbResult) -> float:
    times = result.events.loc[result.events["kind"] == "az_failover", "time_s"]
    return float(times.iloc[0]) if len(times) else math.nan


def key(student_id: str) -> dict[str, object]:
    """The instructor's key for ``student_id``: parameters and the expected measured answers.

    Returns:
        ``{"student_id", "seed", "targets_per_az_count", "failover_delay_threshold_s",
        "failover_count", "min_capacity_fraction", "first_failover_s", "peak_removed_fraction"}``;
        the design question's answer is :func:`reference_failover_decision` (or any decision that
        passes the checks).
    """
    p = params(student_id)
    result = cached_run(nlb.run, config(student_id))
    return {
        "student_id": p.student_id,
        "seed": p.seed,
        "targets_per_az_count": p.targets_per_az_count,
        "failover_delay_threshold_s": p.failover_delay_threshold_s,
        "failover_count": result.summary.failover_count,
        "min_capacity_fraction": result.summary.min_capacity_fraction,
        "first_failover_s": _first_failover_s(result),
        "peak_removed_fraction": float(result.timeseries["failover_removed_fraction"].max()),
    }


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


# -- hidden checks: each raises AssertionError with a message the student can act on -----------------
def check_prediction(prediction: object) -> None:
    """Credit for a prediction made: a :class:`Prediction` recorded before the run."""
    check_prediction_made(prediction, Prediction, "failovers")


def check_first_failover_s(answer: object, notebook_id: str) -> None:
    """The measured time of the first AZ failover equals the model's for the graded id (within 0.5 s)."""
    expected = float(key(graded_id(notebook_id))["first_failover_s"])  # type: ignore[arg-type]
    assert isinstance(answer, float), "first_failover_s must be a float"
    assert abs(answer - expected) <= 0.5, "first_failover_s is not what your NLB gives"


def check_peak_removed_fraction(answer: object, notebook_id: str) -> None:
    """The measured peak share held out by failover equals the model's for the graded id (within 1e-9)."""
    expected = float(key(graded_id(notebook_id))["peak_removed_fraction"])  # type: ignore[arg-type]
    assert isinstance(answer, float), "peak_removed_fraction must be a float"
    assert math.isclose(answer, expected, abs_tol=1e-9), "peak_removed_fraction is not what your NLB gives"


def _ask(decision: Callable[[FailoverRequest], bool], request: FailoverRequest) -> bool:
    return call_strategy("failover_decision", decision, request)


@functools.lru_cache(maxsize=64)
def _seen_requests(student_id: str) -> tuple[FailoverRequest, ...]:
    """Every request the reference decision is asked in ``student_id``'s NLB, in order."""
    return recorded_requests(nlb.run, config(student_id), "failover_decision", reference_failover_decision)


def _table(notebook_id: str) -> list[FailoverRequest]:
    """The requests the two table checks ask: made-up ones over every AZ, thresholds of 60 to 900 s
    and health-check delays unlike the result's age, then every one a real run of the graded id's
    NLB asks (so that a table cannot be told apart from a run)."""
    made_up = [
        FailoverRequest(az, age, threshold, latency, weight, removed)
        for az in (0, 1, 2)
        for threshold in (60.0, 240.0, 900.0)
        for age in (0.0, threshold / 2, threshold, threshold + 1.0, 3 * threshold)
        for latency in (age / 2, age + 30.0)
        for weight, removed in ((1.0, 0.0), (0.0, 0.33), (1.0, 0.33), (0.5, 0.5))
    ]
    return made_up + list(_seen_requests(graded_id(notebook_id)))


def check_decision_keeps_a_fresh_az(decision: Callable[[FailoverRequest], bool], notebook_id: str) -> None:
    """Never fail over an AZ whose newest result is no older than the threshold, whatever else holds
    (any AZ, threshold, delay, weight or capacity removed; and every such review of a real run)."""
    for request in _table(notebook_id):
        if request.result_age_s <= request.threshold_s:
            assert _ask(decision, request) is False, f"a fresh AZ was failed over: {request}"


def check_decision_removes_one_stale_az(decision: Callable[[FailoverRequest], bool], notebook_id: str) -> None:
    """A stale AZ is failed over when no capacity is removed (failover still works), and an AZ
    already out stays out while its results stay stale (``True``; ``False`` would restore it)."""
    for request in _table(notebook_id):
        if request.result_age_s <= request.threshold_s:
            continue
        if request.dns_weight < 1.0:
            assert _ask(decision, request) is True, f"a stale AZ already out was restored: {request}"
        elif request.removed_fraction <= 1e-9:
            assert _ask(decision, request) is True, f"a stale AZ was kept with nothing removed: {request}"


def _azs_out_at_once(result: nlb.NlbResult) -> int:
    """The most AZs failover held out of DNS at the same time over the run (count)."""
    events = result.events
    out: set[int] = set()
    most = 0
    for kind, az in events.loc[
        events["kind"].isin(("az_failover", "az_restored", "failover_disabled")), ["kind", "az"]
    ].itertuples(index=False):
        if kind == "az_failover":
            out.add(int(az))
        elif kind == "az_restored":
            out.discard(int(az))
        else:
            out.clear()
        most = max(most, len(out))
    return most


def _assert_limited(result: nlb.NlbResult, label: str) -> None:
    s = result.summary
    assert s.failover_count >= 1, f"{label}: no AZ was ever failed over (failover must still work)"
    at_once = _azs_out_at_once(result)
    assert at_once <= MAX_AZS_OUT, f"{label}: failover held {at_once} AZs out of DNS at once (at most {MAX_AZS_OUT})"
    assert s.failover_count <= MAX_FAILOVERS, (
        f"{label}: {s.failover_count} AZ failovers: the decision flaps (at most {MAX_FAILOVERS})"
    )
    left_out = float(result.timeseries["failover_removed_fraction"].iloc[-1])
    assert left_out == 0.0, (
        f"{label}: {left_out:.0%} of the capacity was still out of DNS at the end, when every AZ's "
        "results were fresh again"
    )


def check_decision_on_your_nlb(
    decision: Callable[[FailoverRequest], bool], notebook_id: str, seeds_count: int = 2
) -> None:
    """The graded id's NLB with the decision, on ``seeds_count`` seeds: at least one failover, at
    most :data:`MAX_AZS_OUT` AZ out of DNS at once, at most :data:`MAX_FAILOVERS` failovers, and
    every AZ back in DNS at the end."""
    base = config(graded_id(notebook_id))
    for k in range(seeds_count):
        cfg = replace(base, seed=base.seed + 7919 * k, failover_decision=decision)
        _assert_limited(nlb.run(cfg), f"seed {cfg.seed}")


def check_decision_on_other_nlbs(decision: Callable[[FailoverRequest], bool], notebook_id: str) -> None:
    """The same limits on the NLBs of :data:`NLB_VARIANTS` (built from the graded id's)."""
    base = config(graded_id(notebook_id))
    for shape in NLB_VARIANTS:
        label = ", ".join(f"{k}={v:g}" for k, v in shape.items())
        _assert_limited(nlb.run(replace(base, failover_decision=decision, **shape)), label)
