"""What Kueue's RayCluster integration reads and writes of a RayCluster spec: its pod
sets, the pod templates by pod set, and restoring them.

Upstream: kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7, ``pkg/controller/jobs/raycluster/common.go`` (``effectiveWorkerCount``,
``BuildPodSets``, ``autoscalerContainer``, ``shouldAccountForRedisCleanup``, ``accountForRedisCleanupInHeadPodSet``, ``UpdateRayClusterSpecToRunWithPodSetsInfo``, ``RestorePodSetsInfo``).
The RayService integration (``jobs/rayservice``) builds its pod sets with the same
functions, from ``spec.rayClusterConfig``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Iterable

from ...core.model import Obj
from ...core.quantity import parse_quantity
from .constants import HEAD
from .podset import PodSet, strip_injection


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def effective_worker_count(group: Mapping[str, Any]) -> int:
    """``effectiveWorkerCount`` (raycluster/common.go): ``replicas`` (1 when unset; the
    CRD defaults it to 0 on admission) times ``numOfHosts`` when above one. A suspended
    group (``suspend: true``) counts its replicas all the same: Kueue does not look at it."""
    r = group.get("replicas")
    r = r if isinstance(r, int) and not isinstance(r, bool) else 1
    h = group.get("numOfHosts")
    h = h if isinstance(h, int) and h > 1 else 1
    return max(0, r) * h


#: what KubeRay's Redis cleanup Job requests (``redisCleanupResourceRequests``)
REDIS_CLEANUP_REQUESTS = MappingProxyType({"cpu": "200m", "memory": "256Mi"})


def gcs_fault_tolerance_enabled(cluster_spec: Mapping[str, Any], annotations: Mapping[str, Any]) -> bool:
    """KubeRay's ``IsGCSFaultToleranceEnabled`` (utils/util.go), as Kueue's
    ``shouldAccountForRedisCleanup`` calls it: annotation ``ray.io/ft-enabled`` "true" (any
    case) or ``gcsFaultToleranceOptions`` set."""
    v = annotations.get("ray.io/ft-enabled")
    return (isinstance(v, str) and v.lower() == "true") or cluster_spec.get("gcsFaultToleranceOptions") is not None


def account_for_redis_cleanup(head_t: dict) -> dict:
    """``accountForRedisCleanupInHeadPodSet`` (raycluster/common.go): the Ray container's
    (index 0) requests raised to at least the Redis cleanup Job's (``MergeResourceListKeepMax``),
    on a copy of the head template."""
    spec = _m(head_t.get("spec"))
    ctrs = _l(spec.get("containers"))
    if not ctrs or not isinstance(ctrs[0], Mapping):
        return head_t
    c0 = dict(ctrs[0])
    res = dict(_m(c0.get("resources")))
    req = dict(_m(res.get("requests")))
    for r, q in REDIS_CLEANUP_REQUESTS.items():
        try:
            have = parse_quantity(req[r]) if r in req else None
        except ValueError:
            have = None
        if have is None or have < parse_quantity(q):
            req[r] = q
    res["requests"] = req
    c0["resources"] = res
    return {**head_t, "spec": {**spec, "containers": [c0, *ctrs[1:]]}}


#: what KubeRay gives the autoscaler sidecar when ``autoscalerOptions.resources`` is not set
#: (``defaultAutoscalerResources``, mirroring KubeRay's ``BuildAutoscalerContainer``)
DEFAULT_AUTOSCALER_RESOURCES = MappingProxyType({"requests": {"cpu": "500m", "memory": "512Mi"},
                                                 "limits": {"cpu": "500m", "memory": "512Mi"}})


def autoscaler_container(autoscaler_options: Mapping[str, Any]) -> dict:
    """``autoscalerContainer`` (raycluster/common.go, #12405): the autoscaler sidecar KubeRay
    adds to the head Pod with in-tree autoscaling, named ``autoscaler``, with
    ``autoscalerOptions.resources`` when set (as given: a limit stands for a missing request
    when Kueue counts it) and KubeRay's defaults otherwise."""
    res = autoscaler_options.get("resources")
    res = copy.deepcopy(dict(res)) if isinstance(res, Mapping) else copy.deepcopy(
        {k: dict(v) for k, v in DEFAULT_AUTOSCALER_RESOURCES.items()})
    return {"name": "autoscaler", "resources": res}


def build_pod_sets(cluster_spec: Mapping[str, Any], annotations: Mapping[str, Any] | None = None) -> list[PodSet]:
    """``BuildPodSets`` (raycluster/common.go): ``head`` x1 from the head template (the Ray
    container raised to the Redis cleanup Job's requests with GCS fault tolerance, and the
    autoscaler sidecar appended when in-tree autoscaling is on), then one pod set per
    worker group in spec order. ``annotations``: the job's (RayService or RayCluster)."""
    head_t = dict(_m(_m(cluster_spec.get("headGroupSpec")).get("template")))
    if gcs_fault_tolerance_enabled(cluster_spec, _m(annotations)):
        head_t = account_for_redis_cleanup(head_t)
    if cluster_spec.get("enableInTreeAutoscaling") is True:
        spec = _m(head_t.get("spec"))
        head_t = {**head_t, "spec": {**spec, "containers": [
            *_l(spec.get("containers")), autoscaler_container(_m(cluster_spec.get("autoscalerOptions")))]}}
    out = [PodSet(HEAD, 1, head_t)]
    for g in _l(cluster_spec.get("workerGroupSpecs")):
        g = _m(g)
        out.append(PodSet(str(g.get("groupName") or ""), effective_worker_count(g), dict(_m(g.get("template")))))
    return out


def cluster_templates(cluster_spec: dict) -> list[dict]:
    """The pod templates of a cluster spec by pod set index (0 = head, i+1 = worker i),
    as ``UpdateRayClusterSpecToRunWithPodSetsInfo`` indexes them."""
    out = []
    head = cluster_spec.get("headGroupSpec")
    if isinstance(head, dict):
        out.append(head.setdefault("template", {}))
    for g in _l(cluster_spec.get("workerGroupSpecs")):
        if isinstance(g, dict):
            out.append(g.setdefault("template", {}))
    return out


def strip_cluster_injection(cluster_spec: dict, rfs: Iterable[Obj]) -> None:
    """``strip_injection`` on the head and every worker group template of a RayCluster
    spec, in place."""
    rfs = list(rfs)
    groups = [cluster_spec.get("headGroupSpec"), *_l(cluster_spec.get("workerGroupSpecs"))]
    for g in groups:
        if isinstance(g, dict) and isinstance(g.get("template"), dict):
            g["template"] = strip_injection(g["template"], rfs)
