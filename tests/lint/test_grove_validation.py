"""Unit tests of Grove's PodCliqueSet admission rules (kinds/grove/admission/),
mirroring upstream's podcliqueset_test.go / podcliquedeps_test.go cases."""

from __future__ import annotations

import copy

import pytest
import yaml

from rolloutctl.core.model import Obj
from rolloutctl.kinds.grove import admission as v
from rolloutctl.kinds.grove.admission.design_pr262 import scaled_value
from rolloutctl.kinds.grove.admission.podcliquedeps import strongly_connected_cliques

from .cases import CASES, EXPLICIT, clique, pcs


def obj(text: str) -> Obj:
    return Obj(yaml.safe_load(text), "m.yaml", 1)


def rules(text: str, old: str | None = None) -> list[str]:
    return [f.rule for f in v.validate(obj(text), obj(old) if old else None)]


@pytest.mark.parametrize("pcs_name,group,member,ok", [
    # TestResourceNamingValidation (podcliqueset_test.go)
    ("inference", "workers", "prefill", True),
    ("verylongpodcliquesetname", "verylongscalinggroup", "verylongpodcliquename", False),
    ("pcs", "sg", "cliquename20charssss", True),
])
def test_validate_pod_name_constraints__upstream_cases(pcs_name, group, member, ok):
    text = pcs(clique(member), name=pcs_name, groups=f"- {{name: {group}, cliqueNames: [{member}]}}")
    found = [f for f in v.validate(obj(text)) if f.rule == "GV005"]
    assert (not found) == ok
    if not ok:  # errors on the member name, the group name and metadata.name (as upstream)
        assert {f.path for f in found} == {
            f"spec.template.podCliqueScalingGroups[name={group}].cliqueNames[0]",
            f"spec.template.podCliqueScalingGroups[name={group}].name", "metadata.name"}


def test_strongly_connected_cliques__only_components_larger_than_one():
    adj = {"a": ["b"], "b": ["c"], "c": ["a"], "d": ["d"], "e": ["a"]}
    assert [sorted(c) for c in strongly_connected_cliques(adj)] == [["a", "b", "c"]]


def test_starts_after_ignored_unless_explicit():
    body = clique("a", spec="startsAfter: [b]") + clique("b", spec="startsAfter: [a]")
    assert "GV013" not in rules(pcs(body))
    assert "GV013" in rules(pcs(body, template=EXPLICIT))


@pytest.mark.parametrize("value,total,up,want", [("25%", 10, False, 2), ("25%", 10, True, 3), (1, 10, True, 1),
                                                 ("0%", 3, True, 0), ("x", 3, True, None)])
def test_scaled_value_rounding(value, total, up, want):
    assert scaled_value(value, total, up) == want


def test_suffix_hazard_only_when_the_shorter_name_comes_first():
    assert "GV301" in rules(pcs(clique("worker") + clique("pworker")))
    assert "GV301" not in rules(pcs(clique("pworker") + clique("worker")))


def test_explicit_replicas_zero_is_defaulted_then_rejected():
    # defaulting quirk: replicas 0 -> 1 but minAvailable 0 -> "must be greater than 0"
    found = [f for f in v.validate(obj(pcs(clique("worker", replicas=0)))) if f.rule == "GV010"]
    assert [f.path for f in found] == ["spec.template.cliques[name=worker].spec.minAvailable"]


def test_update_rules_run_only_when_create_rules_pass():
    # ValidateUpdate returns early when validate() found errors (handler.go)
    live = pcs(clique("worker", replicas=4, spec="minAvailable: 2"))
    new = pcs(clique("worker", replicas=4, spec="minAvailable: 3"), replicas=-1)
    assert "GV102" not in rules(new, live) and "GV002" in rules(new, live)


def test_mutable_fields_may_change_on_update():
    live = pcs(clique("worker", replicas=2, spec="minAvailable: 1"), template="priorityClassName: low")
    new = pcs(clique("worker", replicas=5, spec="minAvailable: 1"), template="priorityClassName: high", replicas=3)
    assert rules(new, live) == []


def test_findings_carry_file_line_and_object():
    text = pcs(clique("worker", replicas=2, spec="minAvailable: 3"))
    (f,) = v.validate(obj_with_lines(text))
    assert f.file == "m.yaml" and f.line == text.splitlines().index("        minAvailable: 3") + 1
    assert f.object.kind == "PodCliqueSet" and f.object.name == "inf"


def obj_with_lines(text: str) -> Obj:
    from rolloutctl.load.documents import parse_documents

    objs, errors, _ = parse_documents(text, "m.yaml")
    assert not errors
    return objs[0]


JUNK = [None, -1, "x", [], {}, [1], {"a": 1}, True]


def _paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for k, x in value.items():
            yield from _paths(x, (*path, k))
    elif isinstance(value, list):
        for i, x in enumerate(value):
            yield from _paths(x, (*path, i))


@pytest.mark.parametrize("rule_id", ["GV005", "GV013", "GV021", "GV025", "GV026", "GV105", "GV203"])
def test_validate_never_raises_on_malformed_fields(rule_id):
    """The planner calls validate() on manifests the schema has not checked."""
    doc = yaml.safe_load(CASES[rule_id].fail)
    for path in list(_paths(doc))[1:]:
        for junk in JUNK:
            bad = copy.deepcopy(doc)
            cur = bad
            for k in path[:-1]:
                cur = cur[k]
            cur[path[-1]] = junk
            v.validate(Obj(bad), None)
            v.validate(Obj(bad), Obj(doc))


def test_a_replicas_change_rejects_a_defaulted_min_available():
    """``kubectl apply`` patches a custom resource with a JSON merge patch, which replaces
    ``cliques`` whole: a clique without ``minAvailable`` is defaulted afresh to its new
    ``replicas`` (defaulting webhook), and the validating webhook refuses the change of the
    immutable field. Written out with its live value, it stays."""
    live = pcs(clique("worker", replicas=2))
    assert rules(pcs(clique("worker", replicas=5)), live) == ["GV102"]
    assert rules(pcs(clique("worker", replicas=5, spec="minAvailable: 5")), live) == ["GV102"]
    assert rules(pcs(clique("worker", replicas=5, spec="minAvailable: 2")), live) == []


@pytest.mark.parametrize("a,b,ok", [
    # validateSchedulerNames resolves an empty name to the default profile before comparing
    ("schedulerName: default-scheduler", "", True),
    ("", "", True),
    ("schedulerName: kai-scheduler", "", False),
    ("schedulerName: kai-scheduler", "schedulerName: default-scheduler", False),
])
def test_scheduler_names_empty_resolves_to_default_scheduler(a, b, ok):
    text = pcs(clique("a", pod=a) + clique("b", pod=b))
    found = [f for f in v.validate(obj(text)) if f.rule == "GV009"]
    assert (not found) == ok
    if not ok:
        assert "default-scheduler" in found[0].message and "<default>" not in found[0].message


def test_restart_policy_warning_says_the_policy_is_kept():
    (never,) = [f for f in v.validate(obj(pcs(clique("w", pod="restartPolicy: Never")))) if f.rule == "GV016"]
    assert "'Never' is kept" in never.message and "not replaced" in never.message
    assert "restartPolicy will be ignored, it will be set to Always" in never.message  # quoted as upstream's
    (always,) = [f for f in v.validate(obj(pcs(clique("w", pod="restartPolicy: Always")))) if f.rule == "GV016"]
    assert "kept" in always.message and "not replaced" not in always.message


MNNVL = "grove.io/mnnvl-group"


@pytest.mark.parametrize("old_meta,new_meta,want", [
    ("", f"annotations: {{{MNNVL}: none}}", "cannot be added after creation"),
    (f"annotations: {{{MNNVL}: none}}", "", "cannot be removed after creation"),
    (f"annotations: {{{MNNVL}: a}}", f"annotations: {{{MNNVL}: b}}", "cannot be changed from 'a' to 'b'"),
    (f"annotations: {{{MNNVL}: a}}", f"annotations: {{{MNNVL}: a, team: x}}", None),
])
def test_mnnvl_group_annotation_is_immutable_on_pcs_metadata(old_meta, new_meta, want):
    found = [f for f in v.validate(obj(pcs(meta=new_meta)), obj(pcs(meta=old_meta))) if f.rule == "GV106"]
    if want is None:
        assert not found
    else:
        (f,) = found
        assert want in f.message and f.path == f"metadata.annotations.{MNNVL}"


def test_mnnvl_group_annotation_is_immutable_on_cliques_and_scaling_groups_matched_by_name():
    group = "- {name: prefill, cliqueNames: [worker]%s}"
    old = pcs(clique("leader") + clique("worker"), groups=group % "")
    # the cliques swap places (matched by name, not index) and the group gains the annotation
    new = pcs(clique("worker") + clique("leader", top=f"annotations: {{{MNNVL}: none}}"),
              groups=group % f", annotations: {{{MNNVL}: none}}")
    paths = sorted(f.path for f in v.validate(obj(new), obj(old)) if f.rule == "GV106")
    assert paths == [f"spec.template.cliques[name=leader].annotations.{MNNVL}",
                     f"spec.template.podCliqueScalingGroups[name=prefill].annotations.{MNNVL}"]


def test_mnnvl_immutability_runs_even_when_the_validator_finds_errors():
    """``Handler.ValidateUpdate`` appends the MNNVL errors whatever the validator found;
    the validator's own update rules (GV101-GV105) are skipped then."""
    bad = pcs(clique("worker", replicas=2, spec="minAvailable: 3"), meta=f"annotations: {{{MNNVL}: none}}")
    found = rules(bad, pcs())
    assert "GV010" in found and "GV106" in found
    assert "GV102" not in found


def test_mnnvl_group_annotation_on_create():
    """ValidatePCSOnCreate (operator/internal/mnnvl/webhook.go): on the PodCliqueSet, a
    clique or a scaling group, grove.io/mnnvl-group must not be empty and must be none or
    a DNS-1123 label; with MNNVL off (the default) only none passes. Not on update (the
    immutability rule, GV106, covers that)."""
    def found(meta: str = "", top: str = "") -> list[str]:
        return [f.message for f in v.validate(obj(pcs(clique("worker", top=top), meta=meta))) if f.rule == "GV033"]
    assert found(top="annotations: {grove.io/mnnvl-group: none}") == []
    assert found(top="annotations: {grove.io/mnnvl-group: nvl-a}") == [
        "MNNVL is not enabled in the operator configuration. Either enable MNNVL globally or remove the "
        "grove.io/mnnvl-group annotation (modelled with the chart's autoMNNVLEnabled: false; --grove-config "
        "autoMNNVLEnabled=true describes an operator with MNNVL on)"]
    bad = found(meta="annotations: {grove.io/mnnvl-group: Bad_Group}")
    assert len(bad) == 2 and any("not a valid DNS-1123 label" in m for m in bad)
    assert "mnnvl-group value must not be empty" in found(top="annotations: {grove.io/mnnvl-group: ''}")
    live = pcs(clique("worker", top="annotations: {grove.io/mnnvl-group: nvl-a}"))
    assert "GV033" not in rules(live, live)


def test_a_defaulted_min_available_that_breaks_immutability_says_it_was_defaulted():
    """GV102: the manifest leaves a clique's minAvailable out, so the defaulting webhook
    (defaulting/podcliqueset.go defaultPodCliqueTemplateSpecs) sets it from the new
    replicas: the message says so and how to keep the live value; a minAvailable the user
    wrote keeps the plain message."""
    live = pcs(clique("worker", replicas=3))
    (f,) = [f for f in v.validate(obj(pcs(clique("worker", replicas=5))), obj(live)) if f.rule == "GV102"]
    assert f.path == "spec.template.cliques[name=worker].spec.minAvailable"
    assert f.message == ("field is immutable (live 3, desired 5): the manifest does not set minAvailable, so Grove's "
                         "defaulting webhook sets it to the clique's replicas (5); set minAvailable: 3 explicitly "
                         "to keep the live value")
    (f,) = [f for f in v.validate(obj(pcs(clique("worker", replicas=5, spec="minAvailable: 4"))), obj(live))
            if f.rule == "GV102"]
    assert f.message == "field is immutable (live 3, desired 4)"
    assert [f for f in v.validate(obj(pcs(clique("worker", replicas=5, spec="minAvailable: 3"))), obj(live))
            if f.rule == "GV102"] == []


def test_a_scaling_groups_defaulted_min_available_says_it_is_the_crds_default():
    """GV104: a scaling group's minAvailable left out is the CRD's default, 1."""
    old = pcs(clique("leader") + clique("worker"), groups="- {name: g, cliqueNames: [leader, worker], minAvailable: 2}")
    new = pcs(clique("leader") + clique("worker"), groups="- {name: g, cliqueNames: [leader, worker]}")
    (f,) = [f for f in v.validate(obj(new), obj(old)) if f.rule == "GV104"]
    assert f.message == ("field is immutable (live 2, desired 1): the manifest does not set minAvailable, so the CRD's "
                         "default applies (1); set minAvailable: 2 explicitly to keep the live value")


def test_lint_plan_and_diff_give_the_defaulted_min_available_message_alike(cli, tmp_path):
    live, new = tmp_path / "live.yaml", tmp_path / "new.yaml"
    live.write_text(pcs(clique("worker", replicas=3)))
    new.write_text(pcs(clique("worker", replicas=5)))
    hint = "so Grove's defaulting webhook sets it to the clique's replicas (5); set minAvailable: 3 explicitly"
    assert hint in cli("lint", str(new), "--live", str(live)).stdout
    assert hint in cli("plan", str(new), "--observed", str(live)).stderr
    assert hint in " ".join(cli("diff", str(new), "--live", str(live), "-o", "json").stdout.split())


def test_a_clique_repeated_in_one_group_or_across_groups_is_named_as_such():
    """GV020 (sliceMustHaveUniqueElements over every group's cliqueNames): the message says
    whether the repeat is inside one group or across two."""
    text = pcs(clique("a") + clique("b"), groups="- {name: g1, cliqueNames: [a, a]}\n- {name: g2, cliqueNames: [b, a]}")
    found = [(f.path, f.message) for f in v.validate(obj(text)) if f.rule == "GV020"]
    assert found == [
        ("spec.template.podCliqueScalingGroups[name=g1].cliqueNames[1]",
         "clique 'a' is listed twice in scaling group 'g1'; a clique belongs to one group, once"),
        ("spec.template.podCliqueScalingGroups[name=g2].cliqueNames[1]",
         "clique 'a' is listed in scaling groups 'g1' and 'g2'; a clique belongs to one group, once")]
