"""The capstone chain: composition, stop points, operator rules, calibration, sweeps, charts, widget."""

from __future__ import annotations

import hashlib
import math
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labsupport import chain, charts, dns_cache, dwfm, network, race, timeline, widgets
from labsupport.chain import INCIDENT, STAGES, ChainConfig, StopPoints
from labsupport.errors import ConfigError, LimitExceeded


def with_points(*numbers: int, base: ChainConfig = INCIDENT) -> ChainConfig:
    return replace(base, stop_points=StopPoints.of(*numbers))


@pytest.fixture(scope="module")
def incident():
    return chain.run(INCIDENT)


@pytest.fixture(scope="module")
def table():
    return chain.stop_point_table()


@pytest.fixture(scope="module")
def single(table):
    return {row["stop_points"]: row for row in table.to_dict("records")}


# --- stop points and config ------------------------------------------------------------------


def test_stop_points_label_numbers_and_of():
    sp = StopPoints.of(1, 5)
    assert sp.guards.check_version_on_write and sp.throttle_recovery_work and not sp.guards.self_repair
    assert sp.numbers() == (1, 5) and sp.label() == "1+5"
    assert StopPoints().label() == "none"
    assert chain.STOP_POINT_NAMES[4] == "throttle_recovery_work"
    with pytest.raises(ConfigError, match="stop point"):
        StopPoints.of(7)
    with pytest.raises(ConfigError, match="self_repair"):
        StopPoints(guards=race.Guards(self_repair=1))


def test_levers_cover_all_six_points_and_name_aws_fixes():
    levers = chain.stop_point_levers()
    assert sorted(set(levers["point"])) == [1, 2, 3, 4, 5, 6]
    five = levers[levers["point"] == 5]
    assert set(five["lever"]) == {
        "DwfmConfig.throttle_by_queue_length",
        "NetworkConfig.max_queue_count",
        "NlbConfig.limit_capacity_removal",
    }
    assert "test suite" in five.loc[five["model"] == "dwfm", "aws_fix"].iloc[0]
    assert levers.loc[levers["point"] == 6, "aws_fix"].iloc[0] == "none announced"


def test_operator_delays_are_pes_intervals():
    d = timeline.durations()
    assert INCIDENT.dwfm_operator_delay_s == d.at["dwfm_to_intervention", "duration"].total_seconds()
    assert INCIDENT.nlb_disable_delay_s == d.at["nlb_detect_to_failover_off", "duration"].total_seconds()
    assert INCIDENT.ec2_throttle_relax_s == 3 * 3600 + 14 * 60  # 10:36 AM to 1:50 PM
    assert INCIDENT.nlb_reenable_delay_s == 19 * 60  # 1:50 PM to 2:09 PM


@pytest.mark.parametrize(
    "field, value",
    [
        ("race_lead_s", -1.0),
        ("race_lead_s", math.nan),
        ("dwfm_operator_delay_s", math.inf),
        ("backlog_per_unleased_droplet_hour", -0.1),
        ("retry_launches_per_refused_launch", True),
        ("network_queue_limit_count", 0),
        ("network_queue_limit_count", 2.5),
        ("nlb_disable_delay_s", "1 h"),
        ("seed", -3),
        ("stop_points", (True,) * 6),
        ("race", dwfm.INCIDENT),
        ("nlb", None),
    ],
)
def test_config_rejects_bad_values_naming_the_field(field, value):
    with pytest.raises(ConfigError, match=field):
        replace(INCIDENT, **{field: value})


def test_config_rejects_operators_beyond_the_dwfm_horizon():
    with pytest.raises(ConfigError, match="dwfm_operator_delay_s"):
        replace(INCIDENT, dwfm_operator_delay_s=50_000.0)


@settings(max_examples=60, deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True, width=32))
def test_any_float_is_either_accepted_or_refused_cleanly(value):
    try:
        cfg = replace(INCIDENT, backlog_per_unleased_droplet_hour=value)
    except ConfigError:
        assert not (0 <= value <= 1_000)
    else:
        assert 0 <= cfg.backlog_per_unleased_droplet_hour <= 1_000


def test_run_rejects_other_configs():
    with pytest.raises(ValueError, match="ChainConfig"):
        chain.run(race.INCIDENT)


# --- the incident and its calibration ---------------------------------------------------------


def test_calibration_every_boundary_within_20_percent(incident):
    cal = chain.calibration(incident)
    targets = timeline.durations()
    assert set(cal["interval"]) == {
        "whole_event",
        "dynamodb_errors",
        "dns_empty",
        "dwfm_all_leases",
        "launch_failures",
        "nlb_period",
    }
    for row in cal.itertuples():
        assert row.pes_s == targets.at[row.interval, "duration"].total_seconds()
        assert abs(row.model_s / row.pes_s - 1) <= 0.2, row
    assert cal["within_tolerance"].all()


def test_calibrated_factors_hand_network_its_own_preset(incident):
    s = incident.summary
    assert s.backlog_count == network.INCIDENT.backlog_count
    assert abs(s.retry_launches_count - network.INCIDENT.retry_launches_count) <= 1
    # The race's empty record falls at 11:48 PM on the chain clock.
    assert abs(incident.stages["start_s"].iloc[0]) < 60
    assert chain.CLOCK.time_of_day(incident.stages["start_s"].iloc[0]) == "11:48 PM"


def test_incident_stages_in_order_and_total_is_their_span(incident):
    st_ = incident.stages
    assert list(st_["stage"].astype(str)) == list(STAGES)
    assert (st_["end_s"] > st_["start_s"]).all()
    assert list(st_["start_s"]) == sorted(st_["start_s"])
    s = incident.summary
    assert s.total_s == pytest.approx(st_["end_s"].max() - st_["start_s"].min())
    assert s.total_s >= max(s.dynamodb_s, s.launches_s, s.nlb_s)
    assert not s.truncated and s.dwfm_operators_acted and s.nlb_failover_disabled
    assert st_["peak_impact_fraction"].min() > 0 and st_["peak_impact_fraction"].max() <= 1


def test_stages_come_from_the_models(incident):
    runs, s = incident.runs, incident.summary
    restore = runs.race.summary.repaired_at_s - INCIDENT.race_lead_s
    assert incident.stages["end_s"].iloc[0] == pytest.approx(restore + runs.dns.summary.recovery_most_s)
    assert runs.dwfm.config.outage_end_s == pytest.approx(restore)
    assert s.leases_back_after_dns_s == pytest.approx(runs.dwfm.summary.recovered_at_s - restore)
    assert s.propagation_normal_at_s == pytest.approx(
        runs.dwfm.summary.recovered_at_s + runs.network.summary.propagation_normal_s
    )
    assert runs.nlb.config.network.backlog_count == s.backlog_count


def test_operator_rules_follow_the_model_state(incident):
    m = incident.milestones.set_index("milestone")["time_s"]
    restore = incident.runs.dwfm.config.outage_end_s
    assert m["operators throttle work and restart DWFM hosts"] == pytest.approx(
        restore + INCIDENT.dwfm_operator_delay_s
    )
    assert m["operators disable automatic AZ failover"] == pytest.approx(
        m["first AZ failover (detected)"] + INCIDENT.nlb_disable_delay_s
    )
    assert m["EC2 recovered"] == pytest.approx(m["network propagation normal again"] + INCIDENT.ec2_throttle_relax_s)
    assert incident.stages["end_s"].iloc[-1] == pytest.approx(m["EC2 recovered"] + INCIDENT.nlb_reenable_delay_s)


def test_the_rules_are_the_default_operators_of_the_one_pipeline(incident):
    ruled = chain.run(INCIDENT, operators=chain.RULES)
    assert ruled.summary == incident.summary and ruled.times == incident.times
    assert ruled.stages.equals(incident.stages) and ruled.milestones.equals(incident.milestones)


def test_operator_actions_reach_each_model_on_its_own_clock():
    ops = chain.OperatorActions(
        dns_repair_at_s=9_420.0,
        ec2_throttle_at_s=15_960.0,
        dwfm_restart_at_s=15_960.0,
        network_throttle_at_s=32_100.0,
        network_throttle_relaxed_at_s=41_700.0,
        ec2_throttle_relaxed_at_s=41_700.0,
        failover_disabled_at_s=10_000.0,  # before the NLB's run starts: in force from its start
        failover_reenabled_at_s=51_660.0,
    )
    r = chain.run(INCIDENT, operators=ops)
    back = r.times.leases_back_s
    assert r.runs.dwfm.config.operator_throttle_at_s == r.runs.dwfm.config.operator_restart_at_s == 15_960.0
    net = r.runs.network.config
    assert (net.shed_load_at_s, net.shed_load_until_s) == (32_100.0 - back, 41_700.0 - back)
    nlb_cfg = r.runs.nlb.config
    assert (nlb_cfg.disable_failover_at_s, nlb_cfg.reenable_failover_at_s) == (0.0, 51_660.0 - back)
    assert (r.times.failover_disabled_s, r.times.failover_reenabled_s) == (back, 51_660.0)
    assert r.times.ec2_recovered_s == max(r.times.propagation_normal_s, 41_700.0) + ops.unwind_s
    assert set(r.milestones["source"]) - {"race", "dns_cache", "dwfm", "network", "nlb"} == {"operators"}


@pytest.mark.parametrize(
    "fields, named",
    [
        ({"ec2_throttle_relaxed_at_s": 100.0}, "ec2_throttle_relaxed_at_s"),
        ({"network_throttle_at_s": 200.0, "network_throttle_relaxed_at_s": 100.0}, "network_throttle_relaxed_at_s"),
        ({"failover_reenabled_at_s": 100.0}, "failover_reenabled_at_s"),
    ],
)
def test_operator_actions_refuse_an_end_without_its_start(fields, named):
    with pytest.raises(ConfigError, match=named):
        chain.OperatorActions(**fields)


def test_a_longer_dns_outage_moves_every_later_stage(incident):
    slow = replace(race.INCIDENT, manual_repair_after_s=race.INCIDENT.manual_repair_after_s + 1800)
    with pytest.raises(LimitExceeded, match=r"race.horizon_s"):
        chain.run(replace(INCIDENT, race=slow))  # still empty when the race model stops
    r = chain.run(replace(INCIDENT, race=replace(slow, horizon_s=4 * 3600.0)))
    assert r.summary.dns_empty_s == pytest.approx(incident.summary.dns_empty_s + 1800)
    for a, b in zip(r.stages["start_s"].iloc[1:], incident.stages["start_s"].iloc[1:], strict=True):
        assert a > b
    assert r.summary.total_s > incident.summary.total_s


def test_events_are_tidy_and_typed(incident):
    ev = incident.events
    assert list(ev.columns) == ["time_s", "kind", "stage", "detail"]
    assert str(ev["time_s"].dtype) == "float64" and list(ev["kind"].cat.categories) == list(chain.EVENT_KINDS)
    assert ev["time_s"].is_monotonic_increasing
    assert (ev["kind"] == "operator_action").sum() == 4  # rules A, B and C (twice)
    assert str(incident.impact["stage"].dtype) == "category" and len(incident.impact) < 5000


# --- the stop points ---------------------------------------------------------------------------


@pytest.mark.parametrize("point", [1, 2, 3])
def test_points_1_to_3_alone_remove_every_stage(single, point):
    row = single[str(point)]
    assert row["total_s"] == 0 and math.isnan(row["dynamodb_start_s"]) and row["outside_region_failures_count"] == 0


def test_point_3_stops_it_with_an_alert():
    r = chain.run(with_points(3))
    assert r.stages.empty
    assert "guard 3 refuses an empty change and alerts" in set(r.milestones["milestone"])


def test_point_4_leaves_only_the_dns_caches(incident):
    r = chain.run(with_points(4))
    assert list(r.stages["stage"].astype(str)) == [STAGES[0]]
    assert r.summary.dns_empty_s < 120  # about one Enactor cycle
    neg = dns_cache.INCIDENT.negative_ttl_s
    assert neg <= r.summary.dynamodb_s < neg + 600  # clients keep the cached empty answer
    assert r.runs.dwfm.summary.leases_lost_count == 0


def test_point_5_alone_shortens_the_post_dns_stages(incident, single):
    five = single["5"]
    assert five["dynamodb_s"] == pytest.approx(incident.summary.dynamodb_s)
    assert five["launches_s"] < incident.summary.launches_s
    assert five["nlb_s"] < incident.summary.nlb_s
    assert not five["dwfm_operators_acted"] and five["total_s"] < incident.summary.total_s


def test_point_6_changes_only_what_fails_elsewhere(incident, single):
    six = single["6"]
    assert six["total_s"] == pytest.approx(incident.summary.total_s)
    assert incident.summary.outside_region_failures_count > 0
    assert six["outside_region_failures_count"] == 0 and six["outside_region_impact_s"] == 0


def test_table_has_64_ranked_rows_with_consistent_stages(table):
    assert len(table) == 64 and table["stop_points"].is_unique
    assert table["total_s"].is_monotonic_increasing and table["rank"].iloc[0] == 1
    for row in table.to_dict("records"):
        spans = [(row[f"{s}_start_s"], row[f"{s}_end_s"]) for s in ("dynamodb", "launches", "nlb")]
        spans = [(a, b) for a, b in spans if not math.isnan(a)]
        if spans:
            assert row["total_s"] == pytest.approx(max(b for _, b in spans) - min(a for a, _ in spans))
            assert [a for a, _ in spans] == sorted(a for a, _ in spans)
        else:
            assert row["total_s"] == 0
        if row["isolate_regions"]:
            assert row["outside_region_failures_count"] == 0
    assert table.loc[table["stop_points"] == "1+2+3+4+5+6", "total_s"].iloc[0] == 0


def test_best_single_points_are_the_ones_that_keep_the_record(table):
    savings = chain.single_point_savings(table)
    guards = race.guard_table().set_index("guards")["regional_empty_s"]
    never_empty = {p for p in (1, 2, 3, 4) if guards[str(p)] == 0}
    assert set(savings.loc[savings["best"], "point"]) == never_empty
    assert savings["saved_s"].is_monotonic_decreasing
    with pytest.raises(ValueError, match="missing the rows"):
        chain.single_point_savings(table[table["stop_points"] != "4"])


def test_calibration_refuses_a_run_with_stop_points():
    with pytest.raises(ValueError, match="no stop points"):
        chain.calibration(chain.run(with_points(6)))


# --- determinism and sweeps ----------------------------------------------------------------------


def _digest(result: chain.ChainResult) -> str:
    text = result.events.to_csv() + result.stages.to_csv() + result.impact.to_csv()
    return hashlib.sha256(text.encode()).hexdigest()


def test_same_config_same_tables(incident):
    assert _digest(chain.run(INCIDENT)) == _digest(incident)


def test_seed_field_draws_every_model_seed_from_one_generator():
    a, b = chain.run(replace(INCIDENT, seed=7)), chain.run(replace(INCIDENT, seed=7))
    assert _digest(a) == _digest(b)
    assert a.runs.dwfm.config.seed != dwfm.INCIDENT.seed and a.runs.nlb.config.seed != INCIDENT.nlb.seed
    assert a.runs.race.config.seed == race.INCIDENT.seed  # the race keeps the fault that fired
    assert _digest(chain.run(replace(INCIDENT, seed=8))) != _digest(a)


def test_identical_across_processes_with_different_hash_seeds(incident):
    code = (
        "import hashlib; from labsupport import chain; r = chain.run();"
        "print(hashlib.sha256((r.events.to_csv() + r.stages.to_csv() + r.impact.to_csv()).encode()).hexdigest())"
    )
    outs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout.strip()
        for seed in ("1", "2")
    }
    assert outs == {_digest(incident)}


def test_sweep_identical_with_any_executor(table):
    configs = [with_points(), with_points(4), with_points(5, 6), with_points(6)]
    here = chain.sweep(configs)
    with ThreadPoolExecutor(2) as pool:
        assert chain.sweep(configs, executor=pool).equals(here)
    with ProcessPoolExecutor(2) as pool:
        assert chain.sweep(configs[:2], executor=pool).equals(here.iloc[:2])
    by_label = table.set_index("stop_points")
    assert here["total_s"].tolist() == [by_label.at[x, "total_s"] for x in ("none", "4", "5+6", "6")]


@pytest.mark.parametrize("bad, match", [("abc", "iterable"), ([race.INCIDENT], "ChainConfig")])
def test_sweep_rejects_bad_input(bad, match):
    with pytest.raises(ValueError, match=match):
        chain.sweep(bad)


def test_sweep_rejects_a_non_executor():
    with pytest.raises(ValueError, match="Executor"):
        chain.sweep([INCIDENT], executor=object())


# --- charts and the widget ------------------------------------------------------------------------


def test_timeline_chart_shows_both_runs(incident):
    five = chain.run(with_points(5))
    spec = charts.chain_timeline_chart(five.stages, reference=incident.stages).to_dict()
    assert spec["title"] and "5 h" in spec["description"] and "14 h" in spec["description"]
    empty = charts.chain_timeline_chart(chain.run(with_points(1)).stages, reference=incident.stages).to_dict()
    assert "no stage at all" in empty["description"]
    with pytest.raises(ValueError, match="missing"):
        charts.chain_timeline_chart(incident.stages.drop(columns=["end_s"]))


def test_explorer_chart_has_six_bound_checkboxes(table):
    spec = charts.chain_explorer_chart(table).to_dict()
    params = [p for p in spec.get("params", []) if "bind" in p]
    assert [p["name"] for p in params] == [f"p{i}" for i in range(1, 7)]
    assert all(p["bind"]["input"] == "checkbox" for p in params)
    with pytest.raises(ValueError, match="64"):
        charts.chain_explorer_chart(table.iloc[:10])


def test_other_chain_charts_build(incident, table):
    for c in (
        charts.chain_impact_chart(incident.impact),
        charts.chain_savings_chart(chain.single_point_savings(table)),
    ):
        spec = c.to_dict()
        assert spec["title"] and spec["description"]


def test_panel_redraws_with_the_incident_beside_the_choice():
    panel = widgets.chain_panel()
    assert list(panel.controls) == list(chain.STOP_POINT_NAMES)
    text, chart, stages = panel.update(**{**panel.values(), "throttle_recovery_work": True})
    assert "Stop points on:** 5" in text.data and len(stages) == 3
    assert "Incident" in chart.to_dict()["description"]


# --- regressions (adversarial review) ----------------------------------------------------------


def test_numpy_seed_is_stored_as_a_plain_int_and_runs():
    import numpy as np

    cfg = ChainConfig(seed=np.int64(1))
    assert type(cfg.seed) is int
    assert chain.run(cfg).summary == chain.run(ChainConfig(seed=1)).summary


@pytest.mark.parametrize(
    "field, value, produced",
    [
        ("backlog_per_unleased_droplet_hour", 1_000.0, "backlog_count="),
        ("retry_launches_per_refused_launch", 100.0, "retry_launches_count="),
    ],
)
def test_a_factor_too_large_for_network_names_the_chain_field(field, value, produced):
    with pytest.raises(ConfigError) as err:
        chain.run(replace(INCIDENT, **{field: value}))
    message = str(err.value)
    assert message.startswith(f"{field}=") and produced in message and "1,000,000" in message


def test_a_factor_past_network_max_events_is_a_limit_naming_the_chain_field():
    with pytest.raises(LimitExceeded, match=r"backlog_per_unleased_droplet_hour=30 .*nlb.network.max_events"):
        chain.run(replace(INCIDENT, backlog_per_unleased_droplet_hour=30.0))


@pytest.mark.parametrize("lead", [400.0, 9_000.0, 10_000.0])
def test_race_lead_past_the_empty_record_is_refused_not_clipped(lead):
    # The race empties the endpoint 310 s into its run: a longer lead would put it before t = 0.
    with pytest.raises(ConfigError, match="race_lead_s"):
        chain.run(replace(INCIDENT, race_lead_s=lead))


def test_a_shorter_race_lead_shifts_the_whole_outage_and_keeps_its_length(incident):
    r = chain.run(replace(INCIDENT, race_lead_s=300.0))
    outage = r.runs.dwfm.config
    assert outage.outage_end_s - outage.outage_start_s == pytest.approx(r.summary.dns_empty_s)
    assert outage.outage_start_s == pytest.approx(incident.runs.dwfm.config.outage_start_s + 10.0)
    assert r.summary.dynamodb_s == pytest.approx(incident.summary.dynamodb_s, abs=120.0)


def test_clock_time_of_day_names_time_s_for_an_absurd_time():
    with pytest.raises(ValueError, match="time_s"):
        chain.CLOCK.time_of_day(1e18)
    assert chain.CLOCK.time_of_day(0.0) == "11:48 PM"
