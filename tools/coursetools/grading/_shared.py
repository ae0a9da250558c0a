"""What the assignments' hidden checks share: the prediction's credit, a measured time, recorded requests."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from .spec import Answer, Check

__all__ = ["answer_check", "check_prediction", "check_seconds", "prediction_answers", "recorded_requests"]


def check_prediction(facts: Mapping[str, bool], student_id: str) -> None:
    """Credit for a prediction made: recorded (its fields exported, of the right types), by a cell
    the grader ran before the first cell that runs a model.

    Raises:
        AssertionError: nothing recorded, or recorded after the run.
    """
    assert facts.get("recorded"), "no prediction was recorded (prediction.record(...) with values of the right type)"
    assert facts.get("before_run"), "the prediction was recorded after the run (or in the same cell)"


def prediction_answers(fields: dict[str, tuple[str, float, float]]) -> tuple[Answer, ...]:
    """The exported answers of a ``Prediction``'s fields: ``{field: (kind, low, high)}``."""
    return tuple(
        Answer(f"prediction.{name}", f"prediction.{name}", kind, low, high)
        for name, (kind, low, high) in fields.items()
    )


def check_seconds(answer: object, student_id: str, name: str, key: Callable[[str], dict[str, object]]) -> None:
    """A measured time, in seconds, equals ``key(student_id)[name]`` within 0.5 s.

    Raises:
        AssertionError: ``answer`` is not a ``float``, or is not what the id's night gives.
    """
    expected = float(key(student_id)[name])  # type: ignore[arg-type]
    assert isinstance(answer, float), f"{name} must be a float"
    assert abs(answer - expected) <= 0.5, f"{name} is not what your night gives"


def answer_check(
    question: str, name: str, points: float, fn: Callable[[object, str], None], *answer_names: str
) -> Check:
    """A check of one exported answer (or several, passed in order): a missing one fails with the
    reason the host gave (not set, wrong type, out of range)."""

    def run(answers: Mapping[str, Any], student_id: str) -> None:
        for a in answer_names:
            assert a in answers, f"{a}: {answers.get('_why_' + a, 'not set')}"
        fn(*(answers[a] for a in answer_names), student_id)  # type: ignore[call-arg]

    return Check(question, name, points, "answers", run)


def recorded_requests(
    run: Callable[[Any], object], config: Any, field_name: str, reference: Callable[[Any], bool]
) -> tuple:
    """Every request a run of ``config`` asks the strategy in ``field_name``, answered by ``reference``.

    The hidden checks ask a student's strategy these requests too, so that a table of made-up
    requests cannot be told apart from a real run.
    """
    seen: list[Any] = []

    def recorder(request: Any) -> bool:
        seen.append(request)
        return reference(request)

    run(replace(config, **{field_name: recorder}))
    return tuple(seen)
