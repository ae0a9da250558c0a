"""Tests of the exhaustive explorer (labsupport.explore), its charts, its panel and its replay in race."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labsupport import charts, explore
from labsupport.errors import ConfigError, LimitExceeded
from labsupport.explore import GUARDS, INCIDENT, ExploreConfig, run, verdict_table
from labsupport.explore import engine as proto
from labsupport.race import Guards

TINY = replace(INCIDENT, enactor_count=1, generation_count=2, cleanup_keep_generations=0)
PAIR = replace(TINY, enactor_count=2)


# --- config validation ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "field, value, allowed",
    [
        ("enactor_count", 0, ">= 1 and <= 3"),
        ("enactor_count", 4, ">= 1 and <= 3"),
        ("generation_count", 1, ">= 2 and <= 6"),
        ("generation_count", 7, ">= 2 and <= 6"),
        ("endpoint_count", 3, ">= 1 and <= 2"),
        ("cleanup_keep_generations", -1, ">= 0 and <= 4"),
        ("cleanup_keep_generations", 5, ">= 0 and <= 4"),
        ("max_states", 0, ">= 1 and <= 3000000"),
        ("max_states", 3_000_001, ">= 1 and <= 3000000"),
    ],
)
def test_out_of_bounds_config_names_field_value_and_range(field, value, allowed):
    with pytest.raises(ValueError) as err:
        replace(INCIDENT, **{field: value})
    assert isinstance(err.value, ConfigError)
    assert field in str(err.value) and repr(value) in str(err.value) and allowed in str(err.value)


@pytest.mark.parametrize(
    "field, value",
    [
        ("enactor_count", True),
        ("generation_count", 3.0),
        ("endpoint_count", "1"),
        ("self_repair", 1),
        ("check_version_on_write", None),
        ("reduce_symmetry", "yes"),
        ("guards", "1+3"),
    ],
)
def test_wrong_types_are_rejected(field, value):
    with pytest.raises(ConfigError, match=field):
        if field in GUARDS:
            replace(INCIDENT, guards=replace(INCIDENT.guards, **{field: value}))
        else:
            replace(INCIDENT, **{field: value})


def test_run_rejects_a_config_of_another_kind():
    with pytest.raises(ConfigError, match="ExploreConfig"):
        run({"enactor_count": 3})  # type: ignore[arg-type]


# --- tiny state spaces, counted by hand ----------------------------------------------------------


def test_one_enactor_two_plans_has_six_states_in_a_line():
    # (newest, alias, rollback, trees, enactor): produce 2, pick 2, check, write 2 (alias 2,
    # rollback 1, trees {1,2}), delete tree 1, idle with plan 2 applied. One path, 6 states.
    s = run(TINY).summary
    assert (s.states_count, s.transitions_count, s.depth_count) == (6, 5, 5)
    assert s.safe and s.recovers and not s.stale_overwrite_reachable
    assert run(TINY).events.empty and run(TINY).stuck_path.empty


def test_two_enactors_two_plans_counted_by_hand():
    # Enumerated on paper with the Enactors interchangeable: 16 states; 25 enabled steps (a state
    # where both Enactors can take the same kind of step counts both); the longest shortest path
    # is 8 steps. Six states have both Enactors in the same local state (start, plan 2 made, both
    # picked, both writing, both cleaning up, both done); telling the Enactors apart turns each of
    # the other ten into two states.
    s = run(PAIR).summary
    assert (s.states_count, s.transitions_count, s.depth_count) == (16, 25, 8)
    assert run(replace(PAIR, reduce_symmetry=False)).summary.states_count == 6 + 2 * 10
    assert s.safe and s.recovers


def test_two_plans_cannot_race_even_unguarded():
    # With plans 1 and 2 only, nothing is ever stale: every Enactor applies plan 2.
    s = run(replace(PAIR, enactor_count=3)).summary
    assert s.safe and not s.stale_overwrite_reachable


def test_initial_state_and_first_steps():
    s0 = proto.initial(2, 1)
    assert s0 == (1, 1, 1, 0b10, 1 << 9, 1 << 9)
    steps = proto.successors(
        s0,
        proto.Params(endpoint_count=1, generation_count=2, cleanup_keep_generations=0, guards=Guards()),
    )
    assert [(t.actor, t.kind, t.plan) for t in steps] == [(-1, "plan produced", 2)]


# --- the incident: shortest counterexample -------------------------------------------------------


@pytest.fixture(scope="module")
def incident():
    return run(INCIDENT)


def test_unguarded_protocol_violates_safety_and_gets_stuck(incident):
    s = incident.summary
    assert not s.safe and not s.recovers
    assert s.violating_states_count > 0 and s.stuck_states_count > 0
    assert {"stale_write", "delete_active", "inconsistent"} <= set(s.reachable_actions)


def test_counterexample_is_the_october_sequence(incident):
    ev = incident.events
    assert list(ev["step"]) == list(range(1, len(ev) + 1))
    roles = ev.loc[ev["role"] != "", ["role", "actor", "plan_generation"]]
    assert list(roles["role"]) == ["stale check", "stale overwrite", "active plan deleted"]
    check, overwrite, delete = (roles.iloc[i] for i in range(3))
    assert check["actor"] == overwrite["actor"] != delete["actor"]
    assert check["plan_generation"] == overwrite["plan_generation"] == delete["plan_generation"]
    assert list(ev["empty_after"]) == [False] * (len(ev) - 1) + [True]
    # Between the stale Enactor's check and its write, the other Enactor applied a newer plan.
    between = ev.iloc[ev.index[ev["role"] == "stale check"][0] : ev.index[ev["role"] == "stale overwrite"][0]]
    newer = between.loc[(between["race_action"] == "write") & (between["actor"] == delete["actor"])]
    assert (newer["plan_generation"] > overwrite["plan_generation"]).all() and len(newer) == 1


def test_counterexample_is_shortest_with_or_without_symmetry(incident):
    plain = run(replace(INCIDENT, reduce_symmetry=False))
    assert plain.summary.counterexample_steps_count == incident.summary.counterexample_steps_count
    assert plain.summary.safe == incident.summary.safe and plain.summary.recovers == incident.summary.recovers
    assert incident.summary.states_count < plain.summary.states_count


def test_replaying_the_counterexample_step_by_step_reaches_the_empty_state(incident):
    # An independent replay through the transition function, matching by the table's columns.
    p = proto.Params(1, 4, 1, Guards())
    state = proto.initial(3, 1)
    for row in incident.events.itertuples():
        actor = -1 if row.actor == "planner" else proto.ENACTOR_NAMES.index(row.actor)
        options = [
            t
            for t in proto.successors(state, p)
            if (t.actor, t.race_action, t.plan) == (actor, row.race_action, row.plan_generation)
        ]
        assert len(options) == 1
        state = options[0].state
        assert proto.violates(state, 1) == row.empty_after


def test_stuck_path_ends_in_a_state_that_cannot_recover(incident):
    sp = incident.stuck_path
    assert len(sp) == incident.summary.stuck_path_steps_count > 0
    assert sp["empty_after"].iat[-1]


def test_same_config_same_tables(incident):
    again = run(INCIDENT)
    # The summary too is a function of the config alone: no wall-clock time in it (issue 42; the
    # benchmark times the check).
    assert again.summary == incident.summary
    assert again.events.to_csv() == incident.events.to_csv()
    assert again.stuck_path.to_csv() == incident.stuck_path.to_csv()


# --- verdicts per guard --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def table():
    return verdict_table()


def test_verdict_table_shape_and_order(table):
    assert len(table) == 16 and table["guards"].is_unique
    assert list(table["guards"][:5]) == ["none", "1", "2", "3", "4"] and table["guards"].iat[-1] == "1+2+3+4"
    assert str(table["states_count"].dtype) == "int64" and table["safe"].dtype == bool


@pytest.mark.parametrize("guard", ["check_version_on_write", "delete_only_unreferenced"])
def test_guard_1_or_2_alone_makes_it_safe(table, guard):
    row = table.loc[table["guards"] == str(GUARDS.index(guard) + 1)].iloc[0]
    assert row["safe"] and row["recovers"] and not row["empty_reachable"]


def test_guard_4_alone_leaves_safety_violated_but_removes_stuck_states(table):
    row = table.loc[table["guards"] == "4"].iloc[0]
    assert not row["safe"] and row["recovers"] and row["stuck_states_count"] == 0


def test_guard_3_alone_is_safe_by_refusing_the_delete_with_an_alert(table):
    row = table.loc[table["guards"] == "3"].iloc[0]
    assert row["safe"] and row["recovers"] and row["alert_reachable"] and row["stale_overwrite_reachable"]


def test_only_guard_1_prevents_the_stale_overwrite_itself(table):
    for _, row in table.iterrows():
        assert row["stale_overwrite_reachable"] == (not row["check_version_on_write"])


def test_pattern_of_all_sixteen_rows(table):
    g1, g2, g3, g4 = (table[g] for g in GUARDS)
    assert (table["safe"] == (g1 | g2 | g3)).all()
    assert (table["recovers"] == (g1 | g2 | g3 | g4)).all()
    assert (table["counterexample_steps_count"] > 0).eq(~table["safe"]).all()


def test_verdicts_hold_at_larger_bounds_too():
    t = verdict_table(replace(INCIDENT, enactor_count=2, endpoint_count=2, generation_count=5))
    g1, g2, g3, g4 = (t[g] for g in GUARDS)
    assert (t["safe"] == (g1 | g2 | g3)).all() and (t["recovers"] == (g1 | g2 | g3 | g4)).all()


def test_one_enactor_is_always_safe():
    for guards in ({}, {"self_repair": True}):
        s = run(replace(INCIDENT, enactor_count=1, generation_count=6, guards=Guards(**guards))).summary
        assert s.safe and s.recovers and not s.stale_overwrite_reachable


def test_executor_gives_the_same_table(table):
    with ThreadPoolExecutor(max_workers=2) as pool:
        threaded = verdict_table(executor=pool)
    pd.testing.assert_frame_equal(threaded, table)


# --- bounds --------------------------------------------------------------------------------------


def test_max_states_stops_with_a_clear_message():
    with pytest.raises(LimitExceeded, match=r"max_states=100 reached .* enactor_count=3, generation_count=4"):
        run(replace(INCIDENT, max_states=100))


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(1, 3),
    g=st.integers(2, 4),
    e=st.integers(1, 2),
    keep=st.integers(0, 3),
    guards=st.tuples(*[st.booleans()] * 4),
    sym=st.booleans(),
    limit=st.integers(1, 4000),
)
def test_random_small_configs_terminate_within_max_states(n, g, e, keep, guards, sym, limit):
    cfg = ExploreConfig(
        enactor_count=n,
        generation_count=g,
        endpoint_count=e,
        cleanup_keep_generations=keep,
        reduce_symmetry=sym,
        max_states=limit,
        guards=Guards(**dict(zip(GUARDS, guards, strict=True))),
    )
    try:
        res = run(cfg)
    except LimitExceeded as err:
        assert f"max_states={limit}" in str(err)
        return
    s = res.summary
    assert 1 <= s.states_count <= limit and s.transitions_count >= s.states_count - 1
    assert s.safe == res.events.empty == (s.violating_states_count == 0)
    assert s.recovers == res.stuck_path.empty
    assert not (guards[0] or guards[1] or guards[2]) or s.safe  # any of guards 1-3 keeps it safe
    assert not (n == 1 and not s.safe)


# --- charts and panel ----------------------------------------------------------------------------


def test_sequence_chart_draws_the_counterexample(incident):
    spec = charts.explore_sequence_chart(incident.events).to_dict()
    assert spec["title"] and "stale overwrite" in spec["description"]
    rows = [r for layer in spec["layer"] for r in spec["datasets"][layer["data"]["name"]]] if "datasets" in spec else []
    assert rows == [] or any(r.get("actor") == "route53" for r in rows)
    with pytest.raises(ValueError, match="empty"):
        charts.explore_sequence_chart(incident.events.iloc[0:0])


def test_verdict_chart_has_one_row_per_combination(table):
    spec = charts.explore_verdict_chart(table).to_dict()
    data = next(iter(spec["datasets"].values()))
    assert len(data) == 16 * 4 and spec["description"]


def test_panel_reports_verdicts_and_the_bound():
    from labsupport import widgets

    panel = widgets.explore_panel(max_states=5_000)
    values = panel.values()
    out = panel.update(**values)
    # Text verdict, the one-row verdict grid, the counterexample chart and its step table.
    assert "Unsafe" in out[0].data and len(out) == 4
    assert "Safe" in panel.update(**{**values, "delete_only_unreferenced": True})[0].data
    assert "Stopped at the bound" in panel.update(**{**values, "generation_count": 6, "endpoint_count": 2})[0].data


# --- replay in the race simulation ---------------------------------------------------------------


@pytest.fixture(scope="module")
def two_endpoints():
    return run(replace(INCIDENT, endpoint_count=2))


def test_shortest_counterexample_replayed_in_race_reproduces_the_empty_record(two_endpoints):
    from labsupport import race

    cfg = explore.race_replay_config(two_endpoints)
    sim = race.run(cfg)
    replay = explore.race_replay(two_endpoints)
    assert not replay["race_time_s"].isna().any()
    # Each actor did its steps in the explorer's order, and the regional endpoint went empty in the
    # simulation at the moment of the explorer's last step (the deletion of the active plan).
    for _, steps in replay.groupby("actor"):
        assert steps["race_time_s"].is_monotonic_increasing
    last = replay.iloc[-1]
    assert last["race_action"] == "delete_active" and last["race_time_s"] == last["race_endpoint_empty_s"]
    assert sim.summary.active_plan_deleted and sim.summary.stale_overwrites_count >= 1
    assert sim.summary.empty_started_at_s == last["race_time_s"]
    # The dependent steps on the regional endpoint happen in the same order in both.
    regional = replay.loc[replay["endpoint"] == "regional"]
    assert list(regional.sort_values("race_time_s")["step"]) == list(regional["step"])


@pytest.mark.parametrize("guard", ["check_version_on_write", "delete_only_unreferenced", "reject_empty_records"])
def test_the_same_schedule_with_guard_1_2_or_3_leaves_the_endpoint_answering(two_endpoints, guard):
    from labsupport import race

    cfg = replace(explore.race_replay_config(two_endpoints), guards=race.Guards(**{guard: True}))
    s = race.run(cfg).summary
    assert s.regional_empty_s == 0 and not s.active_plan_deleted
    assert (s.alerts_count > 0) == (guard == "reject_empty_records")


def test_the_same_schedule_with_guard_4_repairs_itself(two_endpoints):
    from labsupport import race

    cfg = replace(explore.race_replay_config(two_endpoints), guards=race.Guards(self_repair=True), horizon_s=600.0)
    s = race.run(cfg).summary
    assert s.active_plan_deleted and s.self_repairs_count >= 1 and not s.stuck
    assert 0 < s.regional_empty_s < cfg.horizon_s and math.isfinite(s.regional_empty_s)


def test_replay_needs_the_october_shape(incident):
    with pytest.raises(ValueError, match="endpoint_count=2"):
        explore.race_replay_config(incident)
    with pytest.raises(ValueError):
        explore.race_replay_config(run(replace(INCIDENT, endpoint_count=2, guards=Guards(check_version_on_write=True))))


# --- every state as a table ----------------------------------------------------------------------


def test_states_table_agrees_with_the_summary(incident):
    t = explore.states_table(INCIDENT)
    s = incident.summary
    assert len(t) == s.states_count and t["state_id"].is_monotonic_increasing
    assert int((~t["safe"]).sum()) == s.violating_states_count
    assert int((~t["can_recover"]).sum()) == s.stuck_states_count
    assert (t["safe"] == ~t["regional_empty"]).all()
    assert t["depth"].max() == s.depth_count and t["depth"].is_monotonic_increasing


def test_tiny_state_table_is_the_hand_counted_line():
    t = explore.states_table(TINY)
    assert list(t["newest_plan"]) == [1, 2, 2, 2, 2, 2]
    assert list(t["regional_alias"]) == [1, 1, 1, 1, 2, 2]
    assert list(t["regional_trees"]) == ["1", "1", "1", "1", "1,2", "2"]
    assert list(t["enactors"].str.split(" ").str[0]) == ["idle", "idle", "picked", "writing", "cleaning", "idle"]


def test_only_guard_2_keeps_every_rollback_record_pointing_at_a_tree():
    for guard in GUARDS:
        t = explore.states_table(replace(INCIDENT, guards=Guards(**{guard: True})))
        dangling = [
            str(r) not in trees.split(",") for r, trees in zip(t["regional_rollback"], t["regional_trees"], strict=True)
        ]
        assert any(dangling) == (guard != "delete_only_unreferenced")


def test_tables_do_not_depend_on_the_hash_seed():
    import hashlib
    import os
    import subprocess
    import sys

    code = (
        "import hashlib; from labsupport import explore; r = explore.run(explore.INCIDENT); "
        "print(hashlib.sha256((r.events.to_csv() + r.stuck_path.to_csv()).encode()).hexdigest())"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for seed in ("1", "2")
    }
    res = run(INCIDENT)
    assert digests == {hashlib.sha256((res.events.to_csv() + res.stuck_path.to_csv()).encode()).hexdigest()}


# --- a student's Enactor step (enactor_step), over every interleaving ----------------------------


def step_run(step, **bounds):
    return run(replace(explore.INCIDENT_STEP, enactor_step=step, **bounds))


@pytest.fixture(scope="module")
def incident_step_result():
    return run(explore.INCIDENT_STEP)


def test_the_incident_step_gives_the_october_counterexample_in_its_own_operations(incident_step_result):
    s, ev = incident_step_result.summary, incident_step_result.events
    assert not s.safe and not s.recovers and s.cleans and s.stale_overwrite_reachable
    # The shortest path, pinned: the built-in protocol's 11 steps plus the clean-up's read.
    assert list(zip(ev["actor"], ev["operation"], strict=True)) == [
        ("planner", ""),
        ("enactor-a", ""),
        ("planner", ""),
        ("planner", ""),
        ("enactor-b", ""),
        ("enactor-a", ""),
        ("enactor-b", ""),
        ("enactor-b", "write('regional', 4)"),
        ("enactor-a", "write('regional', 2)"),
        ("enactor-b", "read('regional')"),
        ("enactor-b", "delete('regional', 1)"),
        ("enactor-b", "delete('regional', 2)"),
    ]
    assert list(ev["action"].iloc[:7]) == ["plan produced", "pick plan"] + ["plan produced"] * 2 + [
        "pick plan",
        "version check",
        "version check",
    ]
    assert list(ev["reply"].iloc[7:]) == ["True", "True", "alias 2, rollback 4, trees 1,2,4", "True", "True"]
    assert list(ev.loc[ev["role"] != "", "role"]) == ["stale check", "stale overwrite", "active plan deleted"]
    assert list(ev["empty_after"]) == [False] * 11 + [True]
    # The same path as the built-in protocol's with two Enactors, the read left out.
    built_in = run(replace(INCIDENT, enactor_count=2)).events
    no_read = ev.loc[ev["race_action"] != "read"]
    for col in ("actor", "race_action", "plan_generation", "role"):
        assert list(no_read[col]) == list(built_in[col]), col


def test_a_compare_and_set_step_with_a_careful_clean_up_is_safe_recovers_and_cleans():
    from _steps import cas_once_step, fixed_step

    for step in (fixed_step, cas_once_step):
        for n, g, e, keep in explore.STEP_CHECK_BOUNDS:
            s = step_run(
                step, enactor_count=n, generation_count=g, endpoint_count=e, cleanup_keep_generations=keep
            ).summary
            assert s.safe and s.recovers and s.cleans and not s.stale_overwrite_reachable, (
                step.__name__,
                n,
                g,
                e,
                keep,
            )


def test_a_clean_up_that_keeps_what_is_referred_to_is_safe_like_guard_2_but_stale_writes_remain():
    from _steps import cleanup_only_step

    s = step_run(cleanup_only_step).summary
    assert s.safe and s.recovers and s.cleans and s.stale_overwrite_reachable
    assert s.safe == run(replace(INCIDENT, enactor_count=2, guards=Guards(delete_only_unreferenced=True))).summary.safe


@pytest.mark.parametrize(
    "name, steps, last",
    [
        ("check_then_write_step", 14, "delete('regional', 2)"),  # its own check is stale by the write
        ("cas_write_only_step", 14, "delete('regional', 2)"),  # a refused CAS is not a newer plan
        ("cleanup_no_expect_step", 20, "delete('regional', 2)"),  # the clean-up's check is stale
    ],
)
def test_wrong_fixes_have_counterexamples_of_their_own(name, steps, last):
    import _steps

    res = step_run(getattr(_steps, name))
    ev = res.events
    assert not res.summary.safe and len(ev) == steps and ev["operation"].iat[-1] == last
    assert ev["race_action"].iat[-1] == "delete_active" and ev["empty_after"].iat[-1]


def test_the_stale_check_of_a_step_that_checks_by_reading_is_that_read():
    from _steps import check_then_write_step

    ev = step_run(check_then_write_step).events
    look = ev.loc[ev["role"] == "stale check"].iloc[0]
    wrote = ev.loc[ev["role"] == "stale overwrite"].iloc[0]
    assert look["operation"] == "read('regional')" and look["actor"] == wrote["actor"] and look["step"] < wrote["step"]


def test_a_step_without_clean_up_does_not_clean_and_one_endpoint_only_does_not_recover():
    from _steps import first_endpoint_step, no_cleanup_step

    assert not step_run(no_cleanup_step).summary.cleans
    s = step_run(first_endpoint_step, generation_count=3, endpoint_count=2, cleanup_keep_generations=0).summary
    assert s.safe and not s.recovers and s.stuck_states_count == s.states_count  # the start is stuck already


def test_a_step_run_is_a_function_of_its_config(incident_step_result):
    again = run(explore.INCIDENT_STEP)
    assert again.summary == incident_step_result.summary and again.events.equals(incident_step_result.events)
    t = explore.states_table(explore.INCIDENT_STEP)
    assert len(t) == incident_step_result.summary.states_count
    assert t["enactors"].str.contains("operations into its step on plan").any()


def test_a_step_replaces_the_guards_and_the_strategies():
    from _steps import fixed_step

    with pytest.raises(ConfigError, match="guards 1: turn every guard off"):
        replace(explore.INCIDENT_STEP, guards=Guards(check_version_on_write=True))
    with pytest.raises(ConfigError, match="leave cleanup_delete None"):
        replace(explore.INCIDENT_STEP, enactor_step=fixed_step, cleanup_delete=lambda r: True)
    with pytest.raises(ConfigError, match="enactor_step must be None or a generator function"):
        replace(explore.INCIDENT_STEP, enactor_step=lambda plan, endpoints, keep, read, write, delete: None)


def _raises(plan, endpoints, keep, read, write, delete):
    zone = yield read(endpoints[0])
    yield write(endpoints[0], plan // (zone.alias - 1))


def _unknown_endpoint(plan, endpoints, keep, read, write, delete):
    yield read("global")


def _future_plan(plan, endpoints, keep, read, write, delete):
    yield write(endpoints[0], plan + 1)


def _junk(plan, endpoints, keep, read, write, delete):
    yield plan


@pytest.mark.parametrize(
    "step, words",
    [
        (_raises, r"enactor_step=_raises raised ZeroDivisionError: integer division or modulo by zero on plan \d"),
        (
            _unknown_endpoint,
            r"enactor_step=_unknown_endpoint yielded read\('global'\): this run's endpoints are regional",
        ),
        (_future_plan, r"yielded write\('regional', \d\): the DNS Planner has made plans 1 to \d so far"),
        (_junk, r"enactor_step=_junk yielded \d \(int\) on plan \d, after 0 operations, not an operation"),
    ],
)
def test_the_checker_stops_on_a_faulty_step_with_an_error_naming_it(step, words):
    with pytest.raises(ConfigError, match=words):
        step_run(step)


def test_the_counterexample_chart_draws_the_students_operations(incident_step_result):
    chart = charts.explore_sequence_chart(incident_step_result.events, title="Your step")
    data = charts.explore_sequence_data(incident_step_result.events)
    assert "read (no change)" in set(data["group"]) and "write('regional', 2)" in set(data["operation"])
    spec = chart.to_dict()
    tooltips = [t["field"] for layer in spec["layer"] for t in layer.get("encoding", {}).get("tooltip", [])]
    assert "operation" in tooltips and "reply" in tooltips


def test_the_public_check_says_what_passes_and_why():
    from _steps import fixed_step

    assert list(explore.check_step(None)["why"]) == ["not answered yet: write your step in the cell above"]
    plain = explore.check_step(lambda plan, endpoints, keep, read, write, delete: None)
    assert not plain["passed"].any() and "has no yield" in plain["why"].iat[0]
    good = explore.check_step(fixed_step, seeds=range(3))
    assert good["passed"].all() and len(good) == 3 * len(explore.STEP_CHECK_BOUNDS) + 1
    bad = explore.check_step(explore.INCIDENT_STEP.enactor_step, seeds=range(3)).set_index("check")
    assert not bad.at["safe (2 Enactors, 4 plans, 1 endpoint, clean-up keeps 1)", "passed"]
    assert "shortest counterexample: 12 steps, ending with enactor-b's delete('regional', 2)" in bad["why"].iat[0]
    broken = explore.check_step(_raises, seeds=range(2))
    assert not broken["passed"].any() and "ZeroDivisionError" in broken["why"].iat[0]


def test_a_step_result_cannot_be_scripted_as_a_built_in_replay(incident_step_result):
    with pytest.raises(ConfigError, match="built-in protocol"):
        explore.race_replay_config(incident_step_result)
