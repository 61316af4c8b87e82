"""The ``kubectl.kubernetes.io/last-applied-configuration`` annotation: what client-side
``kubectl apply`` last sent (kubectl ``pkg/util/apply.go`` ``GetModifiedConfiguration``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .model import Obj

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


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
    if old.status or any(md.get(k) for k in ("uid", "resourceVersion", "creationTimestamp", "managedFields")):
        return None
    return (old.written or old).raw
