"""Operator models, one package per operator, and the registry of the kinds they
own. ``model_for`` finds the model of a top-level object; ``descriptor`` hands the
admission step (``admit/``) a kind's served versions, schema, overlays and
defaulting webhook. Imports are lazy so start-up stays cheap."""

from __future__ import annotations

from importlib import import_module
from typing import Any

from ..core.kind import KindDescriptor, Overlay
from ..core.model import Obj

_RAY_V1ALPHA1 = ("ray.io/v1alpha1 RayService is deprecated; use ray.io/v1 RayService. v1alpha1 receives no new "
                 "fields and will be unavailable in KubeRay 1.9.")

#: (api group, kind) -> descriptor of every top-level kind the tool models
DESCRIPTORS: dict[tuple[str, str], KindDescriptor] = {
    ("grove.io", "PodCliqueSet"): KindDescriptor(
        group="grove.io", kind="PodCliqueSet", version="v1alpha1", served={"v1alpha1": ""},
        schema="podcliqueset",
        # CRD defaults and defaultPodCliqueSet (operator/internal/webhook/admission/pcs/defaulting)
        defaulting="rolloutctl.kinds.grove.defaults:default_pcs",
        overlays=(
            Overlay("grove-pr817-rolling-update", "ai-dynamo/grove PR #817",
                    ("spec.template.cliques[].rollingUpdate", "spec.template.podCliqueScalingGroups[].rollingUpdate")),
            Overlay("grove-proposed-update-strategies", "ai-dynamo/grove design discussion (RollingUpdate, "
                    "ReplicaRecreate)",
                    ("spec.updateStrategy.type", "spec.updateStrategy.rollingUpdate",
                     "spec.template.cliques[].updateStrategy", "spec.template.podCliqueScalingGroups[].updateStrategy")),
        ),
        model="rolloutctl.kinds.grove.model:GroveModel",
        upstream="operator/api/core/v1alpha1/crds/grove.io_podcliquesets.yaml"),
    ("ray.io", "RayService"): KindDescriptor(
        group="ray.io", kind="RayService", version="v1",
        # ray-operator/config/crd/bases/ray.io_rayservices.yaml: v1 (storage) and v1alpha1
        # (served, deprecated: +kubebuilder:deprecatedversion in apis/ray/v1alpha1/rayservice_types.go)
        served={"v1": "", "v1alpha1": _RAY_V1ALPHA1},
        schema="rayservice",
        # KubeRay has no defaulting webhook for RayService; these are the CRD-level defaults
        defaulting="rolloutctl.kinds.kuberay.defaults:rayservice_crd_defaults",
        model="rolloutctl.kinds.kuberay.model:RayServiceModel",
        upstream="ray-operator/config/crd/bases/ray.io_rayservices.yaml"),
}

#: (api group, kind) of a top-level object -> "module:function" listing what its model reads
#: from a cluster (``plan --from-cluster``); "kueue" is a RayService under Kueue
_LIVE_READS = {
    ("grove.io", "PodCliqueSet"): "rolloutctl.kinds.grove.live:live_reads",
    ("ray.io", "RayService"): "rolloutctl.kinds.kuberay.live:live_reads",
    "kueue": "rolloutctl.kinds.kueue.live:live_reads",
}

_cache: dict[tuple[str, str], Any] = {}


def group_of(api_version: str) -> str:
    return api_version.split("/")[0] if "/" in api_version else ""


def descriptor(group: str, kind: str) -> KindDescriptor | None:
    """The registry entry of (group, kind), or None for a kind the tool does not own."""
    return DESCRIPTORS.get((group, kind))


def read_schema(group: str, kind: str) -> dict:
    """The JSON Schema of what the models read of an observed (group, kind) object
    (``kinds/observed.py``; ObjectMeta alone for kinds the models do not read)."""
    from .observed import GENERIC, READ_SCHEMAS

    return READ_SCHEMAS.get((group, kind), GENERIC)


def is_modelled(obj: Obj) -> bool:
    return (group_of(obj.api_version), obj.kind) in DESCRIPTORS


def model_class(obj: Obj) -> Any | None:
    key = (group_of(obj.api_version), obj.kind)
    d = DESCRIPTORS.get(key)
    if d is None or not d.model:
        return None
    if key not in _cache:
        mod, attr = d.model.split(":")
        _cache[key] = getattr(import_module(mod), attr)
    return _cache[key]


def live_reads(obj: Obj, *, kueue: bool = False) -> list[Any]:
    """The ``core.kind.LiveRead``s of ``obj``'s model: every kind it reads, how they are
    selected (``--kueue``: a RayService under Kueue)."""
    key: Any = "kueue" if kueue and obj.kind == "RayService" else (group_of(obj.api_version), obj.kind)
    mod, attr = _LIVE_READS[key].split(":")
    return getattr(import_module(mod), attr)(obj)
