"""The house style's size limits, enforced: a module at most 400 lines, a function at most 60 lines of code.

``STYLE.md``: "Around 300 lines a module (400 at most), 40 a function (60 at most)". Read from the
code with :mod:`ast`: a module's lines are its physical lines; a function's lines of code run from
its ``def`` to its end, leaving out blank lines, comment lines and its docstring (a nested function
counts in its parent, and on its own). Complexity is ruff's (``C901``, ``max-complexity`` in
``pyproject.toml``), with the same allow-list for the files it names.

:data:`ALLOWED` is the short list of what may stay over a limit for now, each entry with its size,
why and the branch that will shrink it; an entry that fits again fails
:func:`test_every_allowed_entry_is_still_over`, so the list only shrinks. To see what is over::

    python tests/base/test_limits.py                 # both packages
    python tests/base/test_limits.py path/to/file.py # any files (exit status 1 if one is over)
"""

from __future__ import annotations

import ast
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The packages held to the limits: what a learner imports, and the course's machinery (tools/).
LABSUPPORT, COURSETOOLS = ROOT / "labsupport", ROOT / "tools" / "coursetools"
PACKAGES = [LABSUPPORT, COURSETOOLS]
MODULE_MAX_LINES = 400
FUNCTION_MAX_LINES = 60


@dataclass(frozen=True)
class Allowed:
    """Why an entry may stay over its limit for now, and who will shrink it."""

    size: str
    why: str
    branch: str


#: ``"<path>"`` (a module's lines, named as in :func:`package_files`) or ``"<path>:<qualified function name>"``.
ALLOWED: dict[str, Allowed] = {}


def code_lines(lines: list[str], node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines of code of a function: from its ``def`` to its end, not blank, not a comment, not its docstring."""
    body = node.body
    docstring = (
        range(body[0].lineno, (body[0].end_lineno or body[0].lineno) + 1)
        if body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
        else range(0)
    )
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return sum(
        1
        for n in range(first, (node.end_lineno or node.lineno) + 1)
        if n not in docstring and lines[n - 1].strip() and not lines[n - 1].lstrip().startswith("#")
    )


def functions(source: str) -> dict[str, int]:
    """``{qualified name: lines of code}`` of every function in ``source``, methods and nested ones included."""
    lines, found = source.splitlines(), {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found[prefix + child.name] = code_lines(lines, child)
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return found


def over_limits(files: dict[str, Path]) -> dict[str, int]:
    """``{entry: size}`` for each module over :data:`MODULE_MAX_LINES` and each function over
    :data:`FUNCTION_MAX_LINES` lines of code, ``files`` named as in :data:`ALLOWED`."""
    out = {}
    for name, path in files.items():
        source = path.read_text(encoding="utf-8")
        if len(source.splitlines()) > MODULE_MAX_LINES:
            out[name] = len(source.splitlines())
        out |= {f"{name}:{fn}": n for fn, n in functions(source).items() if n > FUNCTION_MAX_LINES}
    return out


def package_files() -> dict[str, Path]:
    """Every module of :data:`PACKAGES`: labsupport's named by its path in the package
    (``charts/dwfm.py``), coursetools' by its path from the package's folder (``coursetools/pdf.py``),
    so that a module of the same name in both (``quiz.py``, ``__init__.py``) is read twice."""
    return {
        p.relative_to(pkg if pkg == LABSUPPORT else pkg.parent).as_posix(): p
        for pkg in PACKAGES
        for p in sorted(pkg.rglob("*.py"))
    }


def test_every_module_and_function_is_within_the_limits_or_allowed():
    over = {entry: size for entry, size in over_limits(package_files()).items() if entry not in ALLOWED}
    assert over == {}, (
        f"over the limits ({MODULE_MAX_LINES} lines a module, {FUNCTION_MAX_LINES} lines of code a function); "
        f"split along a real seam: {over}"
    )


def test_every_module_of_both_packages_is_read():
    files = package_files()
    assert len(files) == sum(len(list(pkg.rglob("*.py"))) for pkg in PACKAGES)
    assert {"quiz.py", "coursetools/quiz.py", "coursetools/pdf.py", "coursetools/student/_chapters.py"} <= set(files)


def test_every_allowed_entry_is_still_over():
    fits = sorted(set(ALLOWED) - set(over_limits(package_files())))
    assert fits == [], f"these fit the limits now (or moved): remove them from ALLOWED: {fits}"


def test_the_allow_list_is_short_and_says_why():
    assert len(ALLOWED) <= 12
    assert all(a.size and a.why and a.branch for a in ALLOWED.values())


def test_ruffs_complexity_exceptions_are_files_of_the_allow_list():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["ruff"]["lint"]
    assert "C90" in config["select"] and config["mccabe"]["max-complexity"] <= 12
    ignored = {
        pattern.removeprefix("**/")
        for pattern, rules in config["per-file-ignores"].items()
        if "C901" in rules and not pattern.startswith("benchmarks/")
    }
    assert ignored <= {entry.split(":")[0] for entry in ALLOWED}, "a C901 exception needs an ALLOWED entry"


# --- the check itself: it fails on a long function and a long module -------------------------------


def _function(code_lines_count: int) -> str:
    """A function of exactly that many lines of code, padded with what does not count."""
    body = "\n".join(f"    x{i} = {i}  # counted once" for i in range(code_lines_count - 2))
    return (
        'def long(a):\n    """A docstring\n\n    over several lines, not counted.\n    """\n'
        f"    # a comment, not counted\n\n{body}\n\n    return a\n"
    )


def test_a_function_of_61_lines_of_code_is_over_and_one_of_60_is_not(tmp_path):
    (tmp_path / "long.py").write_text(_function(61), encoding="utf-8")
    (tmp_path / "fits.py").write_text(_function(60), encoding="utf-8")
    assert functions(_function(61)) == {"long": 61}
    over = over_limits({"long.py": tmp_path / "long.py", "fits.py": tmp_path / "fits.py"})
    assert over == {"long.py:long": 61}


def test_a_method_and_a_nested_function_are_named_by_their_qualified_names():
    source = "class A:\n    def m(self):\n        def inner():\n            return 1\n        return inner\n"
    assert functions(source) == {"A.m": 4, "A.m.inner": 2}  # the nested one counts in its parent too


def test_a_module_of_401_lines_is_over(tmp_path):
    (tmp_path / "big.py").write_text("x = 1\n" * 401, encoding="utf-8")
    (tmp_path / "ok.py").write_text("x = 1\n" * 400, encoding="utf-8")
    assert over_limits({"big.py": tmp_path / "big.py", "ok.py": tmp_path / "ok.py"}) == {"big.py": 401}


@pytest.mark.parametrize("entry", sorted(ALLOWED))
def test_each_allowed_entry_names_a_module_of_the_package(entry):
    assert entry.split(":")[0] in package_files(), f"{entry}: no such module (moved? rename the entry)"


if __name__ == "__main__":
    named = {arg: Path(arg) for arg in sys.argv[1:]} or package_files()
    found = over_limits(named)
    for entry, size in sorted(found.items()):
        unit = "lines" if ":" not in entry else "lines of code"
        print(f"{entry}: {size} {unit}" + (f"  (allowed: {ALLOWED[entry].branch})" if entry in ALLOWED else ""))
    sys.exit(1 if set(found) - set(ALLOWED) else 0)
