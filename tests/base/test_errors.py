"""The package's errors: every deliberate refusal is a ConfigError or a named subclass in errors.py.

Read from the code with :mod:`ast`: a ``raise`` of a built-in exception class (``ValueError``,
``TypeError``, ``RuntimeError`` ...) anywhere in ``labsupport`` fails, unless :data:`ALLOWED` names
it with its reason; so does an exception class defined outside ``labsupport/errors.py``. The course's
machinery, ``coursetools`` (``tools/``), refuses with the same ``ConfigError``: a built-in raise
there fails unless :data:`COURSETOOLS_ALLOWED` names it.
"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

import pytest

import labsupport
from labsupport import errors, strategy

PACKAGE = Path(labsupport.__file__).parent
COURSETOOLS = Path(__file__).resolve().parents[2] / "tools" / "coursetools"

#: ``(module path under labsupport/, exception raised)`` that are not refusals of input, and why.
ALLOWED: dict[tuple[str, str], str] = {
    ("__init__.py", "AttributeError"): "PEP 562: what a module's __getattr__ raises for a name it does not have",
    ("_lazy.py", "AttributeError"): "PEP 562, as above: the lazily exported names of charts and widgets",
    ("practice/__init__.py", "AttributeError"): "PEP 562, as above: the practice generators, one per model",
    ("dependencies.py", "RuntimeError"): "the package's own dependencies.csv is broken: a packaging bug, not input",
    ("assignments/_shared.py", "AssertionError"): "otter's protocol: a failed public check is an AssertionError",
    ("assignments/concept_quiz.py", "AssertionError"): "otter's protocol, as above",
    ("assignments/lab08.py", "AssertionError"): "otter's protocol, as above (lab 08's public form check)",
}
#: The same for ``(module path under coursetools/, exception raised)``.
COURSETOOLS_ALLOWED: dict[tuple[str, str], str] = {
    ("pdf.py", "SystemExit"): "the command line's exit status (python -m coursetools.pdf)",
    (
        "grading/_runner.py",
        "OSError",
    ): "prctl(PR_SET_DUMPABLE) failing in the sandbox: the system's error, not a refusal",
    ("grading/limits.py", "OSError"): "prctl(PR_SET_DUMPABLE) failing on the host: the system's error, not a refusal",
    ("grading/check.py", "TimeoutError"): "the reading limit's signal handler, caught in the same function: a notebook "
    "too slow to read is reported in its row, never raised to the instructor",
    (
        "grading/restricted.py",
        "AttributeError",
    ): "what Python raises, inside a student's restricted code (read-only math)",
    (
        "grading/restricted.py",
        "TypeError",
    ): "what Python raises, inside a student's restricted code (a refused operand)",
    (
        "grading/spec.py",
        "ValueError",
    ): "an assignment's spec contradicts itself: the course's own bug at import, not input",
    (
        "grading/lab08.py",
        "AssertionError",
    ): "a hidden check's failure, as every check's assert: lab 08's carries the counterexample in words",
}
#: Exception classes defined outside errors.py, and why: control flow, never raised to a caller.
OWN_EXCEPTIONS = {
    ("strategy.py", "_StepLimit"): "stops a strategy's trace; call_strategy turns it into StrategyTimeout",
}

_BUILTIN_ERRORS = {n for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)}


def _raised(node: ast.Raise) -> str | None:
    exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    return exc.id if isinstance(exc, ast.Name) else None


def builtin_raises(root: Path = PACKAGE) -> set[tuple[str, str]]:
    """``(path, exception)`` for every ``raise`` of a built-in exception class under ``root``."""
    found = set()
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Raise) and _raised(node) in _BUILTIN_ERRORS:
                found.add((path.relative_to(root).as_posix(), _raised(node) or ""))
    return found


def exception_classes(root: Path = PACKAGE) -> set[tuple[str, str]]:
    """``(path, class)`` for every class under ``root`` whose bases name an exception."""
    names = _BUILTIN_ERRORS | set(errors.__all__) | {"LimitExceeded", "StrategyTimeout"}
    found = set()
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                (b.id if isinstance(b, ast.Name) else getattr(b, "attr", "")) in names for b in node.bases
            ):
                found.add((path.relative_to(root).as_posix(), node.name))
    return found


def test_every_deliberate_refusal_is_a_config_error():
    unexplained = sorted(builtin_raises() - set(ALLOWED))
    assert unexplained == [], f"raise ConfigError (or a subclass in errors.py) instead: {unexplained}"


def test_the_allowed_list_names_only_raises_that_exist():
    assert set(ALLOWED) <= builtin_raises(), "ALLOWED names a raise that is gone: remove it"


def test_every_refusal_of_the_course_machinery_is_a_config_error():
    found = builtin_raises(COURSETOOLS)
    unexplained = sorted(found - set(COURSETOOLS_ALLOWED))
    assert unexplained == [], f"coursetools: raise labsupport's ConfigError instead: {unexplained}"
    assert set(COURSETOOLS_ALLOWED) <= found, "COURSETOOLS_ALLOWED names a raise that is gone: remove it"


def test_every_exception_class_is_defined_in_errors():
    outside = {(p, c) for p, c in exception_classes() if p != "errors.py"}
    assert outside == set(OWN_EXCEPTIONS), f"define these in labsupport/errors.py: {sorted(outside)}"


def test_the_hierarchy():
    assert issubclass(errors.ConfigError, ValueError) and issubclass(errors.ConfigError, errors.LabSupportError)
    assert issubclass(errors.LimitExceeded, errors.ConfigError)
    assert issubclass(errors.StrategyTimeout, errors.ConfigError)
    assert strategy.StrategyTimeout is errors.StrategyTimeout is labsupport.StrategyTimeout  # the old name works


def test_the_scan_finds_a_plain_value_error(tmp_path):
    (tmp_path / "m.py").write_text("def f(x):\n    if x < 0:\n        raise ValueError('x must be >= 0')\n")
    (tmp_path / "n.py").write_text("class Oops(ValueError):\n    pass\n")
    assert builtin_raises(tmp_path) == {("m.py", "ValueError")}
    assert exception_classes(tmp_path) == {("n.py", "Oops")}


@pytest.mark.parametrize("name", errors.__all__)
def test_each_error_is_documented(name):
    assert (getattr(errors, name).__doc__ or "").strip()
