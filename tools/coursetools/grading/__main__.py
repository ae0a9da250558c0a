"""``python -m coursetools.grading``: build an assignment, print the key for an id, grade a folder.

::

    python -m coursetools.grading build 01-enactor-race --out dist/01-enactor-race
        (or 00-concept-quiz, 02-dwfm-collapse, 03-nlb-flapping, 04-dns-caches, 05-six-stop-points,
        06-every-interleaving, 08-write-the-enactor: every command takes any of them; writes the student copy with otter
        assign and dist/.../autograder/<name>-gradescope.zip)
    python -m coursetools.grading build 01-enactor-race --out dist/01-colab --colab
        (for Colab, VS Code or a hub without the course: a first cell installs it, with otter)
        build reads the course repository in the current directory; --root DIR names another
    python -m coursetools.grading key 01-enactor-race --id s1234567
        (also module-1-race and module-2-collapse: the university module's written assignments,
        their model answers for the id)
    python -m coursetools.grading grade SUBMISSIONS --assignment 01-enactor-race --out grades.csv \\
        --feedback feedback/ [--jobs 2] [--timeout 300] [--memory-mb 3072]
    python -m coursetools.grading gradescope [--root /autograder]
        (what the Gradescope zip's run_autograder runs)

``grade`` refuses to run where no sandbox can be made (bubblewrap missing, or user namespaces
disabled and not root): it would otherwise run students' code as the instructor.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from labsupport.errors import ConfigError

from ..colab import published
from ..repository import course_root
from . import grade, gradescope, module, release, sandbox
from .assignments import SPECS, source, spec


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m coursetools.grading", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="the student copy (otter assign) and the Gradescope autograder zip")
    b.add_argument("assignment", choices=sorted(SPECS))
    b.add_argument("--out", type=Path, required=True)
    b.add_argument(
        "--root", type=Path, default=None, help="the course repository's root folder (default: the current one)"
    )
    b.add_argument("--colab", action="store_true", help="a student copy for Colab, VS Code or a hub without the course")
    b.add_argument("--student-only", action="store_true", help="the student copy alone (no autograder zip)")
    b.add_argument(
        "--gradescope-id",
        choices=gradescope.ID_FIELDS,
        default="email",
        help="which field of Gradescope's submission metadata is the student id (default: the email's user part)",
    )
    k = sub.add_parser(
        "key", help="print the instructor's key, or a written assignment's model answers, for one id (JSON)"
    )
    k.add_argument("assignment", choices=sorted([*SPECS, *module.KEYS]))
    k.add_argument("--id", required=True, dest="student_id")
    g = sub.add_parser("grade", help="grade a folder of submissions into a CSV and feedback files")
    g.add_argument("submissions", type=Path)
    g.add_argument("--assignment", choices=sorted(SPECS), required=True)
    g.add_argument("--out", type=Path, required=True)
    g.add_argument("--feedback", type=Path, default=None)
    g.add_argument("--jobs", type=int, default=1)
    g.add_argument("--timeout", type=float, default=300.0, help="seconds the notebook's run may take (default 300)")
    g.add_argument("--memory-mb", type=int, default=3072, help="memory of each phase, MiB (default 3072)")
    g.add_argument("--cell-timeout", type=float, default=120.0, help="seconds one cell may take (default 120)")
    gs = sub.add_parser("gradescope", help="grade /autograder/submission into /autograder/results/results.json")
    gs.add_argument("--root", type=Path, default=Path("/autograder"))
    return parser


def _options(args: argparse.Namespace) -> grade.GradeOptions:
    return grade.GradeOptions(
        execute=sandbox.Limits(wall_s=args.timeout, memory_mb=args.memory_mb),
        check=sandbox.Limits(wall_s=max(600.0, args.timeout), memory_mb=args.memory_mb, cpus=2.0),
        cell_timeout_s=min(args.cell_timeout, args.timeout),
    )


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "build":
        try:
            root = course_root(args.root)
            notebook = source(args.assignment, root)
            if args.colab:
                print(f"wrote {release.build_colab(notebook, args.out, where=published(root))}")
                return 0
            built = gradescope.build(
                notebook,
                args.out,
                published(root),
                id_field=args.gradescope_id,
                autograder=not args.student_only,
                root=root,
            )
        except ConfigError as exc:
            parser.error(str(exc))
        print(f"wrote {built.student}" + (f" and {built.autograder}" if built.autograder else ""))
        return 0
    if args.command == "key":
        try:
            key = module.KEYS.get(args.assignment) or spec(args.assignment).key
            print(json.dumps(key(args.student_id), indent=2))
        except ConfigError as exc:
            parser.error(str(exc))  # exits with status 2 and the message, not a traceback
        return 0
    if args.command == "gradescope":
        return gradescope.run_autograder(args.root)
    why = sandbox.probe()
    if why is not None:
        parser.error(
            "no sandbox can be made on this machine, and the grader will not run students' code without one "
            f"(see the grading page of the instructor guide): {why}"
        )
    try:
        options = _options(args)
        grades = grade.grade_folder(args.submissions, assignment=args.assignment, jobs=args.jobs, options=options)
    except ConfigError as exc:
        parser.error(str(exc))
    chosen = spec(args.assignment)
    grade.write_csv(grades, args.out, manual=chosen.manual_questions, feedback_dir=args.feedback, params=chosen.params)
    print(f"graded {len(grades)} submissions into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
