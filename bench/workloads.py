"""Generated workloads for the benchmarks (sizes by pod count)."""

from __future__ import annotations

import copy
from typing import Any


def large_pcs(pods: int, image: str = "engine:1") -> dict[str, Any]:
    """A disaggregated PodCliqueSet with about ``pods`` pods: replicas of 50 pods each
    (frontend 10, prefill group 2 x (1 leader + 9 workers), decode group 2 x (1 + 9))."""
    replicas = max(1, pods // 50)

    def clique(name: str, reps: int, gpus: str | None) -> dict[str, Any]:
        req = {"cpu": "1", "memory": "1Gi"}
        if gpus:
            req["nvidia.com/gpu"] = gpus
        res: dict[str, Any] = {"requests": req}
        if gpus:
            res["limits"] = {"nvidia.com/gpu": gpus}  # extended resources need equal limits
        return {"name": name, "spec": {"roleName": name, "replicas": reps, "podSpec": {
            "containers": [{"name": name, "image": image, "resources": res}]}}}

    return {
        "apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet",
        "metadata": {"name": "bench", "namespace": "default"},
        "spec": {"replicas": replicas, "template": {
            "cliques": [clique("frontend", 10, None), clique("pleader", 1, "8"), clique("pworker", 9, "8"),
                        clique("dleader", 1, "8"), clique("dworker", 9, "8")],
            "podCliqueScalingGroups": [
                {"name": "prefill", "cliqueNames": ["pleader", "pworker"], "replicas": 2, "minAvailable": 1},
                {"name": "decode", "cliqueNames": ["dleader", "dworker"], "replicas": 2, "minAvailable": 1}]}},
    }


def wide_pcs(pods: int, image: str = "engine:1") -> dict[str, Any]:
    """A PodCliqueSet of about ``pods`` pods in many small replicas: one clique of 2 pods
    (``minAvailable: 2``) per replica, the shape of Grove's own 1,000-pod scale test
    (``operator/e2e`` ``scale-test-1000-moe``: 500 replicas of 2 pods). Its plans are
    long in replicas: what costs a pass per replica shows here."""
    return {
        "apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet",
        "metadata": {"name": "bench", "namespace": "default"},
        "spec": {"replicas": max(1, pods // 2), "template": {"cliques": [{
            "name": "expert-worker", "spec": {"roleName": "expert", "replicas": 2, "minAvailable": 2, "podSpec": {
                "containers": [{"name": "expert-worker", "image": image,
                                "resources": {"requests": {"cpu": "100m", "memory": "1Mi"}}}]}}}]}},
    }


SHAPES = {"large": large_pcs, "wide": wide_pcs}


def with_image(pcs: dict[str, Any], image: str) -> dict[str, Any]:
    new = copy.deepcopy(pcs)
    for c in new["spec"]["template"]["cliques"]:
        for ctr in c["spec"]["podSpec"]["containers"]:
            ctr["image"] = image
    return new


def with_strategy(pcs: dict[str, Any], strategy: str) -> dict[str, Any]:
    """``pcs`` under an update strategy: ``RollingRecreate`` (as given: the default),
    ``RollingUpdate`` (the proposed strategy, every clique ``maxSurge: 1,
    maxUnavailable: 0``) or ``OnDelete``."""
    new = copy.deepcopy(pcs)
    if strategy == "RollingRecreate":
        return new
    new["spec"]["updateStrategy"] = {"type": strategy}
    if strategy == "RollingUpdate":
        # budgets of the design: standalone cliques and scaling groups (members take their group's)
        members = {m for g in new["spec"]["template"].get("podCliqueScalingGroups", []) for m in g["cliqueNames"]}
        for c in new["spec"]["template"]["cliques"]:
            if c["name"] not in members:
                c["updateStrategy"] = {"maxSurge": 1, "maxUnavailable": 0}
        for g in new["spec"]["template"].get("podCliqueScalingGroups", []):
            g["updateStrategy"] = {"maxSurge": 1, "maxUnavailable": 0}
    return new


_KUEUE = "kueue.x-k8s.io/v1beta2"


def _kueue_rs(name: str, ns: str, queue: str, cpu: str, memory: str, labels: dict[str, str] | None = None,
              suspended: bool = False) -> dict[str, Any]:
    """A RayService under Kueue (the shape of samples/kueue-rayservice.yaml: one head Pod)
    asking for ``cpu`` and ``memory``; ``suspended``: as observed after a user set
    ``spec.suspend`` (a status is there)."""
    res = {"requests": {"cpu": cpu, "memory": memory}, "limits": {"cpu": cpu, "memory": memory}}
    rs: dict[str, Any] = {
        "apiVersion": "ray.io/v1", "kind": "RayService",
        "metadata": {"name": name, "namespace": ns, "labels": {"kueue.x-k8s.io/queue-name": queue, **(labels or {})},
                     "annotations": {"kueue.x-k8s.io/elastic-job": "true"}},
        "spec": {"serveConfigV2": "applications:\n  - name: app\n    import_path: app.graph\n",
                 "rayClusterConfig": {"rayVersion": "2.52.0", "headGroupSpec": {"rayStartParams": {}, "template": {
                     "spec": {"containers": [{"name": "ray-head", "image": "rayproject/ray:2.52.0",
                                              "resources": res}]}}}, "workerGroupSpecs": []}}}
    if suspended:
        rs["spec"]["suspend"] = True
        rs["spec"]["rayClusterConfig"]["suspend"] = True
        rs["status"] = {"observedGeneration": 1}
    return rs


def _admitted_workload(name: str, ns: str, owner: tuple[str, str], queue: str, cq: str, cpu: str,
                       memory: str) -> dict[str, Any]:
    """A live Workload holding ``cpu`` and ``memory`` of ClusterQueue ``cq`` (one pod set, head)."""
    cond = {"status": "True", "message": "ok", "lastTransitionTime": "2025-01-01T00:00:00Z"}
    return {"apiVersion": _KUEUE, "kind": "Workload",
            "metadata": {"name": name, "namespace": ns, "creationTimestamp": "2025-01-01T00:00:00Z",
                         "ownerReferences": [{"apiVersion": "ray.io/v1" if owner[0] == "RayService" else "batch/v1",
                                              "kind": owner[0], "name": owner[1], "uid": f"u-{owner[1]}",
                                              "controller": True}]},
            "spec": {"queueName": queue, "priority": 0, "active": True, "podSets": [{"name": "head", "count": 1,
                     "template": {"spec": {"containers": [{"name": "c", "image": "busybox", "resources": {
                         "requests": {"cpu": cpu, "memory": memory}}}]}}}]},
            "status": {"admission": {"clusterQueue": cq, "podSetAssignments": [
                {"name": "head", "flavors": {"cpu": "default-flavor", "memory": "default-flavor"}, "count": 1}]},
                "conditions": [{"type": "QuotaReserved", "reason": "QuotaReserved", **cond},
                               {"type": "Admitted", "reason": "Admitted", **cond}]}}


def kueue_neighbours(n: int, fit: int | None = None, mixed: bool = False,
                     preemption: str | None = None) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    """A RayService planned under Kueue next to ``n`` observed RayServices (no Workload
    given) in namespace default under the same ClusterQueue, each asking for 100m and
    128Mi, whose nominal quota fits ``fit + 1`` of them (``fit`` is ``n`` when None): the
    first ``fit + 1`` neighbours hold it, the later ones stay pending, and the target
    fits only next to ``fit`` of them. Returns (target, queues, neighbours).

    ``mixed``: neighbour i is, by ``i % 6``: in namespace default (0), in namespace team-b
    through another LocalQueue of the same ClusterQueue (1), under another ClusterQueue
    (2), suspended (3), one whose Workload the input gives (4: a live Workload holding its
    quota), or of WorkloadPriorityClass high (5); and a live Workload of a batch Job holds
    200m of the ClusterQueue. ``preemption``: the ClusterQueue's
    ``preemption.withinClusterQueue``."""
    fit = n if fit is None else fit
    cq: dict[str, Any] = {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu", "memory"], "flavors": [
        {"name": "default-flavor", "resources": [{"name": "cpu", "nominalQuota": f"{(fit + 1) * 100}m"},
                                                  {"name": "memory", "nominalQuota": f"{(fit + 1) * 128}Mi"}]}]}]}
    if preemption:
        cq["preemption"] = {"withinClusterQueue": preemption}
    queues: list[dict[str, Any]] = [
        {"apiVersion": _KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "default-flavor"}},
        {"apiVersion": _KUEUE, "kind": "ClusterQueue", "metadata": {"name": "cluster-queue"}, "spec": cq},
        {"apiVersion": _KUEUE, "kind": "LocalQueue", "metadata": {"name": "user-queue", "namespace": "default"},
         "spec": {"clusterQueue": "cluster-queue"}}]
    neighbours = []
    if mixed:
        other = copy.deepcopy(cq)
        other.pop("preemption", None)
        queues += [
            {"apiVersion": _KUEUE, "kind": "ClusterQueue", "metadata": {"name": "other-queue"}, "spec": other},
            {"apiVersion": _KUEUE, "kind": "LocalQueue", "metadata": {"name": "team-queue", "namespace": "team-b"},
             "spec": {"clusterQueue": "cluster-queue"}},
            {"apiVersion": _KUEUE, "kind": "LocalQueue", "metadata": {"name": "other", "namespace": "default"},
             "spec": {"clusterQueue": "other-queue"}},
            {"apiVersion": _KUEUE, "kind": "WorkloadPriorityClass", "metadata": {"name": "high"}, "value": 100},
            _admitted_workload("job-batch-1-abcde", "default", ("Job", "batch-1"), "user-queue", "cluster-queue",
                               "200m", "128Mi")]
    for i in range(n):
        name, kind = f"svc-{i:04d}", i % 6 if mixed else 0
        if kind == 1:
            neighbours.append(_kueue_rs(name, "team-b", "team-queue", "100m", "128Mi"))
        elif kind == 2:
            neighbours.append(_kueue_rs(name, "default", "other", "100m", "128Mi"))
        elif kind == 3:
            neighbours.append(_kueue_rs(name, "default", "user-queue", "100m", "128Mi", suspended=True))
        elif kind == 4:
            neighbours.append(_kueue_rs(name, "default", "user-queue", "100m", "128Mi"))
            queues.append(_admitted_workload(f"rayservice-{name}-abcde", "default", ("RayService", name),
                                             "user-queue", "cluster-queue", "100m", "128Mi"))
        elif kind == 5:
            neighbours.append(_kueue_rs(name, "default", "user-queue", "100m", "128Mi",
                                        labels={"kueue.x-k8s.io/priority-class": "high"}))
        else:
            neighbours.append(_kueue_rs(name, "default", "user-queue", "100m", "128Mi"))
    target = _kueue_rs("target", "default", "user-queue", "100m", "128Mi")
    return target, queues, neighbours
