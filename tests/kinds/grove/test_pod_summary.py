"""A PodClique's pod summary counts each scheduled pod's own requests, however its pods
differ in what the requests are computed from (``summary.REQUEST_FIELDS``)."""

from __future__ import annotations

import copy

from rolloutctl.core.environment import add, pod_requests
from rolloutctl.core.model import Obj
from rolloutctl.kinds.grove import summary as SUM


def _pod(i: int, spec: dict) -> Obj:
    spec = copy.deepcopy(spec)
    spec["nodeName"] = "node"
    return Obj({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": f"p-{i}", "namespace": "default", "labels": {"grove.io/podclique": "c"}},
                "spec": spec, "status": {"phase": "Running"}})


BASE = {"containers": [{"name": "a", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}
VARIANTS = [
    BASE,
    {**BASE, "initContainers": [{"name": "side", "restartPolicy": "Always",
                                 "resources": {"requests": {"cpu": "500m"}}}]},
    {**BASE, "resources": {"requests": {"cpu": "3"}}},
    {**BASE, "overhead": {"cpu": "250m", "memory": "64Mi"}},
    {"containers": [{"name": "a", "resources": {"limits": {"cpu": "2", "nvidia.com/gpu": "1"}}}]},
    {"containers": [{"name": "a", "resources": {"requests": {"cpu": "7"}}}]},
]


def test_scheduled_resources_are_each_pods_own_requests():
    pods = [_pod(i, VARIANTS[i % len(VARIANTS)]) for i in range(3 * len(VARIANTS))]
    want: dict[str, int] = {}
    for p in pods:
        add(want, pod_requests(p.spec))
    got = SUM.PodSummary(pods).scheduled_resources()
    assert dict(got) == want


def test_pods_of_one_template_count_their_requests_once_each():
    pods = [_pod(i, BASE) for i in range(10)]
    assert dict(SUM.PodSummary(pods).scheduled_resources()) == {"cpu": 10_000, "memory": 10 * 1024 ** 3 * 1000}
