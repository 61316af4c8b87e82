"""Scheduling gates on a pod template.

Upstream: kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7, ``pkg/util/pod/pod.go`` (``HasGate``, ``GateTemplate``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def has_gate(template: Mapping[str, Any], gate: str) -> bool:
    """``HasGate`` (pod.go), on a pod template: it carries the scheduling gate ``gate``."""
    return any(_m(g).get("name") == gate for g in _l(_m(template.get("spec")).get("schedulingGates")))


def add_gate(template: dict, gate: str) -> None:
    """``GateTemplate`` (pod.go): add the scheduling gate ``gate`` unless it is there."""
    spec = template.setdefault("spec", {})
    gates = list(spec.get("schedulingGates") or [])
    if not any(_m(g).get("name") == gate for g in gates):
        gates.append({"name": gate})
    spec["schedulingGates"] = gates
