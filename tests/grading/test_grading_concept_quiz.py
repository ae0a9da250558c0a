"""The concept quiz's graded version: each student's form is drawn from the quiz's bank by their id,
its questions come from the quiz's data file, and the checks score with the quiz's key
(coursetools.quiz), which the student's package does not hold.

Classes of quiz submissions graded end to end, in the sandbox, are in ``test_red_team.py``; the
last test builds the assignment with ``otter assign`` and reads the student copy.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from coursetools import quiz
from coursetools.grading import __main__ as cli
from coursetools.grading import concept_quiz as tools_quiz
from labsupport import quiz as questions
from labsupport.assignments import PLACEHOLDER_ID
from labsupport.assignments import concept_quiz as student_quiz
from labsupport.errors import ConfigError

from ._points import both

concept_quiz = both(student_quiz, tools_quiz)

SOURCE = (
    Path(__file__).resolve().parents[2] / "assignments" / concept_quiz.ASSIGNMENT / f"{concept_quiz.ASSIGNMENT}.ipynb"
)
CLASS = [f"s{n:07d}" for n in range(1, 61)]


def _source() -> dict:
    return json.loads(SOURCE.read_text(encoding="utf-8"))


def _text(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def test_the_slots_are_the_misconceptions_in_the_forms_order():
    assert [f"mc-{s}" for s in concept_quiz.SLOTS] == [q.misconception for q in questions.form("before")]
    assert [f"mc-{s}" for s in concept_quiz.SLOTS] == [q.misconception for q in questions.form("after")]


def test_the_assignment_asks_one_question_per_slot_in_order_one_point_each():
    cells = [_text(c) for c in _source()["cells"]]
    names = [c.split("name: ", 1)[1].split("\n", 1)[0] for c in cells if c.startswith("# BEGIN QUESTION")]
    assert names == [concept_quiz.question_name(s) for s in concept_quiz.SLOTS]
    assert sum("points: 1" in c for c in cells if c.startswith("# BEGIN QUESTION")) == len(names)
    shown = [c for c in cells if c.startswith("Markdown(concept_quiz.question_markdown(")]
    assert shown == [f'Markdown(concept_quiz.question_markdown(STUDENT_ID, "{s}"))' for s in concept_quiz.SLOTS]


def test_the_source_solutions_are_the_placeholder_ids_key():
    """otter assign runs the public checks on the solution, which is the student copy's own id's form."""
    solutions = {}
    for cell in _source()["cells"]:
        text = _text(cell)
        if text.startswith('answers["') and "# SOLUTION" in text:
            slot = text.split('"', 2)[1]
            solutions[slot] = json.loads(text.split("=", 1)[1].split("#", 1)[0].strip().replace("'", '"'))
    assert solutions == concept_quiz.key(PLACEHOLDER_ID)["answers"]


def test_a_form_is_the_ids_own_the_same_every_time_and_unlike_a_classmates():
    forms = {sid: concept_quiz.params(sid) for sid in CLASS}
    assert concept_quiz.params(CLASS[0]) == forms[CLASS[0]] == concept_quiz.params(f"  {CLASS[0]} ")
    assert len({(p.questions, p.orders) for p in forms.values()}) == len(CLASS), "two students got one form"
    # Over a class, every question of the bank is asked, each option order varies, and each slot
    # draws both of its questions about equally often (no slot always asks the book's before form).
    asked = Counter(q for p in forms.values() for q in p.questions)
    assert set(asked) == {q.id for q in questions.load()}
    before = {q.id for q in questions.form("before")}
    for k, slot in enumerate(concept_quiz.SLOTS):
        from_before = sum(p.questions[k] in before for p in forms.values())
        assert 10 <= from_before <= len(CLASS) - 10, (slot, from_before)
        assert len({p.orders[k] for p in forms.values()}) > 1, slot
    with pytest.raises(ConfigError, match="student_id"):
        concept_quiz.params(" ")


def test_a_question_shows_its_prompt_and_options_in_the_ids_order_and_no_answer():
    bank = {q.id: q for q in quiz.load()}
    for sid in CLASS[:5]:
        p = concept_quiz.params(sid)
        for k, slot in enumerate(concept_quiz.SLOTS):
            q = bank[p.questions[k]]
            text = concept_quiz.question_markdown(sid, slot)
            assert q.prompt in text
            by_id = {o.id: o for o in q.options}
            for n, oid in enumerate(p.orders[k]):
                assert f"**{chr(ord('a') + n)}.** {by_id[oid].text}" in text
            assert all(o.explanation not in text for o in q.options)


def test_the_key_maps_the_letters_shown_back_to_the_right_options():
    bank = {q.id: q for q in quiz.load()}
    for sid in CLASS:
        k = concept_quiz.key(sid)
        assert k["student_id"] == sid and list(k["answers"]) == list(concept_quiz.SLOTS)
        for slot, letters in k["answers"].items():
            qid, ids = concept_quiz.option_ids(sid, slot, letters)
            assert qid == k["questions"][slot] and sorted(ids) == sorted(bank[qid].answer)


def test_the_point_goes_to_exactly_the_right_set_of_the_ids_own_letters():
    for sid in CLASS[:10]:
        key = concept_quiz.key(sid)["answers"]
        for slot in concept_quiz.SLOTS:
            concept_quiz.check_answer(sid, slot, list(key[slot]))
            shown = [letter for letter, _ in concept_quiz.shown_options(sid, slot)]
            wrong = [x for x in shown if x not in key[slot]][:1]
            single = (
                len(key[slot]) == 1
                and next(
                    q for q in quiz.load() if q.id == concept_quiz.params(sid).questions[concept_quiz.SLOTS.index(slot)]
                ).kind
                == "single"
            )
            with pytest.raises(AssertionError, match="not the right choice"):
                concept_quiz.check_answer(sid, slot, wrong if single else list(key[slot]) + wrong)


def test_a_classmates_letters_score_only_where_the_two_forms_agree():
    """Letters copied from another id's form are graded against the collector's own form."""
    mine, theirs = CLASS[0], CLASS[1]
    copied = concept_quiz.key(theirs)["answers"]
    own = concept_quiz.key(mine)["answers"]
    scored = 0
    for slot in concept_quiz.SLOTS:
        try:
            concept_quiz.check_answer(mine, slot, copied[slot])
            scored += 1
            assert sorted(copied[slot]) == sorted(own[slot])
        except AssertionError:
            assert sorted(copied[slot]) != sorted(own[slot])
    assert scored < len(concept_quiz.SLOTS)


@pytest.mark.parametrize("answer", [None, ..., "b", [], ["z"], ["a", "b"]])
def test_an_answer_of_the_wrong_form_says_what_to_change(answer):
    sid = CLASS[0]
    p = concept_quiz.params(sid)
    bank = {q.id: q for q in quiz.load()}
    slot = next(s for k, s in enumerate(concept_quiz.SLOTS) if bank[p.questions[k]].kind == "single")
    with pytest.raises(AssertionError, match=f'answers\\["{slot}"\\]'):
        concept_quiz.check_form(sid, slot, answer)


def test_an_unknown_slot_is_refused():
    with pytest.raises(AssertionError, match="no quiz slot"):
        concept_quiz.question_markdown(CLASS[0], "fixes")


def test_the_student_copy_holds_no_answer(tmp_path):
    pytest.importorskip("otter", reason="the [grading] extra (otter-grader) is not installed")
    assert cli.main(["build", concept_quiz.ASSIGNMENT, "--out", str(tmp_path), "--student-only"]) == 0
    text = (tmp_path / "student" / f"{concept_quiz.ASSIGNMENT}.ipynb").read_text(encoding="utf-8")
    assert "SOLUTION" not in text and "check_answer" not in text and "hidden=True" not in text
    for slot, letters in concept_quiz.key(PLACEHOLDER_ID)["answers"].items():
        assert f'answers[\\"{slot}\\"] = {letters!r}'.replace("'", '\\"') not in text
    assert "option_ids" not in text and "quiz_key" not in text
