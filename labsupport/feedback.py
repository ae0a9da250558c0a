"""Feedback on a learner's answer: what an exercise's public check and a practice problem return.

Data 8 gives every question a skeleton to fill and a check to run; this is the course's offline
version of that check. A check compares each part of an answer with what the course's own model or
data gives, and says *why* in words computed from the same run. It never raises for an answer: an
answer left at ``...`` (or ``None``) is "not answered yet", and a value of the wrong kind is "cannot
check", each with a message, so a notebook run from top to bottom with its exercises unanswered (as
nbval and the book build run it) still completes::

    answer_1 = {"recovers": ..., "hours": ...}           # the skeleton a lab gives
    check.ex1(answer_1)                                   # -> Feedback, shown as a short report
    Feedback(title="Exercise 1", status="not answered", parts=(Part("recovers", "not answered", ...), ...))

A part's verdict is one of :data:`VERDICTS`. The whole answer's :attr:`Feedback.status` is "wrong" if
any part is wrong or cannot be checked, "not answered" if no part is answered, "incomplete" if some
are, "right" when every part is right, and "reviewed" when every part is right or a written answer
that only a person can judge (:func:`review`).
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from numbers import Real
from typing import Any, Final

from .errors import ConfigError

__all__ = [
    "Feedback",
    "Part",
    "VERDICTS",
    "answered",
    "boolean",
    "choice",
    "feedback",
    "fields_of",
    "number",
    "review",
]

#: The verdict of one part of an answer.
VERDICTS: Final = ("right", "wrong", "not answered", "cannot check", "reviewed")
_MARK = {"right": "✓", "wrong": "✗", "not answered": "…", "cannot check": "?", "reviewed": "•"}


def _esc(text: str) -> str:
    return html.escape(text, quote=False)


@dataclass(frozen=True)
class Part:
    """One part of an answer and what the check says about it.

    Attributes:
        name: the answer's field ("recovers", "hours").
        verdict: one of :data:`VERDICTS`.
        message: why, in words computed from the model's run or the course's data.
    """

    name: str
    verdict: str
    message: str

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ConfigError(f"Part.verdict must be one of {VERDICTS}, got {self.verdict!r}")


@dataclass(frozen=True)
class Feedback:
    """A check's report on a whole answer: one :class:`Part` per field, and a closing note.

    Shown in a notebook as a short Markdown report; ``str(feedback)`` gives the same as plain text.

    Attributes:
        title: what was checked ("Exercise 2", "Practice problem, seed 7").
        parts: one per field of the answer, in the order the skeleton lists them.
        note: said after the parts (what a strong answer covers, or the model's reasons;
            :func:`feedback` holds it back while a part is unanswered).
    """

    title: str
    parts: tuple[Part, ...]
    note: str = ""

    @property
    def status(self) -> str:
        """ "right", "reviewed", "wrong", "incomplete" or "not answered" (see the module's docstring)."""
        verdicts = [p.verdict for p in self.parts]
        if any(v in ("wrong", "cannot check") for v in verdicts):
            return "wrong"
        if all(v == "not answered" for v in verdicts):
            return "not answered"
        if any(v == "not answered" for v in verdicts):
            return "incomplete"
        return "reviewed" if "reviewed" in verdicts else "right"

    @property
    def passed(self) -> bool:
        """True when every part is right, or answered where only a person can judge it (reviewed)."""
        return self.status in ("right", "reviewed")

    def _headline(self) -> str:
        done = sum(p.verdict in ("right", "reviewed") for p in self.parts)
        if self.status == "not answered":
            return "not answered yet: replace each ... in your answer cell, then run it and this cell again"
        if self.status == "incomplete":
            return f"{done} of {len(self.parts)} parts right so far; some are not answered yet"
        if self.status == "reviewed":
            return "answered; a check cannot judge prose, so compare your answer with the points below"
        if self.status == "right":
            return "all right" if len(self.parts) > 1 else "right"
        return f"{done} of {len(self.parts)} parts right"

    def __str__(self) -> str:
        lines = [f"{self.title}: {self._headline()}"]
        lines += [f"  {_MARK[p.verdict]} {p.name}: {p.verdict}. {p.message}" for p in self.parts]
        if self.note:
            lines.append(f"  {self.note}")
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        lines = [f"**{_esc(self.title)}**: {_esc(self._headline())}", ""]
        lines += [f"- {_MARK[p.verdict]} `{p.name}`: **{p.verdict}**. {_esc(p.message)}" for p in self.parts]
        if self.note:
            lines += ["", _esc(self.note)]
        return "\n".join(lines)


def answered(value: object) -> bool:
    """False for a skeleton's placeholder (``...``) or ``None``; True for anything else."""
    return value is not Ellipsis and value is not None


def _is_number(value: object) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def number(
    name: str,
    got: object,
    want: float,
    *,
    tolerance: float,
    unit: str = "",
    why: str = "",
    relative: bool = False,
    by: str = "the model",
) -> Part:
    """A numeric part: right when ``got`` is within ``tolerance`` of the model's ``want``.

    Args:
        name: the field.
        got: the learner's value (any object: a non-number gets "cannot check").
        want: the model's value.
        tolerance: the largest difference still right, in ``unit`` (or a fraction of ``want`` when
            ``relative``).
        unit: printed after the numbers ("s", "min", "%").
        why: appended to the message whatever the verdict (how the model gets its value).
        relative: read ``tolerance`` as a fraction of ``want``.
        by: who gives ``want`` ("the model", "the timeline").
    """
    if not answered(got):
        return Part(name, "not answered", f"give a number{f' in {unit}' if unit else ''}.")
    if not _is_number(got) or not math.isfinite(float(got)):  # type: ignore[arg-type]
        return Part(name, "cannot check", f"this part takes a number{f' in {unit}' if unit else ''}, got {got!r}.")
    value = float(got)  # type: ignore[arg-type]
    limit = tolerance * abs(want) if relative else tolerance
    shown = f"{want:,.4g}{f' {unit}' if unit else ''}"
    said = f"{value:,.4g}{f' {unit}' if unit else ''}"
    if abs(value - want) <= limit:
        return Part(name, "right", f"{by} gives {shown}. {why}".strip())
    side = "high" if value > want else "low"
    return Part(name, "wrong", f"you said {said}, too {side}: {by} gives {shown}. {why}".strip())


def boolean(name: str, got: object, want: bool, *, why: str = "", by: str = "the model") -> Part:
    """A yes/no part: right when ``got`` is ``want`` (``True`` or ``False``, not a truthy value)."""
    if not answered(got):
        return Part(name, "not answered", "give True or False.")
    if not isinstance(got, bool):
        return Part(name, "cannot check", f"this part takes True or False, got {got!r}.")
    if got == want:
        return Part(name, "right", why or f"{by} gives {want}.")
    return Part(name, "wrong", f"you said {got}; {by} gives {want}. {why}".strip())


def choice(
    name: str, got: object, want: object, choices: Iterable[object], *, why: str = "", by: str = "the model"
) -> Part:
    """A part with a fixed set of answers: right when ``got`` equals ``want`` (strings ignore case)."""
    options = list(choices)

    def same(a: object, b: object) -> bool:
        if isinstance(a, str) and isinstance(b, str):
            return a.strip().casefold() == b.strip().casefold()
        return type(a) is type(b) and a == b

    if not answered(got):
        return Part(name, "not answered", f"give one of {', '.join(map(repr, options))}.")
    if not any(same(got, c) for c in options):
        return Part(name, "cannot check", f"this part takes one of {', '.join(map(repr, options))}, got {got!r}.")
    if same(got, want):
        return Part(name, "right", why or f"{by} gives {want!r}.")
    return Part(name, "wrong", f"you said {got!r}; {by} gives {want!r}. {why}".strip())


def review(name: str, got: object, *, min_words: int = 5) -> Part:
    """A written part of a design question: "reviewed" once it holds at least ``min_words`` words.

    A check cannot judge prose; this part only says that it was answered. The feedback's note then
    lists what a strong answer covers, for the learner to compare.
    """
    if not answered(got) or (isinstance(got, str) and not got.strip()):
        return Part(name, "not answered", "write your answer as a string.")
    if not isinstance(got, str):
        return Part(name, "cannot check", f"this part takes your answer in words, as a string, got {got!r}.")
    words = len(got.split())
    if words < min_words:
        return Part(name, "cannot check", f"{words} words: say a little more (at least {min_words}).")
    return Part(name, "reviewed", f"{words} words. Compare them with the points below.")


def fields_of(answer: object, names: Iterable[str]) -> tuple[dict[str, Any], str]:
    """The named fields of an answer, and a note on what is wrong with its shape ("" if nothing).

    A dict with other keys, or an answer that is not a dict at all, is not an error: every field it
    lacks counts as not answered, and the note says what the check expected, so a learner's typo
    shows up in the feedback rather than as an exception.
    """
    wanted = list(names)
    if not answered(answer):
        return dict.fromkeys(wanted, ...), ""
    if not isinstance(answer, Mapping):
        return dict.fromkeys(wanted, ...), (
            f"Your answer is a {type(answer).__name__}; the check reads a dict with the keys "
            f"{', '.join(map(repr, wanted))}, as the answer cell's skeleton gives them."
        )
    extra = [k for k in answer if k not in wanted]
    note = (
        f"Keys the check does not know: {', '.join(map(repr, extra))}; it reads {', '.join(map(repr, wanted))}."
        if extra
        else ""
    )
    return {k: answer.get(k, ...) for k in wanted}, note


def feedback(
    title: str,
    answer: object,
    checks: Mapping[str, Callable[[Any], Part]],
    *,
    note: str = "",
) -> Feedback:
    """Check each field of ``answer`` with its function and gather the parts into a :class:`Feedback`.

    Args:
        title: what is checked ("Exercise 1").
        answer: the learner's dict (or ``...`` while unanswered).
        checks: field name -> a function of the learner's value that returns its :class:`Part`.
        note: said after the parts once every part is answered (a shape problem found by
            :func:`fields_of` comes first, always): while a part is unanswered, a run from top to
            bottom must not show the points a strong answer covers, or the model's reasons.
    """
    values, shape = fields_of(answer, checks)
    parts = tuple(check(values[name]) for name, check in checks.items())
    if note and any(p.verdict == "not answered" for p in parts):
        note = "The points a strong answer covers show here once every part is answered."
    return Feedback(title, parts, " ".join(n for n in (shape, note) if n))
