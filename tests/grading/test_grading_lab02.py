"""Lab 02's graded version: each id's night, the key, and the hidden checks, without otter.

The checks are the functions the assignment's hidden tests call; here they are called directly on a
correct policy, on wrong ones and on a copied answer, so that what each point rewards is asserted.
Grading the assignment with ``otter run`` end to end is ``python benchmarks/grading.py
02-dwfm-collapse`` (CI grades lab 01's whole honesty set with otter: test_grading_lab01.py). The
last test builds the assignment with ``otter assign`` and reads the student copy.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from coursetools.grading import __main__ as cli
from coursetools.grading import lab02 as tools_lab02
from labsupport import dwfm
from labsupport.assignments import lab02 as student_lab02
from labsupport.errors import ConfigError

from ._points import both, fails

lab02 = both(student_lab02, tools_lab02)

ID, OTHER_ID = "s1000001", "s1000009"


def queue_below_50(request) -> bool:
    """A queue limit tuned to the incident's hosts: the answer the 'hosts unlike yours' point catches."""
    return request.queue_count < 50


def admit_everything(request) -> bool:
    return True


def refuse_everything(request) -> bool:
    return False


def raises(request) -> bool:
    raise RuntimeError("student bug")


def test_an_id_gives_its_own_night_always_the_same():
    p = lab02.params(ID)
    assert p == lab02.params(f"  {ID} ") and p != lab02.params(OTHER_ID)
    assert 5_000 <= p.fleet_droplets_count <= 8_000 and p.fleet_droplets_count % 100 == 0
    assert 7_200 <= p.outage_end_s <= 10_800 and p.outage_end_s % 300 == 0
    cfg = lab02.config(ID)
    assert (cfg.fleet_droplets_count, cfg.outage_end_s, cfg.seed) == (
        p.fleet_droplets_count,
        p.outage_end_s,
        p.seed,
    )
    assert cfg.operator_throttle_at_s is None and cfg.operator_restart_at_s is None
    with pytest.raises(ConfigError, match="student_id"):
        lab02.params("  ")


def test_two_ids_get_different_expected_answers():
    mine, theirs = lab02.key(ID), lab02.key(OTHER_ID)
    assert mine["wasted_fraction"] != theirs["wasted_fraction"]
    assert (mine["fleet_droplets_count"], mine["outage_end_s"]) != (
        theirs["fleet_droplets_count"],
        theirs["outage_end_s"],
    )


@pytest.mark.parametrize("fleet", [5_000, 8_000])
@pytest.mark.parametrize("outage_end_s", [7_200.0, 10_800.0])
def test_every_night_of_the_assignment_collapses_without_admission_control(fleet, outage_end_s):
    # The model answer says so for every night: checked at the corners of the parameters' range.
    cfg = replace(lab02.config(ID), fleet_droplets_count=fleet, outage_end_s=outage_end_s)
    s = dwfm.run(cfg).summary
    assert not s.recovered and s.wasted_fraction > 0.9


def test_the_measured_answers_are_checked_against_the_collected_ids_model():
    k = lab02.key(ID)
    lab02.check_wasted_fraction(k["wasted_fraction"], ID)
    lab02.check_leased_at_horizon(k["leased_at_horizon_count"], ID)
    assert "not what your night gives" in fails(lab02.check_leased_at_horizon, k["leased_at_horizon_count"] + 1, ID)
    assert "must be an int" in fails(lab02.check_leased_at_horizon, float(k["leased_at_horizon_count"]), ID)
    assert "not what your night gives" in fails(lab02.check_wasted_fraction, k["wasted_fraction"] + 0.001, ID)
    # A copy of another student's notebook is graded as its collector's id: the friend's answer fails.
    other = lab02.key(OTHER_ID)["wasted_fraction"]
    fails(lab02.check_wasted_fraction, other, ID)
    lab02.check_wasted_fraction(other, OTHER_ID)


def test_the_prediction_refuses_to_run_before_it_is_recorded_and_checks_its_values():
    before = lab02.Prediction()
    with pytest.raises(ConfigError, match="record your prediction first"):
        before.run(ID)
    before.record(recovers=False, wasted_fraction=0.9)
    before.run(ID)
    for bad in ({"recovers": "no", "wasted_fraction": 0.5}, {"recovers": True, "wasted_fraction": 1.5}):
        with pytest.raises(ConfigError):
            lab02.Prediction().record(**bad)


def test_the_reference_policy_earns_every_design_point():
    policy = lab02.reference_admission_policy
    lab02.check_policy_admits_a_short_queue(policy, ID)
    lab02.check_policy_recovers(policy, ID)
    lab02.check_policy_wastes_little(policy, ID)
    lab02.check_policy_on_other_hosts(policy, ID)


def test_a_queue_limit_tuned_to_one_fleet_loses_only_the_other_hosts_point():
    lab02.check_policy_admits_a_short_queue(queue_below_50, ID)
    lab02.check_policy_recovers(queue_below_50, ID)
    lab02.check_policy_wastes_little(queue_below_50, ID)
    assert "work_deadline_s=240" in fails(lab02.check_policy_on_other_hosts, queue_below_50, ID)


def test_no_constant_queue_limit_earns_every_design_point():
    # Below 40 a short queue of the 40-slot hosts is refused ...
    for limit in (1, 30, 39):
        assert "a short queue was refused" in fails(
            lab02.check_policy_admits_a_short_queue, lambda r, limit=limit: r.queue_count < limit, ID
        )
    # ... and from 40 on, work waits past the 240 s deadline.
    for limit in (40, 1_000):
        assert "work_deadline_s=240" in fails(
            lab02.check_policy_on_other_hosts, lambda r, limit=limit: r.queue_count < limit, ID
        )


def test_shedding_nearly_everything_earns_no_waste_point():
    def trickle(request) -> bool:  # an adversarial helper's policy: a few items, hardly any waste
        return request.time_s == 12_000.0 and request.host == 0

    assert "fewer than" in fails(lab02.check_policy_wastes_little, trickle, ID)


def test_admitting_everything_is_the_collapse_and_earns_only_the_short_queue_point():
    lab02.check_policy_admits_a_short_queue(admit_everything, ID)
    assert "not every lease came back" in fails(lab02.check_policy_recovers, admit_everything, ID)
    assert "was wasted" in fails(lab02.check_policy_wastes_little, admit_everything, ID)
    fails(lab02.check_policy_on_other_hosts, admit_everything, ID)


def test_shedding_everything_earns_nothing():
    assert "a short queue was refused" in fails(lab02.check_policy_admits_a_short_queue, refuse_everything, ID)
    fails(lab02.check_policy_recovers, refuse_everything, ID)
    assert "refused everything" in fails(lab02.check_policy_wastes_little, refuse_everything, ID)


def test_a_policy_that_raises_is_the_courses_error_naming_it():
    with pytest.raises(ConfigError, match="admission_policy=raises raised RuntimeError"):
        lab02.check_policy_recovers(raises, ID)


def test_the_grading_command_knows_the_assignment(capsys):
    assert cli.main(["key", lab02.ASSIGNMENT, "--id", ID]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(lab02.key(ID)))


def test_the_student_copy_holds_no_solution_and_no_hidden_test(tmp_path):
    pytest.importorskip("otter", reason="the [grading] extra (otter-grader) is not installed")
    assert cli.main(["build", lab02.ASSIGNMENT, "--out", str(tmp_path), "--student-only"]) == 0
    text = (tmp_path / "student" / f"{lab02.ASSIGNMENT}.ipynb").read_text(encoding="utf-8")
    for leak in (
        "SOLUTION",
        "hidden=True",
        "check_prediction",
        "check_policy",
        "rounds * request.lease_establish_s",
        "summary.wasted_fraction",
        "Model answer",
        "metastable",
    ):
        assert leak not in text, leak
    assert "def admission_policy(request):" in text and "STUDENT_ID" in text


def test_a_policy_that_tells_the_made_up_requests_from_a_run_loses_the_short_queue_point():
    # An adversarial helper's idea: answer the made-up requests right and shed otherwise; the check
    # also asks every request a real run of the student's night makes.
    def detects(request) -> bool:
        return request.time_s in (9_500.0, 12_000.0, 20_123.0) or request.queue_count < 5

    assert "a short queue was refused" in fails(lab02.check_policy_admits_a_short_queue, detects, ID)


def test_the_model_answer_and_rubric_say_what_backoff_does_in_the_model():
    """Question 4 (c)'s model answer and the rubric's 0 points: backoff bounds neither the queue nor the
    wait, yet a slow enough backoff ends the collapse for some fleets, not for every fleet."""
    sweep = dwfm.backoff_sweep()
    backoff = sweep[sweep["setting"].str.startswith("backoff")]
    immediate = sweep[sweep["setting"] == "immediate retries"].set_index("fleet_droplets_count")
    for fleet, rows in backoff.groupby("fleet_droplets_count"):
        assert (rows["peak_queue_per_host"] == immediate.at[fleet, "peak_queue_per_host"]).all(), "no bound"
    recovered = backoff.groupby("fleet_droplets_count")["recovered"].any()
    assert recovered.any() and not recovered.all(), "some fleets recover with a slow backoff, not every fleet"
    assert not recovered[recovered.index.max()], "the sweep's largest fleet does not"
