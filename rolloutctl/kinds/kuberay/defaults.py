"""What a RayService diff needs from the KubeRay model: the API server's defaults
(CRD-level only: KubeRay has no defaulting webhook for RayService,
``ray-operator/pkg/webhooks/v1/rayservice_webhook.go`` only validates) and which list
orders matter."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...core.trees import copy_tree, pattern_parents


def _pod_template_defaults(prefix: str) -> list[tuple[str, Any]]:
    return [(f"{prefix}.spec.{c}[].ports[].protocol", "TCP") for c in ("containers", "initContainers")]


#: CRD-level defaults of a RayCluster spec (``ray.io_rayclusters.yaml``; the same Go types
#: generate ``rayClusterConfig`` in ``ray.io_rayservices.yaml``), relative to the spec.
RAYCLUSTER_SPEC_DEFAULTS: tuple[tuple[str, Any], ...] = (
    ("workerGroupSpecs[].replicas", 0),
    ("workerGroupSpecs[].minReplicas", 0),
    ("workerGroupSpecs[].maxReplicas", 2147483647),
    ("workerGroupSpecs[].numOfHosts", 1),
    ("workerGroupSpecs[].priority", 0),
    ("headGroupSpec.headService.spec.ports[].protocol", "TCP"),
    ("networkPolicy.mode", "DenyAll"),
    *_pod_template_defaults("headGroupSpec.template"),
    *_pod_template_defaults("workerGroupSpecs[].template"),
)

#: CRD-level defaults of ``ray.io/v1`` RayService (``ray.io_rayservices.yaml`` at the
#: modelled KubeRay commit).
RAYSERVICE_CRD_DEFAULTS: tuple[tuple[str, Any], ...] = (
    *((f"spec.rayClusterConfig.{path}", value) for path, value in RAYCLUSTER_SPEC_DEFAULTS),
    ("spec.serveService.spec.ports[].protocol", "TCP"),
    ("spec.upgradeStrategy.clusterUpgradeOptions.maxSurgePercent", 100),
)


def fill_crd_defaults(tree: dict, table: Sequence[tuple[str, Any]]) -> dict:
    """``tree`` with structural-schema defaults filled in, in place, as the API server
    does on write and on read. ``table`` rows are ``(pattern, value)``; a pattern is a
    dotted path where ``[]`` means every item of a list, e.g.
    ``spec.rayClusterConfig.workerGroupSpecs[].replicas``. A default is set only where
    its parent object exists and the field is absent (or null)."""
    for pattern, value in table:
        name, parents = pattern_parents(tree, pattern)
        for _at, parent in parents:
            if parent.get(name) is None:
                parent[name] = copy_tree(value)
    return tree


def raycluster_spec_defaults(spec: Mapping[str, Any]) -> dict:
    """A copy of a RayCluster spec with its CRD defaults (both sides of a cluster
    comparison)."""
    return fill_crd_defaults({k: copy_tree(x) for k, x in spec.items()}, RAYCLUSTER_SPEC_DEFAULTS)


def rayservice_crd_defaults(raw: dict) -> dict:
    """Only the CRD-level defaults of a RayService (KubeRay has no defaulting webhook
    for it: ``ray-operator/pkg/webhooks/v1/rayservice_webhook.go`` only validates),
    filled in place: the kind's ``defaults`` (``core.kind.KindDescriptor``) gets the
    admission's own copy of the object."""
    return fill_crd_defaults(raw, RAYSERVICE_CRD_DEFAULTS)


def rayservice_order_matters(list_path: tuple) -> bool:
    """KubeRay compares clusters by a hash of the JSON of ``rayClusterConfig``
    (``GenerateHashWithoutReplicasAndWorkersToDelete``), so the order of any list
    inside it counts."""
    return tuple(list_path[:2]) == ("spec", "rayClusterConfig")
