"""The grader's parts, without a sandbox: reading a notebook's cells, the design answer compiled
restricted, the answers' schema, the likeness of answers, the CSV.

Fast checks of :mod:`coursetools.grading.notebook`, :mod:`~coursetools.grading.restricted`,
:mod:`~coursetools.grading.spec`, :mod:`~coursetools.grading.similarity` and
:mod:`~coursetools.grading.grade`; a class graded end to end, in the sandbox, is
``tests/grading/test_red_team.py``.
"""

from __future__ import annotations

import csv
import itertools
import json
import os
import sys
from pathlib import Path

import pytest

import labsupport
from coursetools.grading import grade, lab02, notebook, restricted, sandbox, similarity
from coursetools.grading.assignments import SPECS
from coursetools.grading.assignments import source as source_of
from coursetools.grading.limits import Limits
from coursetools.grading.notebook import DesignSource
from coursetools.grading.spec import Answer
from labsupport.assignments import STRATEGY_BUILTINS, check_answers_with_a_bool, strategy_problems
from labsupport.errors import ConfigError
from labsupport.strategy import AdmissionRequest, StrategyTimeout, call_strategy

REQUEST = AdmissionRequest(12_000.0, 0, 3, 10, 30.0, 0, 10, 60.0, 600.0)

ROOT = Path(__file__).resolve().parents[2]


def uses_os(request) -> bool:
    """A design answer that uses a module the grader does not give it."""
    return os.getpid() > 0


def _nb(*sources: str) -> dict:
    return {"cells": [{"cell_type": "code", "source": s, "metadata": {}} for s in sources], "metadata": {}}


def _design(*sources: str, name: str = "admission_policy") -> DesignSource:
    return notebook.design_source(notebook.cells_of(_nb(*sources)), name)


# -- reading the cells ------------------------------------------------------------------------------
def test_ipython_syntax_does_not_hide_a_cell():
    cells = notebook.cells_of(_nb("x = !echo hi\ndef admission_policy(r):\n    return True", "%%bash\nsleep 1 &"))
    assert all(t is not None for t in cells.tree), "the transformer turns magics into calls ast can parse"
    assert _design("x = !echo hi\ndef admission_policy(r):\n    return True").source.startswith("def admission")
    assert any("starts processes" in f for f in notebook.suspicious(cells))


def test_the_host_reads_cells_as_text_and_parsing_a_hostile_cell_never_raises():
    """An expression too deep for ast (RecursionError) and a source that is not text (TypeError)
    crashed the host's reading of the cells, and with it the class's grading."""
    nb = _nb("x = y" + "[0]" * 100_000, "def admission_policy(r):\n    return True")
    nb["cells"].append({"cell_type": "code", "source": [1, 2], "metadata": {}})
    cells = notebook.code_cells(nb)  # the host: text, never parsed
    assert cells.source[2] == "" and cells.tree == []
    parsed = notebook.parse(cells)  # the check phase, in its sandbox
    assert parsed.tree[0] is None and parsed.tree[1] is not None


def test_the_design_function_is_its_last_top_level_definition_with_its_helpers_and_constants():
    d = _design(
        "import math as m\nfrom math import floor\nLIMIT = 40\nNAME = 'x'\nTABLE = compute()",
        "def admission_policy(r):\n    return False",
        "def rounds(r):\n    return r.queue_count // r.host_concurrency_count + 2",
        "def admission_policy(r):\n    return rounds(r) * r.lease_establish_s <= r.work_deadline_s",
        "if True:\n    def admission_policy(r):\n        return True",  # not at the top level: not taken
    )
    assert "rounds(r)" in d.source and d.cell == 3
    assert set(d.helpers) == {"rounds"} and d.constants == {"LIMIT": "40", "NAME": "'x'"}
    assert d.math_names == {"m": "", "floor": "floor"}


def test_the_collected_id_is_written_into_the_student_id_cell():
    nb = _nb('STUDENT_ID = "s9999999"  # mine', "print(STUDENT_ID)")
    assert notebook.pin_student_id(nb, "s1000001") == "s9999999"
    assert nb["cells"][0]["source"] == "STUDENT_ID = 's1000001'\n"
    assert notebook.pin_student_id(_nb('STUDENT_ID = "s0000000"'), "s1000001") is None  # the placeholder


@pytest.mark.parametrize(
    "source, words",
    [
        ("STUDENT_ID = 's2'", "sets STUDENT_ID again"),
        ("globals()['STUDENT_ID'] = 's2'", "names STUDENT_ID as a string"),
        ("%env LABSUPPORT_GRADED_ID=s2", "LABSUPPORT_GRADED_ID"),
        ("%env SOME_ID=s2", "sets an environment variable (%env)"),
        ("import os\nos.environ['X'] = 's2'", "sets an environment variable (os.environ"),
        ("import os\nos.environ.update(X='s2')", "sets an environment variable (os.environ.update)"),
    ],
)
def test_another_id_set_or_exported_is_flagged(source, words):
    nb = _nb('STUDENT_ID = "s0000000"', source)
    pinned = 0
    notebook.pin_student_id(nb, "s1")
    assert any(words in f for f in notebook.id_flags(notebook.cells_of(nb), pinned)), words


def test_the_id_the_grader_wrote_is_no_sign_of_an_attack():
    nb = _nb('STUDENT_ID = "s0000000"', "print(1)")
    notebook.pin_student_id(nb, "a05-writes-tests-with-setattr")  # an LMS may name a file anything
    cells = notebook.cells_of(nb)
    assert notebook.suspicious(cells, 0) == [] and notebook.suspicious(cells) != []


def test_the_prediction_counts_only_in_a_cell_before_the_first_run():
    record, run = "prediction.record(recovers=True, wasted_fraction=0.2)", "result = prediction.run(STUDENT_ID)"
    assert notebook.prediction_before_run(notebook.cells_of(_nb(record, run)))
    assert not notebook.prediction_before_run(notebook.cells_of(_nb(run, record)))
    assert not notebook.prediction_before_run(notebook.cells_of(_nb(record + "\n" + run)))  # the same cell
    assert not notebook.prediction_before_run(notebook.cells_of(_nb("r = dwfm.run(cfg)", record, run)))
    assert not notebook.prediction_before_run(notebook.cells_of(_nb(record, run, record)))  # changed afterwards
    assert not notebook.prediction_before_run(notebook.cells_of(_nb(run)))
    # Lab 08's race over seeds and the public check of a step run models too.
    for early in ("t = explore.race_seeds(enactor.incident_step, range(20))", "explore.check_step(enactor_step)"):
        assert not notebook.prediction_before_run(notebook.cells_of(_nb(early, record, run)))
        assert notebook.prediction_before_run(notebook.cells_of(_nb(record, early)))


# -- the design answer, compiled restricted ---------------------------------------------------------
def test_an_honest_design_answer_compiles_and_runs_through_the_step_budget():
    fn, notes = restricted.compile_design(
        _design(
            "import math\nSLACK = 2",
            "def rounds(r):\n    return math.floor(r.queue_count / r.host_concurrency_count) + SLACK",
            "def admission_policy(r):\n"
            "    print('asked', r)\n"
            "    return rounds(r) * r.lease_establish_s <= r.work_deadline_s",
            "def broken(r):\n    return r.__class__",
        )
    )
    assert call_strategy("admission_policy", fn, REQUEST) is True
    assert notes and "broken" in notes[0], "a helper that does not compile is left out, and said so"


@pytest.mark.parametrize(
    "source, words",
    [
        ("def admission_policy(r):\n    return r.__class__ is None", "_"),
        ("def admission_policy(r):\n    return ().__class__.__bases__", "_"),
        ("def admission_policy(r):\n    g = (x for x in [1])\n    return g.gi_frame is None", "gi_frame"),
        ("def admission_policy(r):\n    return '{0.__class__}'.format(r) == ''", "format"),
        (
            "def admission_policy(r):\n    try:\n        return True\n    except:\n        return False",
            "every exception",
        ),
        ("@staticmethod\ndef admission_policy(r):\n    return True", "decorators"),
        ("def admission_policy(r):\n    global X\n    return True", "global"),
        ("def admission_policy(r):\n    return __import__('os') is None", "_"),
    ],
)
def test_a_design_answer_that_reaches_for_the_interpreter_does_not_compile(source, words):
    with pytest.raises(restricted.RestrictedError, match=words):
        restricted.compile_design(_design(source))


@pytest.mark.parametrize(
    "source",
    [
        "def admission_policy(r):\n    import os\n    return True",
        "def admission_policy(r):\n    return getattr(r, 'queue_count') < 5",
        "def admission_policy(r):\n    return open('/etc/passwd') is None",
        "def admission_policy(r):\n    return lab02.reference_admission_policy(r)",
        "def admission_policy(r):\n    math.floor = None\n    return True",
        "def admission_policy(r):\n    return type(r) is None",
    ],
)
def test_a_design_answer_that_reaches_beyond_its_namespace_fails_when_called(source):
    fn, _ = restricted.compile_design(_design(source))
    with pytest.raises(Exception):  # noqa: B017 (NameError, ImportError, AttributeError: the call fails)
        fn(REQUEST)


def test_a_design_answer_that_never_ends_is_stopped_by_the_step_budget():
    fn, _ = restricted.compile_design(_design("def admission_policy(r):\n    while True:\n        pass"))
    with pytest.raises(StrategyTimeout):
        call_strategy("admission_policy", fn, REQUEST)


def test_the_public_form_check_names_what_the_grader_will_not_give_the_function():
    def fine(request):
        return max(request.queue_count, 0) < 40

    check_answers_with_a_bool("admission_policy", fine, REQUEST)
    with pytest.raises(AssertionError, match="the module os"):
        check_answers_with_a_bool("admission_policy", uses_os, REQUEST)
    assert strategy_problems(fine) == [] and "max" in STRATEGY_BUILTINS


# -- the sandbox's file system ----------------------------------------------------------------------
def test_the_sandbox_binds_labsupport_alone_and_hides_an_installed_coursetools(tmp_path, monkeypatch):
    site_packages = tmp_path / "venv" / "lib" / "site-packages"
    for name in ("coursetools", "coursetools-0.1.0.dist-info", "labsupport-0.1.0.dist-info", "numpy"):
        (site_packages / name).mkdir(parents=True)
    (site_packages / "__editable__.coursetools-0.1.0.pth").write_text("import finder")
    monkeypatch.setattr(sandbox, "_python_dirs", lambda: [tmp_path / "venv", site_packages])
    args = sandbox.binds(with_coursetools=False)
    pairs = list(itertools.pairwise(args))
    assert ("--tmpfs", str(site_packages / "coursetools")) in pairs
    assert ("--tmpfs", str(site_packages / "coursetools-0.1.0.dist-info")) in pairs
    assert ("/dev/null", str(site_packages / "__editable__.coursetools-0.1.0.pth")) in pairs
    course = Path(labsupport.__file__).resolve().parent
    assert ("--ro-bind", str(course)) in pairs and ("--ro-bind", str(course.parent)) not in pairs
    assert "/etc/shadow" not in args and "--bind" not in args, "nothing the sandbox can write to"
    tools = str(sandbox._COURSETOOLS)  # noqa: SLF001 (the grader's own folder)
    assert ("--ro-bind", tools) not in pairs
    checking = sandbox.binds(with_coursetools=True)
    assert ("--ro-bind", tools) in list(itertools.pairwise(checking)), "the checking phase sees it"


# -- the answers' schema ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "exported, value, why",
    [
        ({"kind": "float", "value": 0.5}, 0.5, ""),
        ({"kind": "float", "value": 1.5}, None, "outside"),
        ({"kind": "int", "value": 1}, None, "must be a float"),
        ({"kind": "numpy.ndarray", "value": None}, None, "must be a float"),
        ({"error": "NameError"}, None, "raised NameError"),
        ({"kind": "none", "value": None}, None, "is None"),
        ("not a dict", None, "not exported"),
        ({"kind": "float", "value": 0.5, "extra": 1}, None, "not exported"),
    ],
)
def test_an_exported_answer_is_kept_only_with_its_declared_type_and_range(exported, value, why):
    got, reason = Answer("f", "f", "float", 0.0, 1.0).validate(exported)
    assert got == value and why in reason


def test_every_assignment_declares_its_questions_points_and_checks_consistently():
    for name, spec in SPECS.items():
        source = json.loads(source_of(name, ROOT).read_text(encoding="utf-8"))
        declared = {}
        for cell in source["cells"]:
            text = "".join(cell["source"])
            if cell["cell_type"] == "raw" and text.startswith("# BEGIN QUESTION"):
                fields = dict(line.split(": ", 1) for line in text.splitlines()[1:] if ": " in line)
                declared[fields["name"]] = float(fields["points"])
        assert declared == {q.name: float(q.points) for q in spec.questions}, name
        hidden = [
            c
            for c in source["cells"]
            if "BEGIN TEST CONFIG" in "".join(c["source"]) and "hidden: true" in "".join(c["source"])
        ]
        assert hidden == [], f"{name}: a hidden test in the source would run in the student's kernel"


# -- likeness ---------------------------------------------------------------------------------------
def test_renaming_and_reformatting_the_reference_is_the_same_answer():
    copied = _design(
        "def admission_policy(req):\n"
        '    """My own words."""\n'
        "    n = req.queue_count // req.host_concurrency_count + 2  # rounds\n"
        "    return n * req.lease_establish_s <= req.work_deadline_s"
    )
    reference = similarity.normalise_function(lab02.reference_admission_policy)
    assert similarity.similar(similarity.normalise(copied), reference) == (1.0, 23)
    other = _design("def admission_policy(r):\n    return r.queue_count < r.host_concurrency_count * 5")
    assert similarity.similar(similarity.normalise(other), reference) is None
    stub = _design('def admission_policy(request):\n    """Yours."""\n    ...')
    assert similarity.is_stub(similarity.normalise(stub)) and not similarity.is_stub(reference)


def test_a_copy_of_the_reference_disguised_with_dead_code_is_flagged():
    """Padding a copy with a docstring, a statement that does nothing, an unread variable, a branch
    that never runs and code after the return took it under the old 0.9 ratio: it went unflagged."""
    disguised = _design(
        "def admission_policy(req):\n"
        '    """My own words."""\n'
        "    spare = req.oldest_wait_s * 3 + req.attempt - req.in_flight_count\n"
        "    unused = [req.host, req.time_s, req.attempt, req.oldest_wait_s]\n"
        "    if False:\n"
        "        return req.queue_count > 0 and req.in_flight_count > req.host_concurrency_count\n"
        "    req.queue_count\n"
        "    n = req.queue_count // req.host_concurrency_count + 2\n"
        "    return n * req.lease_establish_s <= req.work_deadline_s\n"
        "    return req.queue_count < req.host_concurrency_count * 4 and req.attempt < 3\n"
    )
    reference = similarity.normalise_function(lab02.reference_admission_policy)
    assert similarity.similar(similarity.normalise(disguised), reference) == (1.0, 23)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_an_exact_copy_of_any_reference_is_flagged_however_short(name):
    for reference in SPECS[name].references:
        tokens = similarity.normalise_function(reference)
        assert similarity.similar(list(tokens), tokens) is not None, (name, len(tokens))


def test_math_gives_the_design_function_its_public_names_alone():
    """The loader attack: ``from math import __loader__`` gave the function math's loader, whose
    ``get_data`` reads any file of the checking sandbox (the quiz's key among them)."""
    import coursetools

    key = Path(coursetools.__file__).parent / "data" / "quiz_key.json"
    design = _design(
        "from math import __loader__ as loader, __spec__, floor as _getattr_, sqrt as root",
        f"def admission_policy(request):\n    return len(loader.get_data({str(key)!r})) > root(4)",
    )
    assert "loader" not in design.math_names and "__spec__" not in design.math_names
    fn, _ = restricted.compile_design(design)
    with pytest.raises(ConfigError, match="name 'loader' is not defined"):
        call_strategy("admission_policy", fn, REQUEST)
    forged = DesignSource("admission_policy", "def admission_policy(r):\n    return L is None")
    forged.math_names = {"L": "__loader__", "_getattr_": "floor"}  # as an older reader would have read them
    fn, _ = restricted.compile_design(forged)
    assert call_strategy("admission_policy", fn, REQUEST) is True, "a private name of math is never given"


# -- the class's files ------------------------------------------------------------------------------
def test_every_collected_file_gets_a_row_a_symbolic_link_is_flagged_never_read(tmp_path):
    (tmp_path / "s1.ipynb").write_text("{}")
    (tmp_path / "s2").mkdir()
    (tmp_path / "s2" / "a.ipynb").write_text("{}")
    (tmp_path / "s2" / "b.ipynb").write_text("{}")
    (tmp_path / "s3.ipynb").symlink_to(tmp_path / "s1.ipynb")
    (tmp_path / "s1").mkdir()
    (tmp_path / "s1" / "again.ipynb").write_text("{}")
    subs = grade.find_submissions(tmp_path)
    assert [i for i, _ in subs] == ["s1", "s1", "s2", "s3"]
    flags = grade.collection_flags(tmp_path, subs)
    assert all("2 submissions were collected under this id" in f[0] for f in flags[:2])
    assert flags[2] == ["its folder holds other notebooks, not graded: b.ipynb"] and flags[3] == []
    linked = grade.grade_one("s3", tmp_path / "s3.ipynb", SPECS["02-dwfm-collapse"])
    assert linked.scores == {"q1_predict": 0.0, "q2_measure": 0.0, "q3_design": 0.0}
    assert "symbolic link" in linked.flags[0]


def test_submissions_are_found_as_files_or_folders_named_by_id(tmp_path):
    (tmp_path / "s1.ipynb").write_text("{}")
    (tmp_path / "s2").mkdir()
    (tmp_path / "s2" / "anything.ipynb").write_text("{}")
    (tmp_path / "notes.txt").write_text("")
    assert [i for i, _ in grade.find_submissions(tmp_path)] == ["s1", "s2"]


def test_the_csv_has_a_row_per_student_and_the_feedback_names_no_other_student(tmp_path):
    a = grade.Grade("s1", {"q1": 1.0}, {"q1": 1.0}, ["design answer the same as s2 (5 tokens; compare by hand)"])
    b = grade.Grade("s2", {"q1": 0.0}, {"q1": 1.0}, [])
    grade.write_csv([a, b], tmp_path / "g.csv", manual=("q4",), feedback_dir=tmp_path / "fb")
    with (tmp_path / "g.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [r["auto_total"] for r in rows] == ["1", "0"] and "s2" in rows[0]["flags"]
    feedback = (tmp_path / "fb" / "s1.md").read_text()
    assert "s2" not in feedback and "compared by hand" in feedback


def test_a_python_install_under_tmp_is_seen_inside_the_sandbox(tmp_path, monkeypatch):
    """A venv or checkout under /tmp (a CI clone, an instructor's scratch folder) is bound on top of
    the sandbox's own /tmp, not hidden by it (CI once failed every grading test from a clone there)."""
    if sandbox.mode() == "user":
        pytest.skip("no bubblewrap here: the fallback binds nothing")
    install = tmp_path / "venv"
    install.mkdir()
    (install / "marker.txt").write_text("seen", encoding="utf-8")
    assert str(install).startswith("/tmp/")
    dirs = sandbox._python_dirs()  # noqa: SLF001 (the folders the sandbox binds)
    monkeypatch.setattr(sandbox, "_python_dirs", lambda: [*dirs, install])
    code = f"print(open({str(install / 'marker.txt')!r}).read())"
    done = sandbox.run([sys.executable, "-I", "-c", code], b"", Limits(wall_s=30.0), with_coursetools=False)
    assert done.stdout.strip() == b"seen", done.stderr.decode(errors="replace")[-500:]
