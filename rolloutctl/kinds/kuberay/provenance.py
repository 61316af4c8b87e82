"""What a RayService plan rests on: the KubeRay operator it models (version,
commit, feature gates), and what it does not model that matters for this object."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.model import Obj, Operator, Warning

from .operator import MODELLED_COMMIT

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


def not_modelled(desired: Obj) -> list[Warning]:
    rc = desired.spec.get("rayClusterConfig")
    rc = rc if isinstance(rc, Mapping) else {}
    out: list[Warning] = []
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
