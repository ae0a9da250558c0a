"""Phase 2, check: a fresh process the submission never ran in computes the verdict.

Scenario:
    Run inside its own sandbox (read-only, no network, time and memory limits), this module
    imports ``labsupport`` and every assignment's checks and constants *first*, then reads the job
    from standard input: the assignment, the collected id, the answers the host validated, the
    prediction's facts and the design function's source. It computes what every check of the id
    shares (the key, the recorded requests), then runs each check in a forked child of its own
    with a time limit: only the child compiles the student's source (with RestrictedPython,
    :mod:`coursetools.grading.restricted`) and calls it, through the course's step budget
    (:func:`labsupport.strategy.call_strategy`, which every engine uses). A check whose child
    raises, times out or dies scores 0 with a message; the others are not touched. It prints the
    verdict as one line of JSON, which the host parses.
Covers:
    Grading practice (the field's answer: Gradescope's container, RestrictedPython); not the incident.

::

    stdin job --imports first--> prepare(id) --fork per check--> compile restricted + run check --> pipe
        --> {"checks": [{"name", "question", "points", "passed", "message", "seconds"}], "notes": [...]}
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import time
import traceback
from typing import Any

from labsupport.errors import ConfigError
from labsupport.strategy import StrategyTimeout

from .assignments import SPECS
from .notebook import DesignSource
from .restricted import RestrictedError, compile_design
from .spec import Check, Spec

__all__ = ["main", "run_checks"]

#: Longest message a check may report (characters).
MESSAGE_CHARS = 600


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


def _in_child(check: Check, job: dict[str, Any], spec: Spec, timeout_s: float) -> dict[str, Any]:
    """Fork, run ``check`` in the child, read its result through a pipe within ``timeout_s``."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read)
        try:
            data = json.dumps(_one(check, job, spec)).encode()
        except BaseException:  # noqa: BLE001
            data = json.dumps({"passed": False, "message": "the check failed to report"}).encode()
        try:
            os.write(write, data[:65536])
        finally:
            os._exit(0)
    os.close(write)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout_s
    timed_out = False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            break
        ready, _, _ = select.select([read], [], [], left)
        if not ready:
            continue
        chunk = os.read(read, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    if timed_out:
        os.kill(pid, signal.SIGKILL)
    os.close(read)
    _, status = os.waitpid(pid, 0)
    if timed_out:
        return {
            "passed": False,
            "message": f"the check did not finish within {timeout_s:g} s (a function that never ends?)",
        }
    try:
        return json.loads(b"".join(chunks))
    except ValueError:
        how = f"signal {-os.waitstatus_to_exitcode(status)}" if os.WIFSIGNALED(status) else "no result"
        return {"passed": False, "message": f"the check died ({how}; out of memory?)"}


def run_checks(job: dict[str, Any], check_timeout_s: float) -> dict[str, Any]:
    """Every check of the job's assignment, each in a child of its own: the verdict as a dict."""
    spec = SPECS[job["assignment"]]
    out: dict[str, Any] = {"checks": [], "notes": []}
    try:
        spec.prepare(job["student_id"])
    except Exception as exc:  # noqa: BLE001 (the instructor's code: reported, every check then scores 0)
        out["notes"].append(f"the key could not be computed: {type(exc).__name__}: {exc}")
    for check in spec.checks:
        start = time.perf_counter()
        result: dict[str, Any]
        if check.uses == "strategy" and not job["design"]["source"]:
            result = {"passed": False, "message": f"no function {spec.strategy} defined at the top level of a cell"}
        else:
            result = _in_child(check, job, spec, check_timeout_s)
        out["notes"] += [n for n in result.get("notes", []) if n not in out["notes"]]
        out["checks"].append(
            {
                "question": check.question,
                "name": check.name,
                "points": check.points,
                "passed": bool(result.get("passed")),
                "message": str(result.get("message", ""))[:MESSAGE_CHARS],
                "seconds": round(time.perf_counter() - start, 2),
            }
        )
    return out


def main() -> int:
    """Read the job from standard input, print the verdict (one line of JSON)."""
    job = json.loads(sys.stdin.read())
    try:
        verdict = run_checks(job, float(job.get("check_timeout_s", 120.0)))
    except Exception:  # noqa: BLE001 (the host reads the failure from the verdict)
        verdict = {"checks": [], "notes": ["the checking process failed: " + traceback.format_exc()[-800:]]}
    sys.stdout.write(json.dumps(verdict) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
