"""Field paths as users read them (CONTRACT.md): dots, and list items selected by
their name key where Kubernetes has one, e.g.
``spec.rayClusterConfig.workerGroupSpecs[groupName=gpu].replicas``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .records import record

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


def _match_key(cur: Mapping, rest: str) -> str | None:
    """The longest key of ``cur`` that ``rest`` starts with, followed by the end of the
    path, a dot or a bracket (keys may hold dots: ``requests.nvidia.com/gpu``)."""
    best = None
    for k in cur:
        if isinstance(k, str) and k and rest.startswith(k) and (len(rest) == len(k) or rest[len(k)] in ".["):
            if best is None or len(k) > len(best):
                best = k
    return best


def resolve_path(raw: Any, path: str) -> tuple[str, tuple]:
    """``path`` as users read it, with every bare list index that the object's data can
    name replaced by its key (``cliques[2]`` -> ``cliques[name=prefill]``), and the
    raw path (keys and indices) of the part that was found in ``raw``.

    The one place that turns index paths into keyed paths: lint findings and plan
    warnings pass through it where they leave the engine, so no rule has to build
    keyed paths itself. A path that leaves the object's data (a prefix such as
    ``RayCluster/x.``, a field only the defaulted object has) keeps the rest as written."""
    if not path or not isinstance(raw, Mapping):
        return path, ()
    out: list[str] = []
    found: list[Any] = []
    cur: Any = raw
    parent = ""
    pos = 0
    n = len(path)
    while pos < n:
        ch = path[pos]
        if ch == ".":
            out.append(".")
            pos += 1
            continue
        if ch == "[":
            end = path.find("]", pos)
            if end < 0:
                break
            inner = path[pos + 1:end]
            if isinstance(cur, list) and inner.isdigit():
                i = int(inner)
                item = cur[i] if i < len(cur) else None
                keys = LIST_KEYS.get(parent)
                key = keys[0] if keys else None
                if key and isinstance(item, Mapping) and isinstance(item.get(key), str) and item.get(key) \
                        and "]" not in item[key]:
                    out.append(f"[{key}={item[key]}]")
                else:
                    out.append(f"[{inner}]")
                if item is None:
                    pos = end + 1
                    break
                found.append(i)
                cur = item
            elif isinstance(cur, list) and "=" in inner:
                k, _, v = inner.partition("=")
                idx = next((j for j, it in enumerate(cur) if isinstance(it, Mapping) and str(it.get(k)) == v), None)
                out.append(path[pos:end + 1])
                if idx is None:
                    pos = end + 1
                    break
                found.append(idx)
                cur = cur[idx]
            elif isinstance(cur, Mapping) and inner in cur:
                out.append(path[pos:end + 1])
                found.append(inner)
                parent, cur = inner, cur[inner]
            else:
                break
            pos = end + 1
            continue
        if not isinstance(cur, Mapping):
            break
        key = _match_key(cur, path[pos:])
        if key is None:
            break
        out.append(key)
        found.append(key)
        parent, cur = key, cur[key]
        pos += len(key)
    return "".join(out) + path[pos:], tuple(found)


def keyed_path(raw: Any, path: str) -> str:
    """``resolve_path``'s keyed path alone."""
    return resolve_path(raw, path)[0]


@record(frozen=True)
class Key:
    """A path segment selecting a list item by its key: ``[name=x]``."""

    field: str
    value: str

    def __str__(self) -> str:
        return f"[{self.field}={self.value}]"
