"""No lab writes a file, and neither does the code the labs run (a static check of the source).

A reader runs the labs in their own checkout, on Colab or on a shared JupyterHub: a lab must not
leave files behind or change the repository. This scans every lab's code cells (the shared install
cell of :mod:`coursetools.colab` aside: it runs only where the package is missing) and every module
of :mod:`labsupport`, all of which a lab may import, for calls that write to disk. What does write
files (the book's Sphinx extension into the build output, the student-copy writer into
``student/``, the PDF tool) is the course's machinery, ``coursetools``, which no lab imports. A lab
that really needs a scratch file must use :mod:`tempfile` and mark the line with ``# writes:
temporary folder``.

The timing half of notebook resilience (each lab runs top to bottom after a kernel restart in under
60 s, and leaves no file in its folder) is measured by ``python benchmarks/run.py labs``: it runs
every lab with nbclient in a fresh kernel, in a temporary copy of ``labs/``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from coursetools.colab import LAB_INSTALL_CELL as INSTALL_CELL

ROOT = Path(__file__).resolve().parents[2]
LABS = sorted((ROOT / "labs").glob("*.ipynb"))
#: Every module of the learner's package (the machinery that writes files is coursetools').
MODULES = sorted((ROOT / "labsupport").rglob("*.py"))
ALLOWED = "# writes: temporary folder"

#: Calls that write or delete files, or make a library write them (Altair's "json" data
#: transformer writes one file per chart into the working folder).
WRITES = re.compile(
    r"""\bopen\s*\((?:[^()]|\([^()]*\))*['"][^'"]*[wax+][^'"]*['"]"""  # open(..., "w"/"a"/"x"/"+")
    r"""|\.write_(?:text|bytes)\s*\("""
    # a pandas writer given a file: its first argument a path, or a path keyword (not index=False, ...)
    r"""|\.to_(?:csv|parquet|json|excel|pickle|feather|hdf|html|latex|markdown|stata|sql|xml|orc)\s*\("""
    r"""\s*(?:(?:path_or_buf|buf|path|excel_writer)\s*=|(?!\w+\s*=)[^)\s])"""
    r"""|\.save\s*\(|\bsavefig\s*\(|\.mkdir\s*\(|\bmakedirs\s*\(|\bshutil\.|\bos\.(?:remove|unlink|rename|replace)\b"""
    r"""|\.unlink\s*\(|\.touch\s*\(|\bnp\.save|\bdump\s*\(|data_transformers\.enable\s*\(\s*['"]json"""
    r"""|^\s*%%writefile|^\s*!|^\s*%(?:pip|conda|sx|system)\b""",
    re.MULTILINE,
)


def code_cells(path: Path) -> list[str]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


def writes_in(source: str) -> list[str]:
    return [line.strip() for line in source.splitlines() if WRITES.search(line) and ALLOWED not in line]


def test_the_pattern_catches_writes():
    for line in (
        'open("out.csv", "w")',
        "df.to_csv('x.csv')",
        "df.to_html(buf='x.html', index=False)",
        "Path('a').write_text('b')",
        "chart.save('c.html')",
        "os.makedirs('d')",
        "!ls",
        "%pip install x",
        'alt.data_transformers.enable("json")',
        "shutil.rmtree(p)",
        "np.save('a', x)",
        "json.dump(x, fh)",
    ):
        assert writes_in(line), line
    for line in (
        "df.to_csv()",
        "open(path)",
        "table.to_html()",
        "shown.to_html(index=False, border=0)",
        "json.dumps(x)",
        "print('write')",
        "opened = 1",
        "spec = chart.to_dict()",
    ):
        assert not writes_in(line), line


@pytest.mark.parametrize("path", LABS, ids=lambda p: p.name)
def test_lab_writes_no_file(path):
    cells = code_cells(path)
    assert cells, f"{path.name} has no code"
    found = [line for cell in cells if cell.strip() != INSTALL_CELL.strip() for line in writes_in(cell)]
    assert not found, f"{path.name} writes files: {found}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_library_writes_no_file(path):
    found = writes_in(path.read_text(encoding="utf-8"))
    assert not found, f"{path.relative_to(ROOT)} writes files: {found}"
