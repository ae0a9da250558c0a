"""Grading an assignment with the sandboxed grader: seconds per submission for a class of N, and its honesty set.

Run ``python benchmarks/grading.py [ASSIGNMENT] [N] [JOBS]`` (default ``02-dwfm-collapse``, 30
submissions, 2 at a time; ``all`` grades every assignment in turn). It builds the assignment with
``python -m coursetools.grading build`` (the student copy and the solution), writes N copies of the
solution under N student ids (each graded as its own id, so each run computes its own expected
answers), adds the blank student copy and a submission with one design mistake (lab 01: a wrong
count; lab 02: a constant queue limit, which loses exactly the "hosts unlike yours" point; lab 03: a
decision that restores an AZ already out, which flaps and loses the three points that see it; lab
04: a rule that serves stale at the limit too, which loses the one point that sees it; lab 05: a rule
that refuses a launch that would finish exactly at the limit, which loses the one point that sees
it; lab 06: a delete that keeps only the active plan, guard 3's rule, which leaves rollback records
dangling and loses the three points that see it; lab 08: a clean-up that keeps only the alias's
tree, which deletes the rollback's and loses the two points that see it; the concept quiz, whose
forms are each student's own: each honest copy answers its own id's form from the key, the wrong
one misses its first question), grades them with the grading command's function
(two sandboxed phases each: :mod:`coursetools.grading.grade`) and prints the wall time per
submission, each phase's median, one submission's CPU seconds (as root, from the sandboxes' cgroups) and
the CSV's totals. The red
team (tests/grading/test_red_team.py) grades attacks; this script measures speed. Needs otter-grader
(the ``[grading]`` extra), bubblewrap, and Linux.
"""

from __future__ import annotations

import csv
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from coursetools.grading import __main__ as cli
from coursetools.grading import concept_quiz, grade
from coursetools.grading.assignments import spec

#: Per assignment: (text in the solution, its replacement, the auto-graded total that submission must get).
ONE_WRONG = {
    "00-concept-quiz": ("", "", 11.0),  # see _quiz_class: each student's form is their own
    "01-enactor-race": (
        "stale_overwrites = result.summary.stale_overwrites_count",
        "stale_overwrites = result.summary.stale_overwrites_count + 1",
        6.0,
    ),
    "02-dwfm-collapse": (
        "return rounds * request.lease_establish_s <= request.work_deadline_s",
        "return request.queue_count < 50",
        6.0,
    ),
    "03-nlb-flapping": (
        "return request.dns_weight < 1.0 or request.removed_fraction <= 1e-9",
        "return request.removed_fraction <= 1e-9",
        4.0,
    ),
    "04-dns-caches": (
        "return request.stale_for_s < request.max_stale_s",
        "return request.stale_for_s <= request.max_stale_s",
        6.0,
    ),
    "05-six-stop-points": (
        "return (request.queue_count + 1) * request.service_s <= request.wait_limit_s",
        "return (request.queue_count + 1) * request.service_s < request.wait_limit_s",
        6.0,
    ),
    "06-every-interleaving": (
        "return request.plan != request.active_plan and request.plan != request.rollback_plan",
        "return request.plan != request.active_plan",
        4.0,
    ),
    "08-write-the-enactor": (
        "if old < plan - keep and old not in (zone.alias, zone.rollback):",
        "if old < plan - keep and old != zone.alias:",
        5.0,
    ),
}


def _quiz_class(blank: str, subs: Path, n: int) -> None:
    """The concept quiz's class: each of N ids answers its own form from the key; one misses question 1."""

    def answered(student_id: str, wrong_first: bool) -> str:
        nb = json.loads(blank)
        for k, (slot, letters) in enumerate(concept_quiz.key(student_id)["answers"].items()):
            if wrong_first and k == 0:
                shown = [x for x, _ in concept_quiz.shown_options(student_id, slot)]
                letters = [next(x for x in shown if x not in letters)]
            for cell in nb["cells"]:
                text = "".join(cell["source"])
                if text.startswith(f'answers["{slot}"] = ...'):
                    cell["source"] = f'answers["{slot}"] = {letters!r}'
        return json.dumps(nb)

    for k in range(n):
        (subs / f"s{2000000 + k}.ipynb").write_text(answered(f"s{2000000 + k}", False))
    (subs / "s1999999-one-wrong.ipynb").write_text(answered("s1999999-one-wrong", True))


def _median_cpu(grades: list[grade.Grade]) -> float | None:
    """The median CPU seconds of one submission's two phases (counted by the sandboxes' cgroups, as
    root; ``None`` elsewhere): what a submission costs whatever else the machine is doing."""
    cpu = [g.phase_seconds["cpu"] for g in grades if "cpu" in g.phase_seconds]
    return round(statistics.median(cpu), 1) if cpu else None


def main(assignment: str = "02-dwfm-collapse", n: int = 30, jobs: int = 2) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        assert cli.main(["build", assignment, "--out", str(root / "dist"), "--student-only"]) == 0
        build_s = time.perf_counter() - t0
        solution_text = (root / "dist" / "autograder" / f"{assignment}.ipynb").read_text()
        subs = root / "subs"
        subs.mkdir()
        blank_text = (root / "dist" / "student" / f"{assignment}.ipynb").read_text()
        (subs / "s1999998-blank.ipynb").write_text(blank_text)
        old, new, wrong_total = ONE_WRONG[assignment]
        if assignment == "00-concept-quiz":
            _quiz_class(blank_text, subs, n)
        else:
            for k in range(n):
                (subs / f"s{2000000 + k}.ipynb").write_text(solution_text)
            assert json.dumps(old)[1:-1] in solution_text, f"the one-wrong edit no longer matches the solution: {old!r}"
            (subs / "s1999999-one-wrong.ipynb").write_text(
                solution_text.replace(json.dumps(old)[1:-1], json.dumps(new)[1:-1])
            )
        t0 = time.perf_counter()
        grades = grade.grade_folder(subs, assignment=assignment, jobs=jobs)
        wall = time.perf_counter() - t0
        grade.write_csv(grades, root / "grades.csv", manual=spec(assignment).manual_questions)
        with (root / "grades.csv").open() as f:
            rows = list(csv.DictReader(f))
        totals = {r["student_id"]: float(r["auto_total"]) for r in rows}
        full = max(float(r["auto_max"]) for r in rows)
    blank, one_wrong = totals.pop("s1999998-blank"), totals.pop("s1999999-one-wrong")
    out: dict[str, object] = {
        "assignment": assignment,
        "submissions": n + 2,
        "jobs": jobs,
        "build_s": round(build_s, 1),
        "wall_s": round(wall, 1),
        "s_per_submission": round(wall / (n + 2), 2),
        "cpu_s_per_submission": _median_cpu(grades),
        "median_one_submission_s": round(statistics.median(g.seconds for g in grades), 1),
        "median_execute_s": round(statistics.median(g.phase_seconds.get("execute", 0.0) for g in grades), 1),
        "median_check_s": round(statistics.median(g.phase_seconds.get("check", 0.0) for g in grades), 1),
        "full_marks": f"{sum(t == full for t in totals.values())} of {n} solutions scored {full:g}",
        "blank_total": blank,
        "one_wrong_total": f"{one_wrong} (expected {wrong_total})",
        "load_average_1min_after": round(os.getloadavg()[0], 1),
    }
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    args = sys.argv[1:]
    chosen = args[0] if args else "02-dwfm-collapse"
    numbers = [int(a) for a in args[1:3]]
    for name in sorted(ONE_WRONG) if chosen == "all" else [chosen]:
        main(name, *numbers)
