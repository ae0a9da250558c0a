"""Reading a submitted notebook on the host, as text: never by running it.

Scenario:
    The grader reads a submission's code cells itself, with :mod:`ast`, after IPython's own input
    transformer (:class:`IPython.core.inputtransformer2.TransformerManager`) has turned its magics
    and shell escapes (``!cmd``, ``x = !echo``, ``%env``, ``%%bash``) into the Python calls IPython
    would run, so that no cell is hidden from it by syntax ``ast`` alone cannot parse. From the
    cells it takes:

    * the design function's source (the last top-level ``def`` of its name), the notebook's other
      top-level functions and its literal constants, each separately, for the checking process;
    * whether the prediction was recorded before the first cell that runs a model, in the order
      the grader runs the cells (top to bottom);
    * the id the notebook names in its ``STUDENT_ID`` cell, and every later place that sets
      ``STUDENT_ID``, an environment variable or the former grader variable: flags for the
      instructor, never the id graded (that is the collection's);
    * signs of an attack, a second layer only (:func:`suspicious`): they flag, they never score.
Covers:
    Grading practice; not the incident.

::

    submission.ipynb --cells--> TransformerManager --> ast --> sources, prediction order, id flags, signs
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from IPython.core.inputtransformer2 import TransformerManager

from labsupport.assignments import PLACEHOLDER_ID

__all__ = [
    "FORMER_ID_VARIABLE",
    "RUNS_A_MODEL",
    "Cells",
    "DesignSource",
    "Reading",
    "cells_of",
    "code_cells",
    "design_source",
    "id_flags",
    "parse",
    "pin_student_id",
    "prediction_before_run",
    "read",
    "suspicious",
]

#: Calls that run a model, and so answer a prediction: a run, a sweep, the guard table, lab 08's race
#: over seeds and its public check of a step (which runs the race and the model checker).
RUNS_A_MODEL = frozenset({"run", "sweep", "seed_sweep", "guard_table", "race_seeds", "check_step"})
#: The environment variable through which the former grader gave otter's hidden tests the id.
FORMER_ID_VARIABLE = "LABSUPPORT_GRADED_ID"
_STUDENT_ID = re.compile(r"^STUDENT_ID\s*=\s*(.*?)(\s*#.*)?$", re.M)
#: otter's own cells, matched whole: its first cell, and a public check. The grader does not run
#: them (they only show the student the public checks), which also spares it importing otter.
_OTTER_CELL = re.compile(
    r'\s*(# Initialize Otter\s*\n)?import otter\s*\ngrader = otter\.Notebook\(("[\w.-]+\.ipynb")?\)\s*'
    r'|\s*grader\.check\("[\w-]+"\)\s*'
    r"|\s*grader\.check_all\(\)\s*"
)


def _source(cell: dict[str, Any]) -> str:
    """A cell's source as nbformat joins it: a string, or a list of strings; anything else is no code."""
    src = cell.get("source", "")
    if isinstance(src, list) and all(isinstance(line, str) for line in src):
        return "".join(src)
    return src if isinstance(src, str) else ""


@dataclass
class Cells:
    """A notebook's code cells, in order: each one's index among the notebook's cells, its source,
    its parsed tree (``None`` if even IPython's transformer leaves it unparsable; empty until
    :func:`parse`) and whether it is one of otter's own cells."""

    index: list[int] = field(default_factory=list)
    source: list[str] = field(default_factory=list)
    tree: list[ast.Module | None] = field(default_factory=list)
    otter: list[bool] = field(default_factory=list)


def code_cells(nb: dict[str, Any]) -> Cells:
    """The code cells of a notebook (parsed JSON) as text, unparsed: what the host reads of a
    submission (a pass of regular expressions, linear in the notebook's size)."""
    out = Cells()
    for i, cell in enumerate(nb.get("cells", []) if isinstance(nb.get("cells"), list) else []):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        src = _source(cell)
        out.index.append(i)
        out.source.append(src)
        out.otter.append(bool(_OTTER_CELL.fullmatch(src)))
    return out


def parse(cells: Cells) -> Cells:
    """``cells`` with each cell parsed as IPython would run it. Its cost is not bounded by the
    notebook's size alone (IPython's transformer makes up to 500 passes over a cell), so the grader
    parses a submission in the check phase's sandbox, under its time limit, never on the host."""
    manager = TransformerManager()
    trees: list[ast.Module | None] = []
    for src in cells.source:
        try:
            trees.append(ast.parse(manager.transform_cell(src)))
        except TimeoutError:  # the reader's time is up (the check phase's alarm): stop, not the next cell
            raise
        except Exception:  # noqa: BLE001 (hostile text: whatever the transformer or the parser raises, the cell is unread)
            trees.append(None)
    return Cells(list(cells.index), list(cells.source), trees, list(cells.otter))


def cells_of(nb: dict[str, Any]) -> Cells:
    """The code cells of a notebook (parsed JSON), each parsed as IPython would run it."""
    return parse(code_cells(nb))


def pin_student_id(nb: dict[str, Any], student_id: str) -> str | None:
    """Write ``STUDENT_ID = <student_id>`` as the whole of the first code cell that sets it; return
    the id that cell named (``None`` if it named the placeholder, the collected id, or none)."""
    for cell in nb.get("cells", []):
        if isinstance(cell, dict) and cell.get("cell_type") == "code" and _STUDENT_ID.search(_source(cell)):
            said = _STUDENT_ID.search(_source(cell)).group(1).strip().strip("\"'")  # type: ignore[union-attr]
            cell["source"] = f"STUDENT_ID = {student_id!r}\n"
            cell["outputs"], cell["execution_count"] = [], None
            return None if said in (student_id, PLACEHOLDER_ID) else said
    return None


def _calls(tree: ast.AST) -> list[ast.Call]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)]


def _called_name(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _magic(call: ast.Call) -> tuple[str, str] | None:
    """``(kind, name)`` of ``get_ipython().run_line_magic('env', ...)`` and its kin."""
    if _called_name(call) in ("run_line_magic", "run_cell_magic", "system", "getoutput") and call.args:
        first = call.args[0]
        name = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else ""
        return _called_name(call), name
    return None


def prediction_before_run(cells: Cells) -> bool:
    """Whether every cell that records the prediction (``*.record(...)``) comes before the first
    cell that runs a model (a call of anything named in :data:`RUNS_A_MODEL`), and there is one."""
    records = [k for k, t in enumerate(cells.tree) if t and any(_called_name(c) == "record" for c in _calls(t))]
    runs = [k for k, t in enumerate(cells.tree) if t and any(_called_name(c) in RUNS_A_MODEL for c in _calls(t))]
    first_run = min(runs, default=len(cells.tree))
    return bool(records) and max(records) < first_run


def _node_flags(node: ast.AST, where: str, pinned_here: bool) -> list[str]:
    """What one node of a cell does to the id: sets ``STUDENT_ID``, names it, sets an environment variable."""
    flags = []
    targets: list[ast.AST] = []
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = list(node.targets) if isinstance(node, ast.Assign) else [node.target]
    elif isinstance(node, (ast.Global, ast.Nonlocal)) and "STUDENT_ID" in node.names:
        flags.append(f"{where} declares STUDENT_ID global")
    if not pinned_here and any(isinstance(t, ast.Name) and t.id == "STUDENT_ID" for t in targets):
        flags.append(f"{where} sets STUDENT_ID again")
    if not pinned_here and isinstance(node, ast.Constant) and node.value == "STUDENT_ID":
        flags.append(f"{where} names STUDENT_ID as a string (globals()['STUDENT_ID'], setattr ...)")
    if isinstance(node, ast.Call):
        magic = _magic(node)
        if magic and magic[1] in ("env", "set_env"):
            flags.append(f"{where} sets an environment variable (%{magic[1]})")
        if _called_name(node) in ("putenv", "setdefault", "update") and "environ" in ast.unparse(node.func):
            flags.append(f"{where} sets an environment variable ({ast.unparse(node.func)})")
    if any(isinstance(t, ast.Subscript) and "environ" in ast.unparse(t.value) for t in targets):
        flags.append(f"{where} sets an environment variable (os.environ[...] = ...)")
    return flags


def id_flags(cells: Cells, pinned: int | None) -> list[str]:
    """Why the notebook's id handling needs the instructor's eye: another cell that sets
    ``STUDENT_ID`` (the grader's ``pinned`` cell aside), a cell that sets an environment variable
    or names the former grader's variable."""
    flags = []
    for k, (src, tree) in enumerate(zip(cells.source, cells.tree, strict=True)):
        where = f"cell {cells.index[k]}"
        if FORMER_ID_VARIABLE in src:
            flags.append(f"{where} names {FORMER_ID_VARIABLE}, the id variable of the former grader")
        for node in ast.walk(tree) if tree is not None else ():
            flags += _node_flags(node, where, cells.index[k] == pinned)
    return sorted(set(flags))


@dataclass
class DesignSource:
    """The design function's source and what may go with it, each piece separate.

    Attributes:
        name: the function's name (``admission_policy``).
        source: its last top-level definition (``def`` or ``name = lambda``), or ``""`` if none.
        cell: the notebook index of the cell that defines it (``-1`` if none).
        helpers: the notebook's other top-level functions, name -> source (the last definition).
        constants: its top-level constants whose value is a literal, name -> the literal's source.
        math_names: names bound to ``math`` or its functions by top-level imports
            (``import math as m``, ``from math import floor``): name -> attribute of math, ``""``
            for the module itself.
    """

    name: str
    source: str = ""
    cell: int = -1
    helpers: dict[str, str] = field(default_factory=dict)
    constants: dict[str, str] = field(default_factory=dict)
    math_names: dict[str, str] = field(default_factory=dict)


def _literal(node: ast.AST) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _take(node: ast.stmt, out: DesignSource, cell: int) -> None:
    """What one top-level statement adds to the design answer (run top to bottom: a later one wins)."""
    if isinstance(node, ast.FunctionDef):
        if node.name == out.name:
            out.source, out.cell = ast.unparse(node), cell
            out.helpers.pop(out.name, None)
        else:
            out.helpers[node.name] = ast.unparse(node)
    elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        target = node.targets[0].id
        if target == out.name and isinstance(node.value, ast.Lambda):
            out.source, out.cell = ast.unparse(node), cell
        elif _literal(node.value) and len(ast.unparse(node.value)) <= 2_000:
            out.constants[target] = ast.unparse(node.value)
        else:
            out.constants.pop(target, None)
    elif isinstance(node, ast.Import):
        out.math_names |= {a.asname or "math": "" for a in node.names if a.name == "math"}
    elif isinstance(node, ast.ImportFrom) and node.module == "math" and not node.level:
        # math's public names alone: its private ones (__loader__, __spec__, __dict__) reach the
        # import system and the files, which a restricted function never gets
        out.math_names |= {a.asname or a.name: a.name for a in node.names if not a.name.startswith(("_", "*"))}


def design_source(cells: Cells, name: str) -> DesignSource:
    """The design function ``name`` as the notebook defines it, read from its cells in order."""
    out = DesignSource(name)
    for k, tree in enumerate(cells.tree):
        for node in tree.body if tree is not None else ():
            _take(node, out, cells.index[k])
    for taken in (name, *out.helpers):
        out.constants.pop(taken, None)
    return out


#: Signs of an attack, by what the code reaches for: a second layer that only flags.
_SIGNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("reaches the grader's package (coursetools)", re.compile(r"\bcoursetools\b")),
    ("reads a key or a reference answer", re.compile(r"\breference_\w+|\banswer_key\b|\bquiz_key\b|\.key\(")),
    ("reflection (setattr, getattr, pkgutil, importlib, __import__, builtins)",
     re.compile(r"\b(setattr|delattr|pkgutil|importlib|__import__|builtins|__builtins__|__dict__|resolve_name)\b")),
    ("runs other code (exec, eval, compile, run_cell)", re.compile(r"\b(exec|eval|compile|run_cell)\s*\(")),
    ("starts processes (subprocess, os.system, fork, a shell)",
     re.compile(r"\b(subprocess|os\.system|os\.fork|os\.exec\w*|os\.spawn\w*|multiprocessing|Popen)\b"
                r"|^\s*!|^%%(bash|sh|script)", re.M)),
    ("opens files outside the notebook (site-packages, /proc, tests, ..)",
     re.compile(r"site-packages|/proc/|/etc/|\.\./|\bgetsitepackages\b|\btests?\b[\"'/]")),
    ("uses the network (socket, urllib, http)", re.compile(r"\b(socket|urllib|http\.client|requests)\b")),
    ("hooks the interpreter (settrace, setprofile, sys.modules, gc)",
     re.compile(r"\b(settrace|setprofile|sys\.modules|gc\.get_objects|ctypes)\b")),
)  # fmt: skip


def suspicious(cells: Cells, pinned: int | None = None) -> list[str]:
    """Signs of an attack in the notebook's own cells, as flags for the instructor (otter's cells,
    and the ``STUDENT_ID`` cell the grader wrote, ``pinned``, aside: an id may hold any word). A
    second layer only: it never changes a score, and code that hides from it gains nothing, since
    the verdict does not come from the notebook's kernel."""
    flags = []
    for k, src in enumerate(cells.source):
        if cells.otter[k] or cells.index[k] == pinned:
            continue
        for what, pattern in _SIGNS:
            if pattern.search(src):
                flags.append(f"cell {cells.index[k]}: {what}")
    return flags


@dataclass
class Reading:
    """What the grader reads of a notebook's code: the design answer, whether the prediction came
    before the run, and the flags for the instructor (the id's handling, signs of an attack)."""

    design: DesignSource
    before_run: bool = False
    flags: list[str] = field(default_factory=list)


def read(cells: Cells, pinned: int | None, strategy: str | None) -> Reading:
    """Parse ``cells`` (:func:`code_cells`) and read them: the check phase's first step, in its sandbox.

    Args:
        cells: the notebook's code cells as the host collected them (text).
        pinned: the notebook index of the ``STUDENT_ID`` cell the grader wrote (``None``: none).
        strategy: the design function's name (``None``: the assignment has no design question).
    """
    parsed = parse(cells)
    return Reading(
        design_source(parsed, strategy) if strategy else DesignSource(""),
        prediction_before_run(parsed),
        id_flags(parsed, pinned) + suspicious(parsed, pinned),
    )
