"""Lab 04's graded version (DNS caches): each student's night, the key, and the hidden checks.

Scenario:
    Every student id gives its own night (:func:`params`): a seed, the zone's SOA record TTL (so the
    negative-caching TTL), how long the endpoint's answer stays empty, how many clients share one
    resolver cache and the resolvers' maximum stale timer, derived from the id with SHA-256
    (:mod:`labsupport.grading._shared`). The resolvers first behave as in October (they accept the
    empty answer); the design question asks for the rule that serves the old records stale
    instead, within the operator's limit (:attr:`labsupport.dns_cache.DnsCacheConfig.empty_answer_rule`).
    The hidden tests of ``assignments/04-dns-caches`` call the ``check_*`` functions below, which
    compute the expected answer from the id with :mod:`labsupport.dns_cache` at grading time.
Covers:
    The PES's DynamoDB section: the empty DNS record from 11:48 PM, the restore at 2:25 AM and clients
    reconnecting as cached records expired; RFC 2308's negative caching; RFC 8767's serve-stale
    timers (the failure recheck timer and the maximum stale timer), applied here to an empty answer,
    which RFC 8767 does not cover: the course's extension, worded as such.

::

    student id --sha256--> Lab04Params(seed, soa_ttl, empty, per cache, max stale) --> DnsCacheConfig
                                                                      '--> key(id): the answers
    hidden test: check_*(answer or rule, notebook id) --graded_id--> the id the grader was given
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from .. import dns_cache
from .._memo import cached_run
from ..errors import ConfigError
from ..strategy import EmptyAnswerRequest, call_strategy
from ._shared import PredictionBase, check_prediction_made, check_seconds, digest, graded_id, recorded_requests

__all__ = [
    "ASSIGNMENT",
    "CLIENTS_COUNT",
    "NIGHT_VARIANTS",
    "Lab04Params",
    "Prediction",
    "check_half_failing_after_s",
    "check_prediction",
    "check_recovery_most_s",
    "check_rule_gives_up_at_the_limit",
    "check_rule_on_other_nights",
    "check_rule_on_your_night",
    "check_rule_serves_stale_within_the_limit",
    "config",
    "key",
    "params",
    "reference_empty_answer_rule",
    "removal_config",
]

#: The assignment's name (its folder under ``assignments/`` and otter's assignment name).
ASSIGNMENT = "04-dns-caches"
#: Clients on every student's night (count): enough for a smooth curve, few enough to grade fast.
CLIENTS_COUNT = 1_000
#: Nights unlike the student's own, on which the rule must also hold: private caches with a short
#: limit and a slow recheck, and a limit longer than the outage.
NIGHT_VARIANTS: tuple[dict[str, Any], ...] = (
    {"clients_count": 300, "clients_per_resolver_count": 1, "stale_recheck_s": 120.0, "max_stale_s": 900.0},
    {"empty_duration_s": 3_600.0, "max_stale_s": 14_400.0, "stale_recheck_s": 60.0},
)
_SOA_TTLS_S = (300.0, 600.0, 900.0, 1_800.0, 3_600.0)
#: Never equal to an outage's length (those are whole quarter-hours from 1 h): at equality nobody
#: would fail with the rule although the outage is not shorter than the limit.
_MAX_STALE_S = (1_200.0, 3_000.0, 4_800.0, 6_600.0, 8_400.0)
_PER_CACHE = (5, 10, 20, 40)


@dataclass(frozen=True)
class Lab04Params:
    """One student's night.

    Attributes:
        student_id: the id the parameters come from.
        seed: the run's seed (0 to 2**31 - 1).
        soa_ttl_s: the zone's SOA record TTL, seconds (300 to 3,600), which is the negative TTL.
        empty_duration_s: how long the endpoint's answer stays empty, seconds (1 to 3 h, by 15 min).
        clients_per_resolver_count: clients sharing one resolver cache (5, 10, 20 or 40).
        max_stale_s: the resolvers' maximum stale timer, seconds (20 to 140 min, never an outage's length).
    """

    student_id: str
    seed: int
    soa_ttl_s: float
    empty_duration_s: float
    clients_per_resolver_count: int
    max_stale_s: float


def params(student_id: str) -> Lab04Params:
    """The parameters of ``student_id``'s night (deterministic; raises ConfigError on an empty id)."""
    d = digest(ASSIGNMENT, student_id)
    return Lab04Params(
        student_id.strip(),
        int.from_bytes(d[:4], "big") >> 1,
        _SOA_TTLS_S[d[4] % len(_SOA_TTLS_S)],
        3_600.0 + 900.0 * (d[5] % 9),
        _PER_CACHE[d[6] % len(_PER_CACHE)],
        _MAX_STALE_S[d[7] % len(_MAX_STALE_S)],
    )


def _horizon(cfg: dns_cache.DnsCacheConfig) -> float:
    return cfg.restored_s + max(3_600.0, 2 * cfg.negative_ttl_s)


def config(student_id: str) -> dns_cache.DnsCacheConfig:
    """The :class:`~labsupport.dns_cache.DnsCacheConfig` of ``student_id``'s night: the incident's
    TTLs and lookups with their parameters, :data:`CLIENTS_COUNT` clients, resolvers as in October
    (no rule), and an hour after the restore (or two negative TTLs, if longer)."""
    p = params(student_id)
    cfg = replace(
        dns_cache.INCIDENT,
        seed=p.seed,
        clients_count=CLIENTS_COUNT,
        clients_per_resolver_count=p.clients_per_resolver_count,
        soa_ttl_s=p.soa_ttl_s,
        empty_duration_s=p.empty_duration_s,
        max_stale_s=p.max_stale_s,
    )
    return replace(cfg, horizon_s=_horizon(cfg))


def removal_config(cfg: dns_cache.DnsCacheConfig) -> dns_cache.DnsCacheConfig:
    """``cfg`` with the name removed on purpose: the answer stays empty to the end of the run,
    two hours past the maximum stale timer."""
    horizon = cfg.empty_start_s + cfg.max_stale_s + 7_200.0
    return replace(cfg, horizon_s=horizon, empty_duration_s=horizon - cfg.empty_start_s - 1.0)


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


@dataclass
class Prediction(PredictionBase):
    """A prediction recorded in the notebook before the run it predicts (``Prediction()``, then
    :meth:`record`; its fields are set only by :meth:`record` and :meth:`run`).

    Attributes:
        recovery_min: the predicted minutes from the restore until 99 % of the clients that failed
            can connect again, on the night without a rule.
        failed_fraction_with_rule: the predicted share of clients that ever fail once the resolvers
            serve stale within their limit (fraction, 0 to 1).
        made_before_run: whether it was recorded before :meth:`run` was first called.
    """

    recovery_min: float | None = field(default=None, init=False)
    failed_fraction_with_rule: float | None = field(default=None, init=False)

    def record(self, recovery_min: float, failed_fraction_with_rule: float) -> None:
        """Record the prediction; raises ConfigError unless a number >= 0 and a fraction in [0, 1]."""
        for name, value, hi in (
            ("recovery_min", recovery_min, math.inf),
            ("failed_fraction_with_rule", failed_fraction_with_rule, 1.0),
        ):
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0.0 <= float(value) <= hi:
                limit = "a number >= 0" if hi == math.inf else "a number from 0 to 1"
                raise ConfigError(f"{name} must be {limit}, got {value!r}")
        self.recovery_min, self.failed_fraction_with_rule = float(recovery_min), float(failed_fraction_with_rule)
        self._recorded()

    def run(self, student_id: str) -> dns_cache.DnsCacheResult:
        """Run ``student_id``'s night without a rule (the measurement), after the prediction."""
        self._running(self.recovery_min, "recovery_min=..., failed_fraction_with_rule=...")
        return dns_cache.run(config(student_id))


# -- hidden checks: each raises AssertionError with a message the student can act on -----------------
def check_prediction(prediction: object) -> None:
    """Credit for a prediction made: a :class:`Prediction` recorded before the run."""
    check_prediction_made(prediction, Prediction, "recovery_min")


def check_recovery_most_s(answer: object, notebook_id: str) -> None:
    """The measured restore-to-99 % time equals the model's for the graded id (within 0.5 s)."""
    check_seconds(answer, notebook_id, "recovery_most_s", key)


def check_half_failing_after_s(answer: object, notebook_id: str) -> None:
    """The measured time until half the clients fail equals the model's for the graded id (within 0.5 s)."""
    check_seconds(answer, notebook_id, "half_failing_after_s", key)


def _ask(rule: Callable[[EmptyAnswerRequest], bool], request: EmptyAnswerRequest) -> bool:
    return call_strategy("empty_answer_rule", rule, request)


@functools.lru_cache(maxsize=64)
def _seen_requests(student_id: str) -> tuple[EmptyAnswerRequest, ...]:
    """Every request the reference rule is asked on ``student_id``'s night and its removal, in order."""
    cfg = config(student_id)
    night = recorded_requests(dns_cache.run, cfg, "empty_answer_rule", reference_empty_answer_rule)
    removal = recorded_requests(dns_cache.run, removal_config(cfg), "empty_answer_rule", reference_empty_answer_rule)
    return night + removal


def _table(notebook_id: str) -> list[EmptyAnswerRequest]:
    """Made-up requests over limits of 60 s to 2 days, stale times on both sides of each limit and
    TTLs unlike it, then a sample of those a real run of the graded id's night asks (so that a table
    cannot be told apart from a run)."""
    made_up = [
        EmptyAnswerRequest(resolver, stale, ttl, neg, recheck, limit)
        for resolver in (0, 7)
        for limit in (60.0, 1_800.0, 3_600.0, 172_800.0)
        for stale in (0.0, limit / 2, limit - 1.0, limit, limit + 1.0, 3 * limit)
        for ttl, neg in ((60.0, 900.0), (300.0, 60.0))
        for recheck in (10.0, 30.0, 600.0)
    ]
    seen = _seen_requests(graded_id(notebook_id))
    return made_up + list(seen[:: max(1, len(seen) // 2_000)])


def check_rule_serves_stale_within_the_limit(rule: Callable[[EmptyAnswerRequest], bool], notebook_id: str) -> None:
    """Serve stale (``True``) while the records have been stale for less than the maximum stale timer."""
    for request in _table(notebook_id):
        if request.stale_for_s < request.max_stale_s:
            assert _ask(rule, request) is True, f"gave up before the limit: {request}"


def check_rule_gives_up_at_the_limit(rule: Callable[[EmptyAnswerRequest], bool], notebook_id: str) -> None:
    """Accept the empty answer (``False``) once the records have been stale for the maximum stale timer."""
    for request in _table(notebook_id):
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


def check_rule_on_your_night(
    rule: Callable[[EmptyAnswerRequest], bool], notebook_id: str, seeds_count: int = 2
) -> None:
    """The graded id's night with the rule, on ``seeds_count`` seeds: see :func:`_assert_night`."""
    base = config(graded_id(notebook_id))
    for k in range(seeds_count):
        cfg = replace(base, seed=base.seed + 7919 * k)
        _assert_night(rule, cfg, f"seed {cfg.seed}")


def check_rule_on_other_nights(rule: Callable[[EmptyAnswerRequest], bool], notebook_id: str) -> None:
    """The same on the nights of :data:`NIGHT_VARIANTS` (built from the graded id's)."""
    base = config(graded_id(notebook_id))
    for shape in NIGHT_VARIANTS:
        cfg = replace(base, **shape)
        cfg = replace(cfg, horizon_s=_horizon(cfg))
        label = ", ".join(f"{k}={v:g}" for k, v in shape.items())
        _assert_night(rule, cfg, label)
