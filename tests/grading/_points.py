"""What the graded labs' tests share: which hidden checks a submission passes, and why one fails."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType, SimpleNamespace

import pytest


def earned(checks: dict[str, Callable[[], None]]) -> dict[str, bool]:
    """Each named hidden check, called: ``True`` if it passes, ``False`` if it raises AssertionError."""
    points = {}
    for name, check in checks.items():
        try:
            check()
            points[name] = True
        except AssertionError:
            points[name] = False
    return points


def fails(check: Callable[..., None], *args: object) -> str:
    """The message of the AssertionError ``check(*args)`` must raise."""
    with pytest.raises(AssertionError) as caught:
        check(*args)
    return str(caught.value)


def both(student: ModuleType, tools: ModuleType) -> SimpleNamespace:
    """One namespace with an assignment's two halves: the student's (``labsupport.assignments``:
    params, config, Prediction, constants) and the instructor's (``coursetools.grading``: key,
    reference answers, hidden checks)."""
    names = {k: getattr(student, k) for k in getattr(student, "__all__", [])}
    names |= {k: getattr(tools, k) for k in getattr(tools, "__all__", [])}
    return SimpleNamespace(**names)
