"""The concept quiz's graded version, the instructor's side: each student's key and one check per slot.

Scenario:
    The student's side (each id's form, drawn from the bank; the questions shown without their
    answers; the form check) is :mod:`labsupport.assignments.concept_quiz`. The student sets
    ``answers[slot]`` to the letters they choose; the sandboxed run exports each list, and the check
    maps the letters back to the bank's options for the collected id's form and gives the point for
    exactly the right set, scored with :func:`coursetools.quiz.score` against the quiz's key, which
    a student's install never holds. The form is the collected id's, whatever id the notebook named.
Covers:
    The misconceptions page of the instructor guide, one question per entry.

::

    answers[slot] --export (sandbox)--> letters --option_ids(collected id)--> bank options
        --coursetools.quiz.score--> 1 or 0 point
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from labsupport.assignments.concept_quiz import (
    ASSIGNMENT,
    SLOTS,
    check_form,
    option_ids,
    params,
    question_name,
    shown_options,
)

from .. import quiz
from .spec import Answer, Check, Question, Spec

__all__ = ["SPEC", "check_answer", "key"]


def key(student_id: str) -> dict[str, object]:
    """The instructor's key for ``student_id``'s form: for each slot, the question asked and the
    right letters as the student's notebook shows them.

    Returns:
        ``{"student_id", "questions": {slot: question id}, "answers": {slot: [letters]}}``.
    """
    p = params(student_id)
    right = quiz.answer_key()
    answers = {}
    for slot, qid in zip(SLOTS, p.questions, strict=True):
        answers[slot] = [letter for letter, o in shown_options(student_id, slot) if o.id in right[qid]]
    return {"student_id": p.student_id, "questions": dict(zip(SLOTS, p.questions, strict=True)), "answers": answers}


def check_answer(student_id: str, slot: str, answer: object) -> None:
    """The point for exactly the right set of letters of ``student_id``'s question in ``slot``."""
    check_form(student_id, slot, answer)
    qid, chosen = option_ids(student_id, slot, list(answer))  # type: ignore[call-overload]
    question = next(q for q in quiz.load() if q.id == qid)
    table = quiz.score({qid: chosen}, [question])
    assert bool(table["correct"].iloc[0]), f"question {SLOTS.index(slot) + 1} ({slot}): not the right choice"


def _check(slot: str) -> Check:
    name = question_name(slot)

    def run(answers: dict[str, Any], student_id: str) -> None:
        assert name in answers, f'answers["{slot}"]: {answers.get("_why_" + name, "not set")}'
        check_answer(student_id, slot, answers[name])

    return Check(name, "the right choice", 1, "answers", run)


def _params(student_id: str) -> dict[str, object]:
    """The feedback's parameters: the question asked in each slot."""
    return {"questions": dict(zip(SLOTS, params(student_id).questions, strict=True))}


def _spec() -> Spec:
    questions = tuple(Question(question_name(s), 1) for s in SLOTS)
    answers = tuple(Answer(question_name(s), f"answers.get({s!r})", "letters", pattern="[a-f]") for s in SLOTS)
    checks = tuple(_check(s) for s in SLOTS)
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
        params=_params,
        key=key,
    )


SPEC = _spec()
