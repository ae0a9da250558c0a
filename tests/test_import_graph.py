"""labsupport's import graph, read from the code with :mod:`ast`: no cycles, nothing imports upward.

Run ``python tests/test_import_graph.py`` to print the graph, one module a line with the modules it
imports, bottom layer first.

Layers (a module may import only from its own layer or a lower one)::

    0  base      errors, clock, _validate, _sweep, presets, route53, timeline, dependencies
    1  engines   the private simulation engines of each model (race.engine, dwfm.engine, _network_sim, _nlb_sim,
                 _explore_protocol)
    2  models    one home per model: race/ (config, model, sweep), dwfm/ (model, sweep), network,
                 dns_cache (config, run, summary, sweep)
    3  composed  models built on other models: nlb (on network), explore/ (on race), chain/ (on all)
    4  charts    labsupport.charts and its per-model modules
    5  wiring    widgets/ (panel, one module per lab panel), book, colab, student, pdf

The package's ``__init__`` imports only the errors, so it counts as the base.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path


PACKAGE = Path(__file__).resolve().parents[1] / "labsupport"

#: The layer of each module, by the first part of its dotted name that is listed (longest first).
LAYERS: dict[str, int] = {
    "labsupport.errors": 0, "labsupport.clock": 0, "labsupport._validate": 0, "labsupport._sweep": 0,
    "labsupport.presets": 0, "labsupport.route53": 0, "labsupport.timeline": 0,
    "labsupport.dependencies": 0,
    "labsupport": 0,
    "labsupport.race": 2, "labsupport.dwfm": 2, "labsupport.network": 2,
    "labsupport.dns_cache": 2,
    "labsupport.nlb": 3, "labsupport.explore": 3, "labsupport.chain": 3,
    "labsupport._chain_stages": 3, "labsupport._chain_sweep": 3,
    "labsupport.charts": 4,
    "labsupport.widgets": 5, "labsupport.book": 5, "labsupport.colab": 5, "labsupport.student": 5,
    "labsupport.pdf": 5,
}
#: Modules inside a single model's home that are its engine (layer 1): the model imports them.
ENGINE_SUFFIXES = (".engine",)
#: Flat engine modules: the network's, NLB's and the explorer's protocol, and (for the BEFORE graph) old ones.
ENGINE_MODULES = {"labsupport._dwfm_sim", "labsupport._nlb_sim", "labsupport._race_sim",
                  "labsupport._network_sim", "labsupport._explore_protocol"}
LAYER_NAMES = ("base", "engines", "models", "composed", "charts", "wiring")


def module_name(path: Path) -> str:
    """The dotted name of a file under :data:`PACKAGE` (``labsupport/charts/race.py`` -> ``labsupport.charts.race``)."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer(module: str) -> int:
    """The layer of ``module``: an engine is 1, otherwise the longest listed prefix in :data:`LAYERS`."""
    if module in ENGINE_MODULES or (module.endswith(ENGINE_SUFFIXES) and not module.startswith(
            ("labsupport.chain", "labsupport.nlb", "labsupport.explore"))):
        return 1
    best = max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len)
    return LAYERS[best]


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
    """``{module: {labsupport modules it imports at run time}}``; ``if TYPE_CHECKING:`` blocks are skipped."""
    files = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
    edges: dict[str, set[str]] = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found: set[str] = set()
        for node in _runtime_nodes(tree):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                targets = _resolve(name, path.name == "__init__.py", node)
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names if a.name.startswith("labsupport")]
            found |= {t for t in targets if t in files and t != name}
        edges[name] = found
    return edges


def _runtime_nodes(tree: ast.AST):
    """Every import node except those under ``if TYPE_CHECKING:``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def function_imports() -> list[str]:
    """``"module:line"`` of every labsupport import inside a function (the package allows none)."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(fn):
                    if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("labsupport")):
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
    """``"a (layer) -> b (layer)"`` for every import of a higher layer, except a package's own ``__init__``."""
    out = []
    for a, targets in sorted(edges.items()):
        for b in sorted(targets):
            if layer(b) > layer(a) and not a == b.rsplit(".", 1)[0]:
                out.append(f"{a} ({LAYER_NAMES[layer(a)]}) -> {b} ({LAYER_NAMES[layer(b)]})")
    return out


def render(edges: dict[str, set[str]]) -> str:
    """The graph as text, bottom layer first: ``[layer] module -> a, b``."""
    short = lambda m: m.removeprefix("labsupport.") if m != "labsupport" else "labsupport"  # noqa: E731
    lines = []
    for m in sorted(edges, key=lambda m: (layer(m), m)):
        targets = ", ".join(sorted(short(t) for t in edges[m])) or "-"
        lines.append(f"[{layer(m)} {LAYER_NAMES[layer(m)]:7}] {short(m):28} -> {targets}")
    return "\n".join(lines)




def test_no_import_cycles():
    assert cycles(graph()) == [], "import cycles in labsupport:\n" + render(graph())


def test_nothing_imports_upward():
    assert upward(graph()) == [], "upward imports (see the layers in this file's docstring)"


def test_no_package_imports_inside_functions():
    assert function_imports() == [], "move these imports to the top of their module"


def test_the_graph_is_read_from_the_code():
    edges = graph()
    assert "labsupport.errors" in edges and edges["labsupport.errors"] == set()
    assert "labsupport.errors" in edges["labsupport.race"] | {
        t for m in edges if m.startswith("labsupport.race.") for t in edges[m]}


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
