"""Lab 01's graded version: each id's race, the key, and the hidden checks, called directly.

The checks are what the grader's checking process runs; here they are called on the reference
conditional write, on wrong ones and on a copied answer, so that what each point rewards is
asserted. A class of lab 01 submissions graded end to end, in the sandbox, is in
``test_red_team.py``; the last test builds the assignment with ``otter assign`` and reads the
student copy.
"""

from __future__ import annotations

import json

import pytest

from coursetools.grading import __main__ as cli
from coursetools.grading import lab01 as tools_lab01
from labsupport.assignments import lab01 as student_lab01
from labsupport.errors import ConfigError
from labsupport.strategy import WriteRequest

from ._points import both, fails

lab01 = both(student_lab01, tools_lab01)
ID, OTHER_ID = "s1000001", "s1000009"


def off_by_one(request: WriteRequest) -> bool:
    """Off by one: lets an Enactor write the plan just before the endpoint's."""
    return request.active_plan is None or request.new_plan >= request.active_plan - 1


def always(request: WriteRequest) -> bool:
    """No guard at all: the incident's write."""
    return True


def test_an_id_gives_its_own_race_always_the_same():
    p = lab01.params(ID)
    assert p == lab01.params(f"  {ID} ") and p != lab01.params(OTHER_ID)
    assert 4 <= p.lock_losses_count <= 9
    cfg = lab01.config(ID)
    assert cfg.seed == p.seed and cfg.delays[0].lock_losses_count == p.lock_losses_count
    with pytest.raises(ConfigError, match="student_id"):
        lab01.params("")


def test_the_measured_answers_are_checked_against_the_collected_ids_model():
    k = lab01.key(ID)
    lab01.check_stale_overwrites(k["stale_overwrites"], ID)
    lab01.check_first_stale_write_s(k["first_stale_write_s"], ID)
    assert "not what your race gives" in fails(lab01.check_stale_overwrites, k["stale_overwrites"] + 1, ID)
    assert "must be an int" in fails(lab01.check_stale_overwrites, float(k["stale_overwrites"]), ID)
    # A copy of another student's notebook is graded as its collector's id: the friend's time fails.
    other = lab01.key(OTHER_ID)["first_stale_write_s"]
    assert other != k["first_stale_write_s"]
    fails(lab01.check_first_stale_write_s, other, ID)


def test_the_reference_conditional_write_earns_every_design_point():
    write = lab01.reference_conditional_write
    lab01.check_conditional_write_table(write)
    lab01.check_conditional_write_seeds(write, ID)
    lab01.check_conditional_write_explorer(write, recovers=False)
    lab01.check_conditional_write_explorer(write, recovers=True)


def test_no_guard_earns_no_design_point():
    assert "wrong decision" in fails(lab01.check_conditional_write_table, always)
    fails(lab01.check_conditional_write_seeds, always, ID)
    fails(lambda s: lab01.check_conditional_write_explorer(s, recovers=False), always)


def test_an_off_by_one_write_loses_the_table_point():
    assert "wrong decision" in fails(lab01.check_conditional_write_table, off_by_one)


def test_the_prediction_refuses_to_run_before_it_is_recorded():
    prediction = lab01.Prediction()
    with pytest.raises(ConfigError, match="record your prediction first"):
        prediction.run(ID)
    for bad in (-1, 1.5, True):
        with pytest.raises(ConfigError):
            lab01.Prediction().record(stale_overwrites=bad)


def test_the_grading_command_prints_the_key(capsys):
    assert cli.main(["key", lab01.ASSIGNMENT, "--id", ID]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(lab01.key(ID)))


def test_the_student_copy_holds_no_solution_and_no_hidden_test(tmp_path):
    pytest.importorskip("otter", reason="the [grading] extra (otter-grader) is not installed")
    assert cli.main(["build", lab01.ASSIGNMENT, "--out", str(tmp_path), "--student-only"]) == 0
    text = (tmp_path / "student" / f"{lab01.ASSIGNMENT}.ipynb").read_text(encoding="utf-8")
    for leak in (
        "SOLUTION",
        "hidden=True",
        "check_stale_overwrites",
        "check_conditional",
        "new_plan > request",
        "stale_overwrites_count",
        "TOCTOU",
        "Model answer",
        "coursetools",
    ):
        assert leak not in text, leak
    assert "def conditional_write(request):" in text and "labsupport.assignments" in text
    assert not list((tmp_path / "autograder").glob("*.zip")), "otter's autograder zip runs tests in the kernel"
