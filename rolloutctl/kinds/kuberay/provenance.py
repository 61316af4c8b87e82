"""What a RayService plan rests on: the KubeRay operator it models (version,
commit, feature gates), and what it does not model that matters for this object."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.model import Obj, Operator, Warning

from .operator import DEFAULT_CONFIG, MODELLED_COMMIT, OperatorConfig
from .validation.util import FT_ENABLED_ANNOTATION

#: the upstream tree the model follows (``ray-project/kuberay``)
KUBERAY_COMMIT = MODELLED_COMMIT


def operators(desired: Obj, version: str, gates: Mapping[str, bool] | None = None) -> list[Operator]:
    """``version`` is the operator version modelled (``--kuberay-version``); the
    feature gates are the model's (``OperatorConfig.gates``: defaults and ``--feature-gate``)."""
    return [Operator("KubeRay", version, KUBERAY_COMMIT, dict(gates or {}))]


def _templates(rc: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    out = []
    head = rc.get("headGroupSpec")
    if isinstance(head, Mapping) and isinstance(head.get("template"), Mapping):
        out.append(head["template"])
    for g in rc.get("workerGroupSpecs") or []:
        if isinstance(g, Mapping) and isinstance(g.get("template"), Mapping):
            out.append(g["template"])
    return out


def redis_cleanup_finalizer(desired: Obj, cfg: OperatorConfig = DEFAULT_CONFIG) -> bool:
    """Whether the RayClusters of this RayService get the Redis cleanup finalizer
    (``ray.io/gcs-ft-redis-cleanup-finalizer``): ``rayClusterReconcile``
    (raycluster_controller.go) adds it when ``ENABLE_GCS_FT_REDIS_CLEANUP`` is not
    ``false`` and ``utils.IsGCSFaultToleranceEnabled`` (the ``ray.io/ft-enabled``
    annotation, which the clusters take from the RayService, or
    ``gcsFaultToleranceOptions``) holds without ``utils.IsGCSFaultToleranceEmbedded``
    (backend ``rocksdb``)."""
    rc = desired.spec.get("rayClusterConfig")
    rc = rc if isinstance(rc, Mapping) else {}
    ft = rc.get("gcsFaultToleranceOptions")
    enabled = str(desired.annotations.get(FT_ENABLED_ANNOTATION, "")).lower() == "true" or isinstance(ft, Mapping)
    embedded = isinstance(ft, Mapping) and str(ft.get("backend") or "redis") == "rocksdb"
    return cfg.redis_cleanup_env() and enabled and not embedded


def not_modelled(desired: Obj, cfg: OperatorConfig = DEFAULT_CONFIG) -> list[Warning]:
    rc = desired.spec.get("rayClusterConfig")
    rc = rc if isinstance(rc, Mapping) else {}
    out: list[Warning] = []
    if redis_cleanup_finalizer(desired, cfg):
        out.append(Warning(
            "NotModelledRedisCleanup",
            "GCS fault tolerance with Redis: KubeRay's RayCluster controller keeps a deleted RayCluster (finalizer "
            "ray.io/gcs-ft-redis-cleanup-finalizer) until its head Pod is gone and a Redis cleanup Job has finished, "
            "or the deletion timeout has passed; the plan removes a deleted RayCluster at once, so the old cluster "
            "after an upgrade, and every cluster on suspend, is listed longer than shown, and Suspended comes only "
            "after that (raycluster_controller.go rayClusterReconcile; rayservice_controller.go "
            "deleteRayServiceOwnedResources)",
            "spec.rayClusterConfig.gcsFaultToleranceOptions" if isinstance(rc.get("gcsFaultToleranceOptions"), Mapping)
            else f"metadata.annotations[{FT_ENABLED_ANNOTATION}]"))
    if rc.get("enableInTreeAutoscaling"):
        out.append(Warning("NotModelledAutoscaler", "the Ray autoscaler may add or remove worker Pods during the "
                           "upgrade; the plan holds worker replicas at the manifest's values",
                           "spec.rayClusterConfig.enableInTreeAutoscaling"))
    if any(isinstance(t.get("spec"), Mapping) and t["spec"].get("priorityClassName") for t in _templates(rc)):
        out.append(Warning("NotModelledPreemption", "scheduler preemption (these Pods evicting lower-priority pods, "
                           "or being evicted) is not modelled: capacity is only what --capacity gives",
                           "spec.rayClusterConfig"))
    out.append(Warning("NotModelledDisruptions", "voluntary disruptions during the upgrade (node drains and "
                       "evictions that PodDisruptionBudgets govern), Ray node failures and pod failures other than "
                       "--never-ready are not modelled", ""))
    return out
