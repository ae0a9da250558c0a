"""Grading lab 01's assignment: seconds per submission for a class of N (``otter run`` each).

Run ``python benchmarks/grading_lab01.py [N] [JOBS]`` (default 30 submissions, 2 at a time). It
builds the assignment with ``otter assign``, writes N copies of the solution under N student ids
(each graded against its own id, so each run computes its own expected answers), grades them with
the grading command's function and prints the wall time per submission and the CSV's totals.
Needs the ``[grading]`` extra.
"""

from __future__ import annotations

import csv
import json
import sys
import tempfile
import time
from pathlib import Path

from labsupport.grading import __main__ as cli
from labsupport.grading import grade, lab01


def main(n: int = 30, jobs: int = 2) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        assert cli.main(["build", lab01.ASSIGNMENT, "--out", str(root / "dist")]) == 0
        build_s = time.perf_counter() - t0
        solution = json.loads((root / "dist" / "autograder" / f"{lab01.ASSIGNMENT}.ipynb").read_text())
        subs = root / "subs"
        subs.mkdir()
        for k in range(n):
            (subs / f"s{2000000 + k}.ipynb").write_text(json.dumps(solution))
        autograder = next((root / "dist" / "autograder").glob("*.zip"))
        t0 = time.perf_counter()
        grades = grade.grade_folder(subs, autograder, assignment=lab01.ASSIGNMENT, jobs=jobs)
        wall = time.perf_counter() - t0
        grade.write_csv(grades, root / "grades.csv", manual=("q4_explain",))
        with (root / "grades.csv").open() as f:
            totals = [float(r["auto_total"]) for r in csv.DictReader(f)]
    out = {
        "submissions": n,
        "jobs": jobs,
        "build_s": round(build_s, 1),
        "wall_s": round(wall, 1),
        "s_per_submission": round(wall / n, 2),
        "full_marks": sum(t == 7 for t in totals),
    }
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
