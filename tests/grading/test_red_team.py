"""The red team: submissions written to cheat, graded by the instructor's own command, in one class.

Every attack of issue 39 (and more) is a real submission built from the student copy of lab 02,
graded with ``python -m coursetools.grading grade`` beside honest, half-right, lazy and blank ones:
each attack earns no point beyond what its own work earns (the blank copy's 0, or the honest work it
was added to) and is flagged where it shows; the honest solution keeps full marks; the instructor's
checkout is unchanged afterwards; nothing an attack started outlives the grading; and a lazy
submission graded after the attack that edits the installed course gets exactly its own point.
Smaller classes grade lab 01 (an honest copy of a friend's notebook under another id), the
concept quiz (two honest ids, each with its own form; its key read from the package or the disk; a
copy of one id's letters under another) and lab 08 (an honest step, a blank copy, a half-right step
a dishonest notebook that patches its kernel, types in a classmate's numbers and hands in a step
that reaches through its arguments, and a key thief).
"""

from __future__ import annotations

import copy
import csv
import json
import os
import secrets
import subprocess
import sys
import time
from pathlib import Path

import pytest

import coursetools
from coursetools.grading import __main__ as cli
from coursetools.grading import concept_quiz as key00
from coursetools.grading import lab01 as key01
from coursetools.grading import lab02 as key02
from coursetools.grading import lab08 as key08

ROOT = Path(__file__).resolve().parents[2]
LAB02 = "02-dwfm-collapse"
MARK = "4242"  # the background processes' mark: `sleep 4242...` must not outlive the grading

QUIZ_KEY = Path(coursetools.__file__).parent / "data" / "quiz_key.json"

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the grader's sandbox is Linux's bubblewrap")


# -- building submissions ---------------------------------------------------------------------------
def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _cell(nb: dict, text: str) -> dict:
    return next(c for c in nb["cells"] if c["cell_type"] == "code" and text in "".join(c["source"]))


def _set(nb: dict, text: str, new: str) -> dict:
    nb = copy.deepcopy(nb)
    cell = _cell(nb, text)
    cell["source"] = "".join(cell["source"]).replace(text, new)
    return nb


def _add(nb: dict, source: str, *, after: str = "prediction = lab02.Prediction()") -> dict:
    nb = copy.deepcopy(nb)
    at = nb["cells"].index(_cell(nb, after)) + 1
    nb["cells"].insert(
        at, {"cell_type": "code", "metadata": {}, "source": source, "outputs": [], "execution_count": None}
    )
    return nb


PREDICT = (
    "predicted_recovers = ...\npredicted_wasted_fraction = ...",
    "predicted_recovers = False\npredicted_wasted_fraction = 0.9",
)

#: The issue's one generic cell: setattr reached through pkgutil, every check_* replaced by a pass.
SETATTR_PATCH = """import pkgutil
patch = pkgutil.resolve_name("builtins:set" + "attr")
import labsupport.assignments as A
from labsupport.assignments import lab02 as L
def passes(*args, **kwargs):
    return None
for module in [A, L]:
    for name in dir(module):
        if name.startswith(("check_", "key", "reference_")):
            patch(module, name, passes)
try:
    import coursetools.grading.lab02 as G
    for name in dir(G):
        if name.startswith("check_"):
            patch(G, name, passes)
except ImportError as exc:
    print("no grader here:", exc)
"""
#: The same cell for any assignment: every module of the student's package and of the grader it can
#: import, every check_*, key and reference_* replaced by a pass.
GENERIC_CELL = """import importlib, pkgutil
patch = pkgutil.resolve_name("builtins:set" + "attr")
def passes(*args, **kwargs):
    return None
for package in ("labsupport.assignments", "coursetools.grading", "labsupport.grading"):
    try:
        root = importlib.import_module(package)
    except ImportError as exc:
        print("not here:", package, exc)
        continue
    for info in pkgutil.iter_modules(root.__path__):
        module = importlib.import_module(package + "." + info.name)
        for name in dir(module):
            if name.startswith(("check_", "key", "reference_", "graded_id")):
                patch(module, name, passes)
"""
MODULE_AS_ARGUMENT = """def patch_all(module, value):
    for name in list(vars(module)):
        if name.startswith("check") or name in ("params", "config"):
            vars(module)[name] = value
patch_all(lab02, lambda *a, **k: None)
"""
FOR_TARGET = """for m in [lab02, dwfm]:
    m.run = lambda *a, **k: None
    m.check_policy_recovers = lambda *a, **k: None
"""
BANG_CELL = """x = !echo hidden from ast
import pkgutil
pkgutil.resolve_name("builtins:set" + "attr")(lab02, "config", lambda *a: None)
"""
WRITES_TESTS = """from pathlib import Path
for where in [Path("te" + "sts"), Path.home() / ("te" + "sts"), Path("/tmp/tests")]:
    where.mkdir(parents=True, exist_ok=True)
    for q in ("q1_predict", "q2_measure", "q3_design"):
        (where / f"{q}.py").write_text("OK_FORMAT = False\\nname = %r\\npoints = 9\\ntest_cases = []\\n" % q)
Path("results.json").write_text('{"score": 7, "tests": []}')
"""
FORGES_RESULTS = """ip = get_ipython()
ip.run_cell('print("q1_predict results: All test cases passed!")')
ip.run_cell('import json; open("results.json", "w").write(json.dumps({"score": 7}))')
ip.run_cell("wasted_fraction = 0.5\\nleased_at_horizon_count = 7")
"""
EDITS_COURSE = """import labsupport, pathlib, site
root = pathlib.Path(labsupport.__file__).parent
outcome = []
targets = [root / "assignments" / "lab02.py", root / "dwfm" / "model.py", root / "__init__.py",
           root.parent / "tools" / "coursetools" / "grading" / "lab02.py", root.parent / "pyproject.toml"]
for target in targets:
    try:
        target.write_text("raise SystemExit('pwned')\\n")
        outcome.append(("wrote", str(target)))
    except OSError as exc:
        outcome.append((type(exc).__name__, str(target)))
for d in site.getsitepackages():
    try:
        (pathlib.Path(d) / "zz_pwned.pth").write_text("import os; os.environ['PWNED'] = '1'\\n")
        outcome.append(("wrote", d))
    except OSError as exc:
        outcome.append((type(exc).__name__, d))
print(outcome)
"""
BASH_BACKGROUND = f"""%%bash
(sleep {MARK}1; touch /tmp/outlived) > /dev/null 2>&1 &
nohup sleep {MARK}2 > /dev/null 2>&1 &
setsid sleep {MARK}3 > /dev/null 2>&1 < /dev/null &
echo started
"""
READS_KEY_IMPORT = """try:
    from coursetools.grading import lab02 as grader
    wasted_fraction = grader.key(STUDENT_ID)["wasted_fraction"]
    admission_policy = grader.reference_admission_policy
except ImportError as exc:
    print("no key:", exc)
try:
    wasted_fraction = lab02.key(STUDENT_ID)["wasted_fraction"]
except AttributeError as exc:
    print("no key:", exc)
"""
READS_KEY_DISK = """import glob, os, labsupport
found = [p for p in glob.glob("/**/coursetools/**/*.py", recursive=True)]
found += glob.glob("/**/quiz_key.json", recursive=True) + glob.glob("/**/*.ipynb", recursive=True)
checkout = os.path.dirname(os.path.dirname(labsupport.__file__))
for guess in [checkout + "/tools/coursetools/grading/lab02.py", checkout + "/assignments", "/etc/shadow", "/root"]:
    try:
        found.append((guess, os.listdir(guess) if os.path.isdir(guess) else open(guess).read()[:50]))
    except OSError as exc:
        found.append((guess, type(exc).__name__))
print(found)
"""
DETECTS_GRADER = """import os
GRADED = any(k.startswith(("LABSUPPORT", "OTTER", "COURSETOOLS")) for k in os.environ) or os.getuid() != os.geteuid()
def admission_policy(request):
    # behaves only when graded, sheds everything otherwise: a policy that knows where it runs
    return request.queue_count < 90 if GRADED else False
"""
MEMORY_BOMB = """hog = []
try:
    hog.append(bytearray(64 * 1024**3))
except MemoryError:
    pass
while True:
    hog.append(bytearray(200 * 1024**2))
"""
ENDLESS_LOOP = "while True:\n    pass"
FORK_BOMB = """import os
children = 0
while True:
    if os.fork() == 0:
        while True:
            pass
    children += 1
"""
FILLS_TMP = """with open("/tmp/fill", "wb") as f:
    while True:
        f.write(b"0" * 2**20)
"""
NETWORK = """import socket, urllib.request
tries = []
for host, port in [("1.1.1.1", 80), ("8.8.8.8", 53), ("10.0.0.1", 22)]:
    try:
        socket.create_connection((host, port), timeout=3)
        tries.append("connected")
    except OSError as exc:
        tries.append(type(exc).__name__)
urllib.request.urlopen("http://example.com", timeout=3)
"""
STEALS_QUIZ_KEY = """from labsupport import quiz
try:
    answers = {q.id: list(q.answer) for q in quiz.load()}
except AttributeError as exc:
    print(exc)
try:
    from coursetools import quiz as key
    answers = key.answer_key()
except ImportError as exc:
    print(exc)
import glob, json
for path in glob.glob("/**/quiz_key.json", recursive=True):
    data = json.load(open(path))["answers"]
    answers = {k: [o for o, v in a.items() if v["correct"]] for k, a in data.items()}
"""
KILLS_RUNNER = "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)"
#: The loader attack: the grader gave the design function the names a cell imported from math, any
#: of them; math's ``__loader__`` reads any file of the checking sandbox (here the quiz's key, whose
#: path an earlier feedback can tell), and the check's failure message carries it into the feedback.
LOADER_READS_KEY = """from math import __loader__ as loader


def admission_policy(request):
    text = str(loader.get_data(%r))
    at = text.find('"correct": true')
    raise ValueError(text[max(0, at - 250) : at + 100])
"""
PATCHES_EXPORT = """import builtins
builtins.eval = lambda *a, **k: 0.5
builtins.print = lambda *a, **k: None
"""


def _submissions(built: Path, friend: str) -> dict[str, dict]:
    solution = _load(built / "autograder" / f"{LAB02}.ipynb")
    blank = _load(built / "student" / f"{LAB02}.ipynb")
    lazy = _set(blank, *PREDICT)
    own_policy = _set(
        solution,
        _policy_body(solution),
        "def admission_policy(request):\n"
        '    """Admit while the queue, in whole rounds, still fits in the deadline."""\n'
        "    return request.queue_count < request.host_concurrency_count * (rounds_that_fit(request) - SAFETY)",
    )
    own_policy = _add(
        own_policy,
        "x = !echo exploring\nSAFETY = 1\n\n\ndef rounds_that_fit(request):\n"
        "    return int(request.work_deadline_s // request.lease_establish_s)\n\n\n"
        "def explore(result):\n    return result.__class__.__name__  # never compiles restricted: left out\n",
    )
    half = _set(
        _set(solution, _policy_body(solution), "def admission_policy(request):\n    return request.queue_count < 50"),
        'leased_at_horizon_count = int(result.timeseries["leased_count"].iloc[-1])',
        'leased_at_horizon_count = int(result.timeseries["leased_count"].iloc[-1]) + 1',
    )
    copied_reference = _set(
        solution,
        _policy_body(solution),
        "def admission_policy(req):\n"
        "    n = req.queue_count // req.host_concurrency_count + 2  # copied, renamed\n"
        "    return n * req.lease_establish_s <= req.work_deadline_s",
    )
    # A copy of the friend's notebook as the friend ran it: their id, their measurements typed in.
    theirs = key02.key(friend)
    friends_copy = _set(
        _set(
            _set(solution, 'STUDENT_ID = "s0000000"', f'STUDENT_ID = "{friend}"'),
            "wasted_fraction = result.summary.wasted_fraction",
            f"wasted_fraction = {theirs['wasted_fraction']!r}",
        ),
        'leased_at_horizon_count = int(result.timeseries["leased_count"].iloc[-1])',
        f"leased_at_horizon_count = {theirs['leased_at_horizon_count']!r}",
    )
    env_id = _add(
        friends_copy,
        f"%env LABSUPPORT_GRADED_ID={friend}\nimport os\nos.environ['LABSUPPORT_GRADED_ID'] = '{friend}'\n"
        f"STUDENT_ID = '{friend}'",
    )
    return {
        friend: solution,
        "h02-own-policy": own_policy,
        "h03-half-right": half,
        "h04-blank": blank,
        "a01-setattr-patch": _add(blank, SETATTR_PATCH),
        "a02-module-as-argument": _add(blank, MODULE_AS_ARGUMENT),
        "a03-for-target": _add(blank, FOR_TARGET),
        "a04-bang-cell": _add(blank, BANG_CELL),
        "a05-writes-tests": _add(blank, WRITES_TESTS),
        "a06-forges-results": _add(blank, FORGES_RESULTS),
        "a07-edits-course": _add(blank, EDITS_COURSE),
        "a08-bash-background": _add(blank, BASH_BACKGROUND),
        "a09-env-id": env_id,
        "a10-other-student-id": friends_copy,
        "a11-reads-key-import": _add(blank, READS_KEY_IMPORT),
        "a12-reads-key-disk": _add(blank, READS_KEY_DISK),
        "a13-copies-reference": copied_reference,
        "a14-detects-grader": _set(_add(blank, DETECTS_GRADER), _policy_body(blank), "pass"),
        "a15-memory-bomb": _add(blank, MEMORY_BOMB),
        "a16-endless-loop": _add(blank, ENDLESS_LOOP),
        "a17-fork-bomb": _add(blank, FORK_BOMB),
        "a18-fills-tmp": _add(blank, FILLS_TMP),
        "a19-network": _add(blank, NETWORK),
        "a20-kills-runner": _add(lazy, KILLS_RUNNER, after='grader.check("q1_predict")'),
        "a21-patches-export": _add(lazy, PATCHES_EXPORT, after='grader.check("q1_predict")'),
        "a22-loader-reads-key": _set(blank, _policy_body(blank), LOADER_READS_KEY % str(QUIZ_KEY)),
        "zz-lazy-after-the-edit": lazy,
    }


def _policy_body(nb: dict) -> str:
    return "".join(_cell(nb, "def admission_policy(request):")["source"])


def _git_status() -> str:
    return subprocess.run(
        [
            "git",
            "status",
            "--porcelain",
            "--ignored",
            "--untracked-files=all",
            "--",
            "labsupport",
            "tools",
            "assignments",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def _marked_processes() -> list[str]:
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if f"sleep {MARK}" in text:
            found.append(text)
    return found


def _grade(folder: Path, out: Path, assignment: str) -> dict[str, dict[str, str]]:
    args = ["grade", str(folder), "--assignment", assignment, "--out", str(out / "grades.csv")]
    args += ["--feedback", str(out / "feedback"), "--jobs", "2", "--timeout", "150", "--cell-timeout", "20"]
    assert cli.main([*args, "--memory-mb", "2048"]) == 0
    with (out / "grades.csv").open(encoding="utf-8") as f:
        rows = {r["student_id"]: r for r in csv.DictReader(f)}
    rows["_feedback"] = {p.stem: p.read_text(encoding="utf-8") for p in (out / "feedback").glob("*.md")}  # type: ignore[assignment]
    return rows


@pytest.fixture(scope="module")
def lab02_class(built, tmp_path_factory) -> dict:
    friend = "h01-solution"
    folder = tmp_path_factory.mktemp("lab02-class")
    for sid, nb in _submissions(built(LAB02), friend).items():
        (folder / f"{sid}.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    before = _git_status()
    site_before = sorted(p.name for d in _site_dirs() for p in d.iterdir())
    rows = _grade(folder, tmp_path_factory.mktemp("lab02-grades"), LAB02)
    rows["_after"] = {  # type: ignore[assignment]
        "git_before": before,
        "git_after": _git_status(),
        "site_new": sorted(set(p.name for d in _site_dirs() for p in d.iterdir()) - set(site_before)),
        "processes": _marked_processes(),
        "outlived": Path("/tmp/outlived").exists(),
    }
    return rows


def _site_dirs() -> list[Path]:
    import site

    return [Path(d) for d in site.getsitepackages() if Path(d).is_dir()]


def _points(row: dict[str, str]) -> dict[str, float]:
    return {q: float(row[q]) for q in ("q1_predict", "q2_measure", "q3_design")}


FULL = {"q1_predict": 1.0, "q2_measure": 2.0, "q3_design": 4.0}
ZERO = dict.fromkeys(FULL, 0.0)
LAZY = {**ZERO, "q1_predict": 1.0}


# -- honest work keeps its marks --------------------------------------------------------------------
def test_the_solution_and_an_own_policy_keep_full_marks(lab02_class):
    assert _points(lab02_class["h01-solution"]) == FULL
    own = lab02_class["h02-own-policy"]
    assert _points(own) == FULL, own["flags"]
    assert "design answer" not in own["flags"], "an answer of one's own is not like the reference"
    assert "explore was left out" in own["flags"] or "explore" in own["flags"]


def test_half_right_work_earns_exactly_its_half_and_blank_work_nothing(lab02_class):
    assert _points(lab02_class["h03-half-right"]) == {"q1_predict": 1.0, "q2_measure": 1.0, "q3_design": 3.0}
    assert _points(lab02_class["h04-blank"]) == ZERO
    assert _points(lab02_class["zz-lazy-after-the-edit"]) == LAZY


# -- every attack earns nothing it did not do -------------------------------------------------------
ON_BLANK = {
    "a01-setattr-patch": "reflection",
    "a02-module-as-argument": None,
    "a03-for-target": None,
    "a04-bang-cell": "reflection",
    "a05-writes-tests": None,
    "a06-forges-results": "runs other code",
    "a07-edits-course": "opens files outside",
    "a08-bash-background": "starts processes",
    "a11-reads-key-import": "reaches the grader's package",
    "a12-reads-key-disk": "reaches the grader's package",
    "a14-detects-grader": None,
    "a15-memory-bomb": None,
    "a16-endless-loop": None,
    "a17-fork-bomb": "starts processes",
    "a18-fills-tmp": None,
    "a19-network": "uses the network",
}


@pytest.mark.parametrize("sid, flag", sorted(ON_BLANK.items()))
def test_an_attack_on_the_blank_copy_earns_nothing_and_is_flagged_where_it_shows(lab02_class, sid, flag):
    row = lab02_class[sid]
    assert _points(row) == ZERO, (sid, row["flags"])
    if flag:
        assert flag in row["flags"], (sid, row["flags"])


@pytest.mark.parametrize("sid", ["a20-kills-runner", "a21-patches-export"])
def test_an_attack_on_the_export_earns_no_more_than_the_prediction_it_made(lab02_class, sid):
    assert _points(lab02_class[sid]) in (LAZY, ZERO), lab02_class[sid]["flags"]


def test_the_loader_attack_reads_no_file_and_the_key_never_reaches_the_feedback(lab02_class):
    row = lab02_class["a22-loader-reads-key"]
    assert _points(row) == ZERO, row["flags"]
    feedback = lab02_class["_feedback"]["a22-loader-reads-key"]
    assert '"correct"' not in feedback and "explanation" not in feedback, feedback
    assert "loader" in feedback, "the function failed because the grader gave it no such name"


def test_a_copy_under_another_id_is_graded_as_its_collectors_and_flagged(lab02_class):
    friends = key02.key("h01-solution")
    for sid in ("a09-env-id", "a10-other-student-id"):
        row = lab02_class[sid]
        mine = key02.key(sid)
        same = (mine["wasted_fraction"] == friends["wasted_fraction"]) + (
            mine["leased_at_horizon_count"] == friends["leased_at_horizon_count"]
        )
        assert float(row["q2_measure"]) == same, (sid, "the friend's measurements are not the copier's", row["flags"])
        assert "STUDENT_ID said 'h01-solution'" in row["flags"]
        assert "design answer the same as" in row["flags"], "the copy is flagged"
    env = lab02_class["a09-env-id"]["flags"]
    assert "LABSUPPORT_GRADED_ID" in env and "sets an environment variable" in env and "sets STUDENT_ID again" in env


def test_copying_the_public_reference_is_flagged_for_the_instructor_never_zeroed(lab02_class):
    row = lab02_class["a13-copies-reference"]
    assert _points(row) == FULL
    assert "design answer the same as the reference solution" in row["flags"]


# -- nothing outlives the grading, nothing of the instructor's changed ------------------------------
def test_the_checkout_and_the_installed_course_are_unchanged(lab02_class):
    after = lab02_class["_after"]
    assert after["git_after"] == after["git_before"], "grading changed the instructor's checkout"
    assert after["site_new"] == [], "grading added files to the installed packages"


def test_nothing_an_attack_started_outlives_the_grading(lab02_class):
    after = lab02_class["_after"]
    assert after["processes"] == [] and not after["outlived"]


def test_every_student_gets_feedback_that_names_no_one_else(lab02_class):
    feedback = lab02_class["_feedback"]
    assert set(feedback) == {k for k in lab02_class if not k.startswith("_")}
    assert "q3_design: 4 / 4" in feedback["h01-solution"]
    assert "h01-solution" not in feedback["a10-other-student-id"].split("## Notes from the grader")[1].replace(
        "STUDENT_ID said 'h01-solution'", ""
    )


# -- lab 01 and the quiz --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def lab01_class(built, tmp_path_factory) -> dict:
    b = built("01-enactor-race", student_only=True)
    solution = _load(b / "autograder" / "01-enactor-race.ipynb")
    blank = _load(b / "student" / "01-enactor-race.ipynb")
    other = key01.key("s1000009")
    copier = _set(  # the friend's notebook, their id and their measurements typed in
        _set(
            _set(solution, 'STUDENT_ID = "s0000000"', 'STUDENT_ID = "s1000009"'),
            "stale_overwrites = result.summary.stale_overwrites_count",
            f"stale_overwrites = {other['stale_overwrites']}",
        ),
        'first_stale_write_s = float(result.events.loc[result.events["action"] == "stale_write", "time_s"].iloc[0])',
        f"first_stale_write_s = {other['first_stale_write_s']!r}",
    )
    wrong = _set(
        solution,
        "stale_overwrites = result.summary.stale_overwrites_count",
        "stale_overwrites = result.summary.stale_overwrites_count + 1",
    )
    folder = tmp_path_factory.mktemp("lab01-class")
    generic = _add(blank, GENERIC_CELL, after="prediction = lab01.Prediction()")
    class_ = {"s1000001": solution, "s1000002": blank, "s1000003": wrong, "s1000013": copier, "s1000014": generic}
    for sid, nb in class_.items():
        (folder / f"{sid}.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    return _grade(folder, tmp_path_factory.mktemp("lab01-grades"), "01-enactor-race")


def test_lab01_honest_full_blank_zero_one_wrong_loses_its_point_a_copy_its_measurements(lab01_class):
    assert _points(lab01_class["s1000001"]) == FULL
    assert _points(lab01_class["s1000002"]) == ZERO
    assert _points(lab01_class["s1000014"]) == ZERO and "reflection" in lab01_class["s1000014"]["flags"]
    assert _points(lab01_class["s1000003"]) == {**FULL, "q2_measure": 1.0}
    copier, other = key01.key("s1000013"), key01.key("s1000009")
    row = lab01_class["s1000013"]
    assert float(row["q2_measure"]) == (copier["stale_overwrites"] == other["stale_overwrites"]) + (
        copier["first_stale_write_s"] == other["first_stale_write_s"]
    )
    assert "STUDENT_ID said 's1000009'" in row["flags"]
    assert f"seed={key01.params('s1000001').seed}" in lab01_class["_feedback"]["s1000001"].replace("'seed': ", "seed=")


def _answered(blank: dict, answers: dict[str, list[str]]) -> dict:
    """The quiz's blank copy with ``answers[slot]`` filled in, cell by cell, as a student types them."""
    nb = blank
    for slot, letters in answers.items():
        nb = _set(nb, f'answers["{slot}"] = ...', f'answers["{slot}"] = {letters!r}')
    return nb


@pytest.fixture(scope="module")
def quiz_class(built, tmp_path_factory) -> dict:
    b = built("00-concept-quiz", student_only=True)
    blank = _load(b / "student" / "00-concept-quiz.ipynb")
    steals = _add(blank, STEALS_QUIZ_KEY, after="answers = {}")
    generic = _add(blank, GENERIC_CELL, after="answers = {}")
    # s6 hands in s1's notebook: s1's id and s1's letters, collected as s6.
    copied = _set(_answered(blank, key00.key("s1")["answers"]), 'STUDENT_ID = "s0000000"', 'STUDENT_ID = "s1"')
    class_ = {
        "s1": _answered(blank, key00.key("s1")["answers"]),
        "s5": _answered(blank, key00.key("s5")["answers"]),
        "s2": blank,
        "s3-steals-the-key": steals,
        "s4-generic-cell": generic,
        "s6-copies-s1": copied,
    }
    folder = tmp_path_factory.mktemp("quiz-class")
    for sid, nb in class_.items():
        (folder / f"{sid}.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    return _grade(folder, tmp_path_factory.mktemp("quiz-grades"), "00-concept-quiz")


def test_the_quiz_key_reaches_no_submission(quiz_class):
    assert float(quiz_class["s1"]["auto_total"]) == 12.0 and float(quiz_class["s5"]["auto_total"]) == 12.0
    assert key00.key("s1")["questions"] != key00.key("s5")["questions"], "two ids, two forms"
    assert float(quiz_class["s2"]["auto_total"]) == 0.0
    thief = quiz_class["s3-steals-the-key"]
    assert float(thief["auto_total"]) == 0.0 and "reaches the grader's package" in thief["flags"]
    assert float(quiz_class["s4-generic-cell"]["auto_total"]) == 0.0
    # A copy of s1's letters is graded against s6's own form: it earns only where the two forms agree.
    mine, theirs = key00.key("s6-copies-s1")["answers"], key00.key("s1")["answers"]
    agree = sum(sorted(mine[s]) == sorted(theirs[s]) for s in mine)
    copier = quiz_class["s6-copies-s1"]
    assert float(copier["auto_total"]) == agree < 12 and "STUDENT_ID said 's1'" in copier["flags"]


# -- lab 08: the student writes the Enactor ---------------------------------------------------------
LAB08 = "08-write-the-enactor"
#: Lab 08's exercise 3 as the design answer: a careful clean-up behind the incident's blind writes.
HALF_RIGHT_STEP = """def enactor_step(plan, endpoints, keep, read, write, delete):
    for endpoint in endpoints:
        yield write(endpoint, plan)
    for endpoint in endpoints:
        zone = yield read(endpoint)
        for old in zone.trees:
            if old < plan - keep and old not in (zone.alias, zone.rollback):
                yield delete(endpoint, old, expect=zone)
"""
#: A kernel that makes every check it can reach pass and prints what a passing run would, types in a
#: classmate's measurements, and a step that reaches through its arguments for the engine's globals.
DISHONEST_CELL = """import pkgutil
patch = pkgutil.resolve_name("builtins:set" + "attr")
import pandas as pd
def all_pass(*args, **kwargs):
    return pd.DataFrame({"check": ["everything"], "passed": [True], "why": ["patched"]})
patch(explore, "check_step", all_pass)
patch(lab08, "check_form", lambda *a, **k: None)
"""
ESCAPING_STEP = """def enactor_step(plan, endpoints, keep, read, write, delete):
    engine = read.__init__.__globals__
    engine["OPERATION_BUDGET"] = 10**9
    for endpoint in endpoints:
        yield write(endpoint, plan)
"""

#: The key thief on lab 08: the grader's key and reference step by import, its source on the disk.
STEALS_LAB08_KEY = """import glob
try:
    from coursetools.grading import lab08 as grader
    k = grader.key(STUDENT_ID)
    counterexample_steps, runs_emptied = k["counterexample_steps"], k["runs_emptied"]
    enactor_step = grader.reference_enactor_step
except ImportError as exc:
    print("no key:", exc)
print(glob.glob("/**/coursetools/grading/lab08.py", recursive=True))
"""


@pytest.fixture(scope="module")
def lab08_class(built, tmp_path_factory) -> dict:
    b = built(LAB08, student_only=True)
    solution = _load(b / "autograder" / f"{LAB08}.ipynb")
    blank = _load(b / "student" / f"{LAB08}.ipynb")
    step_cell = "".join(_cell(solution, "def enactor_step(")["source"])
    half = _set(
        _set(solution, step_cell, HALF_RIGHT_STEP),
        'runs_emptied = int(runs["emptied"].sum())',
        'runs_emptied = int(runs["emptied"].sum()) + 1',
    )
    friend = key08.key("s8000001")
    typed = _set(  # the classmate's measurements, typed in
        _set(
            _set(blank, *PREDICT08),
            "counterexample_steps = ...",
            f"counterexample_steps = {friend['counterexample_steps']}",
        ),
        "runs_emptied = ...",
        f"runs_emptied = {friend['runs_emptied']}",
    )
    dishonest = _add(
        _set(typed, "".join(_cell(blank, "def enactor_step(")["source"]), ESCAPING_STEP),
        DISHONEST_CELL,
        after="prediction = lab08.Prediction()",
    )
    thief = _add(blank, STEALS_LAB08_KEY, after="prediction = lab08.Prediction()")
    class_ = {"s8000001": solution, "s8000002": blank, "s8000003": half, "s8000004": dishonest, "s8000005": thief}
    folder = tmp_path_factory.mktemp("lab08-class")
    for sid, nb in class_.items():
        (folder / f"{sid}.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    return _grade(folder, tmp_path_factory.mktemp("lab08-grades"), LAB08)


PREDICT08 = (
    "predicted_steps = ...\npredicted_runs = ...",
    "predicted_steps = 12\npredicted_runs = 5",
)


def test_lab08_honest_full_blank_zero_half_right_its_half_dishonest_nothing_it_did_not_do(lab08_class):
    assert _points(lab08_class["s8000001"]) == FULL
    assert _points(lab08_class["s8000002"]) == ZERO
    # The careful clean-up behind blind writes: safe and clean, but endpoints go back (2 of 4), and a
    # count off by one loses its point.
    assert _points(lab08_class["s8000003"]) == {"q1_predict": 1.0, "q2_measure": 1.0, "q3_design": 2.0}
    half = lab08_class["_feedback"]["s8000003"]
    assert "an Enactor writes an older plan over a newer one" in half and ", over a NEWER plan" in half
    assert "enactor-a write('regional'" in half or "enactor-b write('regional'" in half
    # The dishonest notebook: its patches live in its own kernel, its step does not compile, and the
    # classmate's numbers count only where they are this id's too.
    row = lab08_class["s8000004"]
    mine, theirs = key08.key("s8000004"), key08.key("s8000001")
    same = (mine["counterexample_steps"] == theirs["counterexample_steps"]) + (
        mine["runs_emptied"] == theirs["runs_emptied"]
    )
    assert _points(row) == {"q1_predict": 1.0, "q2_measure": float(same), "q3_design": 0.0}
    assert "reflection" in row["flags"]
    assert "could not be graded" in lab08_class["_feedback"]["s8000004"]
    # The key thief: no key and no reference step reach its kernel, and it did no work of its own.
    thief = lab08_class["s8000005"]
    assert float(thief["auto_total"]) == 0.0 and "reaches the grader's package" in thief["flags"], thief


#: Where each assignment's student copy has a cell to put the generic cell after.
AFTER = {"03-nlb-flapping": "prediction = lab03.Prediction()",
         "04-dns-caches": "prediction = lab04.Prediction()", "05-six-stop-points": "prediction = lab05.Prediction()",
         "06-every-interleaving": "prediction = lab06.Prediction()",
         "08-write-the-enactor": "prediction = lab08.Prediction()"}  # fmt: skip


@pytest.fixture(scope="module")
def generic_cell_everywhere(built, tmp_path_factory) -> dict[str, dict]:
    """The issue's one generic cell, added to the blank copy of every other assignment, each graded."""
    rows = {}
    for assignment, after in AFTER.items():
        blank = _load(built(assignment, student_only=True) / "student" / f"{assignment}.ipynb")
        folder = tmp_path_factory.mktemp(f"generic-{assignment}")
        (folder / "s3000001.ipynb").write_text(json.dumps(_add(blank, GENERIC_CELL, after=after)), encoding="utf-8")
        rows[assignment] = _grade(folder, tmp_path_factory.mktemp(f"generic-grades-{assignment}"), assignment)[
            "s3000001"
        ]
    return rows


@pytest.mark.parametrize("assignment", sorted(AFTER))
def test_the_issues_one_generic_cell_earns_nothing_on_any_assignment(generic_cell_everywhere, assignment):
    row = generic_cell_everywhere[assignment]
    assert float(row["auto_total"]) == 0.0 and "reflection" in row["flags"], row


# -- files made to break the grader itself: one class, each row its own ----------------------------
def _hidden_worksheets(blank: dict, solution: dict) -> dict:
    """The blank copy's cells for the grader to read, and the solution's code in nbformat 3's
    worksheets, which a notebook reader converts to the cells it runs."""
    nb = copy.deepcopy(blank)
    nb["nbformat"], nb["nbformat_minor"] = 3, 0
    code = ["".join(c["source"]) for c in solution["cells"] if c["cell_type"] == "code"]
    cells = [{"cell_type": "code", "input": src, "language": "python", "outputs": [], "metadata": {}} for src in code]
    nb["worksheets"] = [{"metadata": {}, "cells": cells}]
    return nb


@pytest.fixture(scope="module")
def hostile_files_class(built, tmp_path_factory) -> dict:
    b = built(LAB02, student_only=True)
    blank, solution = _load(b / "student" / f"{LAB02}.ipynb"), _load(b / "autograder" / f"{LAB02}.ipynb")
    not_text = copy.deepcopy(blank)
    not_text["cells"].append({"cell_type": "code", "metadata": {}, "source": [1, 2], "outputs": []})
    folder = tmp_path_factory.mktemp("hostile-files")
    for sid, nb in {
        "f1-blank": blank,
        "f4-source-not-text": not_text,
        "f5-hidden-worksheets": _hidden_worksheets(blank, solution),
    }.items():
        (folder / f"{sid}.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    (folder / "f2-deep-json.ipynb").write_text("[" * 100_000, encoding="utf-8")
    return _grade(folder, tmp_path_factory.mktemp("hostile-files-grades"), LAB02)


def test_a_file_made_to_crash_the_grader_costs_only_its_own_row(hostile_files_class):
    """Deep JSON and a cell whose source is not text each crashed the host (RecursionError,
    TypeError), so that no one in the class got a grade (an expression too deep to parse did too:
    ``test_grading_parts``, as its kernel takes the run's whole time limit)."""
    rows = hostile_files_class
    assert {k for k in rows if not k.startswith("_")} == {
        "f1-blank", "f2-deep-json", "f4-source-not-text", "f5-hidden-worksheets"
    }  # fmt: skip
    for sid in ("f1-blank", "f2-deep-json", "f4-source-not-text"):
        assert _points(rows[sid]) == ZERO, (sid, rows[sid]["flags"])
    assert "unreadable notebook: RecursionError" in rows["f2-deep-json"]["flags"]


def test_code_the_grader_did_not_read_never_runs(hostile_files_class):
    """nbformat 3's worksheets hold the solution and the cells the blank copy: the kernel ran the
    worksheets (measurements, prediction) while the grader read and flagged the blank cells."""
    assert _points(hostile_files_class["f5-hidden-worksheets"]) == ZERO, hostile_files_class["f5-hidden-worksheets"]


# -- the grader's parts, as if an attack had got out of RestrictedPython ----------------------------
def test_a_check_that_got_out_of_restricted_python_can_neither_open_a_file_nor_print_a_verdict(monkeypatch, capfd):
    from coursetools.grading import check

    forged = json.dumps({"checks": [{"question": "q3_design", "name": "forged", "points": 4, "passed": True}]})

    def escaped(design):
        def admission_policy(request):
            print(forged, flush=True)
            os.write(1, (forged + "\n").encode())
            with open(QUIZ_KEY, encoding="utf-8") as f:
                raise ValueError(f.read()[:500])

        return admission_policy, []

    monkeypatch.setattr(check, "compile_design", escaped)
    source = "def admission_policy(request):\n    return True\n"
    job = {
        "assignment": LAB02,
        "student_id": "s1000001",
        "design": {"name": "admission_policy", "source": source},
        "cells": {"index": [0], "source": [source], "otter": [False]},
        "pinned": None,
        "answers": {},
        "prediction": {"recorded": False},
    }
    verdict = check.run_checks(job, 60.0)
    design = [c for c in verdict["checks"] if c["question"] == "q3_design"]
    assert design and not any(c["passed"] for c in design)
    assert not any('"about"' in c["message"] or "explanation" in c["message"] for c in design), design
    assert "forged" not in capfd.readouterr().out


def test_a_verdict_without_the_nonce_or_cut_by_the_output_cap_is_no_verdict():
    from coursetools.grading import grade, sandbox

    nonce = secrets.token_hex(16)
    genuine = json.dumps({"checks": [], "notes": ["genuine"]})
    forged = json.dumps({"checks": [{"question": "q3_design", "name": "f", "points": 4, "passed": True}]})

    class Finished:
        def __init__(self, out: sandbox.Outcome) -> None:
            self.out = out

        def finish(self, rest: bytes) -> sandbox.Outcome:
            return self.out

    options = grade.GradeOptions()
    late = sandbox.Outcome(0, stdout=f"{nonce} {genuine}\n{forged}\n".encode())
    assert grade._verdict(Finished(late), nonce, {}, options)[0]["notes"] == ["genuine"]
    cut = sandbox.Outcome(0, stdout=f"{nonce} {forged}\n".encode() * 3, truncated=True)
    verdict = grade._verdict(Finished(cut), nonce, {}, options)[0]
    assert verdict["checks"] == [] and "longer than the host reads" in verdict["notes"][0]


def test_a_notebook_slow_to_read_is_given_up_on_at_the_reading_limit(monkeypatch):
    """IPython's transformer makes up to 500 passes over a cell: 400 lines of ``x = !echo`` take
    seconds to read, 100,000 lines (2 MiB) hours. The check phase gives up at ``READ_S`` (nothing of
    the code read, said in a note); the alarm used to stop only the cell it caught, and reading went
    on with the next, until the phase's wall clock killed it with every check."""
    from coursetools.grading import check
    from coursetools.grading.assignments import SPECS

    monkeypatch.setattr(check, "READ_S", 0.5)
    real_read = check.read

    def slow_read(*args, **kwargs):  # how slow IPython is depends on the machine and on its caches:
        time.sleep(30)  # a reading that takes longer than the limit, whatever the machine
        return real_read(*args, **kwargs)

    monkeypatch.setattr(check, "read", slow_read)
    cells = ["x = !echo\n" * 400, "def admission_policy(request):\n    return True\n"]
    job = {"cells": {"index": [0, 1], "source": cells, "otter": [False, False]}, "pinned": None}
    out: dict = {"checks": [], "notes": [], "reading": {"flags": [], "tokens": []}}
    reading = check._read(job, SPECS[LAB02], out)
    assert reading.design.source == "" and "could not be read within 0.5 s" in out["notes"][0], out


_PEEKS = """
import os, sys
sys.path.insert(0, {where!r})
from {module} import undumpable
undumpable()
r, w = os.pipe()
if os.fork() == 0:
    got = []
    for path, flags in (("fd/1", os.O_WRONLY), ("mem", os.O_RDONLY), ("environ", os.O_RDONLY)):
        try:
            os.close(os.open(f"/proc/{{os.getppid()}}/{{path}}", flags))
            got.append("opened")
        except OSError as exc:
            got.append(type(exc).__name__)
    os.write(w, " ".join(got).encode())
    os._exit(0)
os.close(w)
print(os.read(r, 200).decode())
"""


@pytest.mark.parametrize("module", ["coursetools.grading.limits", "_runner"])
def test_a_child_cannot_reach_its_graders_output_or_memory_through_proc(module):
    """The runner (whose report and nonce a kernel it starts would forge) and the check phase (whose
    verdict an escaped check would) are non-dumpable: in the sandbox, where every process is the same
    user without capabilities, a child then opens none of the parent's ``/proc`` files."""
    from coursetools.grading import sandbox

    where = str(Path(coursetools.__file__).parent / "grading")
    script = _PEEKS.format(where=where, module=module)
    done = sandbox.run([sys.executable, "-I", "-c", script], b"", sandbox.Limits(wall_s=60.0), with_coursetools=True)
    assert done.stdout.decode().split() == ["PermissionError"] * 3, done.stderr[-500:]
