"""Uniqueness of list-type map and set items (``SC014``): the API server refuses a custom
resource whose ``x-kubernetes-list-type: map`` list has two items with the same key
values (two env vars of one name in an embedded pod template, two containers of one
name), or whose ``set`` list repeats a value.

Upstream (k8s.io/apiextensions-apiserver at 1aa2717a):
``pkg/apiserver/schema/listtype/validation.go`` ``ValidateListSetsAndMaps``
(``validateListMap``, ``validateListSet``: the second appearance of each repeated key is
the error, ``field.Duplicate``), called by ``pkg/registry/customresource/strategy.go``
``Validate`` on create and, on update, ``ValidateUpdate`` only when the stored object
has no such error itself (the whole check is ratcheted at once).

The walk enters only the parts of an object that lead to a list-type list
(``schema.Reach``); its nodes are prepared once per schema and process
(``schema.prepared``), as the CEL walk's are.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from ..core.model import Finding, Obj
from ..core.paths import field_path
from .schema import LazyProperties, Reach, prepared, resolve

DUPLICATE_LIST_ITEM = "SC014"
_LIST_TYPES = ("map", "set")


def _node(root: Mapping[str, Any], node: Any) -> Mapping[str, Any]:
    node = resolve(root, node)
    return node if isinstance(node, dict) else {}


def _children(node: Mapping[str, Any]) -> list[Any]:
    items, extra = node.get("items"), node.get("additionalProperties")
    return [*(node.get("properties") or {}).values(), *([items] if isinstance(items, dict) else []),
            *([extra] if isinstance(extra, dict) else [])]


class _Nodes:
    """One schema's nodes as the walk needs them, each prepared once per process: the
    sub-schemas of its properties, additional properties and items that lead to a
    list-type list (``schema.Reach``), and its own list type and keys."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.below = Reach(root, lambda n: n.get("x-kubernetes-list-type") in _LIST_TYPES, _children)
        self._prepared: dict[int, tuple[LazyProperties, Any, Any, Any, tuple[str, ...]]] = {}

    def node(self, node: Any) -> tuple[LazyProperties, Any, Any, Any, tuple[str, ...]]:
        """(properties, additional properties, items, list type, map keys) of a resolved
        node: the sub-schemas resolved, and only those that lead to a list-type list."""
        got = self._prepared.get(id(node))
        if got is None:
            root, below = self.root, self.below
            extra, items = node.get("additionalProperties"), node.get("items")
            got = self._prepared[id(node)] = (
                # (a declared property that holds none maps to None: no additionalProperties fallback)
                LazyProperties(node.get("properties") or {}, lambda v: _node(root, v), below),
                _node(root, extra) if isinstance(extra, dict) and below(extra) else None,
                _node(root, items) if isinstance(items, dict) and below(items) else None,
                node.get("x-kubernetes-list-type"), tuple(node.get("x-kubernetes-list-map-keys") or ()))
        return got


def duplicates(root: Mapping[str, Any], value: Any) -> list[tuple[tuple, str]]:
    """(path, message) of every repeated item of a list-type map or set list in ``value``
    (``ValidateListSetsAndMaps``)."""
    nodes = prepared(root, _Nodes)
    node = nodes.node
    out: list[tuple[tuple, str]] = []

    def walk(v: Any, prep: tuple[LazyProperties, Any, Any, Any, tuple[str, ...]], path: tuple) -> None:
        props, extra, items, kind, keys = prep
        if v.__class__ is dict:
            for key, item in v.items():
                sub = props.get(key, extra)
                if sub is not None and (item.__class__ is dict or item.__class__ is list):
                    walk(item, node(sub), (*path, key))
        elif v.__class__ is list:
            if kind == "set" and len(v) > 1:
                for i in _repeated([_canonical(x) for x in v]):
                    out.append(((*path, i), f"duplicate value {json.dumps(v[i])[:80]} in a set list"))
            elif kind == "map" and len(v) > 1:
                found = [{k: x[k] for k in keys if k in x} if isinstance(x, dict) else {} for x in v]
                for i in _repeated([_item_key(f) for f in found]):
                    shown = ", ".join(f"{k}={json.dumps(found[i][k])}" for k in keys if k in found[i]) or "no key"
                    out.append(((*path, i), f"duplicate item ({shown}): the list is keyed by {', '.join(keys)} "
                                            "(x-kubernetes-list-type: map)"))
            if items is not None:
                sp = node(items)
                for i, item in enumerate(v):
                    if item.__class__ is dict or item.__class__ is list:
                        walk(item, sp, (*path, i))

    walk(value, node(_node(root, root)), ())
    return out


def _canonical(x: Any) -> str:
    return json.dumps(x, sort_keys=True)


def _item_key(found: dict[str, Any]) -> Any:
    """A map list item's key values, compared as their JSON (``_canonical``); keys of
    only strings and integers (names, ports: the usual ones) as a tuple, which compares
    the same way without writing JSON."""
    for v in found.values():
        if v.__class__ is not str and v.__class__ is not int:
            return _canonical(found)
    return tuple(found.items())


def _repeated(keys: list[str]) -> list[int]:
    """The index of each key's second appearance (``validateListSet``)."""
    seen: dict[str, int] = {}
    out = []
    for i, k in enumerate(keys):
        seen[k] = seen.get(k, 0) + 1
        if seen[k] == 2:
            out.append(i)
    return out


def check_list_items(obj: Obj, root: Mapping[str, Any], old: Obj | None = None) -> list[Finding]:
    """``SC014`` findings of ``obj``; on an update from ``old``, none when ``old`` has such
    an error itself (``strategy.go`` ``ValidateUpdate``)."""
    if old is not None and duplicates(root, old.raw):
        return []
    return [Finding(DUPLICATE_LIST_ITEM, "error", obj.file, obj.line_of(*path), message, field_path(obj.raw, path),
                    obj.ref) for path, message in duplicates(root, obj.raw)]


def list_type(root: Mapping[str, Any], path: tuple) -> str | None:
    """The list type the schema ``root`` gives the list at ``path`` (field names, ``None``
    for a list item): its ``x-kubernetes-list-type`` (``map``, ``set``), ``atomic`` for a
    list declared without one, or None where the schema does not describe a list there.
    The API server's type converter reads a CRD's schema so (k8s.io/kube-openapi
    ``pkg/schemaconv/smd.go`` ``getListElementRelationship``: "Treat as atomic by
    default"); our schemas carry no ``x-kubernetes-patch-strategy``, which it reads next."""
    node = _node(root, root)
    for seg in path:
        if seg is None:
            sub = node.get("items")
        else:
            sub = (node.get("properties") or {}).get(seg)
            if sub is None:
                sub = node.get("additionalProperties")
        if not isinstance(sub, dict):
            return None
        node = _node(root, sub)
    if node.get("type") != "array":
        return None
    kind = node.get("x-kubernetes-list-type")
    return kind if kind in ("map", "set", "atomic") else "atomic"
