"""The assignments the grader knows, by name: each one's :class:`~coursetools.grading.spec.Spec`."""

from __future__ import annotations

from pathlib import Path

from labsupport.errors import ConfigError

from . import concept_quiz, lab01, lab02, lab03, lab04, lab05, lab06
from .spec import Spec

__all__ = ["SOURCES", "SPECS", "spec"]

#: Every assignment's spec, by its name (its folder under ``assignments/``).
SPECS: dict[str, Spec] = {m.SPEC.assignment: m.SPEC for m in (concept_quiz, lab01, lab02, lab03, lab04, lab05, lab06)}
#: The assignment sources, at the repository's root (``tools/`` sits beside ``assignments/``).
SOURCES = Path(__file__).resolve().parents[3] / "assignments"


def spec(name: str) -> Spec:
    """The spec of the assignment ``name``; raises ConfigError naming the known ones otherwise."""
    if name not in SPECS:
        raise ConfigError(f"assignment must be one of {sorted(SPECS)}, got {name!r}")
    return SPECS[name]
