"""What the grading tests share: fresh predictions per test, and one build of each assignment per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from labsupport.assignments._shared import PredictionBase


@pytest.fixture(autouse=True)
def _no_lab_has_run(monkeypatch):
    for kind in PredictionBase.__subclasses__():
        monkeypatch.setattr(kind, "_lab_ran", False)


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """``built(name)``: the assignment built once per test session with ``python -m coursetools.grading
    build`` (the student copy, the solution, the Gradescope zip), shared by every test that asks;
    ``built(name, student_only=True)`` leaves the zip out."""
    pytest.importorskip("otter", reason="the [grading] extra (otter-grader) is not installed")
    from coursetools.grading import __main__ as cli

    cache: dict[tuple[str, bool], Path] = {}

    def build(name: str, *, student_only: bool = False) -> Path:
        """``student_only``: the student copy and the solution, without the zip (no wheels to build)."""
        if (name, False) in cache:
            return cache[(name, False)]
        if (name, student_only) not in cache:
            out = tmp_path_factory.mktemp(f"built-{name}")
            assert cli.main(["build", name, "--out", str(out), *(["--student-only"] if student_only else [])]) == 0
            cache[(name, student_only)] = out
        return cache[(name, student_only)]

    return build
