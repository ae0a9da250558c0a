"""One DNS-cache run: :func:`run`, its result and summary (import them from :mod:`labsupport.dns_cache`)."""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import Executor
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import _sweep
from ..clock import sample_times
from ..errors import ConfigError
from .config import INCIDENT, DnsCacheConfig
from .resolvers import later_unless_trigger, resolver_windows

__all__ = ["DnsCacheResult", "DnsCacheSummary", "EVENT_KINDS", "run", "sweep"]

#: Values of the ``kind`` column of :attr:`DnsCacheResult.events`.
EVENT_KINDS: tuple[str, ...] = (
    "authoritative_empty",
    "authoritative_restored",
    "resolver_cached_empty",
    "resolver_cached_records",
    "client_failing",
    "client_recovered",
)


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
    first = np.arange(0, cfg.clients_count, per)  # first client of each cache
    size = np.minimum(per, cfg.clients_count - first)
    empty_from, records_from = resolver_windows(cfg, rng, size)
    # The client whose lookup made the cache fetch sees the new answer at once; the others at
    # their own next lookup, an exponential wait later (Poisson lookups are memoryless). One stream
    # per purpose: how many refetches the caches make depends on when the record comes back, so
    # the clients' first lookups in the outage, and after it, draw from streams of their own.
    onset, recovery = (np.random.default_rng([cfg.seed, k]) for k in (1, 2))
    first_lookup = empty_from[resolver_of] + later_unless_trigger(onset, cfg, first, size, resolver_of)
    recovered = records_from[resolver_of] + later_unless_trigger(recovery, cfg, first, size, resolver_of)
    # A client fails only through its resolver's empty answer: its first lookup after the cache
    # fetched the empty answer must come before the cache fetches records again. A later first
    # lookup (or a resolver that never held the empty answer, empty_from == records_from) finds
    # the records and never fails.
    serves_empty_until = records_from[resolver_of]
    failed = (first_lookup < serves_empty_until) & (first_lookup <= cfg.horizon_s)
    failing = first_lookup
    failing_s = np.where(failed, failing, np.nan)
    recovered_s = np.where(failed & (recovered <= cfg.horizon_s), recovered, np.nan)
    clients = pd.DataFrame(
        {
            "client": np.arange(cfg.clients_count, dtype="int64"),
            "resolver": resolver_of,
            "failing_s": failing_s.astype("float64"),
            "recovered_s": recovered_s.astype("float64"),
        }
    )
    series = _series(cfg, failing_s, recovered_s)
    events = _events(cfg, empty_from, records_from, clients)
    return DnsCacheResult(
        config=cfg, events=events, clients=clients, timeseries=series, summary=_summarise(cfg, clients, series)
    )


def sweep(configs: Iterable[DnsCacheConfig], *, executor: Executor | None = None) -> pd.DataFrame:
    """Run many configs; one row per config, in the order given (every model's sweep, ``labsupport._sweep``).

    Args:
        configs: the configs to run.
        executor: optional ``concurrent.futures.Executor`` (threads, processes, a Dask client's
            executor); ``None`` runs in this process. The result is the same either way.

    Returns:
        ``run`` (int64, the position in ``configs``), one column per :class:`DnsCacheConfig` field (nested
        configs flattened as ``<field>.<subfield>``), one per :class:`DnsCacheSummary` field; tuples as
        comma-joined text, ``None`` as NaN in number columns.

    Raises:
        ConfigError: ``configs`` is not an iterable of DnsCacheConfig values, or ``executor`` is neither ``None``
            nor a ``concurrent.futures.Executor``.
    """
    return _sweep.sweep(run, configs, DnsCacheConfig, executor)


def _series(cfg: DnsCacheConfig, failing_s: np.ndarray, recovered_s: np.ndarray) -> pd.DataFrame:
    times = sample_times(0.0, cfg.horizon_s, cfg.sample_interval_s)
    starts = np.sort(failing_s[~np.isnan(failing_s)])
    ends = np.sort(recovered_s[~np.isnan(recovered_s)])
    count = np.searchsorted(starts, times, "right") - np.searchsorted(ends, times, "right")
    return pd.DataFrame(
        {"time_s": times.astype("float64"), "failing_fraction": (count / cfg.clients_count).astype("float64")}
    )


def _events(
    cfg: DnsCacheConfig, empty_from: np.ndarray, records_from: np.ndarray, clients: pd.DataFrame
) -> pd.DataFrame:
    cached = empty_from < records_from
    resolvers = np.flatnonzero(cached)
    parts = [
        (np.array([cfg.empty_start_s, cfg.restored_s]), np.array([0, 1]), np.array([-1, -1]), np.array([-1, -1])),
        (empty_from[cached], np.full(len(resolvers), 2), resolvers, np.full(len(resolvers), -1)),
        (records_from[cached], np.full(len(resolvers), 3), resolvers, np.full(len(resolvers), -1)),
    ]
    for column, kind_code in (("failing_s", 4), ("recovered_s", 5)):
        rows = clients[clients[column].notna()]
        parts.append(
            (
                rows[column].to_numpy(),
                np.full(len(rows), kind_code),
                rows["resolver"].to_numpy(),
                rows["client"].to_numpy(),
            )
        )
    time_s = np.concatenate([p[0] for p in parts]).astype("float64")
    code = np.concatenate([p[1] for p in parts]).astype("int64")
    keep = time_s <= cfg.horizon_s
    order = np.lexsort((code[keep], time_s[keep]))
    return pd.DataFrame(
        {
            "time_s": time_s[keep][order],
            "kind": pd.Categorical.from_codes(code[keep][order], categories=pd.Index(list(EVENT_KINDS))),
            "resolver": np.concatenate([p[2] for p in parts]).astype("int64")[keep][order],
            "client": np.concatenate([p[3] for p in parts]).astype("int64")[keep][order],
        }
    )


def _summarise(cfg: DnsCacheConfig, clients: pd.DataFrame, series: pd.DataFrame) -> DnsCacheSummary:
    failed = clients[clients["failing_s"].notna()]
    frac = series["failing_fraction"]
    half = series.loc[frac >= 0.5, "time_s"]
    back = np.sort(failed["recovered_s"].to_numpy())  # NaN (not recovered) sorts last

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
