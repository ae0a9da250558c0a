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
:data:`INCIDENT`. A config may carry a resolver's rule for an empty answer
(:attr:`DnsCacheConfig.empty_answer_rule`, a student strategy): while it answers ``True`` a cache
serves its old records stale instead of the empty answer, the course's extension of RFC 8767's
serve-stale (which covers unreachable servers, not empty answers); in October no rule ran.

Modules: ``config`` (:class:`DnsCacheConfig`, the presets), ``resolvers`` (when each resolver cache
serves the empty answer, vectorised with numpy: nothing queues, so no simpy) and ``model`` (:func:`run`,
:func:`sweep`, the result and summary).
"""

from .config import CLOCK, INCIDENT, LONG_NEGATIVE_TTL, DnsCacheConfig
from .model import EVENT_KINDS, DnsCacheResult, DnsCacheSummary, run, sweep
from .resolvers import resolver_windows

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
