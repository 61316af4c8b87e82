"""Stuck analysis of the proposed strategies: the design's stuck scenarios, each
with a reason code, the objects it blocks on and the remedies the design suggests.

Design: ai-dynamo/grove PR #262 ``docs/designs/update-strategy.md``, the "Stuck
Scenarios" tables of "MaxSurge Considerations" and "User Responsibilities":

| scenario | reason |
| --- | --- |
| surge pod / replica cannot be scheduled | ``InsufficientCapacity`` |
| surge pod / replica scheduled but never Ready (maxUnavailable 0) | ``NeverReady`` |
| surge scaling-group replica gated on a base PodGang that waits for the update | ``GangGated`` |
| old objects already unavailable use up maxUnavailable | ``BudgetExhausted`` |

Remedies (design): lower maxSurge to 0 (delete-then-create), delete the stuck surge
object, free cluster capacity, fix the application.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ....core.environment import Environment
from ....core.model import (STUCK_GANG_GATED, STUCK_INSUFFICIENT_CAPACITY, STUCK_NEVER_READY, Obj, ObjectRef, Stuck,
                            Warning)
from ....core.quantity import format_quantity
from ....core.overlay import Overlay
from ....core.world import World
from .. import cluster
from ..controller import common as C
from .. import names as N
from .. import objects as O
from .. import summary as SUM
from ..spec import PCS
from . import state as S
from ....core.records import record
from .budgets import Budget
from .rollout import decide
from .units import clique_budget, group_budget, pcsg_units, pod_units

STUCK_BUDGET_EXHAUSTED = "BudgetExhausted"


def proposed_warning(pcs: PCS) -> Warning:
    return Warning("ProposedStrategy",
                   f"updateStrategy.type {pcs.strategy_type} is proposed in the design discussion (ai-dynamo/grove PR #262) "
                   "and not implemented by the Grove operator; this plan follows the design",
                   "spec.updateStrategy.type")


@record(frozen=True)
class SurgePodCount:
    """``World.derived`` description of ``len(surge_pods(pcs, world))`` per PodClique,
    with the total: a PodClique's count depends on its pods and the ``replicas`` of
    its PodClique and scaling group, so it is recounted for those that changed."""

    pcs: PCS  # compared by identity: the model's parsed desired PodCliqueSet

    def _count(self, world: World, t: Any, name: str | None) -> int:
        s = t.groups.get(name)
        return _surge_in(self.pcs, world, s.active) if s is not None else 0

    def build(self, world: World) -> tuple[Mapping[str | None, int], int]:
        t = SUM.pod_groups(world, self.pcs.namespace, self.pcs.name)
        by_name = {name: self._count(world, t, name) for name in t.groups}
        return by_name, sum(by_name.values())

    def patch(self, prev: tuple[Mapping[str | None, int], int], changes: Mapping[Any, tuple[Obj | None, Obj | None]],
              world: World) -> tuple[Mapping[str | None, int], int]:
        names: set[str | None] = {None}  # owned pods without a PodClique label: always recounted
        pod_by_pcsg = None
        for k, (old, new) in changes.items():
            if k[0] == "Pod":
                names.update(o.labels.get(N.L_PCLQ) for o in (old, new) if o is not None)
            elif k[0] == "PodClique":
                names.add(k[2])
            elif k[0] == "PodCliqueScalingGroup":
                pod_by_pcsg = pod_by_pcsg or world.index("Pod", N.L_PCSG)
                names.update(p.labels.get(N.L_PCLQ) for p in pod_by_pcsg.get(k[2], ()))
        t = SUM.pod_groups(world, self.pcs.namespace, self.pcs.name)
        by_name, total = Overlay.over(prev[0]), prev[1]  # the other PodCliques' counts shared
        for name in names:
            n = self._count(world, t, name)
            total += n - by_name.get(name, 0)
            by_name.put(name, n)
        return by_name.settled(), total


def surge_pod_count(pcs: PCS, world: World) -> int:
    """``len(surge_pods(pcs, world))`` (a world view: ``SurgePodCount``)."""
    return world.derived(SurgePodCount(pcs))[1]  # type: ignore[no-any-return]


def _surge_in(pcs: PCS, world: World, pods: list[Obj]) -> int:
    return len(_surge_of(pcs, world, pods))


def surge_pods(pcs: PCS, world: World) -> list[Obj]:
    return _surge_of(pcs, world, C.owned(world, "Pod", pcs))


def _surge_of(pcs: PCS, world: World, pods: list[Obj]) -> list[Obj]:
    """Active pods of surge objects: pods at index >= replicas of a standalone
    PodClique, pods of scaling-group replicas >= the group's replicas, pods of
    PodCliqueSet replicas >= spec.replicas."""
    out = []
    pclq_reps: dict[str, int] = {}
    pcsg_reps: dict[str, int] = {}
    for p in pods:
        if not O.pod_active(p):
            continue
        lb = p.labels
        if C.replica_of(p) >= pcs.replicas:
            out.append(p)
            continue
        if N.L_PCSG in lb:
            name = lb[N.L_PCSG]
            if name not in pcsg_reps:
                g = world.get("PodCliqueScalingGroup", pcs.namespace, name)
                pcsg_reps[name] = S.spec_replicas(g, 10**9) if g is not None else 10**9
            try:
                if int(lb.get(N.L_PCSG_REPLICA, "0")) >= pcsg_reps[name]:
                    out.append(p)
            except ValueError:
                pass
            continue
        name = lb.get(N.L_PCLQ, "")
        if name not in pclq_reps:
            q = world.get("PodClique", pcs.namespace, name)
            pclq_reps[name] = S.spec_replicas(q, 10**9) if q is not None else 10**9
        if (O.pod_index(p) or 0) >= pclq_reps[name]:
            out.append(p)
    return out


def _design_remedies(level: str, budget: Budget, surge_name: str, kubectl: str) -> tuple[str, ...]:
    return (
        f"lower maxSurge of {level} to 0 (with maxUnavailable >= 1): delete-then-create needs no spare capacity",
        f"delete the stuck surge {surge_name} ({kubectl}); with maxSurge {budget.max_surge} the update may create it again",
    )


def _capacity_needed(pods: list[Obj], world_pods: list[Obj], env: Environment) -> str:
    cache: dict = {}
    used = cluster.used_resources(world_pods, cache)
    req: dict[str, int] = {}
    for p in pods:
        for k, v in cluster.requests_of(p, cache).items():
            req[k] = req.get(k, 0) + v
    short = env.short(used, req)
    return ", ".join(f"{r}={format_quantity(used.get(r, 0) + req.get(r, 0) - env.capacity[r], r)}" for r in short)


def _pclq_ref(pcs: PCS, name: str) -> ObjectRef:
    return ObjectRef("PodClique", pcs.namespace, name, N.API_CORE)


def _gang_ref(pcs: PCS, name: str) -> ObjectRef:
    return ObjectRef("PodGang", pcs.namespace, name, N.API_SCHED)


def diagnose_rolling_update(policy: S.ViewPolicy, pcs: PCS, world: World, env: Environment) -> Stuck | None:
    st = policy.status(pcs, world)
    if not S.update_active(st):
        return None
    view = policy.view(pcs, world)
    all_pods = C.owned(world, "Pod", pcs)
    for i in S.updating_replicas(st):
        # scaling-group surge replicas
        for g in sorted(view.pcsg_by_replica.get(i, []), key=lambda o: o.name):
            budget = group_budget(pcs, view, g)
            grp = view.group_of(g)
            level = f"scaling group {grp.name if grp else g.name}"
            for j, members in sorted(view.pcsg_units(g).items()):
                if j < budget.replicas or any(q.terminating for q in members):
                    continue
                pods = [p for q in members for p in view.pods(q)]
                gang = members[0].labels.get(N.L_PODGANG, "")
                base = members[0].labels.get(N.L_BASE_PODGANG, "")
                names = ", ".join(sorted(q.name for q in members))
                kubectl = f"kubectl delete podclique {' '.join(sorted(q.name for q in members))}"
                remedies = _design_remedies(level, budget, f"replica {j} of {g.name}", kubectl)
                gated = [p for p in pods if O.pod_gated(p) and not O.pod_scheduled(p)]
                base_obj = world.get("PodGang", pcs.namespace, base)
                if gated and base and not cluster.base_podgang_scheduled(world, base_obj):
                    short = _short_podgroups(world, base_obj)
                    own_old = [n for n in short if n.startswith(g.name + "-") and
                               (q := world.get("PodClique", pcs.namespace, n)) is not None and view.pclq_outdated(q)]
                    msg = (f"surge replica {j} of {g.name} (PodGang {gang}) is gated until its base PodGang {base} is "
                           f"scheduled, and {base} is not ({', '.join(f'{n} {have}/{need}' for n, (have, need) in short.items())} "
                           "pods scheduled)")
                    if own_old and budget.max_unavailable == 0:
                        msg += (f"; those are old replicas of {g.name}, which are not replaced before the surge replica "
                                "is available (maxUnavailable 0): a circular wait")
                    return Stuck(STUCK_GANG_GATED, msg, (_gang_ref(pcs, gang), _gang_ref(pcs, base)),
                                 remedies + (f"free capacity so that the base PodGang {base} can be scheduled",))
                pending = [p for p in pods if not O.pod_scheduled(p) and not O.pod_gated(p)]
                if pending:
                    need = _capacity_needed(pending, all_pods, env)
                    if need:
                        return Stuck(STUCK_INSUFFICIENT_CAPACITY,
                                     f"surge replica {j} of {g.name} ({names}, PodGang {gang}) cannot be scheduled: "
                                     f"{len(pending)} pods need {need} more than --capacity allows"
                                     + _held(budget, "old replica"),
                                     (_gang_ref(pcs, gang),) + tuple(_pclq_ref(pcs, q.name) for q in members),
                                     remedies + (f"free capacity ({need}) or raise --capacity",))
                never = [p for p in pods if O.pod_scheduled(p) and not O.pod_ready(p) and cluster.never_ready(env, p)]
                if never:
                    return Stuck(STUCK_NEVER_READY,
                                 f"surge replica {j} of {g.name} ({names}) is scheduled but never becomes available"
                                 + _held(budget, "old replica"),
                                 tuple(_pclq_ref(pcs, q.name) for q in members),
                                 ("fix the image or probes of the new template",) + remedies)
        # standalone surge pods
        for q in sorted(view.standalone.get(i, []), key=lambda o: o.name):
            budget = clique_budget(pcs, q)
            surge = [p for p in view.pods(q) if (O.pod_index(p) or 0) >= budget.replicas]
            if not surge:
                continue
            c = S.clique_of(pcs, q)
            level = f"clique {c.name if c else q.name}"
            hosts = ", ".join(N.pod_hostname(q.name, O.pod_index(p) or 0) for p in surge)
            kubectl = "; ".join(f"kubectl delete pod -l {N.L_PCLQ}={q.name},{N.L_POD_INDEX}={O.pod_index(p) or 0}"
                                for p in surge)
            remedies = _design_remedies(level, budget, f"pod {hosts}", kubectl)
            pending = [p for p in surge if not O.pod_scheduled(p) and not O.pod_gated(p)]
            if pending:
                need = _capacity_needed(pending, all_pods, env)
                if need:
                    gang = q.labels.get(N.L_PODGANG, "")
                    return Stuck(STUCK_INSUFFICIENT_CAPACITY,
                                 f"surge pod {hosts} of {q.name} (PodGroup of PodGang {gang}) cannot be scheduled: "
                                 f"it needs {need} more than --capacity allows" + _held(budget, "old pod"),
                                 (_pclq_ref(pcs, q.name), _gang_ref(pcs, gang)),
                                 remedies + (f"free capacity ({need}) or raise --capacity",))
            never = [p for p in surge if O.pod_scheduled(p) and not O.pod_ready(p) and cluster.never_ready(env, p)]
            if never:
                return Stuck(STUCK_NEVER_READY, f"surge pod {hosts} of {q.name} is scheduled but never becomes Ready"
                             + _held(budget, "old pod"), (_pclq_ref(pcs, q.name),),
                             ("fix the image or probes of the new template",) + remedies)
        # budgets used up by objects that are already unavailable
        for q in sorted(view.standalone.get(i, []), key=lambda o: o.name):
            budget = clique_budget(pcs, q)
            units = pod_units(view, q)
            s = _exhausted(units, budget, "pods", q.name)
            if s:
                c = S.clique_of(pcs, q)
                return Stuck(STUCK_BUDGET_EXHAUSTED, s, (_pclq_ref(pcs, q.name),),
                             _budget_remedies(f"clique {c.name if c else q.name}"))
        for g in sorted(view.pcsg_by_replica.get(i, []), key=lambda o: o.name):
            budget = group_budget(pcs, view, g)
            s = _exhausted(pcsg_units(view, g), budget, "replicas", g.name)
            if s:
                return Stuck(STUCK_BUDGET_EXHAUSTED, s, (ObjectRef("PodCliqueScalingGroup", pcs.namespace, g.name, N.API_CORE),),
                             _budget_remedies(f"scaling group {g.name}"))
    return None


def _short_podgroups(world: World, pg: Obj | None) -> dict[str, tuple[int, int]]:
    """PodGroups of ``pg`` with fewer scheduled pods than ``minReplicas``: name -> (scheduled, minReplicas)."""
    out: dict[str, tuple[int, int]] = {}
    if pg is None:
        return out
    by_pclq = world.index("Pod", N.L_PCLQ)
    for grp in pg.spec.get("podgroups") or []:
        need = int(grp.get("minReplicas") or 0)
        have = sum(1 for p in by_pclq.get(grp.get("name"), ()) if O.pod_active(p) and O.pod_scheduled(p))
        if have < need:
            out[str(grp.get("name"))] = (have, need)
    return out


def _held(budget: Budget, what: str) -> str:
    if budget.max_unavailable == 0:
        return f"; with maxUnavailable 0 no {what} is deleted until it is available"
    return ""


def _exhausted(units, budget: Budget, what: str, name: str) -> str:
    old = [u for u in units if u.old]
    if not old:
        return ""
    d = decide(units, budget, free_unavailable=what == "pods")
    if d.delete or d.available >= d.floor:
        return ""
    bad = sorted(u.index for u in old if not u.available)
    if not bad:
        return ""
    return (f"{name}: only {d.available} of {budget.replicas} {what} are available, below the floor of {d.floor} "
            f"(replicas {budget.replicas} - maxUnavailable {budget.max_unavailable}); old {what} "
            f"{', '.join(map(str, bad))} are already unavailable and use up the budget, so nothing may be deleted")


def _budget_remedies(level: str) -> tuple[str, ...]:
    return (f"raise maxUnavailable of the {level}",
            "fix or delete the unavailable old objects so that they are recreated",
            "set maxSurge >= 1 so that a new object can become available first")


def diagnose_replica_recreate(policy: Any, pcs: PCS, world: World, env: Environment) -> Stuck | None:
    if not S.update_active(policy.status(pcs, world)):
        return None
    view = policy.view(pcs, world)
    budget = policy.budget(pcs)
    all_pods = C.owned(world, "Pod", pcs)
    for u in policy.units(pcs, view):
        if u.index < pcs.replicas or u.available:
            continue
        i = u.index
        pods = view.replica_pods(i)
        svc = N.headless_service_name(pcs.name, i)
        kubectl = (f"kubectl delete podclique,podcliquescalinggroup,podgang -l {N.L_PART_OF}={pcs.name},"
                   f"{N.L_PCS_REPLICA}={i}; kubectl delete service {svc}")
        remedies = ("lower spec.updateStrategy.rollingUpdate.maxSurge to 0 (with maxUnavailable >= 1): "
                    "replicas are recreated in place with no spare capacity",
                    f"delete the stuck surge replica {i} ({kubectl})")
        refs = (_gang_ref(pcs, N.base_podgang_name(pcs.name, i)),)
        pending = [p for p in pods if not O.pod_scheduled(p) and not O.pod_gated(p)]
        if pending:
            need = _capacity_needed(pending, all_pods, env)
            if need:
                return Stuck(STUCK_INSUFFICIENT_CAPACITY,
                             f"surge PodCliqueSet replica {i} cannot be scheduled: its pods need {need} more than "
                             "--capacity allows" + _held(budget, "old replica"), refs,
                             remedies + (f"free capacity ({need}) or raise --capacity",))
        never = [p for p in pods if O.pod_scheduled(p) and not O.pod_ready(p) and cluster.never_ready(env, p)]
        if never:
            pclqs = sorted({p.labels.get(N.L_PCLQ, "") for p in never})
            return Stuck(STUCK_NEVER_READY,
                         f"surge PodCliqueSet replica {i} is scheduled but never becomes available "
                         f"({', '.join(pclqs)} not Ready)" + _held(budget, "old replica"),
                         tuple(_pclq_ref(pcs, n) for n in pclqs),
                         ("fix the image or probes of the new template",) + remedies)
    s = _exhausted(policy.units(pcs, view), budget, "replicas", f"PodCliqueSet {pcs.name}")
    if s:
        return Stuck(STUCK_BUDGET_EXHAUSTED, s, (ObjectRef("PodCliqueSet", pcs.namespace, pcs.name, N.API_CORE),),
                     ("raise spec.updateStrategy.rollingUpdate.maxUnavailable",
                      "fix or delete the unavailable old replicas so that they are recreated",
                      "set spec.updateStrategy.rollingUpdate.maxSurge >= 1 so that a new replica can become available first"))
    return None
