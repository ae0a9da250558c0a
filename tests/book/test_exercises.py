"""Every lab exercise has a cell for the learner's answer and a public check, and nothing depends on a solution.

The shape of an exercise in a lab (``coursetools.student`` writes the student copy and the solutions
notebook from it)::

    {exercise} Markdown ─> answer cell: ``answer_N = {...}`` whose values are ``...`` (tag exercise-answer),
                           below the functions the learner writes when the answer is code (lab 08's steps)
                       ─> check cell: exactly ``check.exN(answer_N)`` (tag exercise-check)
                       ─> solution code cells, "# Solution to the exercise above", hidden in the book
                       ─> the {solution} Markdown, alone in its cell

and ``check`` is the lab's module of :mod:`labsupport.exercises`. A learner who writes their own
code, or leaves an answer at ``...``, must still be able to run the whole lab: so no cell outside
the solutions (the self-check, the predictions, the explanations) may read a name that only a
solution binds (:func:`solution_only_names`). The student copy drops the solutions; this test is
what keeps its Run all working.

Every lab is checked. Lab 08's answers are code: its answer cells define the learner's step
above the dict, whose ``"step"`` names it.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Labs whose exercises do not have answer and check cells yet, each with the reason.
NOT_YET: dict[str, str] = {}
LABS = [p for p in sorted((ROOT / "labs").glob("0*.ipynb")) if p.name not in NOT_YET]
SOLUTION = "# Solution to the exercise above"
EXERCISE = re.compile(r"^```\{exercise\}[^\n]*\n(?::[\w-]+:[^\n]*\n)*?:label: ([\w-]+)", re.MULTILINE)


def _tags(cell) -> set[str]:
    return set(cell.metadata.get("tags", []))


def exercise_runs(nb) -> list[dict]:
    """Each exercise's cells: its Markdown, answer, check, solution code cells and solution Markdown."""
    runs, cells = [], nb.cells
    for i, cell in enumerate(cells):
        if cell.cell_type != "markdown" or not EXERCISE.search(cell.source):
            continue
        run = {"label": EXERCISE.search(cell.source).group(1), "exercise": cell, "rest": []}
        for later in cells[i + 1 :]:
            run["rest"].append(later)
            if later.cell_type == "markdown" and "```{solution}" in later.source:
                break
        runs.append(run)
    return runs


def assigned_and_read(source: str) -> tuple[set[str], set[str]]:
    tree = ast.parse(source)
    bound, read = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, ast.Store) else read).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return bound, read


def solution_only_names(nb) -> dict[str, str]:
    """Names that only solution cells bind -> the first cell (id) outside the solutions that reads one."""
    code = [c for c in nb.cells if c.cell_type == "code"]
    in_solutions, elsewhere = set(), set()
    for cell in code:
        bound, _ = assigned_and_read(cell.source)
        (in_solutions if cell.source.startswith(SOLUTION) else elsewhere).update(bound)
    only = in_solutions - elsewhere
    found = {}
    for cell in code:
        if cell.source.startswith(SOLUTION):
            continue
        for name in sorted(assigned_and_read(cell.source)[1] & only):
            found.setdefault(name, cell.id)
    return found


def test_the_labs_are_found():
    assert len(LABS) >= 7 and all(name in {p.name for p in (ROOT / "labs").glob("*.ipynb")} for name in NOT_YET)


@pytest.mark.parametrize("path", LABS, ids=lambda p: p.stem)
def test_every_exercise_has_an_answer_cell_and_its_public_check(path):
    nb = nbformat.read(path, as_version=4)
    runs = exercise_runs(nb)
    assert runs, "a lab has exercises"
    lab = path.name[:2]
    module = importlib.import_module(f"labsupport.exercises.lab{lab}")
    setup = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert f"from labsupport.exercises import lab{lab} as check" in setup
    for n, run in enumerate(runs, start=1):
        answer, check, *rest = run["rest"]
        where = f"{run['label']} (exercise {n})"
        assert "exercise-answer" in _tags(answer), f"{where}: the cell after the exercise is its answer cell"
        tree = ast.parse(answer.source)
        *defs, last = tree.body
        assert all(isinstance(s, ast.FunctionDef) for s in defs) and isinstance(last, ast.Assign), (
            f"{where}: the answer cell only assigns answer_{n}, after the functions a code answer defines"
        )
        (target,), value = last.targets, last.value
        assert isinstance(target, ast.Name) and target.id == f"answer_{n}", where
        assert isinstance(value, ast.Dict) and value.values, where
        assert all(isinstance(v, ast.Constant) and v.value is Ellipsis for v in value.values), (
            f"{where}: every value of the skeleton is ..., nothing pre-filled"
        )
        assert "exercise-check" in _tags(check) and check.source == f"check.ex{n}(answer_{n})", where
        assert callable(getattr(module, f"ex{n}", None)) and callable(getattr(module, f"model_ex{n}", None))
        fields = [k.value for k in value.keys]  # type: ignore[union-attr]
        unanswered = getattr(module, f"ex{n}")(dict.fromkeys(fields, ...))
        assert unanswered.status == "not answered" and [p.name for p in unanswered.parts] == fields, where
        *code, solution = rest
        assert all(c.cell_type == "code" and c.source.startswith(SOLUTION) for c in code), where
        assert solution.cell_type == "markdown" and solution.source.lstrip().startswith("```{solution}"), where
    assert not hasattr(module, f"ex{len(runs) + 1}"), "the check module has a check for every exercise, no more"


@pytest.mark.parametrize("path", LABS, ids=lambda p: p.stem)
def test_no_cell_outside_the_solutions_reads_a_name_only_a_solution_binds(path):
    found = solution_only_names(nbformat.read(path, as_version=4))
    assert not found, f"read outside the solutions, bound only in one (name: cell id): {found}"


def test_the_dependency_check_can_fail():
    cells = [
        nbformat.v4.new_code_cell("x = 1"),
        nbformat.v4.new_code_cell(f"{SOLUTION}\nsolved = x + 1"),
        nbformat.v4.new_code_cell("assert solved == 2"),
    ]
    cells[2].id = "self-check"
    assert solution_only_names(nbformat.v4.new_notebook(cells=cells)) == {"solved": "self-check"}
    cells[2].source = "solved = 2\nassert solved == 2"  # bound outside the solutions too: fine
    assert solution_only_names(nbformat.v4.new_notebook(cells=cells)) == {}
