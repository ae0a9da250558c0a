"""Tests of the DWFM lease-collapse model (labsupport.dwfm)."""

from __future__ import annotations

import hashlib
import math
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, replace

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labsupport import ConfigError, LimitExceeded, dwfm
from labsupport.dwfm import EVENT_KINDS, INCIDENT, SMALL_FLEET, DwfmConfig, engine, run

# One droplet, one DWFM host working on one item at a time. Its lease (100 s) lapses at t = 40 s
# during the outage; the state check at t = 60 s notices it; DynamoDB is back at t = 300 s.
ONE = DwfmConfig(
    fleet_droplets_count=1,
    dwfm_hosts_count=1,
    host_concurrency_count=1,
    state_check_interval_s=60.0,
    lease_ttl_min_s=100.0,
    lease_ttl_max_s=100.0,
    outage_start_s=0.0,
    outage_end_s=300.0,
    lease_establish_s=10.0,
    work_deadline_s=10.0,
    operator_restart_at_s=None,
    operator_throttle_at_s=None,
    report_interval_s=100.0,
    horizon_s=1_000.0,
)
UNATTENDED = replace(INCIDENT, operator_restart_at_s=None, operator_throttle_at_s=None)


def trace(result: dwfm.DwfmResult) -> list[tuple[float, str, int, int]]:
    return [(t, str(k), h, c) for t, k, h, c in result.events.itertuples(index=False)]


# --- micro-scenarios ------------------------------------------------------------------------------


def test_one_droplet_deadline_exactly_met():
    result = run(ONE)
    assert trace(result) == [
        (0.0, "dynamodb_unreachable", -1, 0),
        (60.0, "lease_expired", -1, 1),
        (300.0, "dynamodb_restored", -1, 0),
        (300.0, "lease_requested", -1, 1),
        (300.0, "work_started", 0, 1),
        (310.0, "lease_established", 0, 1),  # finished at 310 = enqueued 300 + deadline 10
        (310.0, "leases_restored", -1, 0),
    ]
    s = result.summary
    assert (s.recovered, s.recovered_at_s, s.recovery_after_outage_s) == (True, 310.0, 10.0)
    assert (s.goodput_count, s.wasted_count, s.wasted_fraction) == (1, 0, 0.0)


def test_one_droplet_deadline_just_missed_never_recovers():
    result = run(replace(ONE, work_deadline_s=9.999))
    assert trace(result)[4:10] == [
        (300.0, "work_started", 0, 1),
        (310.0, "work_timed_out", 0, 1),  # 310 > 300 + 9.999: the work is wasted
        (310.0, "retry_queued", 0, 1),  # immediate retry, with a fresh deadline
        (310.0, "work_started", 0, 1),
        (320.0, "work_timed_out", 0, 1),
        (320.0, "retry_queued", 0, 1),
    ]
    s = result.summary
    assert not s.recovered and s.recovered_at_s is None and s.recovery_after_outage_s is None
    # Started every 10 s from 300 s to 1,000 s: events at exactly the horizon happen (the package's
    # the package's horizon rule), so the round ending at 1,000 s is wasted and one more starts.
    assert (s.started_count, s.goodput_count, s.wasted_count) == (71, 0, 70)
    assert s.wasted_fraction == 1.0
    assert result.timeseries["leased_count"].iloc[-1] == 0


def test_queue_wait_counts_against_the_deadline():
    # Two droplets on one host that works on one item at a time. Droplet 1 asks at 302 s, waits
    # for droplet 0's round (300-310 s) and finishes at 320 s: 18 s after it joined the queue.
    two = replace(ONE, fleet_droplets_count=2)
    met = run(replace(two, work_deadline_s=18.0))
    missed = run(replace(two, work_deadline_s=17.9))
    assert [e for e in trace(met) if e[1] == "lease_established"] == [
        (310.0, "lease_established", 0, 1),
        (320.0, "lease_established", 0, 1),
    ]
    assert [e for e in trace(missed) if e[1] in ("lease_established", "work_timed_out")][:3] == [
        (310.0, "lease_established", 0, 1),
        (320.0, "work_timed_out", 0, 1),
        (330.0, "lease_established", 0, 1),
    ]  # the retry had no wait


def test_admission_control_holds_back_and_the_droplet_asks_again():
    three = replace(
        ONE, fleet_droplets_count=3, work_deadline_s=100.0, throttle_by_queue_length=True, queue_limit_count=1
    )
    result = run(three)
    held = [e for e in trace(result) if e[1] == "lease_held_back"]
    # t=300: droplet 0 starts at once; t=302: droplet 1 waits (queue 1 = limit); t=304: droplet 2
    # is refused, and asks again at its next state check, t=364.
    assert held == [(304.0, "lease_held_back", -1, 1)]
    assert (364.0, "lease_requested", -1, 1) in trace(result)
    assert result.summary.recovered_at_s == 374.0
    assert result.summary.held_back_count == 1


def test_operator_restart_clears_queue_and_round_in_progress():
    cfg = replace(ONE, fleet_droplets_count=3, work_deadline_s=5.0, operator_restart_at_s=305.0, queue_limit_count=1)
    result = run(cfg)
    restarts = [e for e in trace(result) if e[1] == "host_restarted"]
    # At 305 s droplet 0 is in flight, droplets 1 and 2 wait (2 > limit 1): all three dropped.
    assert restarts == [(305.0, "host_restarted", 0, 3)]
    assert result.summary.cleared_count == 3
    # The interrupted round never finishes: nothing ends at 310 s.
    assert not [e for e in trace(result) if e[0] == 310.0]


def test_backoff_waits_within_full_jitter_bounds():
    cfg = replace(
        ONE,
        work_deadline_s=5.0,
        retry_policy="backoff_full_jitter",
        retry_base_s=20.0,
        retry_cap_s=50.0,
        horizon_s=3_000.0,
    )
    events = trace(run(cfg))
    timed_out = [t for t, k, _, _ in events if k == "work_timed_out"]
    queued = [t for t, k, _, _ in events if k == "retry_queued"]
    tick = cfg.state_check_interval_s / 30
    # A timeout near the horizon may have no retry queued before the run ends: pair the ones that do.
    assert len(timed_out) - len(queued) in (0, 1)
    for attempt, (failed_at, back_at) in enumerate(zip(timed_out, queued, strict=False), start=1):
        ceiling = min(50.0, 20.0 * 2**attempt)
        assert failed_at <= back_at <= failed_at + ceiling + tick


def test_no_outage_no_lost_lease():
    s = run(replace(ONE, outage_end_s=0.0)).summary
    assert s.recovered and s.recovered_at_s == 0.0 and s.leases_lost_count == 0 and s.started_count == 0


def test_limit_exceeded_is_a_clear_error():
    with pytest.raises(LimitExceeded, match="max_events"):
        run(replace(INCIDENT, max_events=1_000))


# --- the mechanism at incident scale ----------------------------------------------------------


def test_incident_collapses_and_recovers_only_after_the_operators():
    cut = INCIDENT.operator_restart_at_s
    ts = run(INCIDENT).timeseries
    collapse = ts[(ts["time_s"] > INCIDENT.outage_end_s + 1_800) & (ts["time_s"] <= cut)]
    assert collapse["started_count"].min() > 0  # hosts busy ...
    assert dwfm.goodput_fraction(ts, INCIDENT.outage_end_s + 1_800, cut) < 0.01  # ... for nothing
    assert collapse["leased_count"].max() < 0.2 * INCIDENT.fleet_droplets_count
    assert not run(UNATTENDED).summary.recovered
    assert run(replace(UNATTENDED, throttle_by_queue_length=True)).summary.recovered


def test_restart_without_throttle_collapses_again():
    assert not run(replace(INCIDENT, operator_throttle_at_s=None)).summary.recovered


def test_a_throttle_relaxed_before_the_leases_are_back_lets_the_collapse_return():
    # The operators' throttle is a window: relaxed a minute after it is taken (with the restart), DWFM
    # admits every request again and never recovers, as with no throttle at all; relaxed once every
    # droplet holds a lease (11:23 AM, the summary's relax), it changes nothing.
    soon = run(replace(INCIDENT, operator_throttle_until_s=INCIDENT.operator_throttle_at_s + 60.0))
    assert not soon.summary.recovered
    late = run(replace(INCIDENT, operator_throttle_until_s=41_700.0))
    assert late.summary == run(INCIDENT).summary
    assert (late.events["kind"] == "operator_throttle_relaxed").sum() == 1
    with pytest.raises(ConfigError, match="operator_throttle_until_s"):
        replace(INCIDENT, operator_throttle_until_s=100.0)  # before the throttle
    with pytest.raises(ConfigError, match="set operator_throttle_at_s"):
        replace(INCIDENT, operator_throttle_at_s=None, operator_throttle_until_s=20_000.0)


def test_threshold_small_fleet_recovers_large_does_not():
    assert run(SMALL_FLEET).summary.recovered
    assert not run(replace(SMALL_FLEET, fleet_droplets_count=4 * SMALL_FLEET.fleet_droplets_count)).summary.recovered


# --- golden summaries ---------------------------------------------------------------------------

GOLDEN = {
    "INCIDENT": {
        "recovered": True,
        "recovered_at_s": 20400.0,
        "recovery_after_outage_s": 10980.0,
        "leases_lost_count": 6600,
        "min_leased_count": 0,
        "peak_queue_count": 6280,
        "started_count": 14520,
        "goodput_count": 6600,
        "wasted_count": 7840,
        "wasted_fraction": 7840 / 14440,
        "requested_count": 12400,
        "held_back_count": 43500,
        "cleared_count": 5800,
        "launch_attempts_count": 270000,
        "insufficient_capacity_count": 62648,
    },
    "SMALL_FLEET": {
        "recovered": True,
        "recovered_at_s": 10504.0,
        "recovery_after_outage_s": 1084.0,
        "leases_lost_count": 1200,
        "min_leased_count": 0,
        "peak_queue_count": 920,
        "started_count": 1400,
        "goodput_count": 1200,
        "wasted_count": 200,
        "wasted_fraction": 200 / 1400,
        "requested_count": 1200,
        "held_back_count": 0,
        "cleared_count": 0,
        "launch_attempts_count": 270000,
        "insufficient_capacity_count": 26997,
    },
}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_summary(name):
    assert asdict(run(getattr(dwfm, name)).summary) == GOLDEN[name]


def test_incident_calibration_lands_on_5_28_am():
    # The PES: "established leases with all droplets" at 5:28 AM; the preset is calibrated to it.
    assert dwfm.CLOCK.time_of_day(run(INCIDENT).summary.recovered_at_s) == "5:28 AM"


# --- determinism --------------------------------------------------------------------------------


def test_same_seed_identical_and_other_seed_differs():
    a, b = run(INCIDENT), run(INCIDENT)
    assert a.events.to_csv() == b.events.to_csv()
    assert a.timeseries.to_csv() == b.timeseries.to_csv()
    assert a.summary == b.summary
    c = run(replace(INCIDENT, seed=INCIDENT.seed + 1))
    assert c.events.to_csv() != a.events.to_csv()


_DIGEST = (
    "import hashlib; from labsupport import dwfm; from dataclasses import replace; "
    "r = dwfm.run(replace(dwfm.SMALL_FLEET, retry_policy='backoff_full_jitter')); "
    "print(hashlib.sha256(r.events.to_csv().encode()).hexdigest())"
)


def test_identical_across_processes_with_other_hash_seeds():
    digests = set()
    for hash_seed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run([sys.executable, "-c", _DIGEST], env=env, capture_output=True, text=True, check=True)
        digests.add(out.stdout.strip())
    here = run(replace(SMALL_FLEET, retry_policy="backoff_full_jitter")).events.to_csv()
    assert digests == {hashlib.sha256(here.encode()).hexdigest()}


def test_frames_have_the_documented_dtypes():
    r = run(ONE)
    assert r.events.dtypes.astype(str).to_dict() == {
        "time_s": "float64",
        "kind": "category",
        "host": "int64",
        "count": "int64",
    }
    assert list(r.events["kind"].cat.categories) == list(EVENT_KINDS)
    assert r.timeseries["time_s"].dtype == "float64"
    assert (r.timeseries.drop(columns="time_s").dtypes == "int64").all()


# --- validation ---------------------------------------------------------------------------------

BAD = [
    ("fleet_droplets_count", 0),
    ("fleet_droplets_count", 2.5),
    ("fleet_droplets_count", True),
    ("dwfm_hosts_count", -1),
    ("host_concurrency_count", 0),
    ("state_check_interval_s", 0.5),
    ("state_check_interval_s", float("nan")),
    ("lease_ttl_min_s", 240.0),
    ("lease_ttl_max_s", 500.0),
    ("outage_start_s", -1.0),
    ("outage_end_s", 60_000.0),
    ("lease_establish_s", 0.0),
    ("work_deadline_s", 0.0),
    ("work_deadline_s", float("inf")),
    ("retry_policy", "exponential"),
    ("retry_base_s", -1.0),
    ("retry_cap_s", 1.0),
    ("throttle_by_queue_length", 1),
    ("queue_limit_count", 0),
    ("operator_restart_at_s", -5.0),
    ("operator_throttle_at_s", 1e9),
    ("launch_attempts_per_s", -1.0),
    ("report_interval_s", 0.01),
    ("horizon_s", 0.0),
    ("max_events", 0),
    ("seed", 1.5),
    ("seed", "x"),
]


@pytest.mark.parametrize(("field", "value"), BAD, ids=[f"{f}={v!r}" for f, v in BAD])
def test_invalid_config_names_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        replace(INCIDENT, **{field: value})


def test_run_and_helpers_reject_bad_input():
    with pytest.raises(ValueError, match="DwfmConfig"):
        run({"fleet_droplets_count": 3})
    with pytest.raises(ValueError, match="end_s"):
        dwfm.goodput_fraction(run(ONE).timeseries, 10.0, 5.0)
    with pytest.raises(ValueError, match="fleet_sizes"):
        dwfm.phase_sweep(fleet_sizes=[])
    with pytest.raises(ValueError, match="outage_end_s"):
        dwfm.phase_sweep(fleet_sizes=[10], outage_lengths_s=[1e6])
    with pytest.raises(ValueError, match="executor"):
        dwfm.phase_sweep(fleet_sizes=[10], outage_lengths_s=[60.0], executor=object())


LINKED = {
    "state_check_interval_s": ("lease_ttl_min_s",),
    "lease_ttl_min_s": ("lease_ttl_max_s",),
    "outage_start_s": ("outage_end_s",),
    "retry_base_s": ("retry_cap_s",),
    "horizon_s": (
        "outage_start_s",
        "outage_end_s",
        "operator_throttle_at_s",
        "operator_restart_at_s",
        "report_interval_s",
    ),
}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    field=st.sampled_from([f for f, _ in BAD]),
    value=st.one_of(
        st.integers(-(10**12), 10**12),
        st.floats(allow_nan=True, allow_infinity=True),
        st.booleans(),
        st.none(),
        st.text(max_size=3),
    ),
)
def test_random_values_give_a_config_or_a_value_error(field, value):
    # A value may also break a field validated against this one (a TTL against the check interval).
    linked = {field, *LINKED.get(field, ())}
    try:
        replace(INCIDENT, **{field: value})
    except ValueError as err:
        assert any(name in str(err) for name in linked), str(err)


# --- properties ---------------------------------------------------------------------------------


@st.composite
def small_configs(draw) -> DwfmConfig:
    interval = draw(st.floats(5.0, 300.0))
    ttl_min = draw(st.floats(interval * 1.01, interval * 20))
    start = draw(st.floats(0.0, 2_000.0))
    end = start + draw(st.floats(0.0, 3_000.0))
    horizon = end + draw(st.floats(1.0, 4_000.0))
    base = draw(st.floats(0.5, 100.0))

    def maybe_time():
        return draw(st.one_of(st.none(), st.floats(0.0, horizon)))

    return DwfmConfig(
        fleet_droplets_count=draw(st.integers(1, 300)),
        dwfm_hosts_count=draw(st.integers(1, 5)),
        host_concurrency_count=draw(st.integers(1, 5)),
        state_check_interval_s=interval,
        lease_ttl_min_s=ttl_min,
        lease_ttl_max_s=ttl_min + draw(st.floats(0.0, 3_000.0)),
        outage_start_s=start,
        outage_end_s=end,
        lease_establish_s=draw(st.floats(1.0, 200.0)),
        work_deadline_s=draw(st.floats(0.5, 1_000.0)),
        retry_policy=draw(st.sampled_from(dwfm.RETRY_POLICIES)),
        retry_base_s=base,
        retry_cap_s=base + draw(st.floats(0.0, 500.0)),
        throttle_by_queue_length=draw(st.booleans()),
        queue_limit_count=draw(st.integers(1, 50)),
        operator_restart_at_s=maybe_time(),
        operator_throttle_at_s=maybe_time(),
        launch_attempts_per_s=draw(st.floats(0.0, 10.0)),
        report_interval_s=draw(st.floats(min(30.0, horizon), min(900.0, horizon))),
        horizon_s=horizon,
        seed=draw(st.integers(0, 2**32)),
    )


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cfg=small_configs())
def test_any_valid_config_runs_and_keeps_its_invariants(cfg):
    r = run(cfg)
    ts, s, n = r.timeseries, r.summary, cfg.fleet_droplets_count
    assert ts["leased_count"].between(0, n).all()
    assert (ts.drop(columns="time_s") >= 0).all().all()
    assert ts["time_s"].is_monotonic_increasing and ts["time_s"].iloc[-1] == cfg.horizon_s
    assert r.events["time_s"].is_monotonic_increasing
    assert r.events["time_s"].between(0, cfg.horizon_s).all()
    assert s.goodput_count + s.wasted_count <= s.started_count
    assert s.goodput_count <= s.started_count
    assert 0.0 <= s.wasted_fraction <= 1.0
    assert s.insufficient_capacity_count <= s.launch_attempts_count
    assert s.recovered == (s.recovered_at_s is not None)
    if s.recovered:
        assert cfg.outage_end_s <= s.recovered_at_s <= cfg.horizon_s
        assert math.isclose(s.recovery_after_outage_s, s.recovered_at_s - cfg.outage_end_s)
    if cfg.throttle_by_queue_length:
        assert s.peak_queue_count <= max(cfg.queue_limit_count, 1) * cfg.dwfm_hosts_count


# --- sweeps -------------------------------------------------------------------------------------

SMALL_SWEEP = {"fleet_sizes": (200, 1_800), "outage_lengths_s": (1_800.0, 9_420.0)}


def test_sweep_maps_the_metastable_region():
    df = dwfm.phase_sweep(**SMALL_SWEEP)
    assert list(df.columns) == [
        "throttle_by_queue_length",
        "fleet_droplets_count",
        "outage_s",
        "recovered",
        "recovered_at_s",
        "recovery_after_outage_s",
        "peak_queue_count",
        "goodput_count",
        "wasted_count",
        "wasted_fraction",
    ]
    assert len(df) == 8
    off = df[~df["throttle_by_queue_length"]].set_index(["fleet_droplets_count", "outage_s"])["recovered"]
    assert off.to_dict() == {(200, 1800.0): True, (200, 9420.0): True, (1800, 1800.0): True, (1800, 9420.0): False}
    assert df[df["throttle_by_queue_length"]]["recovered"].all()
    assert df.loc[~df["recovered"], "recovered_at_s"].isna().all()


def test_sweep_same_result_through_a_process_pool():
    with ProcessPoolExecutor(max_workers=2) as pool:
        pooled = dwfm.phase_sweep(**SMALL_SWEEP, executor=pool)
        grid_pooled = dwfm.explorer_grid(fleet_sizes=(200, 1_800), executor=pool)
    pd.testing.assert_frame_equal(pooled, dwfm.phase_sweep(**SMALL_SWEEP))
    pd.testing.assert_frame_equal(grid_pooled, dwfm.explorer_grid(fleet_sizes=(200, 1_800)))


def test_explorer_grid_is_small_and_complete():
    grid = dwfm.explorer_grid()
    assert len(grid) < 5_000
    assert set(grid["throttle_by_queue_length"]) == {False, True}
    assert set(grid["fleet_droplets_count"]) == set(dwfm.EXPLORER_FLEETS)
    assert grid["leased_fraction"].between(0, 1).all()


# --- charts and widgets -------------------------------------------------------------------------


def test_charts_show_the_model_output():
    from labsupport import charts

    r = run(INCIDENT)
    spec = charts.dwfm_timeseries_chart(r.timeseries, outage_s=(0.0, 9_420.0), operator_at_s=15_960.0).to_dict()
    assert spec["title"] and spec["description"]
    spec = charts.dwfm_phase_chart(dwfm.phase_sweep(**SMALL_SWEEP)).to_dict()
    assert spec["description"]
    spec = charts.dwfm_explorer_chart(dwfm.explorer_grid(fleet_sizes=(200, 1_800))).to_dict()
    params = {p["name"]: p["bind"]["input"] for p in spec["params"]}
    assert params == {"throttle": "checkbox", "fleet": "radio"}
    with pytest.raises(ValueError, match="missing"):
        charts.dwfm_timeseries_chart(pd.DataFrame({"time_s": [0.0]}))


@pytest.mark.parametrize("module", [dwfm], ids=lambda m: m.__name__)
def test_exports_are_sorted_documented_and_present(module):
    assert module.__all__ == sorted(module.__all__)
    for name in module.__all__:
        obj = getattr(module, name)
        if callable(obj):
            assert obj.__doc__ and obj.__doc__.strip(), f"{name} has no docstring"


def test_config_error_is_a_value_error():
    assert issubclass(ConfigError, ValueError)


# --- regressions (adversarial review) ----------------------------------------------------------

#: One host that starts 10,000 items per round, every one wasted (deadline < work): a round is a
#: single simulation step but 10,000 Python operations. It took minutes when max_events counted steps.
_HUGE_ROUNDS = replace(
    INCIDENT,
    fleet_droplets_count=100_000,
    dwfm_hosts_count=1,
    host_concurrency_count=10_000,
    lease_establish_s=0.01,
    work_deadline_s=0.001,
    operator_throttle_at_s=None,
    operator_restart_at_s=None,
)


def test_max_events_counts_work_items_not_only_simulation_steps():
    # Five seconds after the outage: a third of a million items, but only ~1,300 simulation steps.
    short = replace(_HUGE_ROUNDS, horizon_s=9_425.0, report_interval_s=300.0)
    done = run(short)
    assert done.summary.started_count >= 300_000  # the items were really worked on...
    assert done.summary.started_count <= short.max_events  # ...and every one counted against the bound
    with pytest.raises(LimitExceeded, match="units of work") as err:
        run(replace(short, max_events=200_000))  # far more steps than the run has, fewer items
    assert "max_events" in str(err.value)


def test_the_reported_huge_round_config_stops_at_its_bound():
    with pytest.raises(LimitExceeded, match="max_events"):
        run(replace(_HUGE_ROUNDS, max_events=200_000))


def test_max_events_is_capped_so_that_memory_stays_bounded():
    assert replace(INCIDENT, max_events=10_000_000).max_events == 10_000_000
    with pytest.raises(ConfigError, match="max_events"):
        replace(INCIDENT, max_events=10**9)


def test_numpy_integers_are_stored_as_plain_ints():
    import numpy as np

    small = replace(SMALL_FLEET, fleet_droplets_count=300, horizon_s=7_200.0, outage_end_s=1_800.0)
    cfg = replace(small, seed=np.int64(1), fleet_droplets_count=np.int64(300), dwfm_hosts_count=np.int32(8))
    assert type(cfg.seed) is int and type(cfg.fleet_droplets_count) is int and type(cfg.dwfm_hosts_count) is int
    assert run(cfg).events.to_csv() == run(replace(small, seed=1)).events.to_csv()


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: dwfm.goodput_fraction(None, 0, 1), "timeseries"),
        (lambda: dwfm.goodput_fraction([1, 2], 0, 1), "timeseries"),
        (lambda: dwfm.CLOCK.time_of_day(1e18), "time_s"),
        (lambda: dwfm.CLOCK.time_of_day(10**400), "time_s"),
        (lambda: dwfm.phase_sweep(fleet_sizes=None), "fleet_sizes"),
        (lambda: dwfm.phase_sweep(fleet_sizes=5), "fleet_sizes"),
        (lambda: dwfm.phase_sweep(fleet_sizes="600"), "fleet_sizes"),
        (lambda: dwfm.phase_sweep(outage_lengths_s=None), "outage_lengths_s"),
        (lambda: dwfm.phase_sweep(throttle=True), "throttle"),
        (lambda: dwfm.explorer_grid(fleet_sizes=None), "fleet_sizes"),
    ],
)
def test_bad_arguments_raise_a_value_error_naming_them(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_clock_time_of_day_reads_times_up_to_a_year():
    assert dwfm.CLOCK.time_of_day(0) == "11:48 PM"
    assert dwfm.CLOCK.time_of_day(365 * 86_400.0) == "11:48 PM"


def test_the_last_row_is_at_the_horizon_after_every_event_there():
    # Events at exactly horizon_s happen; the last time-series row is taken after them.
    result = run(replace(ONE, work_deadline_s=9.999))
    assert result.events["time_s"].max() == 1_000.0
    assert result.timeseries["time_s"].iloc[-1] == 1_000.0 and result.timeseries["time_s"].is_unique
    assert int(result.timeseries["started_count"].sum()) == result.summary.started_count == 71


def test_each_retry_policy_is_a_strategy_of_the_engine():
    assert tuple(engine.RETRY_STRATEGIES) == dwfm.RETRY_POLICIES
    for policy, method in engine.RETRY_STRATEGIES.items():
        assert callable(getattr(engine._Model, method)) and policy in getattr(engine._Model, method).__doc__
