"""Operator models, one package per operator. ``model_for`` finds the model of a
top-level object; imports are lazy so start-up stays cheap."""

from __future__ import annotations

from importlib import import_module
from typing import Any

from ..core.model import Obj

# (api group, kind) of a top-level object -> "module:attribute" of its model factory
_MODELS = {
    ("grove.io", "PodCliqueSet"): "rolloutctl.kinds.grove.model:GroveModel",
    ("ray.io", "RayService"): "rolloutctl.kinds.kuberay.model:RayServiceModel",
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


def is_modelled(obj: Obj) -> bool:
    return (group_of(obj.api_version), obj.kind) in _MODELS


def model_class(obj: Obj) -> Any | None:
    key = (group_of(obj.api_version), obj.kind)
    target = _MODELS.get(key)
    if target is None:
        return None
    if key not in _cache:
        mod, attr = target.split(":")
        _cache[key] = getattr(import_module(mod), attr)
    return _cache[key]


def live_reads(obj: Obj, *, kueue: bool = False) -> list[Any]:
    """The ``core.kind.LiveRead``s of ``obj``'s model: every kind it reads, how they are
    selected (``--kueue``: a RayService under Kueue)."""
    key: Any = "kueue" if kueue and obj.kind == "RayService" else (group_of(obj.api_version), obj.kind)
    mod, attr = _LIVE_READS[key].split(":")
    return getattr(import_module(mod), attr)(obj)
