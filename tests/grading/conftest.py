"""Each test starts as a fresh notebook would: no lab's prediction has run in this process yet."""

from __future__ import annotations

import pytest

from labsupport.grading._shared import PredictionBase


@pytest.fixture(autouse=True)
def _no_lab_has_run(monkeypatch):
    for kind in PredictionBase.__subclasses__():
        monkeypatch.setattr(kind, "_lab_ran", False)
