"""The RayService spec as the controller reads it: the upgrade strategy's options, the
deletion delay, ``spec.managedBy``, the serve Service name and the Serve config's
application names.

Upstream (ray-project/kuberay @ feeaf72f): ``ray-operator/controllers/ray/utils/util.go``
``IsIncrementalUpgradeEnabled``, ``ManagedByExternalController``;
``ray-operator/controllers/ray/common/association.go``
``RayServiceServeServiceNamespacedName``; ``rayservice_controller.go``
``cleanUpRayClusterInstance`` (the deletion delay) and ``getAndCheckServeStatus``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.model import Obj
from . import utils as ku
from .api import DEFAULT_DELETION_DELAY
from .operator import DEFAULT_CONFIG, OperatorConfig
from .validation.util import decoded_serve_config, is_incremental_upgrade_enabled, serve_config, serve_config_applications


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, dict) or isinstance(v, Mapping) else {}  # dict first: the common case, cheaper


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def serve_app_names(config: str) -> list[str]:
    """Application names of a Serve config (``application_names``; an unparsable config
    yields no application)."""
    return application_names(serve_config_applications(config))


def application_names(apps: list[Any]) -> list[str]:
    """The names of a Serve config's applications (``getAndCheckServeStatus`` reports an
    empty name as ``default``), sorted, each once."""
    return sorted({str(n) if n else "default" for n in (_m(a).get("name") for a in apps)})


def serve_config_error(desired: Obj) -> str | None:
    """``serve_config_unmarshal_error`` of the RayService's ``spec.serveConfigV2``, from the
    object's one decoding of it (``decoded_serve_config``)."""
    return desired.derived(decoded_serve_config)[1]


def serve_config_target_capacity(config: str) -> int | None:
    """The top-level ``target_capacity`` of a Serve config where ``applyServeTargetCapacity``
    (rayservice_controller.go) sees one: ``serveConfig["target_capacity"].(float64)``,
    truncated to int32. The config is unmarshalled by
    ``k8s.io/apimachinery/pkg/util/yaml.Unmarshal`` into ``map[string]any``, which decodes
    numbers with ``UseNumber`` and turns every integral one into int64
    (``pkg/util/json`` ``convertNumber``; sigs.k8s.io/yaml v1.6.0 writes ``50.0`` as JSON
    ``50``), so only a non-integral number (``50.5``) is a float64 there. None for an
    integral number, a non-number, an absent value or a config that does not parse."""
    if not config or not config.strip():
        return None
    doc, _err = serve_config(config)  # (unparsable: no target_capacity read)
    v = _m(doc).get("target_capacity")
    if not isinstance(v, float) or v != v or v in (float("inf"), float("-inf")) or v.is_integer():
        return None
    return int(v)


def deletion_delay(desired: Obj) -> int:
    """``spec.rayClusterDeletionDelaySeconds``, else ``RayClusterDeletionDelayDuration`` (60 s)."""
    v = desired.spec.get("rayClusterDeletionDelaySeconds")
    return int(v) if isinstance(v, int) and v >= 0 else DEFAULT_DELETION_DELAY


def managed_by_external_controller(desired: Obj) -> str | None:
    """``utils.ManagedByExternalController`` (utils/util.go) of ``spec.managedBy`` as the API
    server stores it: a null is pruned (unset), so KubeRay reconciles."""
    return ku.managed_by_external_controller(desired.spec.get("managedBy"))


def incremental(desired: Obj, cfg: OperatorConfig = DEFAULT_CONFIG) -> bool:
    """``utils.IsIncrementalUpgradeEnabled`` under the operator's gates."""
    return is_incremental_upgrade_enabled(desired.spec, cfg)


def upgrade_options(desired: Obj) -> Mapping[str, Any]:
    """``spec.upgradeStrategy.clusterUpgradeOptions``."""
    return _m(_m(desired.spec.get("upgradeStrategy")).get("clusterUpgradeOptions"))


def serve_svc_name(desired: Obj, cluster: str | None = None, cfg: OperatorConfig = DEFAULT_CONFIG) -> str:
    """``common.RayServiceServeServiceNamespacedName`` / ``BuildServeService``: the custom
    serveService name, else ``<rs>-serve-svc``; in incremental mode ``<cluster>-serve-svc``."""
    if incremental(desired, cfg) and cluster:
        return f"{cluster}-serve-svc"
    custom = _m(_m(desired.spec.get("serveService")).get("metadata")).get("name")
    if custom and not incremental(desired, cfg):
        return str(custom)
    return f"{desired.name}-serve-svc"
