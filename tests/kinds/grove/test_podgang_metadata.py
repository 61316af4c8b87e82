"""PodGangs mirror the PodCliqueSet's labels and annotations on every sync
(``podgang.go`` ``buildResource`` / ``mirrorPCSMetadata``): an added or removed label
(a KAI queue label, say) patches every PodGang; ``grove.io/`` entries are the operator's
and are neither mirrored from the PodCliqueSet nor dropped from the PodGang."""

from __future__ import annotations

import copy

import yaml

from rolloutctl.core.model import Obj
from rolloutctl.kinds.grove.controller.podcliqueset.components.podgang import mirror_pcs_metadata
from tests.conftest import SAMPLES, write

SAMPLE = SAMPLES / "disaggregated-inference.yaml"


def _pcs() -> dict:
    return next(d for d in yaml.safe_load_all(SAMPLE.read_text()) if d and d.get("kind") == "PodCliqueSet")


def _podgang_updates(doc) -> list[dict]:
    return [a for s in doc["steps"] for a in s["actions"] if a["kind"] == "PodGang" and a["verb"] == "update"]


def test_a_label_added_to_the_podcliqueset_is_mirrored_onto_every_podgang(cli, tmp_path):
    old = _pcs()
    new = copy.deepcopy(old)
    new["metadata"].setdefault("labels", {})["kai.scheduler/queue"] = "team-b"
    o, n = write(tmp_path, "old.yaml", yaml.safe_dump(old)), write(tmp_path, "new.yaml", yaml.safe_dump(new))
    doc = cli("plan", n, "--observed", o, "-o", "json").json()
    gangs = _podgang_updates(doc)
    assert gangs and all(a["reason"] == "labels and annotations mirrored from the PodCliqueSet" for a in gangs)
    assert doc["outcome"] == "converged"
    same = cli("plan", o, "--observed", o, "-o", "json").json()
    assert not _podgang_updates(same)  # nothing changed: nothing to mirror


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
