"""Student strategies the engines run: the Enactor's conditional write and its clean-up's conditional
delete, the NLB's failover decision, DWFM's admission policy, a DNS resolver's empty-answer rule and
Network Manager's launch admission.

A strategy equal to a built-in rule gives the same trace as the rule; a strategy that raises,
returns a non-bool or never returns stops the run with a ConfigError naming it.
"""

from __future__ import annotations

import contextlib
import itertools
from dataclasses import replace

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labsupport import dns_cache, dwfm, explore, network, nlb, race
from labsupport.errors import ConfigError, LimitExceeded
from labsupport.strategy import (
    STEP_BUDGET,
    DeleteRequest,
    EmptyAnswerRequest,
    RunBudget,
    StrategyTimeout,
    WriteRequest,
    call_strategy,
)

GUARD_1 = race.Guards(check_version_on_write=True)


def compare_and_set(request: WriteRequest) -> bool:
    """The conditional write: commit only a plan newer than the active one."""
    return request.active_plan is None or request.new_plan > request.active_plan


def always_write(request: WriteRequest) -> bool:
    return True


def never_returns(request: object) -> bool:
    while True:
        pass


def swallows_the_stop(request: object) -> bool:
    for _ in range(2 * STEP_BUDGET):
        with contextlib.suppress(ConfigError):
            pass
    return True


def raises(request: object) -> bool:
    raise KeyError("oops")


def returns_int(request: object) -> bool:
    return 1  # type: ignore[return-value]


def returns_none(request: object) -> bool:
    return None  # type: ignore[return-value]


# -- the race ----------------------------------------------------------------------------------
def test_compare_and_set_strategy_gives_guard_1s_exact_trace():
    by_guard = race.run(replace(race.INCIDENT, guards=GUARD_1))
    by_strategy = race.run(replace(race.INCIDENT, conditional_write=compare_and_set))
    pd.testing.assert_frame_equal(by_guard.events, by_strategy.events)
    assert by_strategy.summary == by_guard.summary
    assert by_strategy.summary.regional_empty_s == 0 and not by_strategy.summary.active_plan_deleted


def test_an_unconditional_write_strategy_gives_the_incidents_exact_trace():
    incident = race.run(race.INCIDENT)
    unconditional = race.run(replace(race.INCIDENT, conditional_write=always_write))
    pd.testing.assert_frame_equal(incident.events, unconditional.events)
    assert unconditional.summary.regional_empty_s > 0


def test_the_strategy_sees_the_endpoints_active_plan_and_the_plan_being_written():
    seen: list[WriteRequest] = []

    def spy(request: WriteRequest) -> bool:
        seen.append(request)
        return compare_and_set(request)

    result = race.run(replace(race.INCIDENT, conditional_write=spy, horizon_s=600.0))
    writes = result.events[result.events["action"].isin(["write", "write_noop", "write_refused", "stale_write"])]
    assert [(r.endpoint, r.new_plan) for r in seen] == list(zip(writes["endpoint"], writes["generation"], strict=True))
    assert all(r.active_plan is not None for r in seen)
    assert {r.endpoint for r in seen} == set(race.INCIDENT.endpoints)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), losses=st.integers(0, 12))
def test_compare_and_set_never_empties_an_endpoint_whatever_the_seed_and_lock_losses(seed, losses):
    delay = replace(race.INCIDENT_DELAY, lock_losses_count=losses)
    cfg = replace(race.INCIDENT, seed=seed, delays=(delay,), horizon_s=1800.0, conditional_write=compare_and_set)
    summary = race.run(cfg).summary
    assert summary.endpoints_emptied == () and summary.stale_overwrites_count == 0
    assert not summary.active_plan_deleted and not summary.stuck


@pytest.mark.parametrize(
    "bad, words",
    [
        (raises, ["conditional_write=raises", "KeyError", "oops"]),
        (returns_int, ["conditional_write=returns_int", "True or False", "int 1"]),
        (returns_none, ["conditional_write=returns_none", "NoneType"]),
        (never_returns, ["conditional_write=never_returns", f"{STEP_BUDGET:,} steps"]),
        (swallows_the_stop, ["conditional_write=swallows_the_stop", "steps"]),
    ],
)
def test_a_faulty_write_strategy_stops_the_run_with_an_error_naming_it(bad, words):
    with pytest.raises(ConfigError) as caught:
        race.run(replace(race.INCIDENT, conditional_write=bad))
    for word in words:
        assert word in str(caught.value)


def test_a_raising_strategys_own_error_is_kept_as_the_cause():
    with pytest.raises(ConfigError) as caught:
        race.run(replace(race.INCIDENT, conditional_write=raises))
    chain, error = [], caught.value
    while error is not None:  # simpy re-raises a process's error as a copy caused by the original
        chain.append(type(error))
        error = error.__cause__
    assert chain[-1] is KeyError


def test_a_strategy_that_never_returns_is_stopped_after_a_bounded_number_of_lines():
    with pytest.raises(StrategyTimeout):
        call_strategy("conditional_write", never_returns, WriteRequest("regional", 1, 2), budget=1_000)


@pytest.mark.parametrize(
    "value, words",
    [
        (42, ["conditional_write", "function of one request", "int"]),
        (lambda: True, ["conditional_write", "exactly one argument"]),
        (lambda a, b: True, ["conditional_write", "exactly one argument"]),
    ],
)
def test_a_strategy_that_cannot_be_called_with_one_request_is_refused_by_the_config(value, words):
    with pytest.raises(ConfigError) as caught:
        replace(race.INCIDENT, conditional_write=value)
    for word in words:
        assert word in str(caught.value)


def test_a_strategy_and_guard_1_together_are_refused_as_ambiguous():
    with pytest.raises(ConfigError, match=r"replaces guards\.check_version_on_write"):
        replace(race.INCIDENT, guards=GUARD_1, conditional_write=compare_and_set)
    with pytest.raises(ConfigError, match=r"replaces guards\.check_version_on_write"):
        replace(explore.INCIDENT, guards=GUARD_1, conditional_write=compare_and_set)


# -- the explorer, over every interleaving -------------------------------------------------------
def test_the_explorer_proves_compare_and_set_safe_and_finds_the_unconditional_write_unsafe():
    cas = explore.run(replace(explore.INCIDENT, conditional_write=compare_and_set)).summary
    guard = explore.run(replace(explore.INCIDENT, guards=GUARD_1)).summary
    unconditional = explore.run(replace(explore.INCIDENT, conditional_write=always_write)).summary
    incident = explore.run(explore.INCIDENT).summary
    assert cas.safe and cas.recovers and not cas.empty_reachable
    assert (cas.states_count, cas.transitions_count) == (guard.states_count, guard.transitions_count)
    assert not unconditional.safe and unconditional.empty_reachable
    assert (unconditional.states_count, unconditional.violating_states_count) == (
        incident.states_count,
        incident.violating_states_count,
    )


def test_the_explorer_stops_on_a_faulty_strategy_with_an_error_naming_it():
    with pytest.raises(ConfigError, match="conditional_write=returns_int"):
        explore.run(replace(explore.INCIDENT, conditional_write=returns_int))


# -- the clean-up's conditional delete, over every interleaving -----------------------------------
def delete_unreferenced(request: DeleteRequest) -> bool:
    """Guard 2's rule as a strategy: keep what the alias or the rollback record points at."""
    return request.plan not in (request.active_plan, request.rollback_plan)


def delete_unless_active(request: DeleteRequest) -> bool:
    """Guard 3's rule as a strategy: keep the active plan."""
    return request.plan != request.active_plan


def delete_always(request: DeleteRequest) -> bool:
    return True


@pytest.mark.parametrize(
    ("strategy", "guard"),
    [(delete_unreferenced, "delete_only_unreferenced"), (delete_unless_active, "reject_empty_records")],
)
@pytest.mark.parametrize("bounds", [{}, {"endpoint_count": 2, "enactor_count": 2, "generation_count": 5}])
def test_a_delete_strategy_equal_to_a_guard_gives_the_guards_exact_state_space(strategy, guard, bounds):
    base = replace(explore.INCIDENT, **bounds)
    mine = explore.run(replace(base, cleanup_delete=strategy)).summary
    theirs = explore.run(replace(base, guards=race.Guards(**{guard: True}))).summary
    assert (mine.states_count, mine.transitions_count, mine.safe, mine.recovers) == (
        theirs.states_count,
        theirs.transitions_count,
        theirs.safe,
        theirs.recovers,
    )


def test_a_delete_strategy_that_always_deletes_is_the_unguarded_protocol():
    always = explore.run(replace(explore.INCIDENT, cleanup_delete=delete_always)).summary
    incident = explore.run(explore.INCIDENT).summary
    assert (always.states_count, always.violating_states_count, always.counterexample_steps_count) == (
        incident.states_count,
        incident.violating_states_count,
        incident.counterexample_steps_count,
    )


def test_the_delete_strategy_sees_the_endpoint_as_it_is_at_the_delete():
    seen: list[DeleteRequest] = []

    def record(request: DeleteRequest) -> bool:
        seen.append(request)
        return delete_unreferenced(request)

    explore.run(replace(explore.INCIDENT, endpoint_count=2, cleanup_delete=record))
    keep = explore.INCIDENT.cleanup_keep_generations
    assert seen and {r.endpoint for r in seen} == {"regional", "ipv6"}
    assert all(r.plan < r.applied_plan - keep for r in seen)  # clean-up asks only about old plans
    assert any(r.plan == r.active_plan for r in seen)  # a stale Enactor's plan, active and old
    assert len(set(seen)) == len(seen)  # asked once per distinct request


def test_a_delete_strategy_and_guard_2_or_3_together_are_refused_as_ambiguous():
    for guard in ("delete_only_unreferenced", "reject_empty_records"):
        with pytest.raises(ConfigError, match=rf"replaces .*turn {guard} off"):
            replace(explore.INCIDENT, guards=race.Guards(**{guard: True}), cleanup_delete=delete_unreferenced)


@pytest.mark.parametrize(
    ("bad", "words"), [(returns_int, "must return True or False, got int"), (raises, "raised KeyError")]
)
def test_the_explorer_stops_on_a_faulty_delete_strategy_with_an_error_naming_it(bad, words):
    with pytest.raises(ConfigError, match=f"cleanup_delete={bad.__name__} {words}"):
        explore.run(replace(explore.INCIDENT, cleanup_delete=bad))


# -- a DNS resolver's rule for an empty answer -----------------------------------------------------
_DNS = replace(dns_cache.INCIDENT, clients_count=600, clients_per_resolver_count=6)


def within_the_limit(request: EmptyAnswerRequest) -> bool:
    return request.stale_for_s < request.max_stale_s


def test_a_rule_that_accepts_every_empty_answer_gives_the_run_without_a_rule():
    mine = dns_cache.run(replace(_DNS, empty_answer_rule=lambda request: False))
    pd.testing.assert_frame_equal(mine.clients, dns_cache.run(_DNS).clients)
    pd.testing.assert_frame_equal(mine.events, dns_cache.run(_DNS).events)


def test_a_rule_that_always_serves_stale_keeps_every_client_working():
    result = dns_cache.run(replace(_DNS, empty_answer_rule=lambda request: True))
    assert result.summary.failed_count == 0 and result.summary.peak_failing_fraction == 0.0


@pytest.mark.parametrize("limit_s", [600.0, 3_600.0, 20_000.0])
def test_a_rule_within_the_limit_lets_no_client_fail_before_it(limit_s):
    seen: list[EmptyAnswerRequest] = []

    def record(request: EmptyAnswerRequest) -> bool:
        seen.append(request)
        return within_the_limit(request)

    result = dns_cache.run(replace(_DNS, empty_answer_rule=record, max_stale_s=limit_s))
    failing = result.clients["failing_s"].dropna()
    if limit_s > _DNS.empty_duration_s:  # the outage is shorter than the limit: nobody notices it
        assert failing.empty
    else:
        assert failing.min() >= _DNS.empty_start_s + limit_s and len(failing) == _DNS.clients_count
    # Each cache is asked first at 0 s, then after at least a recheck each time, and never again
    # once it has accepted the empty answer.
    by_cache: dict[int, list[float]] = {}
    for request in seen:
        by_cache.setdefault(request.resolver, []).append(request.stale_for_s)
        assert (request.max_stale_s, request.recheck_s) == (limit_s, _DNS.stale_recheck_s)
    for times in by_cache.values():
        assert times[0] == 0.0 and all(b - a >= _DNS.stale_recheck_s for a, b in itertools.pairwise(times))
        assert sum(t >= limit_s for t in times) <= 1


def test_a_rule_that_could_be_asked_too_often_is_refused_before_it_runs():
    # A million private caches: the second adversarial helper's run blamed a one-line rule after 124 s.
    calls: list[object] = []
    with pytest.raises(LimitExceeded, match="empty_answer_rule could be asked"):
        dns_cache.run(replace(_DNS, clients_count=1_000_000, empty_answer_rule=lambda r: calls.append(r) or True))
    assert calls == []


def test_a_rules_stale_refreshes_count_in_the_runs_work_bound():
    with pytest.raises(LimitExceeded, match="max_cache_refreshes"):
        dns_cache.run(
            replace(_DNS, empty_answer_rule=within_the_limit, stale_recheck_s=1.0, max_cache_refreshes=500_000)
        )


@pytest.mark.parametrize(
    ("bad", "words"), [(returns_int, "must return True or False, got int"), (raises, "raised KeyError")]
)
def test_a_faulty_empty_answer_rule_stops_the_run_with_an_error_naming_it(bad, words):
    with pytest.raises(ConfigError, match=f"empty_answer_rule={bad.__name__} {words}"):
        dns_cache.run(replace(_DNS, empty_answer_rule=bad))


@pytest.mark.parametrize(("field", "value"), [("stale_recheck_s", 0.0), ("max_stale_s", 8 * 86_400.0)])
def test_the_serve_stale_timers_are_validated(field, value):
    with pytest.raises(ConfigError, match=field):
        replace(_DNS, **{field: value})


# -- the NLB's failover decision ------------------------------------------------------------------
_NLB = replace(nlb.INCIDENT, targets_per_az_count=5)


def threshold_rule(request) -> bool:
    return request.result_age_s > request.threshold_s


def never_fail_over(request) -> bool:
    return False


def test_a_failover_strategy_equal_to_the_threshold_rule_gives_the_same_run():
    base, same = nlb.run(_NLB), nlb.run(replace(_NLB, failover_decision=threshold_rule))
    pd.testing.assert_frame_equal(base.events, same.events)
    assert (base.events["kind"] == "az_failover").any()


def test_a_failover_strategy_that_never_fails_over_removes_no_capacity():
    events = nlb.run(replace(_NLB, failover_decision=never_fail_over)).events
    assert not (events["kind"] == "az_failover").any()


def test_a_faulty_failover_strategy_stops_the_run_with_an_error_naming_it():
    with pytest.raises(ConfigError, match="failover_decision=returns_none"):
        nlb.run(replace(_NLB, failover_decision=returns_none))
    with pytest.raises(ConfigError, match="failover_decision"):
        replace(_NLB, failover_decision="fail over")


# -- DWFM's admission policy ---------------------------------------------------------------------
# The incident without the operators: only admission control can end the congestive collapse.
_DWFM = replace(dwfm.INCIDENT, operator_throttle_at_s=None, operator_restart_at_s=None)


def admit_all(request) -> bool:
    return True


def queue_below_50(request) -> bool:
    return request.queue_count < 50


def test_an_admission_policy_that_admits_everything_gives_the_run_without_one():
    base, same = dwfm.run(_DWFM), dwfm.run(replace(_DWFM, admission_policy=admit_all))
    pd.testing.assert_frame_equal(base.events, same.events)
    pd.testing.assert_frame_equal(base.timeseries, same.timeseries)
    assert not base.summary.recovered  # the collapse the policy is for


def test_an_admission_policy_equal_to_the_queue_length_throttle_gives_the_throttles_run():
    throttle = dwfm.run(replace(_DWFM, throttle_by_queue_length=True, queue_limit_count=50))
    policy = dwfm.run(replace(_DWFM, admission_policy=queue_below_50))
    pd.testing.assert_frame_equal(throttle.events, policy.events)
    assert policy.summary.recovered and policy.summary.held_back_count > 0


def test_an_admission_policy_sees_the_host_as_it_is_when_the_item_arrives():
    seen = []

    def record(request) -> bool:
        seen.append(request)
        return request.queue_count < 150  # 15 rounds of 60 s: past the 600 s deadline, so some retry

    dwfm.run(replace(_DWFM, admission_policy=record, horizon_s=14_000.0))
    assert seen and all(0 <= r.host < _DWFM.dwfm_hosts_count for r in seen)
    assert max(r.queue_count for r in seen) == 150  # refused from 150 on: the queue never grew past it
    assert all(r.oldest_wait_s == 0.0 for r in seen if r.queue_count == 0)
    assert all(r.oldest_wait_s >= 0.0 and r.in_flight_count <= r.host_concurrency_count for r in seen)
    assert {r.attempt for r in seen} >= {0, 1}  # first requests and retries are both asked
    assert [r.time_s for r in seen] == sorted(r.time_s for r in seen)


def test_a_faulty_admission_policy_stops_the_run_with_an_error_naming_it():
    with pytest.raises(ConfigError, match="admission_policy=returns_none"):
        dwfm.run(replace(_DWFM, admission_policy=returns_none))
    with pytest.raises(StrategyTimeout, match="admission_policy=never_returns"):
        dwfm.run(replace(_DWFM, admission_policy=never_returns))
    with pytest.raises(ConfigError, match="admission_policy"):
        replace(_DWFM, admission_policy=50)


def _busy(request) -> bool:  # about 300 steps a call: slow, yet within the budget of one call
    for _ in range(100):
        pass
    return True


def test_the_calls_of_one_run_share_a_budget_and_stop_together():
    run = RunBudget(1_000)
    request = WriteRequest("regional", 1, 2)
    assert call_strategy("conditional_write", _busy, request, run_budget=run)
    per_call = run.total - run.left
    assert run.calls == 1 and 0 < per_call < 1_000
    with pytest.raises(StrategyTimeout, match=r"this run's \d+ calls took more than 1,000 steps"):
        for _ in range(10):
            call_strategy("conditional_write", _busy, request, run_budget=run)
    assert run.calls == -(-1_000 // per_call)  # the call that crossed the budget was the last one


def test_a_slow_admission_policy_stops_its_run_within_the_run_budget(monkeypatch):
    # An adversarial helper's case: a policy slow in every call, under the call's budget, once took
    # about 12 minutes for one night. Each engine's run shares one budget; a small one here keeps
    # the test short (the default is RUN_STEP_BUDGET).
    import labsupport.dwfm.engine as engine

    monkeypatch.setattr(engine, "RunBudget", lambda: RunBudget(200_000))
    with pytest.raises(StrategyTimeout, match="admission_policy=_busy: this run's"):
        dwfm.run(replace(_DWFM, admission_policy=_busy))


# A loop written on one line, as a student may type it (built from source: the formatter would split it).
_ns: dict = {}
exec("def _one_line_loop(request):\n    while True: pass\n", _ns)
_one_line_loop = _ns["_one_line_loop"]


def _exits(request):
    raise SystemExit(3)


def test_a_loop_written_on_one_line_is_stopped_too():
    # It starts no new line, so only its bytecode instructions count (an adversarial run found it hung).
    with pytest.raises(StrategyTimeout, match="steps"):
        call_strategy("conditional_write", _one_line_loop, WriteRequest("regional", 1, 2), budget=1_000)


def test_a_strategy_that_calls_sys_exit_is_a_config_error_naming_it():
    with pytest.raises(ConfigError, match=r"conditional_write=_exits raised SystemExit: 3"):
        race.run(replace(race.INCIDENT, conditional_write=_exits, horizon_s=600.0))


def test_a_strategy_that_changes_its_answer_is_checked_on_its_first_answers():
    # The search and the counterexample's replay share one memo: a coin-flip strategy gives a
    # result, never a crash in the replay (it once raised StopIteration there).
    import random

    coin = random.Random(7)
    for field in ("conditional_write", "cleanup_delete"):
        result = explore.run(replace(explore.INCIDENT, **{field: lambda request: coin.random() < 0.5}))
        assert len(result.events) == result.summary.counterexample_steps_count


def catches_exception_in_a_loop(request: object) -> bool:  # a student's attempt at a retry loop
    while True:
        try:  # noqa: SIM105
            pass
        except Exception:  # noqa: BLE001
            pass


def test_a_strategy_that_catches_exceptions_in_a_loop_is_still_stopped():
    # A strategy that catches BaseException can swallow the stop (CPython removes a trace function
    # that raises): the grader refuses such handlers when it compiles a design answer
    # (tests/grading/test_grading_parts.py).
    with pytest.raises(StrategyTimeout, match="catches_exception_in_a_loop"):
        call_strategy("conditional_write", catches_exception_in_a_loop, WriteRequest("regional", 1, 2))


# -- Network Manager's launch admission ------------------------------------------------------------
_NET = network.INCIDENT


def admit_every_launch(request) -> bool:
    return True


def queue_below_60(request) -> bool:
    # Network Manager's built-in limit counts the items waiting; the request counts the one in
    # service too, so "fewer than 60 waiting" is "at most 60 in all" while one is in service.
    return request.queue_count <= 60


def test_a_launch_admission_that_admits_everything_gives_the_run_without_one():
    base, same = network.run(_NET), network.run(replace(_NET, launch_admission=admit_every_launch))
    pd.testing.assert_frame_equal(base.events, same.events)
    assert same.summary.refused_count == 0


def test_a_launch_admission_equal_to_the_queue_limit_gives_the_limits_run():
    limit = network.run(replace(_NET, max_queue_count=60))
    rule = network.run(replace(_NET, launch_admission=queue_below_60))
    pd.testing.assert_frame_equal(limit.events, rule.events)
    assert rule.summary.refused_count > 0


def test_a_launch_admission_sees_the_queue_as_it_is_when_the_launch_arrives():
    seen = []

    def record(request) -> bool:
        seen.append(request)
        return (request.queue_count + 1) * request.service_s <= request.wait_limit_s

    result = network.run(replace(_NET, launch_admission=record, launch_wait_limit_s=300.0))
    assert seen and all(r.service_s == 60.0 / _NET.propagation_rate_per_min and r.wait_limit_s == 300.0 for r in seen)
    assert all(r.oldest_wait_s == 0.0 for r in seen if r.queue_count == 0)
    assert [r.time_s for r in seen] == sorted(r.time_s for r in seen)
    assert result.summary.max_delay_s <= 300.0 + 60.0 / _NET.propagation_rate_per_min
    # The backlog is never asked about: one request per launch the built-in limits let through.
    assert len(seen) == result.summary.launches_count


def test_a_faulty_launch_admission_stops_the_run_with_an_error_naming_it():
    with pytest.raises(ConfigError, match="launch_admission=returns_none"):
        network.run(replace(_NET, launch_admission=returns_none))
    with pytest.raises(StrategyTimeout, match="launch_admission=never_returns"):
        network.run(replace(_NET, launch_admission=never_returns))
    with pytest.raises(ConfigError, match="launch_admission"):
        replace(_NET, launch_admission=60)
    with pytest.raises(ConfigError, match="launch_wait_limit_s"):
        replace(_NET, launch_wait_limit_s=0.0)


def test_a_numpy_bool_is_named_as_numpys_not_as_a_bool():
    import numpy as np

    with pytest.raises(ConfigError, match=r"must return True or False, got numpy\.bool"):
        call_strategy("launch_admission", lambda request: np.True_, object())
