"""Phase 1, execute: the submission runs in a throwaway sandbox and exports data, which the host validates.

Scenario:
    The host prepares the notebook's code cells, as text (the Colab copy's setup cell dropped, the
    collected id written into its ``STUDENT_ID`` cell, otter's own cells left out), then runs them in
    a fresh sandbox (:mod:`coursetools.grading.sandbox`) without ``coursetools``: the runner
    (:mod:`coursetools.grading._runner`) builds a notebook of those cells alone and executes it
    with nbclient, and prints one line of JSON,
    the answers the assignment's schema names, the kernel's final ``STUDENT_ID`` and each cell's
    error. The host reads that line (size-capped, with the job's nonce), and keeps an answer only if
    it has the declared type and range (:meth:`~coursetools.grading.spec.Answer.validate`).
Covers:
    Grading practice; not the incident.

::

    notebook --prepare--> job --sandbox(runner, no coursetools)--> "<nonce> {...}" --validate--> Execution
"""

from __future__ import annotations

import copy
import json
import secrets
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .notebook import Cells, code_cells, pin_student_id
from .release import strip_setup_cells
from .sandbox import GRADER_DIR, Limits, run
from .spec import Spec

__all__ = ["Execution", "execute", "prepare"]

RUNNER = Path(__file__).resolve().parent / "_runner.py"


@dataclass
class Execution:
    """What the execute phase established about one submission.

    Attributes:
        answers: the answers that passed validation, by name (the schema's), with ``_why_<name>``
            for each one that did not (the reason, for the feedback).
        student_id: the kernel's ``STUDENT_ID`` at the end (as the kernel reported it).
        errors: notebook cell index -> the name of the error it raised.
        notes: what went wrong with the run itself (timed out, killed, no report).
        seconds: the phase's wall time.
        cpu_s: its CPU seconds, where a cgroup counted them.
    """

    answers: dict[str, Any] = field(default_factory=dict)
    student_id: object = None
    errors: dict[int, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    cpu_s: float | None = None


def prepare(nb: dict[str, Any], student_id: str) -> tuple[Cells, int | None, str | None]:
    """The notebook's code cells ready to run (the Colab copy's setup cell dropped, the collected id
    written into the ``STUDENT_ID`` cell), the index of the cell the id was written into, and the
    other id that cell named (``None`` if none). The cells are text: nothing here parses them."""
    ready = copy.deepcopy(nb)
    strip_setup_cells(ready)
    said = pin_student_id(ready, student_id)
    cells = code_cells(ready)
    wrote = f"STUDENT_ID = {student_id!r}\n"
    pinned = next((i for i, src in zip(cells.index, cells.source, strict=True) if src == wrote), None)
    return cells, pinned, said


def execute(cells: Cells, spec: Spec, limits: Limits, cell_timeout_s: float) -> Execution:
    """Run the code cells (otter's own aside) in a sandbox and validate what they export against
    ``spec``'s answers. The runner builds a fresh notebook of these cells' sources alone: what runs is
    what the grader read, whatever else the file holds (another format's cells, metadata, tags)."""
    nonce = secrets.token_hex(16)
    job = {
        "cells": [[i, src] for i, src, otter in zip(cells.index, cells.source, cells.otter, strict=True) if not otter],
        "expressions": [[a.name, a.expression] for a in spec.answers],
        "cell_timeout_s": cell_timeout_s,
        "nonce": nonce,
    }
    inside = f"{GRADER_DIR}/runner.py"
    stdin = json.dumps(job).encode()
    out = run([sys.executable, "-I", inside], stdin, limits, with_coursetools=False, files={inside: RUNNER})
    result = Execution(seconds=out.seconds, cpu_s=out.cpu_s)
    result.notes += out.notes
    if out.timed_out:
        result.notes.append(f"the notebook did not finish within {limits.wall_s:g} s: it was stopped")
    report = None
    for line in out.stdout.decode(errors="replace").splitlines():
        if line.startswith(nonce + " "):
            report = line[len(nonce) + 1 :]
    if report is None:
        if not out.timed_out:
            how = "killed: out of memory, or a process of the notebook killed it" if out.returncode in (-9, 137) else ""
            result.notes.append(
                f"the notebook's run ended without a report (exit {out.returncode}{'; ' + how if how else ''})"
            )
        return result
    try:
        data = json.loads(report)
        answers, errors = data.get("answers", {}), data.get("errors", {})
        result.student_id = data.get("student_id")
        result.notes += [str(n)[:200] for n in data.get("notes", [])][:5]
        result.errors = {int(k): str(v)[:80] for k, v in list(errors.items())[:200]}
    except (ValueError, AttributeError, TypeError):
        result.notes.append("the notebook's report was not readable")
        return result
    for answer in spec.answers:
        value, why = answer.validate(answers.get(answer.name) if isinstance(answers, dict) else None)
        if why:
            result.answers["_why_" + answer.name] = why
        else:
            result.answers[answer.name] = value
    return result
