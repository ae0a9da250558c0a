"""The course's concept quiz: one question per common misconception, taken before and after the course.

Covers:
    Every entry of the instructor guide's page *Common misconceptions*
    (``chapters/instructor-guide/misconceptions.md``), one question each, multiple choice or "select
    all that apply". Every answer option carries an explanation that says why it is right or wrong
    and names the lab or chapter section where the learner can see it (:attr:`Option.see`); the
    explanations follow the post-event summary as the course's chapters and labs give it.

The questions live in one data file, ``labsupport/data/quiz.json``, and nowhere else::

    quiz.json --load()--> Questions --render_html()/render_answers_html()--> chapters/quiz-before.md
                                    |                                        chapters/quiz-after.md
                                    +--score({question_id: [choices]})--> score table (graded track)

In the book the quiz is plain HTML (one ``<fieldset>`` of radio buttons or checkboxes per question,
then the answers in a closed ``<details>``); the book's script ``labsupport/book_js/quiz.js``
checks answers in the page, announces the result and keeps the learner's score in the browser's
own storage, so that the page after the course can compare it with the one before. It needs no
kernel and no network.

Text in the data file may hold code spans in backticks and ``{figure}`` placeholders;
:func:`figures` fills them from :mod:`labsupport.timeline`, under the names and with the values
that the misconceptions page glues (``whole_event``, ``after_dns``, ...), so that the quiz quotes
no figure of its own.
"""

from __future__ import annotations

import functools
import hashlib
import json
import posixpath
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pandas as pd

from ._quiz_html import answers_html, form_html
from .errors import ConfigError
from .timeline import durations, format_duration

__all__ = [
    "KINDS",
    "MISCONCEPTIONS_PAGE",
    "Option",
    "Question",
    "Reference",
    "STAGES",
    "anchor",
    "answer_key",
    "figures",
    "load",
    "render_answers_html",
    "render_html",
    "score",
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
_NON_ID = re.compile(r"[^a-z0-9]+")
_NON_ID_ENDS = re.compile(r"^[-0-9]+|-+$")


@dataclass(frozen=True, kw_only=True)
class Reference:
    """A place in the book where a learner can check an explanation: a page and one of its sections.

    ``page`` is the page's path from the book's root without its suffix (``"labs/01-enactor-race"``),
    ``section`` the text of one of its headings, ``title`` the page's title.
    """

    page: str
    section: str
    title: str

    def href(self, from_page: str) -> str:
        """The address of the section, relative to the built page ``from_page`` (a path like ``page``)."""
        return f"{posixpath.relpath(self.page + '.html', posixpath.dirname(from_page) or '.')}#{anchor(self.section)}"


@dataclass(frozen=True, kw_only=True)
class Option:
    """One answer option: its letter ``id``, its ``text``, whether it is right, why, and where to see it."""

    id: str
    text: str
    correct: bool
    explanation: str
    see: tuple[Reference, ...]


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

    @property
    def answer(self) -> tuple[str, ...]:
        """The ids of the right options, in the order shown."""
        return tuple(o.id for o in self.options if o.correct)


def anchor(section: str) -> str:
    """The id that the book gives a section with this heading (docutils' ``make_id`` for ASCII text).

    ``"All 16 guard combinations"`` -> ``"all-16-guard-combinations"``.
    """
    text = unicodedata.normalize("NFKD", section.lower()).encode("ascii", "ignore").decode("ascii")
    return _NON_ID_ENDS.sub("", _NON_ID.sub("-", " ".join(text.split())))


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


def _fill(where: str, text: Any) -> str:
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


def _references(where: str, raw: Any, pages: Mapping[str, str]) -> tuple[Reference, ...]:
    if not isinstance(raw, list) or not raw:
        raise ConfigError(f"{where} must be a non-empty list of {{page, section}}, got {raw!r}")
    refs = []
    for i, ref in enumerate(raw):
        if not isinstance(ref, dict) or set(ref) != {"page", "section"}:
            raise ConfigError(f"{where}[{i}] must have exactly the keys page and section, got {ref!r}")
        if ref["page"] not in pages:
            raise ConfigError(
                f"{where}[{i}].page must be one of the data file's pages {sorted(pages)}, got {ref['page']!r}"
            )
        refs.append(
            Reference(
                page=ref["page"], section=_fill(f"{where}[{i}].section", ref["section"]), title=pages[ref["page"]]
            )
        )
    return tuple(refs)


def _option(where: str, raw: Any, pages: Mapping[str, str]) -> Option:
    keys = {"id", "text", "correct", "explanation", "see"}
    if not isinstance(raw, dict) or set(raw) != keys:
        raise ConfigError(f"{where} must have exactly the keys {sorted(keys)}, got {_keys(raw)}")
    if not isinstance(raw["id"], str) or not re.fullmatch(r"[a-z]", raw["id"]):
        raise ConfigError(f"{where}.id must be one lower-case letter, got {raw['id']!r}")
    if not isinstance(raw["correct"], bool):
        raise ConfigError(f"{where}.correct must be true or false, got {raw['correct']!r}")
    return Option(
        id=raw["id"],
        text=_fill(f"{where}.text", raw["text"]),
        correct=raw["correct"],
        explanation=_fill(f"{where}.explanation", raw["explanation"]),
        see=_references(f"{where}.see", raw["see"], pages),
    )


def _question(where: str, raw: Any, pages: Mapping[str, str]) -> Question:
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
    options = tuple(_option(f"{where}.options[{i}]", o, pages) for i, o in enumerate(raw["options"]))
    if [o.id for o in options] != [chr(ord("a") + i) for i in range(len(options))]:
        raise ConfigError(f"{where}.options must be lettered a, b, c, ... in order, got {[o.id for o in options]}")
    right = sum(o.correct for o in options)
    if (raw["kind"] == "single" and right != 1) or (raw["kind"] == "multiple" and not 1 <= right < len(options)):
        raise ConfigError(
            f"{where} is a {raw['kind']!r} question with {right} right options: a single one needs "
            "exactly 1, a multiple one at least 1 and fewer than all"
        )
    return Question(
        id=raw["id"],
        misconception=raw["misconception"],
        belief=_fill(f"{where}.belief", raw["belief"]),
        kind=raw["kind"],
        prompt=_fill(f"{where}.prompt", raw["prompt"]),
        options=options,
    )


@functools.cache
def load(path: str | Path | None = None) -> tuple[Question, ...]:
    """The quiz's questions, in the order the pages show them, with every figure filled in.

    Args:
        path: the data file; the course's own, ``labsupport/data/quiz.json``, by default.

    Raises:
        ConfigError: a malformed data file, naming the entry (``questions[3].options[1].see``) and
            what is wrong: a missing or extra key, a kind other than :data:`KINDS`, a single-choice
            question without exactly one right option, options not lettered a, b, c..., a page not
            listed under ``pages``, an unknown figure placeholder, or a repeated id or misconception.
    """
    try:
        data = json.loads(Path(path or _DATA).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ConfigError(f"path must name a readable JSON quiz file, got {str(path or _DATA)!r}: {err}") from None
    if not (isinstance(data, dict) and isinstance(data.get("pages"), dict) and isinstance(data.get("questions"), list)):
        raise ConfigError("the quiz file must be an object with 'pages' (an object) and 'questions' (a list)")
    questions = tuple(_question(f"questions[{i}]", q, data["pages"]) for i, q in enumerate(data["questions"]))
    if not questions:
        raise ConfigError("questions must hold at least one question, got none")
    for key in ("id", "misconception"):
        values = [getattr(q, key) for q in questions]
        repeated = sorted({v for v in values if values.count(v) > 1})
        if repeated:
            raise ConfigError(f"each question's {key} must be unique, got {repeated} more than once")
    return questions


def answer_key(questions: Iterable[Question] | None = None) -> dict[str, list[str]]:
    """``{question_id: [right option ids]}``, the answers that :func:`score` gives full points."""
    return {q.id: list(q.answer) for q in (load() if questions is None else questions)}


def _choices(question: Question, raw: Any) -> frozenset[str]:
    where = f"answers[{question.id!r}]"
    if isinstance(raw, str):
        raw = [raw]
    elif raw is None:
        raw = []
    elif not isinstance(raw, Iterable) or isinstance(raw, Mapping):
        raise ConfigError(f"{where} must be a list of option ids, got {raw!r}")
    chosen = list(raw)
    ids = [o.id for o in question.options]
    unknown = [c for c in chosen if c not in ids]
    if unknown:
        raise ConfigError(f"{where} has unknown choices {unknown}; its options are {ids}")
    if question.kind == "single" and len(set(chosen)) > 1:
        raise ConfigError(f"{where} chooses {sorted(set(chosen))}, but the question takes one answer")
    return frozenset(chosen)


def score(answers: Mapping[str, Iterable[str] | str], questions: Iterable[Question] | None = None) -> pd.DataFrame:
    """Score a learner's answers: one point for each question answered exactly right.

    Args:
        answers: ``{question_id: [option ids]}``, e.g. ``{"dns-down": ["b"], "fixes": ["a", "c", "d"]}``;
            a single id may be given as a string. A question left out, or given ``[]``, is unanswered
            and scores 0. A "multiple" question scores only if the set chosen is exactly the right set.
        questions: the questions to score against; :func:`load`'s by default.

    Returns:
        One row per question, in the quiz's order: ``question_id`` (string), ``chosen`` (string, the
        option ids chosen, sorted and joined by commas, ``""`` when unanswered), ``correct`` (bool) and
        ``points`` (int64, 1 or 0). ``points.sum()`` out of ``len(table)`` is the score.

    Raises:
        ConfigError: ``answers`` is not a mapping, names a question id the quiz does not have, gives
            an option id a question does not have, or more than one option for a single-choice
            question.
    """
    questions = tuple(load() if questions is None else questions)
    if not isinstance(answers, Mapping):
        raise ConfigError(f"answers must be a mapping {{question_id: [option ids]}}, got {answers!r}")
    ids = [q.id for q in questions]
    unknown = [k for k in answers if k not in ids]
    if unknown:
        raise ConfigError(f"answers has unknown question ids {unknown}; the quiz's ids are {ids}")
    rows = []
    for q in questions:
        chosen = _choices(q, answers.get(q.id))
        right = chosen == frozenset(q.answer)
        rows.append((q.id, ",".join(sorted(chosen)), right, int(right)))
    table = pd.DataFrame(rows, columns=["question_id", "chosen", "correct", "points"])
    return table.astype({"question_id": "string", "chosen": "string", "correct": bool, "points": "int64"})


def _version(questions: tuple[Question, ...]) -> str:
    """A short fingerprint of the questions and their answers: a stored score is compared only with the same quiz."""
    key = json.dumps([[q.id, list(q.answer)] for q in questions])
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]


def _check(stage: str, page: str) -> None:
    if stage not in STAGES:
        raise ConfigError(f"stage must be one of {list(STAGES)}, got {stage!r}")
    if not isinstance(page, str) or not page or page.endswith((".md", ".html", "/")):
        raise ConfigError(
            f"page must be the quiz page's path without suffix, like 'chapters/quiz-before', got {page!r}"
        )


def render_html(stage: str, *, page: str) -> str:
    """The quiz as an HTML form, for the book page ``page`` (its path without suffix).

    Args:
        stage: ``"before"`` or ``"after"`` (:data:`STAGES`): ids and the stored score are per stage.
        page: where the HTML goes, e.g. ``"chapters/quiz-before"``; links are made relative to it.

    Returns:
        A ``<form class="ls-quiz">`` with one ``<fieldset>`` per question; its buttons are hidden
        until the book's ``quiz.js`` shows them.

    Raises:
        ConfigError: an unknown stage, or a page given with a suffix.
    """
    _check(stage, page)
    questions = load()
    return form_html(questions, stage=stage, other=STAGES[1 - STAGES.index(stage)], version=_version(questions))


def render_answers_html(stage: str, *, page: str) -> str:
    """The answers and every option's explanation, with links to the sections that show them.

    Args and errors as :func:`render_html`; returns a closed ``<details class="ls-quiz-answers">``
    that ``quiz.js`` also draws its feedback from (a reader's print opens it).
    """
    _check(stage, page)
    misconceptions = posixpath.relpath(MISCONCEPTIONS_PAGE + ".html", posixpath.dirname(page) or ".")
    return answers_html(load(), stage=stage, page=page, misconceptions_href=misconceptions)
