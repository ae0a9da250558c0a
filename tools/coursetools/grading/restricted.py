"""A student's design answer, compiled from its source with RestrictedPython, in a namespace of our making.

Scenario:
    The checking process never imports the submission: it compiles the design function's source
    (read by the host from the notebook's cells) with Zope's RestrictedPython, which refuses at
    compile time every name and attribute that begins with ``_`` (no ``__class__``, no
    ``__globals__``), compiles ``import`` into a call that fails (the namespace has no
    ``__import__``), and turns each attribute read, item read, iteration and write into a call of a
    guard. Attribute names are checked at compile time here too (:data:`REFUSED_ATTRIBUTES`: a
    frame's and a generator's ways up the stack, ``str.format``), which is what RestrictedPython's
    run-time ``safer_getattr`` checks; the namespace gives no ``getattr``, so no name is chosen at
    run time. The namespace holds the guards, :data:`labsupport.assignments.STRATEGY_BUILTINS`, a
    read-only ``math``, the notebook's literal constants and its other top-level functions, each
    compiled separately, so that a helper that does not compile is left out instead of sinking
    the design function. A decorated function, a ``class``, ``async`` code and a handler that
    catches every exception (it could swallow the step budget's stop) are refused before
    compilation.
Covers:
    Grading practice (RestrictedPython's ``safe_builtins`` and guards, narrowed); not the incident.

::

    source --ast checks--> compile_restricted --exec in namespace (guards, builtins, math, constants, helpers)--> fn
"""

from __future__ import annotations

import ast
import builtins
import math
import operator
import types
import warnings
from collections.abc import Callable
from typing import Any

from RestrictedPython import PrintCollector, compile_restricted
from RestrictedPython.Guards import full_write_guard, guarded_iter_unpack_sequence, guarded_unpack_sequence
from RestrictedPython.transformer import INSPECT_ATTRIBUTES

from labsupport.assignments import STRATEGY_BUILTINS

from .notebook import DesignSource

__all__ = ["REFUSED_ATTRIBUTES", "RestrictedError", "compile_design"]


class RestrictedError(Exception):
    """The design function could not be compiled as the grader compiles it (the message says why)."""


class _ReadOnly:
    """A read-only view of a module's public names (``math``): attributes, nothing else."""

    __slots__ = ("_names",)

    def __init__(self, module: types.ModuleType) -> None:
        object.__setattr__(self, "_names", {k: getattr(module, k) for k in dir(module) if not k.startswith("_")})

    def __getattr__(self, name: str) -> Any:
        try:
            return object.__getattribute__(self, "_names")[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("math is read-only here")


#: Attribute names refused at compile time, on top of RestrictedPython's own refusal of every name
#: that begins with ``_``: a frame's or a generator's way up the stack, and ``str.format``'s way to
#: any attribute (what RestrictedPython's ``safer_getattr`` refuses at run time).
REFUSED_ATTRIBUTES = INSPECT_ATTRIBUTES | {"format", "format_map"}


def _refused(tree: ast.AST) -> str | None:
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in REFUSED_ATTRIBUTES:
            return f"the attribute {node.attr} is not allowed"
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.decorator_list:
            return "decorators are not allowed"
        if isinstance(node, (ast.AsyncFunctionDef, ast.Await, ast.AsyncFor, ast.AsyncWith, ast.ClassDef)):
            return "classes and async code are not allowed"
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            return "global and nonlocal are not allowed"
        if isinstance(node, ast.ExceptHandler):
            names = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
            if node.type is None or any(isinstance(n, ast.Name) and n.id == "BaseException" for n in names):
                return "a handler that catches every exception (bare except, BaseException) is not allowed"
    return None


def _compile(name: str, source: str, namespace: dict[str, Any]) -> None:
    """Compile ``source`` restricted and run it (a ``def`` or ``name = lambda``) into ``namespace``."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise RestrictedError(f"{name} does not parse: {exc}") from None
    why = _refused(tree)
    if why:
        raise RestrictedError(f"{name}: {why}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)  # "prints, but never reads 'printed'"
            code = compile_restricted(source, filename=f"<{name}>", mode="exec")
    except SyntaxError as exc:
        raise RestrictedError(f"{name} does not compile as the grader compiles it: {exc}") from None
    exec(code, namespace)  # a def (or a lambda assignment): it runs no student code yet


def _namespace(design: DesignSource) -> dict[str, Any]:
    safe = {n: getattr(builtins, n) for n in STRATEGY_BUILTINS if n not in ("True", "False", "None")}
    math_view = _ReadOnly(math)
    ns: dict[str, Any] = {
        "__builtins__": safe,
        "__name__": "submission",
        # Every attribute the code reads is named in its source (the namespace has no getattr), and
        # the compile-time checks refuse the unsafe names, so the guards can be the plain builtins:
        # a guard written in Python would add a traced frame to every attribute read (3x slower).
        "_getattr_": getattr,
        "_getitem_": operator.getitem,
        "_getiter_": iter,
        "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
        "_unpack_sequence_": guarded_unpack_sequence,
        "_write_": full_write_guard,
        "_inplacevar_": _inplace,
        "_apply_": _apply,
        "_print_": PrintCollector,  # a print() collects into nothing: it shows nowhere
        "math": math_view,
    }
    public = object.__getattribute__(math_view, "_names")
    for alias, attr in design.math_names.items():
        if not alias.startswith("_"):  # from math's public names only, never getattr(math, <any name>)
            ns[alias] = math_view if not attr else public.get(attr)
    for name, literal in design.constants.items():
        if not name.startswith("_"):
            try:
                ns[name] = ast.literal_eval(literal)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
    return ns


def _inplace(op: str, x: Any, y: Any) -> Any:
    """``x op= y`` for RestrictedPython, on numbers, strings, lists and tuples only."""
    ops: dict[str, Callable[[Any, Any], Any]] = {
        "+=": lambda a, b: a + b,
        "-=": lambda a, b: a - b,
        "*=": lambda a, b: a * b,
        "/=": lambda a, b: a / b,
        "//=": lambda a, b: a // b,
        "%=": lambda a, b: a % b,
        "**=": lambda a, b: a**b,
    }
    if op not in ops or not isinstance(x, (int, float, str, list, tuple)):
        raise TypeError(f"{op} is not allowed on {type(x).__name__}")
    return ops[op](x, y)


def _apply(f: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    return f(*args, **kwargs)


def compile_design(design: DesignSource) -> tuple[Callable[[Any], object], list[str]]:
    """The design function, compiled restricted with what may go with it, and notes on what was left out.

    Raises:
        RestrictedError: the notebook defines no such function at its top level, or it does not
            compile as the grader compiles it.
    """
    if not design.source:
        raise RestrictedError(
            f"no function {design.name} defined at the top level of a cell (def {design.name}(request): ...)"
        )
    ns = _namespace(design)
    notes = []
    for name, source in design.helpers.items():
        if name.startswith("_"):
            continue
        try:
            _compile(name, source, ns)
        except RestrictedError as exc:
            notes.append(f"the helper {name} was left out: {exc}")
    _compile(design.name, design.source, ns)
    fn = ns.get(design.name)
    if not isinstance(fn, types.FunctionType):
        raise RestrictedError(f"{design.name} is not a function")
    return fn, notes
