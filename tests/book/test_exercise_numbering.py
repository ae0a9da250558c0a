"""The book numbers each page's exercises 1, 2, 3, ... exactly as the student copies do."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from ._sphinx import build

ROOT = Path(__file__).resolve().parents[2]

PAGE = """Page
====

.. exercise::
   :nonumber:
   :label: p-ex1

   First.

.. solution:: p-ex1

   Answer one.

.. exercise::
   :nonumber:
   :label: p-ex2

   Second.

.. solution:: p-ex2

   Answer two.
"""


def test_book_numbers_unnumbered_exercises_per_page(tmp_path: Path) -> None:
    other = PAGE.replace("Page\n====", "Other\n=====").replace("p-ex", "o-ex")
    index = PAGE + "\n.. toctree::\n\n   other\n"
    conf = 'extensions = ["sphinx_exercise", "coursetools.book"]\n'
    out, _ = build(tmp_path, conf, {"index.rst": index, "other.rst": other})
    for page in ("index", "other"):
        html = (out / f"{page}.html").read_text(encoding="utf-8")
        text = re.sub(r"<[^>]+>", "", html)
        titles = re.findall(r"(?:Solution to\s*)?Exercise \d+", text)
        assert [t.split()[-1] for t in titles if t.startswith("Exercise")] == ["1", "2"], (page, titles)
        assert [re.sub(r"\s+", " ", t) for t in titles if t.startswith("Solution")] == [
            "Solution to Exercise 1",
            "Solution to Exercise 2",
        ], (page, titles)


@pytest.mark.parametrize("lab", sorted((ROOT / "labs").glob("0*.ipynb")), ids=lambda p: p.stem)
def test_student_copy_numbers_the_labs_exercises_in_the_same_order(lab: Path) -> None:
    source = "\n".join(c.source for c in nbformat.read(lab, as_version=4).cells if c.cell_type == "markdown")
    labels = re.findall(r"^```\{exercise\}[^\n]*\n(?::[\w-]+:[^\n]*\n)*?:label: ([\w-]+)", source, re.MULTILINE)
    assert labels and "exercise-start" not in source
    student = nbformat.read(ROOT / "student" / lab.name, as_version=4)
    text = "\n".join(c.source for c in student.cells if c.cell_type == "markdown")
    headings = re.findall(r"^### Exercise (\d+) ", text, re.MULTILINE)
    assert headings == [str(i) for i in range(1, len(labels) + 1)]
