"""Lab 04's graded version, the instructor's side: the key, the reference rule and the hidden checks.

Scenario:
    The student's side (each id's night, its configs, the prediction) is
    :mod:`labsupport.assignments.lab04`. The checks below compute every expected answer from the
    collected id with :mod:`labsupport.dns_cache` at grading time (no answer is stored anywhere)
    and run the student's empty-answer rule, compiled from the notebook's source, in the model.
Covers:
    The PES's DynamoDB section (the empty record, clients reconnecting as cached records expired);
    RFC 2308's negative caching; RFC 8767's serve-stale timers applied to an empty answer, the
    course's extension.

::

    collected id --key(id)--> the answers     student's empty_answer_rule --check_rule_*--> pass / fail
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import asdict, replace

from labsupport import dns_cache
from labsupport._memo import cached_run
from labsupport.assignments.lab04 import ASSIGNMENT, NIGHT_VARIANTS, config, horizon_s, params, removal_config
from labsupport.strategy import EmptyAnswerRequest, call_strategy

from ._shared import answer_check, check_prediction, check_seconds, prediction_answers, recorded_requests
from .spec import Answer, Check, Question, Spec

__all__ = [
    "SPEC",
    "check_half_failing_after_s",
    "check_recovery_most_s",
    "check_rule_gives_up_at_the_limit",
    "check_rule_on_other_nights",
    "check_rule_on_your_night",
    "check_rule_serves_stale_within_the_limit",
    "key",
    "reference_empty_answer_rule",
]


def reference_empty_answer_rule(request: EmptyAnswerRequest) -> bool:
    """Serve the old records stale until they have been stale for the maximum stale timer, then
    accept the empty answer."""
    return request.stale_for_s < request.max_stale_s


def key(student_id: str) -> dict[str, object]:
    """The instructor's key for ``student_id``: parameters and the expected measured answers.

    Returns:
        ``{"student_id", "seed", "soa_ttl_s", "empty_duration_s", "clients_per_resolver_count",
        "max_stale_s", "negative_ttl_s", "recovery_most_s", "half_failing_after_s",
        "failed_fraction_with_rule"}``: the measured answers from the night without a rule; the last
        from the night with :func:`reference_empty_answer_rule`, which any rule that passes the
        checks matches.
    """
    p = params(student_id)
    cfg = config(student_id)
    s = cached_run(dns_cache.run, cfg).summary
    return {
        "student_id": p.student_id,
        "seed": p.seed,
        "soa_ttl_s": p.soa_ttl_s,
        "empty_duration_s": p.empty_duration_s,
        "clients_per_resolver_count": p.clients_per_resolver_count,
        "max_stale_s": p.max_stale_s,
        "negative_ttl_s": cfg.negative_ttl_s,
        "recovery_most_s": s.recovery_most_s,
        "half_failing_after_s": s.half_failing_after_s,
        "failed_fraction_with_rule": _failed_fraction_with_rule(student_id),
    }


@functools.lru_cache(maxsize=64)
def _failed_fraction_with_rule(student_id: str) -> float:
    """Share of ``student_id``'s clients that fail once the resolvers run the reference rule (a run
    with a strategy is never in the run cache, so it is kept here, once per id)."""
    cfg = config(student_id)
    with_rule = dns_cache.run(replace(cfg, empty_answer_rule=reference_empty_answer_rule)).summary
    return with_rule.failed_count / cfg.clients_count


def check_recovery_most_s(answer: object, student_id: str) -> None:
    """The measured restore-to-99 % time equals the model's for the id (within 0.5 s)."""
    check_seconds(answer, student_id, "recovery_most_s", key)


def check_half_failing_after_s(answer: object, student_id: str) -> None:
    """The measured time until half the clients fail equals the model's for the id (within 0.5 s)."""
    check_seconds(answer, student_id, "half_failing_after_s", key)


def _ask(rule: Callable[[EmptyAnswerRequest], bool], request: EmptyAnswerRequest) -> bool:
    return call_strategy("empty_answer_rule", rule, request)


@functools.lru_cache(maxsize=64)
def _seen_requests(student_id: str) -> tuple[EmptyAnswerRequest, ...]:
    """Every request the reference rule is asked on ``student_id``'s night and its removal, in order."""
    cfg = config(student_id)
    night = recorded_requests(dns_cache.run, cfg, "empty_answer_rule", reference_empty_answer_rule)
    removal = recorded_requests(dns_cache.run, removal_config(cfg), "empty_answer_rule", reference_empty_answer_rule)
    return night + removal


def _table(student_id: str) -> list[EmptyAnswerRequest]:
    """Made-up requests over limits of 60 s to 2 days, stale times on both sides of each limit and
    TTLs unlike it, then a sample of those a real run of the id's night asks (so that a table
    cannot be told apart from a run)."""
    made_up = [
        EmptyAnswerRequest(resolver, stale, ttl, neg, recheck, limit)
        for resolver in (0, 7)
        for limit in (60.0, 1_800.0, 3_600.0, 172_800.0)
        for stale in (0.0, limit / 2, limit - 1.0, limit, limit + 1.0, 3 * limit)
        for ttl, neg in ((60.0, 900.0), (300.0, 60.0))
        for recheck in (10.0, 30.0, 600.0)
    ]
    seen = _seen_requests(student_id)
    return made_up + list(seen[:: max(1, len(seen) // 2_000)])


def check_rule_serves_stale_within_the_limit(rule: Callable[[EmptyAnswerRequest], bool], student_id: str) -> None:
    """Serve stale (``True``) while the records have been stale for less than the maximum stale timer."""
    for request in _table(student_id):
        if request.stale_for_s < request.max_stale_s:
            assert _ask(rule, request) is True, f"gave up before the limit: {request}"


def check_rule_gives_up_at_the_limit(rule: Callable[[EmptyAnswerRequest], bool], student_id: str) -> None:
    """Accept the empty answer (``False``) once the records have been stale for the maximum stale timer."""
    for request in _table(student_id):
        if request.stale_for_s >= request.max_stale_s:
            assert _ask(rule, request) is False, f"served stale past the limit: {request}"


def _assert_night(rule: Callable[[EmptyAnswerRequest], bool], cfg: dns_cache.DnsCacheConfig, label: str) -> None:
    """The night with the rule: no client fails before the limit, every client that fails recovers;
    the removal: 99 % of the clients see it within the limit plus a record TTL, a recheck and ten
    lookups."""
    result = dns_cache.run(replace(cfg, empty_answer_rule=rule))
    failing = result.clients["failing_s"].dropna()
    if len(failing):
        first = float(failing.min()) - cfg.empty_start_s
        assert first >= cfg.max_stale_s, (
            f"{label}: a client failed {first:.0f} s into the outage, before the limit of {cfg.max_stale_s:.0f} s"
        )
        assert result.summary.recovery_all_s is not None, f"{label}: some clients never recovered"
    removal = removal_config(cfg)
    seen = dns_cache.run(replace(removal, empty_answer_rule=rule)).clients["failing_s"]
    bound = cfg.max_stale_s + cfg.positive_ttl_s + cfg.stale_recheck_s + 10 * cfg.lookup_interval_s
    late = float((seen.isna() | (seen - removal.empty_start_s > bound)).mean())
    assert late <= 0.01, (
        f"{label}: the name was removed on purpose and {late:.0%} of the clients still had its old "
        f"records {bound:.0f} s later (at most 1 %)"
    )


def check_rule_on_your_night(rule: Callable[[EmptyAnswerRequest], bool], student_id: str, seeds_count: int = 2) -> None:
    """The id's night with the rule, on ``seeds_count`` seeds: see :func:`_assert_night`."""
    base = config(student_id)
    for k in range(seeds_count):
        cfg = replace(base, seed=base.seed + 7919 * k)
        _assert_night(rule, cfg, f"seed {cfg.seed}")


def check_rule_on_other_nights(rule: Callable[[EmptyAnswerRequest], bool], student_id: str) -> None:
    """The same on the nights of :data:`NIGHT_VARIANTS` (built from the id's)."""
    base = config(student_id)
    for shape in NIGHT_VARIANTS:
        cfg = replace(base, **shape)
        cfg = replace(cfg, horizon_s=horizon_s(cfg))
        label = ", ".join(f"{k}={v:g}" for k, v in shape.items())
        _assert_night(rule, cfg, label)


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
        *prediction_answers({"recovery_min": ("float", 0.0, 1e9), "failed_fraction_with_rule": ("float", 0.0, 1.0)}),
        Answer("recovery_most_s", "recovery_most_s", "float", 0.0, 1e9),
        Answer("half_failing_after_s", "half_failing_after_s", "float", 0.0, 1e9),
    ),
    strategy="empty_answer_rule",
    strategy_field="empty_answer_rule",
    checks=(
        Check("q1_predict", "made before the run", 1, "prediction", check_prediction),
        answer_check("q2_measure", "recovery_most_s", 1, check_recovery_most_s, "recovery_most_s"),
        answer_check("q2_measure", "half_failing_after_s", 1, check_half_failing_after_s, "half_failing_after_s"),
        Check("q3_design", "serves stale within the limit", 1, "strategy", check_rule_serves_stale_within_the_limit),
        Check("q3_design", "gives up at the limit", 1, "strategy", check_rule_gives_up_at_the_limit),
        Check("q3_design", "your night", 1, "strategy", check_rule_on_your_night),
        Check("q3_design", "other nights", 1, "strategy", check_rule_on_other_nights),
    ),
    references=(reference_empty_answer_rule,),
    prepare=_prepare,
    params=lambda i: {k: v for k, v in asdict(params(i)).items() if k != "student_id"},
    key=key,
    prediction=("recovery_min", "failed_fraction_with_rule"),
)
