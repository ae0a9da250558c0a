"""Lab 01's graded version, end to end: otter assign builds it, the grading command grades a class.

One class of submissions is built from the assignment's own solution and student copy, graded once
with ``python -m labsupport.grading grade`` (``otter run`` per submission, no Docker, no network),
and every honesty claim is asserted on the CSV: the solution scores full marks, the blank copy 0,
one wrong answer loses exactly its points, and each dishonest submission earns nothing it did not
earn, without stopping the others' grading.
"""

from __future__ import annotations

import copy
import csv
import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

otter = pytest.importorskip("otter", reason="the [grading] extra (otter-grader) is not installed")

from labsupport.grading import __main__ as cli  # noqa: E402
from labsupport.grading import grade, lab01  # noqa: E402

SOLUTION_ID, OTHER_ID, COPIER_ID, LOOP_ID = "s1000001", "s1000009", "s1000013", "s1000010-loops"
AUTO_MAX = {"q1_predict": 1.0, "q2_measure": 2.0, "q3_design": 4.0}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    assert cli.main(["build", lab01.ASSIGNMENT, "--out", str(out)]) == 0
    return out


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _cell_with(nb: dict, text: str) -> dict:
    return next(c for c in nb["cells"] if c["cell_type"] == "code" and text in "".join(c["source"]))


def _set(nb: dict, text: str, new: str) -> dict:
    nb = copy.deepcopy(nb)
    cell = _cell_with(nb, text)
    cell["source"] = "".join(cell["source"]).replace(text, new)
    return nb


def _add_cell(nb: dict, source: str, *, after: str = "prediction = lab01.Prediction()") -> dict:
    nb = copy.deepcopy(nb)
    at = nb["cells"].index(_cell_with(nb, after)) + 1
    nb["cells"].insert(
        at, {"cell_type": "code", "metadata": {}, "source": source, "outputs": [], "execution_count": None}
    )
    return nb


def _submissions(built: Path) -> dict[str, dict]:
    solution = _load(built / "autograder" / f"{lab01.ASSIGNMENT}.ipynb")
    blank = _load(built / "student" / f"{lab01.ASSIGNMENT}.ipynb")
    other_key = lab01.key(OTHER_ID)
    no_public_tests = copy.deepcopy(blank)
    no_public_tests["metadata"]["otter"]["tests"] = {}
    return {
        SOLUTION_ID: solution,
        "s1000002-blank": blank,
        "s1000003-one-wrong": _set(
            solution,
            "stale_overwrites = result.summary.stale_overwrites_count",
            "stale_overwrites = result.summary.stale_overwrites_count + 1",
        ),
        "s1000004-redefines-check": _add_cell(blank, 'grader.check = lambda *a, **k: print("All test cases passed!")'),
        "s1000005-no-public-tests": no_public_tests,
        "s1000006-writes-tests": _add_cell(
            blank,
            (
                'for q in ("q1_predict", "q2_measure", "q3_design"):\n'
                '    open(f"tests/{q}.py", "w").write("OK_FORMAT = False\\nname = q\\npoints = 9\\ntest_cases = []\\n")'
            ),
        ),
        "s1000007-reads-hidden": _add_cell(blank, 'print(open("tests/q2_measure.py").read())'),
        "s1000008-fake-print": _add_cell(
            blank, 'print("q1_predict results: All test cases passed!")\nprint("Total Score: 7.000 / 7.000 (100.000%)")'
        ),
        # a copy of another student's notebook, their measured numbers typed in
        COPIER_ID: _set(
            _set(
                _set(solution, 'STUDENT_ID = "s0000000"', f'STUDENT_ID = "{OTHER_ID}"'),
                "stale_overwrites = result.summary.stale_overwrites_count",
                f"stale_overwrites = {other_key['stale_overwrites']}",
            ),
            'first_stale_write_s = float(result.events.loc[result.events["action"] == "stale_write", '
            '"time_s"].iloc[0])',
            f"first_stale_write_s = {other_key['first_stale_write_s']!r}",
        ),
        LOOP_ID: _add_cell(blank, "while True:\n    pass"),
        "s1000011-memory": _add_cell(blank, "hog = bytearray(64 * 1024**3)"),
        "s1000012-raises": _add_cell(blank, 'raise RuntimeError("student bug")'),
    }


@pytest.fixture(scope="module")
def graded(built, tmp_path_factory) -> dict[str, dict[str, str]]:
    """Grade the class once: the endless loop beside the others, with a short timeout of its own."""
    folder, looping = tmp_path_factory.mktemp("submissions"), tmp_path_factory.mktemp("looping")
    for sid, nb in _submissions(built).items():
        (looping if sid == LOOP_ID else folder).joinpath(f"{sid}.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    out = Path(os.environ.get("LABSUPPORT_GRADING_SAMPLE") or tmp_path_factory.mktemp("grades"))
    autograder = next((built / "autograder").glob("*.zip"))
    with ThreadPoolExecutor(max_workers=1) as pool:
        loop = pool.submit(
            grade.grade_one,
            LOOP_ID,
            looping / f"{LOOP_ID}.ipynb",
            autograder,
            assignment=lab01.ASSIGNMENT,
            timeout_s=20.0,
        )
        grades = grade.grade_folder(
            folder, autograder, assignment=lab01.ASSIGNMENT, jobs=2, timeout_s=600.0, memory_mb=4096
        )
        grades.append(loop.result())
    grade.write_csv(
        grades, out / "grades.csv", manual=("q4_explain",), feedback_dir=out / "feedback", params=lab01.params
    )
    with (out / "grades.csv").open(encoding="utf-8") as f:
        rows = {r["student_id"]: r for r in csv.DictReader(f)}
    rows["_feedback"] = {p.stem: p.read_text(encoding="utf-8") for p in (out / "feedback").glob("*.md")}
    return rows


def _scores(row: dict[str, str]) -> dict[str, float]:
    return {q: float(row[q]) for q in AUTO_MAX}


def test_the_student_copy_holds_no_solution_and_no_hidden_test(built):
    text = (built / "student" / f"{lab01.ASSIGNMENT}.ipynb").read_text(encoding="utf-8")
    for leak in (
        "SOLUTION",
        "hidden=True",
        "check_prediction",
        "check_stale_overwrites",
        "new_plan > request",
        "stale_overwrites_count",
        "TOCTOU",
        "Model answer",
    ):
        assert leak not in text, leak


def test_the_solution_scores_full_marks(graded):
    row = graded[SOLUTION_ID]
    assert _scores(row) == AUTO_MAX and float(row["auto_total"]) == 7 and row["q4_explain"] == ""


def test_the_blank_copy_scores_zero_on_every_auto_graded_question(graded):
    assert set(_scores(graded["s1000002-blank"]).values()) == {0.0}


def test_one_wrong_answer_loses_exactly_that_answers_point(graded):
    scores = _scores(graded["s1000003-one-wrong"])
    assert scores == {**AUTO_MAX, "q2_measure": 1.0}


@pytest.mark.parametrize(
    "sid",
    [
        "s1000004-redefines-check",
        "s1000005-no-public-tests",
        "s1000006-writes-tests",
        "s1000007-reads-hidden",
        "s1000008-fake-print",
        LOOP_ID,
        "s1000011-memory",
        "s1000012-raises",
    ],
)
def test_a_dishonest_or_broken_blank_submission_earns_nothing(graded, sid):
    assert set(_scores(graded[sid]).values()) == {0.0}


@pytest.mark.parametrize("sid", ["s1000004-redefines-check", "s1000006-writes-tests", "s1000007-reads-hidden"])
def test_tampering_is_flagged_for_the_instructor(graded, sid):
    assert "flagged for review" in graded[sid]["flags"]


def test_an_endless_loop_is_stopped_and_noted(graded):
    assert "timed out" in graded[LOOP_ID]["flags"]


def test_a_copy_of_another_students_notebook_is_graded_against_its_own_id(graded):
    copier, other = lab01.key(COPIER_ID), lab01.key(OTHER_ID)
    assert copier["first_stale_write_s"] != other["first_stale_write_s"]
    row = graded[COPIER_ID]
    assert "another id" in row["flags"]
    assert float(row["q2_measure"]) == (copier["stale_overwrites"] == other["stale_overwrites"])
    assert _scores(row)["q3_design"] == AUTO_MAX["q3_design"]  # the copied code still runs, for its own id


def test_every_student_gets_a_feedback_file_naming_their_parameters(graded):
    feedback = graded["_feedback"]
    assert set(feedback) == {k for k in graded if not k.startswith("_")}
    assert f"seed={lab01.params(SOLUTION_ID).seed}" in feedback[SOLUTION_ID]
    assert "q3_design: 4 / 4" in feedback[SOLUTION_ID]
