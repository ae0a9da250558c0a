"""The concept quiz's graded version, the instructor's side: the key and one check per question.

Scenario:
    The student's side (the questions, shown without their answers, and the form check) is
    :mod:`labsupport.assignments.concept_quiz`. The student sets ``answers[question_id]`` to the
    letters they choose; the sandboxed run exports each list, and the check gives the point for
    exactly the right set, scored with :func:`coursetools.quiz.score` against the quiz's key, which
    a student's install never holds.
Covers:
    The misconceptions page of the instructor guide, one question per entry.

::

    answers[id] --export (sandbox)--> letters --check_answer--> coursetools.quiz.score --> 1 or 0 point
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from labsupport.assignments.concept_quiz import ASSIGNMENT, check_form, params, question_ids, question_name

from .. import quiz
from .spec import Answer, Check, Question, Spec

__all__ = ["SPEC", "check_answer", "key"]


def key(student_id: str) -> dict[str, object]:
    """The instructor's key: the right letters of every question (the same for every id)."""
    return {"student_id": params(student_id).student_id, **quiz.answer_key()}


def check_answer(question_id: str, answer: object) -> None:
    """The point for exactly the right set of letters (:func:`coursetools.quiz.score`)."""
    check_form(question_id, answer)
    question = next(q for q in quiz.load() if q.id == question_id)
    table = quiz.score({question_id: answer}, [question])  # type: ignore[dict-item]
    assert bool(table["correct"].iloc[0]), f"question {question_id}: not the right choice"


def _check(question_id: str) -> Check:
    name = question_name(question_id)

    def run(answers: dict[str, Any], student_id: str) -> None:
        assert name in answers, f'answers["{question_id}"]: {answers.get("_why_" + name, "not set")}'
        check_answer(question_id, answers[name])

    return Check(name, "the right choice", 1, "answers", run)


def _spec() -> Spec:
    ids = question_ids()
    questions = tuple(Question(question_name(i), 1) for i in ids)
    answers = tuple(Answer(question_name(i), f"answers.get({i!r})", "letters", pattern="[a-f]") for i in ids)
    checks = tuple(_check(i) for i in ids)
    prepare: Callable[[str], None] = lambda i: None  # noqa: E731 (nothing to compute ahead)
    return Spec(
        assignment=ASSIGNMENT,
        questions=questions,
        answers=answers,
        strategy=None,
        strategy_field="",
        checks=checks,
        references=(),
        prepare=prepare,
        params=lambda i: {},
        key=key,
    )


SPEC = _spec()
