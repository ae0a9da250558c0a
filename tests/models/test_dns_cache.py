"""Tests of the DNS-cache model: TTLs, negative caching (RFC 2308) and client recovery."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labsupport import dns_cache
from labsupport.dns_cache import DnsCacheConfig
from labsupport.errors import ConfigError, LimitExceeded


class _MidpointRng:
    """A stand-in generator: every uniform draw is its interval's midpoint, every wait is zero."""

    def uniform(self, lo: float, hi: float, n: int) -> np.ndarray:
        return np.full(n, (lo + hi) / 2)

    def exponential(self, scale: float, n: int) -> np.ndarray:
        return np.zeros(n)


def test_negative_ttl_is_the_rfc2308_minimum():
    assert dns_cache.INCIDENT.negative_ttl_s == 900.0  # the assumed SOA record TTL
    assert replace(dns_cache.INCIDENT, soa_minimum_s=300.0).negative_ttl_s == 300.0
    assert replace(dns_cache.INCIDENT, soa_ttl_s=7_200.0).negative_ttl_s == 7_200.0
    assert replace(dns_cache.INCIDENT, soa_ttl_s=50_000.0).negative_ttl_s == 10_800.0  # the cap


def test_resolver_refresh_chain_exact():
    # Records expire 30 s into the outage (midpoint of 60 s); fetches then every 900 s exactly:
    # 30, 930, ..., 9030 hold the empty answer; 9930 is the first at or after the 9420 s restore.
    empty_from, records_from = dns_cache.resolver_windows(dns_cache.INCIDENT, _MidpointRng(), np.array([1, 5]))
    assert empty_from.tolist() == [30.0, 30.0]
    assert records_from.tolist() == [9_930.0, 9_930.0]


def test_resolver_that_refetches_after_the_restore_never_holds_the_empty_answer():
    short = replace(dns_cache.INCIDENT, positive_ttl_s=600.0, empty_duration_s=100.0)
    empty_from, records_from = dns_cache.resolver_windows(short, _MidpointRng(), np.array([1]))
    assert empty_from.tolist() == records_from.tolist() == [300.0]


def test_incident_recovery_lands_near_2_40():
    s = dns_cache.run(dns_cache.INCIDENT).summary
    assert s.failed_count == dns_cache.INCIDENT.clients_count
    assert s.half_failing_after_s <= dns_cache.INCIDENT.positive_ttl_s + 60
    # PES: DNS restored at 2:25 AM, clients back "as cached DNS records expired" by 2:40 AM.
    assert 12 * 60 <= s.recovery_most_s <= 17 * 60
    assert s.recovery_half_s <= s.recovery_most_s <= s.recovery_all_s


def test_clients_fail_only_inside_the_window_and_recover_after_the_restore():
    res = dns_cache.run(dns_cache.INCIDENT)
    c, cfg = res.clients, res.config
    assert (c["failing_s"] >= cfg.empty_start_s).all() and (c["failing_s"] < cfg.restored_s).all()
    assert (c["recovered_s"] >= cfg.restored_s).all()
    # A cache holds the empty answer at most one negative TTL past the restore, plus lookup waits.
    assert (c["recovered_s"] - cfg.restored_s).max() < cfg.negative_ttl_s + 10 * cfg.lookup_interval_s


def test_an_empty_window_shorter_than_the_ttl_hits_only_some_clients():
    s = dns_cache.run(replace(dns_cache.INCIDENT, positive_ttl_s=600.0, empty_duration_s=60.0)).summary
    assert 0 < s.failed_count < dns_cache.INCIDENT.clients_count / 3


def test_a_longer_negative_ttl_delays_recovery_on_average():
    offsets = np.linspace(0.0, 3_600.0, 12, endpoint=False)

    def mean_delay(soa_ttl_s: float) -> float:
        runs = [
            replace(
                dns_cache.INCIDENT,
                soa_ttl_s=soa_ttl_s,
                clients_count=2_000,
                empty_duration_s=9_420.0 + o,
                horizon_s=9_420.0 + o + 9_000.0,
            )
            for o in offsets
        ]
        return float(dns_cache.sweep(runs)["recovery_most_s"].mean())

    assert mean_delay(300.0) < mean_delay(900.0) < mean_delay(3_600.0)


def test_a_shorter_record_ttl_spreads_the_failure_faster():
    fast = dns_cache.run(replace(dns_cache.INCIDENT, positive_ttl_s=10.0)).summary
    slow = dns_cache.run(replace(dns_cache.INCIDENT, positive_ttl_s=600.0)).summary
    assert fast.half_failing_after_s < slow.half_failing_after_s


def test_shared_busy_resolvers_bring_clients_back_together():
    def spread(per: int) -> float:
        c = dns_cache.run(replace(dns_cache.INCIDENT, clients_per_resolver_count=per, lookup_interval_s=120.0)).clients
        delay = c["recovered_s"].dropna()
        return float(delay.quantile(0.95) - delay.quantile(0.05))

    assert spread(200) < spread(1)


def test_when_the_record_comes_back_changes_no_client_failure_before_it():
    # Shared resolvers: how many times the caches refetch depends on the restore; the clients' own
    # lookups draw from streams of their own, so the failures before the restore stay as they were.
    shared = replace(dns_cache.INCIDENT, clients_per_resolver_count=20, horizon_s=14_000.0)
    early = dns_cache.run(replace(shared, empty_duration_s=3_600.0))
    late = dns_cache.run(replace(shared, empty_duration_s=7_200.0))
    cut = shared.empty_start_s + 3_600.0
    before = early.clients["failing_s"].where(early.clients["failing_s"] < cut)
    assert before.notna().any()
    pd.testing.assert_series_equal(before, late.clients["failing_s"].where(late.clients["failing_s"] < cut))


def test_series_and_events_agree():
    res = dns_cache.run(replace(dns_cache.INCIDENT, clients_count=500))
    ev = res.events
    assert ev["time_s"].is_monotonic_increasing
    assert (ev["kind"] == "client_failing").sum() == res.summary.failed_count
    assert dict(ev.dtypes.astype(str)) == {
        "time_s": "float64",
        "kind": "category",
        "resolver": "int64",
        "client": "int64",
    }
    t = 5_000.0
    failing_now = ((res.clients["failing_s"] <= t) & ~(res.clients["recovered_s"] <= t)).mean()
    row = res.timeseries.loc[res.timeseries["time_s"] == t, "failing_fraction"]
    assert float(row.iloc[0]) == pytest.approx(failing_now)


def test_determinism_in_process_and_across_hash_seeds():
    a, b = dns_cache.run(dns_cache.INCIDENT), dns_cache.run(dns_cache.INCIDENT)
    assert a.events.to_csv() == b.events.to_csv() and a.summary == b.summary
    assert dns_cache.run(replace(dns_cache.INCIDENT, seed=7)).events.to_csv() != a.events.to_csv()
    code = (
        "import hashlib; from labsupport import dns_cache as d; r = d.run(d.INCIDENT);"
        "print(hashlib.sha256(r.events.to_csv().encode()).hexdigest())"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("0", "99")
    }
    assert len(digests) == 1


@pytest.mark.parametrize("executor_type", [ThreadPoolExecutor, ProcessPoolExecutor])
def test_sweep_is_the_same_with_an_executor(executor_type):
    configs = [replace(dns_cache.INCIDENT, soa_ttl_s=t, clients_count=1_000) for t in (300.0, 900.0, 3_600.0)]
    here = dns_cache.sweep(configs)
    with executor_type(max_workers=2) as pool:
        there = dns_cache.sweep(configs, executor=pool)
    pd.testing.assert_frame_equal(here, there)
    assert here["negative_ttl_s"].tolist() == [300.0, 900.0, 3_600.0]


@st.composite
def configs(draw):
    empty = draw(st.floats(1.0, 20_000.0))
    start = draw(st.floats(0.0, 5_000.0))
    horizon = start + empty + draw(st.floats(1.0, 20_000.0))
    return DnsCacheConfig(
        clients_count=draw(st.integers(1, 3_000)),
        clients_per_resolver_count=draw(st.integers(1, 50)),
        positive_ttl_s=draw(st.floats(1.0, 3_600.0)),
        soa_ttl_s=draw(st.floats(1.0, 86_400.0)),
        soa_minimum_s=draw(st.floats(1.0, 86_400.0)),
        negative_ttl_cap_s=draw(st.floats(30.0, 86_400.0)),
        empty_start_s=start,
        empty_duration_s=empty,
        lookup_interval_s=draw(st.floats(0.1, 3_600.0)),
        horizon_s=horizon,
        sample_interval_s=max(0.1, horizon / 500),
        seed=draw(st.integers(0, 2**31)),
    )


@settings(max_examples=200, deadline=None)
@given(configs())
def test_invariants_hold_for_any_valid_config(cfg):
    res = dns_cache.run(cfg)
    frac = res.timeseries["failing_fraction"]
    assert frac.between(0.0, 1.0).all()
    s = res.summary
    assert 0 <= s.failed_count <= cfg.clients_count and 0.0 <= s.peak_failing_fraction <= 1.0
    c = res.clients.dropna(subset=["recovered_s"])
    assert (c["recovered_s"] > c["failing_s"]).all() and (c["recovered_s"] >= cfg.restored_s).all()
    for v in (s.recovery_half_s, s.recovery_most_s, s.recovery_all_s):
        assert v is None or v >= 0.0
    assert_fails_only_through_an_empty_resolver(res)


def assert_fails_only_through_an_empty_resolver(res) -> None:
    """Every failing client's resolver served the empty answer at that moment."""
    ev = res.events
    start = ev[ev["kind"] == "resolver_cached_empty"].set_index("resolver")["time_s"]
    end = ev[ev["kind"] == "resolver_cached_records"].set_index("resolver")["time_s"]
    failed = res.clients.dropna(subset=["failing_s"])
    lo = failed["resolver"].map(start)
    hi = failed["resolver"].map(end).fillna(math.inf)  # records fetched after the horizon
    assert lo.notna().all(), "a client failed behind a resolver that never cached the empty answer"
    assert ((failed["failing_s"] >= lo) & (failed["failing_s"] < hi)).all()
    back = failed.dropna(subset=["recovered_s"])
    assert (back["recovered_s"] >= back["resolver"].map(end)).all()


def test_no_client_fails_behind_a_resolver_that_never_held_the_empty_answer():
    # Once 0 of 100 resolvers cached the empty answer, yet 4,992 clients were
    # reported failing (peak 1.2 %), the first at 66.8 s, after the restore at 1 s.
    cfg = replace(
        dns_cache.INCIDENT,
        clients_count=10_000,
        clients_per_resolver_count=100,
        positive_ttl_s=3600,
        empty_duration_s=1,
        horizon_s=7200,
    )
    res = dns_cache.run(cfg)
    assert (res.events["kind"] == "resolver_cached_empty").sum() == 0
    assert (res.summary.failed_count, res.summary.peak_failing_fraction) == (0, 0.0)
    assert res.clients["failing_s"].isna().all()
    assert res.summary.recovery_half_s is None and res.summary.half_failing_after_s is None


def test_shared_resolvers_fail_only_inside_their_empty_windows():
    # The same rule where some caches do hold the empty answer (a 10-minute outage, 1-hour TTL).
    cfg = replace(
        dns_cache.INCIDENT,
        clients_count=10_000,
        clients_per_resolver_count=100,
        positive_ttl_s=3600,
        empty_duration_s=600,
        horizon_s=7200,
    )
    res = dns_cache.run(cfg)
    cached = int((res.events["kind"] == "resolver_cached_empty").sum())
    assert 0 < cached < 100 and 0 < res.summary.failed_count <= cached * 100
    assert_fails_only_through_an_empty_resolver(res)


@pytest.mark.parametrize(
    "field, value",
    [
        ("clients_count", 0),
        ("clients_count", 1.5),
        ("clients_per_resolver_count", 0),
        ("positive_ttl_s", 0.0),
        ("positive_ttl_s", math.nan),
        ("soa_ttl_s", -1.0),
        ("soa_minimum_s", math.inf),
        ("negative_ttl_cap_s", True),
        ("empty_start_s", -1.0),
        ("empty_duration_s", 0.0),
        ("empty_duration_s", 20_000.0),
        ("lookup_interval_s", 0.0),
        ("horizon_s", "long"),
        ("sample_interval_s", 0.01),
        ("max_refresh_cycles", 0),
        ("seed", 2.0),
    ],
)
def test_invalid_configs_are_refused(field, value):
    with pytest.raises(ValueError, match=field) as info:
        replace(dns_cache.INCIDENT, **{field: value})
    assert isinstance(info.value, ConfigError)


def test_bounds_and_types():
    with pytest.raises(LimitExceeded, match="max_refresh_cycles"):
        dns_cache.run(replace(dns_cache.INCIDENT, soa_ttl_s=1.0, max_refresh_cycles=100))
    with pytest.raises(ValueError, match="DnsCacheConfig"):
        dns_cache.run("INCIDENT")
    with pytest.raises(ValueError, match="DnsCacheConfig"):
        dns_cache.sweep([None])
    assert dns_cache.__all__ == sorted(dns_cache.__all__)


# --- regressions (adversarial review) ----------------------------------------------------------


def test_work_bound_counts_caches_times_refresh_cycles():
    cfg = replace(dns_cache.INCIDENT, clients_count=1_000, empty_duration_s=9_000.0, soa_ttl_s=900.0)
    cycles = math.ceil(cfg.empty_duration_s / cfg.negative_ttl_s) + 1  # 11
    with pytest.raises(LimitExceeded, match="max_cache_refreshes"):
        dns_cache.run(replace(cfg, max_cache_refreshes=1_000 * cycles - 1))  # 1,000 caches
    dns_cache.run(replace(cfg, max_cache_refreshes=1_000 * cycles))  # exactly enough
    dns_cache.run(replace(cfg, max_cache_refreshes=100 * cycles, clients_per_resolver_count=10))  # 100 caches


def test_the_reported_million_client_week_stops_before_any_work():
    huge = replace(
        dns_cache.INCIDENT,
        clients_count=10**6,
        soa_ttl_s=1,
        empty_duration_s=600_000,
        horizon_s=604_800,
        sample_interval_s=60,
        max_refresh_cycles=10**6,
    )
    with pytest.raises(LimitExceeded, match="cache refreshes"):
        dns_cache.run(huge)


def test_timeseries_never_reports_a_time_after_the_horizon():
    ts = dns_cache.run(replace(dns_cache.INCIDENT, sample_interval_s=7_000.0)).timeseries
    assert ts["time_s"].tolist() == [0.0, 7_000.0, 13_020.0]
    ts = dns_cache.run(
        replace(dns_cache.INCIDENT, clients_count=100, sample_interval_s=0.3, horizon_s=1_000.1, empty_duration_s=600.0)
    ).timeseries
    assert ts["time_s"].max() == 1_000.1 and ts["time_s"].is_monotonic_increasing
    assert ts["time_s"].diff().dropna().gt(0).all()
    assert ts.dtypes.astype(str).tolist() == ["float64", "float64"]


def test_a_horizon_too_short_to_sample_names_the_horizon():
    with pytest.raises(ConfigError, match="horizon_s"):
        replace(dns_cache.INCIDENT, horizon_s=0.05, empty_duration_s=0.01)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: dns_cache.sweep(None), "configs"),
        (lambda: dns_cache.sweep(5), "configs"),
        (lambda: dns_cache.sweep("abc"), "configs"),
        (lambda: dns_cache.sweep([dns_cache.INCIDENT], executor="x"), "executor"),
        (lambda: dns_cache.sweep([], executor=4), "executor"),
    ],
)
def test_sweep_rejects_bad_arguments_with_a_value_error(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def _corners(panel) -> list[dict]:
    """Every combination of each slider's ends (other controls at their current value)."""
    import itertools

    ends = {name: (w.min, w.max) if hasattr(w, "min") else (w.value,) for name, w in panel.controls.items()}
    return [dict(zip(ends, combo, strict=True)) for combo in itertools.product(*ends.values())]


@pytest.mark.parametrize(
    "base",
    [
        None,
        replace(
            dns_cache.INCIDENT,
            empty_start_s=590_000.0,
            empty_duration_s=1_000.0,
            horizon_s=600_000.0,
            sample_interval_s=30.0,
        ),
        replace(
            dns_cache.INCIDENT,
            empty_start_s=604_000.0,
            empty_duration_s=60.0,
            horizon_s=604_800.0,
            sample_interval_s=60.0,
        ),
    ],
    ids=["incident", "late-start", "last-minutes"],
)
def test_dns_panel_every_slider_corner_is_a_valid_config(base):
    from labsupport import widgets

    panel = widgets.dns_panel(base)
    for values in _corners(panel):
        cfg = widgets.dns_config(base, **{**values, "clients_count": 100})  # valid, or this raises
        assert cfg.restored_s < cfg.horizon_s <= 7 * 86_400.0
        assert dns_cache.run(cfg).timeseries["time_s"].max() == cfg.horizon_s
    assert panel.update(**{**panel.values(), "empty_min": panel.controls["empty_min"].max})


def test_dns_panel_refuses_a_base_with_no_room_for_an_empty_window():
    from labsupport import widgets

    late = replace(
        dns_cache.INCIDENT, empty_start_s=604_750.0, empty_duration_s=10.0, horizon_s=604_800.0, sample_interval_s=31.0
    )
    with pytest.raises(ValueError, match="empty_start_s"):
        widgets.dns_panel(late)
    with pytest.raises(ValueError, match="base"):
        widgets.dns_panel("incident")
