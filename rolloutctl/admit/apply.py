"""The spec ``kubectl apply`` (client-side) of a manifest leaves in a custom resource that
exists: the live spec with the three-way JSON merge patch applied, before the API server
defaults it. A field the manifest leaves out stays as it is live unless the last applied
configuration had it (an HPA's or ``kubectl scale``'s ``replicas``, a field another client
set); one it sets to null goes; lists are replaced whole.

Upstream: kubectl ``pkg/cmd/apply/patcher.go`` ``buildMergePatch`` (a resource without a
strategic merge patch, every custom resource, gets a JSON merge patch);
k8s.io/apimachinery ``pkg/util/jsonmergepatch/patch.go`` ``CreateThreeWayJSONMergePatch``,
``keepOrDeleteNullInObj``; evanphx/json-patch ``merge.go`` ``CreateMergePatch``
(``getDiff``), ``MergeMergePatches``, ``MergePatch`` (``mergeDocs``, ``pruneNulls``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def create_merge_patch(a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, Any]:
    """``CreateMergePatch(a, b)`` of two objects (``getDiff``): what differs, maps recursed
    into, anything else (lists included) whole; a key only ``a`` has is null."""
    out: dict[str, Any] = {}
    for k, bv in b.items():
        if k not in a:
            out[k] = bv
            continue
        av = a[k]
        if isinstance(av, Mapping) and isinstance(bv, Mapping):
            d = create_merge_patch(av, bv)
            if d:
                out[k] = d
        elif av != bv or type(av) is not type(bv):
            out[k] = bv
    for k in a:
        if k not in b:
            out[k] = None
    return out


def keep_or_delete_null(m: Mapping[str, Any], keep_null: bool) -> dict[str, Any]:
    """``keepOrDeleteNullInObj``: only the nulls (``keep_null``) or everything but them; an
    explicitly empty map is a value, a sub-map left empty is no patch."""
    out: dict[str, Any] = {}
    for k, v in m.items():
        if v is None:
            if keep_null:
                out[k] = None
        elif isinstance(v, Mapping):
            if not v:
                if not keep_null:
                    out[k] = {}
                continue
            sub = keep_or_delete_null(v, keep_null)
            if sub:
                out[k] = sub
        elif not keep_null:
            out[k] = v
    return out


def _merge(doc: dict[str, Any], patch: Mapping[str, Any], keep_nulls: bool) -> dict[str, Any]:
    for k, v in patch.items():
        if v is None and not keep_nulls:
            doc.pop(k, None)
        elif isinstance(v, Mapping) and isinstance(doc.get(k), dict):
            doc[k] = _merge(dict(doc[k]), v, keep_nulls)
        elif isinstance(v, Mapping):
            doc[k] = _merge({}, v, keep_nulls) if not keep_nulls else dict(v)
        else:
            doc[k] = v
    return doc


def three_way_merge_patch(original: Mapping[str, Any], modified: Mapping[str, Any],
                          current: Mapping[str, Any]) -> dict[str, Any]:
    """``CreateThreeWayJSONMergePatch``: the changes from ``current`` to ``modified``
    without deletions, plus the deletions from ``original`` (the last applied
    configuration) to ``modified`` (``MergeMergePatches``)."""
    delta = keep_or_delete_null(create_merge_patch(current, modified), False)
    deletions = keep_or_delete_null(create_merge_patch(original, modified), True)
    return _merge(deletions, delta, keep_nulls=True)


def merge_patch(doc: Mapping[str, Any], patch: Mapping[str, Any]) -> dict[str, Any]:
    """``MergePatch(doc, patch)`` (RFC 7386): null deletes, maps merge, the rest replaces."""
    return _merge(dict(doc), patch, keep_nulls=False)


def applied_spec(written: Mapping[str, Any], live: Mapping[str, Any],
                 last_applied: Mapping[str, Any] | None) -> Any:
    """The ``spec`` client-side ``kubectl apply`` of ``written`` leaves on ``live`` (both
    whole objects), ``last_applied`` being the configuration kubectl last applied (its
    annotation; None: none)."""
    spec, live_spec = written.get("spec"), live.get("spec")
    if not isinstance(spec, Mapping) or not isinstance(live_spec, Mapping):
        return spec
    original = last_applied.get("spec") if isinstance(last_applied, Mapping) else None
    patch = three_way_merge_patch(original if isinstance(original, Mapping) else {}, spec, live_spec)
    return merge_patch(live_spec, patch)
