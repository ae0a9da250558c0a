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
