"""Lab 03's graded version, the instructor's side: the key, the reference decision and the hidden checks.

Scenario:
    The student's side (each id's NLB, its config, the prediction) is
    :mod:`labsupport.assignments.lab03`. The checks below compute every expected answer from the
    collected id with :mod:`labsupport.nlb` at grading time (no answer is stored anywhere) and run
    the student's failover decision, compiled from the notebook's source, in the model.
Covers:
    The PES's NLB section; the student's decision stands for the velocity control AWS announced,
    limiting the capacity a single NLB can remove when health-check failures cause AZ failover.

::

    collected id --key(id)--> the answers     student's failover_decision --check_decision_*--> pass / fail
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import asdict, replace

from labsupport import nlb
from labsupport._memo import cached_run
from labsupport.assignments.lab03 import ASSIGNMENT, MAX_AZS_OUT, MAX_FAILOVERS, NLB_VARIANTS, config, params
from labsupport.strategy import FailoverRequest, call_strategy

from ._shared import answer_check, check_prediction, prediction_answers, recorded_requests
from .spec import Answer, Check, Question, Spec

__all__ = [
    "SPEC",
    "check_decision_keeps_a_fresh_az",
    "check_decision_on_other_nlbs",
    "check_decision_on_your_nlb",
    "check_decision_removes_one_stale_az",
    "check_first_failover_s",
    "check_peak_removed_fraction",
    "key",
    "reference_failover_decision",
]


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


def check_first_failover_s(answer: object, student_id: str) -> None:
    """The measured time of the first AZ failover equals the model's for the id (within 0.5 s)."""
    expected = float(key(student_id)["first_failover_s"])  # type: ignore[arg-type]
    assert isinstance(answer, float), "first_failover_s must be a float"
    assert abs(answer - expected) <= 0.5, "first_failover_s is not what your NLB gives"


def check_peak_removed_fraction(answer: object, student_id: str) -> None:
    """The measured peak share held out by failover equals the model's for the id (within 1e-9)."""
    expected = float(key(student_id)["peak_removed_fraction"])  # type: ignore[arg-type]
    assert isinstance(answer, float), "peak_removed_fraction must be a float"
    assert math.isclose(answer, expected, abs_tol=1e-9), "peak_removed_fraction is not what your NLB gives"


def _ask(decision: Callable[[FailoverRequest], bool], request: FailoverRequest) -> bool:
    return call_strategy("failover_decision", decision, request)


@functools.lru_cache(maxsize=64)
def _seen_requests(student_id: str) -> tuple[FailoverRequest, ...]:
    """Every request the reference decision is asked in ``student_id``'s NLB, in order."""
    return recorded_requests(nlb.run, config(student_id), "failover_decision", reference_failover_decision)


def _table(student_id: str) -> list[FailoverRequest]:
    """The requests the two table checks ask: made-up ones over every AZ, thresholds of 60 to 900 s
    and health-check delays unlike the result's age, then every one a real run of the id's
    NLB asks (so that a table cannot be told apart from a run)."""
    made_up = [
        FailoverRequest(az, age, threshold, latency, weight, removed)
        for az in (0, 1, 2)
        for threshold in (60.0, 240.0, 900.0)
        for age in (0.0, threshold / 2, threshold, threshold + 1.0, 3 * threshold)
        for latency in (age / 2, age + 30.0)
        for weight, removed in ((1.0, 0.0), (0.0, 0.33), (1.0, 0.33), (0.5, 0.5))
    ]
    return made_up + list(_seen_requests(student_id))


def check_decision_keeps_a_fresh_az(decision: Callable[[FailoverRequest], bool], student_id: str) -> None:
    """Never fail over an AZ whose newest result is no older than the threshold, whatever else holds
    (any AZ, threshold, delay, weight or capacity removed; and every such review of a real run)."""
    for request in _table(student_id):
        if request.result_age_s <= request.threshold_s:
            assert _ask(decision, request) is False, f"a fresh AZ was failed over: {request}"


def check_decision_removes_one_stale_az(decision: Callable[[FailoverRequest], bool], student_id: str) -> None:
    """A stale AZ is failed over when no capacity is removed (failover still works), and an AZ
    already out stays out while its results stay stale (``True``; ``False`` would restore it)."""
    for request in _table(student_id):
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
    decision: Callable[[FailoverRequest], bool], student_id: str, seeds_count: int = 2
) -> None:
    """The id's NLB with the decision, on ``seeds_count`` seeds: at least one failover, at
    most :data:`MAX_AZS_OUT` AZ out of DNS at once, at most :data:`MAX_FAILOVERS` failovers, and
    every AZ back in DNS at the end."""
    base = config(student_id)
    for k in range(seeds_count):
        cfg = replace(base, seed=base.seed + 7919 * k, failover_decision=decision)
        _assert_limited(nlb.run(cfg), f"seed {cfg.seed}")


def check_decision_on_other_nlbs(decision: Callable[[FailoverRequest], bool], student_id: str) -> None:
    """The same limits on the NLBs of :data:`NLB_VARIANTS` (built from the id's)."""
    base = config(student_id)
    for shape in NLB_VARIANTS:
        label = ", ".join(f"{k}={v:g}" for k, v in shape.items())
        _assert_limited(nlb.run(replace(base, failover_decision=decision, **shape)), label)


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
        *prediction_answers({"failovers": ("int", 0, 1_000_000), "min_capacity_fraction": ("float", 0.0, 1.0)}),
        Answer("first_failover_s", "first_failover_s", "float", 0.0, 1e9),
        Answer("peak_removed_fraction", "peak_removed_fraction", "float", 0.0, 1.0),
    ),
    strategy="failover_decision",
    strategy_field="failover_decision",
    checks=(
        Check("q1_predict", "made before the run", 1, "prediction", check_prediction),
        answer_check("q2_measure", "first_failover_s", 1, check_first_failover_s, "first_failover_s"),
        answer_check("q2_measure", "peak_removed_fraction", 1, check_peak_removed_fraction, "peak_removed_fraction"),
        Check("q3_design", "keeps a fresh AZ", 1, "strategy", check_decision_keeps_a_fresh_az),
        Check("q3_design", "removes one stale AZ", 1, "strategy", check_decision_removes_one_stale_az),
        Check("q3_design", "limits on your NLB", 1, "strategy", check_decision_on_your_nlb),
        Check("q3_design", "limits on other NLBs", 1, "strategy", check_decision_on_other_nlbs),
    ),
    references=(reference_failover_decision,),
    prepare=_prepare,
    params=lambda i: {k: v for k, v in asdict(params(i)).items() if k != "student_id"},
    key=key,
    prediction=("failovers", "min_capacity_fraction"),
)
