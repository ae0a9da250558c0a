"""When each resolver cache serves the empty answer, vectorised with numpy (the DNS-cache model's engine).

Scenario:
    Used by :func:`labsupport.dns_cache.run`. Nothing queues, so there is no simpy clock: each
    resolver's refresh cycles are drawn in bulk from the run's ``numpy.random.Generator`` for
    them, exact for Poisson lookups (memorylessness); the clients' lookups have streams of their own.
Covers:
    RFC 2308 negative caching of the PES's empty DynamoDB record, and the refetch after the restore.

::

    resolver_windows:  first fetch in the outage -> empty answer, refetched every negative TTL
                       (plus a lookup wait) -> first fetch at or after the restore: records
                       (with an empty_answer_rule: while the rule says True, the cache serves
                       its old records stale and asks again every stale_recheck_s, plus a lookup
                       wait; its first False starts the negative-TTL cycles above)
    later_unless_trigger: the client whose lookup made the cache fetch sees the answer at once,
                       the others an exponential wait later
"""

from __future__ import annotations

import numpy as np

from ..errors import LimitExceeded
from ..strategy import RUN_STEP_BUDGET, EmptyAnswerRequest, RunBudget, call_strategy
from .config import DnsCacheConfig

__all__ = ["later_unless_trigger", "resolver_windows"]

#: Most calls one run may make to an empty-answer rule: the run's step budget at 10 steps a call
#: (a one-line rule takes about 7).
_MAX_RULE_CALLS = RUN_STEP_BUDGET // 10


def resolver_windows(
    cfg: DnsCacheConfig, rng: np.random.Generator, clients: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """When each resolver cache starts and stops serving the empty answer.

    A cache fetches at the first lookup of one of its clients after its entry expired; with
    Poisson lookups that wait is exponential with mean ``lookup_interval_s / clients``. With
    ``cfg.empty_answer_rule``, a cache asks the rule at each empty answer while it still holds its
    old records: ``True`` serves them stale until its next fetch, ``stale_recheck_s`` (plus a lookup
    wait) later; ``False`` accepts the empty answer from then on. Without a rule the generator is
    consumed exactly as before the rule existed.

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
            more than ``cfg.max_cache_refreshes`` refreshes of all caches together, or the rule
            could be asked more often than a run's strategy budget allows.
        ConfigError: the rule raised, returned a non-bool or did not return (its calls share one
            :class:`~labsupport.strategy.RunBudget`).
    """
    cycles = int(np.ceil(cfg.empty_duration_s / cfg.negative_ttl_s)) + 1
    if cfg.empty_answer_rule is not None:
        asks = int(np.ceil(cfg.empty_duration_s / cfg.stale_recheck_s))
        cycles += asks
        if asks * len(clients) > _MAX_RULE_CALLS:  # refused before the rule runs, not after minutes
            raise LimitExceeded(
                f"empty_answer_rule could be asked up to {asks * len(clients):,} times ({len(clients):,} resolver "
                f"caches x {asks:,} rechecks), more than one run's strategy budget allows "
                f"({_MAX_RULE_CALLS:,} calls of a few lines); use fewer caches (clients_count / "
                "clients_per_resolver_count) or a longer stale_recheck_s"
            )
    if cycles > cfg.max_refresh_cycles:
        raise LimitExceeded(
            f"the empty window needs up to {cycles} negative-cache refresh cycles, "
            f"more than max_refresh_cycles={cfg.max_refresh_cycles}; raise it or "
            "the negative TTL"
        )
    work = cycles * len(clients)
    if work > cfg.max_cache_refreshes:
        raise LimitExceeded(
            f"{len(clients):,} resolver caches x up to {cycles:,} negative-cache refresh "
            f"cycles = {work:,} cache refreshes, more than max_cache_refreshes="
            f"{cfg.max_cache_refreshes:,}; raise it, shorten empty_duration_s, raise the "
            "negative TTL or use fewer caches (clients_count / clients_per_resolver_count)"
        )
    mean_wait = cfg.lookup_interval_s / clients
    fetch = (
        cfg.empty_start_s
        + rng.uniform(0.0, cfg.positive_ttl_s, len(clients))
        + rng.exponential(1.0, len(clients)) * mean_wait
    )
    if cfg.empty_answer_rule is not None:
        _serve_stale(cfg, rng, fetch, mean_wait)
    empty_from = fetch.copy()
    active = np.flatnonzero(fetch < cfg.restored_s)
    while len(active):
        fetch[active] += cfg.negative_ttl_s + rng.exponential(1.0, len(active)) * mean_wait[active]
        active = active[fetch[active] < cfg.restored_s]
    return empty_from, fetch


def _serve_stale(cfg: DnsCacheConfig, rng: np.random.Generator, fetch: np.ndarray, mean_wait: np.ndarray) -> None:
    """Move each cache's ``fetch`` past the refreshes at which the rule kept its old records (in place)."""
    rule, budget = cfg.empty_answer_rule, RunBudget()
    assert rule is not None
    first = fetch.copy()
    stale = np.flatnonzero(fetch < cfg.restored_s)
    while len(stale):
        keep = np.fromiter(
            (
                call_strategy(
                    "empty_answer_rule",
                    rule,
                    EmptyAnswerRequest(
                        int(r),
                        float(fetch[r] - first[r]),
                        cfg.positive_ttl_s,
                        cfg.negative_ttl_s,
                        cfg.stale_recheck_s,
                        cfg.max_stale_s,
                    ),
                    run_budget=budget,
                )
                for r in stale
            ),
            dtype=bool,
            count=len(stale),
        )
        stale = stale[keep]
        fetch[stale] += cfg.stale_recheck_s + rng.exponential(1.0, len(stale)) * mean_wait[stale]
        stale = stale[fetch[stale] < cfg.restored_s]


def later_unless_trigger(
    rng: np.random.Generator, cfg: DnsCacheConfig, first: np.ndarray, size: np.ndarray, resolver_of: np.ndarray
) -> np.ndarray:
    trigger = first + np.floor(rng.uniform(0.0, 1.0, len(first)) * size).astype("int64")
    wait = rng.exponential(cfg.lookup_interval_s, len(resolver_of))
    wait[trigger] = 0.0
    return wait
