"""Live snapshots with statuses are read as evidence, as upstream reads them: a pending
RayCluster that has no HeadPodReady condition yet has no ready head, and a pending cluster
with a ready head and no Serve application recorded has nothing deployed yet. Neither is
switched to before it is ready. (A snapshot without statuses is still taken as settled.)"""

from __future__ import annotations

import copy

import yaml

from tests.conftest import write

from .helpers import base, new_image
from .test_fidelity import _upgrading_live

READY = {"type": "HeadPodReady", "status": "True", "reason": "HeadPodRunningAndReady"}


def _plan(cli, tmp_path, live):
    desired = write(tmp_path, "new.yaml", yaml.safe_dump(new_image(base())))
    observed = write(tmp_path, "live.yaml", yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": live}))
    r = cli("plan", desired, "--observed", observed, "-o", "json")
    assert r.exit_code == 0, r.stderr
    return r.json()


def _first(doc, pred) -> int | None:
    return next((s["step"] for s in doc["steps"] for a in s["actions"] if pred(a)), None)


def _switch(a) -> bool:
    return a["kind"] == "Service" and a["verb"] == "update" and "text-ml-bbbbb" in str(a["fields"])


def _warnings(doc) -> set[str]:
    return {w["code"] for w in doc["warnings"]}


def test_a_pending_cluster_without_head_condition_is_started_before_traffic_moves(cli, tmp_path):
    rs, live = _upgrading_live(READY)
    live[2]["status"] = {}  # the pending RayCluster, created moments ago
    doc = _plan(cli, tmp_path, live)
    assert "HeadNotReadyYet" in _warnings(doc)
    assert doc["steps"][0]["time"] > 0  # the first pass that acts waits for the head Pod to start
    # it is started, its config submitted, and only then do the Services switch
    submit = _first(doc, lambda a: a["kind"] == "ServeApplications" and "text-ml-bbbbb" in a["name"])
    assert submit is not None and _first(doc, _switch) > submit
    assert doc["outcome"] == "converged"


def test_a_pending_cluster_with_no_applications_recorded_gets_the_config_first(cli, tmp_path):
    rs, live = _upgrading_live(READY)
    doc = _plan(cli, tmp_path, live)
    assert "ServeNotDeployedYet" in _warnings(doc)
    submit = _first(doc, lambda a: a["kind"] == "ServeApplications" and "text-ml-bbbbb" in a["name"])
    assert submit is not None and _first(doc, _switch) > submit and doc["outcome"] == "converged"


def test_recorded_applications_are_taken_as_they_are(cli, tmp_path):
    rs, live = _upgrading_live(READY)
    live[0]["status"]["pendingServiceStatus"]["applicationStatuses"] = {"text_ml_app": {"status": "RUNNING"}}
    doc = _plan(cli, tmp_path, live)
    assert not {"ServeNotDeployedYet", "HeadNotReadyYet"} & _warnings(doc)
    assert _first(doc, _switch) == 1  # ready and RUNNING: the Services switch in the first pass


def test_live_timestamps_the_plan_does_not_read_are_named(cli, tmp_path):
    """The initializing timeout and the traffic interval count from the plan's start;
    a live status that says they started earlier gets a warning naming the field."""
    rs, live = _upgrading_live(READY)
    live[0]["status"]["conditions"][0].update(status="False", reason="Initializing")
    desired = new_image(base())
    desired["metadata"].setdefault("annotations", {})["ray.io/initializing-timeout"] = "10m"
    d = write(tmp_path, "new.yaml", yaml.safe_dump(desired))
    o = write(tmp_path, "live.yaml", yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": live}))
    doc = cli("plan", d, "--observed", o, "-o", "json").json()
    w = [x for x in doc["warnings"] if x["code"] == "ObservedTimeNotRead"]
    assert len(w) == 1 and "2026-01-01T00:00:00Z" in w[0]["message"] and "lastTransitionTime" in w[0]["path"]
    plain = _plan(cli, tmp_path, _upgrading_live(READY)[1])
    assert "ObservedTimeNotRead" not in _warnings(plain)


def test_an_edited_active_cluster_of_a_settled_service_is_compared_by_its_hash(cli, tmp_path):
    """``isClusterSpecHashEqual`` compares the RayCluster's hash annotation, computed from
    the RayService's rayClusterConfig when the controller last wrote the cluster, never
    the cluster's spec: Kueue's admission injecting a nodeSelector and pod labels (or a
    kubectl edit) changes nothing. The unchanged manifest plans nothing; a new image still
    rolls out."""
    from tests.kinds.kuberay.test_samples_settled import live_world

    live = live_world(base(), ns="ml-serving")
    rc = next(o for o in live if o["kind"] == "RayCluster")
    for tmpl in [rc["spec"]["headGroupSpec"]["template"]] + [g["template"] for g in rc["spec"]["workerGroupSpecs"]]:
        tmpl.setdefault("metadata", {}).setdefault("labels", {})["kueue.x-k8s.io/podset"] = "main"
        tmpl["spec"]["nodeSelector"] = {"cloud.google.com/gke-nodepool": "pool-a"}
    observed = write(tmp_path, "live.yaml", yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": live}))
    same = cli("plan", write(tmp_path, "same.yaml", yaml.safe_dump(base())), "--observed", observed, "-o", "json").json()
    assert same["outcome"] == "noop", [s["title"] for s in same["steps"]]
    assert "LiveClusterEdited" in _warnings(same)
    newer = cli("plan", write(tmp_path, "new.yaml", yaml.safe_dump(new_image(base()))), "--observed", observed,
                "-o", "json").json()
    assert any(a["kind"] == "RayCluster" and a["verb"] == "create" for s in newer["steps"] for a in s["actions"])
    assert "hashed-spec" not in str(newer)


def test_an_edited_pending_cluster_is_compared_by_its_hash(cli, tmp_path):
    """Mid-upgrade, the pending cluster's hash annotation is the hash of the RayService's
    rayClusterConfig at the current generation (a different goal would have made the
    controller name another pending cluster): an edit of the pending cluster (Kueue's
    nodeSelector) neither replaces it nor makes a third cluster; the upgrade goes on."""
    rs, live = _upgrading_live(READY)
    live[0]["status"]["pendingServiceStatus"]["applicationStatuses"] = {"text_ml_app": {"status": "RUNNING"}}
    pending = live[2]
    pending["spec"]["headGroupSpec"]["template"]["spec"]["nodeSelector"] = {"cloud.google.com/gke-nodepool": "pool-a"}
    doc = _plan(cli, tmp_path, live)
    assert "LiveClusterEdited" in _warnings(doc)
    assert not any(a["kind"] == "RayCluster" and a["verb"] == "create" for s in doc["steps"] for a in s["actions"])
    assert _first(doc, _switch) == 1  # traffic still moves to the edited pending cluster
    # with the RayService's status of an older generation, the edit is compared as it is
    stale = copy.deepcopy(live)
    stale[0]["status"]["observedGeneration"] = 1
    assert "LiveClusterEdited" not in _warnings(_plan(cli, tmp_path, stale))


def test_a_dangling_cluster_in_a_snapshot_is_named_with_its_in_memory_timer(cli, tmp_path):
    """After the switch, the old cluster waits out rayClusterDeletionDelaySeconds from
    when the controller first found it dangling, a time upstream keeps in memory only:
    the plan counts from its start and says so."""
    rs, live = _upgrading_live(READY)
    st = live[0]["status"]
    st["activeServiceStatus"] = {"rayClusterName": "text-ml-bbbbb",
                                 "applicationStatuses": {"text_ml_app": {"status": "RUNNING"}}}
    st.pop("pendingServiceStatus")
    st["conditions"] = [c for c in st["conditions"] if c["type"] != "UpgradeInProgress"]
    for svc in live[3:]:
        svc["spec"]["selector"]["ray.io/cluster"] = "text-ml-bbbbb"
    doc = _plan(cli, tmp_path, live)
    w = [x for x in doc["warnings"] if x["code"] == "ObservedDanglingCluster"]
    assert len(w) == 1 and "text-ml-aaaaa" in w[0]["message"] and "60 s" in w[0]["message"]
    # deleted at the first pass after the delay counted from the plan's start (2 s passes)
    assert [(s["time"], a["name"]) for s in doc["steps"] for a in s["actions"] if a["verb"] == "delete"] == \
        [(62, "text-ml-aaaaa")]
    assert "ObservedDanglingCluster" not in _warnings(_plan(cli, tmp_path, _upgrading_live(READY)[1]))


def test_a_live_cluster_without_its_hash_annotation_is_named(cli, tmp_path):
    """A RayCluster of a RayService whose status a real operator wrote, without
    ``ray.io/hash-without-replicas-and-workers-to-delete``: every KubeRay sets it, so
    the plan takes it as left out of the snapshot (compares the specs: the unchanged
    manifest plans nothing) and says what KubeRay does with a cluster that really lacks
    it (``isClusterSpecHashEqual`` against an empty hash: a new cluster)."""
    from tests.kinds.kuberay.test_samples_settled import live_world

    live = live_world(base(), ns="ml-serving")
    rc = next(o for o in live if o["kind"] == "RayCluster")
    assert rc["metadata"]["annotations"].pop("ray.io/hash-without-replicas-and-workers-to-delete")
    assert next(o for o in live if o["kind"] == "RayService").get("status")
    observed = write(tmp_path, "live.yaml", yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": live}))
    same = cli("plan", write(tmp_path, "same.yaml", yaml.safe_dump(base())), "--observed", observed, "-o", "json").json()
    assert same["outcome"] == "noop"
    (w,) = [w for w in same["warnings"] if w["code"] == "LiveClusterUnhashed"]
    assert "isClusterSpecHashEqual" in w["message"] and "new cluster" in w["message"]
    kept = live_world(base(), ns="ml-serving")
    observed2 = write(tmp_path, "live2.yaml", yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": kept}))
    again = cli("plan", write(tmp_path, "same2.yaml", yaml.safe_dump(base())), "--observed", observed2, "-o", "json").json()
    assert "LiveClusterUnhashed" not in _warnings(again)
