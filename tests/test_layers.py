"""DESIGN.md layering: cli -> app -> kinds -> core; render -> core; load -> admit -> core.
core and kinds are pure: no I/O modules."""

from __future__ import annotations

import ast
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
    "cli": {"app", "render", "load", "schemas_access", "lint"},
}
IMPURE = {"subprocess", "socket", "random", "time", "datetime", "requests", "urllib", "http"}


def _imports(path: Path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:  # relative
                parts = path.relative_to(PKG).with_suffix("").parts
                base = list(parts[: len(parts) - node.level])
                mod = ".".join(base + ([node.module] if node.module else []))
                yield "rolloutctl." + mod if mod else "rolloutctl"
            elif node.module:
                yield node.module
        elif isinstance(node, ast.Import):
            for a in node.names:
                yield a.name


def _layer(path: Path) -> str:
    rel = path.relative_to(PKG).with_suffix("").parts
    return rel[0]


def test_import_layers():
    bad = []
    for path in PKG.rglob("*.py"):
        layer = _layer(path)
        if layer not in ALLOWED:
            continue
        for mod in _imports(path):
            if mod.startswith("rolloutctl."):
                target = mod.split(".")[1]
                if target in ("__init__",) or target == layer:
                    continue
                if target not in ALLOWED[layer]:
                    bad.append(f"{path.relative_to(PKG)} imports {mod}")
            elif layer in ("core", "kinds") and mod.split(".")[0] in IMPURE:
                bad.append(f"{path.relative_to(PKG)} imports impure module {mod}")
    assert bad == []
