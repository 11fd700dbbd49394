# SPDX-License-Identifier: Apache-2.0
"""No import circle in the package (issue 35): the modules of bindings/python/
tessera are parsed, every import is followed (those inside functions too: a
lazy import is a dependency all the same), and the graph must have no cycle.
The layers it must follow are the README's table (bindings/python/README.md).

An import `from P import name` depends on the module P.name when there is
one, else on P, whose namespace it reads. A package importing its own
submodules (tessera/__init__.py re-exporting) is the layering, not a cycle,
so the implicit "a submodule's package runs first" is not an edge; a
submodule that reads its package's namespace (`from .. import where`) is."""
import ast
import os

import pytest

import tessera

PACKAGE = os.path.dirname(os.path.abspath(tessera.__file__))
# Modules that are not Python source: the extension, and what the wheel's setup.py writes.
NOT_SOURCE = {"tessera._C", "tessera._installed"}


def _modules(root=PACKAGE):
    """{dotted name: path} for every .py module of the package."""
    base = os.path.dirname(root)
    mods = {}
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(d, f)
                name = os.path.relpath(path, base)[:-3].replace(os.sep, ".")
                mods[name[:-len(".__init__")] if name.endswith(".__init__") else name] = path
    return mods


def _targets(mods, module, node):
    """The modules an import statement of `module` depends on."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if node.level:
        parts = module.split(".")
        if not mods[module].endswith("__init__.py"):
            parts = parts[:-1]  # a module's relative base is its package
        parts = parts[:len(parts) - node.level + 1]
        package = ".".join(parts + ([node.module] if node.module else []))
    else:
        package = node.module or ""
    found = []
    for a in node.names:
        sub = package + "." + a.name
        found.append(sub if sub in mods or sub in NOT_SOURCE else package)
    return found


def import_graph(mods):
    graph = {}
    for module, path in mods.items():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        deps = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _targets(mods, module, node):
                    while target not in mods and target not in NOT_SOURCE and "." in target:  # a.b.x -> a.b
                        target = target.rsplit(".", 1)[0]
                    if target in mods and target != module:
                        deps.add(target)
        graph[module] = deps
    return graph


def cycles(graph):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _describe(graph, component):
    inside = set(component)
    return "\n".join("  %s -> %s" % (m, ", ".join(sorted(graph[m] & inside))) for m in component)


def test_the_package_has_no_import_circle():
    graph = import_graph(_modules())
    assert len(graph) > 30, sorted(graph)  # the walk found the package
    found = cycles(graph)
    assert not found, "import circles:\n" + "\n\n".join(_describe(graph, c) for c in found)


@pytest.mark.parametrize("source, circle", [
    ({"a": "from . import b\n", "b": "def f():\n    from .c import g\n", "c": "from .a import x\n"}, True),
    ({"a": "from . import b\n", "b": "from .c import g\n", "c": "import os\n"}, False),
    ({"__init__": "from .a import f\n", "a": "from . import b\n", "b": "from . import where\n"}, True),
    ({"__init__": "from .a import f\n", "a": "from . import b\n", "b": "from . import _C\n"}, False),
])
def test_the_check_finds_a_circle_where_there_is_one(tmp_path, source, circle):
    root = tmp_path / "tessera"
    root.mkdir()
    for name, text in source.items():
        (root / (name + ".py")).write_text(text)
    if "__init__" not in source:
        (root / "__init__.py").write_text("")
    assert bool(cycles(import_graph(_modules(str(root))))) == circle
