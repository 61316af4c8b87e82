"""A small PodCliqueSet (one standalone clique of 2 pods, one scaling group of 2
replicas of a leader and a worker on 1 GPU each) whose whole advice grid can be
planned by brute force: RollingRecreate 3 x 3, RollingUpdate 8 x 8, ReplicaRecreate 3."""

from __future__ import annotations

import copy
from pathlib import Path

import yaml

SMALL = {
    "apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet",
    "metadata": {"name": "small", "namespace": "default"},
    "spec": {"replicas": 1, "template": {
        "cliques": [
            {"name": "router", "spec": {"roleName": "router", "replicas": 2, "minAvailable": 1, "podSpec": {
                "containers": [{"name": "c", "image": "img:1", "resources": {"requests": {"cpu": "1"}}}]}}},
            {"name": "leader", "spec": {"roleName": "leader", "replicas": 1, "podSpec": {
                "containers": [{"name": "c", "image": "img:1", "resources": {"requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "1"}}}]}}},
            {"name": "worker", "spec": {"roleName": "worker", "replicas": 1, "podSpec": {
                "containers": [{"name": "c", "image": "img:1", "resources": {"requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "1"}}}]}}},
        ],
        "podCliqueScalingGroups": [{"name": "model", "cliqueNames": ["leader", "worker"], "replicas": 2,
                                    "minAvailable": 1}],
    }},
}


def small_pair(tmp: Path, image: str = "img:2", **spec) -> tuple[str, str]:
    old = copy.deepcopy(SMALL)
    old["spec"].update(spec)
    new = copy.deepcopy(old)
    for c in new["spec"]["template"]["cliques"]:
        c["spec"]["podSpec"]["containers"][0]["image"] = image
    (tmp / "old.yaml").write_text(yaml.safe_dump(old, sort_keys=False))
    (tmp / "new.yaml").write_text(yaml.safe_dump(new, sort_keys=False))
    return str(tmp / "new.yaml"), str(tmp / "old.yaml")
