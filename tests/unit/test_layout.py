"""The tooling package's layout (issues 27 and 37): one concern per folder, and no
cycle of imports of any length. Function-level imports count (a cycle hidden in a
function is still a cycle), and so does a module started by name
(``[sys.executable, "-m", "devguide.run.zygote"]``): the starter depends on it."""

import ast
import re
from pathlib import Path

from devguide import paths

PACKAGE = paths.REPO / "devguide"
# a module started as a program: "-m", "pkg.x.y" in an argument list
STARTED = re.compile(r"^[A-Za-z_]\w*(?:\.\w+)+$")


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
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.List, ast.Tuple)):  # [..., "-m", "devguide.run.zygote", ...]
                items = [e.value if isinstance(e, ast.Constant) else None for e in node.elts]
                found.update(b for a, b in zip(items, items[1:], strict=False) if a == "-m" and isinstance(b, str) and STARTED.match(b))
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


def cycles(graph: dict[str, set[str]]) -> list[str]:
    """Every strongly connected group of more than one module (Tarjan's algorithm),
    written as one cycle through it ("a -> b -> c -> a"), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(" -> ".join(_one_cycle(graph, group)) for group in found)


def _one_cycle(graph: dict[str, set[str]], group: list[str]) -> list[str]:
    """A shortest cycle through the group's first module (breadth-first inside the group)."""
    start, members = group[0], set(group)
    trail = {start: [start]}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph.get(v, set()) & members):
            if w == start:
                return [*trail[v], start]
            if w not in trail:
                trail[w] = [*trail[v], w]
                queue.append(w)
    return group


def test_no_modules_depend_on_each_other_through_a_cycle_of_any_length():
    graph = imports(PACKAGE)
    assert {"devguide.pytest_plugin", "devguide.mkdocs_plugin.report.validation_page",
            "devguide.mkdocs_plugin.hooks.reading"} <= graph.keys()
    assert "devguide.paths" in graph["devguide.census.file"]  # the graph sees imports at all
    assert "devguide.run.zygote" in graph["devguide.run.zygote_client"]  # and programs started by name
    found = cycles(graph)
    assert not found, ("modules that depend on each other in a cycle (move the shared piece into one "
                       f"of them, or into a module both import): {found}")


def package(tmp_path: Path, files: dict[str, str]) -> Path:
    """A scratch package ``pkg`` with these files (paths relative to it)."""
    root = tmp_path / "pkg"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_a_cycle_is_found_wherever_its_import_hides(tmp_path):
    """The check itself: a function-level import, a relative one and ``from pkg import
    module`` all make edges; a name imported from a module is an edge to that module."""
    graph = imports(package(tmp_path, {
        "__init__.py": "",
        "a.py": "def f():\n    from pkg import b\n",
        "b.py": "from .a import f\n",
        "c.py": "import pkg.sub.d\n",
        "sub/__init__.py": "",
        "sub/d.py": "from ..c import x\nfrom pkg.sub import e\n",
        "sub/e.py": "from pkg import config\n",
    }))
    assert graph["pkg.a"] == {"pkg.b"} and graph["pkg.b"] == {"pkg.a"}
    assert graph["pkg.sub.d"] == {"pkg.c", "pkg.sub.e"} and graph["pkg.sub.e"] == {"pkg"}
    assert cycles(graph) == ["pkg.a -> pkg.b -> pkg.a", "pkg.c -> pkg.sub.d -> pkg.c"]


def test_a_long_cycle_and_a_program_started_by_name_are_found(tmp_path):
    """Three modules in a ring are a cycle too, and ``"-m", "pkg.a"`` in an argument
    list is an edge to ``pkg.a`` (a client that starts its server by name)."""
    graph = imports(package(tmp_path, {
        "__init__.py": "",
        "a.py": "from pkg import b\n",
        "b.py": "from pkg import c\n",
        "c.py": "import subprocess, sys\nsubprocess.run([sys.executable, '-m', 'pkg.a'])\n",
        "d.py": "from pkg import a\n",
    }))
    assert graph["pkg.c"] == {"pkg.a"}
    assert cycles(graph) == ["pkg.a -> pkg.b -> pkg.c -> pkg.a"]
