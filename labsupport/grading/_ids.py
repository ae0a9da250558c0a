"""What every graded assignment shares: the graded id, and parameters derived from a student id.

A student's problem is a function of their id: :func:`digest` hashes ``"<assignment>:<id>"`` with
SHA-256, so the same id always gives the same problem, two ids almost never share one, and the
same id gives unrelated problems in two assignments. The grading command pins the id a submission
was collected under and hands it to the hidden tests through :data:`GRADED_ID_VARIABLE`
(:func:`graded_id`), so a copy of another student's notebook is graded against its own id.
"""

from __future__ import annotations

import hashlib
import os

from ..errors import ConfigError

__all__ = ["GRADED_ID_VARIABLE", "digest", "graded_id"]

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
