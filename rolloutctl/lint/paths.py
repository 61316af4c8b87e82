"""Field paths as users read them: dots, and list items selected by their name key
where Kubernetes has one (CONTRACT.md), e.g.
``spec.rayClusterConfig.workerGroupSpecs[groupName=gpu].replicas``."""

from __future__ import annotations

from typing import Any, Mapping

LIST_KEYS = {
    "workerGroupSpecs": "groupName", "cliques": "name", "podCliqueScalingGroups": "name",
    "containers": "name", "initContainers": "name", "ephemeralContainers": "name", "env": "name",
    "volumes": "name", "volumeMounts": "name", "ports": "name", "resourceClaimTemplates": "name",
    "resourceSharing": "name", "resourceClaims": "name",
}


def field_path(raw: Any, path: tuple) -> str:
    out = ""
    cur: Any = raw
    parent = ""
    for p in path:
        if isinstance(p, int):
            item = cur[p] if isinstance(cur, list) and 0 <= p < len(cur) else None
            key = LIST_KEYS.get(parent)
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
