"""Lab 06's graded version: each id's protocol, the key, and the hidden checks, without otter.

The checks are the functions the assignment's hidden tests call; here they are called directly on a
correct delete rule, on wrong ones and on a copied answer, so that what each point rewards is
asserted. Grading the assignment with ``otter run`` end to end is ``python benchmarks/grading.py
06-every-interleaving`` (CI grades lab 01's whole honesty set with otter: test_grading_lab01.py). The
last test builds the assignment with ``otter assign`` and reads the student copy.
"""

from __future__ import annotations

import json

import pytest

from coursetools.grading import __main__ as cli
from coursetools.grading import lab06 as tools_lab06
from labsupport import explore
from labsupport.assignments import lab06 as student_lab06
from labsupport.errors import ConfigError

from ._points import both, earned, fails

lab06 = both(student_lab06, tools_lab06)

ID, OTHER_ID = "s1000001", "s1000002"


def guard_3s_rule(request) -> bool:
    """Keep only the active plan: no endpoint goes empty, but rollback records dangle."""
    return request.plan != request.active_plan


def never(request) -> bool:
    return False


def by_generation_numbers(request) -> bool:
    """The October rule with a margin: delete what is two generations older than the plan applied."""
    return request.plan < request.applied_plan - 1


def older_than_both(request) -> bool:
    """Safe, but keeps a plan between the rollback and the active plan forever."""
    return request.plan < min(request.active_plan, request.rollback_plan)


def only_when_asked_by_the_table(request) -> bool:
    """Tells made-up requests from the checker's: the checker never asks with plan 6 applied here."""
    if request.applied_plan == 6:
        return lab06.reference_cleanup_delete(request)
    return True


def _bounds(p: lab06.Lab06Params) -> tuple[int, ...]:
    return (p.enactor_count, p.generation_count, p.endpoint_count, p.cleanup_keep_generations)


def _design_points(rule) -> dict[str, bool]:
    checks = {
        "in use": lambda: lab06.check_delete_keeps_what_is_in_use(rule, ID),
        "unused": lambda: lab06.check_delete_removes_what_is_unused(rule, ID),
        "yours": lambda: lab06.check_delete_on_your_protocol(rule, ID),
        "other": lambda: lab06.check_delete_on_other_protocols(rule, ID),
    }
    return earned(checks)


@pytest.mark.parametrize("bounds", lab06.BOUNDS + lab06.PROTOCOL_VARIANTS)
def test_every_protocol_of_the_assignment_can_empty_an_endpoint_and_stays_small(bounds):
    # The model answer's numbers too: a few hundred to some thirty thousand states, 10 to 13 steps.
    s = explore.run(lab06.config_of_bounds(bounds)).summary
    assert not s.safe and s.empty_reachable
    assert 100 < s.states_count <= 35_000 or bounds in lab06.PROTOCOL_VARIANTS
    assert 10 <= s.counterexample_steps_count <= 13


def test_an_id_gives_its_own_protocol_always_the_same():
    p = lab06.params(ID)
    assert p == lab06.params(f" {ID}\n") and p != lab06.params(OTHER_ID)
    cfg = lab06.config(ID)
    bounds = (cfg.enactor_count, cfg.generation_count, cfg.endpoint_count, cfg.cleanup_keep_generations)
    assert (
        bounds == _bounds(p)
        and bounds in lab06.BOUNDS
        and cfg.guards == explore.INCIDENT.guards
        and cfg.cleanup_delete is None
    )
    roster = [lab06.params(f"s{k:07d}") for k in range(40)]
    assert {q.enactor_count for q in roster} == {2, 3} and len(set(map(_bounds, roster))) > 8
    with pytest.raises(ConfigError, match="student_id"):
        lab06.params("")


def test_two_ids_get_different_expected_answers():
    mine, theirs = lab06.key(ID), lab06.key(OTHER_ID)
    assert mine["states_count"] != theirs["states_count"]


def test_the_measured_answers_are_checked_against_the_collected_ids_model():
    k = lab06.key(ID)
    lab06.check_states_count(k["states_count"], ID)
    lab06.check_counterexample_steps(k["counterexample_steps_count"], ID)
    assert "not what your protocol gives" in fails(lab06.check_states_count, k["states_count"] + 1, ID)
    assert "must be a Python int" in fails(lab06.check_states_count, float(k["states_count"]), ID)
    assert "not what your protocol gives" in fails(
        lab06.check_counterexample_steps, k["counterexample_steps_count"] - 1, ID
    )
    # A copy of another student's notebook is graded as its collector's id: the friend's answer fails.
    other = lab06.key(OTHER_ID)["states_count"]
    fails(lab06.check_states_count, other, ID)
    lab06.check_states_count(other, OTHER_ID)


def test_the_prediction_refuses_to_run_before_it_is_recorded_and_checks_its_values():
    before = lab06.Prediction()
    with pytest.raises(ConfigError, match="record your prediction first"):
        before.run(ID)
    before.record(states=5_000, steps=10)
    assert before.run(ID).summary.states_count == lab06.key(ID)["states_count"]
    for bad in ({"states": 0, "steps": 10}, {"states": 10, "steps": 2.5}, {"states": True, "steps": 3}):
        with pytest.raises(ConfigError):
            lab06.Prediction().record(**bad)


def test_the_reference_rule_earns_every_design_point():
    assert _design_points(lab06.reference_cleanup_delete) == dict.fromkeys(("in use", "unused", "yours", "other"), True)


def test_guard_3s_rule_keeps_endpoints_answering_but_leaves_rollbacks_dangling():
    assert _design_points(guard_3s_rule) == {"in use": False, "unused": True, "yours": False, "other": False}
    message = fails(lab06.check_delete_on_your_protocol, guard_3s_rule, ID)
    assert "rollback record pointing at a deleted plan" in message and "(empty)" not in message


def test_never_deleting_is_safe_but_does_not_clean():
    assert _design_points(never) == {"in use": True, "unused": False, "yours": False, "other": False}
    assert "clean-up does not clean" in fails(lab06.check_delete_on_your_protocol, never, ID)


def test_a_rule_by_generation_numbers_empties_an_endpoint_and_earns_nothing():
    assert _design_points(by_generation_numbers) == dict.fromkeys(("in use", "unused", "yours", "other"), False)
    assert "alias points at a deleted plan (empty)" in fails(
        lab06.check_delete_on_other_protocols, by_generation_numbers, ID
    )


def test_a_rule_that_keeps_plans_between_rollback_and_active_loses_the_points_that_see_it():
    points = _design_points(older_than_both)
    assert points["in use"] and not points["unused"] and not points["other"]


def test_a_rule_that_tells_the_table_from_the_checker_loses_the_table_points():
    points = _design_points(only_when_asked_by_the_table)
    assert not points["in use"] and not points["yours"]


def test_the_grading_command_knows_the_assignment(capsys):
    assert cli.main(["key", lab06.ASSIGNMENT, "--id", ID]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(lab06.key(ID)))


def test_the_student_copy_holds_no_solution_and_no_hidden_test(tmp_path):
    pytest.importorskip("otter", reason="the [grading] extra (otter-grader) is not installed")
    assert cli.main(["build", lab06.ASSIGNMENT, "--out", str(tmp_path), "--student-only"]) == 0
    text = (tmp_path / "student" / f"{lab06.ASSIGNMENT}.ipynb").read_text(encoding="utf-8")
    for leak in (
        "SOLUTION",
        "hidden=True",
        "check_prediction",
        "check_delete",
        "request.plan != request.rollback_plan",
        "int(len(result.events))",
        "Model answer",
        "reasons from generation numbers",
    ):
        assert leak not in text, leak
    assert "def cleanup_delete(request):" in text and "STUDENT_ID" in text


def test_the_instructor_guide_states_what_the_assignment_does():
    # Every number and verdict the grading page's lab 06 section states, from the code.
    from pathlib import Path

    page = (Path(__file__).parents[2] / "chapters" / "instructor-guide" / "grading.md").read_text(encoding="utf-8")
    section = " ".join(page.split("## What the lab 06 assignment asks")[1].split("\n## ")[0].split())
    columns = list(zip(*lab06.BOUNDS, strict=True))
    ranges = [sorted(set(c)) for c in columns]
    assert ranges == [[2, 3], [3, 4, 5], [1, 2], [0, 1, 2]]
    assert "2 or 3 DNS Enactors, 3 to 5 plan generations, 1 or 2 endpoints" in section
    assert "more than 0 to 2 generations older" in section and f"one of the {len(lab06.BOUNDS)} bounds" in section
    summaries = [explore.run(lab06.config_of_bounds(b)).summary for b in lab06.BOUNDS]
    assert (
        100 < min(s.states_count for s in summaries) < 1_000
        and 20_000 < max(s.states_count for s in summaries) < 35_000
    )
    assert "from a few hundred to some thirty thousand states" in section
    assert {s.counterexample_steps_count for s in summaries} == {10, 11, 12, 13} and "10 to 13 steps" in section
    assert "earns one design point of four" in section and sum(_design_points(guard_3s_rule).values()) == 1
    assert "earns one: clean-up" in section and sum(_design_points(never).values()) == 1
    assert "earns none" in section and sum(_design_points(by_generation_numbers).values()) == 0
    faults = [lab06.protocol_faults(lab06.config_of_bounds(b, by_generation_numbers)) for b in lab06.BOUNDS]
    only_dangling = [f for f in faults if f and not any("(empty)" in x for x in f)]
    assert "on some students' own it leaves rollback records dangling" in section and only_dangling
    assert (
        all(
            any("(empty)" in x for x in lab06.protocol_faults(lab06.config_of_bounds(b, by_generation_numbers)))
            for b in lab06.PROTOCOL_VARIANTS
        )
        and "it empties an endpoint of the other protocols" in section
    )


def test_no_student_has_a_protocol_of_the_other_protocols():
    assert not set(lab06.BOUNDS) & set(lab06.PROTOCOL_VARIANTS)


def test_the_key_command_refuses_an_empty_id_with_a_message(capsys):
    with pytest.raises(SystemExit) as stopped:
        cli.main(["key", lab06.ASSIGNMENT, "--id", " "])
    assert stopped.value.code == 2 and "student_id must be a non-empty string" in capsys.readouterr().err
