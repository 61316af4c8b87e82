"""What a RayService plan rests on: the KubeRay operator it models (version,
commit, feature gates), and what it does not model that matters for this object."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.environment import scheduling_gates
from ...core.model import Obj, Operator, Warning
from ...core.world import World

from .api import MEM_REDIS_CLEANUP, RC, REDIS_CLEANUP_FINALIZER
from .operator import DEFAULT_CONFIG, MODELLED_COMMIT, OperatorConfig
from .utils import is_gcs_fault_tolerance_embedded
from .validation.util import FT_ENABLED_ANNOTATION

#: the upstream tree the model follows (``ray-project/kuberay``)
KUBERAY_COMMIT = MODELLED_COMMIT


def operators(desired: Obj, version: str, gates: Mapping[str, bool] | None = None,
              env: Mapping[str, str] | None = None) -> list[Operator]:
    """``version`` is the operator version modelled (``--kuberay-version``); the
    feature gates are the model's (``OperatorConfig.gates``: defaults and ``--feature-gate``);
    ``env`` the operator environment given with ``--kuberay-env`` (``OperatorConfig.env``)."""
    return [Operator("KubeRay", version, KUBERAY_COMMIT, dict(gates or {}), dict(env or {}))]


def _templates(rc: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    out = []
    head = rc.get("headGroupSpec")
    if isinstance(head, Mapping) and isinstance(head.get("template"), Mapping):
        out.append(head["template"])
    for g in rc.get("workerGroupSpecs") or []:
        if isinstance(g, Mapping) and isinstance(g.get("template"), Mapping):
            out.append(g["template"])
    return out


def _gated_groups(rc: Mapping[str, Any]) -> list[tuple[str, str, tuple[str, ...]]]:
    """(group, path of its schedulingGates, gate names) of each pod template the
    manifest gates itself, head first."""
    out = []
    head = rc.get("headGroupSpec")
    if isinstance(head, Mapping) and isinstance(head.get("template"), Mapping):
        gates = scheduling_gates(head["template"].get("spec"))
        if gates:
            out.append(("the head group", "spec.rayClusterConfig.headGroupSpec.template.spec.schedulingGates", gates))
    for g in rc.get("workerGroupSpecs") or []:
        if isinstance(g, Mapping) and isinstance(g.get("template"), Mapping):
            gates = scheduling_gates(g["template"].get("spec"))
            if gates:
                name = g.get("groupName")
                out.append((f"worker group {name}",
                            f"spec.rayClusterConfig.workerGroupSpecs[groupName={name}].template.spec.schedulingGates",
                            gates))
    return out


def _cleans_up_redis(spec: Mapping[str, Any], annotations: Mapping[str, Any], cfg: OperatorConfig) -> bool:
    """The condition of the Redis cleanup block of ``rayClusterReconcile``
    (raycluster_controller.go) for a RayCluster with this spec and these annotations:
    ``ENABLE_GCS_FT_REDIS_CLEANUP`` is not ``false``, ``utils.IsGCSFaultToleranceEnabled``
    (the ``ray.io/ft-enabled`` annotation, or ``gcsFaultToleranceOptions``) holds, and
    ``utils.IsGCSFaultToleranceEmbedded`` (backend ``rocksdb``) does not. While it holds,
    the controller adds the finalizer to a live cluster and, once the cluster is deleted,
    removes it only after the cleanup Job (or the deletion timeout)."""
    ft = spec.get("gcsFaultToleranceOptions")
    enabled = str(annotations.get(FT_ENABLED_ANNOTATION, "")).lower() == "true" or isinstance(ft, Mapping)
    return cfg.redis_cleanup_env() and enabled and not is_gcs_fault_tolerance_embedded(ft)


def redis_cleanup_finalizer(desired: Obj, cfg: OperatorConfig = DEFAULT_CONFIG) -> bool:
    """Whether the RayClusters of this RayService get the Redis cleanup finalizer
    (``ray.io/gcs-ft-redis-cleanup-finalizer``): ``rayClusterReconcile``
    (raycluster_controller.go) adds it when ``_cleans_up_redis`` holds for the cluster,
    which takes its spec from ``rayClusterConfig`` and the ``ray.io/ft-enabled``
    annotation from the RayService."""
    rc = desired.spec.get("rayClusterConfig")
    return _cleans_up_redis(rc if isinstance(rc, Mapping) else {}, desired.annotations, cfg)


def observed_redis_cleanup(world: World, cfg: OperatorConfig = DEFAULT_CONFIG) -> tuple[tuple[str, str, bool], ...]:
    """The RayClusters of the starting world whose deletion waits for the Redis cleanup
    (``_cleans_up_redis`` on their own spec and annotations, whatever the desired spec now
    says: the cleanup block of ``rayClusterReconcile`` reads the cluster being deleted), as
    (namespace, name, whether it carries the finalizer already). One that does not carries
    it as soon as the RayCluster controller reconciles it (``AddFinalizer`` comes before
    any other reconcile step)."""
    out = []
    for rc in world.of_kind(RC):
        if _cleans_up_redis(rc.spec, rc.annotations, cfg):
            fins = rc.metadata.get("finalizers")
            out.append((rc.namespace, rc.name, isinstance(fins, list) and REDIS_CLEANUP_FINALIZER in fins))
    return tuple(out)


def with_observed_clusters(world: World, cfg: OperatorConfig = DEFAULT_CONFIG) -> World:
    """``world`` (a starting world) remembering ``observed_redis_cleanup`` for
    ``not_modelled``, which is handed the plan's last world, where a deleted cluster is gone."""
    return world.with_memory(**{MEM_REDIS_CLEANUP: observed_redis_cleanup(world, cfg)})


def _names(names: list[str]) -> str:
    return ("RayCluster " if len(names) == 1 else "RayClusters ") + ", ".join(names)


def not_modelled(desired: Obj, cfg: OperatorConfig = DEFAULT_CONFIG, world: World | None = None) -> list[Warning]:
    """What the model leaves out that matters for this plan; ``world`` is the plan's last
    world (its memory holds ``with_observed_clusters`` of the starting world)."""
    rc = desired.spec.get("rayClusterConfig")
    rc = rc if isinstance(rc, Mapping) else {}
    out: list[Warning] = []
    spec_ft = redis_cleanup_finalizer(desired, cfg)
    removed: list[str] = []  # observed, deleted by the plan, removed by it at once
    held: list[str] = []  # observed, deleted by the plan, held by the finalizer to its end
    if world is not None:
        for ns, name, carries in world.memory.get(MEM_REDIS_CLEANUP, ()):
            last = world.get(RC, ns, name)
            if last is not None and not last.terminating:
                continue  # not deleted by this plan
            if carries:
                held.append(name)
            else:
                removed.append(name)
    if spec_ft or removed or held:
        shown = []
        if spec_ft:
            shown.append("the plan removes a deleted RayCluster at once, so the old cluster after an upgrade, and "
                         "every cluster on suspend, is listed longer than shown, and Suspended comes only after that")
        elif removed:
            shown.append(f"the plan removes the observed {_names(removed)} (GCS fault tolerance with Redis in its "
                         "own spec, whatever the desired spec says) at once, so it is listed longer than shown")
        if held:
            shown.append(f"the observed {_names(held)} carries the finalizer: the plan keeps it Terminating to the "
                         "end, where KubeRay removes it once its cleanup Job has finished or the timeout has passed")
        if spec_ft:
            path = ("spec.rayClusterConfig.gcsFaultToleranceOptions" if isinstance(rc.get("gcsFaultToleranceOptions"), Mapping)
                    else f"metadata.annotations[{FT_ENABLED_ANNOTATION}]")
        elif held:
            path = f"RayCluster/{held[0]}.metadata.finalizers"
        else:
            path = f"RayCluster/{removed[0]}.spec"
        out.append(Warning(
            "NotModelledRedisCleanup",
            "GCS fault tolerance with Redis: KubeRay's RayCluster controller keeps a deleted RayCluster (finalizer "
            f"{REDIS_CLEANUP_FINALIZER}) until its head Pod is gone and a Redis cleanup Job has finished, or the "
            f"deletion timeout has passed; {'; '.join(shown)} (raycluster_controller.go rayClusterReconcile; "
            "rayservice_controller.go deleteRayServiceOwnedResources)",
            path))
    if rc.get("enableInTreeAutoscaling"):
        out.append(Warning("NotModelledAutoscaler", "the Ray autoscaler may add or remove worker Pods during the "
                           "upgrade; the plan holds worker replicas at the manifest's values",
                           "spec.rayClusterConfig.enableInTreeAutoscaling"))
    gated = _gated_groups(rc)
    if gated:
        names = sorted({n for _, _, gates in gated for n in gates})
        out.append(Warning(
            "NotModelledSchedulingGates",
            f"the Pods of {', '.join(g for g, _, _ in gated)} carry schedulingGates ({', '.join(names)}) that "
            "neither KubeRay nor Kubernetes removes: kube-scheduler keeps a gated Pod Pending until another "
            "controller removes every gate (SchedulingGates PreEnqueue); the plan assumes that happens as soon as "
            "the Pod is created", gated[0][1]))
    if any(isinstance(t.get("spec"), Mapping) and t["spec"].get("priorityClassName") for t in _templates(rc)):
        out.append(Warning("NotModelledPreemption", "scheduler preemption (these Pods evicting lower-priority pods, "
                           "or being evicted) is not modelled: capacity is only what --capacity gives",
                           "spec.rayClusterConfig"))
    out.append(Warning("NotModelledDisruptions", "voluntary disruptions during the upgrade (node drains and "
                       "evictions that PodDisruptionBudgets govern), Ray node failures and pod failures other than "
                       "--never-ready are not modelled", ""))
    return out
