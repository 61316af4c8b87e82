"""Update helpers shared by every Grove update strategy: which PodClique template a
child follows, whether a pod or PodClique is outdated, the "updated" and "done"
predicates, PodCliqueSet replica ordering, and availability counts.

Strategy modules (``rolling_recreate.py``, ``ondelete.py``, ``proposed/``) build on
these; each helper names the upstream function it models. Hash values are compared
as opaque tokens: in a planned world they are our own digests
(``hashing.py``), in an observed world they were translated by ``observed.py``.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ...core.model import Obj
from ...core.overlay import Overlay
from ...core.world import World
from . import names as N
from . import objects as O
from ...core.records import field, record
from .spec import PCS, Clique, Group

RULE_ROOT = "grove:operator/internal/controller"
R_PCS_RU = f"{RULE_ROOT}/podcliqueset/components/podcliquesetreplica/rollingupdate.go"
R_PCLQ_RU = f"{RULE_ROOT}/podclique/components/pod/rollingupdate.go"
R_PCSG_RU = f"{RULE_ROOT}/podcliquescalinggroup/components/podclique/rollingupdate.go"
R_PCS_SPEC = f"{RULE_ROOT}/podcliqueset/reconcilespec.go"
R_PCLQ_SPEC = f"{RULE_ROOT}/podclique/reconcilespec.go"
R_PCSG_SPEC = f"{RULE_ROOT}/podcliquescalinggroup/reconcilespec.go"

ON_DELETE = "OnDelete"


def stamp(world: World) -> str:
    """A deterministic timestamp for status fields the plan writes (the model is
    untimed; stamps only order events)."""
    return f"~sim-{int(world.memory.get('tick', 0)):08d}"


def is_auto_update_strategy(pcs: PCS) -> bool:
    """Anything but OnDelete is orchestrated by Grove.
    Upstream: ``operator/internal/controller/common/component/utils/podcliqueset.go``
    ``IsAutoUpdateStrategy``."""
    return pcs.strategy_type != ON_DELETE


# ----------------------------------------------------------------------------- identity


def is_standalone_pclq(pclq: Obj) -> bool:
    return N.L_PCSG not in pclq.labels


def clique_of(pcs: PCS, pclq: Obj | str) -> Clique | None:
    """The clique template a PodClique follows, parsed from its name
    (``<pcs>-<i>-<clique>`` or ``<pcsgFQN>-<j>-<clique>``).
    Upstream: ``GetPodCliqueNameFromPodCliqueFQN`` / ``FindPodCliqueTemplateSpecByName``
    in ``common/component/utils/podclique.go`` (the PCS and PCSG builders match by
    name suffix instead; ``hazard_warnings`` flags where the two disagree)."""
    if isinstance(pclq, str):
        return _clique_of_name(pcs, pclq)
    name = pclq.name
    owner = pclq.labels.get(N.L_PCSG) or pcs.name
    if not name.startswith(owner + "-"):
        return None
    rest = name[len(owner) + 1:]
    idx, sep, cname = rest.partition("-")
    if not sep or not idx.isdigit():
        return None
    return pcs.clique_by_name.get(cname)


def _clique_of_name(pcs: PCS, name: str) -> Clique | None:
    if not name.startswith(pcs.name + "-"):
        return None
    idx, sep, rest = name[len(pcs.name) + 1:].partition("-")
    if not sep or not idx.isdigit():
        return None
    if rest in pcs.clique_by_name and rest not in pcs.group_of_clique:
        return pcs.clique_by_name[rest]
    for g in pcs.groups:
        if rest.startswith(g.name + "-"):
            j, sep2, cname = rest[len(g.name) + 1:].partition("-")
            if sep2 and j.isdigit() and cname in g.clique_names:
                return pcs.clique_by_name.get(cname)
    return None


def expected_pod_template_hash(pcs: PCS, pclq: Obj) -> str:
    """The template hash the desired PodCliqueSet gives this PodClique's pods.
    Upstream: ``common/component/utils/podclique.go`` ``GetExpectedPCLQPodTemplateHash``."""
    c = clique_of(pcs, pclq)
    return c.template_hash if c is not None else ""


def pclq_target_hash(pclq: Obj) -> str:
    """The hash a PodClique's pods are measured against: the update target when an
    update is recorded, else the PodClique's label, else its current hash.
    Upstream: ``podclique/reconcilestatus.go`` ``mutateUpdatedReplica``."""
    up = pclq.status.get("updateProgress")
    if isinstance(up, Mapping) and up.get("podTemplateHash"):
        return str(up["podTemplateHash"])
    lab = pclq.labels.get(N.L_TEMPLATE_HASH)
    if lab:
        return lab
    return str(pclq.status.get("currentPodTemplateHash") or "")


def pod_outdated(pod: Obj, target_hash: str) -> bool:
    """A pod is outdated when its ``grove.io/pod-template-hash`` label differs from the
    target hash. Upstream: ``podclique/components/pod/rollingupdate.go`` ``computeUpdateWork``."""
    return pod.labels.get(N.L_TEMPLATE_HASH) != target_hash


def pods_of(world: World, pclq: Obj) -> list[Obj]:
    return [p for p in world.index("Pod", N.L_PCLQ).get(pclq.name, ()) if p.namespace == pclq.namespace]


def pclqs_of_pcsg(world: World, pcsg: Obj) -> list[Obj]:
    return [p for p in world.index("PodClique", N.L_PCSG).get(pcsg.name, ()) if p.namespace == pcsg.namespace]


def pcsg_replica_of(pclq: Obj) -> int:
    try:
        return int(pclq.labels.get(N.L_PCSG_REPLICA, "-1"))
    except ValueError:
        return -1


def pcs_replica_of(o: Obj) -> int:
    try:
        return int(o.labels.get(N.L_PCS_REPLICA, "-1"))
    except ValueError:
        return -1


def group_of_pcsg(pcs: PCS, pcsg: Obj) -> Group | None:
    i = pcs_replica_of(pcsg)
    return next((g for g in pcs.groups if pcs.pcsg_fqn(i, g) == pcsg.name), None)


def int_field(v: Any, default: int = 0) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else default


def min_available(pclq: Obj) -> int:
    return int_field(pclq.spec.get("minAvailable"), 1)


def status_int(o: Obj, key: str) -> int:
    return int_field(o.status.get(key), 0)


def condition_status(o: Obj, ctype: str) -> str | None:
    for c in o.status.get("conditions") or []:
        if isinstance(c, Mapping) and c.get("type") == ctype:
            return str(c.get("status"))
    return None


# ----------------------------------------------------------------------------- update progress


def update_progress(o: Obj) -> Mapping[str, Any] | None:
    up = o.status.get("updateProgress")
    return None if up is None else up if isinstance(up, Mapping) else None


def is_update_in_progress(o: Obj) -> bool:
    """``updateProgress`` set and not ended. Upstream: ``IsPCLQAutoUpdateInProgress``,
    ``IsPCSGUpdateInProgress`` (``common/component/utils``)."""
    up = update_progress(o)
    return up is not None and not up.get("updateEndedAt")


def is_last_update_completed(o: Obj) -> bool:
    """Upstream: ``IsLastPCLQUpdateCompleted``."""
    up = update_progress(o)
    return up is not None and bool(up.get("updateEndedAt"))


def pcs_update_in_progress(pcs: PCS, status: Mapping[str, Any]) -> bool:
    """RollingRecreate orchestration runs while the PodCliqueSet update has not ended.
    Upstream: ``podcliquesetreplica/rollingupdate.go`` ``isAutoUpdateInProgress``."""
    up = status.get("updateProgress")
    return is_auto_update_strategy(pcs) and isinstance(up, Mapping) and not up.get("updateEndedAt")


def currently_updating(status: Mapping[str, Any]) -> int | None:
    up = status.get("updateProgress")
    if not isinstance(up, Mapping):
        return None
    cu = up.get("currentlyUpdating")
    if isinstance(cu, list) and cu and isinstance(cu[0], Mapping):
        return int_field(cu[0].get("replicaIndex"), -1)
    return None


# ----------------------------------------------------------------------------- "updated" predicates


def is_pclq_update_complete(pcs: PCS, pclq: Obj, generation_hash: str | None) -> bool:
    """A standalone PodClique counts as updated for its PodCliqueSet replica: label
    hash, current hash and current PodCliqueSet hash all match, and at least
    ``minAvailable`` pods are updated and Ready.
    Upstream: ``podcliquesetreplica/rollingupdate.go`` ``isPCLQUpdateComplete``;
    ``podcliqueset/reconcilestatus.go`` ``isStandalonePCLQUpdated``."""
    if not generation_hash:
        return False
    expected = expected_pod_template_hash(pcs, pclq)
    if not expected:
        return False
    st = pclq.status
    ma = min_available(pclq)
    return (pclq.labels.get(N.L_TEMPLATE_HASH) == expected
            and st.get("currentPodTemplateHash") == expected
            and st.get("currentPodCliqueSetGenerationHash") == generation_hash
            and status_int(pclq, "updatedReplicas") >= ma
            and status_int(pclq, "readyReplicas") >= ma)


def is_pcsg_update_complete(pcsg: Obj, generation_hash: str | None) -> bool:
    """Upstream: ``common/component/utils/podcliquescalinggroup.go`` ``IsPCSGUpdateComplete``."""
    return bool(generation_hash) and pcsg.status.get("currentPodCliqueSetGenerationHash") == generation_hash


def is_pcsg_replica_updated(pcs: PCS, pclqs: Iterable[Obj]) -> bool:
    """Every member PodClique of a scaling-group replica carries the expected hash label.
    Upstream: ``podcliquescalinggroup/components/podclique/rollingupdate.go`` ``isReplicaUpdated``."""
    return all(p.labels.get(N.L_TEMPLATE_HASH) == expected_pod_template_hash(pcs, p) for p in pclqs)


PENDING, UNAVAILABLE, READY = "pending", "unavailable", "ready"


def pcsg_replica_state(pclqs: Sequence[Obj]) -> str:
    """First member failing a check decides: fewer than ``minAvailable`` scheduled →
    pending; fewer Ready → unavailable; else ready.
    Upstream: ``podcliquescalinggroup/components/podclique/rollingupdate.go`` ``getReplicaState``."""
    for p in pclqs:
        if status_int(p, "scheduledReplicas") < min_available(p):
            return PENDING
        if status_int(p, "readyReplicas") < min_available(p):
            return UNAVAILABLE
    return READY


def is_pcsg_member_converged(pcs: PCS, pclq: Obj, generation_hash: str | None) -> bool:
    """A recreated member PodClique is done: hashes match and ``minAvailable`` pods are
    updated and Ready. Upstream: ``rollingupdate.go`` ``isCurrentReplicaUpdateComplete``;
    ``podcliquescalinggroup/reconcilestatus.go`` ``isPCSGChildPCLQUpdated``."""
    return is_pclq_update_complete(pcs, pclq, generation_hash)


# ----------------------------------------------------------------------------- old pods


PENDING_POD, UNHEALTHY_POD, READY_POD, STARTING_POD, OTHER_POD = "pending", "unhealthy", "ready", "starting", "other"


def container_statuses(pod: Obj, key: str = "containerStatuses") -> list[Mapping[str, Any]]:
    cs = pod.status.get(key)
    return [c for c in cs if isinstance(c, Mapping)] if isinstance(cs, list) else []


def _terminated_erroneously(statuses: list[Mapping[str, Any]]) -> bool:
    """``GetContainerStatusIfTerminatedErroneously``: a status whose *last* termination
    had a non-zero exit code (the current state oscillates while a container crash
    loops; the last termination is stable)."""
    for c in statuses:
        last = c.get("lastState")
        term = last.get("terminated") if isinstance(last, Mapping) else None
        if isinstance(term, Mapping) and int_field(term.get("exitCode"), 0) != 0:
            return True
    return False


def has_any_container_exited_erroneously(pod: Obj) -> bool:
    """An init container or a container whose last termination had a non-zero exit
    code. Upstream: ``internal/utils/kubernetes/pod.go``
    ``HasAnyContainerExitedErroneously`` (init container statuses first)."""
    return _terminated_erroneously(container_statuses(pod, "initContainerStatuses")) or \
        _terminated_erroneously(container_statuses(pod))


#: the name the update code used before the init-container fix
has_past_crash = has_any_container_exited_erroneously


def started_not_ready(pod: Obj) -> bool:
    """A container that started (``started: true``) and is not Ready.
    Upstream: ``HasAnyStartedButNotReadyContainer``."""
    return any(c.get("started") is True and not c.get("ready") for c in container_statuses(pod))


def not_started(pod: Obj) -> bool:
    """A container whose ``started`` is false or unset (still in its startup probe).
    Upstream: ``HasAnyContainerNotStarted``."""
    return any(c.get("started") is not True for c in container_statuses(pod))


def classify_old_pod(pod: Obj) -> str:
    """The class of an old-hash pod, in upstream's order: phase Pending; a started but
    not Ready container or a past non-zero exit (before readiness, issue #697);
    Ready; a container not started; anything else.
    Upstream: ``podclique/components/pod/rollingupdate.go`` ``computeUpdateWork``."""
    if O.pod_phase(pod) == "Pending":
        return PENDING_POD
    if started_not_ready(pod) or has_any_container_exited_erroneously(pod):
        return UNHEALTHY_POD
    if O.pod_ready(pod):
        return READY_POD
    if not_started(pod):
        return STARTING_POD
    return OTHER_POD


def created_key(pod: Obj) -> tuple:
    return (str(pod.metadata.get("creationTimestamp") or ""), pod.name)


# ----------------------------------------------------------------------------- PCS replica ordering


@record
class PCSReplicaInfo:
    """Children of one PodCliqueSet replica and whether its update is done.
    Upstream: ``podcliquesetreplica/rollingupdate.go`` ``pcsReplicaInfo``."""

    index: int
    pclqs: list[Obj] = field(default_factory=list)   # standalone PodCliques
    pcsgs: list[Obj] = field(default_factory=list)
    done: bool = False


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


@record(frozen=True)
class ReplicaGroups:
    """``World.derived`` description of ``_by_replica``: the PodCliqueSet's objects of
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


def _by_replica(world: World, kind: str, pcs: PCS, standalone: bool) -> dict[int, list[Obj]]:
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
    _by_replica(world, "PodClique", pcs, True)
    _by_replica(world, "PodCliqueScalingGroup", pcs, False)


def _canonical(v: str) -> bool:
    """A replica label that is the decimal spelling of its index (then no other label
    value maps to the same index)."""
    # ASCII digits without a leading zero: what ``str(int(v)) == v`` accepts
    return v.isascii() and v.isdigit() and (v[0] != "0" or len(v) == 1)


def replica_update_done(pcs: PCS, generation_hash: str | None, pclqs: Sequence[Obj], pcsgs: Sequence[Obj]) -> bool:
    """Every standalone PodClique and scaling group of a replica has completed its
    update to ``generation_hash``. Upstream: ``pcsReplicaInfo.computeUpdateProgress``."""
    updated_pclqs = sum(1 for p in pclqs if is_pclq_update_complete(pcs, p, generation_hash))
    updated_pcsgs = sum(1 for g in pcsgs if is_pcsg_update_complete(g, generation_hash))
    return updated_pclqs == len(pcs.standalone) and updated_pcsgs == len(pcs.groups)


@record(frozen=True)
class ReplicaDone:
    """``World.derived`` description of ``replica_update_done`` of every replica."""

    pcs: PCS  # compared by identity: the model's parsed desired PodCliqueSet
    generation_hash: str | None

    kinds = ("PodClique", "PodCliqueScalingGroup")  # what the view reads (``World.derived``)

    def _done(self, world: World, i: int) -> bool:
        return replica_update_done(self.pcs, self.generation_hash,
                                   _by_replica(world, "PodClique", self.pcs, True).get(i, []),
                                   _by_replica(world, "PodCliqueScalingGroup", self.pcs, False).get(i, []))

    def build(self, world: World) -> dict[int, bool]:
        return {i: self._done(world, i) for i in range(self.pcs.replicas)}

    def patch(self, prev: dict[int, bool], changes: Mapping[Any, tuple[Obj | None, Obj | None]],
              world: World) -> dict[int, bool]:
        touched = touched_replicas(changes, ("PodClique", "PodCliqueScalingGroup"))
        if touched is None:
            return self.build(world)
        touched = {i for i in touched if i < self.pcs.replicas}
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
    by_replica_pclq = _by_replica(world, "PodClique", pcs, True)
    by_replica_pcsg = _by_replica(world, "PodCliqueScalingGroup", pcs, False)
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
    n = sum(status_int(p, "scheduledReplicas") for p in info.pclqs)
    for g in info.pcsgs:
        for cn in g.spec.get("cliqueNames") or []:
            c = pcs.clique_by_name.get(cn)
            n += status_int(g, "scheduledReplicas") * (c.min_available if c else 1)
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
    return touched_replicas(changes, ("PodClique", "PodCliqueScalingGroup"))


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
        pclqs = _by_replica(world, "PodClique", self.pcs, True)
        pcsgs = _by_replica(world, "PodCliqueScalingGroup", self.pcs, False)
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


# ----------------------------------------------------------------------------- availability


def pclq_unavailable(pclq: Obj, pods: Sequence[Obj]) -> int:
    """Pods of a PodClique that count against a ``maxUnavailable`` budget: the desired
    count minus Ready non-terminating pods, or the pods in flight (terminating or not
    Ready), whichever is larger. Assumption: PR #817's exact formula is not public in
    the corpus; this is the one PR #740 spells out (``pod/rollingupdatebudget.go``)."""
    desired = int_field(pclq.spec.get("replicas"), 0)
    ready = sum(1 for p in pods if O.pod_ready(p))
    in_flight = sum(1 for p in pods if p.terminating or not O.pod_ready(p))
    return max(desired - min(ready, desired), in_flight)


def pcsg_unavailable(pcsg: Obj) -> int:
    """Scaling-group replicas that count against a ``maxUnavailable`` budget: the
    replicas that are not available (assumption, see ``pclq_unavailable``)."""
    return max(0, int_field(pcsg.spec.get("replicas"), 0) - status_int(pcsg, "availableReplicas"))


def rolling_update_config(pcs: PCS, component: Clique | Group) -> Mapping[str, Any] | None:
    """The PR #817 ``rollingUpdate`` block of a standalone clique or scaling group, or
    None when the manifest does not set one (then HEAD behaviour applies)."""
    ru = component.rolling_update
    return ru if ru else None


def max_unavailable(ru: Mapping[str, Any] | None) -> int | None:
    if not ru:
        return None
    v = ru.get("maxUnavailable")
    return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else 1


def progress_deadline(ru: Mapping[str, Any] | None) -> str | None:
    if not ru:
        return None
    v = ru.get("progressDeadline")
    return str(v) if v else None


# ----------------------------------------------------------------------------- PodCliqueSet status


def live_pcs_status(pcs: PCS, world: World) -> dict[str, Any]:
    """A copy of the PodCliqueSet's status as the controllers last wrote it ({} before
    the first reconcile)."""
    live = world.get("PodCliqueSet", pcs.namespace, pcs.name)
    return dict(live.status) if live is not None else {}
