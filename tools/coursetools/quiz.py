"""The concept quiz's key, and what reads it: the book's quiz pages and the scoring of answers.

Covers:
    The answers of every question of :mod:`labsupport.quiz`'s bank (both forms): which options are
    right, why (each explanation follows the post-event summary as the course's chapters and labs
    give it), and where in the book the learner can see it (:attr:`AnsweredOption.see`).

The questions are the student's package's (``labsupport/data/quiz.json``); their key is here, in
``coursetools/data/quiz_key.json``, which a student's install never holds::

    labsupport.quiz.load() + quiz_key.json --load()--> AnsweredQuestions (the bank), form(stage)
        --render_html()/render_answers_html()--> chapters/quiz-before.md (the before form),
                                                 chapters/quiz-after.md (the after form)
        --score({question_id: [choices]})--> score table (the graded quiz, coursetools.grading)

In the book the quiz is plain HTML (one ``<fieldset>`` of radio buttons or checkboxes per question,
then the answers); the book's script ``quiz.js`` checks answers in the page, announces the result
and keeps the learner's score in the browser's own storage. It needs no kernel and no network. On
the page before the course each answer stays hidden until the learner has answered its question,
which then keeps its answer; on the page after it, the answers are in a closed ``<details>``. The
built book is public, so its pages carry the key: the graded quiz's students are graded by the
grader, which never lets a submission read this package.
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
from typing import Any

import pandas as pd

from labsupport import quiz as questions_module
from labsupport.errors import ConfigError
from labsupport.quiz import KINDS, MISCONCEPTIONS_PAGE, STAGES, figures, fill

from ._quiz_html import answers_html, form_html

__all__ = [
    "KINDS",
    "MISCONCEPTIONS_PAGE",
    "STAGES",
    "AnsweredOption",
    "AnsweredQuestion",
    "Reference",
    "anchor",
    "answer_key",
    "figures",
    "form",
    "load",
    "render_answers_html",
    "render_html",
    "score",
]

_KEY = Path(__file__).resolve().parent / "data" / "quiz_key.json"
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
class AnsweredOption:
    """One answer option with its verdict: its letter ``id``, its ``text``, whether it is right,
    why, and where to see it."""

    id: str
    text: str
    correct: bool
    explanation: str
    see: tuple[Reference, ...]


@dataclass(frozen=True, kw_only=True)
class AnsweredQuestion:
    """One question of :mod:`labsupport.quiz` with the key's verdict on each of its options."""

    id: str
    misconception: str
    belief: str
    kind: str
    prompt: str
    options: tuple[AnsweredOption, ...]

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


def _references(where: str, raw: Any, pages: Mapping[str, str]) -> tuple[Reference, ...]:
    if not isinstance(raw, list) or not raw:
        raise ConfigError(f"{where} must be a non-empty list of {{page, section}}, got {raw!r}")
    refs = []
    for i, ref in enumerate(raw):
        if not isinstance(ref, dict) or set(ref) != {"page", "section"}:
            raise ConfigError(f"{where}[{i}] must have exactly the keys page and section, got {ref!r}")
        if ref["page"] not in pages:
            raise ConfigError(f"{where}[{i}].page must be one of the key's pages {sorted(pages)}, got {ref['page']!r}")
        refs.append(
            Reference(page=ref["page"], section=fill(f"{where}[{i}].section", ref["section"]), title=pages[ref["page"]])
        )
    return tuple(refs)


def _answered(q: questions_module.Question, raw: Any, pages: Mapping[str, str]) -> AnsweredQuestion:
    where = f"answers[{q.id!r}]"
    letters = [o.id for o in q.options]
    if not isinstance(raw, dict) or sorted(raw) != letters:
        raise ConfigError(f"{where} must give exactly the options {letters}, got {sorted(raw) if raw else raw!r}")
    options = []
    for o in q.options:
        verdict = raw[o.id]
        keys = {"correct", "explanation", "see"}
        if not isinstance(verdict, dict) or set(verdict) != keys or not isinstance(verdict["correct"], bool):
            raise ConfigError(f"{where}[{o.id!r}] must have exactly the keys {sorted(keys)}, correct true or false")
        options.append(
            AnsweredOption(
                id=o.id,
                text=o.text,
                correct=verdict["correct"],
                explanation=fill(f"{where}[{o.id!r}].explanation", verdict["explanation"]),
                see=_references(f"{where}[{o.id!r}].see", verdict["see"], pages),
            )
        )
    right = sum(o.correct for o in options)
    if (q.kind == "single" and right != 1) or (q.kind == "multiple" and not 1 <= right < len(options)):
        raise ConfigError(
            f"{where} gives the {q.kind!r} question {right} right options: a single one needs exactly 1, "
            "a multiple one at least 1 and fewer than all"
        )
    fields = {k: getattr(q, k) for k in ("id", "misconception", "belief", "kind", "prompt")}
    return AnsweredQuestion(**fields, options=tuple(options))


@functools.cache
def load(path: str | Path | None = None) -> tuple[AnsweredQuestion, ...]:
    """The quiz's whole bank (:func:`labsupport.quiz.load`, both forms) with the key's verdict on every option.

    Args:
        path: the key file; the course's own, ``coursetools/data/quiz_key.json``, by default.

    Raises:
        ConfigError: a malformed key, naming the entry (``answers['dns-down']['b'].see``): a
            question or option it does not cover or covers twice, a missing or extra key, a
            single-choice question without exactly one right option, a page not listed under
            ``pages``, an unknown figure placeholder.
    """
    try:
        data = json.loads(Path(path or _KEY).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ConfigError(f"path must name a readable JSON quiz key, got {str(path or _KEY)!r}: {err}") from None
    if not (isinstance(data, dict) and isinstance(data.get("pages"), dict) and isinstance(data.get("answers"), dict)):
        raise ConfigError("the quiz key must be an object with 'pages' (an object) and 'answers' (an object)")
    questions = questions_module.load()
    extra = sorted(set(data["answers"]) - {q.id for q in questions})
    if extra:
        raise ConfigError(f"the quiz key answers questions the quiz does not have: {extra}")
    missing = [q.id for q in questions if q.id not in data["answers"]]
    if missing:
        raise ConfigError(f"the quiz key has no answers for {missing}")
    return tuple(_answered(q, data["answers"][q.id], data["pages"]) for q in questions)


def form(stage: str) -> tuple[AnsweredQuestion, ...]:
    """The questions of one form (:func:`labsupport.quiz.form`), ``"before"`` or ``"after"``, with their key.

    Raises:
        ConfigError: an unknown stage.
    """
    by_id = {q.id: q for q in load()}
    return tuple(by_id[q.id] for q in questions_module.form(stage))


def answer_key(questions: Iterable[AnsweredQuestion] | None = None) -> dict[str, list[str]]:
    """``{question_id: [right option ids]}``, the answers that :func:`score` gives full points."""
    return {q.id: list(q.answer) for q in (load() if questions is None else questions)}


def _choices(question: AnsweredQuestion, raw: Any) -> frozenset[str]:
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


def score(
    answers: Mapping[str, Iterable[str] | str], questions: Iterable[AnsweredQuestion] | None = None
) -> pd.DataFrame:
    """Score a learner's answers: one point for each question answered exactly right.

    Args:
        answers: ``{question_id: [option ids]}``, e.g. ``{"dns-down": ["b"], "fixes": ["a", "c", "d"]}``;
            a single id may be given as a string. A question left out, or given ``[]``, is unanswered
            and scores 0. A "multiple" question scores only if the set chosen is exactly the right set.
        questions: the questions to score against: one form (``form("before")``, ``form("after")``),
            or the whole bank (:func:`load`'s, the default).

    Returns:
        One row per question of ``questions``, in their order: ``question_id`` (string), ``chosen`` (string, the
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


def _version(questions: tuple[AnsweredQuestion, ...]) -> str:
    """A short fingerprint of the bank's questions and their answers, the same on both pages: a score
    stored by one page is compared by the other only when both come from the same quiz."""
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
        stage: ``"before"`` or ``"after"`` (:data:`labsupport.quiz.STAGES`): ids and the stored
            score are per stage.
        page: where the HTML goes, e.g. ``"chapters/quiz-before"``; links are made relative to it.

    Returns:
        A ``<form class="ls-quiz">`` with one ``<fieldset>`` per question of the stage's form
        (:func:`form`), each marked with the misconception it tests, so that the other stage's
        page compares the two by belief; its buttons are hidden until the book's ``quiz.js``
        shows them. Before the course the form asks the script to reveal each answer only once
        its question is answered, and to keep that answer.

    Raises:
        ConfigError: an unknown stage, or a page given with a suffix.
    """
    _check(stage, page)
    return form_html(
        form(stage),
        stage=stage,
        other=STAGES[1 - STAGES.index(stage)],
        version=_version(load()),
        reveal=stage == "before",
    )


def render_answers_html(stage: str, *, page: str) -> str:
    """The answers and every option's explanation, with links to the sections that show them.

    Args and errors as :func:`render_html`. After the course: a closed ``<details
    class="ls-quiz-answers">`` that ``quiz.js`` also draws its feedback from (a reader's print opens
    it). Before the course: the same answers in a ``<div class="ls-quiz-answers">`` whose every item
    is ``hidden`` until ``quiz.js`` reveals it, once its question is answered; a reader without
    JavaScript is told why the page shows none.
    """
    _check(stage, page)
    misconceptions = posixpath.relpath(MISCONCEPTIONS_PAGE + ".html", posixpath.dirname(page) or ".")
    return answers_html(
        form(stage), stage=stage, page=page, misconceptions_href=misconceptions, reveal=stage == "before"
    )
