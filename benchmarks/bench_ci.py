"""The whole of ``.ci/run`` in a fresh copy of the repository (opt-in: it downloads every package).

Copies the files git would commit (tracked, plus untracked files not ignored) into a temporary
folder and runs ``.ci/run`` there: a fresh virtual environment, ``pip install``, the whole test
suite, the student's path, the book build, the browser tests and the PDF. Target: 15 minutes on 2
cores. One row for the whole run, then one row per stage: ``.ci/run`` prints ``== <stage> (<N> s)``
as each stage starts, N counted from the start of the run, so a stage lasts until the next line
(the last one, ``== done``, closes the run). Not part of the default run; ask for it with
``python benchmarks/run.py ci``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import time
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 15 * 60.0
#: A stage line of .ci/run: ``== name (N s)``, N the seconds since the run began.
STAGE = re.compile(r"^== (?P<name>.+) \((?P<at>\d+) s\)$")


def stage_seconds(log: str) -> list[tuple[str, float]]:
    """Each stage of a ``.ci/run`` log and its seconds: the time from its line to the next one.

    The last stage line (``== done``) only closes the one before it. A run that stopped inside a
    stage has no closing line: that stage is left out, since its length is not known.
    """
    marks = [(m["name"], float(m["at"])) for m in map(STAGE.match, log.splitlines()) if m]
    return [(name, after - at) for (name, at), (_, after) in pairwise(marks)]


def figures() -> list[dict]:
    """Run ``.ci/run`` once in a copy and return its row (see ``benchmarks/run.py`` for the format)."""
    files = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.split("\0")
    with tempfile.TemporaryDirectory(prefix="ci-run-") as tmp:
        for name in filter(None, files):
            source = ROOT / name
            if source.is_file():
                (Path(tmp) / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, Path(tmp) / name)
        t0 = time.perf_counter()
        proc = subprocess.run(["bash", ".ci/run"], cwd=tmp, capture_output=True, text=True, timeout=3 * 3600)
        seconds = time.perf_counter() - t0
    stages = stage_seconds(proc.stdout)
    status = "passed" if proc.returncode == 0 else f"exit code {proc.returncode}"
    tail = (
        ""
        if proc.returncode == 0
        else "; last output: " + " | ".join((proc.stdout + proc.stderr).strip().splitlines()[-3:])[:300]
    )
    rows = [
        {
            "figure": "whole .ci/run in a fresh copy",
            "value": seconds,
            "unit": "s",
            "target": TARGET_S,
            "better": "lower",
            "note": f"{status}; {len(stages)} stages timed{tail}",
        }
    ]
    rows += [
        {"figure": f".ci/run stage: {name}", "value": value, "unit": "s", "target": None, "better": "lower", "note": ""}
        for name, value in stages
    ]
    return rows


if __name__ == "__main__":  # python benchmarks/bench_ci.py < log: the stages of a log already written
    import sys

    for name, value in stage_seconds(sys.stdin.read()):
        print(f"{value:7.0f} s  {name}")
