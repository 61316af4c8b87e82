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
