"""Each lab as a reader meets it: one widget update, and the whole notebook after a kernel restart.

* **Widget update** at the lab's default settings: the panel's own callback
  (``panel.update(**panel.values())``), which runs the model and builds the charts, plus what the
  front end needs (each chart's Vega-Lite spec, each table's HTML). Median and p90 of 15 updates;
  the targets are the ones the model issues set.
* **Top to bottom after a kernel restart**: nbclient runs the notebook in a fresh kernel (start-up
  included), in a temporary copy of ``labs/``, once; target under 60 s. Any file the run leaves in
  that folder is counted (target: none); ``tests/book/test_lab_resilience.py`` checks the source for
  writes elsewhere.

Adding a lab is one line in :data:`LABS`.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import sys
import tempfile
import time
from pathlib import Path

from _timing import repeat

ROOT = Path(__file__).resolve().parents[1]

#: lab notebook -> (panel factory in labsupport.widgets, median target in seconds, where it comes from)
LABS: dict[str, tuple[str, float, str]] = {
    "00-timeline": ("timeline_panel", 0.5, "none: no model issue sets one, 0.5 s assumed"),
    "01-enactor-race": ("race_panel", 0.3, "issue 3"),
    "02-dwfm-collapse": ("dwfm_panel", 0.5, "issue 4"),
    "03-nlb-flapping": ("nlb_panel", 0.5, "issue 5"),
    "04-dns-caches": ("dns_panel", 0.5, "issue 5"),
    "05-six-stop-points": ("chain_panel", 1.0, "issue 6"),
    "06-every-interleaving": ("explore_panel", 0.5, "issue 7"),
    "07-game-day": ("game_panel", 0.3, "issue 24 (clock steps; an action re-runs the chain)"),
}
NOTEBOOK_TARGET_S = 60.0


def _widget_rows(lab: str, factory: str, target: float, source: str) -> list[dict]:
    from labsupport import widgets

    with contextlib.redirect_stdout(io.StringIO()):  # outside a kernel, display() prints
        panel = getattr(widgets, factory)()
    values = panel.values()

    def change() -> None:
        with contextlib.redirect_stdout(io.StringIO()):
            items = panel.update(**values)
        for item in items:
            if hasattr(item, "to_dict"):
                item.to_dict()
            elif hasattr(item, "to_html"):
                item.to_html()

    t = repeat(change, runs=15, warmup=2)
    return [
        {
            "figure": f"lab {lab[:2]} widget update, median",
            "value": t["median"],
            "unit": "s",
            "target": target,
            "better": "lower",
            "note": f"{factory} at its defaults: model run + charts + Vega-Lite spec; target source: {source}",
        },
        {
            "figure": f"lab {lab[:2]} widget update, p90",
            "value": t["p90"],
            "unit": "s",
            "target": None,
            "better": "lower",
        },
    ]


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}


def _notebook_row(lab: str) -> tuple[dict, list[str]]:
    import nbformat
    from jupyter_client import KernelManager
    from nbclient import NotebookClient

    with tempfile.TemporaryDirectory(prefix="lab-run-") as tmp:
        folder = Path(tmp) / "labs"
        shutil.copytree(ROOT / "labs", folder, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        before = _files(folder)
        nb = nbformat.read(folder / f"{lab}.ipynb", as_version=4)
        # IPC sockets in the temporary folder, not TCP ports: other kernels starting on the same
        # machine cannot take a port between its choice and its use (a kernel that never answers).
        km = KernelManager(kernel_name="python3", transport="ipc")
        km.connection_file, km.ip = str(Path(tmp) / "kernel.json"), str(Path(tmp) / "kernel-ipc")
        client = NotebookClient(
            nb, km=km, timeout=300, startup_timeout=120, resources={"metadata": {"path": str(folder)}}
        )
        t0 = time.perf_counter()
        error = ""
        try:
            client.execute()
        except Exception as err:  # noqa: BLE001 - report it in the row; the benchmark asserts nothing
            error = f"; FAILED: {type(err).__name__}: {str(err).splitlines()[0][:120]}"
        seconds = time.perf_counter() - t0
        new = sorted(_files(folder) - before)
    cells = sum(c.cell_type == "code" for c in nb.cells)
    return (
        {
            "figure": f"lab {lab[:2]} top to bottom, fresh kernel",
            "value": seconds,
            "unit": "s",
            "target": NOTEBOOK_TARGET_S,
            "better": "lower",
            "note": f"{cells} code cells, kernel start included, one run{error}",
        },
        new,
    )


def figures() -> list[dict]:
    """Measure and return the rows (see ``benchmarks/run.py`` for the format)."""
    rows = []
    for lab, (factory, target, source) in LABS.items():
        rows += _widget_rows(lab, factory, target, source)
    written: dict[str, list[str]] = {}
    for lab in LABS:
        print(f"    running {lab} in a fresh kernel ...", file=sys.stderr, flush=True)
        row, new = _notebook_row(lab)
        rows.append(row)
        written[lab] = new
        print(f"    ran {lab} in {row['value']:.1f} s", file=sys.stderr, flush=True)
    count = sum(map(len, written.values()))
    rows.append(
        {
            "figure": "files the labs left in their folder",
            "value": count,
            "unit": "files",
            "target": 0,
            "better": "lower",
            "note": "; ".join(f"{k}: {v}" for k, v in written.items() if v)
            or "none (each lab ran in a temporary copy of labs/)",
        }
    )
    return rows
