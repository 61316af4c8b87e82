"""What Kueue's RayCluster integration reads and writes of a RayCluster spec: its pod
sets, the pod templates by pod set, and restoring them.

Upstream: kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7, ``pkg/controller/jobs/raycluster/common.go`` (``effectiveWorkerCount``,
``BuildPodSets``, ``UpdateRayClusterSpecToRunWithPodSetsInfo``, ``RestorePodSetsInfo``).
The RayService integration (``jobs/rayservice``) builds its pod sets with the same
functions, from ``spec.rayClusterConfig``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Iterable

from ...core.model import Obj
from .constants import HEAD
from .podset import PodSet, strip_injection


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def effective_worker_count(group: Mapping[str, Any]) -> int:
    """``effectiveWorkerCount`` (raycluster/common.go): ``replicas`` (CRD default 0)
    times ``numOfHosts`` when above one; a suspended group counts zero."""
    if group.get("suspend") is True:
        return 0
    r = group.get("replicas")
    r = r if isinstance(r, int) and not isinstance(r, bool) else 0
    h = group.get("numOfHosts")
    h = h if isinstance(h, int) and h > 1 else 1
    return max(0, r) * h


def build_pod_sets(cluster_spec: Mapping[str, Any]) -> list[PodSet]:
    """``BuildPodSets`` (raycluster/common.go): ``head`` x1 from the head template (plus
    the autoscaler sidecar's requests when in-tree autoscaling is on), then one pod set
    per worker group in spec order."""
    head_t = dict(_m(_m(cluster_spec.get("headGroupSpec")).get("template")))
    if cluster_spec.get("enableInTreeAutoscaling") is True:
        head_t["__autoscaler__"] = True
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
