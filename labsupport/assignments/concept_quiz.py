"""The concept quiz's graded version, the student's side: each student's own form, shown without its answers.

Scenario:
    The book's two quiz pages (``chapters/quiz-before.md``, ``chapters/quiz-after.md``) score a
    reader in the browser, for the reader alone; each asks one form of the quiz's bank. A course
    that grades the quiz gives it as an otter assignment (``assignments/00-concept-quiz``) in which
    every student gets a form of their own, drawn from the whole bank by their id
    (:func:`params`): for each misconception (a *slot*, :data:`SLOTS`), one of the bank's questions
    about it, its options in an order of its own, lettered a, b, c ... as shown. Two students
    almost always get different forms, and the same student always the same one. The student sets
    ``answers["<slot>"]`` to the letters they choose; :func:`check_form` checks only that they are
    letters of that question. Which letters are right is in the grader's key (``coursetools``,
    which students do not install), which maps the letters back with :func:`option_ids`.
Covers:
    The misconceptions page of the instructor guide, one question per entry (:mod:`labsupport.quiz`).

::

    student id --sha256--> QuizParams(question per slot, option order per slot)
        --question_markdown(id, slot)--> the student's notebook --check_form--> right form?
    (the grader: option_ids(id, slot, letters) + coursetools' quiz key --score--> 1 or 0 point a slot)
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .. import quiz
from ..errors import ConfigError
from ._shared import digest

__all__ = [
    "ASSIGNMENT",
    "SLOTS",
    "QuizParams",
    "check_form",
    "option_ids",
    "params",
    "question_markdown",
    "question_name",
    "shown_options",
]

#: The assignment's name (its folder under ``assignments/`` and otter's assignment name).
ASSIGNMENT = "00-concept-quiz"

#: The quiz's slots, one per misconception, in the order the book's forms ask them: the
#: misconception's label without its ``mc-`` prefix (``"dns-down"`` for ``mc-dns-down``).
SLOTS: tuple[str, ...] = tuple(q.misconception.removeprefix("mc-") for q in quiz.form("before"))


@dataclass(frozen=True)
class QuizParams:
    """One student's form of the quiz.

    Attributes:
        student_id: the id, as collected.
        questions: for each slot of :data:`SLOTS`, in order, the id of the bank's question the
            student is asked.
        orders: for each slot, the question's option ids in the order shown (shown as a, b, c ...).
    """

    student_id: str
    questions: tuple[str, ...]
    orders: tuple[tuple[str, ...], ...]


def _bank(slot: str) -> list[quiz.Question]:
    """The bank's questions about ``slot``'s misconception, in the data file's order."""
    if slot not in SLOTS:
        raise AssertionError(f"no quiz slot {slot!r}; the slots are {list(SLOTS)}")
    return [q for q in quiz.load() if q.misconception == "mc-" + slot]


def params(student_id: str) -> QuizParams:
    """``student_id``'s form: a question per slot and an order of its options, drawn from the id's
    SHA-256 (one stream for the whole form, in slot order). Deterministic; raises ConfigError on an
    empty id."""
    rng = random.Random(int.from_bytes(digest(ASSIGNMENT, student_id), "big"))
    questions, orders = [], []
    for slot in SLOTS:
        q = rng.choice(_bank(slot))
        order = [o.id for o in q.options]
        rng.shuffle(order)
        questions.append(q.id)
        orders.append(tuple(order))
    return QuizParams(student_id.strip(), tuple(questions), tuple(orders))


def question_name(slot: str) -> str:
    """The otter question's name for a slot: ``"dns-down"`` -> ``"q_dns_down"``."""
    return "q_" + slot.replace("-", "_")


def _asked(student_id: str, slot: str) -> tuple[quiz.Question, tuple[str, ...]]:
    """The question ``student_id`` is asked in ``slot``, and its option ids in the order shown."""
    bank = _bank(slot)
    p = params(student_id)
    k = SLOTS.index(slot)
    return next(q for q in bank if q.id == p.questions[k]), p.orders[k]


def shown_options(student_id: str, slot: str) -> list[tuple[str, quiz.Option]]:
    """``(letter shown, option)`` of ``student_id``'s question in ``slot``, in the order shown."""
    q, order = _asked(student_id, slot)
    by_id = {o.id: o for o in q.options}
    return [(chr(ord("a") + i), by_id[oid]) for i, oid in enumerate(order)]


def option_ids(student_id: str, slot: str, letters: list[str]) -> tuple[str, list[str]]:
    """The question ``student_id`` is asked in ``slot`` and the bank's option ids of the letters shown.

    Raises:
        ConfigError: a letter the question does not show.
    """
    q, order = _asked(student_id, slot)
    shown = {chr(ord("a") + i): oid for i, oid in enumerate(order)}
    unknown = [x for x in letters if x not in shown]
    if unknown:
        raise ConfigError(f'answers["{slot}"] has {unknown}; the options are {sorted(shown)}')
    return q.id, [shown[x] for x in letters]


def question_markdown(student_id: str, slot: str) -> str:
    """``student_id``'s question in ``slot`` as Markdown: its prompt, whether it takes one answer or
    several, and its options lettered in the order shown (no answer and no explanation)."""
    q, _ = _asked(student_id, slot)
    how = "Choose one." if q.kind == "single" else "Choose every option that applies."
    lines = [f"**{q.prompt}** {how}", ""]
    lines += [f"- **{letter}.** {o.text}" for letter, o in shown_options(student_id, slot)]
    return "\n".join(lines)


def check_form(student_id: str, slot: str, answer: object) -> None:
    """The public check: ``answer`` is a list of the letters shown for ``student_id``'s question in
    ``slot`` (one for a single-answer question); raises AssertionError saying what to change."""
    q, order = _asked(student_id, slot)
    letters = [chr(ord("a") + i) for i in range(len(order))]
    assert isinstance(answer, list), f'answers["{slot}"] must be a list of letters, such as ["{letters[0]}"]'
    assert answer, f'answers["{slot}"] is empty: choose from {letters}'
    unknown = [a for a in answer if a not in letters]
    assert not unknown, f'answers["{slot}"] has {unknown}; the options are {letters}'
    if q.kind == "single":
        assert len(set(answer)) == 1, f'answers["{slot}"] takes one letter, got {answer}'
