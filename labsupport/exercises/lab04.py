"""Lab 4's exercises (DNS caches decide when clients notice), checked against the DNS-cache model.

Every answer comes from :func:`labsupport.dns_cache.run` or :func:`labsupport.dns_cache.sweep` on the
incident preset (:data:`labsupport.dns_cache.INCIDENT`) or a variant of it. The summary gives no TTLs:
the preset's are assumptions, chosen to land near its 2:40 AM, as :mod:`labsupport.dns_cache` says.
Each ``exN(answer)`` returns a :class:`~labsupport.feedback.Feedback` and never raises; each
``model_exN()`` returns the model's answer as a read-only dict (cached).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from .. import dns_cache
from ..feedback import Feedback, boolean, choice, feedback, number, review

__all__ = ["ex1", "ex2", "ex3", "ex4", "model_ex1", "model_ex2", "model_ex3", "model_ex4"]

INC = dns_cache.INCIDENT
#: Exercise 3's negative TTLs, in seconds (1, 2, 3, 4, 5 and 10 minutes), and its twelve restore
#: times spread evenly over the hour after the real one.
EX3_TTLS_S = (60.0, 120.0, 180.0, 240.0, 300.0, 600.0)
EX3_OFFSETS_S = tuple(300.0 * k for k in range(12))


@functools.cache
def model_ex1() -> Mapping[str, Any]:
    """``half_failing_s``: record TTL (5, 60 or 600 s) -> seconds until half the clients fail."""
    out = {}
    for ttl in (5, 60, 600):
        half = dns_cache.run(replace(INC, positive_ttl_s=float(ttl))).summary.half_failing_after_s
        out[ttl] = float(half) if half is not None else float("nan")
    return MappingProxyType({"half_failing_s": out})


def ex1(answer: object) -> Feedback:
    """Check Exercise 1: ``{"half_failing_5s": seconds, "half_failing_600s": seconds}``."""
    m = model_ex1()["half_failing_s"]
    why = "Half the clients fail within about half a record TTL, plus a lookup or two."
    checks = {
        "half_failing_5s": lambda v: number("half_failing_5s", v, m[5], tolerance=0.1, relative=True, unit="s"),
        "half_failing_600s": lambda v: number(
            "half_failing_600s", v, m[600], tolerance=0.1, relative=True, unit="s", why=why
        ),
    }
    return feedback("Exercise 1", answer, checks)


@functools.cache
def model_ex2() -> Mapping[str, Any]:
    """``spread_min``: clients per cache (1 or 200) -> minutes between the 5th and the 95th
    percentile of the clients' recovery times, with a lookup every two minutes."""
    out = {}
    for per in (1, 200):
        c = dns_cache.run(replace(INC, clients_per_resolver_count=per, lookup_interval_s=120.0)).clients
        out[per] = float((c["recovered_s"].quantile(0.95) - c["recovered_s"].quantile(0.05)) / 60)
    return MappingProxyType({"spread_min": out})


def ex2(answer: object) -> Feedback:
    """Check Exercise 2: ``{"shared_spreads": "more" or "less", "spread_200_min": minutes}``."""
    m = model_ex2()["spread_min"]
    want = "more" if m[200] > m[1] else "less"
    why = (
        f"{m[1]:.1f} min with a cache per client, {m[200]:.1f} min with 200 clients per cache: a busy shared cache "
        "refetches almost as soon as its entry expires, so its clients come back together, while private caches "
        "each wait for their own client's next lookup and drift apart."
    )
    checks = {
        "shared_spreads": lambda v: choice("shared_spreads", v, want, ("more", "less"), why=why),
        "spread_200_min": lambda v: number("spread_200_min", v, m[200], tolerance=0.1, relative=True, unit="min"),
    }
    return feedback("Exercise 2", answer, checks)


@functools.cache
def model_ex3() -> Mapping[str, Any]:
    """``mean_min``: negative TTL (s) -> the 99 % recovery in minutes, averaged over twelve restore
    times an hour apart (2,000 clients); ``largest_min``: the largest TTL, in minutes, under five."""
    base = replace(INC, clients_count=2_000)

    def cfg(ttl: float, extra: float) -> dns_cache.DnsCacheConfig:
        return replace(
            base,
            soa_ttl_s=ttl,
            empty_duration_s=INC.empty_duration_s + extra,
            horizon_s=INC.restored_s + extra + max(3_600.0, 2 * ttl),
        )

    means = {
        t: float(dns_cache.sweep([cfg(t, o) for o in EX3_OFFSETS_S])["recovery_most_s"].mean() / 60) for t in EX3_TTLS_S
    }
    under = [t / 60 for t, v in means.items() if v < 5]
    return MappingProxyType({"mean_min": means, "largest_min": max(under) if under else None})


def ex3(answer: object) -> Feedback:
    """Check Exercise 3: ``{"largest_ttl_min": the largest negative TTL tried, in minutes}``."""
    m = model_ex3()
    shown = ", ".join(f"{t / 60:.0f} min: {v:.1f}" for t, v in m["mean_min"].items())
    want = m["largest_min"] if m["largest_min"] is not None else float("nan")
    checks = {
        "largest_ttl_min": lambda v: number(
            "largest_ttl_min", v, want, tolerance=0, unit="min", why=f"Mean 99 % recovery, in minutes: {shown}."
        )
    }
    return feedback("Exercise 3", answer, checks)


@functools.cache
def model_ex4() -> Mapping[str, Any]:
    """Exercise 4: ``serve_stale_helps`` is False (RFC 8767 serves stale records when the
    authoritative servers cannot be reached; on the night they answered, with an empty answer)."""
    return MappingProxyType({"serve_stale_helps": False})


def ex4(answer: object) -> Feedback:
    """Check Exercise 4: ``{"serve_stale_helps": True/False, "rule": "...", "risks": "..."}``."""
    why = (
        "RFC 8767 serves stale records when the authoritative servers cannot be reached; on the night they "
        "answered, with a valid but empty response, which a compliant resolver caches instead."
    )
    checks = {
        "serve_stale_helps": lambda v: boolean(
            "serve_stale_helps", v, model_ex4()["serve_stale_helps"], why=why, by="RFC 8767's rule"
        ),
        "rule": lambda v: review("rule", v),
        "risks": lambda v: review("risks", v),
    }
    note = (
        "A rule that would have helped treats an empty answer for a name that has always had records as suspect: "
        "keep the last known good addresses for a while, retry the lookup with backoff and jitter, and raise an "
        "alarm. Its risks: it keeps clients on addresses removed on purpose, hides real changes while it lasts, and "
        "adds a second source of truth; limit it in time and log every use."
    )
    return feedback("Exercise 4", answer, checks, note=note)
