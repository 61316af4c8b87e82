"""The small CEL evaluator (rolloutctl/admit/cel_core.py) must give the answer of the
reference, cel-python, whenever it answers at all; the bundled CRDs' rules are all in
its subset, so admitting an object never builds the full CEL parser."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rolloutctl.admit import cel, cel_core
from tests.conftest import REPO, SAMPLES, rolloutctl_argv, rolloutctl_env


def _bundled_rules() -> set[str]:
    rules: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for r in node.get("x-kubernetes-validations") or ():
                rules.add(r["rule"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    from rolloutctl.schemas_access import schema

    for name in ("podcliqueset", "rayservice"):
        walk(schema(name))
    return rules


BUNDLED = sorted(_bundled_rules())

EXTRA = [
    "self.items.all(i, i.size() < 4) && self.n >= 2",
    "self.items.exists(i, i == 'b') || !has(self.n)",
    "size(self.items) <= 3 && self.name != 'x'",
    "self.a == self.b",
    "'k' in self.m && self.m.k == true",
    "self.items.all(i, has(i.x) ? true : false)",  # ternary: outside the subset
    "self.name.startsWith('a')",                   # a string function: outside the subset
]

#: no null: CEL runs on the stored object, from which the API server has pruned null fields
#: (``admit.prune_nulls`` runs before ``check_cel``); the reference evaluator crashes on a
#: macro over null even where ``||`` has already decided
_scalar = st.one_of(st.booleans(), st.integers(-3, 3), st.sampled_from(["", "a", "b", "x", "rack"]))
_json = st.recursive(_scalar, lambda inner: st.one_of(
    st.lists(inner, max_size=3),
    st.dictionaries(st.sampled_from(["a", "b", "k", "m", "n", "x", "name", "items", "pack", "packDomain",
                                     "required", "preferred", "topologyConstraint"]), inner, max_size=4)),
    max_leaves=8)
_tc = st.dictionaries(st.sampled_from(["pack", "packDomain", "topologyName", "required", "preferred"]),
                      st.one_of(st.just("rack"), st.just({"required": "rack"}), _scalar), max_size=3)
_with_tc = st.dictionaries(st.sampled_from(["name", "topologyConstraint"]), st.one_of(_tc, _scalar), max_size=2)
_pcs = st.fixed_dictionaries({}, optional={"spec": st.one_of(_scalar, st.fixed_dictionaries({}, optional={
    "template": st.one_of(_scalar, st.fixed_dictionaries({}, optional={
        "cliques": st.one_of(st.lists(_with_tc, max_size=3), _scalar),
        "podCliqueScalingGroups": st.one_of(st.lists(_with_tc, max_size=3), _scalar),
        "topologyConstraint": st.one_of(_tc, _scalar)}))}))})
#: PodCliqueSet-shaped values where every level is present (the rules' deciding branches)
_tc_full = st.fixed_dictionaries({}, optional={"pack": st.just({"required": "rack"}), "packDomain": st.just("rack"),
                                               "required": st.just("rack"), "preferred": st.just("zone")})
_child = st.fixed_dictionaries({"name": st.just("c")}, optional={"topologyConstraint": _tc_full})
_pcs_full = st.fixed_dictionaries({"spec": st.fixed_dictionaries({"template": st.fixed_dictionaries({}, optional={
    "cliques": st.lists(_child, max_size=3), "podCliqueScalingGroups": st.lists(_child, max_size=3),
    "topologyConstraint": _tc_full})})})
_small = st.fixed_dictionaries({}, optional={
    "items": st.lists(st.sampled_from(["a", "b", "abcd", 1]), max_size=3), "n": st.integers(0, 3),
    "name": st.sampled_from(["x", "y"]), "a": _scalar, "b": _scalar, "m": st.dictionaries(
        st.sampled_from(["k", "j"]), st.one_of(st.booleans(), st.integers(0, 1)), max_size=2)})
_values = st.one_of(_pcs_full, _tc_full, _small, _json, _pcs, _tc,
                    st.sampled_from(["ray.io/kuberay-operator", "kueue.x-k8s.io/multikueue", "other"]))


def _reference(rule: str, bindings: dict) -> object:
    try:
        return cel._evaluate_reference(rule, {k: cel._EMPTY_OPTIONAL if v is cel_core.EMPTY else v
                                              for k, v in bindings.items()})
    except cel._NotEvaluable:
        return "error"


def _fast(rule: str, bindings: dict) -> object:
    try:
        return cel_core.evaluate(rule, bindings)
    except cel_core.EvalError:
        return "error"


def test_every_bundled_crd_rule_is_in_the_subset():
    assert len(BUNDLED) >= 7
    for rule in BUNDLED:
        cel_core.parse(rule)  # raises Unsupported otherwise


def test_syntax_outside_the_subset_is_left_to_the_reference():
    for rule in EXTRA[-2:]:
        with pytest.raises(cel_core.Unsupported):
            cel_core.parse(rule)
    # and the caller still gets the reference's answer
    assert cel._evaluate("self.name.startsWith('a')", {"self": {"name": "abc"}}) is True


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rule=st.sampled_from(BUNDLED + EXTRA[:-2]), self_=_values,
       old=st.one_of(st.just(cel_core.EMPTY), _values))
def test_the_subset_agrees_with_the_reference(rule, self_, old):
    bindings = {"self": self_, "oldSelf": old} if "oldSelf" in rule else {"self": self_}
    if "oldSelf" in rule and "hasValue" not in rule and old is cel_core.EMPTY:
        return  # a plain transition rule is never evaluated without a stored object
    fast = _fast(rule, bindings)
    if fast == "error":
        return  # undecided here: the reference decides (as cel._evaluate does)
    assert fast == _reference(rule, bindings), (rule, json.dumps(self_, default=str))


@pytest.mark.parametrize("rule,self_,old,want", [
    # Grove: packDomain refused on create, allowed on update (optionalOldSelf)
    (BUNDLED_PCS_CLIQUES := next(r for r in BUNDLED if "cliques.all" in r),
     {"spec": {"template": {"cliques": [{"name": "a"}, {"topologyConstraint": {"packDomain": "rack"}}]}}},
     cel_core.EMPTY, False),
    (BUNDLED_PCS_CLIQUES, {"spec": {"template": {"cliques": [{"topologyConstraint": {"packDomain": "r"}}]}}},
     {"spec": {}}, True),
    (BUNDLED_PCS_CLIQUES, {"spec": {"template": {"cliques": [{"topologyConstraint": {"pack": {}}}]}}},
     cel_core.EMPTY, True),
    ("has(self.pack) || has(self.packDomain)", {"topologyName": "t"}, None, False),
    ("has(self.pack) || has(self.packDomain)", {"packDomain": "rack"}, None, True),
    ("self in ['ray.io/kuberay-operator', 'kueue.x-k8s.io/multikueue']", "other", None, False),
    ("self == oldSelf", "a", "b", False),
    ("self.items.exists(i, i == 'b') || !has(self.n)", {"items": ["a", "b"], "n": 1}, None, True),
    ("self.items.all(i, i.size() < 4) && self.n >= 2", {"items": ["a", "abcd"], "n": 2}, None, False),
])
def test_deciding_cases_match_the_reference(rule, self_, old, want):
    bindings = {"self": self_} if old is None else {"self": self_, "oldSelf": old}
    assert _fast(rule, bindings) == want == _reference(rule, bindings)


def test_linting_the_bundled_samples_never_builds_the_cel_parser(tmp_path):
    """Start-up: the Grove and KubeRay samples' CEL rules are all decided without
    importing cel-python (whose parser construction costs more than start-up)."""
    probe = ("import sys\n"
             "from rolloutctl.cli import run\n"
             "sys.argv = ['rolloutctl', 'lint', *sys.argv[1:]]\n"
             "try:\n    run()\n"
             "except SystemExit:\n    pass\n"
             "print('CELPY' if 'celpy' in sys.modules else 'NO-CELPY', file=sys.stderr)\n")
    files = sorted(str(p) for p in Path(SAMPLES).glob("*.yaml"))
    python = rolloutctl_argv()[:-2]  # the interpreter and its options, without "-m rolloutctl"
    r = subprocess.run([*python, "-c", probe, *files], capture_output=True, text=True, cwd=REPO, env=rolloutctl_env())
    assert "NO-CELPY" in r.stderr, r.stderr[-2000:]
