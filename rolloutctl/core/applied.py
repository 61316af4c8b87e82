"""The ``kubectl.kubernetes.io/last-applied-configuration`` annotation: what client-side
``kubectl apply`` last sent (kubectl ``pkg/util/apply.go`` ``GetModifiedConfiguration``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .model import Obj

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
#: the metadata only the API server writes: an object that has one was read from a cluster
SERVER_METADATA = ("uid", "resourceVersion", "creationTimestamp", "managedFields")


def last_applied(live: Obj) -> dict | None:
    """The live copy's last-applied configuration, if it has a readable one."""
    text = live.annotations.get(LAST_APPLIED)
    if not isinstance(text, str):
        return None
    try:
        v = json.loads(text)
    except ValueError:
        return None
    return v if isinstance(v, dict) else None


def last_applied_of(old: Obj) -> Mapping[str, Any] | None:
    """The configuration kubectl last applied to an observed object: its last-applied
    annotation; for an object nothing but a client wrote (no status, no server metadata:
    the previously applied manifest, read as the settled object), that manifest as
    written; None otherwise (a live object applied without the annotation, or by
    ``kubectl create``). ``plan`` (admission's apply) and ``diff`` both read it, so both
    take a field the new manifest leaves out of the previous one as removed."""
    found = last_applied(old)
    if found is not None:
        return found
    md = old.metadata
    if old.status or any(md.get(k) for k in SERVER_METADATA):
        return None
    return (old.written or old).raw


def _holds(live: Any, want: Any) -> bool:
    """Whether ``live`` already holds every value ``want`` sets (mappings: each key, with a
    value it holds; lists: the same length, item by item; scalars: equal)."""
    if isinstance(want, Mapping):
        return isinstance(live, Mapping) and all(k in live and _holds(live[k], v) for k, v in want.items())
    if isinstance(want, list):
        return isinstance(live, list) and len(live) == len(want) and all(_holds(a, b) for a, b in zip(live, want))
    return bool(live == want) and type(live) is type(want)


def _without_last_applied(raw: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(raw)
    md = dict(out.get("metadata") or {})
    ann = {k: v for k, v in (md.get("annotations") or {}).items() if k != LAST_APPLIED}
    if ann:
        md["annotations"] = ann
    else:
        md.pop("annotations", None)
    out["metadata"] = md
    return out


def sends_nothing(desired: Obj, live: Obj) -> bool:
    """Whether client-side ``kubectl apply`` of ``desired`` over ``live`` sends no patch,
    so no admission webhook sees it: the manifest is the configuration last applied
    (``last_applied_of``) and the live object holds every value it sets (kubectl
    ``apply.go`` computes a three-way patch from those, and skips the request when it is
    empty). False when it cannot tell."""
    last = last_applied_of(live)
    if last is None:
        return False
    written = (desired.written or desired).raw
    if _without_last_applied(last) != _without_last_applied(written):
        return False
    return _holds(live.raw, _without_last_applied(written))
