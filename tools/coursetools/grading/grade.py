"""Grade a folder of submissions: two sandboxed phases each, one CSV row and one feedback file per student.

Scenario:
    An instructor collects one notebook per student (``SUBMISSIONS/<id>.ipynb`` or
    ``SUBMISSIONS/<id>/<any>.ipynb``: the id is the file's or the folder's name, as an LMS export
    gives it, never one the notebook names) and runs ``python -m coursetools.grading grade
    SUBMISSIONS --assignment NAME --out grades.csv``. Each submission is graded in two phases, each
    in a sandbox of its own (:mod:`coursetools.grading.sandbox`):

    1. *execute* (:mod:`~coursetools.grading.execute`): the notebook runs, with the collected id in
       its ``STUDENT_ID`` cell, and exports only data: its answers, validated by the host against
       the assignment's schema, its final ``STUDENT_ID`` and each cell's error;
    2. *check* (:mod:`~coursetools.grading.check`): a fresh process, which the submission never ran
       in, loads the checks first, compiles the design function's source (read by the host from the
       notebook's cells) restricted, and computes the verdict. It starts beside phase 1 with the
       design function alone (whose checks need nothing of the run), and gets the run's answers
       when phase 1 is over.

    Flags for the instructor, which never change a score: another id named or set in the notebook,
    a design answer that matches the public reference solution or another student's (after
    normalising names and formatting), signs of an attack in the cells (a second layer), a run
    stopped at its time limit or killed.
Covers:
    Grading practice (Data 8 / Data 100 grade every notebook with otter-grader; Gradescope gives
    each submission a container); not the incident.

::

    SUBMISSIONS/<id>.ipynb --prepare (id pinned)--> execute (sandbox: no coursetools) --> answers
        --> check (sandbox: checks first, design source compiled restricted) --> verdict
        --> grades.csv row (a column per question, total, flags) + feedback/<id>.md
"""

from __future__ import annotations

import csv
import json
import secrets
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from labsupport.errors import ConfigError

from . import sandbox, similarity
from .assignments import spec as spec_of
from .execute import Execution, execute, prepare
from .sandbox import Limits
from .spec import Spec

__all__ = ["Grade", "GradeOptions", "collection_flags", "find_submissions", "grade_folder", "grade_one", "write_csv"]


@dataclass(frozen=True)
class GradeOptions:
    """How to grade: each phase's limits (:class:`~coursetools.grading.sandbox.Limits`), and the
    seconds one cell of the notebook and one check may take."""

    execute: Limits = field(default_factory=Limits)
    check: Limits = field(default_factory=lambda: Limits(wall_s=600.0, cpus=2.0))
    cell_timeout_s: float = 120.0
    check_timeout_s: float = 120.0


@dataclass
class Grade:
    """One submission's grade.

    Attributes:
        student_id: the id the submission was collected under (and graded against).
        scores: question name -> points earned (auto-graded questions only).
        max_scores: question name -> points available.
        flags: reasons the submission needs the instructor's eye (empty if none); none changes a score.
        feedback: question name -> what each check found (passed, or why not).
        seconds: wall-clock time of the two phases.
        phase_seconds: each phase's wall-clock time (``execute``, ``check``), and the CPU seconds of
            both (``cpu``) where a cgroup counted them.
        design_tokens: the normalised design answer (for the class's similarity check).
    """

    student_id: str
    scores: dict[str, float] = field(default_factory=dict)
    max_scores: dict[str, float] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)
    feedback: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    phase_seconds: dict[str, float] = field(default_factory=dict)
    design_tokens: list[str] = field(default_factory=list)

    @property
    def total(self) -> float:
        return float(sum(self.scores.values()))


def find_submissions(folder: Path) -> list[tuple[str, Path]]:
    """``(student id, notebook)`` for each ``<id>.ipynb`` or ``<id>/<one>.ipynb`` in ``folder``, by id.

    A symbolic link is listed too (as itself): it is refused when read, with a flag, so that its
    student still gets a row. In a folder of several notebooks the first by name is the one graded
    (:func:`collection_flags` says so).
    """
    found: list[tuple[str, Path]] = []
    for entry in sorted(Path(folder).iterdir()):
        if entry.suffix == ".ipynb" and (entry.is_symlink() or entry.is_file()):
            found.append((entry.stem, entry))
        elif entry.is_symlink() and entry.is_dir():
            found.append((entry.name, entry))
        elif entry.is_dir():
            notebooks = sorted(p for p in entry.glob("*.ipynb") if p.is_symlink() or p.is_file())
            if notebooks:
                found.append((entry.name, notebooks[0]))
    return found


def collection_flags(folder: Path, subs: list[tuple[str, Path]]) -> list[list[str]]:
    """For each submission of :func:`find_submissions`, what its collection needs the instructor to
    see: an id collected twice, a folder with several notebooks."""
    ids = [sid for sid, _ in subs]
    flags: list[list[str]] = []
    for sid, path in subs:
        mine = []
        if ids.count(sid) > 1:
            mine.append(f"{ids.count(sid)} submissions were collected under this id (each graded, each flagged)")
        if path.parent != Path(folder) and not path.is_symlink():
            others = sorted(p.name for p in path.parent.glob("*.ipynb") if p != path)
            if others:
                mine.append(f"its folder holds other notebooks, not graded: {', '.join(others)[:200]}")
        flags.append(mine)
    return flags


def _read(notebook: Path, grade: Grade) -> dict[str, Any] | None:
    if notebook.is_symlink():
        grade.flags.append("not graded: a symbolic link, not a file (only the files collected are graded)")
        return None
    try:
        if notebook.stat().st_size > 20 * 2**20:
            grade.flags.append("the notebook is larger than 20 MiB: not graded")
            return None
        nb = json.loads(notebook.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:  # RecursionError: JSON nested too deep
        grade.flags.append(f"unreadable notebook: {type(exc).__name__}: {str(exc)[:200]}")
        return None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        grade.flags.append("unreadable notebook: not a notebook's JSON object (nbformat 4)")
        return None
    return nb


def _start_checks(job: dict[str, Any], options: GradeOptions) -> sandbox.Running:
    """Start the check phase with the first half of its job (the id, the notebook's code cells, a
    nonce): it loads the checks, parses the cells and runs the design function's checks while the
    notebook runs."""
    argv = [sys.executable, "-I", "-m", "coursetools.grading.check"]
    return sandbox.start(argv, options.check, with_coursetools=True, first=(json.dumps(job) + "\n").encode())


def _verdict(
    running: sandbox.Running, nonce: str, rest: dict[str, Any], options: GradeOptions
) -> tuple[dict[str, Any], sandbox.Outcome]:
    """Give the check phase what the notebook's run exported and read its verdict: the last line
    that begins with the nonce, from output the host read whole (a verdict past the output's cap is
    no verdict: the last line read would not be the phase's last)."""
    out = running.finish((json.dumps(rest) + "\n").encode())
    lines = [
        line[len(nonce) + 1 :]
        for line in out.stdout.decode(errors="replace").splitlines()
        if line.startswith(nonce + " ")
    ]
    try:
        verdict = json.loads(lines[-1]) if lines and not out.truncated else {}
    except ValueError:
        verdict = {}
    if not isinstance(verdict, dict) or not isinstance(verdict.get("checks"), list):
        tail = out.stderr.decode(errors="replace")[-300:]
        why = "its output was longer than the host reads" if out.truncated else f"exit {out.returncode}"
        verdict = {"checks": [], "notes": [f"the checking process gave no verdict ({why}) {tail}"]}
    if out.timed_out:
        verdict.setdefault("notes", []).append(f"the checks did not finish within {options.check.wall_s:g} s")
    return verdict, out


def _reading(verdict: dict[str, Any], grade: Grade) -> None:
    """What the check phase read of the notebook: its flags and the design answer's tokens."""
    reading = verdict.get("reading")
    if not isinstance(reading, dict):
        return
    grade.flags += [str(f)[:300] for f in reading.get("flags", [])[:50] if isinstance(f, str)]
    tokens = reading.get("tokens", [])
    if isinstance(tokens, list):
        grade.design_tokens = [str(t) for t in tokens[: similarity.MAX_TOKENS]]


def grade_one(student_id: str, notebook: Path, spec: Spec, options: GradeOptions | None = None) -> Grade:
    """Grade one submission in two sandboxed phases; never raises for a bad submission.

    The host reads the notebook as text alone (JSON, the code cells' sources, the ``STUDENT_ID``
    cell's line): parsing its code, whose cost a hostile notebook can make unbounded, happens in the
    check phase's sandbox, under its limits.

    Args:
        student_id: the id it was collected under; every expected answer is computed for this id.
        notebook: the submitted notebook.
        spec: the assignment's spec (:func:`coursetools.grading.assignments.spec`).
        options: limits and timeouts (:class:`GradeOptions`' defaults if ``None``).

    Returns:
        A :class:`Grade`: each check's points, with flags and feedback; a submission that cannot
        be read, or whose phases fail, scores 0 on what they did not establish.
    """
    options = options or GradeOptions()
    start = time.perf_counter()
    grade = Grade(student_id)
    for q in spec.auto_questions:
        grade.scores[q.name], grade.max_scores[q.name] = 0.0, float(q.points)
    nb = _read(Path(notebook), grade)
    if nb is None:
        grade.seconds = time.perf_counter() - start
        return grade
    cells, pinned, said = prepare(nb, student_id)
    if said is not None:
        grade.flags.append(f"STUDENT_ID said {said[:60]!r}: graded as the collected id {student_id!r}")
    nonce = secrets.token_hex(16)
    first = {
        "assignment": spec.assignment,
        "student_id": student_id,
        "cells": {"index": cells.index, "source": cells.source, "otter": cells.otter},
        "pinned": pinned,
        "check_timeout_s": options.check_timeout_s,
        "nonce": nonce,
    }
    checking = _start_checks(first, options)  # beside the notebook's run: it never sees the run
    ran: Execution = execute(cells, spec, options.execute, options.cell_timeout_s)
    grade.flags += ran.notes
    if ran.student_id not in (None, student_id):
        said_last = str(ran.student_id)[:60]
        grade.flags.append(f"the notebook ended with STUDENT_ID = {said_last!r}: graded as {student_id!r}")
    recorded = bool(spec.prediction) and all(f"prediction.{f}" in ran.answers for f in spec.prediction)
    exported = {"answers": ran.answers, "prediction": {"recorded": recorded}}
    verdict, checked = _verdict(checking, nonce, exported, options)
    grade.phase_seconds |= {"execute": ran.seconds, "check": checked.seconds}
    if ran.cpu_s is not None and checked.cpu_s is not None:
        grade.phase_seconds["cpu"] = ran.cpu_s + checked.cpu_s
    _reading(verdict, grade)
    grade.flags += [f"grader: {n}" for n in verdict.get("notes", [])]
    lines: dict[str, list[str]] = {q.name: [] for q in spec.auto_questions}
    for c in verdict.get("checks", []):
        if c.get("question") in grade.scores and c.get("passed") is True:
            grade.scores[c["question"]] += float(c["points"])
        if c.get("question") in lines:
            mark = "passed" if c.get("passed") else f"failed: {c.get('message', '')}"
            lines[c["question"]].append(f"{c.get('name')} ({c.get('points'):g} point): {mark}")
    for q in spec.auto_questions:
        grade.scores[q.name] = min(grade.scores[q.name], grade.max_scores[q.name])
        grade.feedback[q.name] = "\n".join(lines[q.name]) or "not graded"
    if ran.errors:
        shown = ", ".join(f"cell {k}: {v}" for k, v in sorted(ran.errors.items())[:10])
        grade.feedback["_errors"] = f"cells that raised when the grader ran your notebook: {shown}"
    grade.seconds = time.perf_counter() - start
    return grade


def _similarity_flags(grades: list[Grade], spec: Spec) -> None:
    """One flag for a likeness to a reference, one for the classmates it is like (the first three named)."""
    references = [similarity.normalise_function(r) for r in spec.references]
    for g in grades:
        if similarity.is_stub(g.design_tokens):
            continue  # the student copy's own empty function: nothing to compare
        for ref in references:
            match = similarity.similar(g.design_tokens, ref)
            if match is not None:
                g.flags.append(similarity.Match("the reference solution", *match).sentence())
        alike = [
            (o.student_id, m)
            for o in grades
            if o is not g and (m := similarity.similar(g.design_tokens, o.design_tokens)) is not None
        ]
        if alike:
            names = ", ".join(i for i, _ in alike[:3]) + (f" and {len(alike) - 3} more" if len(alike) > 3 else "")
            g.flags.append(similarity.Match(names, *max(m for _, m in alike)).sentence())


def _graded(student_id: str, notebook: Path, spec: Spec, options: GradeOptions | None, flags: list[str]) -> Grade:
    """:func:`grade_one`, with the collection's flags; a failure of the grader's own on one
    submission gives that row 0 and says so, and the class goes on."""
    try:
        grade = grade_one(student_id, notebook, spec, options)
    except Exception as exc:  # noqa: BLE001 (one submission's failure must not cost the class its grades)
        grade = Grade(student_id)
        for q in spec.auto_questions:
            grade.scores[q.name], grade.max_scores[q.name] = 0.0, float(q.points)
        why = f"{type(exc).__name__}: {str(exc)[:200]}"
        grade.flags.append(f"the grader failed on this submission ({why}): grade it by hand")
    grade.flags[:0] = flags
    return grade


def grade_folder(folder: Path, *, assignment: str, jobs: int = 1, options: GradeOptions | None = None) -> list[Grade]:
    """Grade every submission of ``folder`` (see :func:`find_submissions`), ``jobs`` at a time, then
    compare the class's design answers with the references and with each other."""
    spec = spec_of(assignment)
    if sandbox.mode() == "user":
        jobs = 1  # the fallback ends a phase by killing its user's processes: one submission at a time
    subs = find_submissions(folder)
    if not subs:
        raise ConfigError(f"no submissions (*.ipynb or <id>/*.ipynb) in {folder}")
    flags = collection_flags(folder, subs)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        grades = list(pool.map(lambda k: _graded(*subs[k], spec, options, flags[k]), range(len(subs))))
    _similarity_flags(grades, spec)
    return grades


def write_csv(
    grades: list[Grade],
    out: Path,
    *,
    manual: tuple[str, ...] = (),
    feedback_dir: Path | None = None,
    params: Any = None,
) -> None:
    """Write ``grades.csv`` (a row per student, a column per question, totals, flags) and feedback files.

    Columns: ``student_id``, each auto-graded question (points), each manual question (empty, for the
    instructor), ``auto_total``, ``auto_max``, ``flags`` (``; ``-separated), ``seconds``.
    """
    questions = list(dict.fromkeys(q for g in grades for q in g.max_scores))
    maxima = {q: max(g.max_scores.get(q, 0.0) for g in grades) for q in questions}
    auto_max = sum(maxima.values())
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["student_id", *questions, *manual, "auto_total", "auto_max", "flags", "seconds"])
        for g in grades:
            w.writerow(
                [
                    g.student_id,
                    *(f"{g.scores.get(q, 0.0):g}" for q in questions),
                    *([""] * len(manual)),
                    f"{g.total:g}",
                    f"{auto_max:g}",
                    "; ".join(g.flags),
                    f"{g.seconds:.1f}",
                ]
            )
    if feedback_dir is None:
        return
    feedback_dir = Path(feedback_dir)
    feedback_dir.mkdir(parents=True, exist_ok=True)
    for g in grades:
        lines = [f"# Feedback for {g.student_id}", "", f"Auto-graded: {g.total:g} / {auto_max:g} points.", ""]
        if callable(params):
            lines += [f"Your parameters: {params(g.student_id)}", ""]
        for q in questions:
            body = g.feedback.get(q, "not graded").strip()
            lines += [f"## {q}: {g.scores.get(q, 0.0):g} / {maxima[q]:g}", "", "```", body, "```", ""]
        for q in manual:
            lines += [f"## {q}: graded by hand", ""]
        if "_errors" in g.feedback:
            lines += ["## Your notebook's run", "", g.feedback["_errors"], ""]
        # A likeness to another student names that student: the CSV tells the instructor, the
        # student's own file only that their answer will be compared by hand.
        notes = [f for f in g.flags if not f.startswith(similarity.FLAG)]
        if len(notes) < len(g.flags):
            notes.append("your design answer will be compared by hand with others (it is much like another)")
        if notes:
            lines += ["## Notes from the grader", "", *(f"- {f}" for f in notes), ""]
        name = g.student_id.replace("/", "_").replace("\\", "_") or "_"
        (feedback_dir / f"{name}.md").write_text("\n".join(lines), encoding="utf-8")
