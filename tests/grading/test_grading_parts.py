"""The graded lab's parts without otter: parameters from ids, the key, the hidden checks, the scan.

Fast checks of :mod:`labsupport.grading.lab01` and :mod:`labsupport.grading.grade`; the end-to-end
grading with otter is ``tests/grading/test_grading_lab01.py``.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from labsupport import race
from labsupport.errors import ConfigError
from labsupport.grading import grade, lab01
from labsupport.strategy import WriteRequest

ROOT = Path(__file__).resolve().parents[2]

IDS = [f"s{1000000 + k}" for k in range(40)]


def test_parameters_are_a_function_of_the_id():
    assert lab01.params("s1234567") == lab01.params("s1234567") == lab01.params(" s1234567 ")
    assert all(4 <= lab01.params(i).lock_losses_count <= 9 for i in IDS)


def test_different_ids_get_different_races_and_different_expected_answers():
    assert len({lab01.params(i).seed for i in IDS}) == len(IDS)
    answers = {lab01.key(i)["first_stale_write_s"] for i in IDS[:10]}
    assert len(answers) == 10


def test_the_key_is_computed_from_the_model_for_the_id():
    k = lab01.key("s1234567")
    result = race.run(lab01.config("s1234567"))
    assert k["stale_overwrites"] == result.summary.stale_overwrites_count
    stale = result.events[result.events["action"] == "stale_write"]
    assert k["first_stale_write_s"] == float(stale["time_s"].iloc[0])


@pytest.mark.parametrize("bad", ["", "   ", None, 12])
def test_an_empty_or_non_string_id_is_refused(bad):
    with pytest.raises(ConfigError, match="student_id"):
        lab01.params(bad)


def test_the_graded_id_comes_from_the_grader_when_it_gives_one(monkeypatch):
    monkeypatch.delenv(lab01.GRADED_ID_VARIABLE, raising=False)
    assert lab01.graded_id("s1") == "s1"
    monkeypatch.setenv(lab01.GRADED_ID_VARIABLE, "s2")
    assert lab01.graded_id("s1") == "s2"


def test_measurement_checks_accept_the_models_answer_and_refuse_another(monkeypatch):
    monkeypatch.delenv(lab01.GRADED_ID_VARIABLE, raising=False)
    k = lab01.key("s1234567")
    lab01.check_stale_overwrites(k["stale_overwrites"], "s1234567")
    lab01.check_first_stale_write_s(k["first_stale_write_s"] + 0.3, "s1234567")
    with pytest.raises(AssertionError):
        lab01.check_stale_overwrites(k["stale_overwrites"] + 1, "s1234567")
    with pytest.raises(AssertionError):
        lab01.check_first_stale_write_s(k["first_stale_write_s"] + 5, "s1234567")
    with pytest.raises(AssertionError):
        lab01.check_stale_overwrites(float(k["stale_overwrites"]), "s1234567")


def test_the_prediction_counts_only_when_made_before_the_run():
    p = lab01.Prediction()
    with pytest.raises(ConfigError, match="prediction first"):
        p.run("s1")
    p.record(stale_overwrites=2)
    lab01.check_prediction(p)
    p.run("s1")
    p.record(stale_overwrites=3)
    with pytest.raises(AssertionError, match="after the run"):
        lab01.check_prediction(p)
    with pytest.raises(ConfigError):
        lab01.Prediction().record(stale_overwrites=-1)


def test_the_reference_conditional_write_passes_every_hidden_check():
    ref = lab01.reference_conditional_write
    lab01.check_conditional_write_table(ref)
    lab01.check_conditional_write_seeds(ref, "s1234567", seeds_count=3)
    lab01.check_conditional_write_explorer(ref, recovers=False)
    lab01.check_conditional_write_explorer(ref, recovers=True)


@pytest.mark.parametrize(
    "wrong, failing",
    [
        (lambda r: True, {"table", "seeds", "safe"}),  # the incident: no condition
        (lambda r: False, {"table", "seeds", "safe"}),  # never writes: clean-up then deletes the plan in use
        (lambda r: r.active_plan is None or r.new_plan >= r.active_plan - 1, {"table", "seeds", "safe"}),
    ],
)
def test_wrong_conditional_writes_fail_the_hidden_checks_they_should(wrong, failing):
    checks = {
        "table": lambda: lab01.check_conditional_write_table(wrong),
        "seeds": lambda: lab01.check_conditional_write_seeds(wrong, "s1234567", seeds_count=3),
        "safe": lambda: lab01.check_conditional_write_explorer(wrong, recovers=False),
    }
    failed = set()
    for name, check in checks.items():
        try:
            check()
        except (AssertionError, ConfigError):
            failed.add(name)
    assert failed == failing


def test_a_strategy_that_never_returns_fails_the_table_check_with_the_courses_error():
    def spins(request: WriteRequest) -> bool:
        while True:
            pass

    with pytest.raises(ConfigError, match=r"conditional_write=.*spins"):
        lab01.check_conditional_write_table(spins)


def _nb(*sources: str) -> dict:
    cells = [{"cell_type": "code", "source": '# Initialize Otter\nimport otter\ngrader = otter.Notebook("a.ipynb")'}]
    cells += [{"cell_type": "code", "source": s} for s in sources]
    return {"cells": cells, "metadata": {}}


def test_the_scan_passes_an_honest_solution_and_otters_own_cell():
    assert (
        grade.scan(
            _nb(
                'STUDENT_ID = "s1"',
                "from labsupport.grading import lab01\np = lab01.Prediction()",
                "from labsupport.grading import lab02\nprediction = lab02.Prediction()",
                "def conditional_write(request):\n    return request.new_plan > (request.active_plan or 0)",
                'grader.check("q1_predict")',
                "%matplotlib inline",
            )
        )
        == []
    )


@pytest.mark.parametrize(
    "source",
    [
        "grader.check = lambda *a: None",
        "from otter.execute import Checker",
        'open("tests/q3_design.py", "w").write("")',
        'print(open("../tests/q1.py").read())',
        "import os\nos.environ['LABSUPPORT_GRADED_ID'] = 's2'",
        "import sys\nsys.settrace(None)",
        "lab01.check_prediction = print",
        "lab02.check_policy_recovers = print",
        "prediction.made_before_run = True",
        "prediction._ran = False",
        "STUDENT_ID.strip = 1",
        "__import__('o' + 's')",
        # an adversarial helper's attacks, each once scored full marks unflagged
        "L = lab06\nsetattr(L, 'check_prediction', lambda *a, **k: None)",
        "from labsupport.grading import lab06\nL = lab06\nL.check_states_count = print",
        "import labsupport.grading.lab06 as M\nM.check_states_count = print",
        "from labsupport import explore\nexplore.run = lambda cfg=None: None",
        "from labsupport import explore\nrun = explore\nrun.run = print",
        "from labsupport.grading import lab06 as L6\nk = L6.key(STUDENT_ID)",
        "from labsupport.grading import lab06\nx = lab06\nprint(x.reference_cleanup_delete)",
        "cleanup_delete = getattr(lab06, 'reference_' + 'cleanup_delete')",
        "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    g = e.__traceback__.tb_frame.f_back.f_globals",
        "p = prediction\np._ran = False",
        "lab06.Prediction._lab_ran = False",
        "type(prediction).__init__",
        # the second adversarial helper's: reflection the names missed, and handlers that swallow the stop
        "from operator import attrgetter\nk = attrgetter('ke' + 'y')(lab04)(STUDENT_ID)",
        "def rule(r):\n    while 1:\n        try:\n            pass\n        except BaseException:\n            pass",
        "def rule(r):\n    try:\n        return True\n    except:\n        return False",
    ],
)
def test_the_scan_flags_code_that_reaches_into_the_grader(source):
    assert grade.scan(_nb(source))


@pytest.mark.parametrize(
    "source",
    [
        "m, = [lab04]\nm.check_rule_on_your_night = lambda *a, **k: None",
        "[lab04][0].check_rule_on_other_nights = lambda *a, **k: None",
        "def install(mod):\n    mod.run = lambda *a, **k: None\ninstall(dns_cache)",
    ],
)
def test_a_patch_the_scan_misses_is_caught_when_the_hidden_tests_run(source):
    # The static scan cannot follow every alias; the hidden checks assert the course is intact.
    from labsupport import dns_cache
    from labsupport.grading import lab04
    from labsupport.grading._shared import check_course_intact

    saved = dict(vars(lab04)), dns_cache.run
    try:
        exec(source, {"lab04": lab04, "dns_cache": dns_cache})  # the attack, in a test
        with pytest.raises(AssertionError, match="the course's code was changed"):
            check_course_intact()
        with pytest.raises(AssertionError, match="the course's code was changed"):
            lab04.check_recovery_most_s(1.0, "s1")
    finally:
        vars(lab04).update(saved[0])
        dns_cache.run = saved[1]
    check_course_intact()


@pytest.mark.parametrize("source", sorted((ROOT / "assignments").glob("*/*.ipynb")), ids=lambda p: p.parent.name)
def test_the_scan_passes_every_assignments_own_solution(source):
    # The solution's code cells, as a student who wrote them would hand them in (test cells left out).
    nb = json.loads(source.read_text(encoding="utf-8"))
    nb["cells"] = [c for c in nb["cells"] if "# BEGIN TEST CONFIG" not in "".join(c["source"])]
    assert grade.scan(nb) == []


def test_the_collected_id_replaces_the_notebooks():
    nb = _nb('STUDENT_ID = "s999"  # replace with your student id', "x = 1")
    assert grade.pin_student_id(nb, "s1") is True
    assert nb["cells"][1]["source"] == "STUDENT_ID = 's1'"
    assert grade.pin_student_id(_nb(f'STUDENT_ID = "{grade.PLACEHOLDER_ID}"'), "s1") is False


def test_submissions_are_found_as_files_or_folders_named_by_id(tmp_path):
    (tmp_path / "s2.ipynb").write_text(json.dumps(_nb()))
    (tmp_path / "s1").mkdir()
    (tmp_path / "s1" / "lab.ipynb").write_text(json.dumps(_nb()))
    (tmp_path / "notes.txt").write_text("")
    assert [i for i, _ in grade.find_submissions(tmp_path)] == ["s1", "s2"]


def test_the_csv_has_a_row_per_student_a_column_per_question_and_a_total(tmp_path):
    a = grade.Grade("s1", {"q1": 1.0, "q2": 1.0}, {"q1": 1.0, "q2": 2.0}, [], {"q1": "ok"})
    b = grade.Grade("s2", {"q1": 0.0, "q2": 2.0}, {"q1": 1.0, "q2": 2.0}, ["timed out"], {})
    grade.write_csv(
        [a, b],
        tmp_path / "g.csv",
        manual=("q3",),
        feedback_dir=tmp_path / "fb",
        params=lambda i: replace(lab01.params(i)),
    )
    lines = (tmp_path / "g.csv").read_text().splitlines()
    assert lines[0] == "student_id,q1,q2,q3,auto_total,auto_max,flags,seconds"
    assert lines[1].startswith("s1,1,1,,2,3,,") and lines[2].startswith("s2,0,2,,2,3,timed out,")
    assert "q2: 1 / 2" in (tmp_path / "fb" / "s1.md").read_text()


def test_a_run_that_reports_no_question_scores_is_flagged():
    g = grade.Grade("s1")
    grade._read_results(g, {"tests": [{"name": "Public Tests", "status": "passed"}]})
    assert g.scores == {} and "no question scores" in g.flags[0]
    ok = grade.Grade("s2")
    grade._read_results(ok, {"tests": [{"name": "q1", "score": 1, "max_score": 1, "output": "passed"}]})
    assert ok.scores == {"q1": 1.0} and ok.flags == []


def test_an_id_is_the_same_in_any_unicode_form_and_one_utf8_cannot_encode_is_refused(capsys):
    from labsupport.grading import __main__ as cli
    from labsupport.grading._shared import digest

    assert digest("a", "s-\u00e9") == digest("a", "s-e\u0301") == digest("a", " s-\u00e9\n")
    with pytest.raises(ConfigError, match="UTF-8"):
        digest("a", "s\ud800")
    with pytest.raises(SystemExit) as stopped:
        cli.main(["key", "05-six-stop-points", "--id", "s\ud800"])
    assert stopped.value.code == 2 and "UTF-8" in capsys.readouterr().err
