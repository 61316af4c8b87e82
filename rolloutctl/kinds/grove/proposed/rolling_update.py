"""The proposed ``RollingUpdate`` strategy: PodCliqueSet replicas one at a time
(as today); inside the selected replica every standalone clique rolls its pods and
every scaling group rolls its replicas at the same time, each within its own
``updateStrategy.{maxUnavailable, maxSurge}`` (defaults 1 / 0 reproduce today's
one-at-a-time delete-then-create).

Design: ai-dynamo/grove PR #262 ``docs/designs/update-strategy.md`` ("Proposed
semantics", "MaxSurge Considerations", worked examples). The Grove operator does not
implement it; rolloutctl plans it as the design describes (docs/grove-proposed.md).
"""

from __future__ import annotations

from typing import Any, Mapping

from ....core.environment import Environment
from ....core.model import Action, Obj, Stuck, Warning
from ....core.overlay import Overlay
from ....core.world import World
from ..controller.common import pod_display_name, replica_of
from ..controller.podclique.components.pod.syncflow import sync_pods
from .. import gang_terminate as GT
from .. import names as N
from .. import objects as O
from .. import update_common as U
from .. import replica_index as RI
from ..controller.podcliqueset.components.podcliquesetreplica import rollingupdate as PCSR
from ..spec import PCS
from . import state as S
from ....core.records import record, replace
from .rollout import decide
from .stuck import diagnose_rolling_update, proposed_warning, surge_pod_count
from .units import clique_budget, group_budget, pcsg_units, pod_units

R_SELECT = "grove:operator/internal/controller/podcliqueset/components/podcliquesetreplica/rollingupdate.go#orchestrateRollingUpdate"
R_POD_ROLL = S.DESIGN + "#podclique-maxsurge"
R_PCSG_ROLL = S.DESIGN + "#podcliquescalinggroup-maxsurge"


class RollingUpdatePolicy(S.ViewPolicy):
    name = "RollingUpdate"

    def selected(self, pcs: PCS, world: World, replica: int) -> bool:
        st = self.status(pcs, world)
        return S.update_active(st) and replica in S.updating_replicas(st)

    # PodCliqueSet controller -------------------------------------------------
    def replica_has_surge(self, view: S.View, i: int) -> bool:
        return replica_has_surge(view, i)

    def replica_done(self, view: S.View, i: int) -> bool:
        return replica_done(view, i)

    def warm(self, pcs: PCS, world: World) -> None:
        world.derived(ReplicasDone(pcs))
        world.derived(pending_replicas(pcs))  # the next selection
        world.index("Pod", N.L_PCSG)  # the surge count's patch reads it (stuck.SurgePodCount)
        world.derived(GT.BreachedReplicas(pcs))  # the replica order of the next selection
        world.derived(SurgeMemberGroups(pcs.namespace))

    def pcs_pass(self, pcs: PCS, world: World, status: Mapping[str, Any], gang: Any = None) -> list[Action]:
        """Select PodCliqueSet replicas one at a time once the model has started the
        update (new generation hash) (``orchestrateRollingUpdate``; unchanged by the design)."""
        acts: list[Action] = []
        st = dict(status)
        if not S.update_active(st):
            return acts
        view = self.view(pcs, world)
        cur = [i for i in S.updating_replicas(st) if i < pcs.replicas]
        if cur and not self.replica_done(view, cur[0]):
            return acts
        # the design keeps today's order ("unscheduled → unhealthy → ascending ordinal")
        picked = PCSR.next_pcs_replica_to_update(pcs, world, pending_replicas(pcs), cur,
                                              GT.min_available_breached_replicas(pcs, world))
        if picked is not None:
            nxt = picked[0]
            a, st = S.progress_write(pcs, st, f"update PodCliqueSet replica {nxt} (one replica at a time)", R_SELECT,
                                     updatingReplicas=[nxt])
            a = replace(a, index=nxt)
        else:
            a, st = S.progress_write(pcs, st, "every replica is updated: the update ends", R_SELECT,
                                     updatingReplicas=[], updateEndedAt=U.stamp(world))
            a = replace(a, fields={**a.fields, "updatedReplicas": pcs.replicas})
        acts.append(a)
        return acts

    # PodCliqueScalingGroup controller -----------------------------------------
    def surge_pcsg_replicas(self, pcs: PCS, pcsg: Obj, world: World) -> int:
        reps = S.spec_replicas(pcsg)
        present = []
        for q in world.index("PodClique", N.L_PCSG).get(pcsg.name, ()):
            j = S._to_int(q.labels.get(N.L_PCSG_REPLICA))
            if j is not None and j >= reps and not q.terminating:
                present.append(j)
        extent = (max(present) + 1 - reps) if present else 0
        wanted = 0
        if self.selected(pcs, world, replica_of(pcsg)):
            view = self.view(pcs, world)
            units = pcsg_units(view, pcsg)
            wanted = decide(units, group_budget(pcs, view, pcsg)).surge if any(u.old for u in units) else 0
        return max(extent, wanted)

    def pcsg_surges(self, pcs: PCS, world: World, live_replicas: Any) -> Mapping[str, int]:
        """``surge_pcsg_replicas`` of the only scaling groups where it can be above 0:
        those of the selected PodCliqueSet replicas, and those with a non-terminating
        member PodClique at a replica index at or above their ``spec.replicas`` (for
        any other, the surge wanted is 0 and the surge present is 0): the world view
        ``SurgeMemberGroups`` keeps the latter, patched for the PodCliques and scaling
        groups that changed."""
        out: dict[str, int] = {}
        ns = pcs.namespace
        names: set[str] = set()
        st = self.status(pcs, world)
        if S.update_active(st):
            selected = set(S.updating_replicas(st))
            if any(i < 0 for i in selected):  # objects without a valid replica label count as replica -1
                names.update(g.name for g in world.of_kind("PodCliqueScalingGroup") if g.namespace == ns)
            elif selected:
                by_replica = world.index("PodCliqueScalingGroup", N.L_PCS_REPLICA)
                if RI.replica_labels_canonical(world, "PodCliqueScalingGroup", pcs):
                    # the selected replicas' groups, without a look at every replica's
                    for i in sorted(selected):
                        names.update(g.name for g in by_replica.get(str(i), ()) if g.namespace == ns)
                else:
                    for v, group in by_replica.items():
                        if S._to_int(v) in selected:
                            names.update(g.name for g in group if g.namespace == ns)
        names.update(world.derived(SurgeMemberGroups(ns)))
        for name in sorted(names):
            pcsg = world.get("PodCliqueScalingGroup", ns, name)
            if pcsg is not None:
                surge = self.surge_pcsg_replicas(pcs, pcsg, world)
                if surge:
                    out[name] = surge
        return out

    def pcsg_pass(self, pcs: PCS, pcsg: Obj, world: World) -> list[Action]:
        """Roll the scaling group's replicas within its budgets: surge replicas at
        indices >= replicas (each in its own scaled PodGang, gated on the base gang),
        old replicas deleted whole (all member PodCliques) within maxUnavailable,
        surge replicas deleted at the end."""
        i = replica_of(pcsg)
        if not self.selected(pcs, world, i):
            return []
        view = self.view(pcs, world)
        g = view.group_of(pcsg)
        if g is None:
            return []
        budget = group_budget(pcs, view, pcsg)
        units = pcsg_units(view, pcsg)
        reps = budget.replicas
        if not any(u.old or u.index >= reps for u in units):
            return []
        d = decide(units, budget)
        acts: list[Action] = []
        present = set(view.pcsg_units(pcsg))
        why = f"maxUnavailable {budget.max_unavailable}, maxSurge {budget.max_surge}"
        for j in range(reps, reps + d.surge):
            if j in present:
                continue
            for cn in g.clique_names:
                c = pcs.clique_by_name.get(cn)
                if c is None:
                    continue
                raw = O.build_member_pclq(pcs, i, g, j, c)
                acts.append(Action(verb="create", kind="PodClique", name=raw["metadata"]["name"], namespace=pcs.namespace,
                                   reason=f"surge replica {j} of {g.name} ({why}); scaled PodGang "
                                          f"{raw['metadata']['labels'][N.L_PODGANG]}, gated on the base gang",
                                   rule=R_PCSG_ROLL, index=j, revision="new", role="surge", payload=raw))
        for u in d.delete:
            for q in sorted(view.pcsg_units(pcsg).get(u.index, []), key=lambda q: q.name):
                acts.append(Action(verb="delete", kind="PodClique", name=q.name, namespace=q.namespace,
                                   reason=f"replace {g.name} replica {u.index} ({'available' if u.available else 'unavailable'}; {why})",
                                   rule=R_PCSG_ROLL, index=u.index, revision="old"))
        for u in d.remove_surge:
            for q in sorted(view.pcsg_units(pcsg).get(u.index, []), key=lambda q: q.name):
                acts.append(Action(verb="delete", kind="PodClique", name=q.name, namespace=q.namespace,
                                   reason=f"every replica of {g.name} is updated: surge replica {u.index} removed",
                                   rule=R_PCSG_ROLL, index=u.index, revision="new", role="surge"))
        return acts

    # PodClique controller -------------------------------------------------------
    def pclq_pass(self, pcs: PCS, pclq: Obj, world: World) -> list[Action]:
        if N.L_PCSG in pclq.labels or not self.selected(pcs, world, replica_of(pclq)):
            return sync_pods(pclq, world)
        return roll_pods(pcs, pclq, world, self.view(pcs, world))

    @staticmethod
    def _selection(status: Mapping[str, Any]) -> tuple[Any, frozenset]:
        """Outside the selected replicas every pass is the plain one; which replicas
        are selected comes from the PodCliqueSet status."""
        active = S.update_active(status)
        return ((active,), frozenset(S.updating_replicas(status) if active else ()))

    pclq_selection = pcsg_hooks_selection = pcsg_selection = _selection

    def pcsg_hooks_requeue(self, pcs: PCS, pcsg: Obj, world: World) -> bool:
        # inside the selection the surge comes from the rollout decision
        return self.selected(pcs, world, replica_of(pcsg))

    def pcsg_requeue(self, pcs: PCS, pcsg: Obj, world: World) -> bool:
        return self.selected(pcs, world, replica_of(pcsg))

    def pclq_requeue(self, pcs: PCS, pclq: Obj, world: World) -> bool:
        return N.L_PCSG not in pclq.labels and self.selected(pcs, world, replica_of(pclq))

    # model hooks ------------------------------------------------------------------
    def converged(self, pcs: PCS, world: World) -> bool:
        view = self.view(pcs, world)
        if S.update_active(self.status(pcs, world)):
            return False
        return not any(view.replica_outdated(i) or self.replica_has_surge(view, i) for i in range(pcs.replicas))

    def diagnose(self, pcs: PCS, world: World, env: Environment) -> Stuck | None:
        return diagnose_rolling_update(self, pcs, world, env)

    def warnings(self, pcs: PCS, world: World) -> list[Warning]:
        return [proposed_warning(pcs)]

    def counts(self, pcs: PCS, world: World) -> Mapping[str, Any]:
        return {"surge": surge_pod_count(pcs, world)}


def has_surge_member(world: World, pcsg: Obj) -> bool:
    """A non-terminating member PodClique of ``pcsg`` (by its scaling-group label) at a
    replica index at or above the group's ``spec.replicas``: the surge present that
    ``surge_pcsg_replicas`` counts."""
    reps = S.spec_replicas(pcsg)
    for q in world.index("PodClique", N.L_PCSG).get(pcsg.name, ()):
        j = S._to_int(q.labels.get(N.L_PCSG_REPLICA))
        if j is not None and j >= reps and not q.terminating:
            return True
    return False


@record(frozen=True)
class SurgeMemberGroups:
    """``World.derived`` description of the names of the scaling groups in ``namespace``
    with ``has_surge_member``, checked again only for the scaling groups that changed
    or whose member PodCliques changed."""

    namespace: str

    def _has(self, world: World, name: str) -> bool:
        pcsg = world.get("PodCliqueScalingGroup", self.namespace, name)
        return pcsg is not None and has_surge_member(world, pcsg)

    def build(self, world: World) -> frozenset:
        return frozenset(g.name for g in world.of_kind("PodCliqueScalingGroup")
                         if g.namespace == self.namespace and has_surge_member(world, g))

    def patch(self, prev: frozenset, changes: Mapping[Any, tuple[Obj | None, Obj | None]], world: World) -> frozenset:
        names: set[str] = set()
        for k, (old, new) in changes.items():
            if k[0] == "PodCliqueScalingGroup" and k[1] == self.namespace:
                names.add(k[2])
            elif k[0] == "PodClique":
                names.update(o.labels[N.L_PCSG] for o in (old, new) if o is not None and N.L_PCSG in o.labels)
        if not names:
            return prev
        now = {n for n in names if self._has(world, n)}
        return (prev - names) | now if now ^ (prev & names) else prev


def replica_has_surge(view: S.View, i: int) -> bool:
    """Replica ``i`` keeps a surge pod (index at or above its PodClique's replicas) or
    a surge scaling-group replica."""
    for q in view.standalone.get(i, []):
        if any((O.pod_index(p) or 0) >= S.spec_replicas(q) for p in view.pods(q)):
            return True
    for g in view.pcsg_by_replica.get(i, []):
        reps = S.spec_replicas(g)
        if any(j >= reps and any(not q.terminating for q in qs) for j, qs in view.pcsg_units(g).items()):
            return True
    return False


def replica_done(view: S.View, i: int) -> bool:
    """Replica ``i`` is updated, without surge, available, and its update has ended
    (``View.replica_complete``: every unit replaced and Ready), so the next replica may be
    selected (the design keeps one PodCliqueSet replica at a time; upstream's
    ``computeUpdateProgress`` counts a replica done once each PodClique's update ended)."""
    return not view.replica_outdated(i) and not replica_has_surge(view, i) and view.replica_available(i) \
        and view.replica_complete(i)


def pending_replicas(pcs: PCS) -> PCSR.PendingReplicas:
    """The replicas this strategy has not updated yet (``replica_done``), in the order
    of upstream's ``orderPCSReplicaInfo`` (``podcliquesetreplica.rollingupdate.next_pcs_replica_to_update``)."""
    return PCSR.PendingReplicas(pcs, ReplicasDone(pcs), S.dirty_replicas, None)


@record(frozen=True)
class ReplicasDone:
    """``World.derived`` description of ``replica_done`` of every replica below
    ``spec.replicas``, recomputed for the replicas whose objects changed
    (``state.dirty_replicas``)."""

    pcs: PCS  # compared by identity: the model's parsed desired PodCliqueSet

    def build(self, world: World) -> dict[int, bool]:
        view = S.View(self.pcs, world)
        return {i: replica_done(view, i) for i in range(self.pcs.replicas)}

    def patch(self, prev: dict[int, bool], changes: Mapping[Any, tuple[Obj | None, Obj | None]],
              world: World) -> dict[int, bool]:
        dirty = S.dirty_replicas(changes, world)
        if dirty is None:
            return self.build(world)
        dirty = {i for i in dirty if i < self.pcs.replicas}
        if not dirty:
            return prev
        view = S.View(self.pcs, world)
        out = Overlay.over(prev)  # the other replicas' flags shared
        for i in dirty:
            out.put(i, replica_done(view, i))
        return out.settled()


def roll_pods(pcs: PCS, pclq: Obj, world: World, view: S.View) -> list[Action]:
    """One PodClique pass of the pod-level rolling update: create new pods up to
    ``replicas`` plus the wanted surge (lowest free indices, so holes first and surge
    at indices >= replicas, ``GetAvailableIndices``), delete old pods within
    maxUnavailable, and delete surge pods once no old pod is left."""
    budget = clique_budget(pcs, pclq)
    units = pod_units(view, pclq)
    reps = budget.replicas
    if not any(u.old or u.index >= reps for u in units):
        return sync_pods(pclq, world)
    d = decide(units, budget, free_unavailable=True)
    acts: list[Action] = []
    why = f"maxUnavailable {budget.max_unavailable}, maxSurge {budget.max_surge}"
    taken = {u.index for u in units}
    holes = sum(1 for k in range(reps) if k not in taken)
    n_create = max(reps + d.surge - len(units), holes)
    if n_create > 0:
        raw = dict(pclq.raw)
        raw["spec"] = dict(pclq.spec)
        raw["spec"]["replicas"] = len(units) + n_create
        for a in sync_pods(Obj(raw, pclq.file, pclq.line, pclq.lines), world):
            if a.verb != "create":
                continue
            if a.index is not None and a.index >= reps:
                a = replace(a, role="surge", reason=f"surge pod {a.index} of {pclq.name} ({why})", rule=R_POD_ROLL)
            else:
                a = replace(a, reason=f"pod {a.index} of {pclq.name} with the new template", rule=R_POD_ROLL)
            acts.append(a)
    by_index = {O.pod_index(p): p for p in view.pods(pclq)}
    for u in d.delete:
        p = by_index.get(u.index)
        if p is not None:
            acts.append(Action(verb="delete", kind="Pod", name=pod_display_name(p), namespace=p.namespace,
                               reason=f"replace old pod {u.index} of {pclq.name} ({'Ready' if u.available else 'not Ready'}; {why})",
                               rule=R_POD_ROLL, index=u.index, revision="old",
                               uid=p.name if pod_display_name(p) != p.name else None))
    for u in d.remove_surge:
        p = by_index.get(u.index)
        if p is not None:
            acts.append(Action(verb="delete", kind="Pod", name=pod_display_name(p), namespace=p.namespace,
                               reason=f"every pod of {pclq.name} is updated: surge pod {u.index} removed",
                               rule=R_POD_ROLL, index=u.index, revision="new", role="surge",
                               uid=p.name if pod_display_name(p) != p.name else None))
    return acts
