"""``python -m labsupport.grading``: build an assignment, print the key for an id, grade a folder.

::

    python -m labsupport.grading build 01-enactor-race --out dist/01-enactor-race
        (or 00-concept-quiz, 02-dwfm-collapse, 03-nlb-flapping, 04-dns-caches, 05-six-stop-points,
        06-every-interleaving:
        every command takes any of them)
    python -m labsupport.grading build 01-enactor-race --out dist/01-colab --colab
        (for Colab, VS Code or a hub without the course: a first cell installs it, with otter)
    python -m labsupport.grading key 01-enactor-race --id s1234567
    python -m labsupport.grading grade SUBMISSIONS --autograder dist/01-enactor-race/autograder/*.zip \\
        --out grades.csv --feedback feedback/ [--jobs 2] [--timeout 300] [--memory-mb 3072]
        (the assignment is the one the zip was built for; --assignment NAME only checks it)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..colab import published
from ..errors import ConfigError
from . import concept_quiz, grade, lab01, lab02, lab03, lab04, lab05, lab06, release

#: Assignments this command knows: name -> (parameters of an id, key of an id, manual questions).
ASSIGNMENTS: dict[str, tuple[Callable[[str], Any], Callable[[str], dict[str, object]], tuple[str, ...]]] = {
    concept_quiz.ASSIGNMENT: (concept_quiz.params, concept_quiz.key, ()),
    lab01.ASSIGNMENT: (lab01.params, lab01.key, ("q4_explain",)),
    lab02.ASSIGNMENT: (lab02.params, lab02.key, ("q4_explain",)),
    lab03.ASSIGNMENT: (lab03.params, lab03.key, ("q4_explain",)),
    lab04.ASSIGNMENT: (lab04.params, lab04.key, ("q4_explain",)),
    lab05.ASSIGNMENT: (lab05.params, lab05.key, ("q4_explain",)),
    lab06.ASSIGNMENT: (lab06.params, lab06.key, ("q4_explain",)),
}
#: The assignment sources, at the repository's root.
SOURCES = Path(__file__).resolve().parents[2] / "assignments"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m labsupport.grading", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="otter assign: write the student copy and the autograder")
    b.add_argument("assignment", choices=sorted(ASSIGNMENTS))
    b.add_argument("--out", type=Path, required=True)
    b.add_argument(
        "--colab",
        action="store_true",
        help="a student copy for Colab, VS Code or a hub without the course (labsupport.grading.release)",
    )
    k = sub.add_parser("key", help="print the instructor's key for one student id (JSON)")
    k.add_argument("assignment", choices=sorted(ASSIGNMENTS))
    k.add_argument("--id", required=True, dest="student_id")
    g = sub.add_parser("grade", help="grade a folder of submissions into a CSV and feedback files")
    g.add_argument("submissions", type=Path)
    g.add_argument(
        "--assignment",
        choices=sorted(ASSIGNMENTS),
        default=None,
        help="the assignment's name (by default the one the autograder zip was built for)",
    )
    g.add_argument("--autograder", type=Path, required=True)
    g.add_argument("--out", type=Path, required=True)
    g.add_argument("--feedback", type=Path, default=None)
    g.add_argument("--jobs", type=int, default=1)
    g.add_argument("--timeout", type=float, default=300.0)
    g.add_argument("--memory-mb", type=int, default=3072)
    args = parser.parse_args(argv)
    if args.command == "build":
        source = SOURCES / args.assignment / f"{args.assignment}.ipynb"
        if args.colab:
            try:
                print(f"wrote {release.build_colab(source, args.out)}")
            except ConfigError as exc:
                parser.error(str(exc))
            return 0
        done = subprocess.call([sys.executable, "-m", "otter", "assign", "--no-run-tests", str(source), str(args.out)])
        if done == 0:
            release.link_to_book(args.out / "student" / source.name, published())
        return done
    if args.command == "key":
        try:
            print(json.dumps(ASSIGNMENTS[args.assignment][1](args.student_id), indent=2))
        except ConfigError as exc:
            parser.error(str(exc))  # exits with status 2 and the message, not a traceback
        return 0
    try:
        built_for = grade.autograder_assignment(args.autograder)
    except ConfigError as exc:
        parser.error(str(exc))
    if args.assignment is not None and args.assignment != built_for:
        parser.error(f"--assignment {args.assignment} does not match the autograder zip, built for {built_for}")
    if built_for not in ASSIGNMENTS:
        parser.error(f"the autograder zip was built for {built_for!r}, which this command does not know")
    params, _, manual = ASSIGNMENTS[built_for]
    grades = grade.grade_folder(
        args.submissions,
        args.autograder,
        assignment=built_for,
        jobs=args.jobs,
        timeout_s=args.timeout,
        memory_mb=args.memory_mb,
    )
    grade.write_csv(
        grades,
        args.out,
        manual=manual,
        feedback_dir=args.feedback,
        params=lambda i: {k: v for k, v in asdict(params(i)).items() if k != "student_id"},
    )
    print(f"graded {len(grades)} submissions into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
