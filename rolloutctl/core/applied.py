"""The ``kubectl.kubernetes.io/last-applied-configuration`` annotation: what client-side
``kubectl apply`` last sent (kubectl ``pkg/util/apply.go`` ``GetModifiedConfiguration``)."""

from __future__ import annotations

import json

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
