"""Field paths as users read them (CONTRACT.md): dots, and list items selected by
their name key where Kubernetes has one, e.g.
``spec.rayClusterConfig.workerGroupSpecs[groupName=gpu].replicas``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: list field name -> candidate key fields, tried in order (the first is the name key
#: used in paths; ``diff`` may fall back to the others to match items).
LIST_KEYS: Mapping[str, tuple[str, ...]] = {
    "workerGroupSpecs": ("groupName",),
    "cliques": ("name",),
    "podCliqueScalingGroups": ("name",),
    "containers": ("name",),
    "initContainers": ("name",),
    "ephemeralContainers": ("name",),
    "env": ("name",),
    "ports": ("name", "containerPort", "port"),
    "volumes": ("name",),
    "volumeMounts": ("name", "mountPath"),
    "volumeDevices": ("name", "devicePath"),
    "imagePullSecrets": ("name",),
    "resourceClaims": ("name",),
    "resourceClaimTemplates": ("name",),
    "resourceSharing": ("name",),
    "hostAliases": ("ip",),
    "conditions": ("type",),
}


def field_path(raw: Any, path: tuple) -> str:
    """The user-facing path of ``path`` (keys and list indices) inside ``raw``: a list
    item with its name key set is written ``[key=value]``, others ``[index]``."""
    out = ""
    cur: Any = raw
    parent = ""
    for p in path:
        if isinstance(p, int) and not isinstance(p, bool):
            item = cur[p] if isinstance(cur, list) and 0 <= p < len(cur) else None
            keys = LIST_KEYS.get(parent)
            key = keys[0] if keys else None
            if key and isinstance(item, Mapping) and isinstance(item.get(key), str) and item.get(key):
                out += f"[{key}={item[key]}]"
            else:
                out += f"[{p}]"
            cur = item
        else:
            out += ("." if out else "") + str(p)
            cur = cur.get(p) if isinstance(cur, Mapping) else None
            parent = str(p)
    return out
