"""The student's wheel holds the whole of ``labsupport`` (every module, every data file and
``py.typed``) and nothing else: nothing of the instructor's (no key, no reference answer, no hidden
check, no quiz answer) and nothing of the course's machinery (no Sphinx extension, no book asset, no
student-copy writer, no PDF tool, no Colab cell). ``coursetools``' wheel holds its whole package,
the book's JavaScript, CSS and templates and the quiz's key included.

Students, Colab, JupyterHub images and Dask workers install ``labsupport`` as pip builds it (a wheel),
not as the repository's editable install. A wheel that left out a subpackage (``race/``, ``dwfm/``,
...) once passed every other test, because the tests import the editable copy; a wheel that held
every assignment's ``key()``, its reference strategies and the quiz's right options once gave any
student full marks (issue 39). ``python tests/base/test_wheel.py`` builds both wheels and prints
their file lists (so does ``pytest -rP`` on this file).
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "labsupport"
#: The course's machinery: its distribution's folder and its package.
TOOLS = ROOT / "tools"
COURSETOOLS = TOOLS / "coursetools"
#: Libraries only the course's machinery imports (the book's build, the student-copy writer, the PDF
#: tool, the grader): a module of the student's wheel that imports one is machinery.
MACHINERY_IMPORTS = frozenset(
    {"sphinx", "docutils", "sphinx_exercise", "myst_nb", "markdown_it", "pybtex", "nbformat", "nbclient", "yaml"}
    | {"playwright", "pypdf", "otter", "RestrictedPython", "coursetools"}
)


def package_tree(package: Path = PACKAGE) -> set[str]:
    """Every file under ``package`` that belongs in a distribution, as wheel-style paths."""
    files = set()
    for path in package.rglob("*"):
        if not path.is_file() or "__pycache__" in path.parts or path.suffix in {".pyc", ".pyo"}:
            continue
        files.add(path.relative_to(package.parent).as_posix())
    return files


def build_wheel(project: Path, work: Path) -> Path:
    """The wheel of the distribution in ``project`` (its ``pyproject.toml``), built offline into ``work``.

    ``--no-build-isolation`` uses the setuptools that ``requirements.txt`` installs, so nothing is
    fetched at test time. The source is copied first so the build leaves no ``build/`` folder behind.
    """
    source = work / "src"
    shutil.copytree(
        project,
        source,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "venv", "_build", "build", "*.egg-info", "__pycache__", ".hypothesis"
        ),
    )
    out = work / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(source)],
        check=True,
        capture_output=True,
        text=True,
    )
    (built,) = out.glob("*.whl")
    return built


def wheel_listing(wheel: Path) -> list[str]:
    """Every entry of the wheel, sorted."""
    with zipfile.ZipFile(wheel) as archive:
        return sorted(archive.namelist())


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The student's wheel: ``labsupport``, built from the repository root's ``pyproject.toml``."""
    built = build_wheel(ROOT, tmp_path_factory.mktemp("wheel"))
    assert built.name.startswith("labsupport-"), built.name
    return built


@pytest.fixture(scope="module")
def wheel_files(wheel) -> set[str]:
    return {name for name in wheel_listing(wheel) if name.startswith("labsupport/")}


@pytest.fixture(scope="module")
def coursetools_wheel(tmp_path_factory) -> Path:
    """The course's machinery's wheel, built from ``tools/pyproject.toml``."""
    built = build_wheel(TOOLS, tmp_path_factory.mktemp("coursetools-wheel"))
    assert built.name.startswith("coursetools-"), built.name
    return built


def test_wheel_holds_every_file_of_the_package(wheel_files):
    tree = package_tree()
    missing = sorted(tree - wheel_files)
    extra = sorted(wheel_files - tree)
    assert not missing, f"the wheel leaves out {len(missing)} file(s): {missing[:20]}"
    assert not extra, f"the wheel holds file(s) the package tree does not: {extra[:20]}"


def test_wheel_holds_every_subpackage_and_the_typing_marker(wheel_files):
    subpackages = {p.parent.relative_to(ROOT).as_posix() for p in PACKAGE.rglob("__init__.py")}
    assert len(subpackages) > 1
    for folder in subpackages:
        assert f"{folder}/__init__.py" in wheel_files, folder
    assert "labsupport/py.typed" in wheel_files


def test_the_students_wheel_holds_labsupport_alone(wheel):
    """Every entry is labsupport's package or its metadata; the list is printed (``pytest -rP``)."""
    names = wheel_listing(wheel)
    print(f"{wheel.name}: {len(names)} entries\n" + "\n".join(names))
    assert [n for n in names if not n.startswith(("labsupport/", "labsupport-"))] == []


def test_the_students_wheel_holds_none_of_the_course_machinery(wheel):
    """No Sphinx extension (a module that imports Sphinx or docutils, or defines ``setup(app)``), no
    book asset (no CSS, no HTML template, no script but the chart renderer's), no student-copy writer,
    no PDF tool, no Colab cell: no module imports a library only the machinery uses."""
    names = wheel_listing(wheel)
    parts = {part for n in names for part in n.split("/")}
    assert not parts & {"book_js", "book_css", "book_templates", "student", "book.py", "pdf.py", "colab.py"}
    assert not parts & {"apidoc.py"}
    assert [n for n in names if n.endswith((".css", ".html"))] == []
    assert [n for n in names if n.endswith(".js")] == ["labsupport/charts/chart.js"]
    found = []
    with zipfile.ZipFile(wheel) as archive:
        for name in (n for n in names if n.endswith(".py")):
            tree = ast.parse(archive.read(name))
            for node in ast.walk(tree):
                modules = (
                    [a.name for a in node.names]
                    if isinstance(node, ast.Import)
                    else [node.module or ""]
                    if isinstance(node, ast.ImportFrom) and not node.level
                    else []
                )
                found += [f"{name}: imports {m}" for m in modules if m.split(".")[0] in MACHINERY_IMPORTS]
            found += [
                f"{name}: defines setup() (a Sphinx extension)"
                for node in tree.body
                if isinstance(node, ast.FunctionDef) and node.name == "setup"
            ]
    assert found == [], f"the student's wheel holds the course's machinery: {found}"


def test_the_students_wheel_holds_no_key_no_reference_and_no_hidden_check(wheel):
    """No module of the wheel defines ``key`` or a ``reference_*`` strategy, no assignment module a
    hidden ``check_*`` (the public form checks aside), and no package of the wheel is the grader's."""
    public_checks = {"check_answers_with_a_bool", "check_form", "check_strategy"}
    found = []
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        assert not [n for n in names if n.startswith("coursetools")], "the wheel holds the grader's package"
        for name in names:
            if not name.endswith(".py"):
                continue
            for node in ast.walk(ast.parse(archive.read(name))):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and (
                    node.name == "key"
                    or node.name.startswith("reference_")
                    or (
                        name.startswith("labsupport/assignments/")
                        and node.name.startswith("check_")
                        and node.name not in public_checks
                    )
                ):
                    found.append(f"{name}: {node.name}")
    assert found == [], f"the student's wheel holds the instructor's code: {found}"


def test_the_students_wheel_holds_no_quiz_answer(wheel):
    """The quiz's data in the wheel has its questions and options, and no verdict or explanation."""
    with zipfile.ZipFile(wheel) as archive:
        assert not [n for n in archive.namelist() if "quiz_key" in n]
        data = json.loads(archive.read("labsupport/data/quiz.json"))
    assert len(data["questions"]) >= 10
    for q in data["questions"]:
        assert set(q) == {"id", "misconception", "belief", "kind", "prompt", "options"}, q["id"]
        for option in q["options"]:
            assert set(option) == {"id", "text"}, (q["id"], option)
    text = json.dumps(data)
    assert '"correct"' not in text and '"explanation"' not in text


def test_the_machinerys_wheel_holds_its_whole_package(coursetools_wheel):
    """``coursetools``' wheel: every module, the quiz's key, the book's scripts, stylesheets and
    templates, ``py.typed``; nothing of ``labsupport``, which it requires."""
    names = wheel_listing(coursetools_wheel)
    print(f"{coursetools_wheel.name}: {len(names)} entries\n" + "\n".join(names))
    files = {n for n in names if n.startswith("coursetools/")}
    tree = package_tree(COURSETOOLS)
    assert sorted(tree - files) == [] and sorted(files - tree) == []
    for asset in (
        "book_js/quiz.js",
        "book_css/print.css",
        "book_templates/labsupport-brand.html",
        "data/quiz_key.json",
    ):
        assert f"coursetools/{asset}" in files, asset
    assert not [n for n in names if n.startswith("labsupport/")]
    with zipfile.ZipFile(coursetools_wheel) as archive:
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        requires = [line for line in archive.read(metadata).decode().splitlines() if line.startswith("Requires-Dist:")]
    assert "Requires-Dist: labsupport" in requires


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for project in (ROOT, TOOLS):
            built = build_wheel(project, Path(tmp) / project.name)
            names = wheel_listing(built)
            print(f"{built.name}: {len(names)} entries")
            print("\n".join(f"  {n}" for n in names))
