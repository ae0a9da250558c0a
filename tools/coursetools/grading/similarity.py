"""Design answers that match a reference or each other, after normalising names and formatting (MOSS's idea, offline).

Scenario:
    The course is open: its reference solutions are public. Each design answer (the design function
    and the notebook's helper functions it calls) is normalised: parsed with :mod:`ast`, its
    docstrings dropped (comments and formatting never reach the tree), every name it binds (the
    function's own name, its arguments, its local variables, the helpers' names) renamed in order
    of appearance (``f0``, ``v0``, ``v1``, ...), and written back as a token sequence. Two answers
    are compared by the ratio of :class:`difflib.SequenceMatcher` over those tokens (2 x matches /
    total tokens, 0 to 1). A ratio of 1 is the same answer up to names and formatting; a ratio of
    :data:`NEAR` (0.9) or more between answers of at least :data:`MIN_TOKENS` tokens is a near
    match. Either is a flag for the instructor, never a score: short, correct answers are often
    alike (a one-line comparison can only be written a few ways), so each flag says how long the
    answers are.
Covers:
    Grading practice (MOSS: Schleimer, Wilkerson and Aiken, "Winnowing", SIGMOD 2003, which compares
    normalised token sequences); not the incident.

::

    source --ast, drop docstrings, rename--> tokens --SequenceMatcher.ratio--> same (1.0) / near (>= 0.9) / -
"""

from __future__ import annotations

import ast
import difflib
import inspect
import io
import textwrap
import tokenize
from collections.abc import Callable
from dataclasses import dataclass

from .notebook import DesignSource

__all__ = ["FLAG", "MIN_TOKENS", "NEAR", "Match", "is_stub", "normalise", "normalise_function", "similar"]

#: How every likeness flag begins (the feedback files leave them out: they name other students).
FLAG = "design answer"
#: The ratio from which two answers of at least MIN_TOKENS tokens are a near match.
NEAR = 0.9
#: The fewest tokens an answer must have for a near match (not an exact one) to be flagged.
MIN_TOKENS = 25


class _Renamer(ast.NodeTransformer):
    def __init__(self, bound: set[str]) -> None:
        self.bound = bound
        self.names: dict[str, str] = {}

    def _name(self, name: str, prefix: str) -> str:
        if name not in self.bound:
            return name
        return self.names.setdefault(name, f"{prefix}{len(self.names)}")

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.name = self._name(node.name, "f")
        node.returns = None
        first = node.body[0] if node.body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            node.body = node.body[1:] or [ast.Pass()]
        self.generic_visit(node)
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg = self._name(node.arg, "v")
        node.annotation = None
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self._name(node.id, "v")
        return node


def _bound(tree: ast.AST) -> set[str]:
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.Lambda)):
            if isinstance(node, ast.FunctionDef):
                bound.add(node.name)
            bound |= {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
    return bound


def _calls(tree: ast.AST) -> set[str]:
    return {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def normalise(design: DesignSource) -> list[str]:
    """The design answer as a token sequence with names, docstrings and formatting normalised
    (the function first, then each helper it calls, in the order it first calls them)."""
    if not design.source:
        return []
    sources, todo, seen = [design.source], [design.source], {design.name}
    while todo:
        for called in sorted(_calls(ast.parse(todo.pop()))):
            if called in design.helpers and called not in seen:
                seen.add(called)
                sources.append(design.helpers[called])
                todo.append(design.helpers[called])
    tree = ast.parse("\n".join(sources))
    tree = _Renamer(_bound(tree)).visit(tree)
    text = ast.unparse(tree)
    return [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.string.strip()]


def normalise_function(fn: Callable[..., object]) -> list[str]:
    """:func:`normalise` of a reference function of the course (its source, read with inspect)."""
    source = textwrap.dedent(inspect.getsource(fn))
    return normalise(DesignSource(fn.__name__, source=source))


@dataclass(frozen=True)
class Match:
    """One flagged likeness: with whom (an id, or ``"the reference solution"``), the ratio, the tokens."""

    other: str
    ratio: float
    tokens: int

    def sentence(self) -> str:
        how = "the same, up to names and formatting," if self.ratio == 1.0 else f"{self.ratio:.0%} alike"
        return f"{FLAG} {how} as {self.other} ({self.tokens} tokens; compare by hand)"


def is_stub(tokens: list[str]) -> bool:
    """Whether a normalised answer is an empty function (``...`` or ``pass``: the student copy's own)."""
    body = tokens[tokens.index(":") + 1 :] if ":" in tokens else tokens
    return body in ([], ["..."], ["pass"])


def similar(mine: list[str], theirs: list[str]) -> float | None:
    """The ratio of two token sequences if it is worth a flag (see the module), else ``None``."""
    if not mine or not theirs:
        return None
    if mine == theirs:
        return 1.0
    ratio = difflib.SequenceMatcher(None, mine, theirs, autojunk=False).ratio()
    return ratio if ratio >= NEAR and min(len(mine), len(theirs)) >= MIN_TOKENS else None
