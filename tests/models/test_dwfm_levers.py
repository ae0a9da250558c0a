"""DWFM's levers beyond the incident: dropping expired work, LIFO order and a retry budget."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labsupport import dwfm
from labsupport.dwfm import INCIDENT, DwfmConfig, run

from .test_dwfm import ONE, trace

# ONE's host (test_dwfm.py) with three droplets. Their leases lapse in the outage; they ask again
# at 300 s, 302 s and 304 s (one cohort every 2 s); each item takes 10 s.
THREE = replace(ONE, fleet_droplets_count=3, work_deadline_s=15.0, horizon_s=400.0)


def kind_total(result: dwfm.DwfmResult, kind: str) -> int:
    return int(result.events.loc[result.events["kind"] == kind, "count"].sum())


def test_defaults_are_the_incident_behaviour():
    assert (INCIDENT.drop_expired_work, INCIDENT.queue_order, INCIDENT.retry_budget_per_s) == (False, "fifo", None)
    r = run(INCIDENT)
    assert kind_total(r, "work_dropped_expired") == 0 and kind_total(r, "retry_refused") == 0


def test_expired_item_is_dropped_unworked_and_retried_with_a_fresh_deadline():
    plain, dropping = run(THREE), run(replace(THREE, drop_expired_work=True))
    # Without dropping, the item queued at 304 s starts at 320 s, 1 s past its deadline, and is wasted;
    # the three droplets chase each other's expired work and never all hold a lease.
    assert not plain.summary.recovered and plain.summary.goodput_count == 1
    assert trace(dropping)[11:16] == [
        (320.0, "work_timed_out", 0, 1),  # queued at 302 s, finished at 320 s > 317 s
        (320.0, "retry_queued", 0, 1),
        (320.0, "work_dropped_expired", 0, 1),  # queued at 304 s: 16 s old > 15 s, dropped unworked
        (320.0, "retry_queued", 0, 1),
        (320.0, "work_started", 0, 1),
    ]
    s = dropping.summary
    assert (s.recovered, s.recovered_at_s, s.goodput_count) == (True, 350.0, 3)
    # The dropped item took no host time: fewer items started than without dropping.
    assert s.started_count < plain.summary.started_count


def test_an_item_exactly_at_its_deadline_is_not_dropped():
    # With a 16 s deadline the item queued at 304 s is exactly 16 s old at 320 s: still in time.
    r = run(replace(THREE, work_deadline_s=16.0, drop_expired_work=True))
    at_320 = [k for t, k, _, _ in trace(r) if t == 320.0]
    assert at_320 == ["work_timed_out", "retry_queued", "work_started"]  # worked on, not dropped


def test_lifo_serves_the_newest_item_first():
    fifo = run(replace(THREE, work_deadline_s=16.0))
    lifo = run(replace(THREE, work_deadline_s=16.0, queue_order="lifo"))

    # At 310 s the queue holds the items of 302 s and 304 s. FIFO takes 302 s's (finished at 320 s,
    # past 318 s: wasted); LIFO takes 304 s's (finished at 320 s = 304 + 16: in time).
    def at_320(result):
        return next(k for t, k, _, _ in trace(result) if t == 320.0 and k != "work_started")

    assert (at_320(fifo), at_320(lifo)) == ("work_timed_out", "lease_established")
    assert lifo.summary.goodput_count > fifo.summary.goodput_count


def test_an_empty_budget_refuses_every_retry_and_the_droplet_asks_again():
    r = run(replace(THREE, retry_budget_per_s=0.0, retry_budget_burst_count=0))
    assert kind_total(r, "retry_queued") == 0
    assert kind_total(r, "retry_refused") == kind_total(r, "work_timed_out") > 0
    # A refused droplet asks again at its next state check (every 60 s): more requests than droplets.
    assert r.summary.requested_count > THREE.fleet_droplets_count


def test_a_full_budget_changes_nothing():
    big = replace(THREE, retry_budget_per_s=1_000.0, retry_budget_burst_count=1_000)
    assert trace(run(big)) == trace(run(THREE))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rate=st.floats(0.0, 0.5),
    burst=st.integers(0, 20),
    hosts=st.integers(1, 3),
    drop=st.booleans(),
    order=st.sampled_from(dwfm.QUEUE_ORDERS),
    policy=st.sampled_from(dwfm.RETRY_POLICIES),
    seed=st.integers(0, 2**32),
)
def test_retries_per_host_never_exceed_the_token_bucket(rate, burst, hosts, drop, order, policy, seed):
    cfg = DwfmConfig(
        fleet_droplets_count=120,
        dwfm_hosts_count=hosts,
        host_concurrency_count=2,
        state_check_interval_s=60.0,
        lease_ttl_min_s=100.0,
        lease_ttl_max_s=400.0,
        outage_start_s=0.0,
        outage_end_s=600.0,
        lease_establish_s=20.0,
        work_deadline_s=60.0,
        retry_policy=policy,
        retry_base_s=5.0,
        retry_cap_s=60.0,
        drop_expired_work=drop,
        queue_order=order,
        retry_budget_per_s=rate,
        retry_budget_burst_count=burst,
        operator_restart_at_s=None,
        operator_throttle_at_s=None,
        report_interval_s=120.0,
        horizon_s=3_000.0,
        seed=seed,
    )
    r = run(cfg)
    ev = r.events
    failed = ev[ev["kind"].isin(["work_timed_out", "work_dropped_expired"])].groupby("host")["count"].sum()
    refused = ev[ev["kind"] == "retry_refused"].groupby("host")["count"].sum()
    retried = failed.sub(refused, fill_value=0)
    # A bucket of `burst` tokens refilled at `rate` per second allows at most burst + rate * T retries.
    assert (retried <= burst + rate * cfg.horizon_s + 1e-9).all(), retried
    assert (retried >= 0).all()
    s = r.summary
    assert s.goodput_count + s.wasted_count <= s.started_count


BAD = [
    ("drop_expired_work", 1),
    ("drop_expired_work", None),
    ("queue_order", "random"),
    ("queue_order", "LIFO"),
    ("retry_budget_per_s", -0.1),
    ("retry_budget_per_s", float("nan")),
    ("retry_budget_per_s", "1"),
    ("retry_budget_burst_count", -1),
    ("retry_budget_burst_count", 2.5),
]


@pytest.mark.parametrize(("field", "value"), BAD, ids=[f"{f}={v!r}" for f, v in BAD])
def test_invalid_lever_names_the_field_and_its_range(field, value):
    with pytest.raises(ValueError, match=field):
        replace(INCIDENT, **{field: value})


def test_lever_table_compares_every_lever_on_the_incident_preset():
    table = dwfm.lever_table()
    assert list(table.columns) == [
        "lever",
        "setting",
        "recovered",
        "recovered_at_s",
        "peak_queue_count",
        "wasted_fraction",
        "dropped_count",
        "retries_refused_count",
    ]
    assert str(table["recovered_at_s"].dtype) == "float64" and str(table["recovered"].dtype) == "bool"
    by = table.set_index("lever")
    assert {
        "no operators",
        "admission control",
        "backoff with full jitter",
        "drop expired work",
        "LIFO queue",
        "retry budget",
    } <= set(by.index)
    assert not by.at["no operators", "recovered"] and not by.at["backoff with full jitter", "recovered"]
    assert by.at["admission control", "recovered"] and by.at["drop expired work", "recovered"]
    assert by.at["drop expired work", "dropped_count"] > 0 and by.at["retry budget", "retries_refused_count"] > 0
    assert pd.isna(by.at["no operators", "recovered_at_s"])


def test_backoff_sweep_shows_backoff_spreading_the_queue_and_admission_control_bounding_it():
    df = dwfm.backoff_sweep([3_000])
    assert list(df.columns) == [
        "fleet_droplets_count",
        "setting",
        "recovered",
        "recovered_at_s",
        "peak_queue_per_host",
        "mean_queue_per_host",
        "mean_wait_s",
        "peak_backoff_count",
        "wasted_fraction",
    ]
    assert list(df["setting"]) == [label for label, _ in dwfm.BACKOFF_SETTINGS]
    by = df.set_index("setting")
    immediate, guarded = by.loc["immediate retries"], by.loc["admission control"]
    backoff = by[by.index.str.startswith("backoff")]
    # Backoff moves items out of the queue into waiting: a shorter mean queue, items in backoff ...
    assert (backoff["mean_queue_per_host"] < immediate["mean_queue_per_host"]).all()
    assert (backoff["peak_backoff_count"] > 0).all() and immediate["peak_backoff_count"] == 0
    # ... but the first wave of requests fills the queue as high as without it.
    assert (backoff["peak_queue_per_host"] == immediate["peak_queue_per_host"]).all()
    # Admission control bounds the queue, hence the wait, by its limit.
    assert guarded["peak_queue_per_host"] <= INCIDENT.queue_limit_count and guarded["recovered"]
    assert (
        df["mean_wait_s"] == df["mean_queue_per_host"] * INCIDENT.lease_establish_s / INCIDENT.host_concurrency_count
    ).all()
    with pytest.raises(ValueError, match="fleet_sizes"):
        dwfm.backoff_sweep([0])
