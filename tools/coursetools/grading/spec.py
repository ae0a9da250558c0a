"""What the grader needs to know of each assignment: its questions, its answers' schema, its checks.

Scenario:
    Each assignment module (``lab01`` ... ``lab06``, ``concept_quiz``) declares one :class:`Spec`:
    the questions with their points (a manual question is left to the instructor), the answers the
    sandboxed run exports (:class:`Answer`: a notebook expression, its type and range), the design
    function's name (read from the notebook's source, never from the kernel) and the hidden checks
    (:class:`Check`), each worth its points, all or nothing. The checking process calls each
    check with the values the host validated, or with the design function compiled restricted,
    and the collected id; a check raises AssertionError with a message the student can act on.
Covers:
    Grading practice, not the incident.

::

    Spec(questions, answers, strategy, checks)
      answers --export (sandbox)--> JSON --validate (host, Answer.validate)--> values
      checks  --check process--> Check.run(values | strategy | prediction facts, student id)
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["KINDS", "USES", "Answer", "Check", "Question", "Spec"]

#: Answer types: a Python int, a float, a number (int or float), a bool, a short string, or a
#: short list of short strings (the quiz's letters).
KINDS = ("int", "float", "number", "bool", "str", "letters")
#: What a check is given: the validated answers, the design function, or the prediction's facts.
USES = ("answers", "strategy", "prediction")
#: Longest string, and longest list, an answer may be.
MAX_STR = 200
MAX_ITEMS = 10


@dataclass(frozen=True)
class Answer:
    """One exported answer: ``name`` (its column), the Python ``expression`` the sandboxed kernel
    evaluates at the end of the run, its ``kind`` (:data:`KINDS`) and its range (``low``, ``high``,
    inclusive; a ``pattern`` each string must match)."""

    name: str
    expression: str
    kind: str
    low: float = -math.inf
    high: float = math.inf
    pattern: str = ""

    def validate(self, exported: object) -> tuple[Any, str]:
        """``(value, "")`` for an exported ``{"kind": ..., "value": ...}`` that fits, else ``(None, why)``."""
        if not isinstance(exported, dict) or set(exported) - {"kind", "value", "error"}:
            return None, "not exported"
        if "error" in exported:
            return None, f"{self.expression} raised {str(exported['error'])[:80]} at the end of the run"
        kind, value = exported.get("kind"), exported.get("value")
        if kind == "none":
            return None, f"{self.expression} is None"
        if self.kind in ("int", "float", "number"):
            ok = (kind == "int" and type(value) is int and self.kind != "float") or (
                kind == "float" and type(value) in (int, float) and self.kind != "int"
            )
            if not ok:
                return None, f"{self.expression} must be {'an' if self.kind == 'int' else 'a'} {self.kind}, got {kind}"
            number = float(value) if kind == "float" else int(value)  # type: ignore[arg-type]
            if not self.low <= number <= self.high:  # a NaN is outside too
                return None, f"{self.expression} = {number!r} is outside [{self.low:g}, {self.high:g}]"
            return number, ""
        if self.kind == "bool":
            return (
                (value, "") if kind == "bool" and type(value) is bool else (None, f"{self.expression} must be a bool")
            )
        if self.kind == "str":
            if kind != "str" or not isinstance(value, str) or len(value) > MAX_STR:
                return None, f"{self.expression} must be a string of at most {MAX_STR} characters"
            return value, ""
        if kind != "list" or not isinstance(value, list) or len(value) > MAX_ITEMS:
            return None, f"{self.expression} must be a list of at most {MAX_ITEMS} letters"
        if not all(isinstance(v, str) and re.fullmatch(self.pattern or r".{1,20}", v) for v in value):
            return None, f"{self.expression} must hold only option letters"
        return value, ""


@dataclass(frozen=True)
class Question:
    """One question: its otter name, its points, and whether the instructor grades it by hand."""

    name: str
    points: float
    manual: bool = False


@dataclass(frozen=True)
class Check:
    """One hidden check, worth ``points`` of ``question``, all or nothing.

    ``run`` takes what ``uses`` names (:data:`USES`: the validated answers as a dict, the design
    function, or the prediction's facts ``{"recorded": bool, "before_run": bool}``) and the
    collected student id; it raises AssertionError (or any error) when the check fails.
    """

    question: str
    name: str
    points: float
    uses: str
    run: Callable[[Any, str], None]


@dataclass(frozen=True)
class Spec:
    """Everything the grader needs of one assignment.

    Attributes:
        assignment: its name (its folder under ``assignments/``).
        questions: in order, with their points.
        answers: what the sandboxed run exports, with each answer's type and range.
        strategy: the design function's name in the notebook (``None``: no design question).
        strategy_field: the config field the engines call it through (for messages).
        checks: the hidden checks.
        references: the reference design functions (the similarity check compares with them).
        prepare: computes what every check of an id shares (the key, the recorded requests) once,
            in the checking process, before the checks run apart.
        params: the parameters of an id, for the feedback (a dict).
        key: the instructor's key for an id.
    """

    assignment: str
    questions: tuple[Question, ...]
    answers: tuple[Answer, ...]
    strategy: str | None
    strategy_field: str
    checks: tuple[Check, ...]
    references: tuple[Callable[..., bool], ...]
    prepare: Callable[[str], None]
    params: Callable[[str], dict[str, object]]
    key: Callable[[str], dict[str, object]]
    prediction: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        names = [q.name for q in self.questions]
        for c in self.checks:
            if c.question not in names or c.uses not in USES:
                raise ValueError(f"{self.assignment}: check {c.name} names {c.question!r} / {c.uses!r}")
        for q in self.questions:
            got = sum(c.points for c in self.checks if c.question == q.name)
            if not q.manual and got != q.points:
                raise ValueError(f"{self.assignment}: {q.name}'s checks give {got} points of {q.points}")
        for a in self.answers:
            if a.kind not in KINDS:
                raise ValueError(f"{self.assignment}: answer {a.name} has kind {a.kind!r}")

    @property
    def auto_questions(self) -> tuple[Question, ...]:
        return tuple(q for q in self.questions if not q.manual)

    @property
    def manual_questions(self) -> tuple[str, ...]:
        return tuple(q.name for q in self.questions if q.manual)
