"""The wheel pip builds holds the whole package (every module, every data file and ``py.typed``),
and nothing of the instructor's: no key, no reference answer, no hidden check, no quiz answer.

Students, Colab, JupyterHub images and Dask workers install ``labsupport`` as pip builds it (a wheel),
not as the repository's editable install. A wheel that left out a subpackage (``race/``, ``dwfm/``,
...) once passed every other test, because the tests import the editable copy; a wheel that held
every assignment's ``key()``, its reference strategies and the quiz's right options once gave any
student full marks (issue 39).
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


def package_tree() -> set[str]:
    """Every file under ``labsupport/`` that belongs in a distribution, as wheel-style paths."""
    files = set()
    for path in PACKAGE.rglob("*"):
        if not path.is_file() or "__pycache__" in path.parts or path.suffix in {".pyc", ".pyo"}:
            continue
        files.add(path.relative_to(ROOT).as_posix())
    return files


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The ``labsupport/`` entries of a wheel built from this checkout, offline.

    ``--no-build-isolation`` uses the setuptools that ``requirements.txt`` installs, so nothing is
    fetched at test time. The source is copied first so the build leaves no ``build/`` folder behind.
    """
    work = tmp_path_factory.mktemp("wheel")
    source = work / "src"
    shutil.copytree(
        ROOT,
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
    (built,) = out.glob("labsupport-*.whl")
    return built


@pytest.fixture(scope="module")
def wheel_files(wheel) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return {name for name in archive.namelist() if name.startswith("labsupport/")}


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
