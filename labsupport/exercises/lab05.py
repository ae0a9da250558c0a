"""Lab 5's exercises (six stop points, end to end), checked against the chain model and the dependency data.

Every answer comes from :func:`labsupport.chain.run` on the incident preset
(:data:`labsupport.chain.INCIDENT`) with stop points switched on, or from
:func:`labsupport.dependencies.load`; the chain runs the course's race, DNS-cache, DWFM, Network
Manager and NLB models in order, calibrated to the post-event summary's stage boundaries. Each
``exN(answer)`` returns a :class:`~labsupport.feedback.Feedback` and never raises; each ``model_exN()``
returns the model's answer as a read-only dict (cached).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from .. import chain, dependencies, dns_cache, race
from ..feedback import Feedback, boolean, choice, feedback, number, review

__all__ = ["ex1", "ex2", "ex3", "ex4", "ex5", "model_ex1", "model_ex2", "model_ex3", "model_ex4", "model_ex5"]

INC = chain.INCIDENT


def _with(*points: int, base: chain.ChainConfig = INC) -> chain.ChainConfig:
    return replace(base, stop_points=chain.StopPoints.of(*points))


@functools.cache
def model_ex1() -> Mapping[str, Any]:
    """Stop point 4 alone with a one-minute SOA TTL: ``dynamodb_min`` (the DynamoDB stage, minutes),
    ``dns_empty_s`` and ``incident_ttl_dynamodb_min`` (the same stage with the incident's TTL)."""
    short = chain.run(replace(_with(4), dns=replace(dns_cache.INCIDENT, soa_ttl_s=60.0))).summary
    four = chain.run(_with(4)).summary
    return MappingProxyType(
        {
            "dynamodb_min": short.dynamodb_s / 60,
            "dns_empty_s": float(short.dns_empty_s),
            "incident_ttl_dynamodb_min": four.dynamodb_s / 60,
        }
    )


def ex1(answer: object) -> Feedback:
    """Check Exercise 1: ``{"dynamodb_min": minutes of the DynamoDB stage}``."""
    m = model_ex1()
    why = (
        f"The endpoint is empty for {m['dns_empty_s']:.0f} s; clients then wait up to one negative TTL. With the "
        f"incident's negative TTL the stage lasts {m['incident_ttl_dynamodb_min']:.1f} min."
    )
    checks = {
        "dynamodb_min": lambda v: number("dynamodb_min", v, m["dynamodb_min"], tolerance=0.2, unit="min", why=why)
    }
    return feedback("Exercise 1", answer, checks)


@functools.cache
def model_ex2() -> Mapping[str, Any]:
    """Stop point 5 alone with its queue limit and ten times it: ``launches_min`` and ``nlb_min``
    (stage lengths in minutes) and ``refused`` (launches refused), each keyed by the limit."""
    out: dict[str, dict[int, Any]] = {"launches_min": {}, "nlb_min": {}, "refused": {}}
    for limit in (INC.network_queue_limit_count, 10 * INC.network_queue_limit_count):
        r = chain.run(replace(_with(5), network_queue_limit_count=limit))
        out["launches_min"][limit] = r.summary.launches_s / 60
        out["nlb_min"][limit] = r.summary.nlb_s / 60
        network = r.runs.network
        out["refused"][limit] = int(network.summary.refused_count) if network is not None else 0
    return MappingProxyType(out)


def ex2(answer: object) -> Feedback:
    """Check Exercise 2: ``{"launches_longer": ..., "nlb_longer": ..., "launches_min_x10": minutes}``."""
    m = model_ex2()
    base, high = INC.network_queue_limit_count, 10 * INC.network_queue_limit_count
    why = (
        f"At {high} items the limit never binds ({m['refused'][high]} launches refused, against {m['refused'][base]} "
        "at the preset's limit): new instances wait behind the whole queue, and the NLB sees flapping targets again."
    )
    checks = {
        "launches_longer": lambda v: boolean(
            "launches_longer", v, m["launches_min"][high] > m["launches_min"][base], why=why
        ),
        "nlb_longer": lambda v: boolean("nlb_longer", v, m["nlb_min"][high] > m["nlb_min"][base]),
        "launches_min_x10": lambda v: number("launches_min_x10", v, m["launches_min"][high], tolerance=1, unit="min"),
    }
    return feedback("Exercise 2", answer, checks)


@functools.cache
def model_ex3() -> Mapping[str, Any]:
    """The incident with seeds 0 to 9: ``totals_h`` (the whole event, hours, per seed) and
    ``all_within`` (every run within 20 % of the summary on every boundary)."""
    runs = [chain.run(replace(INC, seed=k)) for k in range(10)]
    return MappingProxyType(
        {
            "totals_h": tuple(r.summary.total_s / 3_600 for r in runs),
            "all_within": all(bool(chain.calibration(r)["within_tolerance"].all()) for r in runs),
        }
    )


def ex3(answer: object) -> Feedback:
    """Check Exercise 3: ``{"shortest_h": hours, "longest_h": hours, "all_within_20pct": True/False}``."""
    m = model_ex3()
    totals = m["totals_h"]
    checks = {
        "shortest_h": lambda v: number("shortest_h", v, min(totals), tolerance=0.02, unit="h"),
        "longest_h": lambda v: number("longest_h", v, max(totals), tolerance=0.02, unit="h"),
        "all_within_20pct": lambda v: boolean(
            "all_within_20pct", v, m["all_within"], why="chain.calibration(run)['within_tolerance'] for each seed."
        ),
    }
    return feedback("Exercise 3", answer, checks)


@functools.cache
def model_ex4() -> Mapping[str, Any]:
    """A four-hour manual repair: the whole event in hours with no stop point (``none_h``), stop
    point 4 alone (``four_h``) and 5 alone (``five_h``), the same for the incident's repair time
    (``incident``), ``gain_h`` (how much each one's saving grows, hours) and ``gains_most`` ("4" or
    "5": whose saving grows most with the longer outage)."""
    slow = replace(INC, race=replace(race.INCIDENT, manual_repair_after_s=4 * 3_600.0, horizon_s=5 * 3_600.0))

    def totals(base: chain.ChainConfig) -> dict[str, float]:
        return {
            k: chain.run(_with(*p, base=base)).summary.total_s / 3_600
            for k, p in (("none", ()), ("4", (4,)), ("5", (5,)))
        }

    slow_t, inc_t = totals(slow), totals(INC)
    gain = {p: (slow_t["none"] - slow_t[p]) - (inc_t["none"] - inc_t[p]) for p in ("4", "5")}
    return MappingProxyType(
        {
            "none_h": slow_t["none"],
            "four_h": slow_t["4"],
            "five_h": slow_t["5"],
            "incident": inc_t,
            "gain_h": gain,
            "gains_most": max(gain, key=lambda p: gain[p]),
        }
    )


def ex4(answer: object) -> Feedback:
    """Check Exercise 4: ``{"gains_most": "4" or "5", "four_h": hours of the event with stop point 4}``."""
    m = model_ex4()
    why = (
        f"Stop point 4's result stays {m['four_h']:.2f} h, because with it nobody waits for the operators, so its "
        f"saving grows by every hour the slower repair adds ({m['gain_h']['4']:.1f} h). Stop point 5's grows by "
        f"{m['gain_h']['5']:.1f} h: it saves {m['none_h'] - m['five_h']:.1f} h against "
        f"{m['incident']['none'] - m['incident']['5']:.1f} h in the incident, as the longer outage lets more "
        "leases lapse."
    )
    checks = {
        "gains_most": lambda v: choice("gains_most", v, m["gains_most"], ("4", "5"), why=why),
        "four_h": lambda v: number("four_h", v, m["four_h"], tolerance=0.02, unit="h"),
    }
    return feedback("Exercise 4", answer, checks)


@functools.cache
def model_ex5() -> Mapping[str, Any]:
    """``cross_region`` (the dependents of the rows with ``cross_region`` true, in order) and
    ``wrong_answer`` (the dependent whose bypass met invalid rather than failed responses)."""
    d = dependencies.load()
    rows = d[d["cross_region"]]
    return MappingProxyType({"cross_region": tuple(rows["dependent"]), "wrong_answer": "AWS Support Center"})


def ex5(answer: object) -> Feedback:
    """Check Exercise 5: ``{"cross_region_rows": ..., "wrong_answer_case": "...", "designs": "..."}``."""
    m = model_ex5()
    names = m["cross_region"]
    checks = {
        "cross_region_rows": lambda v: number(
            "cross_region_rows", v, len(names), tolerance=0, unit="rows", by="dependencies.load()"
        ),
        "wrong_answer_case": lambda v: choice(
            "wrong_answer_case",
            v,
            m["wrong_answer"],
            names,
            why="Its failover Region's account-metadata subsystem returned invalid responses, and its bypass "
            "handled only unsuccessful ones (the summary).",
            by="the summary",
        ),
        "designs": lambda v: review("designs", v, min_words=20),
    }
    note = (
        "Strong designs: regional sign-in endpoints with the global one as a fallback; Redshift user groups from a "
        "regional replica of IAM data, or cached with bounded staleness; the Support Center's failover Region with "
        "its own account-metadata source. Test each by cutting us-east-1 off for one dependent in a game day, "
        "injecting plausible wrong answers, not only errors and timeouts."
    )
    return feedback("Exercise 5", answer, checks, note=note)
