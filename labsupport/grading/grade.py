"""Grade a folder of submissions with ``otter run``: one CSV row and one feedback file per student.

Scenario:
    An instructor collects one notebook per student (``SUBMISSIONS/<id>.ipynb`` or
    ``SUBMISSIONS/<id>/<any>.ipynb``: the id is the file's or the folder's name, as an LMS export
    gives it) and runs ``python -m labsupport.grading grade SUBMISSIONS --autograder ZIP --out
    grades.csv``. Each submission is graded in its own ``otter run`` process (no Docker, no
    network), with a wall-clock timeout and a memory limit, so one student's endless loop or memory
    bomb costs only that student's grade. Before the run, the grader writes the collected id into
    the notebook's ``STUDENT_ID`` cell and gives it to the hidden tests through
    :data:`~labsupport.grading.lab01.GRADED_ID_VARIABLE`, so a copy of another student's notebook is
    graded against its own id. A static scan flags code that reaches into the grader (otter's
    internals, the tests folder, the environment variable, tracing hooks): a flagged submission gets
    0 on the auto-graded questions and a note for the instructor, who can re-grade it by hand.
Covers:
    Grading practice (Data 8 / Data 100 grade every notebook with otter-grader); not the incident.

::

    SUBMISSIONS/<id>.ipynb --drop setup cell--pin id--scan--> tmp/<assignment>.ipynb --otter run (timeout, RLIMIT_AS)-->
        results.json --> grades.csv row (a column per question, total, flags) + feedback/<id>.md
"""

from __future__ import annotations

import ast
import contextlib
import csv
import json
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfigError
from ._shared import GRADED_ID_VARIABLE
from .release import strip_setup_cells

__all__ = ["Grade", "autograder_assignment", "find_submissions", "grade_folder", "grade_one", "scan", "write_csv"]

#: The id the student copy ships with, before a student writes theirs.
PLACEHOLDER_ID = "s0000000"
#: Names whose appearance in a submission's code means it reaches into the grader or the tests.
FORBIDDEN_NAMES = frozenset(
    {
        "Checker",
        "GradingResults",
        "TestCollection",
        "ExceptionTestFile",
        "init_grading_mode",
        "settrace",
        "setprofile",
        "_getframe",
        "__import__",
        "importlib",
        "builtins",
        "__builtins__",
        "environ",
        "putenv",
        "getenv",
        "pickle",
        "dill",
        "shutil",
        "subprocess",
        "globals",
        "exec",
        "eval",
        "compile",
        "call_strategy",
        "GRADED_ID_VARIABLE",
        "check_if_not_already_checked",
        # reflection: reach a name the scan cannot see, or patch a module through it
        "getattr",
        "setattr",
        "delattr",
        "vars",
        "modules",
        "operator",
        "attrgetter",
        "methodcaller",
        # frames and tracebacks: read the grader's variables from the call stack
        "tb_frame",
        "tb_next",
        "f_back",
        "f_globals",
        "f_locals",
        "f_builtins",
        "gi_frame",
        "cr_frame",
        "ag_frame",
    }
)
#: otter assign's first cell: it names the notebook, except in a copy built for Colab (release.py).
_OTTER_INIT = re.compile(r'# Initialize Otter\nimport otter\ngrader = otter\.Notebook\(("[\w.-]+\.ipynb")?\)')
_FORBIDDEN_TEXT = re.compile(r"LABSUPPORT_GRADED_ID|otter\.|tests/|tests\\\\|\.\./|/autograder|results\.(json|pkl)")


@dataclass
class Grade:
    """One submission's grade.

    Attributes:
        student_id: the id the submission was collected under (and graded against).
        scores: question name -> points earned (auto-graded questions only).
        max_scores: question name -> points available.
        flags: reasons the submission needs the instructor's eye (empty if none).
        feedback: question name -> otter's output for it (what passed, what failed and why).
        seconds: wall-clock time of the grading run.
    """

    student_id: str
    scores: dict[str, float] = field(default_factory=dict)
    max_scores: dict[str, float] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)
    feedback: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def total(self) -> float:
        return float(sum(self.scores.values()))


def autograder_assignment(autograder: Path) -> str:
    """The assignment an otter autograder zip was built for (its ``otter_config.json``'s name).

    Raises:
        ConfigError: the file is not a zip, or holds no ``otter_config.json`` with an
            ``assignment_name``.
    """
    try:
        with zipfile.ZipFile(autograder) as zf:
            config = json.loads(zf.read("otter_config.json"))
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
        raise ConfigError(f"--autograder must be otter assign's autograder zip, got {autograder}: {exc}") from None
    name = config.get("assignment_name") if isinstance(config, dict) else None
    if not isinstance(name, str) or not name:
        raise ConfigError(f"the autograder zip {autograder} names no assignment (otter_config.json)")
    return name


def find_submissions(folder: Path) -> list[tuple[str, Path]]:
    """``(student id, notebook)`` for each ``<id>.ipynb`` or ``<id>/<one>.ipynb`` in ``folder``, by id."""
    found: list[tuple[str, Path]] = []
    for entry in sorted(Path(folder).iterdir()):
        if entry.is_file() and entry.suffix == ".ipynb":
            found.append((entry.stem, entry))
        elif entry.is_dir():
            notebooks = sorted(p for p in entry.glob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
            if notebooks:
                found.append((entry.name, notebooks[0]))
    return found


def _code_cells(nb: dict) -> list[dict]:
    return [c for c in nb.get("cells", []) if c.get("cell_type") == "code"]


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


#: Modules whose key and reference answers a submission must not read: the assignments' own modules
#: and the quiz (whose data file holds its answers).
_KEY_HOLDERS = re.compile(r"lab\d\d|concept_quiz|quiz")
#: Their attributes that give an answer away: the key, the quiz's answer key, the reference strategies.
_KEY_ATTRIBUTES = re.compile(r"key|answer_key|reference_\w+|_seen_requests")


def _reads_the_key(node: ast.Attribute, aliases: frozenset[str] = frozenset()) -> bool:
    """``lab02.key(...)``, ``concept_quiz.key``, ``quiz.answer_key()``, ``lab01.reference_conditional_write``,
    also through an alias of those modules (``import ... lab06 as L``, ``L = lab06``: ``aliases``)."""
    root = node.value
    while isinstance(root, ast.Attribute):
        root = root.value
    holder = isinstance(root, ast.Name) and (
        bool(_KEY_HOLDERS.fullmatch(root.id) or _KEY_HOLDERS.fullmatch(getattr(node.value, "attr", "")))
        or root.id in aliases
    )
    return holder and bool(_KEY_ATTRIBUTES.fullmatch(node.attr))


def _catches_everything(handler: ast.ExceptHandler) -> bool:
    """A bare ``except:``, or one naming ``BaseException``, ``SystemExit`` or ``KeyboardInterrupt``."""
    if handler.type is None:
        return True
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(
        (n.id if isinstance(n, ast.Name) else getattr(n, "attr", ""))
        in ("BaseException", "SystemExit", "KeyboardInterrupt", "GeneratorExit")
        for n in names
    )


def _parsed_cells(nb: dict) -> dict[int, ast.Module]:
    """Each code cell that parses, by index (IPython's ``%`` and ``!`` lines left out)."""
    trees = {}
    for i, cell in enumerate(_code_cells(nb)):
        lines = [ln for ln in _source(cell).splitlines() if not ln.lstrip().startswith(("%", "!"))]
        try:
            trees[i] = ast.parse("\n".join(lines))
        except SyntaxError:
            continue
    return trees


def _course_names(trees: object) -> tuple[frozenset[str], frozenset[str]]:
    """Names a submission binds to the course's code, and the subset bound to a key holder.

    Every name imported from ``labsupport`` (``from labsupport import explore``, ``import
    labsupport.grading.lab06 as L``), then every name assigned from one of those (``L = lab06``,
    ``run = explore.run``), to a fixed point. Assigning to an attribute of any of them patches the
    course's code, which the hidden tests then run.
    """
    course: set[str] = set()
    holders: set[str] = set()
    assigns: list[tuple[str, str, bool]] = []
    for tree in trees:  # type: ignore[attr-defined]
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.split(".")[0] == "labsupport":
                        bound = a.asname or a.name.split(".")[0]
                        course.add(bound)
                        if a.asname and _KEY_HOLDERS.fullmatch(a.name.rsplit(".", 1)[-1]):
                            holders.add(bound)
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "labsupport":
                for a in node.names:
                    course.add(a.asname or a.name)
                    if _KEY_HOLDERS.fullmatch(a.name):
                        holders.add(a.asname or a.name)
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                root = node.value
                while isinstance(root, ast.Attribute):
                    root = root.value
                if isinstance(root, ast.Name):
                    assigns.append((node.targets[0].id, root.id, isinstance(node.value, ast.Name)))
    grown = True
    while grown:
        grown = False
        for target, source, plain in assigns:
            if source in course and target not in course:
                course.add(target)
                grown = True
            if plain and source in holders and target not in holders:
                holders.add(target)
                grown = True
    course -= {"STUDENT_ID", "prediction"}  # the notebook's own names, guarded as plain names above
    return frozenset(course), frozenset(holders)


def scan(nb: dict) -> list[str]:
    """Reasons to distrust a submission's code (empty if none): grader internals, tests, environment,
    the instructor's key or a reference answer read from the package."""
    flags: list[str] = []
    trees = _parsed_cells(nb)
    course, key_holders = _course_names(trees.values())
    for i, cell in enumerate(_code_cells(nb)):
        src = _source(cell)
        if i == 0 and _OTTER_INIT.fullmatch(src.strip()):
            continue  # otter's own first cell, as otter assign writes it
        if _FORBIDDEN_TEXT.search(src):
            flags.append(f"cell {i}: refers to the grader, its tests or its files")
        tree = trees.get(i)
        if tree is None:
            continue  # a cell that does not parse raises when run; it cannot reach the grader
        for node in ast.walk(tree):
            name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
            if name in FORBIDDEN_NAMES:
                flags.append(f"cell {i}: uses {name}")
            if name and name.startswith("_") and (isinstance(node, ast.Attribute) or name.startswith("__")):
                flags.append(f"cell {i}: uses the private or special name {name}")
            if isinstance(node, ast.ExceptHandler) and _catches_everything(node):
                flags.append(f"cell {i}: catches every exception (it can swallow the step limit's stop)")
            if isinstance(node, ast.Attribute) and _reads_the_key(node, key_holders):
                flags.append(f"cell {i}: reads the instructor's key ({node.attr})")
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                mods = [a.name for a in node.names] + (
                    [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
                )
                if any(m.split(".")[0] in ("otter", "os", "sys", "ctypes", "gc", "inspect") for m in mods):
                    flags.append(f"cell {i}: imports {', '.join(mods)}")
                if isinstance(node, ast.ImportFrom) and _KEY_HOLDERS.fullmatch((node.module or "").rsplit(".", 1)[-1]):
                    given = [a.name for a in node.names if _KEY_ATTRIBUTES.fullmatch(a.name) or a.name == "*"]
                    if given:
                        flags.append(f"cell {i}: reads the instructor's key ({', '.join(given)})")
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
                targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
                for t in targets:
                    root = t
                    while isinstance(root, (ast.Attribute, ast.Subscript)):
                        root = root.value
                    name = root.id if isinstance(root, ast.Name) else ""
                    guarded = (
                        name in ("grader", "otter", "STUDENT_ID", "prediction")
                        or re.fullmatch(r"lab\d\d", name)
                        or (name in course and not isinstance(t, ast.Name))  # patching the course's code
                    )
                    # STUDENT_ID and prediction are set by the notebook's own cells: only as plain names
                    if guarded and not (name in ("STUDENT_ID", "prediction") and isinstance(t, ast.Name)):
                        flags.append(f"cell {i}: assigns to {name}")
    return sorted(set(flags))


def pin_student_id(nb: dict, student_id: str) -> bool:
    """Write ``student_id`` into the notebook's ``STUDENT_ID = ...`` line; True if it said another id."""
    other = False
    pattern = re.compile(r"^STUDENT_ID\s*=\s*(.*?)(\s*#.*)?$", re.M)
    for cell in _code_cells(nb):
        src = _source(cell)
        for m in pattern.finditer(src):
            said = m.group(1).strip().strip("\"'")
            other |= said not in (student_id, PLACEHOLDER_ID)
        cell["source"] = pattern.sub(f"STUDENT_ID = {student_id!r}", src)
    return other


def _limit_memory(memory_mb: int) -> None:
    limit = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (read from /proc: kernels run in a session of their own)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
        except (OSError, IndexError, ValueError):
            continue
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def grade_one(
    student_id: str,
    notebook: Path,
    autograder: Path,
    *,
    assignment: str,
    timeout_s: float = 300.0,
    memory_mb: int = 3072,
) -> Grade:
    """Grade one submission in its own ``otter run`` process; never raises for a bad submission.

    Args:
        student_id: the id it was collected under; the hidden tests grade against this id.
        notebook: the submitted notebook.
        autograder: otter's autograder zip (``otter assign``'s output).
        assignment: the assignment's name (the notebook is renamed to it, as otter expects).
        timeout_s: wall-clock seconds before the run is killed (the submission then scores 0).
        memory_mb: address-space limit of the run and its kernel, MiB.

    Returns:
        A :class:`Grade`; a submission that cannot be read, times out or is flagged scores 0.
    """
    start = time.perf_counter()
    grade = Grade(student_id)
    try:
        nb = json.loads(Path(notebook).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        grade.flags.append(f"unreadable notebook: {exc}")
        return grade
    if not isinstance(nb, dict):
        grade.flags.append("unreadable notebook: not a notebook's JSON object")
        return grade
    strip_setup_cells(nb)  # a Colab copy's install cell: it writes public checks, which the scan would flag
    if pin_student_id(nb, student_id):
        grade.flags.append("STUDENT_ID in the notebook was another id: graded against the collected id")
    tampering = scan(nb)
    with tempfile.TemporaryDirectory(prefix="grade-") as tmp:
        work = Path(tmp)
        (work / "submission").mkdir()
        (work / "out").mkdir()
        target = work / "submission" / f"{assignment}.ipynb"
        target.write_text(json.dumps(nb), encoding="utf-8")
        env = {**os.environ, GRADED_ID_VARIABLE: student_id}
        cmd = [
            sys.executable,
            "-m",
            "otter",
            "run",
            "-a",
            str(Path(autograder).resolve()),
            "-o",
            str(work / "out"),
            "--no-logo",
            str(target),
        ]
        proc = subprocess.Popen(
            cmd,
            cwd=work,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=lambda: _limit_memory(memory_mb),
        )
        try:
            out, _ = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            for pid in [*_descendants(proc.pid), proc.pid]:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            out, _ = proc.communicate()
            grade.flags.append(f"timed out after {timeout_s:g} s: scored 0")
        results = work / "out" / "results.json"
        if results.exists() and not any(f.startswith("timed out") for f in grade.flags):
            _read_results(grade, json.loads(results.read_text(encoding="utf-8")))
        elif not grade.flags:
            tail = out.decode(errors="replace")[-400:] if out else ""
            grade.flags.append(f"otter run produced no results: {tail}")
    if tampering:
        grade.flags += [f"flagged for review: {t}" for t in tampering]
        grade.scores = dict.fromkeys(grade.scores, 0.0)
    grade.seconds = time.perf_counter() - start
    return grade


def _read_results(grade: Grade, results: dict) -> None:
    for test in results.get("tests", []):
        name = test.get("name", "")
        if name == "Public Tests" or test.get("max_score") is None:
            continue
        grade.scores[name] = float(test.get("score") or 0.0)
        grade.max_scores[name] = float(test["max_score"])
        grade.feedback[name] = str(test.get("output", ""))
    if not grade.scores:  # otter ran, yet graded no question: its tests were replaced or removed
        grade.flags.append("flagged for review: otter run reported no question scores (were the tests changed?)")


def grade_folder(
    folder: Path, autograder: Path, *, assignment: str, jobs: int = 1, timeout_s: float = 300.0, memory_mb: int = 3072
) -> list[Grade]:
    """Grade every submission of ``folder`` (see :func:`find_submissions`), ``jobs`` at a time."""
    subs = find_submissions(folder)
    if not subs:
        raise ConfigError(f"no submissions (*.ipynb or <id>/*.ipynb) in {folder}")
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(
            pool.map(
                lambda s: grade_one(
                    s[0], s[1], autograder, assignment=assignment, timeout_s=timeout_s, memory_mb=memory_mb
                ),
                subs,
            )
        )


def write_csv(
    grades: list[Grade],
    out: Path,
    *,
    manual: tuple[str, ...] = (),
    feedback_dir: Path | None = None,
    params: object = None,
) -> None:
    """Write ``grades.csv`` (a row per student, a column per question, totals, flags) and feedback files.

    Columns: ``student_id``, each auto-graded question (points), each manual question (empty, for the
    instructor), ``auto_total``, ``auto_max``, ``flags`` (``; ``-separated), ``seconds``.
    """
    questions = sorted({q for g in grades for q in g.max_scores})
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
            lines += [
                f"## {q}: {g.scores.get(q, 0.0):g} / {maxima[q]:g}",
                "",
                "```",
                g.feedback.get(q, "not graded").strip(),
                "```",
                "",
            ]
        for q in manual:
            lines += [f"## {q}: graded by hand", ""]
        if g.flags:
            lines += ["## Notes from the grader", "", *(f"- {f}" for f in g.flags), ""]
        (feedback_dir / f"{g.student_id}.md").write_text("\n".join(lines), encoding="utf-8")
