"""A graded assignment for Colab, VS Code or a JupyterHub without the course: ``build --colab``.

Scenario:
    ``otter assign`` writes a student copy whose public checks live in the notebook's metadata,
    which otter reads from the notebook file next to the kernel. That works in JupyterLab, in
    Notebook 7 and on a hub whose image holds the course. Colab keeps the notebook in Drive, and
    otter 7 refuses metadata checks there: ``otter.Notebook`` wants a ``./tests`` folder of test
    files, and ``tests_url_prefix`` downloads them only in JupyterLite. A kernel that has never
    seen the course has no ``labsupport`` either. :func:`build_colab` therefore runs ``otter
    assign`` with test files, for Colab (otter's first cell then names no notebook file, which
    Colab does not have), and puts one cell before otter's: it installs the course with its
    ``grading`` extra (otter-grader, pinned), from the published repository as every student copy
    does (:func:`coursetools.colab.student_install_cell`), and writes the public checks into
    ``./tests``. Public checks only: the hidden ones stay in the autograder.

    The grading command drops that cell before it grades (:func:`strip_setup_cells`): it only
    installs and writes public checks, so removing it can cost a submission nothing it earned, and
    a student's code put into it is not run.
Covers:
    Releasing a graded assignment where students work (Colab, VS Code, a bare JupyterHub); not the
    incident.

::

    assignments/<a>/<a>.ipynb --tests.files: true, runs_on: colab--> otter assign --> student/<a>.ipynb + tests/*.py
        --> [setup cell: install labsupport[grading]; write tests/*.py] + student/<a>.ipynb
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from labsupport.errors import ConfigError

from ..colab import Published, published, student_install_cell

__all__ = ["SETUP_KEY", "build_colab", "is_setup_cell", "link_to_book", "setup_cell_source", "strip_setup_cells"]

#: The setup cell's marker: ``metadata["labsupport"][SETUP_KEY]`` is true.
SETUP_KEY = "colab_setup"
_OTTER_PIP = "%pip install -q otter-grader"
_TITLE = "#@title Set up (run this cell first): install the course and write this assignment's public checks"


def setup_cell_source(where: Published, public_checks: dict[str, str]) -> str:
    """The setup cell's code: install the course with its grading extra, then write ``public_checks``
    (file name -> text) into ``./tests``.

    Raises:
        ConfigError: a check's file name is not a plain ``<name>.py``.
    """
    for name in public_checks:
        if "/" in name or "\\" in name or not name.endswith(".py") or name.startswith("."):
            raise ConfigError(f"public check file names must be plain <name>.py, got {name!r}")
    checks = "".join(f"    {name!r}: {text!r},\n" for name, text in sorted(public_checks.items()))
    return (
        f"{_TITLE}\n"
        f"{student_install_cell(where, extra='grading')}\n"
        "\n"
        "# The public checks grader.check runs (otter reads them from ./tests here).\n"
        "import pathlib\n"
        "\n"
        f"PUBLIC_CHECKS = {{\n{checks}}}\n"
        'pathlib.Path("tests").mkdir(exist_ok=True)\n'
        "for name, text in PUBLIC_CHECKS.items():\n"
        '    pathlib.Path("tests", name).write_text(text, encoding="utf-8")'
    )


#: A link from an assignment source to a page of the course, relative to ``assignments/<a>/``.
_COURSE_LINK = re.compile(r"\]\(\.\./\.\./((?:labs|chapters)/[\w./-]+?\.(?:ipynb|md)(?:#[\w-]+)?)\)")


def link_to_book(student: Path, where: Published) -> int:
    """Point a built student copy's links to the course's labs and chapters at the published book
    (they are relative to the repository's ``assignments/`` and lead nowhere from ``dist/`` or an
    LMS download); return how many were rewritten."""
    import nbformat

    nb = nbformat.read(student, as_version=4)
    count = 0
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source, n = _COURSE_LINK.subn(lambda m: f"]({where.page_url(m.group(1))})", cell.source)
            count += n
    nbformat.write(nb, student)
    return count


def is_setup_cell(cell: dict[str, Any]) -> bool:
    """Whether ``cell`` carries the setup cell's marker."""
    meta = cell.get("metadata")
    mark = meta.get("labsupport") if isinstance(meta, dict) else None
    return isinstance(mark, dict) and mark.get(SETUP_KEY) is True


def strip_setup_cells(nb: dict[str, Any]) -> int:
    """Remove the setup cells from a notebook (as parsed JSON) in place; return how many."""
    cells = nb.get("cells")
    if not isinstance(cells, list):
        return 0
    kept = [c for c in cells if not (isinstance(c, dict) and is_setup_cell(c))]
    removed = len(cells) - len(kept)
    nb["cells"] = kept
    return removed


def _with_test_files(source: Path, target: Path) -> None:
    """Copy the assignment's source notebook to ``target`` with ``tests.files: true`` and
    ``runs_on: colab`` in its config."""
    import yaml

    nb = json.loads(source.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "raw" and text.startswith("# ASSIGNMENT CONFIG"):
            config = yaml.safe_load(text) or {}
            config.setdefault("tests", {})["files"] = True
            config["runs_on"] = "colab"  # otter.Notebook() with no file name: Colab has no notebook on disk
            cell["source"] = "# ASSIGNMENT CONFIG\n" + yaml.safe_dump(config, sort_keys=False).rstrip("\n")
            break
    else:
        raise ConfigError(f"{source} has no '# ASSIGNMENT CONFIG' raw cell")
    target.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def build_colab(source: Path, out: Path, *, where: Published | None = None) -> Path:
    """Build an assignment for Colab and other kernels without the course.

    Args:
        source: the assignment's source notebook (``assignments/<a>/<a>.ipynb``).
        out: the output folder (``student/`` and ``autograder/``, as ``otter assign`` writes them).
        where: the published repository the setup cell installs from (by default ``_config.yml``'s, in
            the current directory: :func:`coursetools.colab.published`).

    Returns:
        The student copy's path, whose first cell is the setup cell.

    Raises:
        ConfigError: the source has no assignment config, ``otter assign`` failed (its output in the
            message), or ``_config.yml``'s repository is invalid (:func:`coursetools.colab.published`).
    """
    import nbformat

    where = where if where is not None else published()
    with tempfile.TemporaryDirectory(prefix="colab-assign-") as tmp:
        staged = Path(tmp) / source.name
        _with_test_files(source, staged)
        if out.exists():
            shutil.rmtree(out)
        done = subprocess.run(
            [sys.executable, "-m", "otter", "assign", "--no-run-tests", str(staged), str(out)],
            capture_output=True,
            text=True,
            check=False,
        )
    if done.returncode != 0:
        raise ConfigError(f"otter assign failed for {source}: {(done.stdout + done.stderr)[-800:]}")
    student = out / "student" / source.name
    checks = {p.name: p.read_text(encoding="utf-8") for p in sorted((out / "student" / "tests").glob("*.py"))}
    # otter's own install cell for Colab installs the newest otter-grader; the setup cell installs
    # the version the course is tested with, through the package's grading extra. The solution
    # notebook loses it too, so that it has the student copy's cells.
    solution = out / "autograder" / source.name
    for path in (student, solution):
        copy = nbformat.read(path, as_version=4)
        copy.cells = [c for c in copy.cells if c.source.strip() != _OTTER_PIP]
        nbformat.write(copy, path)
    link_to_book(student, where)
    nb = nbformat.read(student, as_version=4)
    cell = nbformat.v4.new_code_cell(
        setup_cell_source(where, checks),
        metadata={"labsupport": {SETUP_KEY: True}, "cellView": "form", "jupyter": {"source_hidden": True}},
    )
    nb.cells.insert(0, cell)
    nbformat.write(nb, student)
    return student
