"""`rolloutctl plan NEW --observed OLD` for Grove updates, as a user runs it."""

from __future__ import annotations

import jsonschema

from rolloutctl.schemas_access import schema
from tests.conftest import SAMPLES, write

OLD = str(SAMPLES / "disaggregated-inference.yaml")
NEW = str(SAMPLES / "disaggregated-inference-v2.yaml")


def test_image_change_plans_scaling_group_replicas_one_at_a_time(cli):
    """Given the sample running, when the engine image changes (prefill and decode
    scaling groups), then replica 0 of both groups is recreated first, then replica 1;
    the frontend keeps its pods; the JSON validates against the plan schema."""
    r = cli("plan", NEW, "--observed", OLD, "-o", "json")
    assert r.exit_code == 0, r.stderr
    doc = r.json()
    jsonschema.Draft202012Validator(schema("plan")).validate(doc)
    assert doc["outcome"] == "converged" and doc["strategy"] == "RollingRecreate"
    dels = [(s["step"], a["name"]) for s in doc["steps"] for a in s["actions"] if a["verb"] == "delete"]
    assert {n for _, n in dels} == {f"llm-0-{g}-{j}-{c}" for g, cs in (("prefill", ("pleader", "pworker")),
                                                                      ("decode", ("dleader", "dworker")))
                                    for j in (0, 1) for c in cs}
    first = {n for s, n in dels if s == dels[0][0]}
    assert first == {"llm-0-prefill-0-pleader", "llm-0-prefill-0-pworker", "llm-0-decode-0-dleader",
                     "llm-0-decode-0-dworker"}
    assert not any("frontend" in n for _, n in dels)
    assert doc["summary"]["minReadyPods"] == 12 - 2 - 3
    assert doc["summary"]["peakPods"] == 12
    rules = {a["rule"] for s in doc["steps"] for a in s["actions"] if a["verb"] == "delete"}
    assert rules == {"grove:operator/internal/controller/podcliquescalinggroup/components/podclique/"
                     "rollingupdate.go#processPendingUpdates"}


def test_ondelete_plan_deletes_nothing_and_warns(cli, tmp_path):
    old = open(OLD).read().replace("spec:\n  replicas: 1", "spec:\n  replicas: 1\n  updateStrategy:\n    type: OnDelete", 1)
    new = open(NEW).read().replace("spec:\n  replicas: 1", "spec:\n  replicas: 1\n  updateStrategy:\n    type: OnDelete", 1)
    r = cli("plan", write(tmp_path, "new.yaml", new), "--observed", write(tmp_path, "old.yaml", old), "-o", "json")
    assert r.exit_code == 0, r.stderr
    doc = r.json()
    assert doc["strategy"] == "OnDelete"
    assert doc["summary"]["deletes"] == 0
    assert any(w["code"] == "OnDeletePodsOutdated" for w in doc["warnings"])


def test_capacity_stuck_update_exits_1_with_the_blocked_object(cli):
    """RU-10 analogue: no GPU to spare, the first recreated scaling-group replica
    cannot be placed; exit code 1 and the stuck reason name what waits."""
    r = cli("plan", NEW, "--observed", OLD, "--capacity", "nvidia.com/gpu=30", "-o", "json")
    assert r.exit_code == 1
    doc = r.json()
    assert doc["outcome"] == "stuck"
    assert doc["stuck"]["reason"] == "InsufficientCapacity"
    assert "rolling update of replica 0" in doc["stuck"]["message"]


def test_markdown_output_names_the_selected_replica(cli):
    r = cli("plan", NEW, "--observed", OLD, "-o", "markdown")
    assert r.exit_code == 0
    assert "replica 0 selected for update" in r.stdout


def test_other_objects_in_the_observed_file_leave_a_settled_cluster_settled(cli, tmp_path):
    """Given the previously applied file holds a ConfigMap and a ResourceClaimTemplate
    beside the PodCliqueSet (kinds the operator never creates or lists), when the same
    manifest is planned against it, then nothing is to do; and the image change plans
    the same steps as from the PodCliqueSet alone."""
    extra = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: engine-config\n  namespace: inference\ndata:\n  a: b\n---\n"
             "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata:\n  name: gpu\n  namespace: inference\n"
             "spec:\n  spec:\n    devices:\n      requests: []\n---\n")
    old_with = write(tmp_path, "old-with.yaml", extra + open(OLD).read())
    r = cli("plan", OLD, "--observed", old_with, "-o", "json")
    assert r.exit_code == 0, r.stderr
    assert r.json()["outcome"] == "noop" and r.json()["steps"] == []
    a = cli("plan", NEW, "--observed", old_with, "-o", "json")
    b = cli("plan", NEW, "--observed", OLD, "-o", "json")
    assert a.exit_code == b.exit_code == 0
    assert a.json()["steps"] == b.json()["steps"] and a.json()["steps"]
