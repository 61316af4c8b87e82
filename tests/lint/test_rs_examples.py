"""Every KubeRay rule (RS0xx) carries a bad and a good example (``rolloutctl rules ID``
prints them); each is merged into a valid RayService and checked: the bad one breaks the
rule, the good one breaks nothing."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from rolloutctl.core.model import Obj
from rolloutctl.kinds.kuberay import validation as v
from rolloutctl.kinds.kuberay.operator import OperatorConfig

from .cases import rs


def merge(base: Any, patch: Any) -> Any:
    """Mappings merge key by key, lists item by item (an empty list replaces), scalars replace."""
    if isinstance(base, dict) and isinstance(patch, dict):
        out = dict(base)
        for k, x in patch.items():
            out[k] = merge(base.get(k), x) if k in base else copy.deepcopy(x)
        return out
    if isinstance(base, list) and isinstance(patch, list) and patch:
        return [merge(base[i], x) if i < len(base) else copy.deepcopy(x) for i, x in enumerate(patch)] + base[len(patch):]
    return copy.deepcopy(patch)


def _apply(example: str) -> Obj:
    base = yaml.safe_load(rs())
    return Obj(merge(base, yaml.safe_load(example) or {}), "example.yaml", 1)


def test_base_is_clean():
    assert [f for f in v.validate(_apply("")) if f.severity == "error"] == []


def test_every_rule_has_both_examples():
    assert sorted(v.EXAMPLES) == sorted(v.RULES)
    assert all(r.bad and r.good for r in v.RULES.values())


def _operator(rule: v.rules.Rule) -> OperatorConfig:
    """The operator a rule's examples are written for: its feature gate on, if it has one
    (the examples say so in their first line)."""
    if not rule.gate:
        return OperatorConfig()
    assert rule.bad.startswith(f"# with --feature-gate {rule.gate}=true\n")
    assert rule.good.startswith(f"# with --feature-gate {rule.gate}=true\n")
    return OperatorConfig.from_options(feature_gates=[f"{rule.gate}=true"])


@pytest.mark.parametrize("rule_id", sorted(v.RULES))
def test_bad_example_breaks_the_rule(rule_id):
    rule = v.RULES[rule_id]
    hits = [f for f in v.validate(_apply(rule.bad), None, _operator(rule)) if f.rule == rule_id]
    assert hits and all(f.severity == rule.severity for f in hits)


@pytest.mark.parametrize("rule_id", sorted(v.RULES))
def test_good_example_breaks_nothing(rule_id):
    rule = v.RULES[rule_id]
    findings = v.validate(_apply(rule.good), None, _operator(rule))
    assert not [f for f in findings if f.rule == rule_id]
    assert not [(f.rule, f.message) for f in findings if f.severity == "error"]


@pytest.mark.parametrize("rule_id", sorted(r.id for r in v.RULES.values() if r.gate))
def test_gated_example_is_refused_without_its_gate(rule_id):
    """At the operator's defaults (the gates off) the bad example is the "needs the gate"
    error, and the rule itself does not run."""
    rule = v.RULES[rule_id]
    findings = v.validate(_apply(rule.bad))
    assert not [f for f in findings if f.rule == rule_id]
    assert [f for f in findings if f.severity == "error"]
    assert f"--feature-gate {rule.gate}=true" in rule.description


@pytest.mark.parametrize("rule_id", ["RS005", "RS026", "RS032"])
def test_rules_command_prints_the_examples(cli, rule_id):
    r = cli("rules", rule_id)
    assert r.exit_code == 0
    assert "Bad:" in r.stdout and "Good:" in r.stdout and "Enforced by:" in r.stdout


@pytest.mark.parametrize("version, refused", [
    ("2.52", False), ("v2.52", False), ("2.52.0", False), ("2.52.0.1", False), ("2.52.0rc1", False),
    ("2.51.9", True), ("2.5", True), ("02.52.0", True), ("2", True)])
def test_token_auth_reads_ray_version_as_parse_generic_does(version, refused):
    """``version.ParseGeneric`` (k8s.io/apimachinery/pkg/util/version): two or more numeric
    parts, the first without a leading zero, compared by ``AtLeast`` with a missing part as
    0 ("2.52" is 2.52.0); anything else is "rayVersion format is invalid"."""
    doc = yaml.safe_load(rs(cluster="authOptions: {mode: token}"))
    doc["spec"]["rayClusterConfig"]["rayVersion"] = version
    got = [f for f in v.validate(Obj(doc)) if f.rule == "RS022"]
    assert bool(got) is refused, [f.message for f in got]
