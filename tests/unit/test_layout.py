"""The tooling package's layout (issue 27): modules with one job each, so none
longer than MAX_LINES, and no two modules that import each other (function-level
imports count: a cycle hidden in a function is still a cycle)."""

import ast
from pathlib import Path

from devguide import paths

PACKAGE = paths.REPO / "devguide"
MAX_LINES = 400


def module_name(path: Path, root: Path) -> str:
    """devguide/mkdocs_plugin/hooks/reading.py → devguide.mkdocs_plugin.hooks.reading (a package: its __init__)."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(root: Path) -> dict[str, set[str]]:
    """Each module of the package at ``root`` → the package's modules it imports, anywhere
    in it. ``from pkg import name`` imports ``pkg.name`` when that is a module, else ``pkg``."""
    modules = {module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # from . import x, from ..y import z
                    anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join([*anchor, *([base] if base else [])])
                found.update(f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names)
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def mutual_imports(graph: dict[str, set[str]]) -> list[str]:
    return sorted(f"{a} <-> {b}" for a, targets in graph.items() for b in targets if a < b and a in graph.get(b, ()))


def test_no_module_is_longer_than_the_limit():
    long = {
        path.relative_to(paths.REPO).as_posix(): n
        for path in sorted(PACKAGE.rglob("*.py"))
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, f"modules over {MAX_LINES} lines (split them where their jobs part): {long}"


def test_no_two_modules_import_each_other():
    graph = imports(PACKAGE)
    assert {"devguide.pytest_plugin", "devguide.mkdocs_plugin.report.validation_page", "devguide.mkdocs_plugin.hooks.reading"} <= graph.keys()
    assert "devguide.paths" in graph["devguide.census.file"]  # the graph sees imports at all
    cycles = mutual_imports(graph)
    assert not cycles, f"modules that import each other (move the shared piece into one of them or a third): {cycles}"


def test_a_cycle_is_found_wherever_its_import_hides(tmp_path):
    """The check itself: a function-level import, a relative one and ``from pkg import
    module`` all make edges; a name imported from a module is an edge to that module."""
    root = tmp_path / "pkg"
    (root / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "a.py": "def f():\n    from pkg import b\n",
        "b.py": "from .a import f\n",
        "c.py": "import pkg.sub.d\n",
        "sub/__init__.py": "",
        "sub/d.py": "from ..c import x\nfrom pkg.sub import e\n",
        "sub/e.py": "from pkg import config\n",
    }
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    graph = imports(root)
    assert graph["pkg.a"] == {"pkg.b"} and graph["pkg.b"] == {"pkg.a"}
    assert graph["pkg.sub.d"] == {"pkg.c", "pkg.sub.e"} and graph["pkg.sub.e"] == {"pkg"}
    assert mutual_imports(graph) == ["pkg.a <-> pkg.b", "pkg.c <-> pkg.sub.d"]
