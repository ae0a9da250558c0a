"""Lab 04's graded version (DNS caches): the student's side: each student's night.

Scenario:
    Every student id gives its own night (:func:`params`): a seed, the zone's SOA record TTL (so the
    negative-caching TTL), how long the endpoint's answer stays empty, how many clients share one
    resolver cache and the resolvers' maximum stale timer, derived from the id with SHA-256
    (:func:`~labsupport.assignments.digest`). The resolvers first behave as in October (they accept
    the empty answer); the design question asks for the rule that serves the old records stale
    instead, within the operator's limit
    (:attr:`labsupport.dns_cache.DnsCacheConfig.empty_answer_rule`). The grader
    (``coursetools.grading``, which students do not install) holds the key and the hidden checks and
    computes each expected answer from the collected id at grading time.
Covers:
    The PES's DynamoDB section: the empty DNS record from 11:48 PM, the restore at 2:25 AM and clients
    reconnecting as cached records expired; RFC 2308's negative caching; RFC 8767's serve-stale
    timers (the failure recheck timer and the maximum stale timer), applied here to an empty answer,
    which RFC 8767 does not cover: the course's extension, worded as such.

::

    student id --sha256--> Lab04Params(seed, soa_ttl, empty, per cache, max stale) --> DnsCacheConfig
    (the grader, coursetools.grading.lab04: key(id) and the hidden checks, from the collected id)
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field, replace
from typing import Any

from .. import dns_cache
from ..errors import ConfigError
from ._shared import PredictionBase, digest

__all__ = [
    "ASSIGNMENT",
    "CLIENTS_COUNT",
    "NIGHT_VARIANTS",
    "Lab04Params",
    "Prediction",
    "config",
    "horizon_s",
    "params",
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


def horizon_s(cfg: dns_cache.DnsCacheConfig) -> float:
    """The graded horizon of a night, seconds: an hour after the restore, or two negative TTLs if longer."""
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
    return replace(cfg, horizon_s=horizon_s(cfg))


def removal_config(cfg: dns_cache.DnsCacheConfig) -> dns_cache.DnsCacheConfig:
    """``cfg`` with the name removed on purpose: the answer stays empty to the end of the run,
    two hours past the maximum stale timer."""
    horizon = cfg.empty_start_s + cfg.max_stale_s + 7_200.0
    return replace(cfg, horizon_s=horizon, empty_duration_s=horizon - cfg.empty_start_s - 1.0)


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
