"""The concept quiz's HTML (see :mod:`coursetools.quiz`): a form of fieldsets, and the answers under it.

The markup is what the book's ``quiz.js`` (``coursetools/book_js/quiz.js``) enhances: it shows the
buttons (``hidden`` until then), reads ``data-correct`` on each input, and copies an option's
explanation from the answers (``<li id="…-why">``) into the question's feedback. Every control has
a ``<label>``; each question is a ``<fieldset>`` whose ``<legend>`` holds its number and prompt, and
which names the misconception it tests (``data-misconception``); the verdicts and the score are
``role="status"`` regions, announced when the script fills them.

After the course (``reveal=False``) the markup works without JavaScript too: a form to fill in and
the answers in a closed ``<details>``, both printable. Before the course (``reveal=True``) the form
says ``data-reveal="answered"`` and every answer is ``hidden``: the script reveals one only once its
question is answered, and keeps that answer; without JavaScript the page says why it shows none.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Protocol

__all__ = ["answers_html", "form_html"]


# What the HTML needs of coursetools.quiz's Reference, AnsweredOption and AnsweredQuestion (described here, not
# imported: coursetools.quiz imports this module). Read-only, as the frozen dataclasses' fields are.
class _Reference(Protocol):
    @property
    def section(self) -> str: ...
    @property
    def title(self) -> str: ...

    def href(self, from_page: str) -> str: ...


class Option(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def correct(self) -> bool: ...
    @property
    def explanation(self) -> str: ...
    @property
    def see(self) -> Sequence[_Reference]: ...


class Question(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def misconception(self) -> str: ...
    @property
    def belief(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def prompt(self) -> str: ...
    @property
    def options(self) -> Sequence[Option]: ...


_CODE = re.compile(r"`([^`]+)`")


def _inline(text: str) -> str:
    """Escaped text, with ```code``` spans set as the theme sets inline code."""
    return _CODE.sub(r'<code class="docutils literal notranslate">\1</code>', html.escape(text, quote=False))


def _letter(option: Option) -> str:
    return option.id.upper()


def _list(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _option_html(question: Question, option: Option, base: str) -> str:
    kind = "radio" if question.kind == "single" else "checkbox"
    oid = f"{base}-{option.id}"
    return (
        f'<div class="ls-quiz-option"><input type="{kind}" id="{oid}" name="{base}" value="{option.id}" '
        f'data-correct="{str(option.correct).lower()}">'
        f'<label for="{oid}"><span class="ls-quiz-letter">{_letter(option)}.</span> '
        f"{_inline(option.text)}</label></div>"
    )


def form_html(questions: Sequence[Question], *, stage: str, other: str, version: str, reveal: bool = False) -> str:
    """The quiz as a ``<form class="ls-quiz">``; ids start with ``ls-quiz-<stage>-``. With ``reveal``,
    the form asks ``quiz.js`` to reveal each answer only once its question is answered."""
    reveals = ' data-reveal="answered"' if reveal else ""
    parts = [
        f'<form class="ls-quiz" id="ls-quiz-{stage}" data-stage="{stage}" data-other-stage="{other}" '
        f'data-version="{version}"{reveals} aria-label="Concept quiz, {stage} the course" novalidate>'
    ]
    for n, q in enumerate(questions, start=1):
        base = f"ls-quiz-{stage}-{q.id}"
        how = "Choose one." if q.kind == "single" else "Select all that apply."
        parts.append(
            f'<fieldset class="ls-quiz-question" id="{base}" data-question="{q.id}" data-kind="{q.kind}" '
            f'data-misconception="{q.misconception}" data-number="{n}">'
            f'<legend><span class="ls-quiz-number">Question {n}.</span> {_inline(q.prompt)} '
            f'<span class="ls-quiz-how">{how}</span></legend>'
            + "".join(_option_html(q, o, base) for o in q.options)
            + '<div class="ls-quiz-tools" hidden><button type="button" class="ls-quiz-check" '
            f'aria-label="Check answer to question {n}">Check answer</button></div>'
            '<p class="ls-quiz-verdict" role="status" aria-live="polite"></p>'
            '<div class="ls-quiz-feedback"></div></fieldset>'
        )
    parts.append(
        '<div class="ls-quiz-actions" hidden><button type="submit" class="ls-quiz-score">Score all my answers'
        '</button> <button type="reset" class="ls-quiz-reset">Clear my answers</button></div>'
        '<p class="ls-quiz-result" role="status" aria-live="polite"></p></form>'
    )
    return "\n".join(parts)


def _why_html(question: Question, option: Option, base: str, page: str) -> str:
    verdict = "Right." if option.correct else "Wrong."
    pages: dict[str, list[str]] = {}
    for ref in option.see:  # one phrase per page: "Lab 1: The Enactor race, sections "A" and "B""
        pages.setdefault(ref.title, []).append(
            f'<a href="{html.escape(ref.href(page))}">\u201c{html.escape(ref.section)}\u201d</a>'
        )
    links = "; ".join(
        f"<em>{html.escape(title)}</em>, section{'s' if len(refs) > 1 else ''} {_list(refs)}"
        for title, refs in pages.items()
    )
    return (
        f'<li class="ls-quiz-why" id="{base}-{option.id}-why" data-correct="{str(option.correct).lower()}">'
        f"<strong>{_letter(option)}. {verdict}</strong> "
        f'<span class="ls-quiz-option-text">{_inline(option.text)}</span> '
        f'{_inline(option.explanation)} <span class="ls-quiz-see">See {links}.</span></li>'
    )


_NO_SCRIPT = (
    '<noscript><p class="ls-quiz-noscript">This page shows each answer only once you have answered its '
    "question, and that takes JavaScript, which your browser is not running here. Answer on paper, then "
    "open the page where JavaScript runs, or ask your instructor for the answers.</p></noscript>"
)


def answers_html(
    questions: Sequence[Question], *, stage: str, page: str, misconceptions_href: str, reveal: bool = False
) -> str:
    """The answers, one list item per question: a closed ``<details class="ls-quiz-answers">``, or, with
    ``reveal``, a ``<div class="ls-quiz-answers">`` whose items stay ``hidden`` until ``quiz.js`` reveals
    each one, once its question is answered."""
    if reveal:
        parts = [
            f'<div class="ls-quiz-answers" id="ls-quiz-{stage}-answers" data-reveal="answered">{_NO_SCRIPT}'
            '<p class="ls-quiz-reveal-note" hidden>Each answer appears here, and under its question, once you '
            'have answered it.</p><ol class="ls-quiz-answer-list">'
        ]
    else:
        parts = [
            f'<details class="ls-quiz-answers" id="ls-quiz-{stage}-answers"><summary>Show the answers and '
            'explanations</summary><ol class="ls-quiz-answer-list">'
        ]
    for n, q in enumerate(questions, start=1):
        base = f"ls-quiz-{stage}-{q.id}"
        answer = _list([_letter(o) for o in q.options if o.correct])
        parts.append(
            f'<li id="{base}-answer" value="{n}"{" hidden" if reveal else ""}>'
            f'<p class="ls-quiz-answer-prompt">{_inline(q.prompt)} '
            f'<strong>Answer: {answer}.</strong></p><ul class="ls-quiz-explanations">'
            + "".join(_why_html(q, o, base, page) for o in q.options)
            + '</ul><p class="ls-quiz-belief">The belief this question tests: '
            f'<a href="{html.escape(misconceptions_href)}'
            f'#{q.misconception}">{_inline(q.belief)}</a> (instructor guide).</p></li>'
        )
    parts.append("</ol></div>" if reveal else "</ol></details>")
    return "\n".join(parts)
