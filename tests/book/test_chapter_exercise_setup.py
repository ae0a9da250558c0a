"""A reader can redo every chapter exercise: the solutions use only names their page shows.

Each chapter with exercises has one visible cell tagged ``exercise-setup`` at the top of its
Exercises section; the names a solution's code reads must be builtins, or defined by that cell or by
a solution cell above it (assignments, imports, functions, loop and comprehension variables).
"""

from __future__ import annotations

import ast
import builtins
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted(p for p in (ROOT / "chapters").glob("*.md") if "\n## Exercises\n" in p.read_text(encoding="utf-8"))
_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(?P<body>.*?)^```\s*$", re.MULTILINE | re.DOTALL)


def _code(body: str) -> tuple[list[str], str]:
    lines = body.splitlines()
    tags: list[str] = []
    while lines and lines[0].startswith(":"):
        if lines[0].startswith(":tags:"):
            tags = [t.strip() for t in lines[0].split(":", 2)[2].strip(" []").split(",")]
        lines.pop(0)
    return tags, "\n".join(lines)


def _defined(tree: ast.AST) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
            out.update(a.arg for a in [*node.args.args, *node.args.kwonlyargs] if not isinstance(node, ast.ClassDef))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
    return out


def _read(tree: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def test_every_chapter_with_exercises_is_checked() -> None:
    assert {p.stem for p in CHAPTERS} >= {"the-race", "the-cascade", "recovery", "six-stop-points"}


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_solutions_use_only_names_the_page_shows(chapter: Path) -> None:
    text = chapter.read_text(encoding="utf-8")
    exercises = text.split("\n## Exercises\n", 1)[1].split("\n## ", 1)[0]
    cells = [_code(m["body"]) for m in _CELL.finditer(exercises)]
    visible = [(tags, code) for tags, code in cells if "remove-cell" not in tags]
    assert visible and "exercise-setup" in visible[0][0], (
        f"{chapter.name}: the Exercises section opens with its setup cell"
    )
    known = set(dir(builtins))
    for i, (_, code) in enumerate(visible):
        tree = ast.parse(code)
        missing = _read(tree) - known - _defined(tree)
        assert not missing, (
            f"{chapter.name}, code cell {i} of the Exercises: {sorted(missing)} defined in no visible cell"
        )
        known |= _defined(tree)
