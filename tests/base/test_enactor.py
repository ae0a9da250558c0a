"""A student's Enactor step (labsupport.enactor) and its operations (labsupport.route53).

The contract, the bounded driver both engines use, the checker's replay, and each operation carried
out on a hosted zone with the built-in batches' rules. Engine-level behaviour (the checker's
counterexamples, the race over seeds) is in tests/models/test_explore.py and test_race.py.
"""

from __future__ import annotations

import pytest
from _steps import check_then_write_step, fixed_step

from labsupport import enactor
from labsupport import route53 as r53
from labsupport.enactor import OPERATION_BUDGET, StepCall, StepReplayer, check_step, incident_step, operate
from labsupport.errors import ConfigError
from labsupport.route53 import Delete, HostedZone, Read, Write, ZoneView
from labsupport.strategy import RunBudget, StrategyTimeout

ONE = ("regional",)


def call(fn, plan=4, endpoints=ONE, keep=1) -> StepCall:
    return StepCall("enactor_step", fn, plan, endpoints, keep, RunBudget())


def drive(fn, replies, **kw) -> list:
    """The operations ``fn`` yields when it gets ``replies`` in turn (None once it returns)."""
    c = call(fn, **kw)
    ops = [c.advance()]
    for r in replies:
        ops.append(c.advance(r))
    return ops


# -- the contract -------------------------------------------------------------------------------
def test_a_step_must_be_a_generator_function_of_six_arguments():
    check_step("enactor_step", None)
    check_step("enactor_step", incident_step)
    with pytest.raises(ConfigError, match=r"enactor_step must be None or a generator function.*has no yield"):
        check_step("enactor_step", lambda plan, endpoints, keep, read, write, delete: None)
    with pytest.raises(ConfigError, match="got int"):
        check_step("enactor_step", 3)

    def too_few(plan, read, write):
        yield read("regional")

    with pytest.raises(
        ConfigError, match=r"must take the six arguments \(plan, endpoints, keep, read, write, delete\)"
    ):
        check_step("enactor_step", too_few)


def test_the_incident_step_writes_blind_then_deletes_by_age_alone():
    view = ZoneView("regional", 2, 4, (1, 2, 4))  # a stale plan 2 overwrote 4 after this Enactor's write
    assert drive(incident_step, [True, view, True, True]) == [
        Write("regional", 4),
        Read("regional"),
        Delete("regional", 1),
        Delete("regional", 2),  # the active plan: the incident
        None,
    ]


def test_the_incident_step_stops_at_a_rejected_write_as_the_built_in_enactor_does():
    assert drive(incident_step, [False], endpoints=("regional", "ipv6")) == [Write("regional", 4), None]


def test_a_fixed_step_rereads_when_its_compare_and_set_is_refused():
    first, second = ZoneView("regional", 1, 1, (1,)), ZoneView("regional", 2, 1, (1, 2))
    done = ZoneView("regional", 4, 2, (1, 2, 4))
    ops = drive(fixed_step, [first, False, second, True, done, True])
    assert ops == [
        Read("regional"),
        Write("regional", 4, expect=first),
        Read("regional"),
        Write("regional", 4, expect=second),
        Read("regional"),
        Delete("regional", 1, expect=done),  # plan 2 is the rollback: kept
        None,
    ]


def test_operations_print_as_the_student_wrote_them():
    view = ZoneView("regional", 2, 1, (1, 2))
    assert str(Read("regional")) == "read('regional')"
    assert str(Write("regional", 3)) == "write('regional', 3)"
    assert (
        str(Delete("ipv6", 1, expect=ZoneView("ipv6", 2, 1, (1, 2))))
        == "delete('ipv6', 1, expect=<alias 2, rollback 1>)"
    )
    assert str(view) == "alias 2, rollback 1, trees 1,2"


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda: Read(""), "read: endpoint must be"),
        (lambda: Write("regional", 0), "write: plan must be a plan generation"),
        (lambda: Write("regional", True), "write: plan must be"),
        (lambda: Delete("regional", 2.0), "delete: plan must be"),
        (
            lambda: Write("regional", 2, expect=ZoneView("ipv6", 1, 1, (1,))),
            r"expect must be None or what read\('regional'\)",
        ),
        (lambda: Delete("regional", 2, expect=(1, 1)), "expect must be None"),
    ],
)
def test_a_bad_operation_is_refused_with_a_clear_message(make, words):
    with pytest.raises(ConfigError, match=words):
        make()


# -- the bounded driver -------------------------------------------------------------------------
def test_a_step_that_raises_is_a_config_error_naming_it_with_the_cause_kept():
    def raises(plan, endpoints, keep, read, write, delete):
        yield read(endpoints[0])
        raise KeyError("oops")

    c = call(raises)
    c.advance()
    with pytest.raises(
        ConfigError, match=r"enactor_step=.*raises raised KeyError: 'oops' on plan 4, after 1 operations"
    ) as err:
        c.advance(ZoneView("regional", 1, 1, (1,)))
    assert isinstance(err.value.__cause__, KeyError)


def test_a_bad_operation_inside_the_step_is_reported_as_the_steps_error():
    def writes_plan_zero(plan, endpoints, keep, read, write, delete):
        yield write(endpoints[0], plan - 4)

    with pytest.raises(ConfigError, match="writes_plan_zero raised ConfigError: write: plan must be"):
        call(writes_plan_zero).advance()


@pytest.mark.parametrize(
    "body, words",
    [
        (lambda read: "read('regional')", r"yielded \"read\('regional'\)\" \(str\).*not an operation"),
        (lambda read: None, r"yielded None \(NoneType\)"),
        (lambda read: read, "yielded read itself.*call it"),
        (lambda read: ("read", "regional"), r"\(tuple\).*not an operation"),
    ],
)
def test_a_step_that_yields_anything_but_an_operation_is_refused(body, words):
    def wrong(plan, endpoints, keep, read, write, delete):
        yield body(read)

    with pytest.raises(ConfigError, match=words):
        call(wrong).advance()


def test_a_step_that_never_yields_is_stopped_within_the_step_budget():
    def spins(plan, endpoints, keep, read, write, delete):
        while True:
            pass
        yield read(endpoints[0])

    with pytest.raises(StrategyTimeout, match=r"did not yield its next operation within 100,000 steps.*must not wait"):
        call(spins).advance()


def test_a_step_that_never_returns_is_stopped_after_the_operation_budget():
    def waits(plan, endpoints, keep, read, write, delete):
        while True:
            zone = yield read(endpoints[0])
            if zone.alias >= plan + 100:  # waits for something no one will do
                return

    c, view = call(waits), ZoneView("regional", 1, 1, (1,))
    c.advance()
    with pytest.raises(StrategyTimeout, match=f"more than {OPERATION_BUDGET} operations on plan 4"):
        for _ in range(OPERATION_BUDGET + 1):
            c.advance(view)


def test_closing_a_step_runs_its_finally_within_the_budget():
    def stubborn(plan, endpoints, keep, read, write, delete):
        try:
            yield read(endpoints[0])
        finally:
            while True:
                pass

    c = call(stubborn)
    c.advance()
    with pytest.raises(StrategyTimeout):
        c.close()


def test_operations_must_name_the_runs_endpoints_and_plans_made():
    replayer = StepReplayer("enactor_step", incident_step, ONE, 1, RunBudget())
    with pytest.raises(ConfigError, match=r"yielded read\('global'\): this run's endpoints are regional"):
        replayer.check_target(Read("global"), 4)
    with pytest.raises(ConfigError, match=r"yielded write\('regional', 5\): the DNS Planner has made plans 1 to 4"):
        replayer.check_target(Write("regional", 5), 4)
    assert replayer.check_target(Delete("regional", 9), 4) == 0  # deleting what is not there just fails


# -- the checker's replay -----------------------------------------------------------------------
def test_the_replayer_gives_the_next_operation_after_any_history_and_memoises_it():
    r = StepReplayer("enactor_step", check_then_write_step, ONE, 1, RunBudget())
    assert r.next_op(3, ()) == Read("regional")
    assert r.next_op(3, ((1, 1, (1,)),)) == Write("regional", 3)
    assert r.next_op(3, ((3, 1, (1, 3)),)) == Read("regional")  # alias already 3: no write
    assert r.next_op(3, ((3, 1, (1, 3)), (3, 1, (1, 3)))) == Delete("regional", 1)  # 1 < 3 - keep
    assert r.next_op(3, ((3, 1, (1, 3)), (3, 1, (1, 3)), (1,))) is None  # the step returned
    assert len(r.memo) == 5


def test_a_step_that_keeps_state_between_calls_is_refused_on_replay():
    seen: list[int] = []

    def remembers(plan, endpoints, keep, read, write, delete):
        seen.append(plan)
        yield read(endpoints[0])
        yield write(endpoints[0], len(seen))  # depends on how often it ran before

    r = StepReplayer("enactor_step", remembers, ONE, 1, RunBudget())
    r.next_op(3, ())
    r.next_op(3, ((1, 1, (1,)),))
    with pytest.raises(ConfigError, match="a step must depend only on its arguments and the replies"):
        r.next_op(3, ((1, 1, (1,)), (1,)))


# -- operations on a zone -----------------------------------------------------------------------
def test_each_operation_on_a_packed_zone_follows_the_hosted_zones_rules():
    zone = (1, 1, 0b10)  # alias 1, rollback 1, tree 1
    read = operate(Read("regional"), "regional", zone)
    assert (read.zone, read.reply, read.race_action, read.detail, read.reply_text) == (
        zone,
        (1, 1, (1,)),
        "read",
        "read('regional') -> alias 1, rollback 1, trees 1",
        "alias 1, rollback 1, trees 1",
    )
    wrote = operate(Write("regional", 3), "regional", zone)
    assert (wrote.zone, wrote.reply, wrote.race_action) == ((3, 1, 0b1010), (1,), "write")
    stale = operate(Write("regional", 2), "regional", wrote.zone)
    assert (stale.zone, stale.race_action) == ((2, 3, 0b1110), "stale_write")
    cas = operate(Write("regional", 4, expect=ZoneView("regional", 1, 1, (1,))), "regional", wrote.zone)
    assert (cas.zone, cas.reply, cas.race_action) == (wrote.zone, (0,), "write_refused")
    killed = operate(Delete("regional", 2), "regional", stale.zone)
    assert (killed.zone, killed.race_action) == ((2, 3, 0b1010), "delete_active")
    stuck = operate(Write("regional", 4), "regional", killed.zone)
    assert (stuck.zone, stuck.reply, stuck.race_action) == (killed.zone, (0,), "inconsistent")
    gone = operate(Delete("regional", 2), "regional", killed.zone)
    assert (gone.reply, gone.race_action) == ((0,), "delete_skipped")


def test_a_blind_write_is_the_built_in_unguarded_batch():
    ours, theirs = HostedZone("regional", {1: 240, 4: 240}, 4, 1), HostedZone("regional", {1: 240, 4: 240}, 4, 1)
    change = ours.perform(Write("regional", 2), 238)
    same = theirs.apply_plan(
        2,
        238,
        newest=(2, 238),
        check_version_on_write=False,
        reject_empty_records=False,
        self_repair=False,
        max_record_drop_fraction=1.0,
    )
    assert change == same and ours == theirs and change.kind == r53.STALE_APPLIED and change.kind in r53.COMMITTED


def test_race_actions_of_every_outcome():
    assert enactor.race_action(Read("regional"), "") == "read"
    assert enactor.race_action(Write("regional", 2), r53.CONDITION_FAILED) == "write_refused"
    assert enactor.race_action(Delete("regional", 2), r53.CONDITION_FAILED) == "delete_skipped"
    assert enactor.race_action(Delete("regional", 2), r53.MISSING) == "delete_skipped"
    assert enactor.race_action(Write("regional", 2), r53.INCONSISTENT) == "inconsistent"


# -- what grading will do with it ---------------------------------------------------------------
def test_the_incident_and_fixed_steps_compile_under_restricted_python_and_run_the_same():
    rp = pytest.importorskip("RestrictedPython")
    import inspect
    from dataclasses import replace

    from RestrictedPython.Guards import guarded_iter_unpack_sequence, safer_getattr

    from labsupport import explore

    steps = {}
    for fn in (incident_step, fixed_step):
        source = inspect.getsource(fn)
        glb = {
            **rp.safe_globals,
            "_getattr_": safer_getattr,
            "_getiter_": iter,
            "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
        }
        exec(rp.compile_restricted(source, "<step>", "exec"), glb)
        steps[fn.__name__] = (fn, glb[fn.__name__])
    for plain, restricted in steps.values():
        a = explore.run(replace(explore.INCIDENT_STEP, enactor_step=plain))
        b = explore.run(replace(explore.INCIDENT_STEP, enactor_step=restricted))
        assert a.summary == b.summary and a.events.equals(b.events)
