"""DNS caches between DynamoDB's empty record and its clients: TTL and negative caching.

Scenario:
    19 Oct 2025, 11:48 PM PDT (t = 0 of :data:`CLOCK`): the authoritative answer for the regional
    endpoint becomes empty (NOERROR with no records) and stays empty until engineers restore it,
    2 h 37 min later (2:25 AM). Clients ask their resolvers; each resolver answers from its cache
    until the cached entry expires. An address is cached for the record's TTL; an empty answer for
    the zone's negative-caching TTL (RFC 2308: the smaller of the SOA's MINIMUM field and the SOA
    record's own TTL, here also capped by the resolver).
Covers:
    The PES's statements that customers could resolve the endpoint again as cached DNS records
    expired, between 2:25 and 2:40 AM, and the design note that the TTL decides both how fast the
    failure spreads and how fast the fix reaches clients::

        authoritative:  records ..........| empty from empty_start_s for empty_duration_s |records
        client c ──lookups, a Poisson stream, mean gap lookup_interval_s──> resolver cache r
                                                  (clients_per_resolver_count clients each)
        resolver r: answers from its cache; once the entry has expired, the next lookup of any of
                    its clients makes it fetch again: records kept positive_ttl_s,
                    an empty answer kept negative_ttl_s = min(SOA MINIMUM, SOA TTL, cap)
        client c:   failing from its first lookup answered "empty" (a lookup that reaches
                    its cache while the cache serves the empty answer, never any other)
                    until its first lookup answered with records

Because a cache refreshes only when a client asks after expiry, each refresh cycle of the empty
answer lasts a little longer than the negative TTL, by a random wait; over the hours of the outage
the caches drift out of step, so recovery after the restore is spread over about one negative
TTL. A resolver shared by many busy clients waits almost nothing, and its clients recover together.

The model is vectorised with numpy (nothing queues, so no simpy); the waits are exact for Poisson
lookups (memorylessness). Assumptions: each cache's records entry expires at a uniformly random
time in the first ``positive_ttl_s`` of the outage; every cache honours the TTLs it is given; a
client keeps no cache of its own. The PES gives no TTLs: every TTL here is an assumption, see
:data:`INCIDENT`.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ._sweep import map_configs, summary_frame
from ._validate import check_int, check_number, check_seed, store_plain_numbers
from .clock import INCIDENT_CLOCK, sample_times
from .errors import ConfigError, LimitExceeded

__all__ = [
    "CLOCK",
    "DnsCacheConfig",
    "DnsCacheResult",
    "DnsCacheSummary",
    "EVENT_KINDS",
    "INCIDENT",
    "LONG_NEGATIVE_TTL",
    "resolver_windows",
    "run",
    "sweep",
]

#: The model's clock: t = 0 is 11:48 PM PDT on 19 October 2025, when the endpoint went empty.
CLOCK = INCIDENT_CLOCK

#: Values of the ``kind`` column of :attr:`DnsCacheResult.events`.
EVENT_KINDS: tuple[str, ...] = (
    "authoritative_empty", "authoritative_restored", "resolver_cached_empty",
    "resolver_cached_records", "client_failing", "client_recovered",
)

_DAY_S = 86_400.0


@dataclass(frozen=True, kw_only=True)
class DnsCacheConfig:
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
        horizon_s: end of the run; must leave time after the restore (up to 7 days); the run covers the
            closed interval [0, horizon_s]: an event due at exactly horizon_s happens and is kept (the
            rule of every model, see :mod:`labsupport`).
        max_refresh_cycles: bound on the negative-cache refresh cycles the outage can take
            (``empty_duration_s / negative_ttl_s``); more raises ``LimitExceeded``.
        max_cache_refreshes: bound on the run's work, the refreshes of all resolver caches
            together (caches x refresh cycles, 1 to 4,000,000,000; the incident needs 120,000, and
            10**9 take about 15 s); more raises ``LimitExceeded`` before any work is done.
        seed: seed of the run's one ``numpy.random.Generator`` (an integer from 0 to 2**63 - 1, the rule of every config).

    Raises:
        ConfigError: (a ``ValueError``) naming the first invalid field, its value and its range.
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

    def __post_init__(self) -> None:
        store_plain_numbers(self)  # numpy and other numbers become plain int/float first
        check_int("clients_count", self.clients_count, lo=1, hi=1_000_000)
        check_int("clients_per_resolver_count", self.clients_per_resolver_count, lo=1, hi=10_000)
        for name in ("positive_ttl_s", "soa_ttl_s", "soa_minimum_s", "negative_ttl_cap_s"):
            check_number(name, getattr(self, name), lo=1, hi=_DAY_S)
        horizon = check_number("horizon_s", self.horizon_s, lo=0.1, hi=7 * _DAY_S)
        start = check_number("empty_start_s", self.empty_start_s, lo=0, hi=horizon, hi_open=True)
        check_number("empty_duration_s", self.empty_duration_s, lo=0, hi=horizon - start, lo_open=True,
                     hi_open=True)
        check_number("lookup_interval_s", self.lookup_interval_s, lo=0.1, hi=3_600)
        check_number("sample_interval_s", self.sample_interval_s, lo=max(0.1, horizon / 20_000), hi=horizon)
        check_int("max_refresh_cycles", self.max_refresh_cycles, lo=1, hi=10**7)
        check_int("max_cache_refreshes", self.max_cache_refreshes, lo=1, hi=4_000_000_000)
        check_seed("seed", self.seed)

    @property
    def negative_ttl_s(self) -> float:
        """How long a resolver caches the empty answer: ``min(SOA MINIMUM, SOA TTL, cap)`` (RFC 2308 §5)."""
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


@dataclass(frozen=True)
class DnsCacheSummary:
    """Headline figures of one run.

    Attributes:
        negative_ttl_s: the negative-caching TTL the resolvers used.
        restored_s: when the authoritative answer had records again.
        failed_count: clients that got the empty answer at least once.
        peak_failing_fraction: largest fraction of clients failing at once, in [0, 1].
        half_failing_after_s: time from the empty answer until half the clients were failing, or
            ``None`` if they never were.
        recovery_half_s, recovery_most_s, recovery_all_s: time from the restore until half of,
            99 % of, and all of the clients that failed had recovered (``None`` if that many had
            not recovered within the horizon, or none failed).
    """

    negative_ttl_s: float
    restored_s: float
    failed_count: int
    peak_failing_fraction: float
    half_failing_after_s: float | None
    recovery_half_s: float | None
    recovery_most_s: float | None
    recovery_all_s: float | None


@dataclass(frozen=True)
class DnsCacheResult:
    """What :func:`run` returns.

    Attributes:
        config: the config that produced it.
        events: one row per event, by time: ``time_s`` (float64), ``kind`` (category of
            :data:`EVENT_KINDS`), ``resolver`` and ``client`` (int64, -1 if none). Times beyond
            the horizon are left out.
        clients: one row per client: ``client``, ``resolver`` (int64), ``failing_s`` and
            ``recovered_s`` (float64; NaN if the client never failed, ``recovered_s`` also if it
            had not recovered by the horizon). A client fails only while its resolver serves the
            empty answer: ``failing_s`` lies in that resolver's ``[resolver_cached_empty,
            resolver_cached_records)`` window, and ``recovered_s`` is at or after its end; a client
            of a resolver that never cached the empty answer never fails.
        timeseries: one row per ``sample_interval_s`` from 0, and a last one at the horizon if
            the interval does not divide it (never a row after the horizon): ``time_s`` (float64)
            and ``failing_fraction`` (float64 in [0, 1]).
        summary: the :class:`DnsCacheSummary`.
    """

    config: DnsCacheConfig
    events: pd.DataFrame
    clients: pd.DataFrame
    timeseries: pd.DataFrame
    summary: DnsCacheSummary


def resolver_windows(cfg: DnsCacheConfig, rng: np.random.Generator,
                     clients: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """When each resolver cache starts and stops serving the empty answer.

    A cache fetches at the first lookup of one of its clients after its entry expired; with
    Poisson lookups that wait is exponential with mean ``lookup_interval_s / clients``.

    Args:
        cfg: the run's config.
        rng: the run's generator (consumed in a fixed order).
        clients: clients per cache (int array, each >= 1).

    Returns:
        ``(empty_from_s, records_from_s)``, float64 arrays: the cache's first fetch in the outage
        (it returns the empty answer if it comes before the restore), and its first fetch at or
        after the restore. A cache whose first fetch is already after the restore never holds the
        empty answer; both values are then that fetch.

    Raises:
        LimitExceeded: the outage needs more than ``cfg.max_refresh_cycles`` refresh cycles, or
            more than ``cfg.max_cache_refreshes`` refreshes of all caches together.
    """
    cycles = int(np.ceil(cfg.empty_duration_s / cfg.negative_ttl_s)) + 1
    if cycles > cfg.max_refresh_cycles:
        raise LimitExceeded(f"the empty window needs up to {cycles} negative-cache refresh cycles, "
                            f"more than max_refresh_cycles={cfg.max_refresh_cycles}; raise it or "
                            "the negative TTL")
    work = cycles * len(clients)
    if work > cfg.max_cache_refreshes:
        raise LimitExceeded(f"{len(clients):,} resolver caches x up to {cycles:,} negative-cache refresh "
                            f"cycles = {work:,} cache refreshes, more than max_cache_refreshes="
                            f"{cfg.max_cache_refreshes:,}; raise it, shorten empty_duration_s, raise the "
                            "negative TTL or use fewer caches (clients_count / clients_per_resolver_count)")
    mean_wait = cfg.lookup_interval_s / clients
    fetch = (cfg.empty_start_s + rng.uniform(0.0, cfg.positive_ttl_s, len(clients))
             + rng.exponential(1.0, len(clients)) * mean_wait)
    empty_from = fetch.copy()
    active = np.flatnonzero(fetch < cfg.restored_s)
    while len(active):
        fetch[active] += cfg.negative_ttl_s + rng.exponential(1.0, len(active)) * mean_wait[active]
        active = active[fetch[active] < cfg.restored_s]
    return empty_from, fetch


def run(config: DnsCacheConfig = INCIDENT) -> DnsCacheResult:
    """Compute which clients fail, and when, while the endpoint's record is empty, and after.

    Follows the PES's DynamoDB section: the empty record from 11:48 PM, DNS restored at 2:25 AM,
    clients reconnecting as cached DNS records expired, until 2:40 AM.

    Args:
        config: a :class:`DnsCacheConfig` (validated when it was built).

    Returns:
        A :class:`DnsCacheResult` with ``.events``, ``.clients``, ``.timeseries`` and ``.summary``.

    Raises:
        ConfigError: ``config`` is not a DnsCacheConfig.
        LimitExceeded: the empty window needs more than ``max_refresh_cycles`` refresh cycles,
            or more than ``max_cache_refreshes`` cache refreshes in all.
    """
    if not isinstance(config, DnsCacheConfig):
        raise ConfigError(f"config must be a DnsCacheConfig, got {type(config).__name__}")
    cfg = config
    rng = np.random.default_rng(cfg.seed)
    per = cfg.clients_per_resolver_count
    resolver_of = np.arange(cfg.clients_count, dtype="int64") // per
    first = np.arange(0, cfg.clients_count, per)          # first client of each cache
    size = np.minimum(per, cfg.clients_count - first)
    empty_from, records_from = resolver_windows(cfg, rng, size)
    # The client whose lookup made the cache fetch sees the new answer at once; the others at
    # their own next lookup, an exponential wait later (Poisson lookups are memoryless).
    first_lookup = empty_from[resolver_of] + _later_unless_trigger(rng, cfg, first, size, resolver_of)
    recovered = records_from[resolver_of] + _later_unless_trigger(rng, cfg, first, size, resolver_of)
    # A client fails only through its resolver's empty answer: its first lookup after the cache
    # fetched the empty answer must come before the cache fetches records again. A later first
    # lookup (or a resolver that never held the empty answer, empty_from == records_from) finds
    # the records and never fails.
    serves_empty_until = records_from[resolver_of]
    failed = (first_lookup < serves_empty_until) & (first_lookup <= cfg.horizon_s)
    failing = first_lookup
    failing_s = np.where(failed, failing, np.nan)
    recovered_s = np.where(failed & (recovered <= cfg.horizon_s), recovered, np.nan)
    clients = pd.DataFrame({
        "client": np.arange(cfg.clients_count, dtype="int64"),
        "resolver": resolver_of,
        "failing_s": failing_s.astype("float64"),
        "recovered_s": recovered_s.astype("float64"),
    })
    series = _series(cfg, failing_s, recovered_s)
    events = _events(cfg, empty_from, records_from, clients)
    return DnsCacheResult(config=cfg, events=events, clients=clients, timeseries=series,
                          summary=_summarise(cfg, clients, series))


def _later_unless_trigger(rng: np.random.Generator, cfg: DnsCacheConfig, first: np.ndarray,
                          size: np.ndarray, resolver_of: np.ndarray) -> np.ndarray:
    trigger = first + np.floor(rng.uniform(0.0, 1.0, len(first)) * size).astype("int64")
    wait = rng.exponential(cfg.lookup_interval_s, len(resolver_of))
    wait[trigger] = 0.0
    return wait


def _series(cfg: DnsCacheConfig, failing_s: np.ndarray, recovered_s: np.ndarray) -> pd.DataFrame:
    times = sample_times(0.0, cfg.horizon_s, cfg.sample_interval_s)
    starts = np.sort(failing_s[~np.isnan(failing_s)])
    ends = np.sort(recovered_s[~np.isnan(recovered_s)])
    count = np.searchsorted(starts, times, "right") - np.searchsorted(ends, times, "right")
    return pd.DataFrame({"time_s": times.astype("float64"),
                         "failing_fraction": (count / cfg.clients_count).astype("float64")})


def _events(cfg: DnsCacheConfig, empty_from: np.ndarray, records_from: np.ndarray,
            clients: pd.DataFrame) -> pd.DataFrame:
    cached = empty_from < records_from
    resolvers = np.flatnonzero(cached)
    parts = [
        (np.array([cfg.empty_start_s, cfg.restored_s]), np.array([0, 1]), np.array([-1, -1]),
         np.array([-1, -1])),
        (empty_from[cached], np.full(len(resolvers), 2), resolvers, np.full(len(resolvers), -1)),
        (records_from[cached], np.full(len(resolvers), 3), resolvers, np.full(len(resolvers), -1)),
    ]
    for column, code in (("failing_s", 4), ("recovered_s", 5)):
        rows = clients[clients[column].notna()]
        parts.append((rows[column].to_numpy(), np.full(len(rows), code), rows["resolver"].to_numpy(),
                      rows["client"].to_numpy()))
    time_s = np.concatenate([p[0] for p in parts]).astype("float64")
    code = np.concatenate([p[1] for p in parts]).astype("int64")
    keep = time_s <= cfg.horizon_s
    order = np.lexsort((code[keep], time_s[keep]))
    return pd.DataFrame({
        "time_s": time_s[keep][order],
        "kind": pd.Categorical.from_codes(code[keep][order], categories=list(EVENT_KINDS)),
        "resolver": np.concatenate([p[2] for p in parts]).astype("int64")[keep][order],
        "client": np.concatenate([p[3] for p in parts]).astype("int64")[keep][order],
    })


def _summarise(cfg: DnsCacheConfig, clients: pd.DataFrame, series: pd.DataFrame) -> DnsCacheSummary:
    failed = clients[clients["failing_s"].notna()]
    frac = series["failing_fraction"]
    half = series.loc[frac >= 0.5, "time_s"]
    back = np.sort(failed["recovered_s"].to_numpy())   # NaN (not recovered) sorts last

    def after_restore(share: float) -> float | None:
        k = int(np.ceil(share * len(back))) - 1
        if not len(back) or np.isnan(back[k]):
            return None
        return max(0.0, float(back[k]) - cfg.restored_s)

    return DnsCacheSummary(
        negative_ttl_s=cfg.negative_ttl_s,
        restored_s=cfg.restored_s,
        failed_count=len(failed),
        peak_failing_fraction=float(frac.max()),
        half_failing_after_s=float(half.min() - cfg.empty_start_s) if len(half) else None,
        recovery_half_s=after_restore(0.5),
        recovery_most_s=after_restore(0.99),
        recovery_all_s=after_restore(1.0),
    )


def sweep(configs: Sequence[DnsCacheConfig], *, executor: Executor | None = None) -> pd.DataFrame:
    """Run several configs and return one row of summary figures per config, in input order.

    Args:
        configs: the configs to run.
        executor: a ``concurrent.futures.Executor`` to spread the runs over, or ``None`` to run
            them here. The results and their order are the same either way.

    Returns:
        A DataFrame with a ``run`` column (int64, position in ``configs``) and one column per
        :class:`DnsCacheSummary` field.

    Raises:
        ConfigError: ``configs`` is not an iterable of DnsCacheConfig objects, or ``executor`` is
            neither ``None`` nor a ``concurrent.futures.Executor``.
    """
    return summary_frame(map_configs(_summary_of, configs, DnsCacheConfig, executor))


def _summary_of(config: DnsCacheConfig) -> DnsCacheSummary:
    return run(config).summary
