"""What every graded assignment shares on the student's side: the id's hash, the prediction's
bookkeeping and the public form check of a design answer.

A student's problem is a function of their id: :func:`digest` hashes ``"<assignment>:<id>"`` with
SHA-256, so the same id always gives the same problem, two ids almost never share one, and the
same id gives unrelated problems in two assignments. The grader (the course's ``coursetools``
package, which students do not install) grades each submission against the id it was collected
under, never one the notebook names.

A design answer is graded on its own, apart from the notebook that defined it
(:data:`STRATEGY_BUILTINS` says what it may use); :func:`check_answers_with_a_bool` tells the
student before they submit whether theirs does.
"""

from __future__ import annotations

import builtins
import dis
import hashlib
import math
import types
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import ClassVar

from ..errors import ConfigError
from ..strategy import call_strategy

__all__ = [
    "PLACEHOLDER_ID",
    "STRATEGY_BUILTINS",
    "PredictionBase",
    "check_answers_with_a_bool",
    "digest",
    "strategy_problems",
]

#: The id the student copy ships with, before a student writes theirs.
PLACEHOLDER_ID = "s0000000"

#: The builtins a design answer may call when it is graded: arithmetic, comparisons, the basic
#: types and the usual exceptions. With them it may use its request, ``math`` (read-only), and the
#: functions and constants (numbers, strings, tuples of them) defined at the top level of the
#: notebook; nothing else of the notebook (no imports, no names that begin with ``_``).
STRATEGY_BUILTINS: frozenset[str] = frozenset(
    {
        "abs", "all", "any", "bool", "callable", "chr", "dict", "divmod", "enumerate", "float", "frozenset",
        "int", "isinstance", "len", "list", "map", "max", "min", "ord", "pow", "range", "reversed", "round",
        "set", "sorted", "str", "sum", "tuple", "zip", "True", "False", "None",
        "ArithmeticError", "AssertionError", "AttributeError", "Exception", "IndexError", "KeyError",
        "LookupError", "OverflowError", "TypeError", "ValueError", "ZeroDivisionError",
    }
)  # fmt: skip


def digest(assignment: str, student_id: object) -> bytes:
    """SHA-256 of ``"<assignment>:<id>"`` (32 bytes), the id stripped and in Unicode NFC (a macOS
    file name gives NFD: the same id must give the same problem); raises ConfigError unless the id
    is a non-empty string that UTF-8 can encode."""
    if not isinstance(student_id, str) or not student_id.strip():
        raise ConfigError(f"student_id must be a non-empty string, got {student_id!r}")
    name = unicodedata.normalize("NFC", student_id.strip())
    try:
        return hashlib.sha256(f"{assignment}:{name}".encode()).digest()
    except UnicodeEncodeError:
        raise ConfigError(f"student_id must be text UTF-8 can encode, got {student_id!r}") from None


@dataclass
class PredictionBase:
    """The bookkeeping of every lab's ``Prediction``: its run refuses to start before a prediction.

    A lab's ``Prediction`` adds the predicted fields (each ``None`` until :meth:`record`), calls
    :meth:`_recorded` when it records them and :meth:`_running` before its run. Every field is
    set only that way (none is an ``__init__`` argument). The grader does not read this object: it
    decides whether the prediction came first from the notebook's cells, in the order it runs them.

    Attributes:
        made_before_run: whether the prediction was recorded before the lab's run was first called
            (in this kernel; shown to the student only).
    """

    made_before_run: bool = field(default=False, init=False)
    _ran: bool = field(default=False, init=False)
    #: Whether any prediction of this lab has run in this process: a new ``Prediction()`` made after
    #: the run is recorded after it too.
    _lab_ran: ClassVar[bool] = False

    def _recorded(self) -> None:
        self.made_before_run = not self._ran and not type(self)._lab_ran

    def _running(self, recorded: object, how: str) -> None:
        """Mark the run; raises ConfigError if nothing is recorded yet (``recorded`` is None)."""
        if recorded is None:
            raise ConfigError(f"record your prediction first: prediction.record({how})")
        self._ran = True
        type(self)._lab_ran = True


def _instructions(code: types.CodeType) -> Iterator[dis.Instruction]:
    yield from dis.get_instructions(code)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _instructions(const)


def strategy_problems(fn: object) -> list[str]:
    """What would keep ``fn`` from being graded as the student wrote it (empty: nothing).

    The grader compiles a design answer from the notebook's source, with RestrictedPython, in a
    namespace that holds its request, ``math``, :data:`STRATEGY_BUILTINS` and the notebook's
    top-level functions and constants. This names what ``fn`` (and every top-level function of the
    notebook it calls) uses beyond that: an import, a name or attribute beginning with ``_``, a
    global that is a module other than ``math`` or an object of the notebook's that is neither a
    function nor a constant. A check, not the grader's rule: the grader enforces its own.
    """
    problems: list[str] = []
    seen: set[int] = set()
    todo = [fn]
    while todo:
        f = todo.pop()
        if id(f) in seen or not isinstance(f, types.FunctionType):
            continue
        seen.add(id(f))
        where = getattr(f, "__qualname__", "the function")
        if f.__closure__:
            problems.append(f"{where} is defined inside another function: define it at the top level of a cell")
        for ins in _instructions(f.__code__):
            name = ins.argval if isinstance(ins.argval, str) else ""
            if ins.opname in ("IMPORT_NAME", "IMPORT_FROM"):
                problems.append(f"{where} imports {name}: the grader gives it no imports (math is there already)")
            elif name.startswith("_") and ins.opname in ("LOAD_ATTR", "LOAD_METHOD", "STORE_ATTR", "LOAD_GLOBAL"):
                problems.append(f"{where} uses {name}: names beginning with _ are refused")
            elif ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") and name not in STRATEGY_BUILTINS:
                problems += _global_problem(f, where, name, todo)
    return sorted(set(problems))


def _global_problem(f: types.FunctionType, where: str, name: str, todo: list[object]) -> list[str]:
    if name not in f.__globals__:
        missing = f"{where} calls the builtin {name}, which the grader does not give it"
        return [missing] if hasattr(builtins, name) else []
    value = f.__globals__[name]
    if isinstance(value, types.ModuleType):
        return [] if value is math else [f"{where} uses the module {name}: only math is there when it is graded"]
    if isinstance(value, types.FunctionType) and value.__module__ == f.__module__:
        todo.append(value)
        return []
    if isinstance(value, types.BuiltinFunctionType) and getattr(value, "__module__", "") == "math":
        return []  # from math import floor
    if isinstance(value, (int, float, str, bool, tuple, type(None))) and _literal(value):
        return []
    return [f"{where} uses {name}, a {type(value).__name__} of the notebook: only functions and constants go along"]


def _literal(value: object) -> bool:
    if isinstance(value, tuple):
        return all(_literal(v) for v in value)
    return isinstance(value, (int, float, str, bool, type(None)))


def check_answers_with_a_bool(name: str, fn: object, request: object) -> None:
    """The public form check of a design question: ``fn`` is a function of one request that answers
    ``True`` or ``False`` within the course's step budget, called as the engines call it
    (:func:`labsupport.strategy.call_strategy`), and uses nothing the grader does not give it
    (:func:`strategy_problems`).

    Raises:
        AssertionError: ``fn`` is not callable; it raised, returned a non-``bool`` or did not
            return; or it uses something it will not have when it is graded.
    """
    assert callable(fn), f"{name} must be a function"
    try:
        call_strategy(name, fn, request)
    except ConfigError as exc:
        raise AssertionError(str(exc)) from None
    problems = strategy_problems(fn)
    assert not problems, (
        f"{name} is graded on its own, from your notebook's source: it may use its request, math, "
        "the basic builtins, and functions and constants defined at the top level of your notebook. "
        + "; ".join(problems)
    )
