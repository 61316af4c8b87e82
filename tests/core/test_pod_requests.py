"""A pod's effective requests as the scheduler counts them (k8s.io/component-helpers resource.PodRequests):
what --capacity and every peak use, for Grove pods, RayCluster pods and Kueue pod sets alike."""

from __future__ import annotations

from hypothesis import given, strategies as st

from rolloutctl.core.environment import pod_requests


def ctr(cpu: str | None = None, mem: str | None = None, *, sidecar: bool = False, limits: dict | None = None) -> dict:
    req = {k: v for k, v in (("cpu", cpu), ("memory", mem)) if v is not None}
    c: dict = {"name": "c", "resources": {"requests": req, **({"limits": limits} if limits else {})}}
    if sidecar:
        c["restartPolicy"] = "Always"
    return c


def test_containers_add_up_and_an_init_container_is_a_floor():
    spec = {"containers": [ctr("1"), ctr("2")], "initContainers": [ctr("4"), ctr("500m")]}
    assert pod_requests(spec) == {"cpu": 4000}
    assert pod_requests({"containers": [ctr("1"), ctr("2")], "initContainers": [ctr("2500m")]}) == {"cpu": 3000}


def test_a_sidecar_runs_beside_the_containers_and_the_init_containers_after_it():
    # an Istio-style native sidecar (restartPolicy: Always) adds to the containers' sum ...
    spec = {"containers": [ctr("1", "1Gi")], "initContainers": [ctr("100m", "128Mi", sidecar=True)]}
    assert pod_requests(spec) == {"cpu": 1100, "memory": (1024 + 128) * 1024 * 1024 * 1000}
    # ... and to every ordinary init container that starts after it, but not to those before it
    spec = {"containers": [ctr("1")],
            "initContainers": [ctr("3"), ctr("500m", sidecar=True), ctr("3")]}
    assert pod_requests(spec) == {"cpu": 3500}
    spec = {"containers": [ctr("1")], "initContainers": [ctr("3"), ctr("500m", sidecar=True)]}
    assert pod_requests(spec) == {"cpu": 3000}


def test_pod_level_requests_replace_cpu_and_memory_and_overhead_adds():
    spec = {"containers": [ctr("1", "1Gi"), {"name": "g", "resources": {"limits": {"nvidia.com/gpu": "2"}}}],
            "resources": {"requests": {"cpu": "4"}, "limits": {"memory": "8Gi"}},
            "overhead": {"cpu": "250m"}}
    assert pod_requests(spec) == {"cpu": 4250, "memory": 8 * 1024 ** 3 * 1000, "nvidia.com/gpu": 2000}


@given(st.lists(st.integers(0, 4000), min_size=1, max_size=4), st.lists(st.integers(0, 4000), max_size=4))
def test_without_sidecars_it_is_the_sum_or_the_largest_init_container(app, init):
    spec = {"containers": [ctr(f"{m}m") for m in app], "initContainers": [ctr(f"{m}m") for m in init]}
    assert pod_requests(spec) == {"cpu": max([sum(app), *init])}
