"""Lab 04's graded version: each id's night, the key, and the hidden checks, without otter.

The checks are the functions the assignment's hidden tests call; here they are called directly on a
correct rule, on wrong ones and on a copied answer, so that what each point rewards is asserted.
Grading the assignment with ``otter run`` end to end is ``python benchmarks/grading.py
04-dns-caches`` (CI grades lab 01's whole honesty set with otter: test_grading_lab01.py). The last
test builds the assignment with ``otter assign`` and reads the student copy.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from coursetools.grading import __main__ as cli
from coursetools.grading import lab04 as tools_lab04
from labsupport import dns_cache
from labsupport.assignments import lab04 as student_lab04
from labsupport.errors import ConfigError

from ._points import both, earned, fails

lab04 = both(student_lab04, tools_lab04)

ID, OTHER_ID = "s1000001", "s1000003"


def as_in_october(request) -> bool:
    return False


def forever(request) -> bool:
    return True


def a_limit_typed_in(request) -> bool:
    """The reference rule with one hour typed in instead of the request's limit."""
    return request.stale_for_s < 3_600.0


def at_the_limit_too(request) -> bool:
    return request.stale_for_s <= request.max_stale_s


def half_the_limit(request) -> bool:
    return request.stale_for_s < request.max_stale_s / 2


def _design_points(rule) -> dict[str, bool]:
    checks = {
        "within": lambda: lab04.check_rule_serves_stale_within_the_limit(rule, ID),
        "gives up": lambda: lab04.check_rule_gives_up_at_the_limit(rule, ID),
        "yours": lambda: lab04.check_rule_on_your_night(rule, ID),
        "other": lambda: lab04.check_rule_on_other_nights(rule, ID),
    }
    return earned(checks)


def test_an_id_gives_its_own_night_always_the_same():
    p = lab04.params(ID)
    assert p == lab04.params(f" {ID}\n") and p != lab04.params(OTHER_ID)
    cfg = lab04.config(ID)
    assert (cfg.seed, cfg.soa_ttl_s, cfg.empty_duration_s, cfg.clients_per_resolver_count, cfg.max_stale_s) == (
        p.seed,
        p.soa_ttl_s,
        p.empty_duration_s,
        p.clients_per_resolver_count,
        p.max_stale_s,
    )
    assert cfg.negative_ttl_s == p.soa_ttl_s and cfg.empty_answer_rule is None
    assert cfg.clients_count == lab04.CLIENTS_COUNT and cfg.horizon_s >= cfg.restored_s + 3_600.0
    roster = [lab04.params(f"s{k:07d}") for k in range(60)]
    assert {q.max_stale_s for q in roster} == {1_200.0, 3_000.0, 4_800.0, 6_600.0, 8_400.0}
    assert {q.empty_duration_s for q in roster} == {3_600.0 + 900.0 * k for k in range(9)}
    with pytest.raises(ConfigError, match="student_id"):
        lab04.params("")


def test_two_ids_get_different_expected_answers():
    mine, theirs = lab04.key(ID), lab04.key(OTHER_ID)
    assert mine["recovery_most_s"] != theirs["recovery_most_s"]


def test_the_measured_answers_are_checked_against_the_collected_ids_model():
    k = lab04.key(ID)
    lab04.check_recovery_most_s(k["recovery_most_s"], ID)
    lab04.check_half_failing_after_s(k["half_failing_after_s"], ID)
    assert "not what your night gives" in fails(lab04.check_recovery_most_s, k["recovery_most_s"] + 60.0, ID)
    assert "must be a float" in fails(lab04.check_half_failing_after_s, int(k["half_failing_after_s"]), ID)
    # A copy of another student's notebook is graded as its collector's id: the friend's answer fails.
    other = lab04.key(OTHER_ID)["recovery_most_s"]
    fails(lab04.check_recovery_most_s, other, ID)
    lab04.check_recovery_most_s(other, OTHER_ID)


def test_the_prediction_refuses_to_run_before_it_is_recorded_and_checks_its_values():
    before = lab04.Prediction()
    with pytest.raises(ConfigError, match="record your prediction first"):
        before.run(ID)
    before.record(recovery_min=15, failed_fraction_with_rule=0.0)
    assert before.run(ID).summary.recovery_most_s == lab04.key(ID)["recovery_most_s"]
    for bad in (
        {"recovery_min": -1.0, "failed_fraction_with_rule": 0.5},
        {"recovery_min": 5.0, "failed_fraction_with_rule": 1.5},
        {"recovery_min": True, "failed_fraction_with_rule": 0.5},
    ):
        with pytest.raises(ConfigError):
            lab04.Prediction().record(**bad)


def test_the_model_answers_claims_hold_on_every_kind_of_night():
    # (a) 99 % recovery at most about one negative TTL after the restore; with the rule, nobody
    # fails when the outage is shorter than the limit, and everybody does when it is longer (never
    # equal: an adversarial helper found a tenth of the ids at equality, where nobody failed).
    # (b) shared caches bring their clients back within a couple of minutes of each other.
    for student in (f"s{k:07d}" for k in range(40)):
        k = lab04.key(student)
        assert 0.0 < k["recovery_most_s"] <= k["negative_ttl_s"] + 120.0, student
        assert k["empty_duration_s"] != k["max_stale_s"], student
        shorter = k["empty_duration_s"] < k["max_stale_s"]
        assert k["failed_fraction_with_rule"] == (0.0 if shorter else 1.0), student
        s = dns_cache.run(lab04.config(student)).summary
        assert s.recovery_most_s - s.recovery_half_s <= 180.0, student


def test_the_reference_rule_earns_every_design_point():
    assert _design_points(lab04.reference_empty_answer_rule) == dict.fromkeys(
        ("within", "gives up", "yours", "other"), True
    )


def test_the_october_resolver_earns_only_the_give_up_point():
    assert _design_points(as_in_october) == {"within": False, "gives up": True, "yours": False, "other": False}
    assert "before the limit" in fails(lab04.check_rule_on_your_night, as_in_october, ID)


def test_serving_stale_forever_never_lets_a_removal_through():
    assert _design_points(forever) == {"within": True, "gives up": False, "yours": False, "other": False}
    assert "removed on purpose" in fails(lab04.check_rule_on_your_night, forever, ID)


def test_a_limit_typed_in_earns_nothing():
    # One hour is no student's limit, so the typed number is wrong on every night and request.
    assert 3_600.0 not in {lab04.params(f"s{k:07d}").max_stale_s for k in range(200)}
    assert _design_points(a_limit_typed_in) == dict.fromkeys(("within", "gives up", "yours", "other"), False)


def test_serving_stale_at_the_limit_loses_exactly_the_give_up_point():
    assert _design_points(at_the_limit_too) == {"within": True, "gives up": False, "yours": True, "other": True}


def test_giving_up_early_loses_every_point_that_sees_it():
    assert _design_points(half_the_limit) == {"within": False, "gives up": True, "yours": False, "other": False}


def test_the_grading_command_knows_the_assignment(capsys):
    assert cli.main(["key", lab04.ASSIGNMENT, "--id", ID]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(lab04.key(ID)))


def test_the_removal_runs_long_enough_to_see_it():
    cfg = lab04.config(ID)
    removal = lab04.removal_config(cfg)
    assert removal.restored_s >= removal.horizon_s - 1.0 and removal.horizon_s >= cfg.max_stale_s + 7_200.0
    # Without a rule every client sees the removal within minutes.
    assert dns_cache.run(replace(removal, clients_count=200)).summary.failed_count == 200


def test_the_instructor_guide_states_what_the_assignment_does():
    page = (Path(__file__).parents[2] / "chapters" / "instructor-guide" / "grading.md").read_text(encoding="utf-8")
    section = " ".join(page.split("## What the lab 04 assignment asks")[1].split("\n## ")[0].split())
    assert f"{lab04.CLIENTS_COUNT:,} clients" in section
    roster = [lab04.params(f"s{k:07d}") for k in range(200)]

    def span(values, unit_s):
        return f"{min(values) / unit_s:g} to {max(values) / unit_s:g}"

    assert f"a negative TTL of {span([q.soa_ttl_s for q in roster], 60)} minutes" in section
    assert f"empty for {span([q.empty_duration_s for q in roster], 3_600)} hours" in section
    assert f"{span([q.clients_per_resolver_count for q in roster], 1)} clients per resolver cache" in section
    assert f"a maximum stale timer of {span([q.max_stale_s for q in roster], 60)} minutes, never equal" in section
    assert "earns one design point of four" in section and sum(_design_points(as_in_october).values()) == 1
    assert "serves stale forever earns one" in section and sum(_design_points(forever).values()) == 1
    assert "loses exactly one" in section and sum(_design_points(at_the_limit_too).values()) == 3
    assert "(one hour) instead of `request.max_stale_s` earns nothing" in section


def test_the_student_copy_holds_no_solution_and_no_hidden_test(tmp_path):
    pytest.importorskip("otter", reason="the [grading] extra (otter-grader) is not installed")
    assert cli.main(["build", lab04.ASSIGNMENT, "--out", str(tmp_path), "--student-only"]) == 0
    text = (tmp_path / "student" / f"{lab04.ASSIGNMENT}.ipynb").read_text(encoding="utf-8")
    for leak in (
        "SOLUTION",
        "hidden=True",
        "check_prediction",
        "check_rule",
        "request.stale_for_s < request.max_stale_s",
        "result.summary.recovery_most_s)",
        "Model answer",
        "an unbounded rule never lets a removal through",
    ):
        assert leak not in text, leak
    assert "def empty_answer_rule(request):" in text and "STUDENT_ID" in text
