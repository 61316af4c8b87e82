"""Kueue's RayCluster mutating webhook on create (legacy model): a RayCluster with a queue
label is stored suspended.

Upstream: kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7, ``pkg/controller/jobs/raycluster/raycluster_webhook.go``
(``Default``, with ``ApplyDefaultForSuspend`` of ``pkg/controller/jobframework/defaults.go``).
"""

from __future__ import annotations

import copy

from ...core.model import Obj
from ..kuberay.api import RC
from .constants import QUEUE_LABEL
from .context import RCW, KueuePass, rule


def default(p: KueuePass, rc: Obj) -> None:
    """``raycluster_webhook.go`` ``Default`` → ``ApplyDefaultForSuspend`` (legacy model):
    a RayCluster with a queue label and no Kueue-managed owner is stored suspended.
    Shown as its own action; it happens inside KubeRay's create request."""
    if not rc.labels.get(QUEUE_LABEL) or rc.spec.get("suspend") is True:
        return
    raw = copy.deepcopy(dict(rc.raw))
    raw["spec"]["suspend"] = True
    p.act("update", RC, rc.name, "Kueue's RayCluster mutating webhook on create: the cluster carries the "
          f"queue label {rc.labels.get(QUEUE_LABEL)!r} (copied from the RayService) and is stored suspended",
          rule(RCW, "Default"), payload=raw, fields={"spec.suspend": True}, role="pending")
