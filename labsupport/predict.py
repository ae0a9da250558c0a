"""Predictions: what a learner writes down before a run, set beside what the model gives after it.

Every lab opens with a *Predict* cell and ends with a comparison, in one convention:

* the Predict cell assigns ``None`` to every guess (nothing is pre-filled, least of all the model's
  own answer), and says which values each guess may take;
* a guess may be any value that can answer the question: a number, ``True``/``False``, a choice
  from a listed set, or :data:`NEVER` for "it never happens within the run";
* each question counts time from one stated origin (for example "hours after 2:25 AM"), and the
  model's answer is computed from the same origin;
* the comparison runs after the model (:func:`compare`), and a guess left at ``None`` or of a type
  the question cannot take gets a message in the table, never an exception: a notebook run from top
  to bottom with its predictions unanswered (as nbval and the book build run it) still completes.

::

    q = predict.Question("Hours after 2:25 AM until every droplet has a lease again",
                         guess=my_guess_hours, model=predict.NEVER, unit="h")
    predict.compare([q])      # a DataFrame: question, your_guess, model, verdict
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from numbers import Real
from typing import Any, Final

import pandas as pd

from ._validate import check_number, show
from .errors import ConfigError

__all__ = ["COLUMNS", "NEVER", "NO_GUESS", "Never", "Question", "compare", "nearest", "verdict"]


class Never:
    """The answer "never (within the model's run)"; its one instance is :data:`NEVER`."""

    _instance: Never | None = None

    def __new__(cls) -> Never:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NEVER"

    def __str__(self) -> str:
        return "never"

    def __reduce__(self) -> str:
        return "NEVER"


#: A guess or answer meaning "never, within the model's run"; ``predict.NEVER is predict.Never()``.
NEVER: Final = Never()

#: The verdict of a guess left at ``None``.
NO_GUESS: Final = "no guess yet: replace None in the Predict cell, then run the lab again"

#: The columns of :func:`compare`'s table, in order.
COLUMNS: Final = ("question", "your_guess", "model", "verdict")


def _is_number(value: object) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


@dataclass(frozen=True)
class Question:
    """One prediction and the model's answer to it.

    Attributes:
        text: the question as the Predict cell asks it, with its unit and time origin
            ("Hours after 2:25 AM until every droplet has a lease again").
        guess: the learner's answer, ``None`` while unanswered.
        model: the model's answer, computed by the lab after the run: a number, a bool, a string,
            :data:`NEVER`, or a collection of equally right answers (any one of them is right).
        unit: printed after a number ("h", "min", "%" for a fraction shown as a percentage).
        tolerance: for numbers, the relative difference still counted as close (0.25 = 25 %).
        choices: when given, the only values the question accepts (besides ``None``); a guess
            outside them is reported, not compared.
        allow_never: whether :data:`NEVER` is an acceptable guess for a numeric question.

    Raises:
        ConfigError: ``text`` is not a non-empty string, or ``tolerance`` is not a finite number >= 0
            (the guess is never refused here: :func:`verdict` reports a guess it cannot compare).
    """

    text: str
    guess: Any
    model: Any
    unit: str = ""
    tolerance: float = 0.25
    choices: tuple[Any, ...] | None = None
    allow_never: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.text, str) or not self.text.strip():
            raise ConfigError(f"Question.text must be a string naming the question, got {show(self.text)}")
        check_number("Question.tolerance", self.tolerance, lo=0)

    def show(self, value: Any) -> str:
        """``value`` as the table prints it: numbers with the question's unit, percentages for "%"."""
        if value is None:
            return "—"
        if isinstance(value, (bool, Never)):
            return str(value)
        if _is_number(value):
            if self.unit == "%":
                # Two significant figures below 10 %, so a goodput of 0.03 % does not print as 0.0 %.
                return f"{float(value):.0%}" if abs(float(value)) >= 0.1 else f"{100 * float(value):.2g}%"
            number = f"{value:,}" if isinstance(value, int) else f"{float(value):,.3g}"
            return f"{number} {self.unit}".strip()
        if isinstance(value, (set, frozenset, list, tuple)):
            return " or ".join(self.show(v) for v in sorted(value, key=str))
        return str(value)


def _answers(model: Any) -> list[Any]:
    if isinstance(model, (set, frozenset, list, tuple)):
        return list(model)
    return [model]


def _same(guess: Any, answer: Any) -> bool:
    if isinstance(guess, bool) or isinstance(answer, bool):
        return isinstance(guess, bool) and isinstance(answer, bool) and guess == answer
    if isinstance(guess, str) and isinstance(answer, str):
        return guess.strip().casefold() == answer.strip().casefold()
    return bool(guess == answer)


def verdict(q: Question) -> str:
    """What to say about ``q.guess`` against ``q.model``; never raises for any guess.

    Returns one of: :data:`NO_GUESS`; "cannot compare: ..." for a guess the question cannot take
    (naming what it accepts); "right" / "wrong" for choices, booleans, strings and :data:`NEVER`;
    "close (within N %)", "higher than the model" or "lower than the model" for numbers.
    """
    guess, answers = q.guess, _answers(q.model)
    if guess is None:
        return NO_GUESS
    if q.choices is not None:
        if not any(_same(guess, c) for c in q.choices):
            listed = ", ".join(repr(c) for c in q.choices)
            return f"cannot compare: the question takes one of {listed}, got {guess!r}"
        return "right" if any(_same(guess, a) for a in answers) else "wrong"
    if q.allow_never or any(_is_number(a) for a in answers):
        values = [float(a) for a in answers if _is_number(a)]
        takes = "a number or predict.NEVER" if q.allow_never else "a number"
        if isinstance(guess, Never):
            if not q.allow_never:
                return f"cannot compare: this question takes {takes}, got NEVER"
            return "right" if any(isinstance(a, Never) for a in answers) else "wrong: the model gives a number"
        if not _is_number(guess) or not math.isfinite(float(guess)):
            return f"cannot compare: this question takes {takes}, got {guess!r}"
        if not values:
            return "wrong: the model's answer is never"
        best = min(values, key=lambda a: abs(float(guess) - a))
        if abs(float(guess) - best) <= q.tolerance * abs(best):
            return f"close (within {q.tolerance:.0%})"
        return "higher than the model" if float(guess) > best else "lower than the model"
    if all(isinstance(a, bool) for a in answers) and not isinstance(guess, bool):
        return f"cannot compare: this question takes True or False, got {guess!r}"
    return "right" if any(_same(guess, a) for a in answers) else "wrong"


def compare(questions: Iterable[Question]) -> pd.DataFrame:
    """The comparison table a lab shows after its run.

    Args:
        questions: the lab's questions, each with the learner's guess and the model's answer.

    Returns:
        A DataFrame with one row per question and the string columns of :data:`COLUMNS`:
        ``question`` (the text), ``your_guess`` ("—" when unanswered), ``model`` (the model's
        answer with its unit) and ``verdict`` (see :func:`verdict`).
    """
    rows = [
        {"question": q.text, "your_guess": q.show(q.guess), "model": q.show(q.model), "verdict": verdict(q)}
        for q in questions
    ]
    return pd.DataFrame(rows, columns=list(COLUMNS)).astype("string")


def nearest(value: float, options: Collection[float]) -> float:
    """The option closest to ``value`` on a logarithmic scale ("about a hundred, a thousand, ...").

    Raises:
        ConfigError: ``value`` or an option is not a finite number > 0, or there are no options.
    """
    v = check_number("value", value, lo=0, lo_open=True)
    if isinstance(options, (str, bytes)) or not isinstance(options, Collection) or not options:
        raise ConfigError(f"options must be a non-empty collection of numbers > 0, got {show(options)}")
    for i, o in enumerate(options):
        check_number(f"options[{i}]", o, lo=0, lo_open=True)
    return min(options, key=lambda o: abs(math.log10(o / v)))
