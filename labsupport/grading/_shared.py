"""What every graded assignment shares: the student id's hash, the graded id, the prediction's
bookkeeping and the recording of a reference strategy's requests.

A student's problem is a function of their id: :func:`digest` hashes ``"<assignment>:<id>"`` with
SHA-256, so the same id always gives the same problem, two ids almost never share one, and the
same id gives unrelated problems in two assignments. The grading command pins the id a submission
was collected under and hands it to the hidden tests through :data:`GRADED_ID_VARIABLE`
(:func:`graded_id`), so a copy of another student's notebook is graded against its own id.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import os
import sys
import types
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

from ..errors import ConfigError
from ..strategy import call_strategy

__all__ = [
    "GRADED_ID_VARIABLE",
    "PredictionBase",
    "check_answers_with_a_bool",
    "check_seconds",
    "check_course_intact",
    "check_prediction_made",
    "digest",
    "graded_id",
    "recorded_requests",
]

#: The environment variable through which the grading command gives the hidden tests the real id.
GRADED_ID_VARIABLE = "LABSUPPORT_GRADED_ID"


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


def graded_id(notebook_id: str) -> str:
    """The id to grade against: the grading command's (environment variable), else the notebook's.

    Every hidden check asks for it, so it first asserts :func:`check_course_intact`.
    """
    check_course_intact()
    return os.environ.get(GRADED_ID_VARIABLE) or notebook_id


@dataclass
class PredictionBase:
    """The bookkeeping of every lab's ``Prediction``: whether it was recorded before the run.

    A lab's ``Prediction`` adds the predicted fields (each ``None`` until :meth:`record`), calls
    :meth:`_recorded` when it records them and :meth:`_running` before its run. Every field is
    set only that way (none is an ``__init__`` argument), so ``Prediction(made_before_run=True)``
    is refused.

    Attributes:
        made_before_run: whether the prediction was recorded before the lab's run was first called.
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


def check_prediction_made(prediction: object, kind: type[PredictionBase], recorded: str) -> None:
    """Credit for a prediction made: a ``kind`` whose field ``recorded`` was set before the run.

    Raises:
        AssertionError: not a ``kind``, nothing recorded, or recorded after the run.
    """
    check_course_intact()
    assert isinstance(prediction, kind), "prediction must be the Prediction object of the first cell"
    assert getattr(prediction, recorded) is not None, "no prediction was recorded"
    assert prediction.made_before_run, "the prediction was recorded after the run"


def check_seconds(answer: object, notebook_id: str, name: str, key: Callable[[str], dict[str, object]]) -> None:
    """A measured time, in seconds, equals ``key(graded id)[name]`` within 0.5 s.

    Raises:
        AssertionError: ``answer`` is not a ``float``, or is not what the graded id's night gives.
    """
    expected = float(key(graded_id(notebook_id))[name])  # type: ignore[arg-type]
    assert isinstance(answer, float), f"{name} must be a float"
    assert abs(answer - expected) <= 0.5, f"{name} is not what your night gives"


def check_answers_with_a_bool(name: str, fn: object, request: object) -> None:
    """The public form check of a design question: ``fn`` is a function of one request that answers
    ``True`` or ``False`` within the course's step budget, called as the engines call it
    (:func:`labsupport.strategy.call_strategy`), so a loop that never returns or a ``sys.exit`` fails
    the check with the course's message instead of hanging the notebook or ending it.

    Raises:
        AssertionError: ``fn`` is not callable, or it raised, returned a non-``bool`` or did not return.
    """
    assert callable(fn), f"{name} must be a function"
    try:
        call_strategy(name, fn, request)
    except ConfigError as exc:
        raise AssertionError(str(exc)) from None


@functools.cache
def _defined_names(
    path: str, package: str
) -> tuple[frozenset[str], dict[str, frozenset[str]], dict[str, tuple[str, str]]]:
    """What a module's source defines at its top level: functions and classes, each class's methods,
    and the names it imports relatively, that is from the course (name -> (module, attribute);
    ``package`` is the module's ``__package__``, against which the imports resolve)."""
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    defined: set[str] = set()
    methods: dict[str, frozenset[str]] = {}
    imported: dict[str, tuple[str, str]] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defined.add(node.name)
        elif isinstance(node, ast.ClassDef):
            defined.add(node.name)
            methods[node.name] = frozenset(
                n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            )
        elif isinstance(node, ast.ImportFrom) and node.level:
            module = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
            for a in node.names:
                if a.name != "*":
                    imported[a.asname or a.name] = (module, a.name)
    return frozenset(defined), methods, imported


def _genuine(obj: object, path: str, qualname: str) -> bool:
    if type(obj).__name__ == "_lru_cache_wrapper":  # functools.cache, functools.lru_cache
        obj = obj.__wrapped__  # type: ignore[attr-defined]
    code = getattr(getattr(obj, "__func__", obj), "__code__", None)
    if code is not None:
        return code.co_filename == path and getattr(obj, "__qualname__", "") == qualname
    return isinstance(obj, type) and getattr(obj, "__qualname__", "") == qualname


def check_course_intact() -> None:
    """Assert that no loaded module of the course was changed in memory since it was imported.

    For every ``labsupport`` module loaded, each function and class its source defines must still be
    the one defined there (same source file, same qualified name), each class's methods too, and
    each name it imports from the course must still be the object it names. The hidden tests call
    this first, so a submission that patches the grading module or a model (through any alias,
    ``setattr`` or a function argument) earns nothing from them, whatever the static scan missed.

    Raises:
        AssertionError: naming the first changed name.
    """
    modules = {n: m for n, m in list(sys.modules.items()) if n.split(".")[0] == "labsupport" and m}
    for name, module in modules.items():
        path = getattr(module, "__file__", None)
        if not path or not path.endswith(".py") or not isinstance(module, types.ModuleType):
            continue
        defined, methods, imported = _defined_names(path, module.__package__ or "")
        space = vars(module)
        for attr in defined:
            obj = space.get(attr)
            assert obj is not None and _genuine(obj, path, attr), f"the course's code was changed: {name}.{attr}"
            for method in methods.get(attr, ()):
                got = vars(obj).get(method)
                if callable(got) and not isinstance(got, (type, staticmethod, classmethod)):
                    assert _genuine(got, path, f"{attr}.{method}"), (
                        f"the course's code was changed: {name}.{attr}.{method}"
                    )
        for attr, (source, original) in imported.items():
            home = modules.get(source)
            if home is None or attr not in space:
                continue
            expected = vars(home).get(original, modules.get(f"{source}.{original}"))
            if expected is not None:
                assert space[attr] is expected, f"the course's code was changed: {name}.{attr}"


def recorded_requests(
    run: Callable[[Any], object], config: Any, field_name: str, reference: Callable[[Any], bool]
) -> tuple:
    """Every request a run of ``config`` asks the strategy in ``field_name``, answered by ``reference``.

    The hidden checks ask a student's strategy these requests too, so that a table of made-up
    requests cannot be told apart from a real run.
    """
    seen: list[Any] = []

    def recorder(request: Any) -> bool:
        seen.append(request)
        return reference(request)

    run(replace(config, **{field_name: recorder}))
    return tuple(seen)
