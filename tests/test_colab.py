"""Every lab starts with the install cell of labsupport.colab, and that cell only installs when needed."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest
import yaml
from IPython.core.inputtransformer2 import TransformerManager

from labsupport.colab import BRANCH, INSTALL_CELL, INSTALL_CELL_TAGS, REPOSITORY_URL, install_cell

ROOT = Path(__file__).resolve().parents[1]
LABS = sorted((ROOT / "labs").glob("*.ipynb"))


def test_the_cell_installs_from_the_books_repository():
    repo = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["repository"]
    assert (REPOSITORY_URL, BRANCH) == (repo["url"], repo["branch"])
    assert f'"labsupport @ git+{REPOSITORY_URL}@{BRANCH}"' in INSTALL_CELL


@pytest.mark.parametrize("path", LABS, ids=lambda p: p.name)
def test_lab_starts_with_the_install_cell(path):
    nb = nbformat.read(path, as_version=4)
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# "), "no title cell"
    first = nb.cells[1]
    assert first.cell_type == "code" and first.source == INSTALL_CELL, (
        f"{path.name}: the cell after the title must be labsupport.colab.INSTALL_CELL, verbatim"
    )
    assert set(INSTALL_CELL_TAGS) <= set(first.metadata.get("tags", [])), "install cell not tagged remove-cell"


def _run(cell: str, namespace_modules: dict[str, object | None]) -> list[tuple[str, str]]:
    """Run the cell's Python (magics turned into calls, as IPython does); return the magics it ran."""
    calls: list[tuple[str, str]] = []

    class Shell:
        def run_line_magic(self, name: str, line: str) -> None:
            calls.append((name, line))

    code = TransformerManager().transform_cell(cell)
    saved_modules = {name: sys.modules.get(name, KeyError) for name in namespace_modules}
    saved_path = list(sys.path)
    try:
        for name, module in namespace_modules.items():
            if module is KeyError:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module  # None makes `import name` raise ModuleNotFoundError
        exec(compile(code, "<install cell>", "exec"), {"get_ipython": lambda: Shell()})
    finally:
        sys.path[:] = saved_path
        for name, module in saved_modules.items():
            if module is KeyError:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
    return calls


def test_the_cell_does_nothing_where_labsupport_is_importable():
    import labsupport

    assert _run(INSTALL_CELL, {"labsupport": labsupport}) == []


def test_the_cell_installs_where_labsupport_is_missing():
    calls = _run(INSTALL_CELL, {"labsupport": None, "google.colab": KeyError})
    assert len(calls) == 1
    name, line = calls[0]
    assert name == "pip" and line.startswith("install ")
    assert f"git+{REPOSITORY_URL}@{BRANCH}" in line and "myst-nb" in line


def test_install_cell_helper_is_clean():
    cell = install_cell()
    assert cell.source == INSTALL_CELL and cell.outputs == [] and cell.execution_count is None
    assert cell.metadata["tags"] == list(INSTALL_CELL_TAGS)
