"""The concept quiz's graded version: its questions come from the quiz's data file, the checks score
with the quiz's key (coursetools.quiz), which the student's package does not hold.

A class of quiz submissions graded end to end, in the sandbox, is in ``test_red_team.py``; the
last test builds the assignment with ``otter assign`` and reads the student copy.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coursetools import quiz
from coursetools.grading import __main__ as cli
from coursetools.grading import concept_quiz as tools_quiz
from labsupport.assignments import concept_quiz as student_quiz
from labsupport.errors import ConfigError

from ._points import both

concept_quiz = both(student_quiz, tools_quiz)

SOURCE = (
    Path(__file__).resolve().parents[2] / "assignments" / concept_quiz.ASSIGNMENT / f"{concept_quiz.ASSIGNMENT}.ipynb"
)


def _source() -> dict:
    return json.loads(SOURCE.read_text(encoding="utf-8"))


def _text(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def test_the_assignment_asks_every_question_of_the_quiz_in_its_order_one_point_each():
    cells = [_text(c) for c in _source()["cells"]]
    names = [c.split("name: ", 1)[1].split("\n", 1)[0] for c in cells if c.startswith("# BEGIN QUESTION")]
    assert names == [concept_quiz.question_name(i) for i in concept_quiz.question_ids()]
    assert sum("points: 1" in c for c in cells if c.startswith("# BEGIN QUESTION")) == len(names)
    shown = [c for c in cells if c.startswith("Markdown(concept_quiz.question_markdown(")]
    assert shown == [f'Markdown(concept_quiz.question_markdown("{i}"))' for i in concept_quiz.question_ids()]


def test_the_solutions_are_the_quizs_answer_key():
    solutions = {}
    for cell in _source()["cells"]:
        text = _text(cell)
        if text.startswith('answers["') and "# SOLUTION" in text:
            qid = text.split('"', 2)[1]
            solutions[qid] = json.loads(text.split("=", 1)[1].split("#", 1)[0].strip().replace("'", '"'))
    assert solutions == quiz.answer_key()


def test_a_question_shows_its_prompt_and_options_and_no_answer():
    q = quiz.load()[0]
    text = concept_quiz.question_markdown(q.id)
    assert q.prompt in text and all(f"**{o.id}.** {o.text}" in text for o in q.options)
    assert all(o.explanation not in text for o in q.options)


def test_the_point_goes_to_exactly_the_right_set():
    key = quiz.answer_key()
    for q in quiz.load():
        concept_quiz.check_answer(q.id, list(key[q.id]))
        wrong = [o.id for o in q.options if not o.correct][:1]
        with pytest.raises(AssertionError, match="not the right choice"):
            concept_quiz.check_answer(q.id, wrong if q.kind == "single" else list(key[q.id]) + wrong)


@pytest.mark.parametrize("answer", [None, ..., "b", [], ["z"], ["a", "b"]])
def test_an_answer_of_the_wrong_form_says_what_to_change(answer):
    single = next(q for q in quiz.load() if q.kind == "single")
    with pytest.raises(AssertionError, match=f'answers\\["{single.id}"\\]'):
        concept_quiz.check_form(single.id, answer)


def test_the_key_is_the_quiz_for_every_id_and_an_empty_id_is_refused():
    assert concept_quiz.key("s1") == {"student_id": "s1", **quiz.answer_key()}
    with pytest.raises(ConfigError, match="student_id"):
        concept_quiz.params(" ")


def test_the_student_copy_holds_no_answer(tmp_path):
    pytest.importorskip("otter", reason="the [grading] extra (otter-grader) is not installed")
    assert cli.main(["build", concept_quiz.ASSIGNMENT, "--out", str(tmp_path), "--student-only"]) == 0
    text = (tmp_path / "student" / f"{concept_quiz.ASSIGNMENT}.ipynb").read_text(encoding="utf-8")
    assert "SOLUTION" not in text and "check_answer" not in text and "hidden=True" not in text
    for qid, letters in quiz.answer_key().items():
        assert f'answers[\\"{qid}\\"] = {letters!r}'.replace("'", '\\"') not in text
