"""Gradescope's layout, offline: the course's autograder zip run the way Gradescope runs it.

Gradescope unzips the autograder into ``/autograder/source``, runs its ``setup.sh`` once when it
builds the image, then for each submission puts the notebook in ``/autograder/submission`` and the
submitter in ``/autograder/submission_metadata.json``, runs ``/autograder/source/run_autograder`` in
``/autograder`` and reads ``/autograder/results/results.json``. Here each submission gets a fresh
``/autograder`` (a folder on a tmpfs, ``/dev/shm``) inside an outer bubblewrap that stands for
Gradescope's container, with this machine's Python environment in place of what ``setup.sh``
installs (it needs the network). Two containers are tried: one whose ``/proc`` lets bubblewrap make
its namespaces inside it (the grader's own sandbox), and one that does not, like Docker's default,
where the grader falls back to running the notebook as ``nobody`` with resource limits.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import uuid
import zipfile
from pathlib import Path

import pytest

from coursetools.grading import gradescope
from coursetools.grading.sandbox import bwrap_path

ROOT = Path(__file__).resolve().parents[2]
ASSIGNMENT = "02-dwfm-collapse"
TOOLS = ROOT / "tools" / "coursetools"

pytestmark = pytest.mark.skipif(
    sys.platform != "linux" or os.geteuid() != 0 or bwrap_path() is None,
    reason="the outer container is a bubblewrap started as root",
)

ATTACK = """import glob, labsupport, pathlib
root = pathlib.Path(labsupport.__file__).parent
for target in [root / "assignments" / "lab02.py", pathlib.Path("/autograder/results/results.json")]:
    try:
        target.write_text('{"score": 7}')
    except OSError as exc:
        print(type(exc).__name__, target)
for pattern in ["/autograder/source/**/*", "/**/coursetools/grading/lab02.py"]:
    for path in glob.glob(pattern, recursive=True):
        try:
            print(path, open(path, "rb").read(40))
        except OSError as exc:
            print(type(exc).__name__, path)
"""


def _container(zip_path: Path, notebook: dict, email: str, *, bwrap_inside: bool) -> dict:
    """Run ``run_autograder`` for one submission in a fresh /autograder; return results.json."""
    shm = Path("/dev/shm") / f"coursetools-gs-{uuid.uuid4().hex[:10]}"
    root = shm / "autograder"
    try:
        for sub in ("source", "submission"):
            (root / sub).mkdir(parents=True)
        with zipfile.ZipFile(zip_path) as zf:
            zf.extractall(root / "source")
        (root / "source" / "run_autograder").chmod(0o755)
        (root / "source").chmod(0o700)  # as setup.sh leaves it: the zip's wheels hold the key
        (root / "submission" / f"{ASSIGNMENT}.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
        meta = {"id": 1, "users": [{"email": email, "id": 7, "name": "A Student"}], "previous_submissions": []}
        (root / "submission_metadata.json").write_text(json.dumps(meta), encoding="utf-8")
        # setup.sh makes the grader's package readable by root alone: the copy stands for it.
        tools = shm / "coursetools"
        shutil.copytree(TOOLS, tools, ignore=shutil.ignore_patterns("__pycache__"))
        for path in [tools, *tools.rglob("*")]:
            path.chmod(0o700 if path.is_dir() else 0o600)
        proc = ["--bind", "/proc", "/proc"] if bwrap_inside else ["--unshare-pid", "--proc", "/proc"]
        # bwrap makes the folders above a bind readable by root alone: open them, as a container's are.
        parents = sorted({str(p) for d in (ROOT, TOOLS, Path(sys.base_prefix)) for p in d.parents if str(p) != "/"})
        cmd = [
            bwrap_path(),
            "--ro-bind", "/usr", "/usr",
            "--symlink", "usr/lib", "/lib",
            "--symlink", "usr/lib64", "/lib64",
            "--symlink", "usr/bin", "/bin",
            "--symlink", "usr/sbin", "/sbin",
            "--ro-bind", "/etc", "/etc",
            *[x for d in parents for x in ("--perms", "0755", "--dir", d)],
            "--ro-bind", str(ROOT), str(ROOT),
            "--ro-bind", str(tools), str(TOOLS),
            "--ro-bind", sys.base_prefix, sys.base_prefix,
            "--dev", "/dev",
            *proc,
            "--tmpfs", "/tmp",
            "--bind", str(root), "/autograder",
            "--chdir", "/autograder",
            "--unshare-net",
            "--die-with-parent",
            "--setenv", "COURSE_PYTHON", sys.executable,
            "--",
            "/autograder/source/run_autograder",
        ]  # fmt: skip
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
        results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
        results["_stdout"] = done.stdout + done.stderr
        return results
    finally:
        shutil.rmtree(shm, ignore_errors=True)


@pytest.fixture(scope="module")
def zip_and_notebooks(built) -> tuple[Path, dict, dict]:
    b = built(ASSIGNMENT)
    (zip_path,) = (b / "autograder").glob("*-gradescope.zip")
    solution = json.loads((b / "autograder" / f"{ASSIGNMENT}.ipynb").read_text(encoding="utf-8"))
    blank = json.loads((b / "student" / f"{ASSIGNMENT}.ipynb").read_text(encoding="utf-8"))
    blank["cells"].insert(5, {"cell_type": "code", "metadata": {}, "source": ATTACK, "outputs": []})
    return zip_path, solution, blank


def test_the_zip_follows_gradescopes_layout(zip_and_notebooks):
    zip_path = zip_and_notebooks[0]
    with zipfile.ZipFile(zip_path) as zf:
        names = set(zf.namelist())
        modes = {i.filename: i.external_attr >> 16 for i in zf.infolist()}
        config = json.loads(zf.read("config.json"))
    assert {"setup.sh", "run_autograder", "config.json"} <= names
    assert any(n.startswith("wheels/labsupport-") for n in names) and any(
        n.startswith("wheels/coursetools-") for n in names
    )
    assert modes["run_autograder"] & stat.S_IXUSR and modes["setup.sh"] & stat.S_IXUSR
    assert config == {"assignment": ASSIGNMENT, "id_field": "email"}
    assert not list(zip_path.parent.glob("*-autograder_*.zip")), "otter's zip, whose tests run in the kernel, is gone"


@pytest.mark.parametrize("bwrap_inside", [True, False], ids=["bubblewrap-inside", "fallback-nobody"])
def test_the_zip_grades_an_honest_and_a_hostile_submission_in_a_fresh_folder_each(zip_and_notebooks, bwrap_inside):
    zip_path, solution, attack = zip_and_notebooks
    honest = _container(zip_path, solution, "s2000003@uni.example", bwrap_inside=bwrap_inside)
    scores = {t["name"]: t["score"] for t in honest["tests"]}
    assert scores == {"q1_predict": 1, "q2_measure": 2, "q3_design": 4}, honest["_stdout"][-2000:]
    assert honest["score"] == 7 and "graded" in honest["_stdout"] and "as s2000003" in honest["_stdout"]
    fallback_said = "falling back to an unprivileged user" in honest["_stdout"]
    assert fallback_said is not bwrap_inside
    hostile = _container(zip_path, attack, "s2000004@uni.example", bwrap_inside=bwrap_inside)
    assert hostile["score"] == 0, hostile["_stdout"][-2000:]
    assert "reaches the grader's package" in hostile["_stdout"]


def test_a_group_submission_is_graded_as_its_first_member_and_said_so():
    sid, notes = gradescope._student_id({"users": [{"email": "a@x"}, {"email": "b@x"}]}, "email")  # noqa: SLF001
    assert sid == "a" and "group submission" in notes[0]


def test_the_guide_says_what_grading_on_gradescope_does_and_what_the_fallback_loses():
    page = (ROOT / "chapters" / "instructor-guide" / "grading.md").read_text(encoding="utf-8")
    section = " ".join(page.split("## Gradescope")[1].split("\n## ")[0].split())
    for words in ("run_autograder", "results.json", "submission_metadata.json", "nobody", "loses"):
        assert words in section, words
