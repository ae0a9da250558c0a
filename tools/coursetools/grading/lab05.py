"""Lab 05's graded version, the instructor's side: the key, the reference rule and the hidden checks.

Scenario:
    The student's side (each id's night, its configs, the prediction) is
    :mod:`labsupport.assignments.lab05`. The checks below compute every expected answer from the
    collected id with :mod:`labsupport.chain` at grading time (no answer is stored anywhere) and
    run the student's launch admission rule, compiled from the notebook's source, in the chain.
Covers:
    The PES's EC2 section (Network Manager's backlog) and its announced fix for EC2's data
    propagation, to "rate limit incoming work based on the size of the waiting queue", which the
    student's rule stands for; the seed articles' stop point 5.

::

    collected id --key(id)--> the answers     student's launch_admission --check_rule_*--> pass / fail
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable
from dataclasses import asdict, replace
from typing import Any

from labsupport import chain
from labsupport._memo import cached_run
from labsupport.assignments import digest
from labsupport.assignments.lab05 import (
    ASSIGNMENT,
    END_SLACK_S,
    NIGHT_VARIANTS,
    REFUSAL_SLACK_COUNT,
    REFUSAL_SLACK_FRACTION,
    config,
    design_config,
    night_config,
    params,
    with_rule,
)
from labsupport.chain import StopPoints
from labsupport.strategy import LaunchRequest, call_strategy

from ._shared import answer_check, check_prediction, check_seconds, prediction_answers, recorded_requests
from .spec import Answer, Check, Question, Spec

__all__ = [
    "SPEC",
    "check_rule_admits_within_the_limit",
    "check_rule_on_other_nights",
    "check_rule_on_your_night",
    "check_rule_refuses_beyond_the_limit",
    "check_saved_by_5_s",
    "check_total_s",
    "key",
    "reference_launch_admission",
]


def reference_launch_admission(request: LaunchRequest) -> bool:
    """Admit a launch only if everything ahead of it and its own item finish within the wait limit."""
    return (request.queue_count + 1) * request.service_s <= request.wait_limit_s


def key(student_id: str) -> dict[str, object]:
    """The instructor's key for ``student_id``: parameters and the expected measured answers.

    Returns:
        ``{"student_id", "seed", "dns_repair_s", "propagation_rate_per_min", "launch_wait_limit_s",
        "network_queue_limit_count", "total_s", "saved_by_5_s", "total_with_rule_s",
        "refused_with_rule_count"}``: the measured answers come from the night as in October and
        with the course's stop point 5; the last two from the night with
        :func:`reference_launch_admission`, which any rule that passes the checks matches within
        :data:`END_SLACK_S`.
    """
    p, cfg = params(student_id), config(student_id)
    october = cached_run(chain.run, cfg).summary
    five = cached_run(chain.run, replace(cfg, stop_points=StopPoints.of(5))).summary
    ref = _reference_run(student_id)
    return {
        "student_id": p.student_id,
        "seed": p.seed,
        "dns_repair_s": p.dns_repair_s,
        "propagation_rate_per_min": p.propagation_rate_per_min,
        "launch_wait_limit_s": p.launch_wait_limit_s,
        "network_queue_limit_count": cfg.network_queue_limit_count,
        "total_s": october.total_s,
        "saved_by_5_s": october.total_s - five.total_s,
        "total_with_rule_s": ref.summary.total_s,
        "refused_with_rule_count": ref.runs.network.summary.refused_count if ref.runs.network else 0,
    }


@functools.lru_cache(maxsize=64)
def _reference_run(student_id: str, **network: Any) -> chain.ChainResult:
    """``student_id``'s night (or a variant's) with the reference rule (a run with a strategy is
    never in the run cache, so it is kept here, once per night)."""
    cfg = design_config(night_config(params(student_id), **network))
    return chain.run(with_rule(cfg, reference_launch_admission))


def check_total_s(answer: object, student_id: str) -> None:
    """The whole event's length as in October equals the model's for the id (within 0.5 s)."""
    check_seconds(answer, student_id, "total_s", key)


def check_saved_by_5_s(answer: object, student_id: str) -> None:
    """The time stop point 5 saves equals the model's for the id (within 0.5 s)."""
    check_seconds(answer, student_id, "saved_by_5_s", key)


def _ask(rule: Callable[[LaunchRequest], bool], request: LaunchRequest) -> bool:
    return call_strategy("launch_admission", rule, request)


@functools.lru_cache(maxsize=64)
def _seen_requests(student_id: str) -> tuple[LaunchRequest, ...]:
    """Every request the reference rule is asked on ``student_id``'s night, in order."""
    cfg = design_config(config(student_id))

    def run(net: Any) -> object:
        return chain.run(replace(cfg, nlb=replace(cfg.nlb, network=net)))

    seen = recorded_requests(run, cfg.nlb.network, "launch_admission", reference_launch_admission)
    return tuple(dict.fromkeys(seen))  # the chain runs Network Manager twice: each request once


def _table(student_id: str) -> list[LaunchRequest]:
    """Made-up requests over service times of 1 s to 10 min and limits of 1 min to 1 day, queues on
    both sides of each limit, then a sample of those a real run of the id's night asks.

    The made-up requests' times and oldest waits are drawn from continuous ranges (seeded by the
    graded id), and a queue that is not empty has waited, as in a real run, so that a rule cannot
    tell them from the real ones by their values."""
    student = student_id
    rng = random.Random(digest(ASSIGNMENT + ":table", student))
    made_up = []
    for service in (1.0, 5.0, 6.0, 7.5, 10.0, 600.0):
        for limit in (60.0, 450.0, 600.0, 86_400.0):
            edge = int(limit // service)
            for queue in sorted({0, 1, edge // 2, max(edge - 2, 0), max(edge - 1, 0), edge, edge + 1, 3 * edge + 5}):
                for _ in range(3):
                    time_s = rng.uniform(0.0, 40_000.0)
                    oldest = 0.0 if queue == 0 else rng.uniform(0.0, min(time_s, 3 * limit))
                    made_up.append(LaunchRequest(time_s, queue, oldest, service, limit))
    seen = _seen_requests(student)
    return made_up + list(seen[:: max(1, len(seen) // 2_000)])


def _within(request: LaunchRequest) -> bool:
    return (request.queue_count + 1) * request.service_s <= request.wait_limit_s


def check_rule_admits_within_the_limit(rule: Callable[[LaunchRequest], bool], student_id: str) -> None:
    """Never shed a short queue: admit (``True``) every launch whose item would be done within the limit."""
    for request in _table(student_id):
        if _within(request):
            assert _ask(rule, request) is True, f"refused a launch that would finish within the limit: {request}"


def check_rule_refuses_beyond_the_limit(rule: Callable[[LaunchRequest], bool], student_id: str) -> None:
    """Refuse (``False``) every launch whose item could not be done within the limit."""
    for request in _table(student_id):
        if not _within(request):
            assert _ask(rule, request) is False, f"admitted a launch that waits past the limit: {request}"


def _assert_night(rule: Callable[[LaunchRequest], bool], student_id: str, label: str, **network: Any) -> None:
    """The chain with the rule: no admitted launch waits past the limit (plus one item's service),
    it refuses at most :data:`REFUSAL_SLACK_FRACTION` (or :data:`REFUSAL_SLACK_COUNT`) more launches
    than the reference rule, and the whole event ends at most :data:`END_SLACK_S` after the
    reference rule's."""
    ref = _reference_run(student_id, **network)
    cfg = with_rule(ref.config, rule)
    result = chain.run(cfg)
    net = cfg.nlb.network
    assert result.runs.network is not None, f"{label}: the leases never came back"
    longest = result.runs.network.summary.max_delay_s or 0.0
    bound = net.launch_wait_limit_s + 60.0 / net.propagation_rate_per_min
    assert longest <= bound, (
        f"{label}: a launch waited {longest:.0f} s for its configuration (limit {net.launch_wait_limit_s:.0f} s)"
    )
    refused = result.runs.network.summary.refused_count
    ref_refused = ref.runs.network.summary.refused_count if ref.runs.network is not None else 0
    allowed = ref_refused + max(REFUSAL_SLACK_COUNT, math.ceil(REFUSAL_SLACK_FRACTION * ref_refused))
    assert refused <= allowed, (
        f"{label}: {refused} launches were refused; a rule that admits every launch that finishes within "
        f"the limit refuses {ref_refused} (at most {allowed} pass)"
    )
    late = result.summary.total_s - ref.summary.total_s
    assert late <= END_SLACK_S, (
        f"{label}: the event lasted {late / 60:.0f} min longer than with a rule that admits every launch "
        "that finishes within the limit"
    )


def check_rule_on_your_night(rule: Callable[[LaunchRequest], bool], student_id: str) -> None:
    """The id's night with the rule: see :func:`_assert_night`."""
    _assert_night(rule, student_id, "your night")


def check_rule_on_other_nights(rule: Callable[[LaunchRequest], bool], student_id: str) -> None:
    """The same on the Network Managers of :data:`NIGHT_VARIANTS` (the id's night otherwise)."""
    student = student_id
    for shape in NIGHT_VARIANTS:
        label = ", ".join(f"{k}={v:g}" for k, v in shape.items())
        _assert_night(rule, student, label, **shape)


def _prepare(student_id: str) -> None:
    key(student_id)
    _seen_requests(student_id)
    for shape in NIGHT_VARIANTS:
        _reference_run(student_id, **shape)


SPEC = Spec(
    assignment=ASSIGNMENT,
    questions=(
        Question("q1_predict", 1),
        Question("q2_measure", 2),
        Question("q3_design", 4),
        Question("q4_explain", 3, manual=True),
    ),
    answers=(
        *prediction_answers({"total_h": ("float", 0.0, 48.0), "with_5_h": ("float", 0.0, 48.0)}),
        Answer("total_s", "total_s", "float", 0.0, 1e9),
        Answer("saved_by_5_s", "saved_by_5_s", "float", -1e9, 1e9),
    ),
    strategy="launch_admission",
    strategy_field="launch_admission",
    checks=(
        Check("q1_predict", "made before the run", 1, "prediction", check_prediction),
        answer_check("q2_measure", "total_s", 1, check_total_s, "total_s"),
        answer_check("q2_measure", "saved_by_5_s", 1, check_saved_by_5_s, "saved_by_5_s"),
        Check("q3_design", "admits within the limit", 1, "strategy", check_rule_admits_within_the_limit),
        Check("q3_design", "refuses beyond the limit", 1, "strategy", check_rule_refuses_beyond_the_limit),
        Check("q3_design", "your night", 1, "strategy", check_rule_on_your_night),
        Check("q3_design", "other nights", 1, "strategy", check_rule_on_other_nights),
    ),
    references=(reference_launch_admission,),
    prepare=_prepare,
    params=lambda i: {k: v for k, v in asdict(params(i)).items() if k != "student_id"},
    key=key,
    prediction=("total_h", "with_5_h"),
)
