"""A lab as two notebooks for students: the copy they work in, and its solutions notebook.

A lab's exercise is a run of cells (``tests/book/test_exercises.py`` checks the shape)::

    {exercise} Markdown ─> answer cell (tag exercise-answer: ``answer_N = {"...": ...}``)
                       ─> check cell (tag exercise-check: ``check.exN(answer_N)``)
                       ─> solution code, hidden in the book ("# Solution to the exercise above")
                       ─> {solution} Markdown, folded in the book

The student copy (:func:`convert`) keeps the answer and check cells and leaves the solution out: in
its place a line points at the solutions notebook and at the lab's page, where the solution is
folded. An exercise without an answer cell (a lab not converted yet) keeps its solution in the
copy, its code under a comment naming the exercise and its explanation folded, so that the lab's
later cells, which may read the solution's names, still run. The solutions notebook (:func:`convert_solutions`) is the same lab with the solution code
and its explanation in place of the answer and check cells (each solution ends by running the
exercise's check on its own answer), and without the optional "More practice" cells.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import nbformat

from labsupport.errors import ConfigError

from ..colab import Published, student_install_cell
from ._markdown import BOOK_TAGS, DIRECTIVE, STUDENT_DIR, Converter, md

__all__ = ["ANSWER_TAG", "CHECK_TAG", "PRACTICE_TAGS", "convert", "convert_solutions", "solutions_notebook_name"]

SOLUTION_COMMENT = "# Solution to the exercise above"
#: The learner's answer cell under an exercise, and the cell that runs its public check.
ANSWER_TAG, CHECK_TAG = "exercise-answer", "exercise-check"
#: The optional "More practice" cells (a practice problem, its answer cell, its check).
PRACTICE_TAGS = frozenset({"practice-problem", "practice-answer", "practice-check"})
_STRIPPED = BOOK_TAGS | {ANSWER_TAG, CHECK_TAG} | PRACTICE_TAGS


def solutions_notebook_name(lab: str) -> str:
    """The solutions notebook of ``labs/<lab>``: ``01-enactor-race.ipynb`` -> ``01-enactor-race-solutions.ipynb``."""
    return lab.removesuffix(".ipynb") + "-solutions.ipynb"


def _solution_label(source: str) -> str | None:
    """The exercise label a Markdown cell's ``{solution}`` names, or None for a cell without one.

    Raises:
        ConfigError: the cell holds something besides the solution (the answer and check cells of
            its exercise come between the exercise and its solution, so each needs a cell of its own).
    """
    lines = source.splitlines()
    fences = [t for t in md.parse(source) if t.type == "fence" and DIRECTIVE.match(t.info.strip())]
    found = [(t, DIRECTIVE.match(t.info.strip())) for t in fences]
    labels = [m["args"].strip() for _, m in found if m and m["name"] == "solution"]
    if not labels:
        return None
    start, end = found[0][0].map or (0, 0)
    if len(found) != 1 or any(line.strip() for line in lines[:start] + lines[end:]):
        raise ConfigError("a lab's {solution} must be alone in its Markdown cell, after its exercise's check cell")
    return labels[0]


def _intro(where: Published, lab: str, title: str, *, solutions: bool, answer_cells: bool = True) -> str:
    page = where.page_url(f"labs/{lab}")
    course = f"the course [us-east-1, 19–20 October 2025: an executable course]({where.book_url})"
    if solutions:
        return (
            f"*This is the solutions notebook of **{title}**, written from `labs/{lab}` of {course}; the lab's "
            f"page in the book is [{title}]({page}). It is the lab with every exercise's solution in place of "
            "the answer cell: the solution's code, which ends by running the exercise's public check on its own "
            f"answer, and its explanation. The student copy, `{lab}`, has the exercises without them. Run the "
            "cells from the top (Run all): the first installs the course where it is missing.*"
        )
    if not answer_cells:
        return (
            f"*This is the student copy of **{title}**, written from `labs/{lab}` of {course}; the lab's page in "
            f"the book is [{title}]({page}). Run the cells from the top (Run all): the first installs the course "
            "where it is missing, and the cells that start with `Markdown(` print the paragraphs that quote the "
            "model's numbers. Exercises are numbered; each solution's code follows its exercise, and its "
            "explanation is folded under **Solution**: open it once you have tried.*"
        )
    return (
        f"*This is the student copy of **{title}**, written from `labs/{lab}` of {course}; the lab's page in the "
        f"book is [{title}]({page}). Run the cells from the top (Run all): the first installs the course where it "
        "is missing, and the cells that start with `Markdown(` print the paragraphs that quote the model's "
        "numbers. Exercises are numbered. Under each one, write your answer in the cell that starts `answer_` "
        "(replace each `...`, or compute the values with code of your own), then run the check under it: it runs "
        "the model and says, part by part, what is right and why. An answer left at `...` does not stop Run all. "
        f"The solutions are in a notebook of their own, `{solutions_notebook_name(lab)}`.*"
    )


def _pointer(where: Published, lab: str, title: str, number: int) -> str:
    name = solutions_notebook_name(lab)
    return (
        f"*The solution to Exercise {number} is in the lab's solutions notebook, "
        f"[`{name}`]({where.book_url}{STUDENT_DIR}/{name}), and folded under the exercise on the lab's page, "
        f"[{title}]({where.page_url(f'labs/{lab}')}). Try the exercise, and run its check, first.*"
    )


def _convert(lab_nb: Any, where: Published, lab: str, *, solutions: bool, root: str | Path | None) -> Any:
    nb = copy.deepcopy(lab_nb)
    cells = nb.cells
    if not cells or cells[0].cell_type != "markdown" or not cells[0].source.startswith("# "):
        raise ConfigError(f"{lab}: the first cell must be the lab's title, '# ...'")
    if len(cells) < 2 or cells[1].cell_type != "code" or "import labsupport" not in cells[1].source:
        raise ConfigError(f"{lab}: the second cell must be the install cell")
    conv = Converter(where, lab, fold_solutions=not solutions, root=root)
    title = cells[0].source[2:].splitlines()[0].strip()
    answer_cells = any(ANSWER_TAG in c.metadata.get("tags", []) for c in cells)
    intro = _intro(where, lab, title, solutions=solutions, answer_cells=answer_cells)
    out = [cells[0], nbformat.v4.new_markdown_cell(intro, id="student-copy")]
    install = cells[1]
    install.source = student_install_cell(where)
    out.append(install)
    answered = False  # whether the open exercise has an answer cell (a lab without them keeps its solutions)
    for cell in cells[2:]:
        tags = set(cell.metadata.get("tags", []))
        if cell.cell_type == "markdown":
            try:
                label = _solution_label(cell.source)
            except ConfigError as err:
                raise ConfigError(f"{lab}: {err}") from None
            if label is not None and answered and not solutions:
                if label not in conv.exercises:
                    raise ConfigError(f"{lab}: solution label must name an exercise above it, got {label!r}")
                cell.source = _pointer(where, lab, title, conv.exercises[label])
            else:
                before = len(conv.exercises)
                cell.source = conv.markdown(cell.source)
                answered = answered and len(conv.exercises) == before
        elif cell.source.startswith(SOLUTION_COMMENT):
            if not solutions and answered:
                continue
            note = "" if solutions else ": try the exercise before you run this cell"
            cell.source = cell.source.replace(SOLUTION_COMMENT, f"# Solution to Exercise {len(conv.exercises)}{note}", 1)
        elif ANSWER_TAG in tags:
            answered = True
            if solutions:
                continue
        elif solutions and tags & ({CHECK_TAG} | PRACTICE_TAGS):
            continue
        out.append(cell)
    if solutions:  # the "More practice" heading goes with its cells
        out = [c for c in out if not (c.cell_type == "markdown" and re.match(r"^## More practice\b", c.source))]
    for cell in out:
        cell.metadata.pop("mystnb", None)
        cell.metadata.pop("jupyter", None)  # the Markdown(...) cells show their code: it computes the numbers
        cell.metadata.pop("predict", None)
        kept = [t for t in cell.metadata.get("tags", []) if t not in _STRIPPED]
        if kept:
            cell.metadata["tags"] = kept
        else:
            cell.metadata.pop("tags", None)
    if solutions:
        for cell in out[3:]:  # ids unique to this notebook, derived from the lab's own
            cell.id = f"{cell.id}-s"[:64]
    nb.cells = out
    nb.metadata.pop("mystnb", None)
    return nb


def convert(lab_nb: Any, where: Published, *, lab: str, root: str | Path | None = None) -> Any:
    """Return the student copy of one lab notebook (the input is not changed).

    Args:
        lab_nb: the lab, an ``nbformat`` v4 notebook.
        where: the published repository (:func:`coursetools.colab.published`).
        lab: the lab's file name, for the intro cell and error messages (``01-enactor-race.ipynb``).
        root: the course repository whose pages the lab's links name (by default the current directory).

    Raises:
        ConfigError: for a lab without a title cell or install cell, an unknown directive, an
            exercise without a grade, a solution of no exercise or not alone in its cell, a link
            to no page of the book, or a ``root`` that is not the repository's root.
    """
    return _convert(lab_nb, where, lab, solutions=False, root=root)


def convert_solutions(lab_nb: Any, where: Published, *, lab: str, root: str | Path | None = None) -> Any:
    """Return the solutions notebook of one lab (:func:`solutions_notebook_name`); takes and raises as :func:`convert`."""
    return _convert(lab_nb, where, lab, solutions=True, root=root)
