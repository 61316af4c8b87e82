"""Kueue's RayCluster mutating webhook on create (legacy model): the default
WorkloadPriorityClass label, and a RayCluster with a queue label is stored suspended.

Upstream: kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7, ``pkg/controller/jobs/raycluster/raycluster_webhook.go``
(``Default``, with ``ApplyDefaultWorkloadPriorityClass`` (``defaults.py``) and ``ApplyDefaultForSuspend`` of
``pkg/controller/jobframework/defaults.go``).
"""

from __future__ import annotations

import copy
from typing import Any

from ...core.model import Obj
from ..kuberay.api import RC
from .constants import PRIORITY_LABEL, QUEUE_LABEL
from .context import RCW, KueuePass, rule
from .defaults import apply_default_workload_priority_class


def default(p: KueuePass, rc: Obj) -> None:
    """``raycluster_webhook.go`` ``Default`` (legacy model: the owning RayService is not
    managed by Kueue): ``ApplyDefaultWorkloadPriorityClass`` (label ``default`` when such a
    class exists), then ``ApplyDefaultForSuspend``: a RayCluster with a queue label is stored
    suspended. Shown as its own action; it happens inside KubeRay's create request."""
    prio = apply_default_workload_priority_class(rc, p.w)
    suspend = bool(rc.labels.get(QUEUE_LABEL)) and rc.spec.get("suspend") is not True
    if not suspend and not prio:
        return
    raw = copy.deepcopy(dict(rc.raw))
    fields: dict[str, Any] = {}
    why = "Kueue's RayCluster mutating webhook on create: "
    if prio:
        md = raw.setdefault("metadata", {})
        md["labels"] = {**dict(md.get("labels") or {}), PRIORITY_LABEL: prio}
        fields[f"metadata.labels[{PRIORITY_LABEL}]"] = prio
    if suspend:
        raw["spec"]["suspend"] = True
        fields["spec.suspend"] = True
        why += (f"the cluster carries the queue label {rc.labels.get(QUEUE_LABEL)!r} (copied from the RayService) "
                "and is stored suspended")
    if prio:
        why += ("; " if suspend else "") + (f"label {PRIORITY_LABEL}: {prio} (a WorkloadPriorityClass named {prio} "
                                            "exists, defaults.go#ApplyDefaultWorkloadPriorityClass)")
    p.act("update", RC, rc.name, why, rule(RCW, "Default"), payload=raw, fields=fields, role="pending")
