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
