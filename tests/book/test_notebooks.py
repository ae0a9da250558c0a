"""Every notebook of the book is committed clean, is in the table of contents, and is collected."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def _tracked_notebooks() -> list[Path]:
    try:
        out = subprocess.run(
            ["git", "ls-files", "*.ipynb"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        out = []
    found = {
        p.relative_to(ROOT)
        for p in ROOT.rglob("*.ipynb")
        if not any(part.startswith((".", "_build")) for part in p.relative_to(ROOT).parts)
    }
    return sorted(found | {Path(p) for p in out})


NOTEBOOKS = _tracked_notebooks()


def _toc_files() -> set[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files: set[str] = {toc["root"]}

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                files.add(node["file"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(toc)
    return files


def test_there_are_notebooks():
    assert NOTEBOOKS, "the book has no notebooks"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=str)
def test_notebook_is_clean(path):
    nb = json.loads((ROOT / path).read_text(encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert not [i for i, c in enumerate(code) if c.get("outputs")], "committed with outputs"
    assert not [i for i, c in enumerate(code) if c.get("execution_count")], "committed with execution counts"
    assert nb["metadata"].get("kernelspec", {}).get("name") == "python3", "kernelspec must be python3"
    assert "widgets" not in nb["metadata"], "committed with widget state"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=str)
def test_notebook_is_saved_as_jupyter_saves_it(path):
    # nbformat 4.5 with cell ids, in exactly the bytes Jupyter's server writes, so that opening a
    # lab in JupyterLab and saving it without running it leaves git with nothing to show.
    import nbformat

    text = (ROOT / path).read_text(encoding="utf-8")
    nb = nbformat.reads(text, as_version=4)
    assert (nb.nbformat, nb.nbformat_minor) == (4, 5), "not nbformat 4.5"
    assert all(c.get("id") for c in nb.cells), "a cell has no id"
    nbformat.validate(nb)
    assert text == nbformat.writes(nb) + "\n", "not in the format Jupyter saves (rewrite it with nbformat.write)"
    # JupyterLab writes the kernel's own metadata when it connects; store it as ipykernel gives it.
    # Only the Python version can differ on another machine.
    from ipykernel.ipkernel import IPythonKernel

    assert nb.metadata.kernelspec == {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
    expected = {k: v for k, v in IPythonKernel.language_info.items() if k != "version"}
    assert {k: v for k, v in nb.metadata.language_info.items() if k != "version"} == expected


@pytest.mark.parametrize("path", NOTEBOOKS, ids=str)
def test_notebook_is_in_the_book_and_collected(path):
    if path.parts[0] == "student":
        # Student copies are written from the labs (each with its solutions notebook) and from the
        # chapters' exercises (coursetools.student); the book serves them from those pages, and nbval collects them
        # because student/ is in pytest's testpaths.
        chapter = path.name.removeprefix("chapter-").removesuffix(".ipynb")
        lab = (
            path.name.removesuffix("-solutions.ipynb") + ".ipynb"
            if path.name.endswith("-solutions.ipynb")
            else path.name
        )
        assert (ROOT / "labs" / lab).is_file() or (
            path.name.startswith("chapter-") and (ROOT / "chapters" / f"{chapter}.md").is_file()
        ), f"{path} is the copy (or the solutions) of no lab, and the copy of no chapter"
        testpaths = __import__("tomllib").loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"][
            "testpaths"
        ]
        assert "student" in testpaths, "student/ is not in pytest's testpaths"
        return
    if path.parts[0] == "assignments":
        # An assignment's source is otter-grader's input, not a page: the book leaves it out, and
        # tests/grading builds it with otter assign and grades submissions made from it with the
        # course's grader (coursetools.grading).
        config = (ROOT / "_config.yml").read_text(encoding="utf-8")
        assert re.search(r"^exclude_patterns:.*\bassignments\b", config, re.MULTILINE), "the book reads assignments/"
        from coursetools.grading.assignments import SPECS

        assert path.parent.name in SPECS, f"{path} is no assignment that python -m coursetools.grading knows"
        return
    assert str(path.with_suffix("")) in _toc_files(), f"{path} is not in _toc.yml"
    # pytest's testpaths include labs/, so nbval collects every notebook there.
    assert path.parts[0] == "labs", f"{path} lies outside labs/, where nbval does not look"


def test_every_toc_entry_exists():
    for name in _toc_files():
        matches = [p for p in (ROOT / f"{name}.md", ROOT / f"{name}.ipynb") if p.exists()]
        assert matches, f"_toc.yml names {name}, which does not exist"
