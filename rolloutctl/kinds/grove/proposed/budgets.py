"""Update budgets of the proposed strategies: ``maxUnavailable`` and ``maxSurge``
resolved to integers against the replicas at their level.

The design (ai-dynamo/grove PR #262, ``docs/designs/update-strategy.md``, sections
"API Changes" and "Validation Webhook") gives every level the defaults
maxUnavailable 1, maxSurge 0, and rounds percentages the way Kubernetes
Deployments do: maxUnavailable down, maxSurge up, relative to the replicas at that
level (PodCliqueSet replicas, scaling-group replicas, or the pods of a clique).

The rounding itself lives in one place, ``admission.design_pr262.scaled_value``
(``intstr.GetScaledValueFromIntOrPercent``), shared with the admission rules so
``lint`` and ``plan`` agree.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ....core.records import record
from ..admission.design_pr262 import scaled_value

DEFAULT_MAX_UNAVAILABLE = 1
DEFAULT_MAX_SURGE = 0


@record(frozen=True)
class Budget:
    """Resolved budgets for ``replicas`` objects at one level."""

    replicas: int
    max_unavailable: int
    max_surge: int

    @property
    def floor(self) -> int:
        """Fewest available objects the update may leave (``replicas - maxUnavailable``)."""
        return max(0, self.replicas - self.max_unavailable)


def resolve(strategy: Mapping[str, Any] | None, replicas: int) -> Budget:
    """``{maxUnavailable, maxSurge}`` (integers or percentages, unset = design defaults)
    as integers for ``replicas`` objects. Malformed or negative values (rejected by the
    validation rules before a plan runs) resolve to the defaults."""
    m = strategy if isinstance(strategy, Mapping) else {}
    mu = scaled_value(m.get("maxUnavailable", DEFAULT_MAX_UNAVAILABLE), replicas, False)
    ms = scaled_value(m.get("maxSurge", DEFAULT_MAX_SURGE), replicas, True)
    mu = DEFAULT_MAX_UNAVAILABLE if mu is None or mu < 0 else mu
    ms = DEFAULT_MAX_SURGE if ms is None or ms < 0 else ms
    if mu == 0 and ms == 0:
        # percentages that both round to 0 (validation refuses literal zeros): as a
        # Deployment's ``ResolveFenceposts``, one object may be unavailable
        mu = 1
    return Budget(replicas, mu, ms)


def pcs_budget(update_strategy: Mapping[str, Any], replicas: int) -> Budget:
    """PodCliqueSet-level budgets: ``spec.updateStrategy.rollingUpdate`` (ReplicaRecreate)."""
    ru = update_strategy.get("rollingUpdate") if isinstance(update_strategy, Mapping) else None
    return resolve(ru if isinstance(ru, Mapping) else None, replicas)
