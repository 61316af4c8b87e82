"""PodGangs mirror the PodCliqueSet's labels and annotations whenever the PodCliqueSet
controller reconciles (``podgang.go`` ``buildResource`` / ``mirrorPCSMetadata``): an added
or removed label (a KAI queue label, say) patches every PodGang; ``grove.io/`` entries are
the operator's and are neither mirrored from the PodCliqueSet nor dropped from the
PodGang, and the operator's own labels (``getLabels``: app.kubernetes.io/managed-by,
part-of, component) win over the PodCliqueSet's. An edit of labels or annotations alone
does not bump the generation, and ``podCliqueSetPredicate`` (``podcliqueset/register.go``)
lets an update through only on a generation change or a changed
``grove.io/reconcile-trigger`` annotation: such an edit is mirrored at the next reconcile
something else brings, not by the edit."""

from __future__ import annotations

import copy

import pytest
import yaml

from rolloutctl.core.model import Obj
from rolloutctl.kinds.grove.controller.podcliqueset.components.podgang import mirror_pcs_metadata
from tests.conftest import SAMPLES, write

SAMPLE = SAMPLES / "disaggregated-inference.yaml"


def _pcs() -> dict:
    return next(d for d in yaml.safe_load_all(SAMPLE.read_text()) if d and d.get("kind") == "PodCliqueSet")


def _podgang_updates(doc) -> list[dict]:
    return [a for s in doc["steps"] for a in s["actions"] if a["kind"] == "PodGang" and a["verb"] == "update"]


def _plan(cli, tmp_path, old: dict, new: dict, command: str = "plan") -> dict:
    o, n = write(tmp_path, "old.yaml", yaml.safe_dump(old)), write(tmp_path, "new.yaml", yaml.safe_dump(new))
    r = cli(command, n, "--observed", o, "-o", "json")
    assert r.exit_code == 0, r.stderr
    return r.json()


def _diff(cli, tmp_path, old: dict, new: dict) -> list[dict]:
    o, n = write(tmp_path, "old.yaml", yaml.safe_dump(old)), write(tmp_path, "new.yaml", yaml.safe_dump(new))
    return cli("diff", n, "--live", o, "-o", "json").json()["objects"][0]["impact"]


def _labelled(old: dict) -> dict:
    new = copy.deepcopy(old)
    new["metadata"].setdefault("labels", {})["team"] = "b"
    return new


def test_a_label_only_edit_is_not_reconciled_so_the_plan_leaves_the_podgangs(cli, tmp_path):
    old = _pcs()
    doc = _plan(cli, tmp_path, old, _labelled(old))
    assert not _podgang_updates(doc) and doc["outcome"] == "noop"
    assert "MetadataNotMirrored" in {w["code"] for w in doc["warnings"]}
    nxt = _plan(cli, tmp_path, old, _labelled(old), "next")
    assert not _podgang_updates(nxt)
    same = _plan(cli, tmp_path, old, old)
    assert not _podgang_updates(same) and "MetadataNotMirrored" not in {w["code"] for w in same["warnings"]}


def _replicas_edit(d: dict) -> dict:
    d["spec"]["template"]["cliques"][0]["spec"]["replicas"] += 1  # read only when a PodClique is created
    return d


def _trigger(d: dict) -> dict:
    d["metadata"].setdefault("annotations", {})["grove.io/reconcile-trigger"] = "1"
    return d


@pytest.mark.parametrize("also", [_replicas_edit, _trigger], ids=["spec change", "reconcile trigger"])
def test_a_label_edit_the_controller_reconciles_is_mirrored_onto_every_podgang(cli, tmp_path, also):
    old = _pcs()
    doc = _plan(cli, tmp_path, old, also(_labelled(old)))
    gangs = _podgang_updates(doc)
    assert gangs and all(a["reason"] == "labels and annotations mirrored from the PodCliqueSet" for a in gangs)
    assert doc["outcome"] == "converged"
    assert "MetadataNotMirrored" not in {w["code"] for w in doc["warnings"]}
    mirrored = [i for i in _diff(cli, tmp_path, old, also(_labelled(old))) if "mirrored onto every PodGang" in i["message"]]
    assert [i["effect"] for i in mirrored] == ["in-place"]
    assert "in the reconcile this update triggers" in mirrored[0]["message"]


def test_diff_says_a_label_only_edit_lands_at_the_next_reconcile(cli, tmp_path):
    old = _pcs()
    impacts = _diff(cli, tmp_path, old, _labelled(old))
    assert [i["effect"] for i in impacts] == ["in-place"]
    assert "mirrored onto every PodGang at the PodCliqueSet's next reconcile, which this update does not start" \
        in impacts[0]["message"]
    assert "podCliqueSetPredicate" in impacts[0]["message"]


def test_diff_does_not_say_the_operators_own_labels_are_mirrored(cli, tmp_path):
    old = _pcs()
    old["metadata"]["labels"] = {"team": "a"}
    new = copy.deepcopy(old)
    new["metadata"]["labels"]["app.kubernetes.io/part-of"] = "mine"
    new["metadata"]["labels"]["app.kubernetes.io/component"] = "x"
    impacts = _diff(cli, tmp_path, old, new)
    assert impacts and all(i["effect"] == "none" and "mirrored onto" not in i["message"] for i in impacts)
    assert all("the operator sets its own value on every PodGang" in i["message"] for i in impacts)
    # a label map added whole: what reaches the PodGangs, the operator's own label named as not mirrored
    bare = _pcs()
    bare["metadata"].pop("labels", None)
    whole = copy.deepcopy(bare)
    whole["metadata"]["labels"] = {"team": "a", "app.kubernetes.io/managed-by": "me"}
    [impact] = _diff(cli, tmp_path, bare, whole)
    assert impact["effect"] == "in-place" and "(not app.kubernetes.io/managed-by:" in impact["message"]
    # app.kubernetes.io/name is not one of the operator's PodGang labels: it is mirrored
    named = copy.deepcopy(old)
    named["metadata"]["labels"]["app.kubernetes.io/name"] = "llm"
    [impact] = _diff(cli, tmp_path, old, named)
    assert impact["effect"] == "in-place" and "mirrored onto every PodGang" in impact["message"]


def test_mirror_keeps_the_operators_entries_and_follows_removals():
    cur = Obj({"apiVersion": "scheduler.grove.io/v1alpha1", "kind": "PodGang",
               "metadata": {"name": "g", "namespace": "ns",
                            "labels": {"grove.io/scheduler-name": "kai-scheduler", "team": "a", "gone": "x"},
                            "annotations": {"grove.io/topology-name": "t", "kubectl.kubernetes.io/last-applied-configuration": "{}"}},
               "spec": {}})
    built = {"metadata": {"labels": {"team": "b", "app.kubernetes.io/part-of": "p"}}}
    assert mirror_pcs_metadata(cur, built)
    assert built["metadata"]["labels"] == {"grove.io/scheduler-name": "kai-scheduler", "team": "b",
                                           "app.kubernetes.io/part-of": "p"}
    assert built["metadata"]["annotations"] == {"grove.io/topology-name": "t"}
    same = {"metadata": {"labels": {"team": "a", "gone": "x"}}}
    assert not mirror_pcs_metadata(cur, same)  # the last-applied annotation is not mirrored by the model
