"""Practice on the DNS-cache model: a zone's TTLs, an empty answer, and when clients come back.

Scenario:
    ``practice(seed)`` draws caches unlike the incident's: records cached 10 s to 5 minutes, the
    zone's SOA MINIMUM and SOA record TTL (so its negative TTL, by RFC 2308's rule), how often
    clients look the name up, how many clients share a resolver cache, and how long the name
    answers with no records. The question: which negative TTL do the caches use, and how many
    minutes after the record comes back can 99 % of the clients connect again? The check runs
    :func:`labsupport.dns_cache.run` and says why: how often each cache refetched the empty answer
    and where the restore fell in that cycle.
Covers:
    The summary's DynamoDB recovery ("as cached DNS records expired") as :mod:`labsupport.dns_cache`
    models it, with RFC 2308's negative caching; every TTL is an assumption, as in the lab::

        seed ──rng──> TTLs, lookups, clients per cache, empty window ──dns_cache.run──> negative TTL; 99 % back
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from .. import dns_cache as model
from ..feedback import Part, number
from ..timeline import format_duration
from ._problem import Problem, rng

__all__ = ["DnsCacheProblem", "practice"]


@dataclass(frozen=True)
class DnsCacheProblem(Problem):
    """Caches through an empty answer: see :func:`practice`.

    ``config`` is its :class:`~labsupport.dns_cache.DnsCacheConfig`.
    """

    model = "dns_cache"
    fields = (
        ("negative_ttl_s", "seconds a cache keeps the empty answer (RFC 2308's negative TTL)"),
        ("minutes_to_99", "minutes after the record comes back until 99 % of the clients can connect"),
    )
    hint = (
        "The negative TTL is min(SOA MINIMUM, SOA record TTL, the resolvers' cap); then run it: "
        "s = dns_cache.run(problem.config).summary; s.recovery_most_s / 60."
    )

    def _solve(self) -> Mapping[str, Any]:
        s = model.run(self.config).summary
        return {
            "negative_ttl_s": float(s.negative_ttl_s),
            "minutes_to_99": float((s.recovery_most_s or 0.0) / 60),
            "half": float((s.recovery_half_s or 0.0) / 60),
        }

    def _parts(self, m: Mapping[str, Any]) -> dict[str, Callable[[Any], Part]]:
        return {
            "negative_ttl_s": lambda v: number("negative_ttl_s", v, m["negative_ttl_s"], tolerance=0.5, unit="s"),
            "minutes_to_99": lambda v: number("minutes_to_99", v, m["minutes_to_99"], tolerance=0.2, unit="min"),
        }

    def _why(self, m: Mapping[str, Any]) -> str:
        cfg = self.config
        return (
            f"Why: min(SOA MINIMUM {cfg.soa_minimum_s:.0f} s, SOA TTL {cfg.soa_ttl_s:.0f} s, cap "
            f"{cfg.negative_ttl_cap_s:.0f} s) = {m['negative_ttl_s']:.0f} s. Each cache refetches the empty answer "
            "about once per negative TTL, when a client next asks, so after the restore it serves the empty answer "
            f"until its current entry expires: half the clients were back after {m['half']:.1f} min."
        )


def practice(seed: int = 0) -> DnsCacheProblem:
    """A fresh DNS-cache problem drawn from ``seed`` (the same seed, the same problem).

    Args:
        seed: an integer from 0 to 2**63 - 1.

    Returns:
        A :class:`DnsCacheProblem`. Its config varies :data:`labsupport.dns_cache.INCIDENT` with 2,000
        clients: ``positive_ttl_s`` (10 to 300 s), ``soa_minimum_s`` and ``soa_ttl_s`` (60 s to a day),
        ``lookup_interval_s`` (5 to 120 s), ``clients_per_resolver_count`` (1, 10 or 100),
        ``empty_duration_s`` (20 minutes to 3 hours) and the model's ``seed``.

    Raises:
        ConfigError: ``seed`` is not an integer from 0 to 2**63 - 1.
    """
    r = rng(seed, "dns_cache")
    positive = float(r.choice((10, 30, 60, 120, 300)))
    soa_minimum = float(r.choice((60, 300, 900, 3_600, 86_400)))
    soa_ttl = float(r.choice((60, 300, 600, 900, 1_800, 3_600)))
    lookup = float(r.choice((5, 20, 60, 120)))
    per = r.choice((1, 10, 100))
    empty = 60.0 * r.randrange(20, 181, 5)
    cfg = replace(
        model.INCIDENT,
        clients_count=2_000,
        clients_per_resolver_count=per,
        positive_ttl_s=positive,
        soa_minimum_s=soa_minimum,
        soa_ttl_s=soa_ttl,
        lookup_interval_s=lookup,
        empty_duration_s=empty,
        horizon_s=model.INCIDENT.empty_start_s + empty + max(3_600.0, 3 * min(soa_minimum, soa_ttl)),
        seed=r.randrange(2**31),
    )
    text = (
        f"2,000 clients, {per} to a resolver cache, each looking the name up about every {lookup:.0f} s. Its address "
        f"records are cached for {positive:.0f} s; the zone's SOA MINIMUM is {soa_minimum:,.0f} s and its SOA record's "
        f"TTL {soa_ttl:,.0f} s; the resolvers cap negative TTLs at {cfg.negative_ttl_cap_s:,.0f} s. The name answers "
        f"with no records for {format_duration(empty)}. Which negative TTL do the caches use, and how many minutes "
        "after the record comes back can 99 % of the clients connect again?"
    )
    return DnsCacheProblem(seed=int(seed), config=cfg, text=text)
