"""Lab 03's graded version: each id's NLB, the key, and the hidden checks, without otter.

The checks are the functions the assignment's hidden tests call; here they are called directly on a
correct decision, on wrong ones and on a copied answer, so that what each point rewards is asserted.
Grading the assignment with ``otter run`` end to end is ``python benchmarks/grading.py
03-nlb-flapping`` (CI grades lab 01's whole honesty set with otter: test_grading_lab01.py). The
last test builds the assignment with ``otter assign`` and reads the student copy.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from coursetools.grading import __main__ as cli
from coursetools.grading import lab03 as tools_lab03
from labsupport import nlb
from labsupport.assignments import lab03 as student_lab03
from labsupport.errors import ConfigError

from ._points import both, earned, fails

lab03 = both(student_lab03, tools_lab03)

ID, OTHER_ID = "s1000001", "s1000009"


def the_incidents_rule(request) -> bool:
    """The NLB's own rule: fail over whatever is stale."""
    return request.result_age_s > request.threshold_s


def restores_an_az_already_out(request) -> bool:
    """One AZ at a time, but False for an AZ already out: it is restored, then removed again."""
    return request.result_age_s > request.threshold_s and request.removed_fraction <= 1e-9


def a_fixed_threshold(request) -> bool:
    """The reference decision with the incident's 240 s typed in instead of the request's threshold."""
    return request.result_age_s > 240.0 and (request.dns_weight < 1.0 or request.removed_fraction <= 1e-9)


def never(request) -> bool:
    return False


def _design_points(decision) -> dict[str, bool]:
    checks = {
        "fresh": lambda: lab03.check_decision_keeps_a_fresh_az(decision, ID),
        "stale": lambda: lab03.check_decision_removes_one_stale_az(decision, ID),
        "yours": lambda: lab03.check_decision_on_your_nlb(decision, ID),
        "other": lambda: lab03.check_decision_on_other_nlbs(decision, ID),
    }
    return earned(checks)


def test_an_id_gives_its_own_nlb_always_the_same():
    p = lab03.params(ID)
    assert p == lab03.params(f" {ID}\n") and p != lab03.params(OTHER_ID)
    assert 10 <= p.targets_per_az_count <= 80 and p.targets_per_az_count % 5 == 0
    assert p.failover_delay_threshold_s in (120.0, 180.0, 240.0, 300.0, 360.0)
    cfg = lab03.config(ID)
    assert (cfg.seed, cfg.targets_per_az_count, cfg.failover_delay_threshold_s) == (
        p.seed,
        p.targets_per_az_count,
        p.failover_delay_threshold_s,
    )
    assert cfg.disable_failover_at_s is None and not cfg.limit_capacity_removal
    with pytest.raises(ConfigError, match="student_id"):
        lab03.params("")


def test_two_ids_get_different_expected_answers():
    mine, theirs = lab03.key(ID), lab03.key(OTHER_ID)
    assert mine["first_failover_s"] != theirs["first_failover_s"]
    assert mine["peak_removed_fraction"] != theirs["peak_removed_fraction"]


@pytest.mark.parametrize("targets", [10, 80])
@pytest.mark.parametrize("threshold_s", [120.0, 360.0])
def test_every_nlb_of_the_assignment_fails_over_two_azs_without_a_velocity_control(targets, threshold_s):
    # The model answer says so for every NLB: checked at the corners of the parameters' range.
    cfg = replace(lab03.config(ID), targets_per_az_count=targets, failover_delay_threshold_s=threshold_s)
    result = nlb.run(cfg)
    assert result.summary.failover_count == 2
    assert result.timeseries["failover_removed_fraction"].max() > 0.5


def test_the_measured_answers_are_checked_against_the_collected_ids_model():
    k = lab03.key(ID)
    lab03.check_first_failover_s(k["first_failover_s"], ID)
    lab03.check_peak_removed_fraction(k["peak_removed_fraction"], ID)
    assert "not what your NLB gives" in fails(lab03.check_first_failover_s, k["first_failover_s"] + 60.0, ID)
    assert "must be a float" in fails(lab03.check_first_failover_s, int(k["first_failover_s"]), ID)
    assert "not what your NLB gives" in fails(lab03.check_peak_removed_fraction, k["peak_removed_fraction"] / 2, ID)
    # A copy of another student's notebook is graded as its collector's id: the friend's answer fails.
    other = lab03.key(OTHER_ID)["first_failover_s"]
    fails(lab03.check_first_failover_s, other, ID)
    lab03.check_first_failover_s(other, OTHER_ID)


def test_the_prediction_refuses_to_run_before_it_is_recorded_and_checks_its_values():
    before = lab03.Prediction()
    with pytest.raises(ConfigError, match="record your prediction first"):
        before.run(ID)
    before.record(failovers=1, min_capacity_fraction=0.6)
    before.run(ID)
    for bad in ({"failovers": -1, "min_capacity_fraction": 0.5}, {"failovers": 1, "min_capacity_fraction": 2}):
        with pytest.raises(ConfigError):
            lab03.Prediction().record(**bad)


def test_the_reference_decision_earns_every_design_point():
    assert _design_points(lab03.reference_failover_decision) == dict.fromkeys(
        ("fresh", "stale", "yours", "other"), True
    )


def test_the_incidents_own_rule_earns_only_the_two_request_points():
    # It removes two AZs at once: the velocity control is what the design question asks for.
    assert _design_points(the_incidents_rule) == {"fresh": True, "stale": True, "yours": False, "other": False}
    assert "held 2 AZs out of DNS at once" in fails(lab03.check_decision_on_your_nlb, the_incidents_rule, ID)


def only_az_0(request) -> bool:  # an adversarial helper's decision: it once earned every design point
    return request.az == 0


def tells_a_table_from_a_run(request) -> bool:  # the same helper's: the made-up reviews once had delay == age
    if request.check_latency_s == request.result_age_s:
        return lab03.reference_failover_decision(request)
    return request.az == 0


def never_restores(request) -> bool:
    return request.dns_weight < 1.0 or (request.result_age_s > request.threshold_s and request.removed_fraction <= 1e-9)


@pytest.mark.parametrize("decision", [only_az_0, never_restores])
def test_a_decision_that_keeps_a_healthy_az_out_loses_the_run_points(decision):
    points = _design_points(decision)
    assert not points["yours"] and not points["other"]


def test_a_decision_that_tells_the_table_from_a_run_loses_the_table_points():
    # Half the reviews of a real run have a delay equal to the result's age too, and the table asks them all.
    points = _design_points(tells_a_table_from_a_run)
    assert not points["fresh"] and not points["stale"]


def test_a_decision_that_restores_an_az_already_out_flaps_and_loses_three_points():
    assert _design_points(restores_an_az_already_out) == {"fresh": True, "stale": False, "yours": False, "other": False}
    assert "the decision flaps" in fails(lab03.check_decision_on_your_nlb, restores_an_az_already_out, ID)
    # The instructor guide says such a decision fails over hundreds of times in a night.
    assert (
        nlb.run(replace(lab03.config(ID), failover_decision=restores_an_az_already_out)).summary.failover_count >= 100
    )


def test_a_threshold_typed_in_loses_the_request_points():
    assert _design_points(a_fixed_threshold) == {"fresh": False, "stale": False, "yours": True, "other": True}


def test_never_failing_over_earns_only_the_fresh_point():
    assert _design_points(never) == {"fresh": True, "stale": False, "yours": False, "other": False}
    assert "no AZ was ever failed over" in fails(lab03.check_decision_on_your_nlb, never, ID)


def test_the_grading_command_knows_the_assignment(capsys):
    assert cli.main(["key", lab03.ASSIGNMENT, "--id", ID]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(lab03.key(ID)))


def test_the_student_copy_holds_no_solution_and_no_hidden_test(tmp_path):
    pytest.importorskip("otter", reason="the [grading] extra (otter-grader) is not installed")
    assert cli.main(["build", lab03.ASSIGNMENT, "--out", str(tmp_path), "--student-only"]) == 0
    text = (tmp_path / "student" / f"{lab03.ASSIGNMENT}.ipynb").read_text(encoding="utf-8")
    for leak in (
        "SOLUTION",
        "hidden=True",
        "check_prediction",
        "check_decision",
        "request.dns_weight < 1.0 or",
        'failover_removed_fraction"].max()',
        "Model answer",
        "velocity control: it removes",
    ):
        assert leak not in text, leak
    assert "def failover_decision(request):" in text and "STUDENT_ID" in text
