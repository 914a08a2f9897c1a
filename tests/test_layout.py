"""The folders show the layers, and imports only ever point down them.

Every import counts: module level, inside functions, and under TYPE_CHECKING, so a lazy
import cannot hide a circle.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import confidante

ROOT = Path(confidante.__file__).parent

# Lowest first. A unit may import only units of an earlier layer (or itself).
LAYERS: list[set[str]] = [
    {"_version", "errors", "lazy_patterns"},
    {"model"},
    {"policy", "config"},
    {"privacy", "store"},
    {"vault"},
    {"recall"},
    {"engine"},
    {"services"},
    {"memory"},
    {"interop", "integrations"},
    {"surfaces.cli", "surfaces.http", "surfaces.mcp", "surfaces.dashboard"},
    {"server"},
    {"main"},
    {"__main__"},
]
SURFACES = LAYERS[-4]
LAYER_OF = {unit: i for i, layer in enumerate(LAYERS) for unit in layer}


def _unit(module: str) -> str | None:
    """`confidante.surfaces.http.routes` -> `surfaces.http`; the package root -> None."""
    parts = module.split(".")[1:]
    if not parts:
        return None
    if parts[0] == "surfaces" and len(parts) > 1:
        return f"surfaces.{parts[1]}"
    return parts[0]


def _module_of(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Absolute names of every confidante module `path` imports, anywhere in the file."""
    module = _module_of(path)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("confidante"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("confidante"):
                continue
            found.add(target)
            # `from . import guard` names a submodule, not an attribute
            for a in node.names:
                if (ROOT.parent / Path(*f"{target}.{a.name}".split("."))).with_suffix(
                    ".py"
                ).exists() or (ROOT.parent / Path(*f"{target}.{a.name}".split("."))).is_dir():
                    found.add(f"{target}.{a.name}")
    return found


def _unit_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for path in ROOT.rglob("*.py"):
        if "data" in path.relative_to(ROOT).parts:
            continue  # build scripts for vendored data, not part of the library
        src = _unit(_module_of(path))
        if src is None:
            continue
        for target in _imports(path):
            dst = _unit(target)
            if dst is not None and dst != src:
                graph[src].add(dst)
    return graph


def test_every_unit_has_a_layer() -> None:
    graph = _unit_graph()
    units = set(graph) | {d for ds in graph.values() for d in ds}
    assert units <= set(LAYER_OF), f"not placed in a layer: {sorted(units - set(LAYER_OF))}"


def test_imports_point_down_the_layers() -> None:
    upward = sorted(
        f"{src} -> {dst}"
        for src, dsts in _unit_graph().items()
        for dst in dsts
        if LAYER_OF[dst] >= LAYER_OF[src]
    )
    assert upward == []


def test_no_import_circle_between_folders() -> None:
    graph = _unit_graph()
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                raise AssertionError("import circle: " + " -> ".join([*path, node, nxt]))
            if nxt not in state:
                visit(nxt, [*path, node])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [])


def test_surfaces_never_import_each_other() -> None:
    graph = _unit_graph()
    crossing = sorted(f"{s} -> {d}" for s in SURFACES for d in graph.get(s, ()) if d in SURFACES)
    assert crossing == []


def test_policy_is_pure() -> None:
    """The policy imports only the vocabulary: no storage, crypto, web or I/O."""
    allowed = {"confidante.model", "confidante.errors"}
    assert _imports(ROOT / "policy.py") <= allowed
    tree = ast.parse((ROOT / "policy.py").read_text())
    stdlib = {
        a.name.split(".")[0]
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom)
        for a in (n.names if isinstance(n, ast.Import) else [ast.alias(n.module or "")])
    }
    assert stdlib.isdisjoint({"os", "sqlite3", "socket", "pathlib", "fastapi", "psycopg"})


def test_the_checker_sees_lazy_and_type_checking_imports() -> None:
    """The graph would miss a hidden circle if it read only module-level imports."""
    sample = ROOT / "engine" / "core.py"
    names = _imports(sample)
    assert "confidante.policy" in names
    hidden = ROOT / "services" / "lifecycle.py"
    assert "confidante.engine" in _imports(hidden)  # imported only under TYPE_CHECKING


def test_every_exception_is_exported_at_the_package_root() -> None:
    import inspect

    import confidante.errors as errors

    classes = {
        name
        for name, obj in vars(errors).items()
        if inspect.isclass(obj) and issubclass(obj, errors.ConfidanteError)
    }
    assert classes <= set(confidante.__all__)
    for name in classes:
        assert getattr(confidante, name) is getattr(errors, name)
