"""The whole of ``.ci/run`` in a fresh copy of the repository (opt-in: it downloads every package).

Copies the files git would commit (tracked, plus untracked files not ignored) into a temporary
folder and runs ``.ci/run`` there: a fresh virtual environment, ``pip install``, the whole test
suite and the book build. Target under 20 minutes. Not part of the default run; ask for it with
``python benchmarks/run.py ci``.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 20 * 60.0


def figures() -> list[dict]:
    """Run ``.ci/run`` once in a copy and return its row (see ``benchmarks/run.py`` for the format)."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.split("\0")
    with tempfile.TemporaryDirectory(prefix="ci-run-") as tmp:
        for name in filter(None, files):
            source = ROOT / name
            if source.is_file():
                (Path(tmp) / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, Path(tmp) / name)
        t0 = time.perf_counter()
        proc = subprocess.run(["bash", ".ci/run"], cwd=tmp, capture_output=True, text=True, timeout=3 * 3600)
        seconds = time.perf_counter() - t0
    stages = [line for line in proc.stdout.splitlines() if line.startswith("== ")]
    status = "passed" if proc.returncode == 0 else f"exit code {proc.returncode}"
    tail = "" if proc.returncode == 0 else "; last output: " + " | ".join(
        (proc.stdout + proc.stderr).strip().splitlines()[-3:])[:300]
    return [{"figure": "whole .ci/run in a fresh copy", "value": seconds, "unit": "s", "target": TARGET_S,
             "better": "lower", "note": f"{status}; stages: {'; '.join(s[3:] for s in stages)}{tail}"}]
