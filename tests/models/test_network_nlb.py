"""Tests of the recovery models: Network Manager's backlog (network) and NLB flapping (nlb)."""

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
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labsupport import network, nlb
from labsupport.errors import ConfigError, LimitExceeded
from labsupport.network import NetworkConfig
from labsupport.nlb import NlbConfig

#: A quiet Network Manager: nothing queued, nothing launched.
QUIET = NetworkConfig(backlog_count=0, launch_rate_per_min=0.0, retry_launches_count=0, horizon_s=3_600.0)


# --- network: exact traces ---------------------------------------------------------------------


def test_backlog_drains_one_item_per_service_time_in_order():
    cfg = replace(QUIET, backlog_count=3, propagation_rate_per_min=6.0, horizon_s=100.0)
    ev = network.run(cfg).events
    assert list(ev.itertuples(index=False, name=None)) == [
        (0.0, "backlog_queued", 0, -1),
        (0.0, "backlog_queued", 1, -1),
        (0.0, "backlog_queued", 2, -1),
        (10.0, "propagated", 0, -1),
        (20.0, "propagated", 1, -1),
        (30.0, "propagated", 2, -1),
    ]
    s = network.run(cfg).summary
    assert (s.backlog_cleared_s, s.first_late_config_s, s.propagation_normal_s) == (30.0, None, 0.0)


def test_drain_start_shifts_everything():
    cfg = replace(QUIET, backlog_count=2, drain_start_s=100.0, horizon_s=200.0)
    ev = network.run(cfg).events
    assert ev["time_s"].tolist() == [100.0, 100.0, 110.0, 120.0]
    assert network.run(cfg).summary.backlog_cleared_s == 120.0


def test_new_instances_wait_behind_the_backlog():
    cfg = replace(network.INCIDENT, horizon_s=12_000.0)
    res = network.run(cfg)
    launches = res.items[res.items["is_launch"] & ~res.items["refused"]]
    first = launches.sort_values("queued_s").iloc[0]
    # FIFO: the first launch is configured only after the whole backlog (318 items at 10 s each).
    assert first["propagated_s"] > cfg.backlog_count * 10.0
    assert res.summary.first_late_config_s == first["propagated_s"]
    done = res.items.dropna(subset=["propagated_s"]).sort_values("propagated_s")
    assert done["queued_s"].is_monotonic_increasing


def test_shedding_everything_refuses_every_launch_and_nothing_else():
    cfg = replace(network.INCIDENT, shed_load_at_s=0.0, shed_load_fraction=1.0, horizon_s=7_200.0)
    s = network.run(cfg).summary
    assert s.launches_count > 0 and s.refused_count == s.launches_count
    assert s.propagated_count == cfg.backlog_count


def test_admission_control_refuses_only_when_the_queue_is_full():
    cfg = replace(network.INCIDENT, max_queue_count=330, horizon_s=7_200.0)
    res = network.run(cfg)
    ev = res.events
    delta = ev["kind"].map({"backlog_queued": 1, "launch_queued": 1, "propagated": -1, "launch_refused": 0}).astype(int)
    # Items at Network Manager just before each event: the waiting queue plus the one in service.
    before = delta.cumsum() - delta
    refused = ev["kind"] == "launch_refused"
    queued = ev["kind"] == "launch_queued"
    assert refused.any() and queued.any()
    assert (before[refused] >= 331).all() and (before[queued] <= 330).all()
    assert res.summary.peak_queue_count <= 330


def test_shedding_load_brings_propagation_back_sooner():
    base = network.run(network.INCIDENT).summary
    shed = network.run(network.SHED_AT_0700).summary
    assert shed.refused_count > 0
    assert shed.propagation_normal_s < base.propagation_normal_s


def test_shedding_has_its_own_random_stream_and_changes_no_arrival():
    plain = network.run(network.INCIDENT)
    shed = network.run(replace(network.INCIDENT, shed_load_at_s=10_000.0, shed_load_until_s=20_000.0))
    cols = ["item", "queued_s", "az", "is_launch"]
    pd.testing.assert_frame_equal(shed.items[cols], plain.items[cols])  # the same launches, at the same times
    assert shed.items["refused"].any() and not plain.items["refused"].any()


def test_a_throttle_at_t_changes_no_nlb_event_before_t():
    # The NLB drew its targets and its health checks from one stream: a launch refused at t moved every
    # later target draw and so every probe, even those long before t (the game-day issue's bug 5).
    t = 11_700.0  # 8:43 AM on the NLB's clock
    base = nlb.INCIDENT
    shed = replace(base, network=replace(base.network, shed_load_at_s=t))
    a, b = nlb.run(base), nlb.run(shed)
    pd.testing.assert_frame_equal(a.events[a.events["time_s"] < t], b.events[b.events["time_s"] < t])
    pd.testing.assert_frame_equal(a.timeseries[a.timeseries["time_s"] < t], b.timeseries[b.timeseries["time_s"] < t])
    assert not a.events.equals(b.events)  # and the throttle does change what comes after


def test_incident_calibration_matches_the_summary_times():
    s = network.run(network.INCIDENT).summary
    assert abs(s.first_late_config_s - network.CLOCK.seconds("06:21")) <= 120  # PES: 6:21 AM
    assert abs(s.propagation_normal_s - network.CLOCK.seconds("10:36")) <= 15 * 60  # PES: 10:36 AM


def test_network_frames_have_the_documented_dtypes():
    res = network.run(replace(network.INCIDENT, horizon_s=3_600.0))
    assert dict(res.events.dtypes.astype(str)) == {
        "time_s": "float64",
        "kind": "category",
        "item": "int64",
        "az": "int64",
    }
    assert list(res.timeseries.columns) == [
        "time_s",
        "queue_count",
        "unconfigured_count",
        "mean_delay_s",
        "max_delay_s",
    ]
    assert (res.timeseries[["queue_count", "unconfigured_count"]] >= 0).all().all()


# --- nlb: mechanism ------------------------------------------------------------------------------


def test_flap_rate_formula():
    assert nlb.flap_transitions_per_check(0.5, 3, 2) == pytest.approx(0.1)
    assert nlb.flap_transitions_per_check(0.5, 1, 1) == pytest.approx(0.5)
    assert nlb.flap_transitions_per_check(0.0, 3, 2) == 0.0
    assert nlb.flap_transitions_per_check(1.0, 3, 2) == 0.0
    with pytest.raises(ValueError, match="pass_fraction"):
        nlb.flap_transitions_per_check(1.5, 3, 2)


def test_simulated_flaps_match_the_mean_field_rate():
    """This NLB's probe-by-probe flaps agree with the formula the fleet's load uses."""
    never = NetworkConfig(
        backlog_count=50,
        propagation_rate_per_min=0.001,
        launch_rate_per_min=0.0,
        retry_launches_count=6,
        retry_decay_s=1.0,
        horizon_s=30_000.0,
    )
    cfg = NlbConfig(
        network=never,
        target_share_fraction=1.0,
        fleet_targets_per_launch_count=0,
        health_check_interval_s=5.0,
        disable_failover_at_s=None,
        reenable_failover_at_s=None,
    )
    res = nlb.run(cfg)
    registered = res.events[res.events["kind"] == "target_registered"]
    assert len(registered) == 6
    rounds = ((never.horizon_s - registered["time_s"]) / 5.0).sum()
    expected = rounds * nlb.flap_transitions_per_check(0.4, 3, 2) / 2
    assert res.summary.flaps_count == pytest.approx(expected, rel=0.1)


def test_no_launches_means_nothing_happens():
    cfg = NlbConfig(network=QUIET, disable_failover_at_s=None, reenable_failover_at_s=None)
    res = nlb.run(cfg)
    ts = res.timeseries
    assert (ts["capacity_fraction"] == 1.0).all() and (ts["error_fraction"] == 0.0).all()
    assert (ts["check_latency_s"] == 0.0).all()
    assert res.summary.failover_count == 0 and res.summary.flaps_count == 0
    assert set(res.events["kind"]) == set()


def test_failover_is_triggered_by_delayed_checks_only():
    res = nlb.run(replace(nlb.INCIDENT, disable_failover_at_s=None, reenable_failover_at_s=None))
    first = res.summary.first_failover_s
    ts = res.timeseries
    before = ts[ts["time_s"] < first]
    # No failover while every AZ's results were fresh: latency stayed well under the threshold.
    assert first is not None and before["dns_weight"].eq(3.0).all()
    assert ts.loc[ts["time_s"] <= first, "check_latency_s"].max() > 0.5 * res.config.failover_delay_threshold_s


def test_dns_fails_open_never_below_one_az():
    res = nlb.run(replace(nlb.INCIDENT, disable_failover_at_s=None, reenable_failover_at_s=None))
    assert res.timeseries["dns_weight"].min() == pytest.approx(1.0)


def test_disabling_failover_restores_every_az_until_reenabled():
    cfg = nlb.INCIDENT
    res = nlb.run(cfg)
    ts, ev = res.timeseries, res.events
    window = ts[(ts["time_s"] >= cfg.disable_failover_at_s) & (ts["time_s"] < cfg.reenable_failover_at_s)]
    assert window["dns_weight"].eq(3.0).all()
    failovers = ev[ev["kind"] == "az_failover"]["time_s"]
    assert not failovers.between(cfg.disable_failover_at_s, cfg.reenable_failover_at_s).any()


def test_velocity_control_caps_removed_capacity_exactly():
    # No new targets, so the three AZs keep equal shares and the ledger is exact.
    cfg = replace(
        nlb.VELOCITY_CONTROL,
        target_share_fraction=0.0,
        max_removal_fraction=0.25,
        disable_failover_at_s=None,
        reenable_failover_at_s=None,
    )
    res = nlb.run(cfg)
    assert res.summary.failover_count >= 1 and res.summary.limited_count >= 1
    assert res.timeseries["failover_removed_fraction"].max() == pytest.approx(0.25)
    assert res.summary.min_capacity_fraction == pytest.approx(0.75)


def test_incident_calibration_and_levers():
    inc = nlb.run(nlb.INCIDENT)
    s = inc.summary
    assert abs(s.first_failover_s - network.CLOCK.seconds("06:52")) <= 20 * 60  # PES: detection at 6:52
    assert s.error_start_s <= network.CLOCK.seconds("06:00")  # PES: errors from 5:30
    ts = inc.timeseries
    short = ts[ts["working_capacity_fraction"] < ts["demand_fraction"]]
    assert short["time_s"].max() < nlb.INCIDENT.disable_failover_at_s  # 9:36 ended the shortfall
    never = nlb.run(replace(nlb.INCIDENT, disable_failover_at_s=None, reenable_failover_at_s=None)).summary
    assert never.below_demand_s > s.below_demand_s  # so the 9:36 action helped
    capped = nlb.run(nlb.VELOCITY_CONTROL).summary
    assert capped.min_capacity_fraction > 0.5 > s.min_capacity_fraction
    assert capped.peak_error_fraction < s.peak_error_fraction


def test_a_really_failed_az_costs_its_share_with_failover_off_and_less_with_it_on():
    # What-if for the game's debrief: the first AZ down for 30 minutes at noon. With failover off its
    # share of the load fails for the whole half hour (a third of demand: 10 connection-minutes); with
    # failover on, DNS takes it out once its results are 240 s old, and only what the other two AZs
    # cannot carry fails. Before the failure nothing changes.
    at = nlb.CLOCK.seconds("12:00")
    on = replace(nlb.INCIDENT, disable_failover_at_s=None, reenable_failover_at_s=None)

    def cost(cfg: NlbConfig) -> tuple[float, pd.DataFrame, pd.DataFrame]:
        a, b = nlb.run(cfg).timeseries, nlb.run(replace(cfg, az_down_at_s=at)).timeseries
        return float((b["error_fraction"] - a["error_fraction"]).sum()), a, b

    off_cost, a, b = cost(nlb.INCIDENT)  # failover off from 9:36 AM to 2:09 PM, as on the night
    on_cost, _, _ = cost(on)
    assert off_cost == pytest.approx(30 / 3, rel=0.01) and 0 < on_cost < off_cost
    pd.testing.assert_frame_equal(a[a["time_s"] < at], b[b["time_s"] < at])
    with pytest.raises(ConfigError, match="az_down_s"):
        replace(nlb.INCIDENT, az_down_s=0.0)


def test_reenabling_too_early_brings_failover_back():
    early = replace(nlb.INCIDENT, reenable_failover_at_s=network.CLOCK.seconds("10:00"))
    ev = nlb.run(early).events
    assert (ev[ev["kind"] == "az_failover"]["time_s"] > network.CLOCK.seconds("10:00")).any()
    late = nlb.run(nlb.INCIDENT).events
    assert not (late[late["kind"] == "az_failover"]["time_s"] > network.CLOCK.seconds("14:09")).any()


def test_nlb_frames_have_the_documented_dtypes():
    res = nlb.run(nlb.INCIDENT)
    assert dict(res.events.dtypes.astype(str)) == {
        "time_s": "float64",
        "kind": "category",
        "az": "int64",
        "target": "int64",
        "value": "float64",
    }
    assert res.events["time_s"].is_monotonic_increasing
    assert (res.timeseries.dtypes == "float64").all()


# --- determinism ---------------------------------------------------------------------------------


def _digest(config_expr: str, hashseed: str) -> str:
    code = (
        "import hashlib; from dataclasses import replace; from labsupport import nlb, network;"
        f"r = nlb.run({config_expr});"
        "print(hashlib.sha256((r.events.to_csv() + r.timeseries.to_csv()"
        " + r.network.events.to_csv()).encode()).hexdigest())"
    )
    env = {**os.environ, "PYTHONHASHSEED": hashseed}
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout.strip()


def test_same_config_same_events():
    a, b = nlb.run(nlb.INCIDENT), nlb.run(nlb.INCIDENT)
    assert a.events.to_csv() == b.events.to_csv()
    assert a.timeseries.to_csv() == b.timeseries.to_csv()
    assert a.summary == b.summary
    c = nlb.run(replace(nlb.INCIDENT, seed=1))
    assert c.events.to_csv() != a.events.to_csv()


def test_same_events_across_processes_and_hash_seeds():
    expr = (
        "replace(nlb.VELOCITY_CONTROL, network=replace(network.INCIDENT, horizon_s=14_000.0), "
        "disable_failover_at_s=None, reenable_failover_at_s=None)"
    )
    assert _digest(expr, "1") == _digest(expr, "4242")


@pytest.mark.parametrize("executor_type", [ThreadPoolExecutor, ProcessPoolExecutor])
def test_sweep_is_the_same_with_an_executor(executor_type):
    short = replace(network.INCIDENT, horizon_s=10_000.0)
    configs = [
        replace(
            nlb.INCIDENT,
            network=short,
            disable_failover_at_s=None,
            reenable_failover_at_s=None,
            max_removal_fraction=c,
            limit_capacity_removal=True,
        )
        for c in (0.1, 0.3, 0.6)
    ]
    here = nlb.sweep(configs)
    with executor_type(max_workers=2) as pool:
        there = nlb.sweep(configs, executor=pool)
    pd.testing.assert_frame_equal(here, there)
    assert here["run"].tolist() == [0, 1, 2]
    assert here["min_capacity_fraction"].is_monotonic_decreasing


# --- properties ----------------------------------------------------------------------------------


@st.composite
def small_configs(draw):
    net = NetworkConfig(
        backlog_count=draw(st.integers(0, 400)),
        propagation_rate_per_min=draw(st.floats(1.0, 20.0)),
        launch_rate_per_min=draw(st.floats(0.0, 10.0)),
        retry_launches_count=draw(st.integers(0, 300)),
        retry_decay_s=draw(st.floats(60.0, 3_600.0)),
        az_count=draw(st.integers(1, 4)),
        horizon_s=5_400.0,
        seed=draw(st.integers(0, 2**31)),
    )
    return NlbConfig(
        network=net,
        targets_per_az_count=draw(st.integers(1, 30)),
        target_share_fraction=draw(st.floats(0.0, 1.0)),
        demand_fraction=draw(st.floats(0.05, 1.0)),
        health_check_interval_s=draw(st.floats(10.0, 120.0)),
        healthy_threshold_count=draw(st.integers(1, 5)),
        unhealthy_threshold_count=draw(st.integers(1, 5)),
        unconfigured_pass_fraction=draw(st.floats(0.0, 1.0)),
        fleet_targets_per_launch_count=draw(st.integers(0, 200)),
        checker_headroom_fraction=draw(st.floats(0.0, 1.0)),
        failover_delay_threshold_s=draw(st.floats(10.0, 600.0)),
        automatic_failover=draw(st.booleans()),
        disable_failover_at_s=draw(st.one_of(st.none(), st.floats(0.0, 5_400.0))),
        reenable_failover_at_s=draw(st.one_of(st.none(), st.floats(0.0, 5_400.0))),
        limit_capacity_removal=draw(st.booleans()),
        max_removal_fraction=draw(st.floats(0.0, 1.0)),
        sample_interval_s=60.0,
        seed=draw(st.integers(0, 2**31)),
    )


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_configs())
def test_invariants_hold_for_any_valid_config(cfg):
    res = nlb.run(cfg)
    ts = res.timeseries
    for col in ("capacity_fraction", "working_capacity_fraction", "error_fraction", "failover_removed_fraction"):
        assert ts[col].between(0.0, 1.0 + 1e-9).all(), col
    assert (ts["working_capacity_fraction"] <= ts["capacity_fraction"] + 1e-12).all()
    assert (ts["check_latency_s"] >= 0).all() and (ts["unconfigured_targets_count"] >= 0).all()
    assert (ts["dns_weight"] >= min(1.0, cfg.network.az_count) - 1e-9).all()
    s = res.summary
    assert 0.0 <= s.min_capacity_fraction <= 1.0 and 0.0 <= s.peak_error_fraction <= 1.0
    if cfg.limit_capacity_removal and cfg.target_share_fraction == 0.0:
        assert ts["failover_removed_fraction"].max() <= cfg.max_removal_fraction + 1e-9
    q = res.network.timeseries
    assert (q[["queue_count", "unconfigured_count"]] >= 0).all().all()


# --- validation ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "field, value",
    [
        ("backlog_count", -1),
        ("backlog_count", 2.5),
        ("backlog_count", True),
        ("propagation_rate_per_min", 0.0),
        ("propagation_rate_per_min", math.nan),
        ("launch_rate_per_min", -1.0),
        ("launch_rate_per_min", math.inf),
        ("launch_rate_per_min", "5"),
        ("retry_decay_s", 0.0),
        ("az_count", 0),
        ("az_count", 7),
        ("shed_load_fraction", 1.5),
        ("shed_load_at_s", -5.0),
        ("max_queue_count", 0),
        ("horizon_s", 0.0),
        ("horizon_s", 1e9),
        ("drain_start_s", 40_000.0),
        ("max_events", 0),
        ("seed", 1.5),
        ("normal_delay_s", -1.0),
    ],
)
def test_invalid_network_configs_are_refused(field, value):
    with pytest.raises(ValueError, match=field) as info:
        replace(network.INCIDENT, **{field: value})
    assert isinstance(info.value, ConfigError) and repr(value)[:4] in str(info.value)


@pytest.mark.parametrize(
    "field, value",
    [
        ("targets_per_az_count", 0),
        ("target_share_fraction", -0.1),
        ("demand_fraction", 0.0),
        ("health_check_interval_s", 4.0),
        ("health_check_interval_s", math.nan),
        ("healthy_threshold_count", 0),
        ("unhealthy_threshold_count", 11),
        ("unconfigured_pass_fraction", 2.0),
        ("fleet_targets_per_launch_count", -3),
        ("checker_headroom_fraction", -0.5),
        ("transition_work_checks", math.inf),
        ("failover_delay_threshold_s", 0.0),
        ("automatic_failover", 1),
        ("disable_failover_at_s", 40_000.0),
        ("reenable_failover_at_s", -1.0),
        ("limit_capacity_removal", "yes"),
        ("max_removal_fraction", 1.01),
        ("removal_window_s", 0.0),
        ("error_threshold_fraction", -0.01),
        ("sample_interval_s", 0.5),
        ("max_events", -1),
        ("seed", None),
    ],
)
def test_invalid_nlb_configs_are_refused(field, value):
    with pytest.raises(ValueError, match=field):
        replace(nlb.INCIDENT, **{field: value})


def test_wrong_types_are_refused():
    with pytest.raises(ValueError, match="network"):
        NlbConfig(network="INCIDENT")
    with pytest.raises(ValueError, match="NlbConfig"):
        nlb.run(network.INCIDENT)
    with pytest.raises(ValueError, match="NetworkConfig"):
        network.run(nlb.INCIDENT)
    with pytest.raises(ValueError, match="NlbConfig"):
        nlb.sweep([network.INCIDENT])
    with pytest.raises(TypeError):
        NlbConfig(0.5)  # keyword-only


def test_runs_are_bounded():
    with pytest.raises(LimitExceeded, match="max_events"):
        network.run(replace(network.INCIDENT, max_events=1_000))
    with pytest.raises(LimitExceeded, match="max_events"):
        nlb.run(replace(nlb.INCIDENT, max_events=1_000))
    huge = NetworkConfig(launch_rate_per_min=1e6, horizon_s=_WEEK_S, max_events=10_000)
    with pytest.raises(LimitExceeded):
        network.run(huge)


_WEEK_S = 7 * 86_400.0


def test_exports_are_sorted_and_documented():
    for module in (network, nlb):
        assert module.__all__ == sorted(module.__all__)
        for name in module.__all__:
            assert getattr(module, name) is not None
            obj = getattr(module, name)
            if callable(obj):
                assert obj.__doc__, name


# --- regressions (adversarial review) ----------------------------------------------------------


@pytest.mark.parametrize(
    "make, cap",
    [
        (lambda n: replace(network.INCIDENT, max_events=n), 2_000_000),
        (lambda n: replace(nlb.INCIDENT, max_events=n), 10_000_000),
    ],
)
def test_max_events_is_capped_so_that_memory_stays_bounded(make, cap):
    assert make(cap).max_events == cap
    with pytest.raises(ConfigError, match="max_events"):
        make(cap + 1)
    with pytest.raises(ConfigError, match="max_events"):
        make(10**9)


def test_a_million_launches_a_minute_stops_at_the_bound():
    with pytest.raises(LimitExceeded, match="max_events"):
        network.run(replace(network.INCIDENT, launch_rate_per_min=1e6, horizon_s=_WEEK_S, max_events=50_000))


def test_network_timeseries_ends_at_the_horizon_not_after_it():
    ts = network.run(replace(network.INCIDENT, horizon_s=100.0, sample_interval_s=60.0)).timeseries
    assert ts["time_s"].tolist() == [60.0, 100.0]
    res = network.run(replace(network.INCIDENT, horizon_s=3_630.0))
    ts, items = res.timeseries, res.items
    assert ts["time_s"].iloc[-1] == 3_630.0 and ts["time_s"].iloc[-2] == 3_600.0
    # The short last bin (3,600, 3,630] holds exactly the deliveries made in it.
    last = items[items["is_launch"] & items["propagated_s"].between(3_600.0, 3_630.0, inclusive="right")]
    if len(last):
        assert ts["max_delay_s"].iloc[-1] == last["delay_s"].max()
    else:
        assert math.isnan(ts["max_delay_s"].iloc[-1])


def test_mean_delay_is_nan_exactly_in_bins_without_deliveries_and_documented():
    res = network.run(network.INCIDENT)
    ts, items = res.timeseries, res.items
    done = items[items["is_launch"] & items["propagated_s"].notna()]
    bins = set((np.ceil(done["propagated_s"] / 60.0) * 60.0).tolist())
    has = ts["time_s"].isin(bins)
    assert ts.loc[has, "mean_delay_s"].notna().all() and ts.loc[~has, "mean_delay_s"].isna().all()
    assert (~has).any()  # the backlog phase delivers no new instance
    assert "NaN in a bin where no new instance" in network.NetworkResult.__doc__


def test_a_horizon_below_one_second_names_the_horizon():
    with pytest.raises(ConfigError, match="horizon_s"):
        replace(network.INCIDENT, horizon_s=0.5)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: nlb.sweep(None), "configs"),
        (lambda: nlb.sweep(3), "configs"),
        (lambda: nlb.sweep([], executor="x"), "executor"),
    ],
)
def test_nlb_sweep_rejects_bad_arguments_with_a_value_error(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_nlb_panel_with_a_short_horizon_offers_only_valid_settings():
    import itertools

    from labsupport import widgets

    base = replace(
        nlb.INCIDENT,
        network=replace(network.INCIDENT, horizon_s=3_600.0),
        disable_failover_at_s=None,
        reenable_failover_at_s=None,
    )
    panel = widgets.nlb_panel(base)  # raised while building before the fix
    c = panel.controls
    for backlog, failover in itertools.product((c["backlog_count"].min, c["backlog_count"].max), c["failover"].options):
        cfg = widgets.nlb_config(base, **{**panel.values(), "backlog_count": backlog, "failover": failover})
        assert cfg.disable_failover_at_s is None and cfg.reenable_failover_at_s is None  # both after 6:28 AM
    # A horizon between the two actions keeps the one inside the run.
    mid = replace(base, network=replace(network.INCIDENT, horizon_s=network.CLOCK.seconds("12:00")))
    cfg = widgets.nlb_config(mid, **{**panel.values(), "failover": next(iter(widgets.NLB_FAILOVER_CHOICES))})
    assert (cfg.disable_failover_at_s, cfg.reenable_failover_at_s) == (network.CLOCK.seconds("09:36"), None)
    assert panel.update(**{**panel.values(), "failover": next(iter(widgets.NLB_FAILOVER_CHOICES))})


# --- float ties and the horizon rule ------------------------------------------------------------


def test_failover_tie_is_decided_in_whole_milliseconds():
    # With 12.3 s ticks summed, a result 20 ticks old was 246.00000000000364 s
    # old, > 246, so the AZ failed over at 5108.6 s. Ticks are now k * interval in whole ms, and a
    # result exactly the threshold old is still fresh.
    r = nlb.run(replace(nlb.INCIDENT, health_check_interval_s=12.3, failover_delay_threshold_s=246))
    assert (r.summary.first_failover_s, r.summary.error_s) == (5256.2, 12960.0)
    probes = nlb.run(replace(nlb.INCIDENT, health_check_interval_s=12.3, failover_delay_threshold_s=246.001))
    assert probes.summary.first_failover_s == 5256.2  # one ms over the tie changes nothing here


def test_samples_are_at_k_times_the_interval():
    cfg = replace(
        nlb.INCIDENT,
        network=replace(network.INCIDENT, horizon_s=3_600.0),
        sample_interval_s=1.1,
        disable_failover_at_s=None,
        reenable_failover_at_s=None,
    )
    t = nlb.run(cfg).timeseries["time_s"].to_numpy()
    assert t.tolist() == [k * 1100 / 1000 for k in range(1, len(t) + 1)]
    assert t[-1] <= 3_600.0


def test_events_at_exactly_the_horizon_are_kept():
    # One rule for every model: the run covers [0, horizon_s].
    net = network.run(replace(network.INCIDENT, horizon_s=600.0))
    assert (net.events["time_s"] == 600.0).any() and net.events["time_s"].max() == 600.0
    n = nlb.run(
        replace(
            nlb.INCIDENT,
            network=replace(network.INCIDENT, horizon_s=600.0),
            disable_failover_at_s=None,
            reenable_failover_at_s=None,
        )
    )
    assert n.timeseries["time_s"].iloc[-1] == 600.0
