"""The concept quiz in the built book, answered by clicking and by keyboard, with no network.

The pages ``chapters/quiz-before.html`` and ``chapters/quiz-after.html`` are opened in headless
Chromium, served on 127.0.0.1 with every other request blocked (and once straight from disk), and
the tests check what a learner sees:

* a right and a wrong answer, chosen by clicking: the verdict in the question's ``role="status"``
  line, the chosen option marked in words, the explanations copied under the question with their
  links, and the score of the whole quiz;
* the same by keyboard only (arrow keys in a radio group, Tab, Enter);
* the score before the course, kept in the browser, compared on the page after it;
* at 390 px the page does not scroll sideways, with feedback shown; printed, the buttons and
  verdicts are gone and the questions and answers remain;
* axe-core finds nothing once every question shows its feedback and the answers are open, in the
  light and the dark theme (tests/browser/test_book_axe.py checks the pages as they load);
* every "see" reference in the answers is a link to a page of the book (that each link of the
  built book reaches a page and an id is tests/browser/test_book_links.py's check).

Off by default: ``pytest tests/browser --run-browser -k quiz`` after a book build (see conftest.py).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from test_book_axe import failures, run_axe
from test_book_in_browser import Visit, _open, _watch, shoot

from coursetools import quiz  # the questions with their key: the pages show both

pytestmark = pytest.mark.browser

BEFORE, AFTER = "chapters/quiz-before.html", "chapters/quiz-after.html"
QUESTIONS = quiz.load()
#: Each page asks its own form: parallel questions, one per misconception, in the same order.
FORMS = {"before": quiz.form("before"), "after": quiz.form("after")}
READY = "form.ls-quiz[data-ready]"


@pytest.fixture()
def quiz_context(browser: Any, book_html: Path):
    for page in (BEFORE, AFTER):
        if not (book_html / page).is_file():
            pytest.skip(f"the built book has no {page} (rebuild it)")
    context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    try:
        yield context
    finally:
        context.close()


def _open_quiz(context: Any, url: str) -> tuple[Any, Visit]:
    visit = Visit(url)
    tab = context.new_page()
    _watch(tab, visit)
    _open(tab, url, chart_timeout_ms=2_000)
    tab.wait_for_selector(READY, timeout=5_000)
    return tab, visit


def _question(tab: Any, stage: str, qid: str) -> Any:
    return tab.locator(f"#ls-quiz-{stage}-{qid}")


def _number(qid: str, stage: str = "before") -> int:
    return [q.id for q in FORMS[stage]].index(qid) + 1


def _wrong(qid: str) -> str:
    return next(o.id for q in QUESTIONS if q.id == qid for o in q.options if not o.correct)


def test_a_right_and_a_wrong_answer_by_clicking(quiz_context, base_url):
    tab, visit = _open_quiz(quiz_context, base_url + BEFORE)
    form = FORMS["before"]
    first, second = form[0], form[1]
    # Right: click the label of the right option, then "Check answer".
    q1 = _question(tab, "before", first.id)
    q1.locator(f"label[for='ls-quiz-before-{first.id}-{first.answer[0]}']").click()
    q1.get_by_role("button", name=re.compile("Check answer")).click()
    verdict = q1.locator(".ls-quiz-verdict")
    assert verdict.get_attribute("aria-live") == "polite" and verdict.get_attribute("role") == "status"
    assert verdict.inner_text() == "Question 1: right."
    right_option = q1.locator(".ls-quiz-option[data-mark='right']")
    assert right_option.count() == 1 and "Your choice: right" in right_option.inner_text()
    feedback = q1.locator(".ls-quiz-feedback li")
    assert feedback.count() == 1 and feedback.first.inner_text().startswith(f"{first.answer[0].upper()}. Right.")
    assert feedback.first.locator("a").count() >= 1 and feedback.first.get_attribute("id") is None

    # Wrong: the chosen option and the right one are explained, each marked in words.
    wrong = _wrong(second.id)
    q2 = _question(tab, "before", second.id)
    q2.locator(f"label[for='ls-quiz-before-{second.id}-{wrong}']").click()
    q2.get_by_role("button", name=re.compile("Check answer")).click()
    assert q2.locator(".ls-quiz-verdict").inner_text() == "Question 2: not right."
    marks = q2.locator(".ls-quiz-mark").all_inner_texts()
    assert sorted(marks) == ["Right answer", "Your choice: wrong"], marks

    # Before the course, an answered question keeps its answer: what the learner thought is recorded.
    assert all(q2.locator("input").nth(i).is_disabled() for i in range(q2.locator("input").count()))
    assert "kept as you gave it" in q2.locator(".ls-quiz-feedback").inner_text()

    # "Select all that apply": all but one of the right options, no wrong one.
    fixes = next(q for q in form if q.kind == "multiple")
    qm = _question(tab, "before", fixes.id)
    for option in fixes.answer[:-1]:
        qm.locator(f"label[for='ls-quiz-before-{fixes.id}-{option}']").click()
    qm.get_by_role("button", name=re.compile("Check answer")).click()
    assert qm.locator(".ls-quiz-verdict").inner_text().startswith(f"Question {_number(fixes.id)}: not right.")

    # The score of the whole quiz: question 1 right, the rest wrong or blank.
    tab.get_by_role("button", name="Score all my answers").click()
    result = tab.locator(".ls-quiz-result")
    assert result.get_attribute("role") == "status"
    assert result.inner_text().startswith(f"You scored 1 of {len(form)}.")
    assert tab.locator("form.ls-quiz").get_attribute("data-score") == "1"
    assert not visit.external and not visit.console, (visit.external, visit.console)

    # Answering another question after scoring withdraws the score, which no longer holds.
    third = next(q for q in form[2:] if q.id != fixes.id)
    tab.locator(f"label[for='ls-quiz-before-{third.id}-{third.answer[0]}']").click()
    assert tab.locator(".ls-quiz-result").inner_text() == ""
    assert tab.locator("form.ls-quiz").get_attribute("data-score") is None

    # "Clear my answers" clears the answers, the verdicts and the score.
    tab.get_by_role("button", name="Score all my answers").click()
    assert tab.locator(".ls-quiz-result").inner_text().startswith(f"You scored 2 of {len(form)}.")
    tab.get_by_role("button", name="Clear my answers").click()
    assert tab.locator(".ls-quiz-result").inner_text() == "" and tab.locator("input:checked").count() == 0
    assert all(t == "" for t in tab.locator(".ls-quiz-verdict").all_inner_texts())


def test_a_question_answered_by_keyboard_only(quiz_context, base_url):
    tab, _ = _open_quiz(quiz_context, base_url + BEFORE)
    first = FORMS["before"][0]
    tab.locator(f"#ls-quiz-before-{first.id}-a").focus()
    # In a radio group the arrow keys move and choose; Tab leaves the group for the next control.
    for _ in range(ord(first.answer[0]) - ord("a")):
        tab.keyboard.press("ArrowDown")
    if first.answer[0] == "a":
        tab.keyboard.press("Space")
    assert tab.locator(f"#ls-quiz-before-{first.id}-{first.answer[0]}").is_checked()
    tab.keyboard.press("Tab")
    assert tab.evaluate("document.activeElement.className") == "ls-quiz-check"
    tab.keyboard.press("Enter")
    assert _question(tab, "before", first.id).locator(".ls-quiz-verdict").inner_text() == "Question 1: right."


def test_the_page_after_the_course_compares_with_the_score_before(quiz_context, base_url):
    before, _ = _open_quiz(quiz_context, base_url + BEFORE)
    form, later = FORMS["before"], FORMS["after"]
    for q in form:  # every answer right before the course
        for option in q.answer:
            before.locator(f"label[for='ls-quiz-before-{q.id}-{option}']").click()
    before.get_by_role("button", name="Score all my answers").click()
    assert before.locator(".ls-quiz-result").inner_text().startswith(f"You scored {len(form)} of {len(form)}.")
    assert "kept in this browser only" in before.locator(".ls-quiz-result").inner_text()

    after, visit = _open_quiz(quiz_context, base_url + AFTER)
    first = later[0]
    after.locator(f"label[for='ls-quiz-after-{first.id}-{first.answer[0]}']").click()
    after.locator(f"label[for='ls-quiz-after-{later[1].id}-{_wrong(later[1].id)}']").click()
    after.get_by_role("button", name="Score all my answers").click()
    text = after.locator(".ls-quiz-result").inner_text()
    assert text.startswith(f"You scored 1 of {len(later)}.")
    assert f"you scored {len(form)} of {len(form)}." in text and "Before the course (" in text
    assert not visit.external and not visit.console, (visit.external, visit.console)


def test_the_quiz_works_from_disk_with_no_network(browser, book_html):
    if not (book_html / BEFORE).is_file():
        pytest.skip(f"the built book has no {BEFORE}")
    context = browser.new_context(viewport={"width": 1280, "height": 900}, offline=True)
    try:
        tab, visit = _open_quiz(context, (book_html / BEFORE).as_uri())
        first = FORMS["before"][0]
        q1 = _question(tab, "before", first.id)
        q1.locator(f"label[for='ls-quiz-before-{first.id}-{_wrong(first.id)}']").click()
        q1.get_by_role("button", name=re.compile("Check answer")).click()
        assert q1.locator(".ls-quiz-verdict").inner_text() == "Question 1: not right."
        tab.get_by_role("button", name="Score all my answers").click()
        assert tab.locator(".ls-quiz-result").inner_text().startswith(f"You scored 0 of {len(FORMS['before'])}.")
        assert not visit.external and not visit.console, (visit.external, visit.console)
    finally:
        context.close()


def test_on_a_phone_and_on_paper(browser, book_html, base_url):
    if not (book_html / AFTER).is_file():
        pytest.skip(f"the built book has no {AFTER}")
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, service_workers="block"
    )
    try:
        tab, _ = _open_quiz(context, base_url + AFTER)
        for q in FORMS["after"]:  # one wrong answer each, so every question shows its longest feedback
            tab.locator(f"label[for='ls-quiz-after-{q.id}-{_wrong(q.id)}']").tap()
        tab.get_by_role("button", name="Score all my answers").tap()
        tab.locator("details.ls-quiz-answers > summary").tap()
        width = tab.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert width[0] <= width[1] + 1, f"the quiz page is {width[0]} px wide at 390 px"
        shots = book_html.parent / "screenshots" / "quiz"
        shots.mkdir(parents=True, exist_ok=True)
        shoot(tab, shots / "quiz-after-390-answered.png")

        tab.emulate_media(media="print")
        shown = tab.evaluate("""() => ({
          buttons: [...document.querySelectorAll('form.ls-quiz button')].filter(b => b.offsetParent).length,
          verdicts: [...document.querySelectorAll('.ls-quiz-verdict, .ls-quiz-result, .ls-quiz-feedback')]
                      .filter(e => e.offsetParent).length,
          questions: [...document.querySelectorAll('fieldset.ls-quiz-question')].filter(e => e.offsetParent).length,
          answers: [...document.querySelectorAll('.ls-quiz-answer-list > li')].filter(e => e.offsetParent).length,
        })""")
        n = len(FORMS["after"])
        assert shown == {"buttons": 0, "verdicts": 0, "questions": n, "answers": n}, shown
    finally:
        context.close()


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_axe_finds_nothing_with_every_verdict_shown(browser, book_html, base_url, mode):
    if not (book_html / BEFORE).is_file():
        pytest.skip(f"the built book has no {BEFORE}")
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=mode, service_workers="block")
    context.add_init_script(f"localStorage.setItem('mode', '{mode}'); localStorage.setItem('theme', '{mode}');")
    try:
        tab, _ = _open_quiz(context, base_url + BEFORE)
        for q in FORMS["before"]:  # a right and a wrong option in each: every kind of mark and explanation
            tab.locator(f"label[for='ls-quiz-before-{q.id}-{_wrong(q.id)}']").click()
            if q.kind == "multiple":
                tab.locator(f"label[for='ls-quiz-before-{q.id}-{q.answer[0]}']").click()
        tab.get_by_role("button", name="Score all my answers").click()
        # Before the course the answers are not a folded list: each shows once its question is answered.
        hidden = tab.locator("#ls-quiz-before-answers [hidden]").count()
        assert hidden == 0, f"{hidden} answers still hidden after every question was answered"
        assert tab.evaluate("document.documentElement.dataset.theme") == mode
        assert tab.locator(".ls-quiz-mark").count() >= 2 * len(FORMS["before"])
        found = failures(run_axe(tab))
        assert not found, f"{BEFORE} ({mode}), answered, axe-core:\n" + "\n".join(found)
    finally:
        context.close()


def test_every_see_reference_in_the_answers_is_a_link(book_html):
    """Each option's "see" references are links in the built answers.

    That every link in the built book, these included, reaches a page and an id is
    tests/browser/test_book_links.py's test (run after the PDF is added): it used to be checked here
    a second time, on the same built pages.
    """
    from bs4 import BeautifulSoup

    for page in (BEFORE, AFTER):
        if not (book_html / page).is_file():
            pytest.skip(f"the built book has no {page}")
        soup = BeautifulSoup((book_html / page).read_text(encoding="utf-8"), "html.parser")
        links = [a["href"] for a in soup.select(".ls-quiz-answers a[href]")]
        stage = "before" if page == BEFORE else "after"
        assert len(links) >= sum(len(o.see) for q in FORMS[stage] for o in q.options), page
        assert all(not urlsplit(href).scheme and urlsplit(href).path.endswith(".html") for href in links), page
