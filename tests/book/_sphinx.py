"""A small Sphinx project built in a process of its own, for tests of the book's Sphinx extensions.

Sphinx registers its node classes once per process: a second application in the same process (an
earlier test's, in the same pytest worker) warns that they are registered already. Each build
here is therefore a ``python -m sphinx`` subprocess.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def build(tmp_path: Path, conf: str, pages: dict[str, str]) -> tuple[Path, str]:
    """Write ``conf.py`` and ``pages`` (``{"index.rst": text, ...}``) under ``tmp_path / "src"``; build HTML.

    Returns the HTML folder and the build's warnings (empty text when there were none). Fails the
    test with Sphinx's stderr if the build itself fails.
    """
    src, out, warnings = tmp_path / "src", tmp_path / "out", tmp_path / "warnings.txt"
    src.mkdir()
    (src / "conf.py").write_text(conf, encoding="utf-8")
    for name, text in pages.items():
        (src / name).write_text(text, encoding="utf-8")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-b",
            "html",
            "-E",
            "-q",
            "-w",
            str(warnings),
            "-d",
            str(tmp_path / "doctrees"),
            str(src),
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return out, warnings.read_text(encoding="utf-8")
