"""Kueue's RayService mutating webhook on create: the default LocalQueue, the suspend
fields, and the elastic-job scheduling gate.

Upstream: kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7, ``pkg/controller/jobs/rayservice/rayservice_webhook.go``
(``Default``, with ``ApplyDefaultLocalQueue``, ``ApplyDefaultWorkloadPriorityClass`` (``defaults.py``) and
``ApplyDefaultForSuspend`` of ``pkg/controller/jobframework/defaults.go``); top-level model: Kueue's PR #11264 at 1828096a.
"""

from __future__ import annotations

import copy
from typing import Any

from ...core.model import Action, Obj
from ...core.world import World
from ..kuberay.api import RS
from .constants import ELASTIC_GATE, LQ, PRIORITY_LABEL, QUEUE_LABEL
from .context import LEGACY, RSC, RSW, TOP, rule
from .defaults import apply_default_workload_priority_class
from .raycluster_common import cluster_templates
from .rayservice_controller import cluster_spec, is_suspended, suspend
from .util_pod import add_gate
from .workloadslicing import is_elastic


def default(mode: str, rs: Obj, world: World) -> Action | None:
    """``rayservice_webhook.go`` ``Default`` on create (models top-level and nested):
    ``ApplyDefaultLocalQueue`` (label ``default`` when such a LocalQueue exists),
    ``ApplyDefaultWorkloadPriorityClass`` (label ``default`` when such a class exists), then
    ``ApplyDefaultForSuspend`` → ``Suspend()`` unless already suspended, then the
    elastic-job scheduling gate on every template when the elastic annotation is set."""
    if mode == LEGACY:
        return None
    raw = copy.deepcopy(dict(rs.raw))
    md = raw.setdefault("metadata", {})
    fields: dict[str, Any] = {}
    queue = rs.labels.get(QUEUE_LABEL)
    if not queue and world.get(LQ, rs.namespace, "default") is not None:
        md["labels"] = {**dict(md.get("labels") or {}), QUEUE_LABEL: "default"}
        fields[f"metadata.labels[{QUEUE_LABEL}]"] = "default"
        queue = "default"
    prio = apply_default_workload_priority_class(rs, world)
    if prio:
        md["labels"] = {**dict(md.get("labels") or {}), PRIORITY_LABEL: prio}
        fields[f"metadata.labels[{PRIORITY_LABEL}]"] = prio
    prio_why = (f"; label {PRIORITY_LABEL}: {prio} (a WorkloadPriorityClass named {prio} exists, "
                "defaults.go#ApplyDefaultWorkloadPriorityClass)" if prio else "")
    if not queue:
        if not prio:
            return None
        return Action("update", RS, rs.name, rs.namespace, "Kueue's RayService mutating webhook on create: no queue "
                      "label, so Kueue does not manage the RayService" + prio_why, rule(RSW, "Default"),
                      fields=fields, payload=raw)
    obj = Obj(raw)
    if not is_suspended(mode, obj):
        fields.update(suspend(mode, raw))
    if is_elastic(obj):
        for t in cluster_templates(cluster_spec(raw)):
            add_gate(t, ELASTIC_GATE)
        fields["schedulingGates"] = [ELASTIC_GATE]
    if not fields:
        return None
    poc = mode == TOP
    return Action("update", RS, rs.name, rs.namespace,
                  "Kueue's RayService mutating webhook on create (queue label "
                  f"{queue!r}): the RayService is stored suspended"
                  + (" — both spec.suspend and the nested rayClusterConfig.suspend (the persistent child gate)"
                     if poc else " — rayClusterConfig.suspend")
                  + ("; elastic: scheduling gate kueue.x-k8s.io/elastic-job on every pod template" if is_elastic(obj) else "")
                  + prio_why,
                  rule(RSW, "Default") if not poc else rule(RSC, "Suspend (via rayservice_webhook.go#Default)", True),
                  fields=fields, payload=raw)
