"""labsupport.feedback: a check's verdicts, and a whole answer's status; never an exception for an answer."""

from __future__ import annotations

import math

import pytest

from labsupport.feedback import Feedback, Part, answered, boolean, choice, feedback, fields_of, number, review


def test_placeholders_are_not_answers():
    assert not answered(...) and not answered(None)
    assert answered(0) and answered(False) and answered("")


@pytest.mark.parametrize(
    "got, verdict",
    [
        (..., "not answered"),
        (None, "not answered"),
        (2.0, "right"),
        (2.4, "right"),
        (3, "wrong"),
        (1.4, "wrong"),
        (True, "cannot check"),
        ("2", "cannot check"),
        (math.nan, "cannot check"),
        (math.inf, "cannot check"),
    ],
)
def test_number_parts(got, verdict):
    part = number("hours", got, 2.0, tolerance=0.5, unit="h")
    assert part.verdict == verdict
    if verdict == "wrong":
        assert "the model gives 2 h" in part.message and ("too high" in part.message or "too low" in part.message)


def test_relative_tolerance_and_who_gives_the_answer():
    assert number("n", 104, 100, tolerance=0.05, relative=True).verdict == "right"
    assert number("n", 106, 100, tolerance=0.05, relative=True).verdict == "wrong"
    assert "the timeline gives" in number("n", 1, 2, tolerance=0, by="the timeline").message


@pytest.mark.parametrize(
    "got, verdict", [(True, "right"), (False, "wrong"), (1, "cannot check"), ("yes", "cannot check")]
)
def test_boolean_parts_take_only_booleans(got, verdict):
    assert boolean("ok", got, True).verdict == verdict


def test_choice_parts_ignore_case_and_refuse_what_is_not_a_choice():
    assert choice("c", " More ", "more", ("more", "less")).verdict == "right"
    assert choice("c", "less", "more", ("more", "less")).verdict == "wrong"
    assert choice("c", "maybe", "more", ("more", "less")).verdict == "cannot check"
    assert choice("c", 4, "4", ("4", "5")).verdict == "cannot check"  # a number is not the string "4"


def test_review_parts_only_say_a_written_answer_is_there():
    assert review("r", ...).verdict == "not answered" and review("r", "   ").verdict == "not answered"
    assert review("r", "too short").verdict == "cannot check"
    assert review("r", "a good answer with several words in it").verdict == "reviewed"
    assert review("r", 42).verdict == "cannot check"


def test_status_of_a_whole_answer():
    def fb(*verdicts):
        return Feedback("X", tuple(Part(str(i), v, "") for i, v in enumerate(verdicts)))

    assert fb("not answered", "not answered").status == "not answered"
    assert fb("right", "not answered").status == "incomplete"
    assert fb("right", "wrong").status == "wrong" and fb("right", "cannot check").status == "wrong"
    assert fb("right", "right").status == "right" and fb("right", "right").passed
    assert fb("right", "reviewed").status == "reviewed" and fb("right", "reviewed").passed
    with pytest.raises(ValueError, match="verdict"):
        Part("x", "maybe", "")


def test_feedback_reads_any_answer_without_raising():
    checks = {"a": lambda v: boolean("a", v, True), "b": lambda v: number("b", v, 1.0, tolerance=0)}
    assert feedback("X", ..., checks).status == "not answered"
    typo = feedback("X", {"a": True, "bb": 1}, checks)
    assert [p.verdict for p in typo.parts] == ["right", "not answered"] and "'bb'" in typo.note
    wrong_kind = feedback("X", [True, 1], checks)
    assert wrong_kind.status == "not answered" and "a list" in wrong_kind.note
    assert fields_of({"a": 1}, ["a", "b"]) == ({"a": 1, "b": ...}, "")


def test_feedback_shows_as_text_and_markdown():
    fb = feedback("Exercise 9", {"a": False}, {"a": lambda v: boolean("a", v, True, why="because <x>")})
    assert str(fb).splitlines()[0] == "Exercise 9: 0 of 1 parts right" and "✗ a: wrong" in str(fb)
    md = fb._repr_markdown_()
    assert md.startswith("**Exercise 9**") and "because &lt;x&gt;" in md


def test_the_note_waits_until_every_part_is_answered():
    """Run all with the answer cells at ``...`` must not print the model's reasons or a strong answer's
    points: a fresh user's Run all once showed lab 02's exercise 5 answer under its empty cell."""
    checks = {"a": lambda v: boolean("a", v, True), "b": lambda v: review("b", v)}
    secret = "a strong answer plots goodput"
    for unanswered in (..., {"a": True}, {"b": "five words or more here"}):
        shown = str(feedback("Exercise 5", unanswered, checks, note=secret))
        assert secret not in shown and "once every part is answered" in shown
    done = feedback("Exercise 5", {"a": False, "b": "five words or more here"}, checks, note=secret)
    assert secret in str(done) and done.status == "wrong"
    shape = feedback("Exercise 5", [True], checks, note=secret)
    assert "the check reads a dict" in str(shape) and secret not in str(shape)
