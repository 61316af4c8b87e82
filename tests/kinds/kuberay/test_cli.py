"""`rolloutctl plan` / `next` on the RayService samples (Typer runner over rolloutctl.cli.app)."""

from __future__ import annotations

import jsonschema
import yaml

from rolloutctl.schemas_access import schema
from tests.conftest import SAMPLES, write

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


def test_plan_never_ready_exits_1(cli):
    r = cli("plan", NEW, "--observed", OLD, "--never-ready", "text-ml-*", "-o", "json")
    assert r.exit_code == 1
    assert r.json()["stuck"]["reason"] == "NeverReady"


def test_plan_kuberay_version_option(cli, tmp_path):
    r = cli("plan", OLD, "--observed", OLD, "--kuberay-version", "v1.5.0", "-o", "json")
    assert r.exit_code == 0, r.stderr
    assert r.json()["outcome"] == "noop"
