"""Admission's CEL rules (the CRDs' x-kubernetes-validations, evaluated with cel-python)
and the checks of observed objects."""

from __future__ import annotations

import json

import pytest

from rolloutctl.admit.cel import check_cel
from rolloutctl.core.model import Obj
from tests.conftest import write
from tests.hardening.helpers import assert_input_error
from tests.lint.cases import pcs
from tests.lint.cases import rs as _rs


def rs(**kw) -> str:
    return _rs(**kw).replace("    applications: []\n", "    applications:\n    - name: app\n      import_path: m:app\n")


def _lint(cli, *args):
    r = cli("lint", "-o", "json", *args)
    return r, json.loads(r.stdout)["findings"]


# ----------------------------------------------------------------------------- CEL


def test_a_failing_cel_rule_is_refused_with_its_message(cli, tmp_path):
    """grove.io_podcliquesets.yaml: topologyConstraint carries
    `has(self.pack) || has(self.packDomain)` (apiextensions-apiserver
    pkg/apiserver/schema/cel/validation.go#Validate: self is the node's value)."""
    p = write(tmp_path, "in.yaml", pcs(template="topologyConstraint: {topologyName: t}"))
    r, findings = _lint(cli, p)
    assert r.exit_code == 1
    assert [(f["rule"], f["path"], f["message"]) for f in findings] == [
        ("SC011", "spec.template.topologyConstraint", "topologyConstraint must specify pack or deprecated packDomain")]
    assert_input_error(cli("plan", p), p, "SC011: spec.template.topologyConstraint: topologyConstraint must specify")
    ok = write(tmp_path, "ok.yaml", pcs(template="topologyConstraint: {topologyName: t, pack: {required: rack}}"))
    assert _lint(cli, ok)[0].exit_code == 0


def test_optional_old_self_rules_run_on_create(cli, tmp_path):
    """`optionalOldSelf: true`: evaluated on create with oldSelf an empty optional, so the
    deprecated packDomain is refused on a new PodCliqueSet (its CRD's root rules)."""
    p = write(tmp_path, "in.yaml", pcs(template="topologyConstraint: {topologyName: t, packDomain: rack}"))
    r, findings = _lint(cli, p)
    assert r.exit_code == 1
    assert [(f["rule"], f["path"]) for f in findings] == [("SC011", "spec.template.topologyConstraint.packDomain")]
    assert "packDomain is deprecated" in findings[0]["message"]


def test_transition_rules_need_the_stored_object(cli, tmp_path):
    """`self == oldSelf` on managedBy is evaluated on update only (a transition rule)."""
    new = write(tmp_path, "new.yaml", rs(spec="managedBy: kueue.x-k8s.io/multikueue"))
    old = write(tmp_path, "old.yaml", rs(spec="managedBy: ray.io/kuberay-operator"))
    assert _lint(cli, new)[0].exit_code == 0
    r, findings = _lint(cli, new, "--live", old)
    assert r.exit_code == 1
    assert ("SC011", "spec.managedBy", "the managedBy field is immutable") in [
        (f["rule"], f["path"], f["message"]) for f in findings]
    assert_input_error(cli("plan", new, "--observed", old), new, "SC011: spec.managedBy: the managedBy field is immutable")


def test_a_rule_needing_a_kubernetes_extension_is_a_warning_not_a_pass():
    """cel-python has no Kubernetes quantity library (k8s.io/apiserver/pkg/cel/library/quantity.go)."""
    schema = {"type": "object", "properties": {"spec": {"type": "object", "x-kubernetes-validations": [
        {"rule": "quantity(self.cpu).isGreaterThan(quantity('1'))", "message": "more than one CPU"}]}}}
    obj = Obj({"spec": {"cpu": "2"}}, "f.yaml", 1, {("spec",): 3})
    found = check_cel(obj, schema)
    assert [(f.rule, f.severity, f.line) for f in found] == [("SC012", "warning", 3)]
    assert "not evaluated" in found[0].message and "isGreaterThan" in found[0].message


def test_standard_cel_is_evaluated():
    schema = {"type": "object", "properties": {"spec": {"type": "object", "x-kubernetes-validations": [
        {"rule": "self.items.all(i, i.size() < 4) && self.n >= 2", "message": "bad"}]}}}
    assert check_cel(Obj({"spec": {"items": ["a", "bb"], "n": 2}}), schema) == []
    assert [f.rule for f in check_cel(Obj({"spec": {"items": ["aaaa"], "n": 2}}), schema)] == ["SC011"]


# ----------------------------------------------------------------------------- observed objects


def test_a_wrong_type_in_a_read_status_field_is_path_line_exit_2(cli, tmp_path):
    """A live RayService with `status.conditions: ["x"]`: the models read conditions as
    metav1.Condition objects (k8s.io/apimachinery pkg/apis/meta/v1/types.go#Condition)."""
    desired = write(tmp_path, "d.yaml", rs())
    live = write(tmp_path, "l.yaml", rs() + "status:\n  conditions: [x]\n")
    assert_input_error(cli("plan", desired, "--observed", live), live,
                       "SC003: status.conditions[0]: expected object, got string")


def test_other_violations_of_a_stored_object_are_not_errors(cli, tmp_path):
    """The API server never re-validates what it stored: an unknown field in a live
    object is no reason to refuse the plan."""
    desired = write(tmp_path, "d.yaml", rs())
    live = write(tmp_path, "l.yaml", rs().replace("  serveConfigV2:", "  somethingNewer: 1\n  serveConfigV2:"))
    r = cli("plan", desired, "--observed", live, "-o", "json")
    assert r.exit_code == 0 and r.json()["outcome"] == "noop", r.stderr


@pytest.mark.parametrize("child", [
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: [a]\n",
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nstatus:\n  conditions: 7\n",
    "apiVersion: grove.io/v1alpha1\nkind: PodClique\nmetadata:\n  name: c\n  labels:\n    app: [x]\n",
])
def test_observed_children_are_type_checked(cli, tmp_path, child):
    desired = write(tmp_path, "d.yaml", pcs())
    live = write(tmp_path, "l.yaml", pcs() + "---\n" + child)
    r = cli("plan", desired, "--observed", live)
    lines = assert_input_error(r, live, "SC003: ")
    assert all(int(m["line"]) > pcs().count("\n") for m in lines)
