"""The package's structure (CONTRIBUTING.md): stages in layers, imports only downwards or
sideways, and no import circles, between modules or between packages. Read from the source
with `ast`, lazy imports inside functions included."""

from __future__ import annotations

import ast
import functools
from collections import defaultdict
from pathlib import Path

import cardgen

PACKAGE = Path(cardgen.__file__).parent
LAYERS = [  # bottom to top; a module may import from its own layer and the ones below
    {"cardgen", "cardgen.errors", "cardgen.interrupt", "cardgen.atomic", "cardgen.units", "cardgen.cache", "cardgen.buildstamp", "cardgen.builtin",
     "cardgen.colour", "cardgen.pngmeta", "cardgen.contain", "cardgen.outputs", "cardgen.files", "cardgen.words"},
    {"cardgen.data", "cardgen.i18n"},
    {"cardgen.buildtypes", "cardgen.console"},  # what the stages hand each other (holds a Snapshot)
    {"cardgen.render"},
    {"cardgen.cardstage", "cardgen.preflight", "cardgen.imposition", "cardgen.rulebook", "cardgen.export", "cardgen.diff",
     "cardgen.simulate", "cardgen.balance"},
    {"cardgen.pipeline", "cardgen.preview"},
    {"cardgen.commands", "cardgen.cli", "cardgen.__main__"},
]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    """Which cardgen modules each module imports (a copy for the caller to change)."""
    return defaultdict(set, {name: set(targets) for name, targets in _read_imports().items()})


@functools.cache
def _read_imports() -> dict[str, frozenset[str]]:
    """The import graph as the sources say, parsed once for the module's tests (0.9 s of CPU a parse)."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(anchor + ([base] if base else []))
                submodules = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules]
                targets = submodules or [base]  # `from . import fonts` imports the module fonts
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            graph[name].update(t for t in targets if t in modules)
        graph[name].discard(name)
    return {name: frozenset(targets) for name, targets in graph.items()}


def _layer(module: str) -> int:
    for level, members in enumerate(LAYERS):
        if any(module == m or module.startswith(m + ".") for m in members if m != "cardgen") or module == "cardgen":
            return level
    raise AssertionError(f"{module} belongs to no layer: add it to LAYERS and CONTRIBUTING.md")


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_graph_is_read():
    graph = _imports()
    assert "cardgen.cardstage" in graph["cardgen.pipeline"]
    assert "cardgen.data.snapshot" in graph["cardgen.render.cards"]
    assert "cardgen.render.svgconvert" in graph["cardgen.render.rasterise"]  # a lazy import counts
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_imports_a_higher_layer():
    upward = [f"{a} -> {b}" for a, targets in _imports().items() for b in targets if _layer(b) > _layer(a)]
    assert upward == []


def test_no_import_circles_between_modules():
    assert _cycles(_imports()) == []


def test_no_import_circles_between_packages():
    def package(module: str) -> str:
        return ".".join(module.split(".")[:2])

    graph: dict[str, set[str]] = defaultdict(set)
    for a, targets in _imports().items():
        graph[package(a)].update(package(b) for b in targets if package(b) != package(a))
    assert _cycles(graph) == []
