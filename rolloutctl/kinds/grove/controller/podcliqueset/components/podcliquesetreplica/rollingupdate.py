"""The PodCliqueSet controller's rolling update (RollingRecreate): one PodCliqueSet
replica at a time, in ``orderPCSReplicaInfo`` order. Upstream (ai-dynamo/grove @ fcc3b3bb):
``operator/internal/controller/podcliqueset/components/podcliquesetreplica/rollingupdate.go``
(``orchestrateRollingUpdate``, ``computePendingUpdateWork``, ``pcsReplicaInfo``,
``getPCSReplicaInfos``, ``orderPCSReplicaInfo``). The proposed strategies
(``proposed/``) and the PodCliqueSet status read the same replica infos and order.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .......core.model import Action, Obj
from .......core.overlay import Overlay
from .......core.records import field, record
from .......core.world import World
from ..... import gang_terminate as GT
from ..... import replica_index as RI
from ..... import update_common as U
from .....spec import PCS
from ....common import status_action


def orchestrate_rolling_update(pcs: PCS, world: World, status: Mapping[str, Any], gang: Any = None) -> list[Action]:
    """One PodCliqueSet replica at a time: while the replica in ``currentlyUpdating``
    is not done, wait; when it is, stamp its end and select the next pending replica
    in ``orderPCSReplicaInfo`` order; with none left, end the update. A replica scaled
    away while selected is skipped without an end stamp.
    Upstream: ``operator/internal/controller/podcliqueset/components/podcliquesetreplica/
    rollingupdate.go`` ``orchestrateRollingUpdate``, ``computePendingUpdateWork``,
    ``updatePCSWithReplicaUpdateProgress``, ``updatePCSWithNextSelectedReplica``.
    ``gang``: this round's ``gang_terminate.DeletionWork``: replicas it terminates are
    left out, replicas with breaches inside ``terminationDelay`` go before healthy ones
    (``podcliquesetreplica.go`` ``Sync``)."""
    if not U.pcs_update_in_progress(pcs, status):
        return []
    live = world.get("PodCliqueSet", pcs.namespace, pcs.name)
    if live is None:
        return []
    gen = status.get("currentGenerationHash")
    cur = U.currently_updating(status)
    skip = gang.to_terminate if gang is not None else ()
    if cur is not None and 0 <= cur < pcs.replicas and cur not in skip and \
            not pcs_replica_infos(pcs, world, gen, only=cur)[0].done:
        return []  # the selected replica is still updating (checked first: it is the common case)
    up: dict[str, Any] = dict(status.get("updateProgress") or {})
    acts: list[Action] = []
    now = U.stamp(world)
    if cur is not None and 0 <= cur < pcs.replicas and cur not in skip:
        # the selected replica is done (checked above)
        entry = dict(up["currentlyUpdating"][0])
        entry["updateEndedAt"] = now
        up["currentlyUpdating"] = [entry]
        acts.append(status_action(live, {"updateProgress": dict(up)},
                                  f"replica {cur} is updated: its standalone PodCliques and scaling groups run the new "
                                  "template",
                                  f"{U.R_PCS_RU}#updatePCSWithReplicaUpdateProgress", hidden=False, index=cur))
    breached = sorted(gang.breached) if gang is not None else GT.min_available_breached_replicas(pcs, world)
    nxt = next_pcs_replica_to_update(pcs, world, pending_replicas(pcs, gen),
                                      set(skip) | ({cur} if cur is not None else set()), breached)
    if nxt is not None:
        index, unscheduled = nxt
        if unscheduled:
            why = "it has no scheduled pod, so it goes first"
        elif index in breached:
            why = "it has a PodClique or scaling group below minAvailable, so it goes before healthy replicas"
        else:
            why = "lowest index among the replicas still on the old template"
        up["currentlyUpdating"] = [{"replicaIndex": index, "updateStartedAt": now}]
        acts.append(status_action(live, {"updateProgress": dict(up)}, f"replica {index} selected for update: {why}",
                                  f"{U.R_PCS_RU}#orderPCSReplicaInfo", hidden=False, index=index))
    else:
        up.pop("currentlyUpdating", None)
        up["updateEndedAt"] = now
        acts.append(status_action(live, {"updateProgress": up}, "no replica left on the old template: the update ends",
                                  f"{U.R_PCS_RU}#updatePCSWithNextSelectedReplica", hidden=False))
    return acts


@record
class PCSReplicaInfo:
    """Children of one PodCliqueSet replica and whether its update is done.
    Upstream: ``podcliquesetreplica/rollingupdate.go`` ``pcsReplicaInfo``."""

    index: int
    pclqs: list[Obj] = field(default_factory=list)   # standalone PodCliques
    pcsgs: list[Obj] = field(default_factory=list)
    done: bool = False


def replica_update_done(pcs: PCS, generation_hash: str | None, pclqs: Sequence[Obj], pcsgs: Sequence[Obj]) -> bool:
    """Every standalone PodClique and scaling group of a replica has completed its
    update to ``generation_hash``. Upstream: ``pcsReplicaInfo.computeUpdateProgress``."""
    updated_pclqs = sum(1 for p in pclqs if U.is_pclq_update_complete(pcs, p, generation_hash))
    updated_pcsgs = sum(1 for g in pcsgs if U.is_pcsg_update_complete(g, generation_hash))
    return updated_pclqs == len(pcs.standalone) and updated_pcsgs == len(pcs.groups)


@record(frozen=True)
class ReplicaDone:
    """``World.derived`` description of ``replica_update_done`` of every replica."""

    pcs: PCS  # compared by identity: the model's parsed desired PodCliqueSet
    generation_hash: str | None

    kinds = ("PodClique", "PodCliqueScalingGroup")  # what the view reads (``World.derived``)

    def _done(self, world: World, i: int) -> bool:
        return replica_update_done(self.pcs, self.generation_hash,
                                   RI.by_replica(world, "PodClique", self.pcs, True).get(i, []),
                                   RI.by_replica(world, "PodCliqueScalingGroup", self.pcs, False).get(i, []))

    def build(self, world: World) -> dict[int, bool]:
        return {i: self._done(world, i) for i in range(self.pcs.replicas)}

    def patch(self, prev: dict[int, bool], changes: Mapping[Any, tuple[Obj | None, Obj | None]],
              world: World) -> dict[int, bool]:
        touched = RI.children_touched(changes, self.pcs)
        if touched is None:
            return self.build(world)
        if not touched:
            return prev
        out = Overlay.over(prev)  # the other replicas' flags shared
        for i in touched:
            out.put(i, self._done(world, i))
        return out.settled()


def pcs_replica_infos(pcs: PCS, world: World, generation_hash: str | None,
                      skip: Iterable[int] = (), only: int | Sequence[int] | None = None,
                      done: bool = True) -> list[PCSReplicaInfo]:
    """Replica infos for ``0..spec.replicas-1`` (or just replica ``only``, or the
    replicas ``only`` lists) with ``done`` computed (left False when not ``done``:
    for callers that only order replicas).
    Upstream: ``getPCSReplicaInfos`` and ``pcsReplicaInfo.computeUpdateProgress``."""
    skipped = set(skip)
    by_replica_pclq = RI.by_replica(world, "PodClique", pcs, True)
    by_replica_pcsg = RI.by_replica(world, "PodCliqueScalingGroup", pcs, False)
    flags = world.derived(ReplicaDone(pcs, generation_hash)) if done else None
    out = []
    for i in range(pcs.replicas) if only is None else (only,) if isinstance(only, int) else only:
        if i in skipped:
            continue
        info = PCSReplicaInfo(i, by_replica_pclq.get(i, []), by_replica_pcsg.get(i, []))
        if flags is not None:
            info.done = flags[i] if i in flags else replica_update_done(pcs, generation_hash, info.pclqs, info.pcsgs)
        out.append(info)
    return out


def num_scheduled_pods(pcs: PCS, info: PCSReplicaInfo) -> int:
    """Scheduled pods of a replica: standalone ``scheduledReplicas`` plus, per scaling
    group, ``scheduledReplicas × minAvailable`` of each member clique.
    Upstream: ``pcsReplicaInfo.getNumScheduledPods``."""
    n = sum(U.status_int(p, "scheduledReplicas") for p in info.pclqs)
    for g in info.pcsgs:
        for cn in g.spec.get("cliqueNames") or []:
            c = pcs.clique_by_name.get(cn)
            n += U.status_int(g, "scheduledReplicas") * (c.min_available if c else 1)
    return n


def order_pcs_replica_info(pcs: PCS, infos: Sequence[PCSReplicaInfo], breached: Iterable[int]) -> list[PCSReplicaInfo]:
    """Replicas with no scheduled pod first, then those with a ``MinAvailableBreached``
    constituent, then ascending index.
    Upstream: ``podcliquesetreplica/rollingupdate.go`` ``orderPCSReplicaInfo``."""
    b = set(breached)
    return sorted(infos, key=lambda r: (num_scheduled_pods(pcs, r) != 0, r.index not in b, r.index))


@record(frozen=True)
class _Pending:
    """The replicas ``replica_update_done`` says are not done, by whether they have a
    scheduled pod (``num_scheduled_pods``), each tuple ascending."""

    unscheduled: tuple[int, ...]
    scheduled: tuple[int, ...]


def replicas_of_children(changes: Mapping[Any, tuple[Obj | None, Obj | None]], world: World) -> set[int] | None:
    """``touched_replicas`` of the changed PodCliques and scaling groups: the replicas
    whose ``replica_update_done`` or ``num_scheduled_pods`` a change may move."""
    return RI.touched_replicas(changes, ("PodClique", "PodCliqueScalingGroup"))


@record(frozen=True)
class PendingReplicas:
    """``World.derived`` description of ``_Pending``: what ``orderPCSReplicaInfo`` sorts
    the replicas not yet updated by, kept for every replica and patched for the replicas
    ``dirty`` names (a selection then costs the replicas it skips, not every replica).
    ``done``: the ``World.derived`` view that says whether each replica below
    ``spec.replicas`` is updated; ``dirty``: the replicas whose ``done`` or scheduled
    pods a change may move (None: build afresh); ``kinds``: what both read (None: any).
    ``pending_replicas`` gives the upstream rolling update's."""

    pcs: PCS  # compared by identity: the model's parsed desired PodCliqueSet
    done: Any
    dirty: Callable[[Mapping[Any, tuple[Obj | None, Obj | None]], World], "set[int] | None"]
    kinds: tuple[str, ...] | None

    def _sorted(self, world: World, replicas: Iterable[int]) -> tuple[list[int], list[int]]:
        """``replicas`` not done, split into those with no scheduled pod and the others."""
        done = world.derived(self.done)
        pclqs = RI.by_replica(world, "PodClique", self.pcs, True)
        pcsgs = RI.by_replica(world, "PodCliqueScalingGroup", self.pcs, False)
        unscheduled, scheduled = [], []
        for i in replicas:
            if not done[i]:
                info = PCSReplicaInfo(i, pclqs.get(i, []), pcsgs.get(i, []))
                (scheduled if num_scheduled_pods(self.pcs, info) else unscheduled).append(i)
        return unscheduled, scheduled

    def build(self, world: World) -> _Pending:
        unscheduled, scheduled = self._sorted(world, range(self.pcs.replicas))
        return _Pending(tuple(unscheduled), tuple(scheduled))

    def patch(self, prev: _Pending, changes: Mapping[Any, tuple[Obj | None, Obj | None]], world: World) -> _Pending:
        touched = self.dirty(changes, world)
        if touched is None:
            return self.build(world)
        touched = {i for i in touched if 0 <= i < self.pcs.replicas}
        if not touched:
            return prev
        unscheduled, scheduled = self._sorted(world, sorted(touched))
        now_unscheduled, now_scheduled = set(unscheduled), set(scheduled)
        groups = [prev.unscheduled, prev.scheduled]
        for i in touched:
            for g, now in enumerate((now_unscheduled, now_scheduled)):
                group = groups[g]
                k = bisect_left(group, i)
                there = k < len(group) and group[k] == i
                if there and i not in now:
                    groups[g] = group[:k] + group[k + 1:]
                elif not there and i in now:
                    groups[g] = group[:k] + (i,) + group[k:]
        return prev if groups == [prev.unscheduled, prev.scheduled] else _Pending(groups[0], groups[1])


def pending_replicas(pcs: PCS, generation_hash: str | None) -> PendingReplicas:
    """The replicas upstream's rolling update has not updated yet (``replica_update_done``)."""
    return PendingReplicas(pcs, ReplicaDone(pcs, generation_hash), replicas_of_children,
                           ("PodClique", "PodCliqueScalingGroup"))


def next_pcs_replica_to_update(pcs: PCS, world: World, pending: PendingReplicas, exclude: Iterable[int],
                               breached: Iterable[int]) -> tuple[int, bool] | None:
    """The first of the ``pending`` replicas not in ``exclude`` in ``orderPCSReplicaInfo``
    order (those with no scheduled pod first, then those in ``breached``, then by index),
    with whether it has no scheduled pod; None when there is none.
    Upstream: ``podcliquesetreplica/rollingupdate.go`` ``computePendingUpdateWork`` and
    ``getNextReplicaToUpdate`` (``orderPCSReplicaInfo``; ``order_pcs_replica_info`` sorts
    a given list the same way)."""
    got = world.derived(pending)
    skip = set(exclude)
    first = sorted(set(breached) - skip)
    for group, unscheduled in ((got.unscheduled, True), (got.scheduled, False)):
        for i in first:
            k = bisect_left(group, i)
            if k < len(group) and group[k] == i:
                return i, unscheduled
        for i in group:
            if i not in skip:
                return i, unscheduled
    return None
