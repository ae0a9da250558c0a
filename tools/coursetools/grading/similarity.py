"""Design answers like a reference or each other, names, formatting and dead code set aside (MOSS's idea).

Scenario:
    The course is open: its reference solutions are public. Each design answer (the design function
    and the notebook's helper functions it calls) is normalised: parsed with :mod:`ast`; its
    docstrings, ``pass``, expressions that do nothing, code after a ``return``, branches of a
    constant test and assignments nothing reads are dropped; every name it binds (its arguments,
    its local variables, the helpers' names) becomes one placeholder, ``v`` for a value and ``f``
    for a function, as MOSS does with identifiers; and it is written back as tokens. Two answers
    are compared by their runs of :data:`K` tokens (k-grams, MOSS's fingerprints): how many distinct
    runs they share, and what share of the smaller answer's runs that is (its containment). Renaming,
    reformatting, reordering independent lines and adding dead code leave most runs whole.

    A likeness is flagged for the instructor, never scored: the same tokens, however short the
    answer (a copy, up to names, formatting and dead code), or, between answers that share at least
    :data:`MIN_SHARED` runs, a containment of at least :data:`NEAR`. A short answer is never a near
    match: a one-line comparison can be written only a few ways, so only its exact copy is flagged,
    and the flag says how many runs the answers share, for the instructor to judge.
Covers:
    Grading practice (MOSS: Schleimer, Wilkerson and Aiken, "Winnowing", SIGMOD 2003, which compares
    k-gram fingerprints of normalised token sequences); not the incident.

::

    source --ast, drop docstrings and dead code, names -> v / f--> tokens --k-grams--> shared runs, containment
"""

from __future__ import annotations

import ast
import inspect
import io
import textwrap
import tokenize
from collections.abc import Callable
from dataclasses import dataclass

from .notebook import DesignSource

__all__ = [
    "FLAG",
    "K",
    "MAX_TOKENS",
    "MIN_SHARED",
    "NEAR",
    "Match",
    "is_stub",
    "normalise",
    "normalise_function",
    "similar",
]

#: How every likeness flag begins (the feedback files leave them out: they name other students).
FLAG = "design answer"
#: Tokens in a run (k-gram).
K = 5
#: Distinct runs two answers must share to be flagged: fewer, and the answers are too short to tell
#: a copy from the few ways such an answer can be written.
MIN_SHARED = 20
#: Share of the smaller answer's runs the other must hold to be flagged.
NEAR = 0.6
#: Most tokens of an answer that are compared (a longer one is compared by its start).
MAX_TOKENS = 2000
_STOPS = (ast.Return, ast.Raise, ast.Break, ast.Continue)


def _idle(stmt: ast.stmt) -> bool:
    """A statement that does nothing: ``pass``, a docstring or any expression but a call (``print``'s aside)."""
    if isinstance(stmt, ast.Pass):
        return True
    if not isinstance(stmt, ast.Expr):
        return False
    call = stmt.value
    return not isinstance(call, ast.Call) or (isinstance(call.func, ast.Name) and call.func.id == "print")


class _DeadCode(ast.NodeTransformer):
    """Drops what never runs or does nothing, in every block."""

    def _block(self, body: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in body:
            if _idle(stmt):
                continue
            if isinstance(stmt, (ast.If, ast.While)) and isinstance(stmt.test, ast.Constant):
                taken = stmt.body if stmt.test.value else stmt.orelse
                if isinstance(stmt, ast.If) or not stmt.test.value:
                    out += self._block(taken)
                    continue
            out.append(stmt)
            if isinstance(stmt, _STOPS):
                break
        return out

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                setattr(node, name, self._block(block) or ([ast.Pass()] if name == "body" else []))
        return node


def _drop_unread(tree: ast.AST) -> None:
    """Remove assignments to names nothing reads (whose value calls nothing), until none is left."""
    changed = True
    while changed:
        read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        changed = False
        for node in ast.walk(tree):
            for name in ("body", "orelse"):
                block = getattr(node, name, None)
                if not isinstance(block, list):
                    continue
                kept = [
                    s
                    for s in block
                    if not (
                        isinstance(s, ast.Assign)
                        and all(isinstance(t, ast.Name) and t.id not in read for t in s.targets)
                        and not any(isinstance(n, ast.Call) for n in ast.walk(s.value))
                    )
                ]
                if len(kept) < len(block):
                    setattr(node, name, kept or [ast.Pass()])
                    changed = True


def _bound(tree: ast.AST) -> set[str]:
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
    return bound


def _calls(tree: ast.AST) -> set[str]:
    return {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def normalise(design: DesignSource) -> list[str]:
    """The design answer as tokens, with docstrings, dead code, names and formatting normalised (the
    function first, then each helper it calls, in the order it first calls them)."""
    if not design.source:
        return []
    sources, todo, functions = [design.source], [design.source], {design.name}
    while todo:
        for called in sorted(_calls(ast.parse(todo.pop()))):
            if called in design.helpers and called not in functions:
                functions.add(called)
                sources.append(design.helpers[called])
                todo.append(design.helpers[called])
    tree = _DeadCode().visit(ast.parse("\n".join(sources)))
    _drop_unread(tree)
    bound = _bound(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            node.name, node.returns = "f", None
        elif isinstance(node, ast.arg):
            node.arg, node.annotation = "v", None
        elif isinstance(node, ast.Name) and (node.id in bound or node.id in functions):
            node.id = "f" if node.id in functions else "v"
    text = ast.unparse(tree)
    return [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.string.strip()]


def normalise_function(fn: Callable[..., object]) -> list[str]:
    """:func:`normalise` of a reference function of the course (its source, read with inspect)."""
    source = textwrap.dedent(inspect.getsource(fn))
    return normalise(DesignSource(fn.__name__, source=source))


@dataclass(frozen=True)
class Match:
    """One flagged likeness: with whom (an id, or ``"the reference solution"``), the share of the
    smaller answer's runs of tokens the other holds, and how many distinct runs they share."""

    other: str
    containment: float
    shared: int

    def sentence(self) -> str:
        how = "the same as" if self.containment == 1.0 else f"{self.containment:.0%} alike to"
        return (
            f"{FLAG} {how} {self.other} once names, formatting and dead code are set aside "
            f"({self.shared} runs of {K} tokens in common; compare by hand)"
        )


def is_stub(tokens: list[str]) -> bool:
    """Whether a normalised answer is an empty function (``...`` or ``pass``: the student copy's own)."""
    body = tokens[tokens.index(":") + 1 :] if ":" in tokens else tokens
    return body in ([], ["..."], ["pass"])


def _runs(tokens: list[str]) -> set[tuple[str, ...]]:
    tokens = tokens[:MAX_TOKENS]
    return {tuple(tokens[i : i + K]) for i in range(len(tokens) - K + 1)}


def similar(mine: list[str], theirs: list[str]) -> tuple[float, int] | None:
    """``(containment, shared runs)`` of two normalised answers if it is worth a flag (see the
    module), else ``None``."""
    a, b = _runs(mine), _runs(theirs)
    shared = len(a & b)
    if mine and mine[:MAX_TOKENS] == theirs[:MAX_TOKENS]:
        return (1.0, shared)  # the same answer, however short: the "matches", always said
    if shared < MIN_SHARED:
        return None
    containment = shared / min(len(a), len(b))
    return (containment, shared) if containment >= NEAR else None
