"""Runs one submission's notebook inside the sandbox and prints what it exports: data, nothing else.

This file is bound alone into the sandbox (``/grader/runner.py``) and imports nothing of the
course: it reads its job from standard input (the code cells' sources, the expressions to export, a
per-cell timeout, a nonce), runs them top to bottom in a fresh kernel with nbclient
(a cell that raises does not stop the run; a cell that takes too long is interrupted), then asks
the kernel for each expression's type and value, and prints one line::

    <nonce> {"answers": {...}, "student_id": ..., "errors": {cell: error name}, "timeouts": [...]}

The kernel's own output goes to /dev/null; the line goes to a copy of standard output the kernel
does not inherit, and the runner makes itself non-dumpable, so that the kernel can neither open that
copy through ``/proc`` nor read the nonce from the runner's memory. After each cell every other
process of the sandbox's user is killed (the kernel, the runner and the sandbox's init aside): a
background process or a fork bomb's children end with the cell that started them. Everything in
the line comes from the submission's kernel and is treated by the host as the student's claim: the
host validates every value against the assignment's schema, and the verdict is computed elsewhere.
"""

from __future__ import annotations

import json
import os
import signal
import sys

_EXPORT = r"""
def _grader_export(expressions):
    import json as _json
    import math as _math
    out = {}
    for name, expression in expressions:
        try:
            value = eval(expression, globals())
        except BaseException as exc:
            out[name] = {"error": type(exc).__name__}
            continue
        kind = type(value)
        if value is None:
            out[name] = {"kind": "none", "value": None}
        elif kind is bool:
            out[name] = {"kind": "bool", "value": value}
        elif kind is int:
            out[name] = {"kind": "int", "value": value if abs(value) < 10**18 else None}
        elif isinstance(value, float):
            v = float(value)
            out[name] = {"kind": "float", "value": v if _math.isfinite(v) else repr(v)}
        elif kind is str:
            out[name] = {"kind": "str", "value": value[:1000]}
        elif kind in (list, tuple):
            out[name] = {"kind": "list", "value": [v[:50] if type(v) is str else repr(v)[:50] for v in value[:20]]}
        else:
            out[name] = {"kind": kind.__module__ + "." + kind.__qualname__, "value": None}
    sid = globals().get("STUDENT_ID")
    return _json.dumps({"answers": out, "student_id": sid if type(sid) is str else repr(sid)[:200]})
print(_grader_export(%s))
"""


def _uid(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("Uid:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def reap_strays(keep: set[int]) -> int:
    """SIGKILL every process of this user but ``keep`` (the runner, its parent, the kernel, the
    sandbox's init), until none is left; return how many there were. Run after each cell, so that
    nothing a cell starts (a background shell, a fork bomb's children) lives on into the next one."""
    me, killed = os.getuid(), set()
    for _ in range(50):
        strays = [
            pid
            for pid in (int(p) for p in os.listdir("/proc") if p.isdigit())
            if pid not in keep and pid != 1 and _uid(pid) == me
        ]
        if not strays:
            break
        for pid in strays:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except OSError:
                pass
    return len(killed)


def undumpable() -> None:
    """Make this process non-dumpable (``prctl(PR_SET_DUMPABLE, 0)``): a process of the same user
    without capabilities, as the kernel and all it starts are, can then neither read its memory
    (the nonce) nor open its descriptors through ``/proc/<pid>/fd`` (the report). A program it
    starts with exec, the kernel, is dumpable again: only the runner is closed."""
    import ctypes

    if ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0) != 0:  # 4: PR_SET_DUMPABLE
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")


def main() -> int:
    undumpable()
    job = json.loads(sys.stdin.read())
    sys.stdin.close()
    report = os.fdopen(os.dup(1), "w")  # not inheritable: the kernel never holds it
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    # A fresh notebook of the code the host read, nothing else of the submitted file: no metadata,
    # tags or outputs, and no other format's cells (an nbformat 3 file's worksheets), so that the
    # kernel runs exactly the code the grader read and flagged.
    positions = [int(i) for i, _ in job["cells"]]
    nb = nbformat.v4.new_notebook(
        cells=[*(nbformat.v4.new_code_cell(str(src)) for _, src in job["cells"]),
               nbformat.v4.new_code_cell(_EXPORT % json.dumps(job["expressions"]))],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
    )  # fmt: skip
    client = NotebookClient(
        nb,
        timeout=job["cell_timeout_s"],
        kernel_name="python3",
        allow_errors=True,
        interrupt_on_timeout=True,
        resources={"metadata": {"path": os.getcwd()}},
    )
    result: dict = {"answers": {}, "student_id": None, "errors": {}, "notes": []}
    strays = [0]

    def after_cell(**_: object) -> None:
        kernel = getattr(getattr(client.km, "provisioner", None), "process", None)
        keep = {os.getpid(), os.getppid(), *([kernel.pid] if kernel is not None else [])}
        strays[0] += reap_strays(keep)

    client.on_cell_executed = after_cell
    try:
        client.execute()
    except (CellTimeoutError, DeadKernelError, RuntimeError) as exc:
        result["notes"].append(f"the kernel stopped: {type(exc).__name__}")
    except Exception as exc:  # noqa: BLE001 (reported: the host scores what was established)
        result["notes"].append(f"the run failed: {type(exc).__name__}: {str(exc)[:200]}")
    for position, cell in zip(positions, nb.cells, strict=False):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                result["errors"][str(position)] = str(output.get("ename", "error"))[:80]
    for output in nb.cells[-1].get("outputs", []):
        if output.get("output_type") == "stream" and output.get("name") == "stdout":
            try:
                exported = json.loads(output.get("text", "").strip().splitlines()[-1])
                result["answers"], result["student_id"] = exported["answers"], exported["student_id"]
            except (ValueError, KeyError, IndexError, TypeError):
                result["notes"].append("the export printed something else")
    if strays[0]:
        result["notes"].append(f"{strays[0]} processes a cell started were stopped when it ended")
    report.write(job["nonce"] + " " + json.dumps(result) + "\n")
    report.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
