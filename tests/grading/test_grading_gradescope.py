"""Gradescope's entry point, offline: the autograder zip graded the way Gradescope's image runs it.

Gradescope unzips the autograder into ``/autograder/source``, puts the submission in
``/autograder/submission`` and runs ``run_otter.py``, which calls otter's ``run_autograder`` on
``/autograder``; it writes ``/autograder/results/results.json``. This test builds that layout in a
temporary folder and calls the same function (what cannot run offline is the image's ``setup.sh``,
which downloads its Python). It also shows what the instructor guide warns about: without the
course's grading command, a notebook is graded against the id written in it.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import nbformat
import pytest

from labsupport.grading import __main__ as cli
from labsupport.grading import grade, lab05

pytest.importorskip("otter", reason="the [grading] extra (otter-grader) is not installed")

ASSIGNMENT = lab05.ASSIGNMENT


def _gradescope(tmp_path: Path, notebook: nbformat.NotebookNode, autograder: Path) -> dict:
    from otter.run.run_autograder import main as run_autograder

    root = tmp_path / "autograder"
    for sub in ("source", "submission", "results"):
        (root / sub).mkdir(parents=True)
    with zipfile.ZipFile(autograder) as zf:
        zf.extractall(root / "source")
    entry = (root / "source" / "run_otter.py").read_text(encoding="utf-8")
    assert "from otter.run.run_autograder import main as run_autograder" in entry
    assert 'run_autograder("/autograder")' in entry  # what the call below does, on this folder
    nbformat.write(notebook, root / "submission" / f"{ASSIGNMENT}.ipynb")
    here = Path.cwd()
    try:
        run_autograder(str(root))
    finally:
        os.chdir(here)
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    # Gradescope's results format: one entry per question with its score, and the public checks.
    return {t["name"]: t.get("score") for t in results["tests"]}


def test_the_autograder_zip_grades_on_gradescopes_entry_point(tmp_path, monkeypatch):
    monkeypatch.delenv(grade.GRADED_ID_VARIABLE, raising=False)
    assert cli.main(["build", ASSIGNMENT, "--out", str(tmp_path / "dist")]) == 0
    autograder = next((tmp_path / "dist" / "autograder").glob("*.zip"))
    solution = nbformat.read(tmp_path / "dist" / "autograder" / f"{ASSIGNMENT}.ipynb", as_version=4)
    for cell in solution.cells:
        cell.source = cell.source.replace('STUDENT_ID = "s0000000"', 'STUDENT_ID = "s2000003"')
    results = _gradescope(tmp_path / "full", solution, autograder)  # graded against s2000003, the notebook's id
    assert results == {"Public Tests": None, "q1_predict": 1, "q2_measure": 2, "q3_design": 4}, results
    wrong = nbformat.read(tmp_path / "dist" / "autograder" / f"{ASSIGNMENT}.ipynb", as_version=4)
    for cell in wrong.cells:
        cell.source = cell.source.replace("saved_by_5_s = float(", "saved_by_5_s = 1.0 + float(")
    assert _gradescope(tmp_path / "wrong", wrong, autograder)["q2_measure"] == 1


def test_the_guide_says_what_grading_on_gradescope_skips():
    page = (Path(__file__).parents[2] / "chapters" / "instructor-guide" / "grading.md").read_text(encoding="utf-8")
    bullet = " ".join(page.split("- **Gradescope**")[1].split("\n## ")[0].split())
    assert "graded against the `STUDENT_ID` written in it, not the id it was collected under" in bullet
    assert "`run_otter.py`'s `run_autograder`" in bullet
