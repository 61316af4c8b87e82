"""The budget arithmetic every proposed strategy shares, at any level (pods of a
clique, replicas of a scaling group, replicas of a PodCliqueSet).

Design rules (ai-dynamo/grove PR #262, "MaxSurge Considerations"):

- surge objects take indices at or above ``replicas``; replaced objects get their
  own index back; surge objects are deleted at the end;
- with ``maxUnavailable`` 0 a surge object must be available before any old object
  is deleted (create-then-delete);
- at most ``maxUnavailable`` objects may be unavailable: an old object is deleted
  only while the available objects (surge included) stay at or above
  ``replicas - maxUnavailable``. Old objects that are already unavailable count
  against that floor, so a workload already below it cannot make progress (the
  design's "existing replicas degraded" stuck case).

Order of deletion: unscheduled, then unavailable, then ascending index (the
design keeps upstream's ``orderPCSReplicaInfo`` order); surge objects go highest
index first.
"""

from __future__ import annotations

from typing import Sequence

from ....core.records import record
from .budgets import Budget


@record(frozen=True)
class Unit:
    """One object being rolled: a pod, a scaling-group replica or a PodCliqueSet replica."""

    index: int
    old: bool
    available: bool
    scheduled: bool = True


@record(frozen=True)
class Decision:
    surge: int  # surge objects (index >= replicas) that should exist now
    delete: tuple[Unit, ...]  # old objects to delete now
    remove_surge: tuple[Unit, ...]  # surge objects to delete now (the update is done)
    available: int
    floor: int

    @property
    def blocked(self) -> bool:
        return not self.delete and not self.remove_surge


def decide(units: Sequence[Unit], budget: Budget) -> Decision:
    """What to do with the non-terminating ``units`` in this pass."""
    r = budget.replicas
    floor = budget.floor
    old = [u for u in units if u.old]
    avail = sum(1 for u in units if u.available)
    start = avail
    surge = min(budget.max_surge, len(old)) if old else 0
    delete: list[Unit] = []
    if avail >= floor:
        for u in sorted(old, key=lambda u: (u.scheduled, u.available, u.index)):
            cost = 1 if u.available else 0
            if avail - cost < floor:
                break
            delete.append(u)
            avail -= cost
    remove: list[Unit] = []
    if not old and avail >= floor:
        for u in sorted((u for u in units if u.index >= r), key=lambda u: (u.available, -u.index)):
            cost = 1 if u.available else 0
            if avail - cost < floor:
                break
            remove.append(u)
            avail -= cost
    return Decision(surge, tuple(delete), tuple(remove), start, floor)
