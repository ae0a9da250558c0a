"""Phase 2, check: a fresh process the submission never ran in reads its code and computes the verdict.

Scenario:
    Run inside its own sandbox (read-only, no network, time and memory limits), this module imports
    ``labsupport`` and every assignment's checks and constants *first*, then reads the job from
    standard input: the assignment, the collected id, the notebook's code cells as text and a nonce,
    and later, on a second line, the answers the host validated and the prediction's facts, once
    the notebook's run is over (the design function's checks run meanwhile). It computes what every
    check of the id shares (the key, the recorded requests), then parses the cells
    (:func:`coursetools.grading.notebook.read`: the design function's source, the prediction's
    order, the flags; here, under a time limit, never on the host), then runs each check in a
    forked child of its own, two at a time, with a time limit: only the child compiles the student's
    source (with RestrictedPython, :mod:`coursetools.grading.restricted`) and calls it, through the
    course's step budget (:func:`labsupport.strategy.call_strategy`, which every engine uses), after
    sealing itself (:func:`_seal`: no standard output; a child that runs the student's function can
    open no file either). A check whose child
    raises, times out or dies scores 0 with a message; the others are not touched. The process is
    non-dumpable, so no child can reach it through ``/proc``. It prints the verdict as one line,
    the nonce and its JSON, which the host parses.
Covers:
    Grading practice (the field's answer: Gradescope's container, RestrictedPython); not the incident.

::

    stdin line 1 (id, code cells, nonce) --imports first--> prepare(id) --read (parse)--> design source, flags
        --fork per check, sealed--> compile restricted + run
    stdin line 2 (validated answers, prediction facts) --fork per check--> the answers' checks --> pipe
        --> "<nonce> {"checks": [{"name", "question", "points", "passed", "message", "seconds"}], "notes": [...],
                      "reading": {"flags": [...], "tokens": [...]}}"
"""

from __future__ import annotations

import json
import os
import resource
import select
import signal
import sys
import time
import traceback
from typing import Any

from labsupport.errors import ConfigError
from labsupport.strategy import StrategyTimeout

from . import similarity
from .assignments import SPECS
from .limits import undumpable
from .notebook import Cells, DesignSource, Reading, read
from .restricted import RestrictedError, compile_design
from .spec import Check, Spec

__all__ = ["main", "run_checks"]

#: Longest message a check may report (characters): room for a counterexample told step by step
#: (lab 08's checks name each Enactor's operations on the shortest path, some 900 characters).
MESSAGE_CHARS = 1200
#: Seconds this process may spend parsing the notebook's code cells before it gives up on them.
READ_S = 60.0


def _message(exc: BaseException) -> str:
    if isinstance(exc, AssertionError):
        text = str(exc) or "the check failed"
    elif isinstance(exc, StrategyTimeout):
        text = f"your function did not answer within the step budget: {exc}"
    elif isinstance(exc, ConfigError):
        text = f"your function failed when the model called it: {exc}"
    elif isinstance(exc, RestrictedError):
        text = f"your function could not be graded: {exc}"
    elif isinstance(exc, MemoryError):
        text = "your function used more memory than the grader allows"
    elif isinstance(exc, RecursionError):
        text = "your function recursed too deeply"
    else:
        text = f"the check raised {type(exc).__name__}: {exc}"
    return text[:MESSAGE_CHARS]


def _one(check: Check, job: dict[str, Any], spec: Spec) -> dict[str, Any]:
    """Run one check (in the child): returns ``{"passed", "message"}``."""
    sid = job["student_id"]
    notes: list[str] = []
    try:
        if check.uses == "strategy":
            fn, notes = compile_design(DesignSource(**job["design"]))
            check.run(fn, sid)
        elif check.uses == "prediction":
            check.run(job["prediction"], sid)
        else:
            check.run(job["answers"], sid)
    except BaseException as exc:  # noqa: BLE001 (the child reports every failure, then exits)
        return {"passed": False, "message": _message(exc), "notes": notes}
    return {"passed": True, "message": "", "notes": notes}


def _seal(report: int, *, no_files: bool) -> int:
    """In a check's child, before any of the student's code: standard input, output and error become
    ``/dev/null``, every other descriptor is closed but ``report`` (moved to 3), and, with
    ``no_files`` (the checks that call the student's function), no file can be opened any more
    (``RLIMIT_NOFILE`` 4); the other checks run no code of the student's and may read the
    course's data (the quiz's key). A function that got out of RestrictedPython could then
    neither write the phase's verdict (the host reads standard output), nor read the next line of
    the job, nor open a file (the key on disk, ``/proc/<parent>``): it could only spoil its own
    check's report. What a check that calls the student's function needs is loaded before the fork."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.dup2(report, 3)
    os.closerange(4, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
    if no_files:
        resource.setrlimit(resource.RLIMIT_NOFILE, (4, 4))
    return 3


class _Child:
    """One check running in a forked child: its pid, the pipe it reports through, its deadline."""

    def __init__(self, check: Check, job: dict[str, Any], spec: Spec, timeout_s: float) -> None:
        self.check, self.timeout_s = check, timeout_s
        self.start = time.perf_counter()
        self.deadline = time.monotonic() + timeout_s
        self.chunks: list[bytes] = []
        read, write = os.pipe()
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            write = _seal(write, no_files=check.uses == "strategy")
            try:
                data = json.dumps(_one(check, job, spec)).encode()
            except BaseException:  # noqa: BLE001
                data = json.dumps({"passed": False, "message": "the check failed to report"}).encode()
            try:
                os.write(write, data[:65536])
            finally:
                os._exit(0)
        os.close(write)
        self.pid, self.fd = pid, read

    def result(self, timed_out: bool) -> dict[str, Any]:
        """Reap the child (killed first if ``timed_out``) and read what it reported."""
        if timed_out:
            os.kill(self.pid, signal.SIGKILL)
        os.close(self.fd)
        _, status = os.waitpid(self.pid, 0)
        if timed_out:
            never = f"the check did not finish within {self.timeout_s:g} s (a function that never ends?)"
            return {"passed": False, "message": never}
        try:
            return json.loads(b"".join(self.chunks))
        except ValueError:
            how = f"signal {-os.waitstatus_to_exitcode(status)}" if os.WIFSIGNALED(status) else "no result"
            return {"passed": False, "message": f"the check died ({how}; out of memory?)"}


def _run_children(
    checks: list[Check], job: dict[str, Any], spec: Spec, timeout_s: float, at_once: int
) -> list[tuple[Check, dict[str, Any], float]]:
    """Run ``checks``, each in a child of its own, ``at_once`` at a time; in the order given."""
    waiting: list[Check] = list(checks)
    running: list[_Child] = []
    done: dict[int, tuple[dict[str, Any], float]] = {}
    while waiting or running:
        while waiting and len(running) < at_once:
            running.append(_Child(waiting.pop(0), job, spec, timeout_s))
        left = max(0.0, min(c.deadline for c in running) - time.monotonic())
        ready, _, _ = select.select([c.fd for c in running], [], [], left)
        for child in list(running):
            finished = False
            if child.fd in ready:
                chunk = os.read(child.fd, 65536)
                child.chunks.append(chunk)
                finished = not chunk
            late = time.monotonic() >= child.deadline
            if finished or late:
                running.remove(child)
                done[id(child.check)] = (
                    child.result(timed_out=late and not finished),
                    time.perf_counter() - child.start,
                )
    return [(c, *done[id(c)]) for c in checks]


def _record(out: dict[str, Any], check: Check, result: dict[str, Any], seconds: float) -> None:
    out["notes"] += [n for n in result.get("notes", []) if n not in out["notes"]]
    out["checks"].append(
        {
            "question": check.question,
            "name": check.name,
            "points": check.points,
            "passed": bool(result.get("passed")),
            "message": str(result.get("message", ""))[:MESSAGE_CHARS],
            "seconds": round(seconds, 2),
        }
    )


def _read(job: dict[str, Any], spec: Spec, out: dict[str, Any]) -> Reading:
    """Read the notebook's code cells (parsed here, in this sandbox, within :data:`READ_S` seconds)."""

    def late(signum: int, frame: object) -> None:
        raise TimeoutError(f"the notebook's code could not be read within {READ_S:g} s")

    cells = Cells(**{k: list(job["cells"][k]) for k in ("index", "source", "otter")})
    previous = signal.signal(signal.SIGALRM, late)
    signal.setitimer(signal.ITIMER_REAL, READ_S)
    try:
        reading = read(cells, job.get("pinned"), spec.strategy)
    except Exception as exc:  # noqa: BLE001 (hostile text: the student's loss, said in the flags)
        out["notes"].append(f"the notebook's code could not be read: {type(exc).__name__}: {str(exc)[:200]}")
        reading = Reading(DesignSource(spec.strategy or ""))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    try:
        out["reading"]["tokens"] = similarity.normalise(reading.design)[: similarity.MAX_TOKENS]
    except Exception:  # noqa: BLE001 (an answer too deep to normalise is compared with nothing)
        out["reading"]["tokens"] = []
    out["reading"]["flags"] = reading.flags[:50]
    return reading


def run_checks(job: dict[str, Any], check_timeout_s: float, answers: Any = None) -> dict[str, Any]:
    """Every check of the job's assignment, each in a child of its own: the verdict as a dict.

    The job holds the notebook's code cells as text (``job["cells"]``: ``index``, ``source``,
    ``otter``) and the index of the ``STUDENT_ID`` cell the grader wrote (``job["pinned"]``): this
    process parses them, after loading the checks and computing the key, and returns what it read
    for the instructor in ``verdict["reading"]`` (``flags``, and ``tokens``: the design answer
    normalised for the likeness check). The design function's checks need nothing of the notebook's
    run, so they start at once; ``answers`` (a callable) is called only then, for what the run
    exported (the answers, the prediction's facts), which the other checks need; without it they
    are read from ``job``.
    """
    spec = SPECS[job["assignment"]]
    out: dict[str, Any] = {"checks": [], "notes": [], "reading": {"flags": [], "tokens": []}}
    try:
        spec.prepare(job["student_id"])
    except Exception as exc:  # noqa: BLE001 (the instructor's code: reported, every check then scores 0)
        out["notes"].append(f"the key could not be computed: {type(exc).__name__}: {exc}")
    reading = _read(job, spec, out)
    job = {**job, "design": vars(reading.design)}
    at_once = max(1, min(2, os.cpu_count() or 1))
    results: dict[int, tuple[dict[str, Any], float]] = {}
    design = [c for c in spec.checks if c.uses == "strategy"]
    if design and not reading.design.source:
        missing = {"passed": False, "message": f"no function {spec.strategy} defined at the top level of a cell"}
        results |= {id(c): (missing, 0.0) for c in design}
    else:
        results |= {id(c): (r, t) for c, r, t in _run_children(design, job, spec, check_timeout_s, at_once)}
    if answers is not None:
        job = {**job, **answers()}
    job["prediction"] = {**job.get("prediction", {}), "before_run": reading.before_run}
    rest = [c for c in spec.checks if c.uses != "strategy"]
    results |= {id(c): (r, t) for c, r, t in _run_children(rest, job, spec, check_timeout_s, at_once)}
    for check in spec.checks:
        _record(out, check, *results[id(check)])
    return out


def main() -> int:
    """Read the job from standard input (a first line: the assignment, the id, the notebook's code
    cells and a nonce; a second: what the notebook's run exported), print the verdict: one line, the
    nonce and the verdict's JSON."""
    undumpable()
    job = json.loads(sys.stdin.readline())

    def answers() -> dict[str, Any]:
        line = sys.stdin.readline()
        return json.loads(line) if line.strip() else {"answers": {}, "prediction": {}}

    try:
        verdict = run_checks(job, float(job.get("check_timeout_s", 120.0)), answers)
    except Exception:  # noqa: BLE001 (the host reads the failure from the verdict)
        verdict = {"checks": [], "notes": ["the checking process failed: " + traceback.format_exc()[-800:]]}
    sys.stdout.write(f"{job.get('nonce', '')} {json.dumps(verdict)}\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
