"""Build an assignment (otter's student copy, the course's autograder zip) and run that zip on Gradescope.

Scenario:
    ``build`` runs ``otter assign`` for the student copy and its public ``grader.check`` form
    checks, then writes ``autograder/<name>-gradescope.zip`` in Gradescope's documented layout: at
    its root ``setup.sh`` (Gradescope runs it once, when it builds the image: it installs Python,
    bubblewrap and the two wheels the zip carries, ``labsupport`` and ``coursetools``) and
    ``run_autograder`` (run once per submission, in ``/autograder``), plus ``config.json`` (the
    assignment, and which field of ``/autograder/submission_metadata.json`` is the student id).
    otter's own autograder zip is removed: its tests would run in the student's kernel.

    ``run_autograder`` runs :func:`run_autograder`: the same two sandboxed phases as ``grade``, on
    the notebook in ``/autograder/submission``, graded as the id Gradescope's metadata gives, and
    writes ``/autograder/results/results.json`` (a test per question, its score and feedback; the
    flags go to the run's output, which Gradescope shows the instructor). Where bubblewrap cannot
    make namespaces inside Gradescope's container, it falls back (``COURSETOOLS_SANDBOX=user``) to
    running the notebook as ``nobody`` with resource limits, and says so in its output.
Covers:
    Gradescope's autograder specification (``/autograder/source``, ``/autograder/submission``,
    ``run_autograder``, ``/autograder/results/results.json``, ``submission_metadata.json``).

::

    build: otter assign --> student/<a>.ipynb;  wheels + setup.sh + run_autograder + config.json --> <a>-gradescope.zip
    run_autograder: submission/*.ipynb + submission_metadata.json --grade_one--> results/results.json
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from labsupport.errors import ConfigError

from ..colab import Published
from ..repository import course_root
from . import sandbox
from .assignments import spec as spec_of
from .grade import GradeOptions, grade_one
from .release import link_to_book

__all__ = ["ID_FIELDS", "Built", "build", "run_autograder"]

#: Which field of Gradescope's ``users[0]`` is the student id: ``email`` (its part before ``@``) or
#: Gradescope's numeric user ``id``.
ID_FIELDS = ("email", "id")

SETUP_SH = """#!/usr/bin/env bash
# Run once by Gradescope when it builds the autograder's image (Ubuntu, as root, with network).
set -euo pipefail
apt-get update -q
apt-get install -y -q python3 python3-venv python3-pip bubblewrap
python3 -m venv /opt/course
/opt/course/bin/pip install -q /autograder/source/wheels/*.whl
# The fallback (no bubblewrap in the container) runs the notebook as nobody: the grader's package,
# which holds the key, is readable by root alone.
chmod -R go-rwx /opt/course/lib/python3*/site-packages/coursetools
chmod 700 /autograder/source
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Run by Gradescope once per submission, in /autograder. COURSE_PYTHON and AUTOGRADER_ROOT exist
# for the course's own test of this zip; on Gradescope they are unset.
exec "${COURSE_PYTHON:-/opt/course/bin/python}" -m coursetools.grading gradescope \\
    --root "${AUTOGRADER_ROOT:-/autograder}"
"""


@dataclass(frozen=True)
class Built:
    """What ``build`` wrote: the student copy and the Gradescope zip."""

    student: Path
    autograder: Path | None


def _wheel(project: Path, out: Path) -> Path:
    """Build ``project``'s wheel offline into ``out``, from a copy (the checkout is left as it was)."""
    source = out / f"src-{project.name}"
    ignore = shutil.ignore_patterns(".git", ".venv", "venv", "_build", "build", "*.egg-info", "__pycache__", "dist")
    shutil.copytree(project, source, ignore=ignore)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out), str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise ConfigError(f"could not build the wheel of {project}: {(done.stdout + done.stderr)[-600:]}")
    return max(out.glob("*.whl"), key=lambda p: p.stat().st_mtime)


def build(
    source: Path,
    out: Path,
    where: Published,
    *,
    id_field: str = "email",
    autograder: bool = True,
    root: str | Path | None = None,
) -> Built:
    """``otter assign`` the source into ``out``, then replace otter's autograder zip with the course's
    (none if not ``autograder``: the student copy alone), which holds the wheels of both packages
    built from the course repository ``root`` (by default the current directory).

    Raises:
        ConfigError: otter assign failed, ``root`` is not the repository's root, or a wheel could
            not be built.
    """
    if id_field not in ID_FIELDS:
        raise ConfigError(f"id_field must be one of {ID_FIELDS}, got {id_field!r}")
    repository = course_root(root) if autograder else None
    name = source.stem
    done = subprocess.run(
        [sys.executable, "-m", "otter", "assign", "--no-run-tests", str(source), str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise ConfigError(f"otter assign failed for {source}: {(done.stdout + done.stderr)[-800:]}")
    student = out / "student" / source.name
    link_to_book(student, where)
    for otter_zip in (out / "autograder").glob("*.zip"):
        otter_zip.unlink()  # its tests would run inside the student's kernel
    if repository is None:
        return Built(student, None)
    zip_path = out / "autograder" / f"{name}-gradescope.zip"
    with tempfile.TemporaryDirectory(prefix="gradescope-") as tmp:
        wheels = [_wheel(repository, Path(tmp)), _wheel(repository / "tools", Path(tmp))]
        with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as zf:
            for file_name, text in (("setup.sh", SETUP_SH), ("run_autograder", RUN_AUTOGRADER)):
                info = zipfile.ZipInfo(file_name)
                info.external_attr = (stat.S_IFREG | 0o755) << 16
                zf.writestr(info, text)
            zf.writestr("config.json", json.dumps({"assignment": name, "id_field": id_field}, indent=1))
            for wheel in wheels:
                zf.write(wheel, f"wheels/{wheel.name}")
    return Built(student, zip_path)


def _student_id(metadata: dict, id_field: str) -> tuple[str, list[str]]:
    users = metadata.get("users") if isinstance(metadata, dict) else None
    if not isinstance(users, list) or not users or not isinstance(users[0], dict):
        raise ConfigError("submission_metadata.json lists no user")
    value = users[0].get(id_field)
    sid = str(value).split("@")[0] if id_field == "email" and value else str(value or "")
    if not sid.strip():
        raise ConfigError(f"submission_metadata.json gives the first user no {id_field}")
    notes = [f"a group submission: graded as its first member, {sid}"] if len(users) > 1 else []
    return sid, notes


def _results(grade: object, spec_questions: list[tuple[str, float]], notes: list[str]) -> dict:
    tests = []
    for name, points in spec_questions:
        tests.append(
            {
                "name": name,
                "score": grade.scores.get(name, 0.0),  # type: ignore[attr-defined]
                "max_score": points,
                "output": grade.feedback.get(name, "not graded"),  # type: ignore[attr-defined]
                "visibility": "visible",
            }
        )
    return {
        "score": grade.total,  # type: ignore[attr-defined]
        "execution_time": round(grade.seconds),  # type: ignore[attr-defined]
        "output": "\n".join(notes) if notes else "Graded by the course's sandboxed grader.",
        "tests": tests,
    }


def run_autograder(root: Path) -> int:
    """Grade ``root/submission``'s notebook into ``root/results/results.json`` (Gradescope's layout)."""
    config = json.loads((root / "source" / "config.json").read_text(encoding="utf-8"))
    spec = spec_of(config["assignment"])
    results = root / "results"
    results.mkdir(parents=True, exist_ok=True)
    notes: list[str] = []
    why = sandbox.probe()
    if why is not None:
        if os.geteuid() != 0:
            raise ConfigError(f"no sandbox here and not root, so no fallback either: {why}")
        os.environ["COURSETOOLS_SANDBOX"] = "user"
        print(f"bubblewrap cannot run here ({why}); falling back to an unprivileged user with resource limits")
    try:
        metadata = json.loads((root / "submission_metadata.json").read_text(encoding="utf-8"))
        student_id, notes = _student_id(metadata, config.get("id_field", "email"))
    except (OSError, ValueError, ConfigError) as exc:
        (results / "results.json").write_text(json.dumps({"score": 0, "output": f"not graded: {exc}"}))
        return 0
    notebooks = sorted(p for p in (root / "submission").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
    if not notebooks:
        (results / "results.json").write_text(json.dumps({"score": 0, "output": "no notebook (.ipynb) was submitted"}))
        return 0
    grade = grade_one(student_id, notebooks[0], spec, GradeOptions())
    print(f"graded {notebooks[0].name} as {student_id}: {grade.total:g} points; flags: {grade.flags}")
    questions = [(q.name, float(q.points)) for q in spec.auto_questions]
    (results / "results.json").write_text(json.dumps(_results(grade, questions, notes), indent=1), encoding="utf-8")
    return 0
