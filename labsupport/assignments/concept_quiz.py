"""The concept quiz's graded version, the student's side: the questions, shown without their answers.

Scenario:
    The book's two quiz pages (``chapters/quiz-before.md``, ``chapters/quiz-after.md``) score a
    reader in the browser, for the reader alone. A course that grades the quiz gives the same
    questions as an otter assignment (``assignments/00-concept-quiz``): each question is shown from
    the quiz's one data file (:func:`question_markdown`) and the student sets ``answers[question_id]``
    to the letters they choose; :func:`check_form` checks only that they are letters of that
    question. The right letters are in the grader's key (``coursetools``, which students do not
    install), which gives the point for the exact right set.
Covers:
    The misconceptions page of the instructor guide, one question per entry (:mod:`labsupport.quiz`).

::

    quiz.json --quiz.load()--> question_markdown(id) --> the student's notebook --check_form--> right form?
    (the grader: coursetools' quiz key --score--> 1 or 0 point a question)
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import quiz
from ._shared import digest

__all__ = [
    "ASSIGNMENT",
    "QuizParams",
    "check_form",
    "params",
    "question_ids",
    "question_markdown",
    "question_name",
]

#: The assignment's name (its folder under ``assignments/`` and otter's assignment name).
ASSIGNMENT = "00-concept-quiz"


@dataclass(frozen=True)
class QuizParams:
    """One student's quiz: the same questions for everyone (the quiz has no parameters).

    Attributes:
        student_id: the id, as collected.
    """

    student_id: str


def params(student_id: str) -> QuizParams:
    """``student_id``'s quiz (raises ConfigError on an empty id, as every assignment does)."""
    digest(ASSIGNMENT, student_id)
    return QuizParams(student_id.strip())


def question_ids() -> list[str]:
    """The quiz's question ids, in the order the book shows them."""
    return [q.id for q in quiz.load()]


def question_name(question_id: str) -> str:
    """The otter question's name for a quiz question: ``"dns-down"`` -> ``"q_dns_down"``."""
    return "q_" + question_id.replace("-", "_")


def _question(question_id: str) -> quiz.Question:
    for q in quiz.load():
        if q.id == question_id:
            return q
    raise AssertionError(f"no quiz question {question_id!r}; the questions are {question_ids()}")


def question_markdown(question_id: str) -> str:
    """One question as Markdown: its prompt, whether it takes one answer or several, and its
    lettered options (no answer and no explanation)."""
    q = _question(question_id)
    how = "Choose one." if q.kind == "single" else "Choose every option that applies."
    lines = [f"**{q.prompt}** {how}", ""]
    lines += [f"- **{o.id}.** {o.text}" for o in q.options]
    return "\n".join(lines)


def check_form(question_id: str, answer: object) -> None:
    """The public check: ``answer`` is a list of this question's letters (one for a single-answer
    question); raises AssertionError saying what to change."""
    q = _question(question_id)
    letters = [o.id for o in q.options]
    assert isinstance(answer, list), f'answers["{question_id}"] must be a list of letters, such as ["{letters[0]}"]'
    assert answer, f'answers["{question_id}"] is empty: choose from {letters}'
    unknown = [a for a in answer if a not in letters]
    assert not unknown, f'answers["{question_id}"] has {unknown}; the options are {letters}'
    if q.kind == "single":
        assert len(set(answer)) == 1, f'answers["{question_id}"] takes one letter, got {answer}'
