"""The wheel pip builds holds the whole package: every module, every data file and ``py.typed``.

Students, Colab, JupyterHub images and Dask workers install ``labsupport`` as pip builds it (a wheel),
not as the repository's editable install. A wheel that left out a subpackage (``race/``, ``dwfm/``,
...) once passed every other test, because the tests import the editable copy.
"""

from __future__ import annotations

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
def wheel_files(tmp_path_factory) -> set[str]:
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
    (wheel,) = out.glob("labsupport-*.whl")
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
