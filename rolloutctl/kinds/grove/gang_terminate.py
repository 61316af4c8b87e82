"""Gang termination: a PodCliqueSet replica (or a scaling-group replica) whose
``minAvailable`` stays breached for ``terminationDelay`` has its PodCliques deleted
and recreated, so the scheduler gets a fresh gang to place.

The Grove model is untimed, and ``terminationDelay`` (4h by default) is long next to
everything else the model does: a breach lasts the delay only when nothing else can
happen first. So the breach is one step (the ``MinAvailableBreached=True`` write that
arms gang termination, visible, naming the delay), the delay passes when the plan
would otherwise stand still (``expire_breaches``, called by the cluster model when
neither the operator nor the cluster has anything left to do), and the termination is
the next step. A breach that clears first (the replacement pod turns Ready) never
fires, as upstream.

Upstream (paths under ``operator/internal/controller``):
``common/component/utils/podclique.go`` ``WasPCLQEverScheduled``, ``WasPCSGEverHealthy``,
``GetMinAvailableBreachedPCLQInfo``;
``podcliqueset/components/podcliquesetreplica/gangterminate.go``
``getPCSReplicaDeletionWork``, ``getMinAvailableBreachedPCSGInfo``,
``getMinAvailableBreachedPCLQsNotInPCSG``, ``createPCSReplicaDeleteTask``;
``podcliquescalinggroup/components/podclique/sync.go``
``processMinAvailableBreachedPCSGReplicas``, ``getMinAvailableBreachedPCSGIndices``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...core.go_time import parse_duration_seconds
from ...core.model import Action, Obj
from ...core.timestamps import parse_time
from ...core.world import World
from . import names as N
from . import update_common as U
from . import replica_index as RI
from ...core.records import field, record
from .spec import PCS

R_GANG = f"{U.RULE_ROOT}/podcliqueset/components/podcliquesetreplica/gangterminate.go"
R_PCSG_SYNC = f"{U.RULE_ROOT}/podcliquescalinggroup/components/podclique/sync.go"
R_UTILS = f"{U.RULE_ROOT}/common/component/utils/podclique.go"

MIN_AVAILABLE_BREACHED = "MinAvailableBreached"
PODCLIQUE_SCHEDULED = "PodCliqueScheduled"
GANG_TERMINATION_IN_PROGRESS = "GangTerminationInProgress"

#: ``InitialScheduleGrace``: a condition flipped this soon after creation counts as
#: its first write, not as a transition
INITIAL_SCHEDULE_GRACE = 5.0

#: prefix of the deterministic stamps the planner writes (``update_common.stamp``)
SIM_STAMP = "~sim-"


def condition(o: Obj, ctype: str) -> Mapping[str, Any] | None:
    for c in o.status.get("conditions") or []:
        if isinstance(c, Mapping) and c.get("type") == ctype:
            return c
    return None


def _flipped_after_creation(o: Obj, cond: Mapping[str, Any]) -> bool:
    """The condition's ``lastTransitionTime`` lies more than ``InitialScheduleGrace``
    after the object's creation. A stamp the planner wrote marks a transition it
    modelled (its first write of a condition carries no time); an unreadable time
    counts as no transition, the side upstream errs on."""
    ltt = cond.get("lastTransitionTime")
    if isinstance(ltt, str) and ltt.startswith(SIM_STAMP):
        return True
    t, created = parse_time(ltt), parse_time(o.metadata.get("creationTimestamp"))
    if t is None or created is None:
        return False
    return t > created + INITIAL_SCHEDULE_GRACE


def was_pclq_ever_scheduled(pclq: Obj) -> bool:
    """``PodCliqueScheduled`` is True now, or False after a transition since creation
    (so it was True once). Upstream: ``WasPCLQEverScheduled``."""
    cond = condition(pclq, PODCLIQUE_SCHEDULED)
    if cond is None:
        return False
    if cond.get("status") == "True":
        return True
    return _flipped_after_creation(pclq, cond)


def was_pcsg_ever_healthy(pcsg: Obj) -> bool:
    """``MinAvailableBreached`` is False now, or True after a transition since creation.
    Upstream: ``WasPCSGEverHealthy``."""
    cond = condition(pcsg, MIN_AVAILABLE_BREACHED)
    if cond is None:
        return False
    if cond.get("status") == "False":
        return True
    return _flipped_after_creation(pcsg, cond)


def gang_termination_in_progress(pcsg: Obj) -> bool:
    """Upstream: ``meta.IsStatusConditionTrue(..., GangTerminationInProgress)``."""
    cond = condition(pcsg, GANG_TERMINATION_IN_PROGRESS)
    return cond is not None and cond.get("status") == "True"


def _breached(o: Obj) -> bool:
    cond = condition(o, MIN_AVAILABLE_BREACHED)
    return cond is not None and cond.get("status") == "True"


def is_armed_pclq_breach(pclq: Obj) -> bool:
    """A PodClique whose breach counts toward gang termination: ``MinAvailableBreached``
    True on a PodClique that was scheduled once. Upstream: ``GetMinAvailableBreachedPCLQInfo``."""
    return _breached(pclq) and was_pclq_ever_scheduled(pclq)


def is_armed_pcsg_breach(pcsg: Obj) -> bool:
    """A scaling group whose breach counts toward gang termination: breached, healthy
    once, and not already being recycled. Upstream: ``getMinAvailableBreachedPCSGInfo``."""
    return _breached(pcsg) and was_pcsg_ever_healthy(pcsg) and not gang_termination_in_progress(pcsg)


#: world.memory key: (kind, name) of armed breaches whose ``terminationDelay`` passed
MEM_EXPIRED = "grove.expiredBreaches"


def expired(o: Obj, world: World | None) -> bool:
    """The untimed ``terminationDelay`` of this breach has passed (``expire_breaches``);
    without a world (``min_available_breached_replicas``) every armed breach counts."""
    if world is None:
        return True
    return (o.kind, o.name) in world.memory.get(MEM_EXPIRED, ())


def is_armed(o: Obj) -> bool:
    return is_armed_pclq_breach(o) if o.kind == "PodClique" else is_armed_pcsg_breach(o)


def armed_breaches(pcs: PCS, world: World) -> list[Obj]:
    """Every armed breach of the PodCliqueSet: PodCliques (standalone or members) and
    scaling groups, in key order."""
    out = [p for p in world.index("PodClique", N.L_PART_OF).get(pcs.name, ())
           if p.namespace == pcs.namespace and not p.terminating and is_armed_pclq_breach(p)]
    out += [g for g in world.index("PodCliqueScalingGroup", N.L_PART_OF).get(pcs.name, ())
            if g.namespace == pcs.namespace and not g.terminating and is_armed_pcsg_breach(g)]
    return out


@record(frozen=True)
class ArmedView:
    """``World.derived`` description of ``armed_breaches`` as (kind, name) pairs,
    re-checked from one world to the next only for the PodCliques and scaling groups
    that changed."""

    namespace: str
    name: str

    kinds = ("PodClique", "PodCliqueScalingGroup")  # what the view reads (``World.derived``)

    def _armed(self, o: Obj | None) -> bool:
        return o is not None and o.namespace == self.namespace and not o.terminating and \
            o.labels.get(N.L_PART_OF) == self.name and is_armed(o)

    def build(self, world: World) -> frozenset:
        return frozenset((o.kind, o.name) for kind in ("PodClique", "PodCliqueScalingGroup")
                         for o in world.index(kind, N.L_PART_OF).get(self.name, ()) if self._armed(o))

    def patch(self, prev: frozenset, changes: Mapping[Any, tuple[Obj | None, Obj | None]], world: World) -> frozenset:
        add, drop = set(), set()
        for k, (_old, new) in changes.items():
            if k[0] in ("PodClique", "PodCliqueScalingGroup") and k[1] == self.namespace:
                (add if self._armed(new) else drop).add((k[0], k[2]))
        return (prev - drop) | add if add - prev or drop & prev else prev


def armed(pcs: PCS, world: World) -> frozenset:
    """(kind, name) of ``armed_breaches``, as a world view."""
    return world.derived(ArmedView(pcs.namespace, pcs.name))  # type: ignore[no-any-return]


def prune_expired(pcs: PCS, world: World) -> World:
    """Drop expired marks whose breach ended (object gone, terminating or healthy)."""
    marks = world.memory.get(MEM_EXPIRED)
    if not marks:
        return world
    keep = frozenset(k for k in marks if (o := world.get(k[0], pcs.namespace, k[1])) is not None
                     and not o.terminating and _breached(o))
    return world if keep == marks else world.with_memory(**{MEM_EXPIRED: keep})


def expire_breaches(pcs: PCS, world: World) -> tuple[World, list[str]]:
    """The world stands still with armed breaches: their ``terminationDelay`` passes.
    Returns the world with them marked and one wait line per breach."""
    marks = set(world.memory.get(MEM_EXPIRED, ()))
    new = [o for o in armed_breaches(pcs, world) if (o.kind, o.name) not in marks]
    if not new:
        return world, []
    delay = termination_delay(pcs)
    waits = [f"terminationDelay ({delay}) passes with {o.kind} {o.name} below minAvailable" for o in new]
    marks |= {(o.kind, o.name) for o in new}
    return world.with_memory(**{MEM_EXPIRED: frozenset(marks)}), waits


def termination_delay(pcs: PCS) -> str:
    return str(pcs.template.get("terminationDelay") or "4h0m0s")


def wait_for(pcs: PCS, o: Obj, since: float) -> float | None:
    """Seconds left of an armed breach's ``terminationDelay`` at ``since`` (seconds since
    the epoch): ``terminationDelay - since.Sub(cond.LastTransitionTime)``, as
    ``GetMinAvailableBreachedPCLQInfo`` (common/component/utils/podclique.go) and
    ``getMinAvailableBreachedPCSGInfo`` (gangterminate.go) compute it; None when the
    condition's time is not one (a time the planner wrote, or none)."""
    cond = condition(o, MIN_AVAILABLE_BREACHED)
    t = parse_time(cond.get("lastTransitionTime")) if cond is not None else None
    delay = parse_duration_seconds(termination_delay(pcs))
    if t is None or delay is None:
        return None
    return delay - (since - t)


def breaches_expired_at(pcs: PCS, world: World, since: float) -> tuple[Obj, ...]:
    """The armed breaches of a live world whose ``terminationDelay`` has run out by
    ``since`` (``wait_for`` not above zero): upstream's next reconcile gang-terminates
    their replicas (``getPCSReplicaDeletionWork``: ``waitFor <= 0``)."""
    return tuple(o for o in armed_breaches(pcs, world) if (w := wait_for(pcs, o, since)) is not None and w <= 0)


def with_expired(world: World, breaches: Iterable[Obj]) -> World:
    """``world`` with ``breaches`` marked as past their ``terminationDelay`` (``MEM_EXPIRED``)."""
    marks = frozenset(world.memory.get(MEM_EXPIRED, ())) | {(o.kind, o.name) for o in breaches}
    return world.with_memory(**{MEM_EXPIRED: marks}) if marks else world


# ----------------------------------------------------------------------------- PodCliqueSet replicas


@record
class DeletionWork:
    """Upstream: ``gangterminate.go`` ``deletionWork``: replicas to terminate now, and
    replicas with armed breaches still inside ``terminationDelay`` (the rolling update
    orders those first), with the names of the breached constituents."""

    to_terminate: list[int] = field(default_factory=list)
    breached: dict[int, list[str]] = field(default_factory=dict)
    reasons: dict[int, list[str]] = field(default_factory=dict)


def get_pcs_replica_deletion_work(pcs: PCS, world: World, clock: World | None,
                                  armed: Iterable[tuple[str, str]] | None = None) -> DeletionWork:
    """For each replica ``0..spec.replicas-1``: skip it when any standalone PodClique
    is missing; else collect armed breaches of its scaling groups and standalone
    PodCliques; with one whose delay has passed, terminate the replica, else record it
    as breached. Upstream: ``getPCSReplicaDeletionWork``,
    ``getMinAvailableBreachedPCLQsNotInPCSG`` (``skipPCSReplicaIndex``).
    ``armed``: (kind, name) of every armed breach when the caller tracks them (only
    their replicas can have work); None looks at every replica."""
    work = DeletionWork()
    replicas: Iterable[int] = range(pcs.replicas)
    if armed is not None:
        replicas = sorted({i for i in (_replica_of_armed(pcs, world, k) for k in armed) if 0 <= i < pcs.replicas})
        if not replicas:
            return work
    for i in replicas:
        got = _replica_breaches(pcs, world, i)
        if got is None:
            continue
        pcsgs, breached_pclqs = got
        hit = pcsgs + breached_pclqs
        if not hit:
            continue
        if any(expired(o, clock) for o in hit):
            work.to_terminate.append(i)
            work.reasons[i] = [o.name for o in hit if expired(o, clock)]
        else:
            work.breached[i] = [o.name for o in breached_pclqs] + [o.name for o in pcsgs]
    return work


def _replica_breaches(pcs: PCS, world: World, i: int) -> tuple[list[Obj], list[Obj]] | None:
    """The armed breaches of replica ``i``'s scaling groups and standalone PodCliques
    (``getPCSReplicaDeletionWork``'s per-replica part); None: the replica is skipped,
    a standalone PodClique is missing (``skipPCSReplicaIndex``)."""
    empty: list[Obj] = []
    pcsgs = [g for g in RI.by_replica(world, "PodCliqueScalingGroup", pcs, False).get(i, empty)
             if is_armed_pcsg_breach(g)]
    pclqs = {p.name: p for p in RI.by_replica(world, "PodClique", pcs, True).get(i, empty)}
    if any(pcs.standalone_pclq_fqn(i, c.name) not in pclqs for c in pcs.standalone):
        return None  # upstream skips a replica whose standalone PodCliques are not all there
    breached_pclqs = [pclqs[pcs.standalone_pclq_fqn(i, c.name)] for c in pcs.standalone
                      if is_armed_pclq_breach(pclqs[pcs.standalone_pclq_fqn(i, c.name)])]
    return pcsgs, breached_pclqs


def _replica_of_armed(pcs: PCS, world: World, key: tuple[str, str]) -> int:
    o = world.get(key[0], pcs.namespace, key[1])
    return U.pcs_replica_of(o) if o is not None else -1


def min_available_breached_replicas(pcs: PCS, world: World) -> list[int]:
    """PodCliqueSet replicas with an armed breach (a standalone PodClique that was
    scheduled once, or a scaling group healthy once and not being gang-terminated,
    with ``MinAvailableBreached=True``), whatever the termination delay; replicas
    missing a standalone PodClique are skipped.
    Upstream: ``podcliquesetreplica/gangterminate.go`` ``getPCSReplicaDeletionWork``
    (its ``minAvailableBreachedConstituents`` and ``pcsIndicesToTerminate``)."""
    return sorted(world.derived(BreachedReplicas(pcs)))


@record(frozen=True)
class BreachedReplicas:
    """``World.derived`` description of ``min_available_breached_replicas`` as a set:
    ``getPCSReplicaDeletionWork`` without a clock (every armed breach counts), checked
    again only for the replicas whose PodCliques or scaling groups changed."""

    pcs: PCS  # compared by identity: the model's parsed desired PodCliqueSet

    kinds = ("PodClique", "PodCliqueScalingGroup")  # what the view reads (``World.derived``)

    def _breached(self, world: World, i: int) -> bool:
        got = _replica_breaches(self.pcs, world, i)
        return got is not None and bool(got[0] or got[1])

    def build(self, world: World) -> frozenset:
        return frozenset(i for i in range(self.pcs.replicas) if self._breached(world, i))

    def patch(self, prev: frozenset, changes: Mapping[Any, tuple[Obj | None, Obj | None]], world: World) -> frozenset:
        touched = RI.children_touched(changes, self.pcs)
        if touched is None:
            return self.build(world)
        if not touched:
            return prev
        return (prev - touched) | {i for i in touched if self._breached(world, i)}


def create_pcs_replica_delete_task(pcs: PCS, world: World, i: int, names: Sequence[str]) -> list[Action]:
    """Delete every PodClique of replica ``i`` (standalone and scaling-group members,
    by the replica-index label), then set ``GangTerminationInProgress=True`` on each of
    the replica's scaling groups. Upstream: ``createPCSReplicaDeleteTask``,
    ``markGangTerminationInProgress``."""
    delay = termination_delay(pcs)
    reason = (f"replica {i}: {', '.join(names)} stayed below minAvailable for terminationDelay ({delay}): "
              "gang termination deletes all its PodCliques so they are recreated and scheduled again")
    acts: list[Action] = []
    group = world.index("PodClique", N.L_PCS_REPLICA).get(str(i), ())
    for p in sorted(group, key=lambda o: o.name):
        if p.labels.get(N.L_PART_OF) != pcs.name or p.namespace != pcs.namespace or p.terminating:
            continue
        acts.append(Action(verb="delete", kind="PodClique", name=p.name, namespace=p.namespace, reason=reason,
                           rule=f"{R_GANG}#createPCSReplicaDeleteTask", index=i, revision=None,
                           role="gang-termination"))
    for g in RI.by_replica(world, "PodCliqueScalingGroup", pcs, False).get(i, []):
        if gang_termination_in_progress(g) or g.terminating:
            continue
        conds = [dict(c) for c in g.status.get("conditions") or [] if isinstance(c, Mapping)
                 and c.get("type") != GANG_TERMINATION_IN_PROGRESS]
        conds.append({"type": GANG_TERMINATION_IN_PROGRESS, "status": "True", "reason": "GangTerminationActive",
                      "lastTransitionTime": U.stamp(world)})
        acts.append(Action(verb="status", kind=g.kind, name=g.name, namespace=g.namespace,
                           reason=f"replica {i} is being gang-terminated: its scaling group will not fire again "
                                  "until its breach clears",
                           rule=f"{R_GANG}#markGangTerminationInProgress", index=i,
                           fields={"conditions": sorted(conds, key=lambda c: str(c.get("type")))}, hidden=True))
    return acts


def gang_terminate_pcs_replicas(pcs: PCS, world: World,
                                armed: Iterable[tuple[str, str]] | None = None) -> tuple[list[Action], DeletionWork]:
    """The gang-termination half of the PodCliqueSet replica component's ``Sync``:
    the deletions, and the work (its breached replicas order the rolling update, its
    terminated ones are skipped by it). Upstream: ``podcliquesetreplica.go`` ``Sync``."""
    work = get_pcs_replica_deletion_work(pcs, world, world, armed)
    acts: list[Action] = []
    for i in work.to_terminate:
        acts += create_pcs_replica_delete_task(pcs, world, i, work.reasons[i])
    return acts, work


# ----------------------------------------------------------------------------- scaling-group replicas


def get_min_available_breached_pcsg_indices(members: Iterable[Obj], clock: World | None) -> tuple[list[int], list[int]]:
    """Scaling-group replicas with an armed member breach: those whose delay has passed
    (terminate) and the others (requeue). Upstream: ``getMinAvailableBreachedPCSGIndices``."""
    by_rep: dict[int, list[Obj]] = {}
    for m in members:
        by_rep.setdefault(U.pcsg_replica_of(m), []).append(m)
    terminate, requeue = [], []
    for j in sorted(by_rep):
        hit = [m for m in by_rep[j] if is_armed_pclq_breach(m)]
        if not hit:
            continue
        (terminate if any(expired(m, clock) for m in hit) else requeue).append(j)
    return terminate, requeue


def process_min_available_breached_pcsg_replicas(pcs: PCS, pcsg: Obj, members: Sequence[Obj],
                                                 world: World) -> list[Action]:
    """When the scaling group as a whole still meets ``minAvailable`` (counting every
    breached replica as lost), delete the member PodCliques of the replicas whose
    breach lasted ``terminationDelay``; otherwise leave it to the PodCliqueSet-level
    gang termination. Not run while the scaling group updates. The breached replicas
    are counted over every member PodClique, terminating ones included (upstream lists
    them all), so a replica still being deleted with its breach counts as lost too;
    only non-terminating members are deleted.
    Upstream: ``sync.go`` ``runSyncFlow`` / ``processMinAvailableBreachedPCSGReplicas``."""
    if U.is_update_in_progress(pcsg):
        return []
    terminate, requeue = get_min_available_breached_pcsg_indices(members, world)
    if not terminate:
        return []
    reps = U.int_field(pcsg.spec.get("replicas"), 0)
    ma = U.int_field(pcsg.spec.get("minAvailable"), 1)
    if reps - (len(terminate) + len(requeue)) < ma:
        return []
    delay = termination_delay(pcs)
    acts = []
    live = [m for m in members if not m.terminating]
    for j in terminate:
        for m in sorted((m for m in live if U.pcsg_replica_of(m) == j), key=lambda m: m.name):
            acts.append(Action(
                verb="delete", kind="PodClique", name=m.name, namespace=m.namespace,
                reason=f"scaling-group replica {pcsg.name}/{j} stayed below minAvailable for terminationDelay "
                       f"({delay}): its PodCliques are deleted and recreated (the group keeps minAvailable)",
                rule=f"{R_PCSG_SYNC}#processMinAvailableBreachedPCSGReplicas", index=j, revision=None,
                role="gang-termination", fields={"podCliqueScalingGroup": pcsg.name, "replicaIndex": j}))
    return acts


def pcsg_waits_on_breach(pcsg: Obj, members: Iterable[Obj]) -> bool:
    """The scaling group has an armed member breach whose delay runs (upstream
    requeues it): its sync must look again next round."""
    return not U.is_update_in_progress(pcsg) and any(is_armed_pclq_breach(m) for m in members if not m.terminating)


def breach_step_reason(o: Obj, pcs: PCS) -> str:
    """The reason of the visible ``MinAvailableBreached=True`` write that arms gang
    termination."""
    cond = condition(o, MIN_AVAILABLE_BREACHED) or {}
    delay = termination_delay(pcs)
    what = "PodClique" if o.kind == "PodClique" else "scaling group"
    return (f"{what} {o.name}: MinAvailableBreached=True ({cond.get('reason', 'breached')}); if it lasts "
            f"terminationDelay ({delay}) the operator gang-terminates the replica")


def gang_termination_title(actions: Sequence[Action]) -> str | None:
    """A step title for gang terminations: which PodCliqueSet replicas or
    scaling-group replicas are recreated."""
    dels = [a for a in actions if a.role == "gang-termination" and a.verb == "delete"]
    if not dels:
        return None
    pcs_reps = sorted({a.index for a in dels if "podCliqueScalingGroup" not in a.fields and a.index is not None})
    pcsg_reps = sorted({(str(a.fields["podCliqueScalingGroup"]), a.index) for a in dels
                        if "podCliqueScalingGroup" in a.fields})
    parts = []
    if pcs_reps:
        parts.append("gang termination of replica" + ("s " if len(pcs_reps) > 1 else " ") +
                     ", ".join(str(i) for i in pcs_reps))
    if pcsg_reps:
        parts.append("gang termination of scaling-group replica" + ("s " if len(pcsg_reps) > 1 else " ") +
                     ", ".join(f"{g}/{j}" for g, j in pcsg_reps))
    return "; ".join(parts) + f": delete {len(dels)} PodClique{'s' if len(dels) != 1 else ''} (below minAvailable " \
        "for terminationDelay)"
