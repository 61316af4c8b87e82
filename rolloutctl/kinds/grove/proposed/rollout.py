"""The budget arithmetic every proposed strategy shares, at any level (pods of a
clique, replicas of a scaling group, replicas of a PodCliqueSet).

Design rules (ai-dynamo/grove PR #262, "MaxSurge Considerations"):

- surge objects take indices at or above ``replicas``; replaced objects get their
  own index back; surge objects are deleted at the end;
- with ``maxUnavailable`` 0 a surge object must be available before any old object
  is deleted (create-then-delete);
- at most ``maxUnavailable`` objects may be unavailable: an old object is deleted
  only while the available objects (surge included) stay at or above
  ``replicas - maxUnavailable``. Old scaling-group and PodCliqueSet replicas that are
  already unavailable count against that floor, so a workload already below it cannot
  make progress (the design's "existing replicas are unhealthy" stuck case). Old
  *pods* that are not available cost nothing and are deleted whatever the floor
  (``free_unavailable``): today's operator deletes old non-Ready pods at once
  (``deleteOldNonReadyPods``) and the design's defaults are "current behavior".

Order of deletion: unscheduled, then unavailable, then, for pods, oldest first (the
design's "Pod selection: oldest pod first (by creation timestamp)", as today's
``getNextPodToUpdate``), then ascending index (the design keeps upstream's
``orderPCSReplicaInfo`` order for replicas); surge objects go highest index first.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from ....core.records import record
from .budgets import Budget


@record(frozen=True)
class Unit:
    """One object being rolled: a pod, a scaling-group replica or a PodCliqueSet replica."""

    index: int
    old: bool
    available: bool
    scheduled: bool = True
    #: pods: oldest first (``update_common.created_key``, the design's "oldest pod first (by
    #: creation timestamp)"); replicas: () (by index)
    created: tuple = ()


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


def deletion_key(u: Unit) -> tuple[bool, bool, tuple, int]:
    """Where old ``u`` stands in the order old objects are deleted: unscheduled, then
    unavailable, then the oldest pod (by creation timestamp), then ascending index."""
    return (u.scheduled, u.available, u.created, u.index)


def decide(units: Sequence[Unit], budget: Budget, free_unavailable: bool = False) -> Decision:
    """What to do with the non-terminating ``units`` in this pass (``free_unavailable``:
    pods, whose unavailable old ones are deleted whatever the floor)."""
    old = sorted((u for u in units if u.old), key=deletion_key)
    return decide_ordered(old, len(old), sum(1 for u in units if u.available),
                          [u for u in units if u.index >= budget.replicas], budget, free_unavailable)


def decide_ordered(old: Iterable[Unit], n_old: int, available: int, surge: Iterable[Unit],
                   budget: Budget, free_unavailable: bool = False) -> Decision:
    """``decide`` from the units already sorted: the ``n_old`` old units in deletion order
    (``deletion_key``), how many units are available (surge included), and the units
    at or above ``replicas``. Reads ``old`` only as far as the budget allows deleting."""
    floor = budget.floor
    avail = start = available
    delete: list[Unit] = []
    for u in old:  # unavailable ones first (``deletion_key``)
        if u.available:
            if avail - 1 < floor:
                break
            avail -= 1
        elif avail < floor and not free_unavailable:
            break
        delete.append(u)
    remove: list[Unit] = []
    if not n_old and avail >= floor:
        for u in sorted(surge, key=lambda u: (u.available, -u.index)):
            cost = 1 if u.available else 0
            if avail - cost < floor:
                break
            remove.append(u)
            avail -= cost
    return Decision(min(budget.max_surge, n_old) if n_old else 0, tuple(delete), tuple(remove), start, floor)
