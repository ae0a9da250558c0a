"""labsupport's import graph, read from the code with :mod:`ast`: no cycles, nothing imports upward.

Run ``python tests/base/test_import_graph.py`` to print the graph, one module a line with the modules it
imports, bottom layer first.

Layers (a module may import only from its own layer or a lower one)::

    0  base      errors, clock, _validate, _sweep, _engine, _models, _memo, presets, route53, timeline,
                 dependencies, strategy, enactor (a student's Enactor step: its contract and how the engines
                 drive it), quiz: the concept quiz's questions (its key, scoring and HTML are coursetools');
                 feedback (a check's report)
    1  models    one package per model: race/, dwfm/, network/, dns_cache/
    2  composed  models built on other models: nlb/ (on network), explore/ (on race), chain/ (on all),
                 game/ (on chain)
    3  charts    labsupport.charts and its per-model modules; beside them, what a learner practises
                 with: practice/ (a problem generator per model) and exercises/ (the labs' checks)
    4  wiring    widgets/ (panel, one module per lab panel), book, colab, student, pdf, assignments/

``labsupport`` never imports ``coursetools`` (the course's second package, in ``tools/``: the
grader, the keys, the quiz's answers), in any statement anywhere, so that a student's install, which
holds ``labsupport`` alone, works without it and holds nothing of it.

The models and their layers (1, or 2 when built on another model) come from the package's one
registry, ``labsupport._models``. Inside a model's package the parts are ordered as its entry
lists them (``config`` -> ``engine`` -> ``model`` -> ``sweep``, say); a part imports only the
parts before it (the package's ``__init__`` re-exports them all). Every import counts, those under
``if TYPE_CHECKING:`` too: a type-only import is still a dependency, and hiding it hid circles. The
package's ``__init__`` imports only the errors and the registry (the models it names are loaded
lazily), so it counts as the base.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from labsupport._models import MODELS as REGISTERED

PACKAGE = Path(__file__).resolve().parents[2] / "labsupport"

#: The layer of each module, by the first part of its dotted name that is listed (longest first).
LAYERS: dict[str, int] = {
    "labsupport": 0,
    "labsupport.errors": 0,
    "labsupport.clock": 0,
    "labsupport._validate": 0,
    "labsupport._sweep": 0,
    "labsupport._engine": 0,
    "labsupport._models": 0,
    "labsupport._lazy": 0,
    "labsupport._memo": 0,
    "labsupport.presets": 0,
    "labsupport.route53": 0,
    "labsupport.timeline": 0,
    "labsupport.dependencies": 0,
    "labsupport.quiz": 0,
    "labsupport.predict": 0,
    "labsupport.strategy": 0,
    "labsupport.enactor": 0,
    **{m.module: 2 if m.on else 1 for m in REGISTERED},
    "labsupport.feedback": 0,
    "labsupport.charts": 3,
    "labsupport.practice": 3,
    "labsupport.exercises": 3,
    "labsupport.widgets": 4,
    "labsupport.book": 4,
    "labsupport.colab": 4,
    "labsupport.student": 4,
    "labsupport.pdf": 4,
    "labsupport.assignments": 4,
    "labsupport.apidoc": 4,
}
LAYER_NAMES = ("base", "models", "composed", "charts", "wiring")
#: The packages that are models (layers 1 and 2), each with the parts its registry entry lists, in that order.
MODELS = tuple(m.module for m in REGISTERED)
PARTS: dict[str, tuple[str, ...]] = {m.module: m.parts for m in REGISTERED}


def module_name(path: Path) -> str:
    """The dotted name of a file under :data:`PACKAGE` (``labsupport/charts/race.py`` -> ``labsupport.charts.race``)."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer(module: str) -> int:
    """The layer of ``module``: that of the longest prefix listed in :data:`LAYERS`."""
    best = max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len)
    return LAYERS[best]


def part(module: str) -> tuple[str, int] | None:
    """``(model package, rank in its parts)`` for a part of a model (``labsupport.race.engine`` -> race, 1)."""
    package, _, name = module.rpartition(".")
    return (package, PARTS[package].index(name)) if package in PARTS and name in PARTS[package] else None


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> list[str]:
    base = module.split(".") if is_package else module.split(".")[:-1]
    if node.level:
        base = base[: len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    if not target.startswith("labsupport"):
        return []
    # ``from . import race`` imports the submodule labsupport.race, not the package's own names
    names = [target] if node.module else []
    return names + [f"{target}.{a.name}" for a in node.names]


def graph() -> dict[str, set[str]]:
    """``{module: {labsupport modules it imports}}``, ``if TYPE_CHECKING:`` blocks included."""
    files = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
    edges: dict[str, set[str]] = {}
    for name, path in files.items():
        edges[name] = imports_of(name, path.name == "__init__.py", path.read_text(encoding="utf-8"), set(files))
    return edges


def imports_of(name: str, is_package: bool, source: str, modules: set[str]) -> set[str]:
    """The modules of ``modules`` that the code of module ``name`` imports, anywhere in it."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            targets = _resolve(name, is_package, node)
        elif isinstance(node, ast.Import):
            targets = [a.name for a in node.names if a.name.startswith("labsupport")]
        else:
            continue
        found |= {t for t in targets if t in modules and t != name}
    return found


def function_imports() -> list[str]:
    """``"module:line"`` of every labsupport import inside a function (the package allows none)."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(fn):
                    if isinstance(node, ast.ImportFrom) and (
                        node.level or (node.module or "").startswith("labsupport")
                    ):
                        out.append(f"{module_name(path)}:{node.lineno}")
    return out


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def upward(edges: dict[str, set[str]]) -> list[str]:
    """``"a (layer) -> b (layer)"`` for every import of a higher layer, or of a later part of the same model.

    A package's own ``__init__`` may import its modules.
    """
    out = []
    for a, targets in sorted(edges.items()):
        for b in sorted(targets):
            pa, pb = part(a), part(b)
            if layer(b) > layer(a) and a != b.rsplit(".", 1)[0]:
                out.append(f"{a} ({LAYER_NAMES[layer(a)]}) -> {b} ({LAYER_NAMES[layer(b)]})")
            elif pa and pb and pa[0] == pb[0] and pb[1] > pa[1]:
                parts = PARTS[pa[0]]
                out.append(f"{a} ({parts[pa[1]]}) -> {b} ({parts[pb[1]]}), a later part of the same model")
    return out


def render(edges: dict[str, set[str]]) -> str:
    """The graph as text, bottom layer first: ``[layer] module -> a, b``."""
    short = lambda m: m.removeprefix("labsupport.") if m != "labsupport" else "labsupport"  # noqa: E731
    lines = []
    for m in sorted(edges, key=lambda m: (layer(m), m)):
        targets = ", ".join(sorted(short(t) for t in edges[m])) or "-"
        lines.append(f"[{layer(m)} {LAYER_NAMES[layer(m)]:8}] {short(m):24} -> {targets}")
    return "\n".join(lines)


def test_no_import_cycles():
    """Also prints the graph (``pytest -rP`` or ``-s`` shows it): type-only imports are in it."""
    edges = graph()
    found = cycles(edges)
    print(render(edges))
    print(
        f"{len(edges)} modules, {sum(map(len, edges.values()))} imports (those under TYPE_CHECKING "
        f"included), {len(found)} import cycles"
    )
    assert found == [], "import cycles in labsupport:\n" + render(edges)


def test_nothing_imports_upward():
    assert upward(graph()) == [], "upward imports (see the layers in this file's docstring)"


def test_no_package_imports_inside_functions():
    assert function_imports() == [], "move these imports to the top of their module"


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_every_listed_module_exists(name):
    assert importlib.util.find_spec(name) is not None, f"LAYERS names {name}, which does not exist"


def test_every_module_has_a_layer_it_was_listed_for():
    unlisted = [
        m
        for m in graph()
        if not any(m == p or m.startswith(p + ".") for p in LAYERS if p != "labsupport") and m != "labsupport"
    ]
    assert unlisted == [], "add these modules to LAYERS"


@pytest.mark.parametrize("model", MODELS)
def test_every_model_has_the_parts_its_registry_entry_lists(model):
    modules = set(graph())
    missing = [p for p in PARTS[model] if f"{model}.{p}" not in modules]
    extra = sorted(m for m in modules if m.startswith(model + ".") and m.rpartition(".")[2] not in PARTS[model])
    assert missing == [] and extra == [], f"{model}: missing {missing}, unexpected {extra} (see labsupport._models)"


def test_every_model_package_is_registered():
    packages = {f"labsupport.{p.name}" for p in PACKAGE.iterdir() if (p / "config.py").exists()}
    assert packages == set(MODELS), "register each model once, in labsupport/_models.py"


@pytest.mark.parametrize("entry", REGISTERED, ids=lambda m: m.name)
def test_a_model_is_built_only_on_registered_models_before_it(entry):
    earlier = [m.name for m in REGISTERED[: REGISTERED.index(entry)]]
    assert set(entry.on) <= set(earlier), f"{entry.name} is built on {entry.on}; list those first"
    assert entry.parts[0] == "config" and "model" in entry.parts


def coursetools_mentions() -> list[str]:
    """``"module:line"`` of every import of ``coursetools`` in labsupport, and every string naming it
    that could be imported (``importlib.import_module("coursetools...")``, ``__import__``)."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                names = [node.value] if node.value.split(".")[0] == "coursetools" else []
            if any(n.split(".")[0] == "coursetools" for n in names):
                out.append(f"{module_name(path)}:{node.lineno}")
    return out


def test_labsupport_never_imports_coursetools():
    assert coursetools_mentions() == [], "labsupport imports (or names for import) the instructor's package"


def test_labsupport_imports_without_coursetools(tmp_path):
    """Every labsupport module imports in a Python where ``coursetools`` cannot be found (the book's
    extensions and the PDF tool aside: they are the course's machinery, to move to coursetools)."""
    machinery = ("labsupport.book", "labsupport.pdf", "labsupport.apidoc")
    modules = sorted(m for m in graph() if not m.startswith(machinery))
    (tmp_path / "sitecustomize.py").write_text(
        "import sys\n"
        "class _NoCoursetools:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'coursetools':\n"
        "            raise ImportError('coursetools is not installed for students')\n"
        "sys.meta_path.insert(0, _NoCoursetools())\n"
    )
    code = f"import importlib\nfor m in {modules!r}:\n    importlib.import_module(m)\nprint('ok')"
    check = "import importlib.util\ntry:\n    import coursetools\nexcept ImportError:\n    print('blocked')"
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    blocked = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, env=env, check=False)
    assert blocked.stdout.strip() == "blocked", "the test's blocker does not hide coursetools"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    assert done.stdout.strip() == "ok", done.stderr[-2000:]


def test_a_type_only_import_counts_and_closes_a_circle():
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .config import RaceConfig\n"
    modules = {"labsupport.race.engine", "labsupport.race.config"}
    assert imports_of("labsupport.race.engine", False, source, modules) == {"labsupport.race.config"}
    assert cycles({"a": {"b"}, "b": {"a"}}) == [["a", "b"]]


def test_the_graph_is_read_from_the_code():
    edges = graph()
    assert "labsupport.errors" in edges and edges["labsupport.errors"] == set()
    assert "labsupport.errors" in edges["labsupport.race"] | {
        t for m in edges if m.startswith("labsupport.race.") for t in edges[m]
    }


if __name__ == "__main__":
    edges = graph()
    print(render(edges))
    for group in cycles(edges):
        print("CYCLE:", " <-> ".join(group))
    for line in upward(edges):
        print("UPWARD:", line)
    for where in function_imports():
        print("IMPORT IN FUNCTION:", where)
    sys.exit(1 if cycles(edges) or upward(edges) else 0)
