"""The layers of DESIGN.md and docs/architecture.md, checked over the AST of every module.

cli -> commands -> app -> kinds (through the KINDS registry) -> core; render -> core; load -> admit -> core.
core and kinds are pure (no I/O modules). Every import counts, wherever it is written: at
module level, inside a function, under ``if TYPE_CHECKING``, or as ``import_module("...")``
with a literal name. A package's ``__init__`` being run before its submodules is Python's
doing, not an import, so ``from . import sibling`` is an edge to ``sibling`` only.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "rolloutctl"

ALLOWED = {
    "core": {"core"},
    "kinds": {"kinds", "core"},
    "load": {"load", "core", "admit"},
    "admit": {"admit", "core", "schemas_access"},
    "render": {"render", "core"},
    "lint": {"lint", "core", "kinds", "load", "admit", "schemas_access"},
    "advise": {"advise", "core"},
    "app": {"core", "kinds", "load", "admit", "lint", "schemas_access", "advise"},
    "commands": {"app", "core", "kinds", "load", "admit", "lint", "schemas_access", "advise"},
    "cli_common": {"app", "render", "load"},
    "cli": {"cli_common", "core", "commands", "app", "render", "load", "schemas_access", "lint"},
    "launch": {"cli", "core"},
}
IMPURE = {"subprocess", "socket", "random", "time", "datetime", "requests", "urllib", "http"}

#: which operator packages each operator package may import (DESIGN.md: kinds are
#: independent; Kueue admits and suspends KubeRay's objects, so it reads KubeRay's model)
KIND_DEPENDS = {
    "grove": set(),
    "kuberay": set(),
    "kueue": {"kuberay"},
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PKG.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@lru_cache(maxsize=None)
def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def _raw_imports(path: Path) -> list[tuple[str, tuple[str, ...]]]:
    """(module, names imported from it) of every import in ``path``, absolute."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: list[tuple[str, tuple[str, ...]]] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.append((mod, tuple(a.name for a in node.names)))
        elif isinstance(node, ast.Import):
            out.extend((a.name, ()) for a in node.names)
        elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)
              and (getattr(node.func, "id", None) or getattr(node.func, "attr", None)) == "import_module"):
            out.append((node.args[0].value, ()))
    return out


@lru_cache(maxsize=None)
def _edges(module: str) -> frozenset[str]:
    """The rolloutctl modules ``module`` imports (``from pkg import sub`` is ``pkg.sub``)."""
    mods = _modules()
    out = set()
    for mod, names in _raw_imports(mods[module]):
        subs = [f"{mod}.{n}" for n in names if f"{mod}.{n}" in mods]
        if subs:
            out.update(subs)
        if mod in mods and len(subs) < max(1, len(names)):
            out.add(mod)
    out.discard(module)
    return frozenset(out)


def _cycles(graph: dict[str, frozenset[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    scc = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        scc.append(w)
                        if w == v:
                            break
                    if len(scc) > 1:
                        found.append(sorted(scc))
    return found


def _graph() -> dict[str, frozenset[str]]:
    return {m: _edges(m) for m in _modules()}


def test_no_import_cycles():
    """A cycle marks a helper in the wrong module: move it to a leaf both sides import."""
    cycles = _cycles(_graph())
    assert cycles == [], "import cycles (function-level imports count): " + "; ".join(
        " <-> ".join(c) for c in cycles)


def test_cycle_checker_finds_function_level_cycles():
    """The checker sees a cycle closed by an import inside a function body."""
    graph = {"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset({"a"}), "d": frozenset({"a"})}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": frozenset({"b"}), "b": frozenset()}) == []


def test_edges_count_function_level_and_dynamic_imports(tmp_path, monkeypatch):
    pkg = tmp_path / "rolloutctl"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "a.py").write_text("def f():\n    from . import b\n")
    (pkg / "sub" / "b.py").write_text("from importlib import import_module\n"
                                      "def g():\n    return import_module('rolloutctl.sub.a')\n")
    monkeypatch.setattr(__import__(__name__, fromlist=["PKG"]), "PKG", pkg)
    _modules.cache_clear()
    _edges.cache_clear()
    try:
        assert _edges("rolloutctl.sub.a") == {"rolloutctl.sub.b"}
        assert _edges("rolloutctl.sub.b") == {"rolloutctl.sub.a"}
        assert _cycles(_graph()) == [["rolloutctl.sub.a", "rolloutctl.sub.b"]]
    finally:
        _modules.cache_clear()
        _edges.cache_clear()


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_import_layers():
    bad = []
    for module, path in _modules().items():
        layer = _layer(module)
        if layer not in ALLOWED:
            continue
        for target in sorted(_edges(module)):
            if _layer(target) not in ALLOWED[layer] | {layer, ""}:  # "": the package root (__version__)
                bad.append(f"{module} imports {target}")
        if layer in ("core", "kinds"):
            for mod, _names in _raw_imports(path):
                if mod.split(".")[0] in IMPURE:
                    bad.append(f"{module} imports impure module {mod}")
    assert bad == []


def _operator(module: str) -> str | None:
    """The operator package of a module under ``rolloutctl.kinds`` (None: the registry)."""
    parts = module.split(".")
    return parts[2] if len(parts) > 3 or (len(parts) == 3 and parts[2] in KIND_DEPENDS) else None


def test_every_operator_package_is_listed():
    found = {p.name for p in (PKG / "kinds").iterdir() if (p / "__init__.py").is_file()}
    assert found == set(KIND_DEPENDS)


def test_kinds_are_independent_except_where_declared():
    bad = []
    for module in _modules():
        op = _operator(module) if module.startswith("rolloutctl.kinds.") else None
        if op is None:
            continue
        for target in sorted(_edges(module)):
            other = _operator(target) if target.startswith("rolloutctl.kinds.") else None
            if target == "rolloutctl.kinds" or (other is None and target.startswith("rolloutctl.kinds")):
                bad.append(f"{module} imports the registry {target}")
            elif other is not None and other != op and other not in KIND_DEPENDS[op]:
                bad.append(f"{module} imports {target}")
    assert bad == []


def test_nothing_outside_kinds_imports_an_operator():
    """app, lint, load, render and cli reach the operators only through the registry
    (``rolloutctl.kinds``: ``KINDS`` and the functions that iterate over it)."""
    bad = [f"{module} imports {target}" for module in _modules() if not module.startswith("rolloutctl.kinds")
           for target in sorted(_edges(module)) if target.startswith("rolloutctl.kinds.")]
    assert bad == []


def test_the_registry_lists_every_operator_package():
    """Each package under kinds/ has one ``KIND`` and is in ``KINDS`` (a new kind is one
    folder and one line), and every part a descriptor names resolves."""
    from rolloutctl.core.kind import KindDescriptor
    from rolloutctl.kinds import KINDS

    assert {d.operator for d in KINDS} == set(KIND_DEPENDS)
    refs = ("defaults", "model", "validate", "rules", "classify", "live_reads", "pod_templates", "pod_budget",
            "check_options", "capacity_reads", "capacity_limits", "read_schemas", "advise")
    for d in KINDS:
        assert isinstance(d, KindDescriptor)
        for part in refs:
            if getattr(d, part):
                assert d.load(part) is not None, f"{d.operator}: {part} {getattr(d, part)} does not resolve"
        assert d.model and d.validate and d.rules, d.operator
        if not d.integration:
            assert d.served and d.schema and d.resource, d.operator
    keys = [(d.group, d.kind) for d in KINDS if not d.integration]
    assert len(keys) == len(set(keys))
    for d in KINDS:
        if d.integration:
            assert (d.group, d.kind) in keys, f"{d.operator} acts on a kind the registry does not have"


def test_renderers_write_no_files():
    """Renderers turn core data into text; the CLI shell writes it (standard output,
    the GitHub job summary)."""
    bad = []
    for module, path in _modules().items():
        if _layer(module) != "render":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and (getattr(node.func, "id", None) == "open"
                                               or getattr(node.func, "attr", None) in ("open", "write_text",
                                                                                       "write_bytes")):
                bad.append(f"{module}:{node.lineno} {ast.unparse(node)[:60]}")
    assert bad == []


#: what a module over this many lines must say about itself in its docstring
LONG = 600
LONG_REASON = "Longer than 600 lines on purpose:"


def test_every_module_over_600_lines_says_why():
    """No module over ~600 lines without a stated reason (docs/architecture.md lists
    the exceptions): its docstring starts a sentence with ``LONG_REASON``."""
    unexplained = []
    for path in sorted(PKG.rglob("*.py")):
        text = path.read_text()
        if text.count("\n") > LONG:
            doc = ast.get_docstring(ast.parse(text)) or ""
            if LONG_REASON not in " ".join(doc.split()):
                unexplained.append(f"{path.relative_to(PKG)} ({text.count(chr(10))} lines)")
    assert not unexplained, f"split these modules, or state why not in their docstring ({LONG_REASON!r}): {unexplained}"
