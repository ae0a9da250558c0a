"""The whole of ``.ci/run`` in a fresh copy of the repository (opt-in: it downloads every package).

Copies the files git would commit (tracked, plus untracked files not ignored) into a temporary
folder and runs ``.ci/run`` there: a fresh virtual environment, ``pip install``, the whole test
suite, the student's path, the book build, the browser tests and the PDF. Target: 15 minutes on 2
cores. One row for the whole run, then one row per stage: ``.ci/run`` prints ``== <stage> (<N> s)``
as each stage starts, N counted from the start of the run, so a stage lasts until the next line
(the last one, ``== done``, closes the run). Then one row per stage and per job of the table that
``.ci/run`` prints at its end, with its CPU seconds in the note (a job's CPU counts every process it
started, Chromium's included: ``.ci/cpu``), and the run's CPU seconds in all. The whole log is kept
in ``benchmarks/results-ci.log``. Not part of the default run; ask for it with
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


#: A row of the table at the end of a .ci/run log: wall seconds, CPU seconds, what it is.
ROW = re.compile(r"^\s*(?P<wall>\d+|\?)\s+(?P<cpu>\d+(?:\.\d+)?|\?)\s+(?P<name>\S.*)$")
#: Where the log of the last run is kept.
LOG = ROOT / "benchmarks" / "results-ci.log"


def table_rows(log: str) -> dict[str, list[tuple[str, float | None, float | None]]]:
    """The rows of the table at the end of a ``.ci/run`` log: ``{"stage": [...], "job": [...], "total": [...]}``.

    Each row is ``(name, wall seconds, CPU seconds)``, ``None`` where the log has ``?``. The table
    starts after the ``== done`` line; a header row (``wall s  CPU s  stage ...`` or ``... job ...``)
    starts each part, and the ``total`` row ends it. A log without a table gives empty lists.
    """
    rows: dict[str, list[tuple[str, float | None, float | None]]] = {"stage": [], "job": [], "total": []}
    lines = log.splitlines()
    done = next((i for i, line in enumerate(lines) if line.startswith("== done (")), None)
    part = None
    for line in lines[done + 1 :] if done is not None else []:
        header = re.match(r"^\s*wall s\s+CPU s\s+(stage|job)\b", line)
        if header:
            part = header.group(1)
            continue
        m = ROW.match(line)
        if not m or part is None:
            continue
        name = m["name"]
        wall, cpu = (None if v == "?" else float(v) for v in (m["wall"], m["cpu"]))
        if name.startswith("total"):
            rows["total"].append((name, wall, cpu))
            break
        rows[part].append((name, wall, cpu))
    return rows


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
    LOG.write_text(proc.stdout + "\n---- stderr ----\n" + proc.stderr, encoding="utf-8")
    stages = stage_seconds(proc.stdout)
    table = table_rows(proc.stdout)
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
    cpu = {name: c for name, _, c in table["stage"]}
    rows += [
        {
            "figure": f".ci/run stage: {name}",
            "value": value,
            "unit": "s",
            "target": None,
            "better": "lower",
            "note": f"{cpu[name]:.0f} CPU s" if cpu.get(name) is not None else "",
        }
        for name, value in stages
    ]
    rows += [
        {
            "figure": f".ci/run job: {name}",
            "value": wall,
            "unit": "s",
            "target": None,
            "better": "lower",
            "note": f"{c:.0f} CPU s" if c is not None else "",
        }
        for name, wall, c in table["job"]
        if wall is not None
    ]
    rows += [
        {
            "figure": ".ci/run CPU seconds in all",
            "value": c,
            "unit": "CPU s",
            "target": None,
            "better": "lower",
            "note": f"{LOG.relative_to(ROOT)} holds the log",
        }
        for _, _, c in table["total"]
        if c is not None
    ]
    return rows


if __name__ == "__main__":  # python benchmarks/bench_ci.py < log: the stages of a log already written
    import sys

    text = sys.stdin.read()
    for name, value in stage_seconds(text):
        print(f"{value:7.0f} s  {name}")
    for name, wall, cpu in table_rows(text)["job"]:
        print(f"{wall or 0:7.0f} s  {cpu or 0:7.0f} CPU s  job: {name}")
