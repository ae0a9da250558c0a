"""What every graded assignment shares: the student id's hash, the graded id, the prediction's
bookkeeping and the recording of a reference strategy's requests.

A student's problem is a function of their id: :func:`digest` hashes ``"<assignment>:<id>"`` with
SHA-256, so the same id always gives the same problem, two ids almost never share one, and the
same id gives unrelated problems in two assignments. The grading command pins the id a submission
was collected under and hands it to the hidden tests through :data:`GRADED_ID_VARIABLE`
(:func:`graded_id`), so a copy of another student's notebook is graded against its own id.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from ..errors import ConfigError
from ..strategy import call_strategy

__all__ = [
    "GRADED_ID_VARIABLE",
    "PredictionBase",
    "check_answers_with_a_bool",
    "check_prediction_made",
    "digest",
    "graded_id",
    "recorded_requests",
]

#: The environment variable through which the grading command gives the hidden tests the real id.
GRADED_ID_VARIABLE = "LABSUPPORT_GRADED_ID"


def digest(assignment: str, student_id: object) -> bytes:
    """SHA-256 of ``"<assignment>:<id>"`` (32 bytes); raises ConfigError unless the id is a non-empty string."""
    if not isinstance(student_id, str) or not student_id.strip():
        raise ConfigError(f"student_id must be a non-empty string, got {student_id!r}")
    return hashlib.sha256(f"{assignment}:{student_id.strip()}".encode()).digest()


def graded_id(notebook_id: str) -> str:
    """The id to grade against: the grading command's (environment variable), else the notebook's."""
    return os.environ.get(GRADED_ID_VARIABLE) or notebook_id


@dataclass
class PredictionBase:
    """The bookkeeping of every lab's ``Prediction``: whether it was recorded before the run.

    A lab's ``Prediction`` adds the predicted fields (each ``None`` until :meth:`record`), calls
    :meth:`_recorded` when it records them and :meth:`_running` before its run. Every field is
    set only that way (none is an ``__init__`` argument), so ``Prediction(made_before_run=True)``
    is refused.

    Attributes:
        made_before_run: whether the prediction was recorded before the lab's run was first called.
    """

    made_before_run: bool = field(default=False, init=False)
    _ran: bool = field(default=False, init=False)
    #: Whether any prediction of this lab has run in this process: a new ``Prediction()`` made after
    #: the run is recorded after it too.
    _lab_ran: ClassVar[bool] = False

    def _recorded(self) -> None:
        self.made_before_run = not self._ran and not type(self)._lab_ran

    def _running(self, recorded: object, how: str) -> None:
        """Mark the run; raises ConfigError if nothing is recorded yet (``recorded`` is None)."""
        if recorded is None:
            raise ConfigError(f"record your prediction first: prediction.record({how})")
        self._ran = True
        type(self)._lab_ran = True


def check_prediction_made(prediction: object, kind: type[PredictionBase], recorded: str) -> None:
    """Credit for a prediction made: a ``kind`` whose field ``recorded`` was set before the run.

    Raises:
        AssertionError: not a ``kind``, nothing recorded, or recorded after the run.
    """
    assert isinstance(prediction, kind), "prediction must be the Prediction object of the first cell"
    assert getattr(prediction, recorded) is not None, "no prediction was recorded"
    assert prediction.made_before_run, "the prediction was recorded after the run"


def check_answers_with_a_bool(name: str, fn: object, request: object) -> None:
    """The public form check of a design question: ``fn`` is a function of one request that answers
    ``True`` or ``False`` within the course's step budget, called as the engines call it
    (:func:`labsupport.strategy.call_strategy`), so a loop that never returns or a ``sys.exit`` fails
    the check with the course's message instead of hanging the notebook or ending it.

    Raises:
        AssertionError: ``fn`` is not callable, or it raised, returned a non-``bool`` or did not return.
    """
    assert callable(fn), f"{name} must be a function"
    try:
        call_strategy(name, fn, request)
    except ConfigError as exc:
        raise AssertionError(str(exc)) from None


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
