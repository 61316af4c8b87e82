"""Rule modules are plain functions of (object, world): no memo, no ``__dict__``, no
``id()``, no identity test of objects (``is None``, ``is True`` and module sentinels
made by ``object()`` are fine), no module-level mutable value and no function-level
import. Speed belongs in the world's views and in the work queue, not in the rules
(DESIGN.md, docs/architecture.md).

``MODULES`` lists every module of the operator packages, one line each: ``CLEAN`` ones
are checked; the others say why they are not clean yet. The list is honest both ways:
a listed-unclean module that has become clean fails the test until it is marked
``CLEAN``, and a new module must be listed. ``world.memory`` (the controllers' memory
that is not in objects, as upstream keeps it) is state, not a memo.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "rolloutctl"
KINDS = PKG / "kinds"

CLEAN = None

#: module (relative to rolloutctl/kinds) -> CLEAN, or why it is not clean yet
MODULES: dict[str, str | None] = {
    "grove/__init__.py": CLEAN,
    "grove/advise.py": CLEAN,
    "grove/admission/__init__.py": CLEAN,
    "grove/admission/crd_validations.py": CLEAN,
    "grove/admission/design_pr262.py": CLEAN,
    "grove/admission/hazards.py": CLEAN,
    "grove/admission/hpa.py": CLEAN,
    "grove/admission/kai_backend.py": CLEAN,
    "grove/admission/lpx_backend.py": CLEAN,
    "grove/admission/podcliquedeps.py": CLEAN,
    "grove/admission/podcliqueset.py": CLEAN,
    "grove/admission/podcliqueset_template.py": CLEAN,
    "grove/admission/podcliqueset_update.py": CLEAN,
    "grove/admission/request.py": CLEAN,
    "grove/admission/rolling_update_pr817.py": CLEAN,
    "grove/admission/mnnvl_webhook.py": CLEAN,
    "grove/admission/topologyconstraints.py": CLEAN,
    "grove/admission/util.py": CLEAN,
    "grove/admission/volcano_backend.py": CLEAN,
    "grove/admission/volcano_queue.py": CLEAN,
    "grove/classify.py": CLEAN,
    "grove/cluster.py": CLEAN,
    "grove/controller/__init__.py": CLEAN,
    "grove/controller/common.py": CLEAN,
    "grove/controller/podclique/__init__.py": CLEAN,
    "grove/controller/podclique/components/__init__.py": CLEAN,
    "grove/controller/podclique/components/pod/__init__.py": CLEAN,
    "grove/controller/podclique/components/pod/deletionsort.py": CLEAN,
    "grove/controller/podclique/components/pod/rollingupdate.py": CLEAN,
    "grove/controller/podclique/components/pod/syncflow.py": CLEAN,
    "grove/controller/podclique/reconcilespec.py": CLEAN,
    "grove/controller/podcliquescalinggroup/__init__.py": CLEAN,
    "grove/controller/podcliquescalinggroup/components/__init__.py": CLEAN,
    "grove/controller/podcliquescalinggroup/components/podclique/__init__.py": CLEAN,
    "grove/controller/podcliquescalinggroup/components/podclique/rollingupdate.py": CLEAN,
    "grove/controller/podcliquescalinggroup/components/podclique/sync.py": CLEAN,
    "grove/controller/podcliquescalinggroup/reconcilespec.py": CLEAN,
    "grove/controller/podcliqueset/__init__.py": CLEAN,
    "grove/controller/podcliqueset/components/__init__.py": CLEAN,
    "grove/controller/podcliqueset/components/hpa.py": CLEAN,
    "grove/controller/podcliqueset/components/podclique.py": CLEAN,
    "grove/controller/podcliqueset/components/podcliquescalinggroup.py": CLEAN,
    "grove/controller/podcliqueset/components/podcliquesetreplica/__init__.py": CLEAN,
    "grove/controller/podcliqueset/components/podcliquesetreplica/rollingupdate.py": CLEAN,
    "grove/controller/podcliqueset/components/podgang.py": CLEAN,
    "grove/controller/podcliqueset/components/service.py": CLEAN,
    "grove/controller/podcliqueset/components/serviceaccount_rbac.py": CLEAN,
    "grove/controller/podcliqueset/reconcilespec.py": CLEAN,
    "grove/defaults.py": CLEAN,
    "grove/diagnose.py": CLEAN,
    "grove/gang_terminate.py": CLEAN,
    "grove/hashing.py": CLEAN,
    "grove/live.py": CLEAN,
    "grove/manifest.py": CLEAN,
    "grove/mnnvl.py": CLEAN,
    "grove/model.py": CLEAN,
    "grove/names.py": CLEAN,
    "grove/objects.py": CLEAN,
    "grove/observed.py": CLEAN,
    "grove/options.py": CLEAN,
    "grove/ondelete.py": CLEAN,
    "grove/phases.py": CLEAN,
    "grove/policy.py": CLEAN,
    "grove/proposed/__init__.py": CLEAN,
    "grove/proposed/budgets.py": CLEAN,
    "grove/proposed/compare.py": CLEAN,
    "grove/proposed/replica_recreate.py": CLEAN,
    "grove/proposed/rolling_update.py": CLEAN,
    "grove/proposed/rollout.py": CLEAN,
    "grove/proposed/state.py": CLEAN,
    "grove/proposed/stuck.py": CLEAN,
    "grove/proposed/units.py": CLEAN,
    "grove/read_schemas.py": CLEAN,
    "grove/register.py": CLEAN,
    "grove/provenance.py": CLEAN,
    "grove/rolling_recreate.py": CLEAN,
    "grove/spec.py": CLEAN,
    "grove/status.py": CLEAN,
    "grove/strategies.py": CLEAN,
    "grove/summary.py": CLEAN,
    "grove/replica_index.py": CLEAN,
    "grove/update_common.py": CLEAN,
    "kuberay/__init__.py": CLEAN,
    "kuberay/advise.py": CLEAN,
    "kuberay/compare.py": CLEAN,
    "kuberay/api.py": CLEAN,
    "kuberay/builders.py": CLEAN,
    "kuberay/classify.py": CLEAN,
    "kuberay/conditions.py": CLEAN,
    "kuberay/consistency.py": CLEAN,
    "kuberay/decisions.py": CLEAN,
    "kuberay/go_types.py": CLEAN,
    "kuberay/defaults.py": CLEAN,
    "kuberay/diagnose.py": CLEAN,
    "kuberay/incremental_upgrade.py": CLEAN,
    "kuberay/live.py": CLEAN,
    "kuberay/manifest.py": CLEAN,
    "kuberay/model.py": CLEAN,
    "kuberay/observe.py": CLEAN,
    "kuberay/operator.py": CLEAN,
    "kuberay/options.py": CLEAN,
    "kuberay/phases.py": CLEAN,
    "kuberay/pod.py": CLEAN,
    "kuberay/provenance.py": CLEAN,
    "kuberay/rayservice_controller.py": CLEAN,
    "kuberay/read_schemas.py": CLEAN,
    "kuberay/reconciler.py": CLEAN,
    "kuberay/service.py": CLEAN,
    "kuberay/spec.py": CLEAN,
    "kuberay/status.py": CLEAN,
    "kuberay/suspend.py": CLEAN,
    "kuberay/utils.py": CLEAN,
    "kuberay/validation/__init__.py": CLEAN,
    "kuberay/validation/controller_checks.py": CLEAN,
    "kuberay/validation/hazards.py": CLEAN,
    "kuberay/validation/rules.py": CLEAN,
    "kuberay/validation/util.py": CLEAN,
    "kuberay/validation/utils_validation.py": CLEAN,
    "kuberay/versions.py": CLEAN,
    "kuberay/world.py": CLEAN,
    "kueue/__init__.py": CLEAN,
    "kueue/clusterqueue.py": CLEAN,
    "kueue/constants.py": CLEAN,
    "kueue/context.py": CLEAN,
    "kueue/defaults.py": CLEAN,
    "kueue/controllers.py": CLEAN,
    "kueue/diagnose.py": CLEAN,
    "kueue/elastic_job_ungater.py": CLEAN,
    "kueue/evict.py": CLEAN,
    "kueue/finish.py": CLEAN,
    "kueue/flavorassigner.py": CLEAN,
    "kueue/live.py": CLEAN,
    "kueue/model.py": CLEAN,
    "kueue/neighbours.py": CLEAN,
    "kueue/observe.py": CLEAN,
    "kueue/phases.py": CLEAN,
    "kueue/podset.py": CLEAN,
    "kueue/preemption.py": CLEAN,
    "kueue/priority.py": CLEAN,
    "kueue/provenance.py": CLEAN,
    "kueue/queue_manager.py": CLEAN,
    "kueue/queue_webhooks.py": CLEAN,
    "kueue/raycluster_common.py": CLEAN,
    "kueue/raycluster_webhook.py": CLEAN,
    "kueue/rayservice_controller.py": CLEAN,
    "kueue/rayservice_webhook.py": CLEAN,
    "kueue/reconciler.py": CLEAN,
    "kueue/scheduler.py": CLEAN,
    "kueue/util_pod.py": CLEAN,
    "kueue/validation.py": CLEAN,
    "kueue/workload.py": CLEAN,
    "kueue/workload_names.py": CLEAN,
    "kueue/workloadslicing.py": CLEAN,
}

#: "memo" as a word or a part of a name (``memo``, ``_pod_memo``, ``podMemo``, ``memoize``, ``MEMO``), not inside
#: another word (``volumeMounts``) and not "memory" (the world's controller memory)
_MEMO = re.compile(r"(?:(?<![A-Za-z])(?:memo|Memo|MEMO)|(?<=[a-z0-9])Memo|(?<=[A-Z0-9])MEMO)(?!ry|RY)")
_MUTABLE_CALLS = {"dict", "list", "set", "defaultdict", "OrderedDict", "Counter", "deque", "bytearray"}


def _sentinels(tree: ast.Module) -> set[str]:
    """Module-level names bound to a bare ``object()`` (identity tests against them are fine)."""
    out: set[str] = set()
    for node in tree.body:
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and not node.value.args
                and getattr(node.value.func, "id", None) == "object"):
            out |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return out


def problems(source: str) -> list[str]:
    """``LINE: what`` for every cache, identity test, mutable module value or function
    import in ``source``."""
    tree = ast.parse(source)
    sentinels = _sentinels(tree)
    out: set[tuple[int, str]] = set()

    def add(node: ast.AST, what: str) -> None:
        out.add((getattr(node, "lineno", 0), what))

    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and _MEMO.search(node.id):
            add(node, f"memo {node.id}")
        elif isinstance(node, ast.Attribute):
            if node.attr == "__dict__":
                add(node, "__dict__")
            elif _MEMO.search(node.attr):
                add(node, f"memo .{node.attr}")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _MEMO.search(node.name):
            add(node, f"memo def {node.name}")
        elif isinstance(node, ast.arg) and _MEMO.search(node.arg):
            add(node, f"memo argument {node.arg}")
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and " " not in node.value
              and _MEMO.search(node.value)):
            add(node, f"memo key {node.value!r}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "id":
            add(node, "id()")
        elif isinstance(node, ast.Compare):
            left = node.left
            for op, right in zip(node.ops, node.comparators):
                if isinstance(op, (ast.Is, ast.IsNot)) and not any(
                        isinstance(x, ast.Constant) or (isinstance(x, ast.Name) and x.id in sentinels)
                        for x in (left, right)):
                    add(node, f"identity test {ast.unparse(node)[:70]}")
                left = right
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for inner in ast.walk(node):
                if isinstance(inner, (ast.Import, ast.ImportFrom)):
                    add(inner, f"import in a function: {ast.unparse(inner)[:70]}")
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        names = [ast.unparse(t) for t in targets]
        if names == ["__all__"]:
            continue
        if isinstance(value, (ast.Dict, ast.List, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)) or (
                isinstance(value, ast.Call)
                and (getattr(value.func, "id", None) or getattr(value.func, "attr", None)) in _MUTABLE_CALLS):
            add(node, f"module-level mutable value {', '.join(names)}")
    return [f"{line}: {what}" for line, what in sorted(out)]


def _operator_modules() -> list[str]:
    return sorted(str(p.relative_to(KINDS)) for p in KINDS.glob("*/**/*.py"))


def test_every_module_of_the_operator_packages_is_listed():
    missing = [m for m in _operator_modules() if m not in MODULES]
    gone = [m for m in MODULES if not (KINDS / m).is_file()]
    assert not missing, (f"list these modules in tests/test_rule_modules.py MODULES (CLEAN, or why not): {missing}")
    assert not gone, f"no longer in rolloutctl/kinds, drop them from MODULES: {gone}"


@pytest.mark.parametrize("module", sorted(m for m, why in MODULES.items() if why is CLEAN))
def test_clean_rule_module(module):
    assert problems((KINDS / module).read_text()) == []


@pytest.mark.parametrize("module", sorted(m for m, why in MODULES.items() if why is not CLEAN))
def test_unclean_list_is_honest(module):
    """A module listed as not clean still is; once it is clean, mark it ``CLEAN``."""
    if not (KINDS / module).is_file():
        pytest.skip("reported by test_every_module_of_the_operator_packages_is_listed")
    assert problems((KINDS / module).read_text()) != [], f"{module} is clean now: mark it CLEAN in MODULES"


def test_checker_finds_each_kind_of_problem():
    src = '''
import copy
_SEEN = object()
_cache = {}
LIMITS = dict(a=1)
NAMES = ("a", "b")

def f(obj, world, memo=None):
    from .x import y
    key = id(obj)
    if obj is world.get("a"):
        return obj.__dict__
    if obj is None or obj is _SEEN or obj is not True:
        return world.memory
'''
    found = [p.split(": ", 1)[1] for p in problems(src)]
    assert "module-level mutable value _cache" in found
    assert "module-level mutable value LIMITS" in found
    assert "memo argument memo" in found
    assert any(p.startswith("import in a function") for p in found)
    assert "id()" in found
    assert any(p.startswith("identity test obj is world.get") for p in found)
    assert "__dict__" in found
    assert not any("_SEEN" in p or "None" in p or "True" in p or "NAMES" in p or "memory" in p for p in found)
    assert problems("def f(pods):\n    return [p for p in pods if p.ready]\n") == []


@pytest.mark.parametrize("name", ["memo", "_pod_memo", "podMemo", "memoize", "MEMO", "POD_MEMO", "memos"])
def test_memo_names_are_found(name):
    assert problems(f"def f(obj, world):\n    return obj.{name}\n") != []


@pytest.mark.parametrize("name", ["memory", "world_memory", "volumeMounts", "remember", "Memory"])
def test_words_that_only_contain_the_letters_are_not_memos(name):
    assert problems(f"def f(obj, world):\n    return obj.{name}, '{name}'\n") == []
