"""What a learner waits for before anything runs: the first import, and a lab's kernel start.

* **First import**: ``python -c "import labsupport.charts, labsupport.widgets"`` in a fresh
  interpreter (what a lab's imports cell asks of the package), median and p90 of 15 runs, wall time
  and the interpreter's CPU time (user + system: what the import costs, whatever else the machine
  is doing; on a shared machine the wall time varies far more). Beside it,
  the same interpreter importing only the libraries those two modules stand on (altair, pandas,
  numpy, ipywidgets, IPython's display), the floor that no change inside ``labsupport`` can go
  below, and labsupport's own share: the self time of its modules in one ``python -X importtime``
  run, and how many of its modules the first import loads.
* **A lab's kernel start**: a fresh ``python3`` kernel started in ``labs/``, and the lab's code cells
  up to and including the first that imports from ``labsupport`` (its install guard and its imports
  cell) executed; from the start request to the last reply. Median of 3 per lab.

``BENCH_SRC=<checkout>`` times another checkout's ``labsupport`` (put first on ``PYTHONPATH`` for the
interpreters and kernels started here): how the figures of the commit before a change are taken,
side by side, in one quiet run.
"""

from __future__ import annotations

import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: What a lab's imports cell asks of the package.
FIRST_IMPORT = "import labsupport.charts, labsupport.widgets"
#: The libraries those modules stand on: no change inside labsupport makes the first import faster than this.
FLOOR_IMPORT = "import altair, pandas, numpy, ipywidgets, IPython.display"
RUNS = 15
KERNEL_RUNS = 3


def _env() -> dict[str, str]:
    env = dict(os.environ)
    src = os.environ.get("BENCH_SRC")
    if src:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(src).resolve()), env.get("PYTHONPATH")]))
    return env


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _wall(code: str, runs: int = RUNS) -> dict[str, float]:
    """Median and p90 wall time of ``python -c code`` in a fresh interpreter, and its median CPU time."""
    times, cpu = [], []
    for _ in range(runs):
        t0, c0 = time.perf_counter(), _cpu()
        subprocess.run([sys.executable, "-c", code], check=True, env=_env(), cwd=ROOT / "labs")
        times.append(time.perf_counter() - t0)
        cpu.append(_cpu() - c0)
    times.sort()
    return {
        "median": statistics.median(times),
        "p90": times[min(len(times) - 1, int(0.9 * len(times)))],
        "cpu": statistics.median(cpu),
    }


def _own_share() -> tuple[float, int, str]:
    """labsupport's self time in one ``-X importtime`` run of :data:`FIRST_IMPORT`, its modules loaded, where from."""
    code = f"{FIRST_IMPORT}\nimport sys\nprint(sys.modules['labsupport'].__file__)"
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env=_env(),
        cwd=ROOT / "labs",  # not the root, whose labsupport/ a ``-c`` interpreter finds first
    )
    rows = re.findall(r"import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)", done.stderr)
    own = [(int(us), name) for us, name in rows if name == "labsupport" or name.startswith("labsupport.")]
    return sum(us for us, _ in own) / 1e6, len(own), str(Path(done.stdout.strip()).parent)


def _import_cells(lab: Path) -> list[str]:
    """The lab's code cells up to and including the first that imports from labsupport's modules."""
    cells = [c for c in json.loads(lab.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
    out = []
    for cell in cells:
        source = "".join(cell["source"])
        out.append(source)
        if re.search(r"^from labsupport(\.\w+)* import", source, re.MULTILINE):
            break
    return out


def _kernel_start(lab: Path) -> tuple[float, float]:
    """Wall time from the start request to the last imports cell's reply, and the kernel's CPU time
    (user + system, counted when the kernel process has ended, its shutdown included)."""
    from jupyter_client import KernelManager

    with tempfile.TemporaryDirectory(prefix="kernel-start-") as tmp:
        # IPC sockets in the temporary folder, not TCP ports (as bench_labs does).
        km = KernelManager(kernel_name="python3", transport="ipc")
        km.connection_file, km.ip = str(Path(tmp) / "kernel.json"), str(Path(tmp) / "kernel-ipc")
        t0, c0 = time.perf_counter(), _cpu()
        km.start_kernel(cwd=str(lab.parent), env=_env())
        client = km.client()
        try:
            client.start_channels()
            client.wait_for_ready(timeout=120)
            for source in _import_cells(lab):
                reply = client.execute_interactive(source, timeout=120, output_hook=lambda msg: None)
                if reply["content"]["status"] != "ok":
                    raise RuntimeError(f"{lab.name}: an import cell failed: {reply['content'].get('evalue')}")
            wall = time.perf_counter() - t0
        finally:
            client.stop_channels()
            km.shutdown_kernel(now=True)
    return wall, _cpu() - c0


def figures() -> list[dict]:
    """Measure and return the rows (see ``benchmarks/run.py`` for the format)."""
    own_s, modules, where = _own_share()
    first, floor = _wall(FIRST_IMPORT), _wall(FLOOR_IMPORT)
    rows = [
        {
            "figure": "first import (labsupport.charts, labsupport.widgets), median",
            "value": first["median"],
            "unit": "s",
            "target": None,
            "better": "lower",
            "note": f"fresh interpreter, {RUNS} runs; labsupport from {where}",
        },
        {"figure": "first import, p90", "value": first["p90"], "unit": "s", "target": None, "better": "lower"},
        {
            "figure": "first import, CPU time (user + system), median",
            "value": first["cpu"],
            "unit": "s",
            "target": None,
            "better": "lower",
        },
        {
            "figure": "the libraries alone (altair, pandas, numpy, ipywidgets), median",
            "value": floor["median"],
            "unit": "s",
            "target": None,
            "better": "lower",
            "note": "the floor of the first import: what labsupport's modules stand on",
        },
        {
            "figure": "the libraries alone, CPU time (user + system), median",
            "value": floor["cpu"],
            "unit": "s",
            "target": None,
            "better": "lower",
        },
        {
            "figure": "labsupport's own self time in the first import",
            "value": own_s,
            "unit": "s",
            "target": None,
            "better": "lower",
            "note": f"one python -X importtime run: {modules} labsupport modules loaded",
        },
    ]
    for lab in sorted((ROOT / "labs").glob("[0-9][0-9]-*.ipynb")):
        print(f"    starting a kernel for {lab.stem} ...", file=sys.stderr, flush=True)
        runs = [_kernel_start(lab) for _ in range(KERNEL_RUNS)]
        times = sorted(wall for wall, _ in runs)
        each = ", ".join(f"{t:.2f}" for t in times)
        rows.append(
            {
                "figure": f"lab {lab.name[:2]} kernel start and imports cells, median",
                "value": statistics.median(times),
                "unit": "s",
                "target": None,
                "better": "lower",
                "note": f"{len(_import_cells(lab))} cells, {KERNEL_RUNS} runs: {each} s",
            }
        )
        rows.append(
            {
                "figure": f"lab {lab.name[:2]} kernel's CPU time (user + system), median",
                "value": statistics.median(cpu for _, cpu in runs),
                "unit": "s",
                "target": None,
                "better": "lower",
            }
        )
    return rows
