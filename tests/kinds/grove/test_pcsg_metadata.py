"""Existing PodCliqueScalingGroups get their labels and annotations from every sync
(``podcliquescalinggroup.go`` ``buildResource`` under CreateOrPatch: ``getLabels``,
``getAnnotations``, ``propagateMNNVLAnnotations``); only ``spec.replicas`` is set on
create alone. An annotation added to, changed in or removed from a scaling-group
config patches that group's PodCliqueScalingGroups and nothing else."""

from __future__ import annotations

import copy

import yaml

from rolloutctl.core.model import Obj
from rolloutctl.kinds.grove import objects as O
from rolloutctl.kinds.grove.controller.podcliqueset.components.podcliquescalinggroup import patch_pcsg_metadata
from rolloutctl.kinds.grove.spec import PCS
from tests.conftest import SAMPLES, write
from tests.kinds.grove.operator_world import settled_world

SAMPLE = SAMPLES / "disaggregated-inference.yaml"


def _pcs() -> dict:
    return next(d for d in yaml.safe_load_all(SAMPLE.read_text()) if d and d.get("kind") == "PodCliqueSet")


def _group(doc: dict, name: str) -> dict:
    return next(g for g in doc["spec"]["template"]["podCliqueScalingGroups"] if g["name"] == name)


def _actions(doc: dict) -> list[dict]:
    return [a for s in doc["steps"] for a in s["actions"]]


def _plan(cli, tmp_path, new: dict, old: dict) -> dict:
    o, n = write(tmp_path, "old.yaml", yaml.safe_dump(old)), write(tmp_path, "new.yaml", yaml.safe_dump(new))
    return cli("plan", n, "--observed", o, "-o", "json").json()


def test_annotation_added_to_a_scaling_group_patches_its_pcsgs_and_nothing_else(cli, tmp_path):
    old = _pcs()
    new = copy.deepcopy(old)
    _group(new, "prefill").setdefault("annotations", {})["team/owner"] = "b"
    doc = _plan(cli, tmp_path, new, old)
    acts = _actions(doc)
    assert acts and all(a["kind"] == "PodCliqueScalingGroup" and a["verb"] == "update" for a in acts)
    names = sorted(a["name"] for a in acts)
    n = old["spec"].get("replicas", 1)
    assert names == sorted(f"{old['metadata']['name']}-{i}-prefill" for i in range(n))
    assert all(a["reason"] == "annotations set from the scaling-group config (replicas kept)" for a in acts)
    assert doc["outcome"] == "converged"


def test_annotation_removed_from_a_scaling_group_is_removed_from_the_live_pcsg(cli, tmp_path):
    old = _pcs()
    _group(old, "prefill")["annotations"] = {"team/owner": "a"}
    live = settled_world(old)  # the operator wrote the annotation onto the live PCSGs
    assert all(o["metadata"].get("annotations") == {"team/owner": "a"} for o in live
               if o["kind"] == "PodCliqueScalingGroup" and o["metadata"]["name"].endswith("-prefill"))
    lf = write(tmp_path, "live.yaml", yaml.safe_dump_all(live))
    same = cli("plan", write(tmp_path, "same.yaml", yaml.safe_dump(old)), "--observed", lf, "-o", "json").json()
    assert same["outcome"] == "noop"
    new = copy.deepcopy(old)
    del _group(new, "prefill")["annotations"]
    doc = cli("plan", write(tmp_path, "new.yaml", yaml.safe_dump(new)), "--observed", lf, "-o", "json").json()
    acts = _actions(doc)
    assert acts and {(a["kind"], a["verb"]) for a in acts} == {("PodCliqueScalingGroup", "update")}
    assert sorted(a["name"] for a in acts) == ["llm-0-prefill"]
    assert doc["outcome"] == "converged"


def test_patch_replaces_labels_and_annotations_and_keeps_replicas_and_status():
    doc = _pcs()
    pcs = PCS(Obj(doc, "m.yaml", 1))
    g = next(x for x in pcs.groups if x.name == "prefill")
    live = O.build_pcsg(pcs, 0, g, replicas=5)  # scaled by an HPA since
    live["metadata"]["annotations"] = {"team/owner": "a"}
    live["metadata"]["labels"]["stray"] = "x"
    live["status"] = {"replicas": 5, "availableReplicas": 5}
    cur = Obj(live, "live.yaml", 1)
    patched = patch_pcsg_metadata(cur, O.build_pcsg(pcs, 0, g))
    assert patched is not None
    assert "annotations" not in patched["metadata"] and "stray" not in patched["metadata"]["labels"]
    assert patched["spec"]["replicas"] == 5 and patched["status"] == live["status"]
    assert patch_pcsg_metadata(Obj(patched, "live.yaml", 1), O.build_pcsg(pcs, 0, g)) is None


def test_pcsg_inherits_the_podcliquesets_mnnvl_group_unless_it_sets_its_own():
    doc = _pcs()
    doc["metadata"]["annotations"] = {"grove.io/mnnvl-group": "g1"}
    _group(doc, "decode")["annotations"] = {"grove.io/mnnvl-group": "own"}
    pcs = PCS(Obj(doc, "m.yaml", 1))
    by = {g.name: O.build_pcsg(pcs, 0, g)["metadata"].get("annotations") for g in pcs.groups}
    assert by["decode"] == {"grove.io/mnnvl-group": "own"}
    assert by["prefill"] == {"grove.io/mnnvl-group": "g1"}


def test_diff_calls_a_scaling_group_annotation_change_in_place(cli, tmp_path):
    old = _pcs()
    new = copy.deepcopy(old)
    _group(new, "prefill")["annotations"] = {"team/owner": "b"}
    o, n = write(tmp_path, "old.yaml", yaml.safe_dump(old)), write(tmp_path, "new.yaml", yaml.safe_dump(new))
    r = cli("diff", n, "--live", o)
    assert "in-place: scaling group prefill: its PodCliqueScalingGroups' annotations are patched" in r.stdout
    assert "1 in-place" in r.stdout
