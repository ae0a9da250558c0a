"""Lab 05's graded version: each id's night of the whole chain, the key, and the hidden checks, without otter.

The checks are the functions the assignment's hidden tests call; here they are called directly on a
correct rule, on wrong ones and on a copied answer, so that what each point rewards is asserted.
Grading the assignment with ``otter run`` end to end is ``python benchmarks/grading.py
05-six-stop-points`` (CI grades lab 01's whole honesty set with otter: test_grading_lab01.py). The
last test builds the assignment with ``otter assign`` and reads the student copy.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from coursetools.grading import __main__ as cli
from coursetools.grading import lab05 as tools_lab05
from labsupport import chain
from labsupport.assignments import lab05 as student_lab05
from labsupport.chain import StopPoints
from labsupport.errors import ConfigError

from ._points import both, earned, fails

lab05 = both(student_lab05, tools_lab05)

ID, OTHER_ID = "s1000001", "s1000003"
DESIGN = ("within", "beyond", "yours", "other")


def as_in_october(request) -> bool:
    return True


def refuse_all(request) -> bool:
    return False


def a_queue_limit_typed_in(request) -> bool:
    return request.queue_count < 60


def strictly_within(request) -> bool:
    return (request.queue_count + 1) * request.service_s < request.wait_limit_s


def by_the_oldest_wait(request) -> bool:
    return request.oldest_wait_s <= request.wait_limit_s


def _design_points(rule, student: str = ID) -> dict[str, bool]:
    checks = {
        "within": lambda: lab05.check_rule_admits_within_the_limit(rule, student),
        "beyond": lambda: lab05.check_rule_refuses_beyond_the_limit(rule, student),
        "yours": lambda: lab05.check_rule_on_your_night(rule, student),
        "other": lambda: lab05.check_rule_on_other_nights(rule, student),
    }
    return earned(checks)


def test_an_id_gives_its_own_night_always_the_same():
    p = lab05.params(ID)
    assert p == lab05.params(f" {ID}\n") and p != lab05.params(OTHER_ID)
    cfg = lab05.config(ID)
    net = cfg.nlb.network
    assert (cfg.seed, cfg.race.manual_repair_after_s, net.propagation_rate_per_min, net.launch_wait_limit_s) == (
        p.seed,
        p.dns_repair_s,
        p.propagation_rate_per_min,
        p.launch_wait_limit_s,
    )
    assert cfg.stop_points == StopPoints() and net.launch_admission is None
    roster = [lab05.params(f"s{k:07d}") for k in range(80)]
    assert {q.dns_repair_s for q in roster} == {7_200.0 + 900.0 * k for k in range(9)}
    assert {q.propagation_rate_per_min for q in roster} == {6.0, 8.0, 10.0, 12.0}
    assert {q.launch_wait_limit_s for q in roster} == {300.0, 450.0, 600.0, 900.0}
    with pytest.raises(ConfigError, match="student_id"):
        lab05.params("")


def test_the_design_night_switches_on_stop_point_5s_other_parts_only():
    night = lab05.design_config(lab05.config(ID))
    assert night.stop_points == StopPoints()
    assert night.dwfm.throttle_by_queue_length and night.nlb.limit_capacity_removal
    assert night.nlb.network.max_queue_count is None and night.nlb.network.launch_admission is None


def test_two_ids_get_different_expected_answers():
    mine, theirs = lab05.key(ID), lab05.key(OTHER_ID)
    assert mine["total_s"] != theirs["total_s"] and mine["saved_by_5_s"] != theirs["saved_by_5_s"]


def test_the_measured_answers_are_checked_against_the_collected_ids_model():
    k = lab05.key(ID)
    lab05.check_total_s(k["total_s"], ID)
    lab05.check_saved_by_5_s(k["saved_by_5_s"], ID)
    assert "not what your night gives" in fails(lab05.check_total_s, k["total_s"] + 60.0, ID)
    assert "must be a float" in fails(lab05.check_saved_by_5_s, int(k["saved_by_5_s"]), ID)
    # A copy of another student's notebook is graded as its collector's id: the friend's answer fails.
    other = lab05.key(OTHER_ID)["total_s"]
    fails(lab05.check_total_s, other, ID)
    lab05.check_total_s(other, OTHER_ID)


def test_the_prediction_refuses_to_run_before_it_is_recorded_and_checks_its_values():
    before = lab05.Prediction()
    with pytest.raises(ConfigError, match="record your prediction first"):
        before.run(ID)
    before.record(total_h=14, with_5_h=5.0)
    october, five = before.run(ID)
    k = lab05.key(ID)
    assert (
        october.summary.total_s == k["total_s"] and october.summary.total_s - five.summary.total_s == k["saved_by_5_s"]
    )
    for bad in (
        {"total_h": -1.0, "with_5_h": 5.0},
        {"total_h": 5.0, "with_5_h": 49.0},
        {"total_h": True, "with_5_h": 5},
    ):
        with pytest.raises(ConfigError, match="hours from 0 to 48"):
            lab05.Prediction().record(**bad)


@pytest.mark.parametrize("student", [f"s{k:07d}" for k in range(5)])
def test_the_reference_rule_ends_when_the_courses_stop_point_5_ends(student):
    # The guide's claim; and stop point 5 saves time on every night (the model answer's (a)).
    cfg = lab05.config(student)
    five = chain.run(replace(cfg, stop_points=StopPoints.of(5)))
    ref = chain.run(lab05.with_rule(lab05.design_config(cfg), lab05.reference_launch_admission))
    assert ref.summary.total_s == five.summary.total_s
    assert ref.runs.network.summary.refused_count == five.runs.network.summary.refused_count
    k = lab05.key(student)
    assert k["total_with_rule_s"] == ref.summary.total_s and k["saved_by_5_s"] > 3_600.0
    # (b) of the model answer: stop point 5 leaves the DNS stage as it is.
    assert five.summary.dynamodb_s == chain.run(cfg).summary.dynamodb_s


def test_on_a_few_nights_late_nlb_errors_make_stop_point_5_look_longer():
    # The guide's paragraph on s0000054: the model's event is longer with stop point 5, because small
    # errors with every target configured and no delayed health check come hours after EC2 recovered,
    # and the chain ends the event at the NLB stage's last error.
    k = lab05.key("s0000054")
    assert k["saved_by_5_s"] < 0
    five = chain.run(replace(lab05.config("s0000054"), stop_points=StopPoints.of(5)))
    nlb = five.runs.nlb
    late = nlb.timeseries[
        (nlb.timeseries["error_fraction"] > 0) & (nlb.timeseries["time_s"] > nlb.config.network.horizon_s / 2)
    ]
    assert len(late) and (late["unconfigured_targets_count"] == 0).all() and (late["check_latency_s"] == 0).all()
    assert late["error_fraction"].max() < 0.02
    assert five.summary.ended_at_s > five.summary.ec2_recovered_at_s + 3 * 3600


def test_the_reference_rule_earns_every_design_point():
    assert _design_points(lab05.reference_launch_admission) == dict.fromkeys(DESIGN, True)


def test_admitting_every_launch_earns_only_the_admit_point():
    assert _design_points(as_in_october) == {"within": True, "beyond": False, "yours": False, "other": False}
    assert "waited" in fails(lab05.check_rule_on_your_night, as_in_october, ID)


def test_refusing_every_launch_earns_only_the_refuse_point_and_lasts_hours_longer():
    assert _design_points(refuse_all) == {"within": False, "beyond": True, "yours": False, "other": False}
    night = lab05.design_config(lab05.config(ID))
    late = chain.run(lab05.with_rule(night, refuse_all)).summary.total_s - lab05.key(ID)["total_with_rule_s"]
    assert late >= 3_600.0
    assert "launches were refused" in fails(lab05.check_rule_on_your_night, refuse_all, ID)


def test_refusing_at_the_limit_loses_exactly_one_point():
    for student in (ID, OTHER_ID):
        assert _design_points(strictly_within, student) == {
            "within": False,
            "beyond": True,
            "yours": True,
            "other": True,
        }


def test_a_queue_limit_typed_in_earns_at_most_one():
    for student in (ID, OTHER_ID, "s0000007"):
        points = _design_points(a_queue_limit_typed_in, student)
        assert sum(points.values()) <= 1 and not points["other"], (student, points)


def test_shedding_more_than_the_limit_asks_loses_the_run_points():
    # A stricter rule ends the model's event as soon or sooner, so the runs check how many it refused.
    def half_the_limit(request) -> bool:
        return (request.queue_count + 1) * request.service_s <= request.wait_limit_s / 2

    assert _design_points(half_the_limit) == {"within": False, "beyond": True, "yours": False, "other": False}
    assert "launches were refused" in fails(lab05.check_rule_on_your_night, half_the_limit, ID)


def test_a_rule_that_admits_everything_for_some_hours_loses_the_refuse_point():
    # An adversarial helper's rule: right except from 1 h to 5.5 h after draining starts, where a
    # real night's queue never reaches the limit; the made-up requests' times are drawn over the night.
    def wrong_for_hours(request) -> bool:
        if 3_600 < request.time_s < 20_000:
            return True
        return (request.queue_count + 1) * request.service_s <= request.wait_limit_s

    assert "waits past the limit" in fails(lab05.check_rule_refuses_beyond_the_limit, wrong_for_hours, ID)


def test_a_rule_cannot_tell_the_made_up_requests_from_the_real_ones_by_their_values():
    # Made-up requests keep no grid of times, and a queue that is not empty has waited, as in a run.
    table = tools_lab05._table(ID)
    made_up = table[
        : len(table) - len(tools_lab05._seen_requests(ID)[:: max(1, len(tools_lab05._seen_requests(ID)) // 2_000)])
    ]
    assert len({r.time_s for r in made_up}) == len(made_up)
    assert all(r.oldest_wait_s > 0 for r in made_up if r.queue_count > 0 and r.time_s > 0)
    assert len(set(tools_lab05._seen_requests(ID))) == len(tools_lab05._seen_requests(ID))  # each real request once


def test_a_rule_on_the_oldest_wait_earns_nothing():
    assert _design_points(by_the_oldest_wait) == dict.fromkeys(DESIGN, False)


def test_the_grading_command_knows_the_assignment(capsys):
    assert cli.main(["key", lab05.ASSIGNMENT, "--id", ID]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(lab05.key(ID)))


def test_the_instructor_guide_states_what_the_assignment_does():
    page = (Path(__file__).parents[2] / "chapters" / "instructor-guide" / "grading.md").read_text(encoding="utf-8")
    section = " ".join(page.split("## What the lab 05 assignment asks")[1].split("\n## ")[0].split())
    roster = [lab05.params(f"s{k:07d}") for k in range(200)]

    def span(values, unit_s):
        return f"{min(values) / unit_s:g} to {max(values) / unit_s:g}"

    assert f"a DNS record empty for {span([q.dns_repair_s for q in roster], 3_600)} hours" in section
    assert f"propagates {span([q.propagation_rate_per_min for q in roster], 1)} items per minute" in section
    assert f"configuration of {span([q.launch_wait_limit_s for q in roster], 60)} minutes" in section
    assert f"ends at most {lab05.END_SLACK_S / 60:g} minutes after the reference rule's" in section
    slack = f"{lab05.REFUSAL_SLACK_FRACTION:.0%}".replace("%", " %")
    assert (
        f"refuses at most {slack} more launches than the reference rule (or {lab05.REFUSAL_SLACK_COUNT} launches"
        in section
    )
    assert "admits every launch, as in October, earns one design point of four" in section
    assert sum(_design_points(as_in_october).values()) == 1
    assert "refuses every launch earns one too" in section and sum(_design_points(refuse_all).values()) == 1
    assert "loses exactly one" in section and sum(_design_points(strictly_within).values()) == 3
    assert "(60 items) instead of one computed from the request earns at most one" in section


def test_the_student_copy_holds_no_solution_and_no_hidden_test(tmp_path):
    pytest.importorskip("otter", reason="the [grading] extra (otter-grader) is not installed")
    assert cli.main(["build", lab05.ASSIGNMENT, "--out", str(tmp_path), "--student-only"]) == 0
    text = (tmp_path / "student" / f"{lab05.ASSIGNMENT}.ipynb").read_text(encoding="utf-8")
    for leak in (
        "SOLUTION",
        "hidden=True",
        "check_prediction",
        "check_rule",
        "request.service_s <= request.wait_limit_s",
        "october.summary.total_s - five.summary.total_s",
        "Model answer",
        "admission control, which bounds the wait",
    ):
        assert leak not in text, leak
    assert "def launch_admission(request):" in text and "STUDENT_ID" in text
    # Its link to the lab leads to the published book, not to a path inside the repository.
    from coursetools.colab import published

    assert "../../labs/" not in text and published().page_url("labs/05-six-stop-points.ipynb") in text
