"""The public API: every module's ``__all__`` is sorted, complete and documented."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import coursetools
import labsupport

PUBLIC_MODULES = sorted(m.name for m in pkgutil.iter_modules(labsupport.__path__) if not m.name.startswith("_"))


@pytest.mark.parametrize("package", [labsupport, coursetools], ids=lambda p: p.__name__)
def test_package_docstring_lists_every_public_module(package):
    public = {m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_")}
    documented = set(re.findall(rf":mod:`{package.__name__}\.(\w+)`", package.__doc__ or ""))
    assert documented == public


def test_each_package_says_in_one_sentence_what_it_is():
    assert "what a learner imports" in (labsupport.__doc__ or "").split("\n\n")[1]
    first = (coursetools.__doc__ or "").splitlines()[0]
    assert first.count(". ") == 0 and "machinery" in first and "labsupport is what a learner imports" in first


@pytest.mark.parametrize(
    "name",
    sorted(m.name for m in pkgutil.walk_packages(coursetools.__path__, "coursetools.") if "__main__" not in m.name),
)
def test_every_module_of_the_machinery_opens_with_what_it_is(name):
    doc = (importlib.import_module(name).__doc__ or "").strip()
    assert doc and doc.splitlines()[0].rstrip().endswith((".", ":")), f"{name}: no one-line summary"


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_all_is_sorted_and_resolves(name):
    module = importlib.import_module(f"labsupport.{name}")
    exported = getattr(module, "__all__", None)
    assert exported is not None, f"labsupport.{name} has no __all__"
    assert list(exported) == sorted(exported, key=str.casefold) or list(exported) == sorted(exported)
    assert len(set(exported)) == len(exported)
    for attr in exported:
        assert hasattr(module, attr), f"labsupport.{name}.__all__ names {attr}, which does not exist"


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_public_functions_and_classes_have_docstrings(name):
    module = importlib.import_module(f"labsupport.{name}")
    assert (module.__doc__ or "").strip(), f"labsupport.{name} has no module docstring"
    for attr in getattr(module, "__all__", []):
        obj = getattr(module, attr)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            assert (obj.__doc__ or "").strip(), f"labsupport.{name}.{attr} has no docstring"


def test_errors_are_value_errors():
    assert issubclass(labsupport.ConfigError, ValueError)
    assert issubclass(labsupport.ConfigError, labsupport.LabSupportError)
    assert issubclass(labsupport.LimitExceeded, labsupport.ConfigError)


def test_models_are_attributes_of_the_package_imported_on_first_use():
    code = (
        "import sys, labsupport\n"
        "assert 'labsupport.race' not in sys.modules\n"
        "assert labsupport.race.run is sys.modules['labsupport.race'].run\n"
        "assert {'race', 'chain', 'explore'} <= set(dir(labsupport)) and 'race' in labsupport.__all__\n"
        "try:\n    labsupport.no_such_module\nexcept AttributeError:\n    pass\nelse:\n    raise SystemExit(1)\n"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def _type_checking_imports(package: str) -> dict[str, tuple[str, ...]]:
    """``{module: names}`` a package's ``__init__`` imports under ``if TYPE_CHECKING:``."""
    source = Path(importlib.import_module(package).__file__ or "").read_text(encoding="utf-8")
    found: dict[str, tuple[str, ...]] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for imp in node.body:
                if isinstance(imp, ast.ImportFrom) and imp.module:
                    found[imp.module] = tuple(a.name for a in imp.names)
    return found


@pytest.mark.parametrize("package", ["labsupport.charts", "labsupport.widgets"])
def test_lazily_exported_names_are_the_ones_imported_for_type_checking(package):
    module = importlib.import_module(package)
    exports = {name: tuple(sorted(names)) for name, names in module._EXPORTS.items()}
    assert exports == {name: tuple(sorted(names)) for name, names in _type_checking_imports(package).items()}
    eager = {n for n in module.__all__ if n in vars(module) and n not in {m for ns in exports.values() for m in ns}}
    assert set(module.__all__) == eager | {n for ns in exports.values() for n in ns}


def test_a_learners_first_import_loads_no_model_and_a_chart_loads_its_own():
    code = (
        "import sys, labsupport.charts, labsupport.widgets\n"
        "from labsupport._models import MODELS\n"
        "models = {m.module for m in MODELS}\n"
        "print(sorted(models & set(sys.modules)))\n"
        "labsupport.charts.dwfm_timeseries_chart, labsupport.widgets.dwfm_panel\n"
        "print(sorted(models & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.splitlines()
    assert out == ["[]", "['labsupport.dwfm']"]
