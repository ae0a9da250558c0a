"""Lab 02's graded version, the instructor's side: the key, the reference policy and the hidden checks.

Scenario:
    The student's side (each id's night, its config, the prediction) is
    :mod:`labsupport.assignments.lab02`. The checks below compute every expected answer from the
    collected id with :mod:`labsupport.dwfm` at grading time (no answer is stored anywhere) and
    run the student's admission policy, compiled from the notebook's source, in the model.
Covers:
    The PES's DWFM section (congestive collapse); the student's admission control stands for the
    course's stop point 5 in DWFM (the summary announces queue-based throttling for EC2's data
    propagation, and a test suite for DWFM).

::

    collected id --key(id)--> the answers     student's admission_policy --check_policy_*--> pass / fail
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import asdict, replace

from labsupport import dwfm
from labsupport._memo import cached_run
from labsupport.assignments.lab02 import (
    ASSIGNMENT,
    CAPACITY_VARIANTS,
    WASTE_LIMIT,
    config,
    params,
    recovery_bound_s,
)
from labsupport.strategy import AdmissionRequest, call_strategy

from ._shared import answer_check, check_prediction, prediction_answers, recorded_requests
from .spec import Answer, Check, Question, Spec

__all__ = [
    "SPEC",
    "check_leased_at_horizon",
    "check_policy_admits_a_short_queue",
    "check_policy_on_other_hosts",
    "check_policy_recovers",
    "check_policy_wastes_little",
    "check_wasted_fraction",
    "key",
    "reference_admission_policy",
]


def reference_admission_policy(request: AdmissionRequest) -> bool:
    """Deadline-aware admission control: admit an item only if it can finish within its deadline.

    An item admitted now waits for the round in progress (at most ``lease_establish_s``), then for
    the ``queue_count // host_concurrency_count`` full rounds ahead of it, then for its own round.
    """
    rounds = request.queue_count // request.host_concurrency_count + 2
    return rounds * request.lease_establish_s <= request.work_deadline_s


def key(student_id: str) -> dict[str, object]:
    """The instructor's key for ``student_id``: parameters and the expected measured answers.

    Returns:
        ``{"student_id", "seed", "fleet_droplets_count", "outage_end_s", "recovers",
        "wasted_fraction", "leased_at_horizon_count", "recovery_bound_s"}``; the design question's
        answer is :func:`reference_admission_policy` (or any policy that passes the checks).
    """
    p, cfg = params(student_id), config(student_id)
    result = cached_run(dwfm.run, cfg)
    return {
        "student_id": p.student_id,
        "seed": p.seed,
        "fleet_droplets_count": p.fleet_droplets_count,
        "outage_end_s": p.outage_end_s,
        "recovers": result.summary.recovered,
        "wasted_fraction": result.summary.wasted_fraction,
        "leased_at_horizon_count": int(result.timeseries["leased_count"].iloc[-1]),
        "recovery_bound_s": recovery_bound_s(cfg),
    }


def check_wasted_fraction(answer: object, student_id: str) -> None:
    """The measured wasted fraction equals the model's for the id (within 1e-9)."""
    expected = float(key(student_id)["wasted_fraction"])  # type: ignore[arg-type]
    assert isinstance(answer, float), "wasted_fraction must be a float"
    assert math.isclose(answer, expected, abs_tol=1e-9), "wasted_fraction is not what your night gives"


def check_leased_at_horizon(answer: object, student_id: str) -> None:
    """The measured leased count at the horizon equals the model's for the id."""
    expected = key(student_id)["leased_at_horizon_count"]
    assert isinstance(answer, int) and not isinstance(answer, bool), "leased_at_horizon_count must be an int"
    assert answer == expected, "leased_at_horizon_count is not what your night gives"


def _ask(policy: Callable[[AdmissionRequest], bool], request: AdmissionRequest) -> bool:
    return call_strategy("admission_policy", policy, request)


def _graded(cfg: dwfm.DwfmConfig, policy: Callable[[AdmissionRequest], bool] | None) -> dwfm.DwfmConfig:
    """``cfg`` with the policy, its horizon cut to the end of the recovery bound (plus one report):
    a later recovery fails anyway, and a policy that sheds everything costs a shorter run."""
    horizon_s = min(cfg.horizon_s, cfg.outage_end_s + recovery_bound_s(cfg) + cfg.report_interval_s)
    return replace(cfg, admission_policy=policy, horizon_s=horizon_s)


@functools.lru_cache(maxsize=16)
def _seen_requests(student_id: str) -> tuple[AdmissionRequest, ...]:
    """Every request the reference policy is asked in ``student_id``'s night (graded horizon), in order."""
    cfg = _graded(config(student_id), None)  # recorded_requests puts its recorder in the field
    return recorded_requests(dwfm.run, cfg, "admission_policy", reference_admission_policy)


def check_policy_admits_a_short_queue(policy: Callable[[AdmissionRequest], bool], student_id: str) -> None:
    """Never shed a short queue: with fewer items waiting than one round, every item is admitted.

    Asked over made-up requests (queues of 0 to ``host_concurrency_count - 1`` items, first
    requests and retries, idle and busy hosts, several hosts and times, each host shape the
    assignment uses), then over every such request a real run of the id's night makes.
    """
    made_up = [
        AdmissionRequest(
            time_s=time_s,
            host=host,
            queue_count=queue,
            in_flight_count=in_flight,
            oldest_wait_s=0.0 if queue == 0 else 30.0 + queue,
            attempt=attempt,
            host_concurrency_count=cfg.host_concurrency_count,
            lease_establish_s=cfg.lease_establish_s,
            work_deadline_s=cfg.work_deadline_s,
        )
        for cfg in (replace(dwfm.INCIDENT, **shape) for shape in ({}, *CAPACITY_VARIANTS))
        for queue in range(cfg.host_concurrency_count)
        for attempt in (0, 1, 5)
        for in_flight in (0, cfg.host_concurrency_count)
        for host, time_s in ((0, 9_500.0), (3, 12_000.0), (7, 20_123.0))
    ]
    for request in made_up + list(_seen_requests(student_id)):
        if request.queue_count < request.host_concurrency_count:
            assert _ask(policy, request) is True, f"a short queue was refused: {request}"


def _assert_recovers(summary: dwfm.DwfmSummary, cfg: dwfm.DwfmConfig, label: str) -> None:
    bound = recovery_bound_s(cfg)
    after = summary.recovery_after_outage_s
    assert summary.recovered and after is not None, (
        f"{label}: not every lease came back within {bound:,.0f} s of DynamoDB's return"
    )
    assert after <= bound, (
        f"{label}: every lease came back {after:,.0f} s after DynamoDB's return; the bound is {bound:,.0f} s"
    )


def _assert_wastes_little(summary: dwfm.DwfmSummary, label: str) -> None:
    assert summary.started_count > 0, f"{label}: no work was started: the policy refused everything"
    assert summary.wasted_fraction <= WASTE_LIMIT, (
        f"{label}: {summary.wasted_fraction:.1%} of the started work was wasted (at most {WASTE_LIMIT:.0%})"
    )
    assert summary.goodput_count >= summary.leases_lost_count, (
        f"{label}: only {summary.goodput_count:,} leases were established, fewer than the "
        f"{summary.leases_lost_count:,} lost: little waste earns the point only while the fleet's leases come back"
    )


def check_policy_recovers(policy: Callable[[AdmissionRequest], bool], student_id: str, seeds_count: int = 2) -> None:
    """The id's night, with the policy, on ``seeds_count`` seeds: every lease back within
    :func:`~labsupport.assignments.lab02.recovery_bound_s` of DynamoDB's return."""
    base = config(student_id)
    for k in range(seeds_count):
        cfg = replace(base, seed=base.seed + 7919 * k)
        _assert_recovers(dwfm.run(_graded(cfg, policy)).summary, cfg, f"seed {cfg.seed}")


def check_policy_wastes_little(policy: Callable[[AdmissionRequest], bool], student_id: str) -> None:
    """The id's night, with the policy, on a third seed: at most
    :data:`~labsupport.assignments.lab02.WASTE_LIMIT` of the started work wasted (timed out after a
    host worked on it), while establishing at least as many leases as the fleet lost (so that
    shedding nearly everything does not pass)."""
    base = config(student_id)
    cfg = replace(base, seed=base.seed + 7919 * 2)
    _assert_wastes_little(dwfm.run(_graded(cfg, policy)).summary, f"seed {cfg.seed}")


def check_policy_on_other_hosts(policy: Callable[[AdmissionRequest], bool], student_id: str) -> None:
    """The id's night on the hosts of :data:`~labsupport.assignments.lab02.CAPACITY_VARIANTS`:
    recovers within the bound, wasting at most the limit (the policy must read the request, not a
    constant tuned to one fleet)."""
    base = config(student_id)
    for shape in CAPACITY_VARIANTS:
        label = ", ".join(f"{k}={v:g}" for k, v in shape.items())
        cfg = replace(base, **shape)
        summary = dwfm.run(_graded(cfg, policy)).summary
        _assert_recovers(summary, cfg, label)
        _assert_wastes_little(summary, label)


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
        *prediction_answers({"recovers": ("bool", 0, 1), "wasted_fraction": ("float", 0.0, 1.0)}),
        Answer("wasted_fraction", "wasted_fraction", "float", 0.0, 1.0),
        Answer("leased_at_horizon_count", "leased_at_horizon_count", "int", 0, 10_000_000),
    ),
    strategy="admission_policy",
    strategy_field="admission_policy",
    checks=(
        Check("q1_predict", "made before the run", 1, "prediction", check_prediction),
        answer_check("q2_measure", "wasted_fraction", 1, check_wasted_fraction, "wasted_fraction"),
        answer_check("q2_measure", "leased_at_horizon_count", 1, check_leased_at_horizon, "leased_at_horizon_count"),
        Check("q3_design", "admits a short queue", 1, "strategy", check_policy_admits_a_short_queue),
        Check("q3_design", "recovers on your night", 1, "strategy", check_policy_recovers),
        Check("q3_design", "wastes little", 1, "strategy", check_policy_wastes_little),
        Check("q3_design", "works on other hosts", 1, "strategy", check_policy_on_other_hosts),
    ),
    references=(reference_admission_policy,),
    prepare=_prepare,
    params=lambda i: {k: v for k, v in asdict(params(i)).items() if k != "student_id"},
    key=key,
    prediction=("recovers", "wasted_fraction"),
)
