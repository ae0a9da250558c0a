"""benchmarks/bench_ci.py reads each stage's seconds from the ``== stage (N s)`` lines that .ci/run prints."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bench_ci", ROOT / "benchmarks" / "bench_ci.py")
bench_ci = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_ci)


def test_each_stage_lasts_until_the_next_stage_line():
    log = (
        "== install: fresh venv (0 s)\npip output\n== lint: ruff (75 s)\n-- ruff: Found 3 errors.\n"
        "== README test command: pytest (120 s)\n== (still) a stage (pytest) (480 s)\n== done (500 s)\n"
    )
    assert bench_ci.stage_seconds(log) == [
        ("install: fresh venv", 75.0),
        ("lint: ruff", 45.0),
        ("README test command: pytest", 360.0),
        ("(still) a stage (pytest)", 20.0),
    ]


def test_a_run_that_stopped_inside_a_stage_leaves_that_stage_out():
    assert bench_ci.stage_seconds("== a (0 s)\n== b (12 s)\nTraceback ...\n") == [("a", 12.0)]
    assert bench_ci.stage_seconds("no stage lines at all") == []


def test_ci_run_prints_stage_lines_in_that_format():
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'echo "== $1 ($((SECONDS - started)) s)"' in script
    names = re.findall(r'^stamp "([^"]+)"', script, flags=re.M)
    assert all(bench_ci.STAGE.match(f"== {n} (12 s)") for n in names)
    # Every stage CI must have is a stage line; the book build is a job inside one of them.
    assert {"install", "lint", "README test command", "browser", "pdf"} <= {n.split(":")[0] for n in names}
    assert "jupyter-book build . -W -n --keep-going" in script
    assert 'echo "== done ($((SECONDS - started)) s)"' in script


def test_the_table_gives_each_stage_and_job_its_cpu_seconds():
    log = (
        "== a (0 s)\n   12   4  not the table\n== done (300 s)\n\n"
        " wall s   CPU s  stage (its CPU: the jobs it awaited, and its own commands)\n"
        "    100      61  install: fresh venv\n"
        "    200     350  browser: the book\n"
        " wall s   CPU s  job (each job's CPU with all its processes, .ci/cpu)\n"
        "    150   120.5  book (jupyter-book build . -W -n --keep-going)\n"
        "      ?       ?  a job that left no figures\n"
        "    300     411  total (every job and command of this run)\n"
        "The machine's CPU busy over the run (/proc/stat, every process): 590 s of 600 s on 2 cores\n"
    )
    assert bench_ci.table_rows(log) == {
        "stage": [("install: fresh venv", 100.0, 61.0), ("browser: the book", 200.0, 350.0)],
        "job": [
            ("book (jupyter-book build . -W -n --keep-going)", 150.0, 120.5),
            ("a job that left no figures", None, None),
        ],
        "total": [("total (every job and command of this run)", 300.0, 411.0)],
    }
    assert bench_ci.table_rows("== a (0 s)\nno table") == {"stage": [], "job": [], "total": []}


def test_ci_run_prints_the_table_that_bench_ci_reads():
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert '"wall s" "CPU s" "stage' in script and '"wall s" "CPU s" "job' in script
    assert "total (every job and command of this run)" in script
