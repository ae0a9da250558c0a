"""The student notebooks: up to date with the labs, plain CommonMark, links to the published book.

Like Neuromatch's nmaci check, :func:`test_student_notebooks_are_up_to_date` fails when a lab (or
the setting in ``_config.yml``) changed and ``student/`` was not rewritten: run
``python -m labsupport.student`` (the book build does it too) and commit ``student/``. The notebooks
themselves run top to bottom under nbval (``student`` is in pytest's ``testpaths``).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from markdown_it import MarkdownIt

from labsupport.colab import Published, published, student_install_cell
from labsupport.errors import ConfigError
from labsupport.student import constraints_text, convert, convert_markdown, problems, write_all

ROOT = Path(__file__).resolve().parents[2]
LABS = sorted((ROOT / "labs").glob("*.ipynb"))
WHERE = published()
md = MarkdownIt("commonmark")


def test_student_notebooks_are_up_to_date():
    stale = write_all(ROOT, check=True)
    assert not stale, f"out of date with labs/: {stale}; run `python -m labsupport.student` and commit student/"


def test_constraints_are_the_tested_set():
    text = (ROOT / "student" / "constraints.txt").read_text(encoding="utf-8")
    assert text == constraints_text(), (
        "student/constraints.txt differs from the versions installed here (the ones the tests ran with); "
        "run `python -m labsupport.student --freeze`"
    )
    assert "-c student/constraints.txt" in (ROOT / "requirements.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("lab", LABS, ids=lambda p: p.name)
def test_student_notebook_reads_right_without_myst(lab):
    source = nbformat.read(lab, as_version=4)
    student = nbformat.read(ROOT / "student" / lab.name, as_version=4)
    assert problems(student) == []
    html = "\n".join(md.render(c.source) for c in student.cells if c.cell_type == "markdown")
    # Exercises: numbered headings, in order, with their grade; one folded solution each.
    n_exercises = sum(c.source.count("```{exercise}") for c in source.cells)
    headings = re.findall(r"<h3>Exercise (\d+) \(((?:Simple|Moderate|Advanced)[^)]*)\)</h3>", html)
    assert [int(n) for n, _ in headings] == list(range(1, n_exercises + 1))
    assert html.count("<details>") == html.count("<summary>Solution</summary>") == n_exercises
    # Every relative link now points at the published book.
    hrefs = re.findall(r'href="([^"]+)"', html)
    assert hrefs and all(h.startswith(WHERE.book_url) for h in hrefs)
    # Every cell that prints numbers is kept, with its code visible; no output is committed.
    printers = [c.source for c in source.cells if c.cell_type == "code" and c.source.startswith("Markdown(")]
    kept = [c for c in student.cells if c.cell_type == "code" and c.source.startswith("Markdown(")]
    assert [c.source for c in kept] == printers and not any(c.metadata.get("jupyter") for c in kept)
    assert all(
        not c.get("outputs") and c.get("execution_count") is None for c in student.cells if c.cell_type == "code"
    )
    # The solution code cells say which exercise they solve.
    solutions = [
        c.source.splitlines()[0] for c in student.cells if c.cell_type == "code" and c.source.startswith("# Solution")
    ]
    assert all(re.match(r"# Solution to Exercise [1-9]: ", line) for line in solutions)
    assert student.cells[2].source == student_install_cell(WHERE)


def test_problems_finds_myst_leftovers_and_relative_links():
    lab = nbformat.read(LABS[1], as_version=4)
    found = problems(lab)
    assert any("MyST syntax" in p for p in found) and any("not an absolute https" in p for p in found)
    cell = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("A {term}`lease` and {glue:text}`x:.1f`")])
    assert len(problems(cell)) >= 2


def test_convert_markdown_turns_directives_and_links_into_commonmark():
    where = Published(repository_url="https://github.com/o/r")
    text = (
        "```{note}\nSee [lease](../chapters/glossary.md#term-Lease).\n```\n"
        "```{exercise}\n:label: x1\n\n**(Moderate, design)** Why?\n```\n"
        "```{solution} x1\n:class: dropdown\n\nBecause [Lab 1](01-enactor-race.ipynb).\n```"
    )
    out = convert_markdown(text, where)
    assert "> **Note**\n>\n> See [lease](https://o.github.io/r/chapters/glossary.html#term-Lease)." in out
    assert "### Exercise 1 (Moderate, design)\n\nWhy?" in out
    assert (
        "<details>\n<summary>Solution</summary>\n\nBecause [Lab 1](https://o.github.io/r/labs/01-enactor-race.html).\n\n</details>"
        in out
    )


@pytest.mark.parametrize(
    "text, message",
    [
        ("```{figure} x.png\n```", "directive must be one of"),
        ("```{exercise}\n:label: a\n\nNo grade.\n```", "grade"),
        ("```{solution} nowhere\nText\n```", "solution label"),
        ("[x](../README.md)", "relative link"),
        ("[x](../chapters/no-such-page.md)", "relative link"),
    ],
)
def test_convert_refuses_what_it_cannot_make_portable(text, message):
    with pytest.raises(ConfigError, match=message):
        convert_markdown(text, WHERE)


def test_convert_needs_the_title_and_install_cells():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")])
    with pytest.raises(ConfigError, match="title"):
        convert(nb, WHERE, lab="x.ipynb")
