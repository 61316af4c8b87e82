"""A PodCliqueSet's children by replica: the world views that group its PodCliques and
PodCliqueScalingGroups by the ``grove.io/podcliqueset-replica-index`` label.

Upstream lists a replica's children with a label selector on that label each time it
needs them (``podcliquesetreplica/rollingupdate.go`` ``getPCSReplicaInfos``,
``podcliqueset/components/podgang``, ``reconcilestatus.go``); the model keeps the
grouping as a ``World.derived`` view and patches it for the replicas a change touches
(``touched_replicas``), so reading one replica costs that replica, not every replica.
Not an operator rule: the structure the rules read through.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...core.model import Obj
from ...core.overlay import Overlay
from ...core.records import record
from ...core.world import World
from . import names as N
from .spec import PCS
from .update_common import is_standalone_pclq


def touched_replicas(changes: Mapping[Any, tuple[Obj | None, Obj | None]], kinds: tuple[str, ...]) -> set[int] | None:
    """PodCliqueSet replica indices (``grove.io/podcliqueset-replica-index``) of the
    changed objects of ``kinds``, before and after; None when a label is not the plain
    decimal spelling of an index (then a view is built afresh)."""
    out: set[int] = set()
    for k, (old, new) in changes.items():
        if k[0] in kinds:
            for o in (old, new):
                if o is not None:
                    v = o.labels.get(N.L_PCS_REPLICA)
                    if v is not None:
                        if not _canonical(v):
                            return None
                        out.add(int(v))
    return out


def children_touched(changes: Mapping[Any, tuple[Obj | None, Obj | None]], pcs: PCS) -> set[int] | None:
    """``touched_replicas`` of the changed PodCliques and scaling groups, the replicas
    below ``spec.replicas`` only: what a per-replica view of ``pcs`` patches (None:
    build it afresh)."""
    touched = touched_replicas(changes, ("PodClique", "PodCliqueScalingGroup"))
    return None if touched is None else {i for i in touched if i < pcs.replicas}


@record(frozen=True)
class ReplicaGroups:
    """``World.derived`` description of ``by_replica``: the PodCliqueSet's objects of
    ``kind`` (only standalone PodCliques when ``standalone``) by replica index, each
    list in key order, and whether every replica label is a plain index."""

    kind: str
    namespace: str
    name: str
    standalone: bool

    @property
    def kinds(self) -> tuple[str, ...]:
        """What the view reads (``World.derived``)."""
        return (self.kind,)

    def members(self, group: Sequence[Obj]) -> list[Obj]:
        return [p for p in group if p.labels.get(N.L_PART_OF) == self.name and p.namespace == self.namespace
                and (not self.standalone or is_standalone_pclq(p))]

    def build(self, world: World) -> tuple[dict[int, list[Obj]], bool]:
        idx = world.index(self.kind, N.L_PCS_REPLICA)
        out: dict[int, list[Obj]] = {}
        merged = False
        for v, group in idx.items():
            lst = self.members(group)
            if not lst:
                continue
            try:
                i = int(v)
            except ValueError:
                i = -1
            if i in out:
                out[i] = out[i] + lst
                merged = True
            else:
                out[i] = lst
        if merged:  # several label spellings of one index: back to key order
            out = {i: sorted(lst, key=lambda o: (o.namespace, o.name)) for i, lst in out.items()}
        return out, not merged and all(_canonical(v) for v in idx)

    def patch(self, prev: tuple[dict[int, list[Obj]], bool], changes: Mapping[Any, tuple[Obj | None, Obj | None]],
              world: World) -> tuple[dict[int, list[Obj]], bool]:
        touched = touched_replicas(changes, (self.kind,))
        if touched is None or not prev[1]:
            return self.build(world)
        if not touched:
            return prev
        idx = world.index(self.kind, N.L_PCS_REPLICA)
        out = Overlay.over(prev[0])  # the other replicas' groups shared
        for i in touched:
            group = idx.get(str(i))
            lst = self.members(group) if group else []
            if lst:
                out.put(i, lst)
            else:
                out.drop(i)
        return out.settled(), True


def by_replica(world: World, kind: str, pcs: PCS, standalone: bool) -> dict[int, list[Obj]]:
    """Objects of ``kind`` of ``pcs`` by PodCliqueSet replica index (``pcs_replica_of``),
    each list in key order (a world view). Do not change the result."""
    return world.derived(ReplicaGroups(kind, pcs.namespace, pcs.name, standalone))[0]  # type: ignore[no-any-return]


def replica_labels_canonical(world: World, kind: str, pcs: PCS) -> bool:
    """Every ``kind`` object's replica label (of any PodCliqueSet) is the plain decimal
    spelling of its index, so ``index(kind, L_PCS_REPLICA).get(str(i))`` holds every
    object of replica ``i`` (``ReplicaGroups``' flag; ``kind``: PodClique or
    PodCliqueScalingGroup)."""
    return world.derived(ReplicaGroups(kind, pcs.namespace, pcs.name, kind == "PodClique"))[1]  # type: ignore[no-any-return]


def warm_replica_index(pcs: PCS, world: World) -> None:
    """Compute ``pcs_replica_infos``' grouping on a round's input world, so the
    passes' scratch worlds and the next round derive it from there."""
    by_replica(world, "PodClique", pcs, True)
    by_replica(world, "PodCliqueScalingGroup", pcs, False)


def _canonical(v: str) -> bool:
    """A replica label that is the decimal spelling of its index (then no other label
    value maps to the same index)."""
    # ASCII digits without a leading zero: what ``str(int(v)) == v`` accepts
    return v.isascii() and v.isdigit() and (v[0] != "0" or len(v) == 1)
