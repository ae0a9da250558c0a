"""A graded assignment built for Colab (``build --colab``): the setup cell, otter's Colab mode, grading.

Colab itself cannot run offline. What differs there is what otter 7 does when it finds itself in
Colab: it refuses checks kept in the notebook's metadata and wants a ``./tests`` folder of test
files. These tests make otter take that branch in a real kernel (its interpreter check is pointed
at the kernel's own shell) and run the Colab copy's setup cell and checks through it; then they
grade the copy the way an instructor does.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest

from coursetools.colab import Published
from coursetools.grading import __main__ as cli
from coursetools.grading import release
from coursetools.grading.assignments import SPECS
from coursetools.grading.assignments import source as source_of
from labsupport.assignments import lab05
from labsupport.errors import ConfigError

pytest.importorskip("otter", reason="the [grading] extra (otter-grader) is not installed")

ASSIGNMENT = lab05.ASSIGNMENT
WHERE = Published(repository_url="https://github.com/Some-Uni/outage-course", branch="spring-2027")
#: Run in the kernel before otter is imported: otter's Colab check looks for "google.colab" in the
#: shell's name; here it looks for the kernel's own shell, so otter behaves as in Colab.
AS_IN_COLAB = (
    "from otter.check.utils import IPythonInterpreter\n"
    "IPythonInterpreter.COLAB.value.check_strs[:] = ['ZMQInteractiveShell']\n"
    "assert IPythonInterpreter.COLAB.value.running()"
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("colab") / "dist"
    source = source_of(ASSIGNMENT, ROOT)
    release.build_colab(source, out, where=WHERE)
    return out


def _run(nb: nbformat.NotebookNode, where: Path) -> nbformat.NotebookNode:
    from nbclient import NotebookClient

    where.mkdir(parents=True, exist_ok=True)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(where)}}).execute()
    return nb


def _solution_as_in_colab(built: Path) -> nbformat.NotebookNode:
    """The solution notebook with the Colab copy's setup cell first and otter's Colab check on."""
    solution = nbformat.read(built / "autograder" / f"{ASSIGNMENT}.ipynb", as_version=4)
    setup = nbformat.read(built / "student" / f"{ASSIGNMENT}.ipynb", as_version=4).cells[0]
    solution.cells[:0] = [setup, nbformat.v4.new_code_cell(AS_IN_COLAB)]
    return solution


def test_the_colab_copy_starts_with_a_setup_cell_that_installs_and_writes_only_public_checks(built):
    nb = nbformat.read(built / "student" / f"{ASSIGNMENT}.ipynb", as_version=4)
    setup = nb.cells[0]
    assert release.is_setup_cell(setup) and setup.metadata["jupyter"]["source_hidden"]
    assert setup.source.startswith("#@title Set up (run this cell first)")
    assert '"labsupport[grading] @ git+https://github.com/Some-Uni/outage-course@spring-2027"' in setup.source
    # A course installed without the extra (the README's install) must not skip the install.
    assert "    import labsupport, otter  # noqa: F401\n" in setup.source
    intro = next(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "](https://some-uni.github.io/outage-course/labs/05-six-stop-points.html)" in intro
    assert nb.cells[1].source.startswith("# Initialize Otter")
    public = {p.name for p in (built / "student" / "tests").glob("*.py")}
    written = set(re.findall(r"^    '(q\w+\.py)': ", setup.source, re.M))
    assert written == public == {"q1_predict.py", "q2_measure.py", "q3_design.py"}
    text = (built / "student" / f"{ASSIGNMENT}.ipynb").read_text(encoding="utf-8")
    for leak in ("hidden=True", "SOLUTION", "check_rule", "check_total_s", "request.service_s <= request.wait_limit_s"):
        assert leak not in text, leak
    assert "tests" not in nb.metadata.get("otter", {})  # no checks in the metadata: they are files here


def test_in_colab_mode_the_setup_cell_makes_every_check_run(built, tmp_path):
    # Without the setup cell otter refuses to start, as it would in Colab: the mode is really on.
    bare = _solution_as_in_colab(built)
    del bare.cells[0]
    from nbclient.exceptions import CellExecutionError

    with pytest.raises(CellExecutionError, match=r"Tests directory \./tests does not exist"):
        _run(bare, tmp_path / "bare")
    ran = _run(_solution_as_in_colab(built), tmp_path / "colab")
    checks = [c for c in ran.cells if c.cell_type == "code" and c.source.startswith("grader.check(")]
    assert len(checks) == 3
    for cell in checks:
        shown = json.dumps(cell.outputs)
        assert "passed" in shown and "failed" not in shown.lower(), (cell.source, shown[:300])
    assert sorted(p.name for p in (tmp_path / "colab" / "tests").glob("*.py")) == [
        "q1_predict.py",
        "q2_measure.py",
        "q3_design.py",
    ]


def test_the_grading_command_drops_the_setup_cell_and_grades_the_rest(built, tmp_path, capsys):
    solution = _solution_as_in_colab(built)
    del solution.cells[1]  # the Colab switch is the test's, not the student's
    # A student who hides code in the setup cell gets it dropped, not run (here: it would fail the run).
    solution.cells[0].source += "\nraise SystemExit('never run')"
    subs = tmp_path / "subs"
    subs.mkdir()
    nbformat.write(solution, subs / "s2000001.ipynb")
    out = ["--out", str(tmp_path / "grades.csv"), "--feedback", str(tmp_path / "feedback")]
    with pytest.raises(SystemExit) as stopped:  # the assignment is named, never guessed
        cli.main(["grade", str(subs), *out])
    assert stopped.value.code == 2 and "--assignment" in capsys.readouterr().err
    assert cli.main(["grade", str(subs), "--assignment", ASSIGNMENT, *out]) == 0
    feedback = (tmp_path / "feedback" / "s2000001.md").read_text(encoding="utf-8")
    assert "Auto-graded: 7 / 7 points." in feedback, feedback
    assert f"'dns_repair_s': {lab05.params('s2000001').dns_repair_s}" in feedback and "lock_losses" not in feedback
    nb = json.loads((subs / "s2000001.ipynb").read_text(encoding="utf-8"))
    assert release.strip_setup_cells(nb) == 1 and not any(release.is_setup_cell(c) for c in nb["cells"])


def test_a_setup_cell_refuses_a_check_file_name_that_leaves_the_tests_folder():
    with pytest.raises(ConfigError, match=r"plain <name>\.py"):
        release.setup_cell_source(WHERE, {"../q1.py": "x = 1"})


def test_the_install_cell_refuses_an_extra_that_is_not_a_name():
    from coursetools.colab import student_install_cell

    assert '"labsupport[grading] @ git+' in student_install_cell(WHERE, extra="grading")
    with pytest.raises(ConfigError, match="extra"):
        student_install_cell(WHERE, extra='grading]" ; rm -rf ~ ; "')


def test_the_guides_colab_command_builds_the_copy_it_describes(tmp_path, capsys):
    page = (Path(__file__).parents[2] / "chapters" / "instructor-guide" / "grading.md").read_text(encoding="utf-8")
    command = re.search(r"python -m coursetools\.grading (build \S+ --out \S+ --colab)", page)
    assert command is not None
    args = command.group(1).split()
    args[3] = str(tmp_path / "dist")
    assert cli.main(args) == 0
    student = tmp_path / "dist" / "student" / f"{args[1]}.ipynb"
    assert f"wrote {student}" in capsys.readouterr().out
    setup = nbformat.read(student, as_version=4).cells[0]
    title = re.search(r'folded under the title "([^"]+)"', " ".join(page.split()))
    assert title is not None and setup.source.startswith(f"#@title {title.group(1)}")
    assert "the assignment's public checks into `./tests`" in " ".join(page.split())


def test_the_guides_time_table_states_each_student_copys_own_estimate():
    page = (Path(__file__).parents[2] / "chapters" / "instructor-guide" / "grading.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `([\w-]+)` \| ([^|]+?) \|$", page.split("## How long each assignment takes")[1], re.M))
    assert set(rows) == set(SPECS)
    for name, said in rows.items():
        text = source_of(name, ROOT).read_text(encoding="utf-8")
        assert f"Estimated time: {said}." in text, name
