"""The DNS-cache model's configuration: :class:`DnsCacheConfig` and its presets."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from .._validate import Config, check_int, check_number, check_seed
from ..clock import INCIDENT_CLOCK
from ..strategy import EmptyAnswerRequest, check_strategy

__all__ = ["DnsCacheConfig", "INCIDENT", "LONG_NEGATIVE_TTL", "CLOCK"]

#: The model's clock: t = 0 is 11:48 PM PDT on 19 October 2025, when the endpoint went empty.
CLOCK = INCIDENT_CLOCK

_DAY_S = 86_400.0


@dataclass(frozen=True, kw_only=True)
class DnsCacheConfig(Config):
    """Everything one DNS-cache run depends on. Defaults are the incident (:data:`INCIDENT`).

    Times are seconds since 11:48 PM PDT on 19 Oct.

    Attributes:
        clients_count: clients (applications resolving the endpoint), 1 to 1,000,000.
        clients_per_resolver_count: clients sharing one resolver cache (1 to 10,000); client ``c``
            uses cache ``c // clients_per_resolver_count``.
        positive_ttl_s: TTL of the endpoint's address records (1 s to 1 day).
        soa_ttl_s, soa_minimum_s: the zone's SOA record TTL and its MINIMUM field (1 s to 1 day).
        negative_ttl_cap_s: the most a resolver will cache an empty answer (1 s to 1 day).
        empty_start_s: when the authoritative answer becomes empty (>= 0).
        empty_duration_s: how long it stays empty (> 0).
        lookup_interval_s: mean time between two lookups of one client (0.1 s to 1 h).
        sample_interval_s: spacing of the :attr:`DnsCacheResult.timeseries` rows.
        horizon_s: end of the run; must leave time after the restore (up to 7 days); closed, as in
            every config (:class:`~labsupport._validate.Config`).
        max_refresh_cycles: bound on the negative-cache refresh cycles the outage can take
            (``empty_duration_s / negative_ttl_s``); more raises ``LimitExceeded``.
        max_cache_refreshes: bound on the run's work, the refreshes of all resolver caches
            together (caches x refresh cycles, 1 to 4,000,000,000; the incident needs 120,000, and
            10**9 take about 15 s); more raises ``LimitExceeded`` before any work is done.
        seed: seed of the run's ``numpy.random.Generator`` streams (every config's rule,
            :class:`~labsupport._validate.Config`): one for the caches' fetches, and one each for
            the clients' lookups in the outage and after it.
        empty_answer_rule: a resolver's rule for an empty answer to a name it holds records for,
            ``f(request: EmptyAnswerRequest) -> bool`` (``True``: serve the old records stale,
            ``False``: accept the empty answer); ``None``, as in October, always accepts it. The
            run asks it once per cache per refresh while the cache serves stale, so each cache
            costs about ``empty_duration_s / stale_recheck_s`` calls (counted in
            ``max_cache_refreshes``).
        stale_recheck_s: how long a cache that serves stale waits before it asks again (1 s to
            1 h; RFC 8767's failure recheck timer; an assumption, 30 s).
        max_stale_s: the operator's limit on serving records past their TTL (1 s to 7 days; RFC
            8767's maximum stale timer), given to the rule in each request; the model does not
            enforce it: the rule must (an assumption, 1 h).

    Raises:
        ConfigError: the first invalid field, its value and its range (every config's rule,
            :class:`~labsupport._validate.Config`).
    """

    clients_count: int = 10_000
    clients_per_resolver_count: int = 1
    positive_ttl_s: float = 60.0
    soa_ttl_s: float = 900.0
    soa_minimum_s: float = 86_400.0
    negative_ttl_cap_s: float = 10_800.0
    empty_start_s: float = 0.0
    empty_duration_s: float = 9_420.0
    lookup_interval_s: float = 20.0
    sample_interval_s: float = 10.0
    horizon_s: float = 13_020.0
    max_refresh_cycles: int = 100_000
    max_cache_refreshes: int = 1_000_000_000
    seed: int = 20251019
    empty_answer_rule: Callable[[EmptyAnswerRequest], bool] | None = None
    stale_recheck_s: float = 30.0
    max_stale_s: float = 3_600.0

    def _check(self) -> None:
        check_int("clients_count", self.clients_count, lo=1, hi=1_000_000)
        check_int("clients_per_resolver_count", self.clients_per_resolver_count, lo=1, hi=10_000)
        for name in ("positive_ttl_s", "soa_ttl_s", "soa_minimum_s", "negative_ttl_cap_s"):
            check_number(name, getattr(self, name), lo=1, hi=_DAY_S)
        horizon = check_number("horizon_s", self.horizon_s, lo=0.1, hi=7 * _DAY_S)
        start = check_number("empty_start_s", self.empty_start_s, lo=0, hi=horizon, hi_open=True)
        check_number("empty_duration_s", self.empty_duration_s, lo=0, hi=horizon - start, lo_open=True, hi_open=True)
        check_number("lookup_interval_s", self.lookup_interval_s, lo=0.1, hi=3_600)
        check_number("sample_interval_s", self.sample_interval_s, lo=max(0.1, horizon / 20_000), hi=horizon)
        check_int("max_refresh_cycles", self.max_refresh_cycles, lo=1, hi=10**7)
        check_int("max_cache_refreshes", self.max_cache_refreshes, lo=1, hi=4_000_000_000)
        check_seed("seed", self.seed)
        check_strategy("empty_answer_rule", self.empty_answer_rule)
        check_number("stale_recheck_s", self.stale_recheck_s, lo=1, hi=3_600)
        check_number("max_stale_s", self.max_stale_s, lo=1, hi=7 * _DAY_S)

    @property
    def negative_ttl_s(self) -> float:
        """How long a resolver caches the empty answer, ``min(SOA MINIMUM, SOA TTL, cap)`` (RFC 2308 §5)."""
        return min(self.soa_minimum_s, self.soa_ttl_s, self.negative_ttl_cap_s)

    @property
    def restored_s(self) -> float:
        """When the authoritative answer has records again."""
        return self.empty_start_s + self.empty_duration_s


#: The incident: empty from 11:48 PM to 2:25 AM (PES times), then an hour of aftermath. Every TTL
#: is an assumption (the PES gives none): 60 s for the address records; an SOA MINIMUM of 86,400 s,
#: the value in Route 53's documented example SOA record; and an SOA record TTL of 900 s, so that by
#: RFC 2308 the negative TTL is 900 s. Calibrated: ``lookup_interval_s`` (20 s), so that 99 % of the
#: clients have recovered about 15 minutes after the restore, the PES's 2:40 AM.
INCIDENT = DnsCacheConfig()

#: The same outage if the zone's negative TTL were one hour (SOA record TTL 3,600 s).
LONG_NEGATIVE_TTL = replace(INCIDENT, soa_ttl_s=3_600.0)
