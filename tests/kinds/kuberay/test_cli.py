"""`rolloutctl plan` / `next` on the RayService samples (Typer runner over rolloutctl.cli.app)."""

from __future__ import annotations

import json
import subprocess

import jsonschema
import yaml

from rolloutctl.schemas_access import schema
from tests.conftest import REPO, SAMPLES, rolloutctl_argv, rolloutctl_env, write

OLD = str(SAMPLES / "rayservice-text-ml.yaml")
NEW = str(SAMPLES / "rayservice-text-ml-new-image.yaml")


def test_plan_image_change_json(cli):
    r = cli("plan", NEW, "--observed", OLD, "-o", "json")
    assert r.exit_code == 0, r.stderr
    doc = r.json()
    jsonschema.Draft202012Validator(schema("plan")).validate(doc)
    assert doc["outcome"] == "converged" and doc["strategy"] == "NewCluster"
    acts = [(a["verb"], a["kind"], a["name"]) for s in doc["steps"] for a in s["actions"] if a["verb"] != "status"]
    assert acts[0] == ("create", "RayCluster", "text-ml-<random>")
    assert ("update", "Service", "text-ml-head-svc") in acts and ("update", "Service", "text-ml-serve-svc") in acts
    assert acts[-1] == ("delete", "RayCluster", "text-ml-<random>")
    assert all(a["rule"].startswith("kuberay:") for s in doc["steps"] for a in s["actions"])
    assert cli("plan", NEW, "--observed", OLD, "-o", "json").stdout == r.stdout


def test_next_on_suspending_service_continues_cleanup(cli, tmp_path):
    # a live RayService already Suspending (committed) whose spec.suspend is false again
    rs = yaml.safe_load(open(OLD))
    rs["metadata"].update(generation=3, finalizers=["ray.io/rayservice-finalizer"])
    rs["status"] = {"observedGeneration": 2, "conditions": [
        {"type": "Suspending", "status": "True", "reason": "SuspendRequested", "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"},
        {"type": "Ready", "status": "False", "reason": "SuspendInProgress", "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"}],
        "activeServiceStatus": {}, "pendingServiceStatus": {}, "numServeEndpoints": 0}
    rc = {"apiVersion": "ray.io/v1", "kind": "RayCluster",
          "metadata": {"name": "text-ml-x7k2p", "namespace": "ml-serving",
                       "labels": {"ray.io/originated-from-cr-name": "text-ml", "ray.io/originated-from-crd": "RayService"},
                       "annotations": {"ray.io/kuberay-version": "nightly"}},
          "spec": rs["spec"]["rayClusterConfig"]}
    live = write(tmp_path, "live.yaml", yaml.safe_dump_all([rs, rc]))
    r = cli("next", OLD, "--observed", live, "-o", "json")
    assert r.exit_code == 0, r.stderr
    doc = r.json()
    (step,) = doc["steps"]
    assert ("delete", "RayCluster", "text-ml-x7k2p") in [(a["verb"], a["kind"], a["name"]) for a in step["actions"]]


def test_plan_worker_replicas_only_is_noop(cli, tmp_path):
    d = yaml.safe_load(open(OLD))
    d["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["replicas"] = 5
    new = write(tmp_path, "new.yaml", yaml.safe_dump(d))
    r = cli("plan", new, "--observed", OLD, "-o", "json")
    assert r.exit_code == 0, r.stderr
    doc = r.json()
    assert doc["outcome"] == "noop"
    assert "WorkerReplicasIgnored" in {w["code"] for w in doc["warnings"]}


def test_a_cluster_another_kuberay_made_takes_the_whole_spec_in_place(cli, tmp_path):
    """``shouldUpdateCluster`` checks the active cluster's ``ray.io/kuberay-version`` before any
    hash: a cluster another version made gets the whole rayClusterConfig re-applied, worker
    replicas included, so diff says in-place and plan warns of nothing ignored."""
    rs = yaml.safe_load(open(OLD))
    rs["metadata"].update(uid="u1", generation=1)
    rs["status"] = {"observedGeneration": 1, "activeServiceStatus": {"rayClusterName": "text-ml-x7k2p"},
                    "pendingServiceStatus": {}, "numServeEndpoints": 4, "conditions": [
                        {"type": "Ready", "status": "True", "reason": "NonZeroServeEndpoints", "message": "",
                         "lastTransitionTime": "2026-01-01T00:00:00Z"}]}
    rc = {"apiVersion": "ray.io/v1", "kind": "RayCluster",
          "metadata": {"name": "text-ml-x7k2p", "namespace": "ml-serving",
                       "labels": {"ray.io/originated-from-cr-name": "text-ml", "ray.io/originated-from-crd": "RayService"},
                       "annotations": {"ray.io/kuberay-version": "v1.4.2"}},
          "spec": rs["spec"]["rayClusterConfig"],
          "status": {"state": "ready", "readyWorkerReplicas": 3, "desiredWorkerReplicas": 3}}
    live = write(tmp_path, "live.yaml", yaml.safe_dump_all([rs, rc]))
    d = yaml.safe_load(open(OLD))
    d["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["replicas"] = 5
    new = write(tmp_path, "new.yaml", yaml.safe_dump(d))
    diff = cli("diff", new, "--live", live, "-o", "json").json()
    (impact,) = [i for o in diff["objects"] for i in o["impact"] if any("replicas" in p for p in i["paths"])]
    assert impact["effect"] == "in-place" and "v1.4.2" in impact["message"]
    doc = cli("plan", new, "--observed", live, "-o", "json").json()
    assert "WorkerReplicasIgnored" not in {w["code"] for w in doc["warnings"]}
    assert ("update", "RayCluster") in [(a["verb"], a["kind"]) for s in doc["steps"] for a in s["actions"]]


def test_plan_never_ready_exits_1(cli):
    r = cli("plan", NEW, "--observed", OLD, "--never-ready", "text-ml-*", "-o", "json")
    assert r.exit_code == 1
    assert r.json()["stuck"]["reason"] == "NeverReady"


def test_plan_kuberay_version_option(cli, tmp_path):
    r = cli("plan", OLD, "--observed", OLD, "--kuberay-version", "v1.5.0", "-o", "json")
    assert r.exit_code == 0, r.stderr
    assert r.json()["outcome"] == "noop"


#: what a plain RayService plan with JSON output has no use for: terminal rendering
#: (rich), other JSON Schema engines and the diff engine, advise, diff and lint's
#: vocabulary and machinery, the Kueue and Grove models
NOT_FOR_A_PLAN = {
    "rich", "jsonschema", "deepdiff", "zipfile",
    "rolloutctl.core.advice", "rolloutctl.core.results", "rolloutctl.core.diff", "rolloutctl.advise",
    "rolloutctl.kinds.kuberay.advise", "rolloutctl.kinds.kuberay.classify", "rolloutctl.kinds.kueue.model",
    "rolloutctl.kinds.grove.model", "rolloutctl.lint.registry", "rolloutctl.render.plan_table",
    "rolloutctl.render.console",
}


def test_a_rayservice_json_plan_imports_only_what_it_uses():
    """Start-up is most of a RayService plan's time: `plan ... -o json` of the bundled
    rollout imports none of the modules a plan does not use (advise, diff, lint, Kueue,
    Grove's model, terminal rendering), and the plan still comes out."""
    p = subprocess.run([*rolloutctl_argv("-X", "importtime"), "plan", "samples/rayservice-text-ml-new-image.yaml",
                        "--observed", "samples/rayservice-text-ml.yaml", "-o", "json"],
                       cwd=REPO, capture_output=True, text=True, env=rolloutctl_env())
    assert p.returncode == 0 and json.loads(p.stdout)["outcome"] == "converged"
    imported = {line.split("|")[-1].strip() for line in p.stderr.splitlines() if "|" in line}
    assert "rolloutctl.kinds.kuberay.rayservice_controller" in imported  # the log is read right
    assert not {m for m in imported if m in NOT_FOR_A_PLAN or m.split(".")[0] in NOT_FOR_A_PLAN}


def test_worker_group_of_no_hosts_gets_no_worker_pod(cli, tmp_path):
    # GetWorkerGroupDesiredReplicas: replicas × numOfHosts; an explicit 0 is stored (the CRD
    # defaults only an absent field), so the group's 2 replicas make no worker Pod
    rs = yaml.safe_load(open(OLD))
    groups = rs["spec"]["rayClusterConfig"]["workerGroupSpecs"]
    base = cli("plan", OLD, "-o", "json").json()["summary"]["peakPods"]
    want = sum(int(g.get("replicas", g.get("minReplicas", 0)) or 0) for g in groups)
    groups[0]["numOfHosts"] = 0
    path = write(tmp_path, "rs.yaml", yaml.safe_dump(rs))
    doc = cli("plan", path, "-o", "json").json()
    first = int(groups[0].get("replicas", groups[0].get("minReplicas", 0)) or 0)
    assert first > 0 and base == 1 + want
    assert doc["summary"]["peakPods"] == base - first
    r = cli("lint", path, "-o", "json")
    assert r.exit_code == 0, r.stdout
    found = [f for f in r.json()["findings"] if f["rule"] == "RS041"]
    assert len(found) == 1 and found[0]["severity"] == "warning"
    assert "numOfHosts" in found[0]["path"] or "numOfHosts" in found[0]["message"]
