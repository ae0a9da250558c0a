"""The import graph of the course's two packages, read from the code with :mod:`ast`: no cycles,
nothing imports upward, and ``labsupport`` never imports ``coursetools``.

Run ``python tests/base/test_import_graph.py`` (or ``pytest -rP`` on this file) to print the graph,
one module a line with the modules it imports, bottom layer first: ``labsupport``'s layers, then
``coursetools``'.

``labsupport``, what a learner imports (layers 0 to 4; a module may import only from its own layer
or a lower one)::

    0  base      errors, clock, _validate, _sweep, _engine, _models, _memo, presets, route53, timeline,
                 dependencies, strategy, enactor (a student's Enactor step: its contract and how the engines
                 drive it), quiz: the concept quiz's questions (its key, scoring and HTML are coursetools');
                 feedback (a check's report)
    1  models    one package per model: race/, dwfm/, network/, dns_cache/
    2  composed  models built on other models: nlb/ (on network), explore/ (on race), chain/ (on all),
                 game/ (on chain)
    3  charts    labsupport.charts and its per-model modules; beside them, what a learner practises
                 with: practice/ (a problem generator per model) and exercises/ (the labs' checks)
    4  wiring    widgets/ (panel, one module per lab panel), assignments/ (the student's side)

``coursetools``, the course's machinery (``tools/``), above all of ``labsupport``, whose modules it
may import (layers 5 to 7)::

    5  tools     coursetools, repository (the course repository a command works on), colab (the
                 published address, the install cells), quiz and _quiz_html (the quiz's key and pages)
    6  machinery student/ (the student-copy writer), apidoc (the API pages' helpers), grading/ (the
                 grader, its keys, its Gradescope and Colab releases)
    7  book      book (the book's Sphinx extension; it marks the pages with a student copy), pdf
                 (the PDF of the built book)

``labsupport`` never imports ``coursetools``, in any statement anywhere, so that a student's install,
which holds ``labsupport`` alone, works without it and holds nothing of it. Neither package reaches
for the repository's root from where its files are installed (``Path(__file__).parents[...]`` out of
the package) or from the current directory at import: a command is given the root at run time
(``coursetools.repository``).

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
import re
import subprocess
import sys
from pathlib import Path

import pytest

from labsupport._models import MODELS as REGISTERED

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "labsupport"
#: The two packages by name: what a learner imports, and the course's machinery (``tools/``).
PACKAGES: dict[str, Path] = {"labsupport": PACKAGE, "coursetools": ROOT / "tools" / "coursetools"}

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
    "labsupport.assignments": 4,
    "coursetools": 5,
    "coursetools.repository": 5,
    "coursetools.colab": 5,
    "coursetools.quiz": 5,
    "coursetools._quiz_html": 5,
    "coursetools.student": 6,
    "coursetools.apidoc": 6,
    "coursetools.grading": 6,
    "coursetools.book": 7,
    "coursetools.pdf": 7,
}
LAYER_NAMES = ("base", "models", "composed", "charts", "wiring", "tools", "machinery", "book")
#: The packages that are models (layers 1 and 2), each with the parts its registry entry lists, in that order.
MODELS = tuple(m.module for m in REGISTERED)
PARTS: dict[str, tuple[str, ...]] = {m.module: m.parts for m in REGISTERED}


def module_name(path: Path) -> str:
    """The dotted name of a file of :data:`PACKAGES` (``labsupport/charts/race.py`` -> ``labsupport.charts.race``)."""
    package = next(p for p in PACKAGES.values() if p == path or p in path.parents)
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
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
    if target.split(".")[0] not in PACKAGES:
        return []
    # ``from . import race`` imports the submodule labsupport.race, not the package's own names
    names = [target] if node.module else []
    return names + [f"{target}.{a.name}" for a in node.names]


def package_files() -> list[Path]:
    """Every module of both packages, ``labsupport``'s first."""
    return [p for package in PACKAGES.values() for p in sorted(package.rglob("*.py"))]


def graph() -> dict[str, set[str]]:
    """``{module: {modules of either package it imports}}``, ``if TYPE_CHECKING:`` blocks included."""
    files = {module_name(p): p for p in package_files()}
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
            targets = [a.name for a in node.names if a.name.split(".")[0] in PACKAGES]
        else:
            continue
        found |= {t for t in targets if t in modules and t != name}
    return found


def function_imports() -> list[str]:
    """``"module:line"`` of every import of either package inside a function (neither allows one)."""
    out = []
    for path in package_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(fn):
                    if (isinstance(node, ast.ImportFrom) and (node.level or _ours(node.module or ""))) or (
                        isinstance(node, ast.Import) and any(_ours(a.name) for a in node.names)
                    ):
                        out.append(f"{module_name(path)}:{node.lineno}")
    return out


def _top(module: str) -> str:
    return module.split(".")[0]


def _ours(module: str) -> bool:
    return _top(module) in PACKAGES


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
    """The graph as text, bottom layer first: ``[layer] module -> a, b``, each package under a heading.

    A module of the package under its heading is named without the package's prefix
    (``charts.race``, ``grading.lab01``); one of the other package in full (``labsupport.errors``).
    """
    headings = {
        "labsupport": "labsupport, what a learner imports:",
        "coursetools": "coursetools, the course's machinery:",
    }
    lines, package = [], ""

    def short(m: str) -> str:
        return m if m == package or not m.startswith(package + ".") else m.removeprefix(package + ".")

    for m in sorted(edges, key=lambda m: (layer(m), m)):
        if m.split(".")[0] != package:
            package = m.split(".")[0]
            lines.append(headings[package])
        targets = ", ".join(sorted(short(t) for t in edges[m])) or "-"
        lines.append(f"[{layer(m)} {LAYER_NAMES[layer(m)]:9}] {short(m):28} -> {targets}")
    return "\n".join(lines)


def test_no_import_cycles():
    """Also prints the graph (``pytest -rP`` or ``-s`` shows it): type-only imports are in it."""
    edges = graph()
    found = cycles(edges)
    print(render(edges))
    for package in PACKAGES:
        mine = {m: t for m, t in edges.items() if m.split(".")[0] == package}
        other = [o for t in mine.values() for o in t if o.split(".")[0] != package]
        print(
            f"{package}: {len(mine)} modules, {sum(map(len, mine.values()))} imports (those under TYPE_CHECKING "
            f"included), {len(other)} of them of the other package ({', '.join(sorted({*map(_top, other)})) or 'none'})"
        )
    print(f"{len(found)} import cycles")
    assert found == [], "import cycles:\n" + render(edges)


def test_nothing_imports_upward():
    assert upward(graph()) == [], "upward imports (see the layers in this file's docstring)"


def test_no_package_imports_inside_functions():
    assert function_imports() == [], "move these imports to the top of their module"


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_every_listed_module_exists(name):
    assert importlib.util.find_spec(name) is not None, f"LAYERS names {name}, which does not exist"


def test_every_module_has_a_layer_it_was_listed_for():
    listed = [p for p in LAYERS if p not in PACKAGES]  # a package's own name lists only its __init__
    unlisted = [m for m in graph() if m not in PACKAGES and not any(m == p or m.startswith(p + ".") for p in listed)]
    assert unlisted == [], "add these modules to LAYERS"


def test_every_module_of_coursetools_sits_above_every_module_of_labsupport():
    assert max(layer(m) for m in graph() if m.split(".")[0] == "labsupport") < min(
        layer(m) for m in graph() if m.split(".")[0] == "coursetools"
    )


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


def test_no_labsupport_module_imports_one_of_coursetools():
    """The graph's half of the rule (:func:`coursetools_mentions` also finds names given to importlib)."""
    edges = graph()
    into = sorted(
        f"{m} -> {t}" for m in edges if m.split(".")[0] == "labsupport" for t in edges[m] if t.startswith("coursetools")
    )
    assert into == []
    assert any(t.startswith("labsupport") for m in edges if m.startswith("coursetools.") for t in edges[m])


def test_labsupport_imports_without_coursetools(tmp_path):
    """Every labsupport module imports in a Python where ``coursetools`` cannot be found."""
    modules = sorted(m for m in graph() if m.split(".")[0] == "labsupport")
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


#: ``Path(__file__)`` (or a package's ``__file__``), resolved or not, then how far it climbs.
_CLIMB = re.compile(
    r"Path\((?P<base>(?:\w+\.)?__file__)\)(?:\.resolve\(\))?(?:(?P<up>(?:\.parent\b)+)|\.parents\[(?P<n>\d+)\])?"
)


def reaches_outside() -> list[str]:
    """``"path:line"`` of every expression that climbs from a module's file out of its package
    (``Path(__file__).resolve().parents[3]``), and of every read of the current directory outside a
    function (at import)."""
    out = []
    for path in package_files():
        package = next(p for p in PACKAGES.values() if p in path.parents)
        depth = len(path.relative_to(package).parts) - 1  # parents[depth] is the package's own folder
        source = path.read_text(encoding="utf-8")
        for m in _CLIMB.finditer(source):
            own = m["base"] == "__file__"
            if not own and m["base"].split(".")[0] not in PACKAGES:
                out.append(
                    f"{path.relative_to(ROOT)}:{source.count(chr(10), 0, m.start()) + 1} (another module's file)"
                )
                continue
            climb = m["up"].count(".parent") - 1 if m["up"] else int(m["n"]) if m["n"] else -1
            if climb > (depth if own else 0):
                out.append(f"{path.relative_to(ROOT)}:{source.count(chr(10), 0, m.start()) + 1}")
        out += [
            f"{path.relative_to(ROOT)}:{line} (the current directory, at import)" for line in _cwd_at_import(source)
        ]
    return out


def _cwd_at_import(source: str) -> list[int]:
    """Lines that call ``Path.cwd()`` or ``os.getcwd()`` outside every function."""
    tree = ast.parse(source)
    inside = {
        id(n)
        for fn in ast.walk(tree)
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for n in ast.walk(fn)
    }
    return [
        n.lineno
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr in ("cwd", "getcwd")
        and id(n) not in inside
    ]


def test_nothing_reaches_for_the_repository_root():
    """No module finds the repository from where its own file lies, nor reads the current directory
    at import: the course's commands take the root at run time (``coursetools.repository``)."""
    assert reaches_outside() == []


def test_the_reach_check_finds_a_climb_out_of_the_package_and_a_cwd_at_import():
    assert _CLIMB.search('Path(__file__).resolve().parents[3] / "assignments"')["n"] == "3"
    assert _CLIMB.search("Path(__file__).parent.parent")["up"] == ".parent.parent"
    assert _cwd_at_import("import os\nROOT = os.getcwd()\ndef f():\n    return Path.cwd()\n") == [2]


def test_coursetools_imports_from_outside_the_repository(tmp_path):
    """Every coursetools module imports with the current directory outside the repository."""
    modules = sorted(m for m in graph() if m.split(".")[0] == "coursetools")
    code = f"import importlib\nfor m in {modules!r}:\n    importlib.import_module(m)\nprint('ok')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=False)
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
    for where in coursetools_mentions():
        print("LABSUPPORT NAMES COURSETOOLS:", where)
    for where in reaches_outside():
        print("REACHES FOR THE REPOSITORY ROOT:", where)
    failed = cycles(edges) or upward(edges) or function_imports() or coursetools_mentions() or reaches_outside()
    sys.exit(1 if failed else 0)
