"""coursetools.repository: the course's commands find the repository at run time, and say so when they cannot.

Nothing in ``coursetools`` finds the repository from where its files are installed
(``tests/base/test_import_graph.py`` checks the code); its commands take the current directory, or
``--root``, and refuse a folder that is not the repository's root with a message that says how to
name the right one.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from coursetools.colab import published
from coursetools.repository import CONFIG_FILE, course_root
from coursetools.student import write_all
from labsupport.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def test_the_root_is_the_folder_named_or_the_current_one(monkeypatch, tmp_path):
    assert course_root(ROOT) == ROOT
    assert course_root(str(ROOT / "chapters" / "..")) == ROOT
    monkeypatch.chdir(ROOT)
    assert course_root() == ROOT
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=r"current directory must be the course repository's root .*--root DIR"):
        course_root()


def test_a_folder_without_the_books_configuration_is_refused_by_name(tmp_path):
    with pytest.raises(ConfigError, match=rf"root must be .*got {tmp_path}, which has no {CONFIG_FILE}"):
        course_root(tmp_path)
    with pytest.raises(ConfigError, match=CONFIG_FILE):
        published(tmp_path)
    with pytest.raises(ConfigError, match=CONFIG_FILE):
        write_all(tmp_path, check=True)


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, cwd=cwd, check=False)


def test_the_student_copy_command_reads_the_current_directory_or_root(tmp_path):
    elsewhere = _run("coursetools.student", "--check", cwd=tmp_path)
    assert elsewhere.returncode == 2 and "--root DIR" in elsewhere.stderr and "Traceback" not in elsewhere.stderr
    named = _run("coursetools.student", "--check", "--root", str(ROOT), cwd=tmp_path)
    assert named.returncode == 0, named.stdout + named.stderr
    assert "up to date" in named.stdout


def test_the_grading_build_refuses_a_folder_that_is_not_the_repository(tmp_path):
    done = _run("coursetools.grading", "build", "01-enactor-race", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 2 and "--root DIR" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()
