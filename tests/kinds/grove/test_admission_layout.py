"""The layout of Grove's admission rules (``kinds/grove/admission/``): one module per
upstream Go file, each rule in the module of the file its ``Upstream:`` line cites,
every rule registered in ``RULES``. (That the modules are plain functions is
tests/test_rule_modules.py's check.)"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

from rolloutctl.kinds.grove import admission
from rolloutctl.lint.registry import all_rules

PKG = Path(admission.__file__).parent
MODULES = sorted(p for p in PKG.glob("*.py") if p.name != "__init__.py")
COMMIT = "fcc3b3bbbc5e6a2a797cd080bdbc6983b1ccec24"


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text())


def _upstream_file(doc: str) -> str:
    """The Go file (or design PR) an ``Upstream:`` line cites."""
    line = next(x for x in doc.splitlines() if x.strip().startswith("Upstream:"))
    pr = re.search(r"PR #\d+", line)
    if pr:
        return pr.group(0)
    return re.search(r"([\w.-]+\.(?:go|yaml))", line).group(1)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_module_docstring_names_the_commit_and_what_it_models(path):
    doc = ast.get_docstring(_tree(path)) or ""
    assert len(path.read_text().splitlines()) <= 600
    assert COMMIT in doc
    assert re.search(r"\w+\.go\b|PR #\d+", doc), "the module docstring names its Go file or design"


@pytest.mark.parametrize("rule", admission.RULES, ids=lambda r: r.id)
def test_each_rule_lives_in_the_module_of_the_file_it_cites(rule):
    module = inspect.getmodule(rule.check)
    cited = _upstream_file(rule.doc)
    assert cited in (module.__doc__ or ""), f"{rule.id} cites {cited}, its module {module.__name__} does not"
    assert rule.check.__name__ in vars(module)


def test_every_rule_function_is_registered_once():
    """``RULES`` is written out as data: a rule function missing from it would never run."""
    registered = [r.check for r in admission.RULES]
    assert len(set(registered)) == len(registered)
    assert len({r.id for r in admission.RULES}) == len(admission.RULES)
    for path in MODULES:
        mod = vars(admission)[path.stem]
        for name, fn in vars(mod).items():
            if (inspect.isfunction(fn) and fn.__module__ == mod.__name__ and not name.startswith("_")
                    and list(inspect.signature(fn).parameters) == ["c"]):
                assert fn in registered, f"{mod.__name__}.{name} takes a Check but is not in RULES"


def test_rules_reach_lint_in_registry_order():
    ids = [r.id for r in admission.RULES]
    assert ids == sorted(ids)
    grove = [r.id for r in all_rules() if r.operator == "grove"]
    assert grove == ids
