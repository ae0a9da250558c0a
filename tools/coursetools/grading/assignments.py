"""The assignments the grader knows, by name: each one's :class:`~coursetools.grading.spec.Spec`."""

from __future__ import annotations

from pathlib import Path

from labsupport.errors import ConfigError

from ..repository import course_root
from . import concept_quiz, lab01, lab02, lab03, lab04, lab05, lab06, lab08
from .spec import Spec

__all__ = ["SOURCES", "SPECS", "source", "spec"]

#: Every assignment's spec, by its name (its folder under ``assignments/``).
SPECS: dict[str, Spec] = {
    m.SPEC.assignment: m.SPEC for m in (concept_quiz, lab01, lab02, lab03, lab04, lab05, lab06, lab08)
}
#: The folder of the assignment sources, relative to the course repository's root.
SOURCES = "assignments"


def spec(name: str) -> Spec:
    """The spec of the assignment ``name``; raises ConfigError naming the known ones otherwise."""
    if name not in SPECS:
        raise ConfigError(f"assignment must be one of {sorted(SPECS)}, got {name!r}")
    return SPECS[name]


def source(name: str, root: str | Path | None = None) -> Path:
    """The source notebook of the assignment ``name``, ``assignments/<name>/<name>.ipynb``.

    Args:
        name: the assignment (a key of :data:`SPECS`).
        root: the course repository's root folder; by default the current directory.

    Raises:
        ConfigError: an unknown assignment, a ``root`` that is not the repository's root
            (:func:`~coursetools.repository.course_root`), or no source notebook there.
    """
    spec(name)
    path = course_root(root) / SOURCES / name / f"{name}.ipynb"
    if not path.is_file():
        raise ConfigError(f"the assignment {name!r} must have its source notebook at {path}, got no file there")
    return path
