"""Builders and runners shared by the proposed-strategy and comparison tests."""

from __future__ import annotations

import copy
from typing import Any, Iterable

from rolloutctl.core.environment import Environment
from rolloutctl.core.model import Obj, Plan
from rolloutctl.core.quantity import parse_quantity
from rolloutctl.core.simulate import simulate
from rolloutctl.kinds.grove.model import GroveModel


def clique(name: str, replicas: int, *, min_available: int | None = None, gpu: int = 1,
           update_strategy: dict | None = None, image: str = "img:v1") -> dict[str, Any]:
    spec: dict[str, Any] = {"roleName": name, "replicas": replicas, "podSpec": {"containers": [
        {"name": "main", "image": image, "resources": {"requests": {"nvidia.com/gpu": gpu}, "limits": {"nvidia.com/gpu": gpu}}}]}}
    if min_available is not None:
        spec["minAvailable"] = min_available
    c: dict[str, Any] = {"name": name, "spec": spec}
    if update_strategy is not None:
        c["updateStrategy"] = update_strategy
    return c


def group(name: str, cliques: Iterable[str], replicas: int, min_available: int = 1,
          update_strategy: dict | None = None) -> dict[str, Any]:
    g: dict[str, Any] = {"name": name, "cliqueNames": list(cliques), "replicas": replicas, "minAvailable": min_available}
    if update_strategy is not None:
        g["updateStrategy"] = update_strategy
    return g


def pcs(cliques: list[dict], *, groups: list[dict] | None = None, replicas: int = 1, strategy: str | None = "RollingUpdate",
        rolling_update: dict | None = None, name: str = "demo") -> dict[str, Any]:
    spec: dict[str, Any] = {"replicas": replicas, "template": {"cliques": cliques}}
    if groups:
        spec["template"]["podCliqueScalingGroups"] = groups
    if strategy is not None:
        spec["updateStrategy"] = {"type": strategy}
        if rolling_update is not None:
            spec["updateStrategy"]["rollingUpdate"] = rolling_update
    return {"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet",
            "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def with_image(manifest: dict, image: str) -> dict:
    """The same manifest with every container image changed (a template change)."""
    m = copy.deepcopy(manifest)
    for c in m["spec"]["template"]["cliques"]:
        for ct in c["spec"]["podSpec"]["containers"]:
            ct["image"] = image
    return m


def env(capacity: dict[str, Any] | None = None, never_ready: Iterable[str] = (), max_steps: int = 500) -> Environment:
    return Environment(capacity={k: parse_quantity(v) for k, v in (capacity or {}).items()},
                       never_ready=tuple(never_ready), max_steps=max_steps)


def plan(new: dict, old: dict | None = None, **kw: Any) -> Plan:
    e = env(**kw)
    model = GroveModel()
    obj = Obj(new)
    world = model.observe(obj, [Obj(old)] if old is not None else [], e)
    return simulate(model, obj, world, e)


def pod_moves(p: Plan, pclq: str | None = None) -> list[tuple[str, int | None]]:
    """``(verb, index)`` of every Pod create/delete in order, optionally of one PodClique."""
    out = []
    for s in p.steps:
        for a in s.actions:
            if a.kind == "Pod" and a.verb in ("create", "delete"):
                if pclq is None or a.name == f"{pclq}-<random>":
                    out.append((a.verb, a.index))
    return out


def moves(p: Plan, kind: str) -> list[tuple[str, str, int | None]]:
    return [(a.verb, a.name, a.index) for s in p.steps for a in s.actions
            if a.kind == kind and a.verb in ("create", "delete")]
