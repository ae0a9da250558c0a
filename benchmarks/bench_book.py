"""Cold build time of the whole book, as CI builds it, into a temporary folder.

Runs ``jupyter-book build <repo> --path-output <tmp> -W -n --keep-going`` with the jupyter-book of
this Python environment. The output folder is new, so nothing is cached: every notebook and every
chapter's code runs (the build's execution cache lives under ``--path-output``). The repository's
own ``_build/`` is never touched. One run (a build takes minutes); target under 5 minutes on
2 cores. Skip it with ``python benchmarks/run.py --skip-book``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 300.0


def figures() -> list[dict]:
    """Build the book once, cold, and return its row (see ``benchmarks/run.py`` for the format)."""
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    with tempfile.TemporaryDirectory(prefix="book-build-") as out:
        cmd = [str(jupyter_book), "build", str(ROOT), "--path-output", out, "-W", "-n", "--keep-going"]
        t0 = time.perf_counter()
        proc = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            timeout=3600,
            cwd=ROOT,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        )
        seconds = time.perf_counter() - t0
        pages = len(list((Path(out) / "_build" / "html").rglob("*.html")))
    log = proc.stdout + proc.stderr
    # Sphinx's warnings ("file:line: WARNING: ..."), not the kernels' start-up notices ("[IPKernelApp] WARNING").
    warnings = sum(1 for line in log.splitlines() if "WARNING:" in line and "[IPKernelApp]" not in line)
    status = "built" if proc.returncode == 0 else f"exit code {proc.returncode}"
    return [
        {
            "figure": "whole book, cold build (jupyter-book build -W -n)",
            "value": seconds,
            "unit": "s",
            "target": TARGET_S,
            "better": "lower",
            "note": f"{status}; {pages} HTML pages; {warnings} warning(s); {os.cpu_count()} CPUs; one run",
        }
    ]
