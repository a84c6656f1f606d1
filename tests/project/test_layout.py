"""The package layout of CONTRIBUTING.md holds: packages import only those
before them, no module imports back into a cycle, no module is over 600
lines, and no private name is imported from another package.
"""

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "diffident"
# each package may import the ones before it (the top level: anything)
ORDER = ["_kernels", "_numerics", "_typing", "_worlds", "_risk", "_calibrate", "dp", "rr", "_mechanisms", "_sweep"]
TOP = {"__init__", "__main__", "cli", "dask", "replicate", "testing"}
MODULES = sorted(p for p in SRC.rglob("*.py"))


def _package(rel):
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def _imports(path):
    """(target parts, name, line) of every relative import outside ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text())
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            skip.update(id(n) for n in ast.walk(node))
    rel = path.relative_to(SRC)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level and id(node) not in skip:
            here = list(rel.parts[:-1])
            base = here[:len(here) - (node.level - 1)]
            target = base + (node.module.split(".") if node.module else [])
            for alias in node.names:
                yield target, alias.name, node.lineno


def _module_of(target, name):
    """The module an import reads: ``target.name`` where that is a module, else ``target``."""
    sub = SRC.joinpath(*target, name)
    if sub.with_suffix(".py").exists() or (sub / "__init__.py").exists():
        return tuple(target + [name])
    return tuple(target)


def test_packages_import_only_those_before_them():
    bad = []
    for path in MODULES:
        rel = path.relative_to(SRC)
        pkg = _package(rel)
        if pkg in TOP:
            continue
        for target, name, line in _imports(path):
            other = _package(Path(*_module_of(target, name))) if target or name else pkg
            if other != pkg and other in ORDER and ORDER.index(other) > ORDER.index(pkg):
                bad.append(f"{rel}:{line} imports {other}")
            elif other != pkg and other not in ORDER:
                bad.append(f"{rel}:{line} imports the top level ({other})")
    assert not bad, "\n".join(bad)


def test_no_import_cycle():
    graph = {}
    for path in MODULES:
        rel = path.relative_to(SRC)
        me = tuple(rel.with_suffix("").parts)
        graph[me] = {_module_of(t, n) for t, n, _ in _imports(path)} - {me, ()}
    state = {}

    def visit(node, stack):
        state[node] = 1
        for nxt in graph.get(node, ()):
            nxt = nxt if nxt in graph else nxt + ("__init__",)
            if state.get(nxt) == 1:
                pytest.fail("import cycle: " + " -> ".join(".".join(n) for n in stack + [nxt]))
            if nxt in graph and not state.get(nxt):
                visit(nxt, stack + [nxt])
        state[node] = 2

    for node in graph:
        if not state.get(node):
            visit(node, [node])


def test_no_module_over_600_lines():
    long = {str(p.relative_to(SRC)): n for p in MODULES if (n := len(p.read_text().splitlines())) > 600}
    assert not long


def test_no_private_name_crosses_a_package():
    bad = []
    for path in MODULES:
        rel = path.relative_to(SRC)
        for target, name, line in _imports(path):
            other = _package(Path(*target)) if target else ""
            private = name.startswith("_") and not name.startswith("__")
            if private and other != _package(rel) and len(_module_of(target, name)) == len(target):
                bad.append(f"{rel}:{line} imports {'.'.join(target)}.{name}")
    assert not bad, "\n".join(bad)
