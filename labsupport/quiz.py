"""The course's concept quiz, its questions: two parallel forms, one question per common misconception.

Covers:
    Every entry of the instructor guide's page *Common misconceptions*
    (``chapters/instructor-guide/misconceptions.md``), multiple choice or "select all that apply".

The questions are a bank (:func:`load`) in two parallel forms (:func:`form`): the form taken before
the course and the form taken after it each ask one question per misconception, in the same order,
about the same belief, but with another scenario and other wrong options, so that a learner's
change between the two measures belief rather than recall of the first form's answers. The graded
quiz draws one question per misconception from the whole bank for each student
(:mod:`labsupport.assignments.concept_quiz`).

The questions live in one data file, ``labsupport/data/quiz.json``, and nowhere else; which options
are right, why, and where the learner can see it (the key) are not part of this package: they are
in the course's tools (``coursetools.quiz``, which a student never installs), which render the
book's quiz pages and score answers::

    labsupport/data/quiz.json --load()--> Questions (prompt, options; no answers), the bank
                              --form(stage)--> the before form, the after form (one per misconception)
         + coursetools' quiz key --coursetools.quiz--> chapters/quiz-before.md, quiz-after.md, score()

Text in the data file may hold code spans in backticks and ``{figure}`` placeholders;
:func:`figures` fills them from :mod:`labsupport.timeline`, under the names and with the values
that the misconceptions page glues (``whole_event``, ``after_dns``, ...), so that the quiz quotes
no figure of its own.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pandas as pd

from .errors import ConfigError
from .timeline import durations, format_duration

__all__ = [
    "KINDS",
    "MISCONCEPTIONS_PAGE",
    "Option",
    "Question",
    "STAGES",
    "figures",
    "fill",
    "form",
    "forms",
    "load",
]

_DATA = Path(__file__).resolve().parent / "data" / "quiz.json"

#: When the quiz is taken: the page near the start of the book, and the one near its end.
STAGES: tuple[str, ...] = ("before", "after")
#: Question kinds: one right option ("single", radio buttons) or one or more ("multiple", checkboxes).
KINDS: tuple[str, ...] = ("single", "multiple")
#: The page whose entries the questions test (its labels are ``Question.misconception``).
MISCONCEPTIONS_PAGE = "chapters/instructor-guide/misconceptions"

_PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_]*)\}")
_ID = re.compile(r"^[a-z][a-z0-9-]*$")


@dataclass(frozen=True, kw_only=True)
class Option:
    """One answer option: its letter ``id`` and its ``text`` (whether it is right is the grader's)."""

    id: str
    text: str


@dataclass(frozen=True, kw_only=True)
class Question:
    """One question, testing the misconceptions page's entry labelled ``misconception``.

    ``belief`` is that entry's heading (the belief in the learner's words); ``kind`` is one of
    :data:`KINDS`; ``options`` are in the order shown.
    """

    id: str
    misconception: str
    belief: str
    kind: str
    prompt: str
    options: tuple[Option, ...]


@functools.cache
def figures() -> dict[str, str]:
    """The figures quiz text may quote, by the names under which the misconceptions page glues them.

    Returns:
        ``{name: text}``, e.g. ``{"whole_event": "14 h 32 min", ...}``: the durations
        ``whole_event``, ``dashboard_whole_event``, ``dns_empty``, ``launch_failures`` and
        ``nlb_period`` from :func:`labsupport.timeline.durations`, and ``after_dns``, the part of the
        whole event after the DNS repair (the summary's times, facts.md §6).
    """
    d = durations()
    out = {
        name: str(d.at[name, "text"])
        for name in ("whole_event", "dashboard_whole_event", "dns_empty", "launch_failures", "nlb_period")
    }
    whole, dns = cast(pd.Timedelta, d.at["whole_event", "duration"]), cast(pd.Timedelta, d.at["dns_empty", "duration"])
    out["after_dns"] = format_duration(whole - dns)
    return out


def fill(where: str, text: Any) -> str:
    """``text`` with its ``{figure}`` placeholders filled (:func:`figures`); raises ConfigError naming
    ``where`` if it is not a non-empty string or names an unknown figure."""
    if not isinstance(text, str) or not text.strip():
        raise ConfigError(f"{where} must be a non-empty string, got {text!r}")
    values = figures()

    def one(match: re.Match[str]) -> str:
        if match.group(1) not in values:
            raise ConfigError(f"{where} names the figure {{{match.group(1)}}}, which is not one of {sorted(values)}")
        return values[match.group(1)]

    return _PLACEHOLDER.sub(one, text)


def _keys(raw: Any) -> str:
    return str(sorted(raw)) if isinstance(raw, dict) else repr(raw)


def _option(where: str, raw: Any) -> Option:
    keys = {"id", "text"}
    if not isinstance(raw, dict) or set(raw) != keys:
        raise ConfigError(f"{where} must have exactly the keys {sorted(keys)}, got {_keys(raw)}")
    if not isinstance(raw["id"], str) or not re.fullmatch(r"[a-z]", raw["id"]):
        raise ConfigError(f"{where}.id must be one lower-case letter, got {raw['id']!r}")
    return Option(id=raw["id"], text=fill(f"{where}.text", raw["text"]))


def _question(where: str, raw: Any) -> Question:
    keys = {"id", "misconception", "belief", "kind", "prompt", "options"}
    if not isinstance(raw, dict) or set(raw) != keys:
        raise ConfigError(f"{where} must have exactly the keys {sorted(keys)}, got {_keys(raw)}")
    for key in ("id", "misconception"):
        if not isinstance(raw[key], str) or not _ID.match(raw[key]):
            raise ConfigError(f"{where}.{key} must be lower-case letters, digits and hyphens, got {raw[key]!r}")
    if raw["kind"] not in KINDS:
        raise ConfigError(f"{where}.kind must be one of {list(KINDS)}, got {raw['kind']!r}")
    if not isinstance(raw["options"], list) or not 2 <= len(raw["options"]) <= 6:
        raise ConfigError(f"{where}.options must be a list of 2 to 6 options, got {raw['options']!r}")
    options = tuple(_option(f"{where}.options[{i}]", o) for i, o in enumerate(raw["options"]))
    if [o.id for o in options] != [chr(ord("a") + i) for i in range(len(options))]:
        raise ConfigError(f"{where}.options must be lettered a, b, c, ... in order, got {[o.id for o in options]}")
    return Question(
        id=raw["id"],
        misconception=raw["misconception"],
        belief=fill(f"{where}.belief", raw["belief"]),
        kind=raw["kind"],
        prompt=fill(f"{where}.prompt", raw["prompt"]),
        options=options,
    )


def _forms(where: str, raw: Any, questions: tuple[Question, ...]) -> dict[str, tuple[Question, ...]]:
    """The forms of the data file, checked: each stage's form lists question ids of the bank, every
    question is in exactly one form, and the forms test the same misconceptions in the same order."""
    if not isinstance(raw, dict) or sorted(raw) != sorted(STAGES):
        raise ConfigError(f"{where} must have exactly the stages {list(STAGES)}, got {_keys(raw)}")
    by_id = {q.id: q for q in questions}
    out = {}
    for stage in STAGES:
        ids = raw[stage]
        if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
            raise ConfigError(f"{where}.{stage} must be a non-empty list of question ids, got {ids!r}")
        unknown = [i for i in ids if i not in by_id]
        if unknown:
            raise ConfigError(f"{where}.{stage} names questions the file does not have: {unknown}")
        out[stage] = tuple(by_id[i] for i in ids)
    listed = [i for stage in STAGES for i in raw[stage]]
    twice = sorted({i for i in listed if listed.count(i) > 1})
    if twice:
        raise ConfigError(f"each question must be in exactly one form, got {twice} more than once")
    left = [q.id for q in questions if q.id not in listed]
    if left:
        raise ConfigError(f"each question must be in a form: {left} is in none")
    for stage, items in out.items():
        labels = [q.misconception for q in items]
        repeated = sorted({m for m in labels if labels.count(m) > 1})
        if repeated:
            raise ConfigError(f"{where}.{stage} must ask one question per misconception, got {repeated} more than once")
    order = {stage: [q.misconception for q in items] for stage, items in out.items()}
    if order["before"] != order["after"]:
        raise ConfigError(
            f"the forms must test the same misconceptions in the same order: before {order['before']}, "
            f"after {order['after']}"
        )
    return out


@functools.cache
def _read(path: str | Path | None) -> tuple[tuple[Question, ...], dict[str, tuple[Question, ...]]]:
    try:
        data = json.loads(Path(path or _DATA).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ConfigError(f"path must name a readable JSON quiz file, got {str(path or _DATA)!r}: {err}") from None
    if not (isinstance(data, dict) and isinstance(data.get("questions"), list)):
        raise ConfigError("the quiz file must be an object with 'questions' (a list) and 'forms'")
    questions = tuple(_question(f"questions[{i}]", q) for i, q in enumerate(data["questions"]))
    if not questions:
        raise ConfigError("questions must hold at least one question, got none")
    ids = [q.id for q in questions]
    repeated = sorted({v for v in ids if ids.count(v) > 1})
    if repeated:
        raise ConfigError(f"each question's id must be unique, got {repeated} more than once")
    return questions, _forms("forms", data.get("forms"), questions)


def load(path: str | Path | None = None) -> tuple[Question, ...]:
    """The quiz's whole bank of questions, in the data file's order, with every figure filled in.

    Args:
        path: the data file; the course's own, ``labsupport/data/quiz.json``, by default.

    Raises:
        ConfigError: a malformed data file, naming the entry (``questions[3].options[1].text``) and
            what is wrong: a missing or extra key, a kind other than :data:`KINDS`, options not
            lettered a, b, c..., an unknown figure placeholder, a repeated id, or forms that are
            not parallel (see :func:`forms`).
    """
    return _read(path)[0]


def forms(path: str | Path | None = None) -> dict[str, tuple[Question, ...]]:
    """The two parallel forms, ``{stage: questions}`` for each of :data:`STAGES`.

    Each form asks one question per misconception, and both forms test the same misconceptions in
    the same order (question ``n`` of the form before the course and question ``n`` of the form after
    it test one belief); every question of the bank is in exactly one form.

    Raises:
        ConfigError: as :func:`load`.
    """
    return dict(_read(path)[1])


def form(stage: str, path: str | Path | None = None) -> tuple[Question, ...]:
    """The questions of one form, ``"before"`` or ``"after"`` (:data:`STAGES`), in the order shown.

    Raises:
        ConfigError: an unknown stage, or as :func:`load`.
    """
    if stage not in STAGES:
        raise ConfigError(f"stage must be one of {list(STAGES)}, got {stage!r}")
    return _read(path)[1][stage]
