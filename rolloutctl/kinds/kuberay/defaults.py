"""What a RayService diff needs from the KubeRay model: the API server's defaults
(CRD-level only: KubeRay has no defaulting webhook for RayService,
``ray-operator/pkg/webhooks/v1/rayservice_webhook.go`` only validates) and which list
orders matter."""

from __future__ import annotations

from typing import Any, Mapping

from ...core.diff import apply_crd_defaults


def _pod_template_defaults(prefix: str) -> list[tuple[str, Any]]:
    return [(f"{prefix}.spec.{c}[].ports[].protocol", "TCP") for c in ("containers", "initContainers")]


#: CRD-level defaults of ``ray.io/v1`` RayService (``ray.io_rayservices.yaml`` at the
#: modelled KubeRay commit).
RAYSERVICE_CRD_DEFAULTS: tuple[tuple[str, Any], ...] = (
    ("spec.rayClusterConfig.workerGroupSpecs[].replicas", 0),
    ("spec.rayClusterConfig.workerGroupSpecs[].minReplicas", 0),
    ("spec.rayClusterConfig.workerGroupSpecs[].maxReplicas", 2147483647),
    ("spec.rayClusterConfig.workerGroupSpecs[].numOfHosts", 1),
    ("spec.rayClusterConfig.workerGroupSpecs[].priority", 0),
    ("spec.rayClusterConfig.headGroupSpec.headService.spec.ports[].protocol", "TCP"),
    ("spec.rayClusterConfig.networkPolicy.mode", "DenyAll"),
    ("spec.serveService.spec.ports[].protocol", "TCP"),
    ("spec.upgradeStrategy.clusterUpgradeOptions.maxSurgePercent", 100),
    *_pod_template_defaults("spec.rayClusterConfig.headGroupSpec.template"),
    *_pod_template_defaults("spec.rayClusterConfig.workerGroupSpecs[].template"),
)


def rayservice_crd_defaults(raw: Mapping[str, Any]) -> dict:
    """Only the CRD-level defaults of a RayService (KubeRay has no defaulting webhook
    for it: ``ray-operator/pkg/webhooks/v1/rayservice_webhook.go`` only validates)."""
    return apply_crd_defaults(raw, RAYSERVICE_CRD_DEFAULTS)


def rayservice_order_matters(list_path: tuple) -> bool:
    """KubeRay compares clusters by a hash of the JSON of ``rayClusterConfig``
    (``GenerateHashWithoutReplicasAndWorkersToDelete``), so the order of any list
    inside it counts."""
    return tuple(list_path[:2]) == ("spec", "rayClusterConfig")
