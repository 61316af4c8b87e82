"""The update strategies proposed in the design discussion (ai-dynamo/grove PR #262):
``RollingUpdate`` with per-component maxSurge/maxUnavailable and ``ReplicaRecreate``
with PodCliqueSet-level budgets. Importing this package registers both in
``POLICIES``; see docs/grove-proposed.md."""

from __future__ import annotations

from ..policy import POLICIES
from .replica_recreate import ReplicaRecreatePolicy
from .rolling_update import RollingUpdatePolicy

POLICIES.setdefault("RollingUpdate", RollingUpdatePolicy)
POLICIES.setdefault("ReplicaRecreate", ReplicaRecreatePolicy)

__all__ = ["ReplicaRecreatePolicy", "RollingUpdatePolicy"]
