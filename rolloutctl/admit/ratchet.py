"""CRD validation ratcheting: on an update, a schema or CEL error on a part of the
object the update leaves unchanged does not reject it (KEP-4008; beta and on by
default since Kubernetes 1.30, GA in 1.33, feature gate ``CRDValidationRatcheting``).

Upstream (k8s.io/apiextensions-apiserver at 1aa2717a):

- ``pkg/apiserver/validation/ratcheting.go`` ``RatchetingSchemaValidator.ValidateUpdate``:
  the OpenAPI validation follows the new object with the old one correlated beside
  it (``SubPropertyValidator``, ``SubIndexValidator``); a node whose errors propagate
  up to a correlated node equal to its old value (``CachedDeepEqual``) turns them into
  warnings. ``kind`` and ``apiVersion`` at the root are never correlated.
- ``pkg/apiserver/schema/cel/validation.go`` ``ratchetingOptions.shouldRatchetError``:
  a CEL rule that does not use ``oldSelf`` is ratcheted the same way (the node
  itself, or its nearest correlated ancestor, is unchanged); transition rules are not.
- ``k8s.io/apiserver/pkg/cel/common/equality.go`` ``CorrelatedObject.Key``/``Index``:
  object properties correlate by key when the old object has it; list items only in
  a list the schema declares ``x-kubernetes-list-type: map`` (by the
  ``x-kubernetes-list-map-keys`` values) or ``set`` (by value); items of an atomic list
  (the default) never correlate, so only the whole list being unchanged ratchets them.

Errors below the deepest correlated node are ratcheted iff that node equals its old
value (a correlated ancestor can only be equal if it is). Pure functions of the schema,
the new and the old object.
"""

from __future__ import annotations

from typing import Any, Mapping

from .schema import resolve

#: suffix of a ratcheted finding's message (it stays as a warning, as upstream's does)
RATCHETED = ("unchanged from the stored object: the API server lets it through "
             "(CRD validation ratcheting)")


def correlated(root: Mapping[str, Any], new: Any, old: Any, path: tuple) -> tuple[Any, Any] | None:
    """(new, old) values of the deepest node on ``path`` that correlates with the old
    object (``CorrelatedObject``), or None when not even the root does (``path`` starts
    at ``kind`` or ``apiVersion``)."""
    if path and path[0] in ("kind", "apiVersion"):
        return None
    node: Any = root
    for step in path:
        node = resolve(root, node)
        if not isinstance(node, dict):
            node = {}
        if isinstance(step, str):
            if not (isinstance(new, dict) and isinstance(old, dict) and step in new and step in old):
                break
            props = node.get("properties") or {}
            extra = node.get("additionalProperties")
            node = props.get(step, extra if isinstance(extra, dict) else {})
            new, old = new[step], old[step]
            continue
        if not (isinstance(new, list) and isinstance(old, list) and isinstance(step, int) and 0 <= step < len(new)):
            break
        match = _list_match(node, new[step], old)
        if match is None:
            break
        node = node.get("items") if isinstance(node.get("items"), dict) else {}
        new, old = new[step], match
    return new, old


def _list_match(node: Mapping[str, Any], item: Any, old: list) -> Any:
    """The old item ``item`` correlates with (``CorrelatedObject.Index``), or None."""
    kind = node.get("x-kubernetes-list-type")
    if kind == "map":
        keys = node.get("x-kubernetes-list-map-keys") or ()
        if not isinstance(item, dict) or not keys:
            return None
        want = [item.get(k) for k in keys]
        return next((o for o in old if isinstance(o, dict) and [o.get(k) for k in keys] == want), None)
    if kind == "set":
        return next((o for o in old if deep_equal(o, item)), None)
    return None


def deep_equal(a: Any, b: Any) -> bool:
    """``reflect.DeepEqual`` of two decoded JSON values: a bool is not a number, and an
    integer is not a float (Go decodes them as int64 and float64)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(deep_equal(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return len(a) == len(b) and all(deep_equal(x, y) for x, y in zip(a, b))
    return bool(a == b)


def ratchets(root: Mapping[str, Any], new: Any, old: Any, path: tuple) -> bool:
    """Whether an error the schema ``root`` raises at ``path`` of ``new`` is ratcheted
    on an update from ``old`` (``shouldRatchetError``)."""
    pair = correlated(root, new, old, path)
    return pair is not None and deep_equal(*pair)


def ratcheted(root: Mapping[str, Any], new: Any, old: Any, path: tuple, message: str) -> str | None:
    """The message of an error at ``path`` as the ratcheted warning it becomes, or None
    when the error stands."""
    return f"{message} ({RATCHETED})" if ratchets(root, new, old, path) else None
