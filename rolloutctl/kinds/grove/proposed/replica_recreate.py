"""The proposed ``ReplicaRecreate`` strategy: whole PodCliqueSet replicas are torn
down (standalone PodCliques, scaling groups with their PodCliques, PodGangs,
headless Service) and recreated from the new template, within the PodCliqueSet-level
``spec.updateStrategy.rollingUpdate.{maxUnavailable, maxSurge}`` (defaults 1 / 0).
Surge replicas take indices >= ``spec.replicas`` and are torn down at the end.
Component-level strategies do not apply (the validation rules reject them).

Design: ai-dynamo/grove PR #262 ``docs/designs/update-strategy.md`` ("ReplicaRecreate",
"PCS Replica MaxSurge with ReplicaRecreate"). Not implemented by the Grove operator.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any, Mapping

from ....core.environment import Environment
from ....core.model import Action, Stuck, Warning
from ....core.world import World
from ..controller.common import by_names
from ..controller.podcliqueset.components.podgang import expected_replica_podgangs
from .. import names as N
from .. import update_common as U
from ..spec import PCS
from . import state as S
from ....core.records import replace
from .budgets import Budget, pcs_budget
from .rollout import Decision, Unit, decide_ordered
from .stuck import diagnose_replica_recreate, proposed_warning, surge_pod_count

R_RECREATE = S.DESIGN + "#pcs-replica-maxsurge-with-replicarecreate"


class ReplicaRecreatePolicy(S.ViewPolicy):
    name = "ReplicaRecreate"

    def budget(self, pcs: PCS) -> Budget:
        return pcs_budget(pcs.update_strategy, pcs.replicas)

    def warm(self, pcs: PCS, world: World) -> None:
        world.derived(S.ReplicaUnits(pcs, replica_unit))
        world.index("Pod", N.L_PCSG)  # the surge count's patch reads it (stuck.SurgePodCount)

    def rollout_units(self, pcs: PCS, world: World) -> S.RolloutUnits:
        """Every PodCliqueSet replica that has children and none of them terminating,
        as a unit of the rollout (a world view, patched for the replicas that changed)."""
        return world.derived(S.ReplicaUnits(pcs, replica_unit))  # type: ignore[no-any-return]

    def units(self, pcs: PCS, view: S.View) -> list[Unit]:
        """Every PodCliqueSet replica that has children and none of them terminating."""
        return self.rollout_units(pcs, view.world).units()

    def decision(self, pcs: PCS, world: World) -> Decision:
        return self._decide(pcs, world, self.rollout_units(pcs, world))

    def _decide(self, pcs: PCS, world: World, ru: S.RolloutUnits) -> Decision:
        budget = self.budget(pcs)
        return decide_ordered(ru.old_in_order(), len(ru.old), ru.available,
                              ru.surge(S.present_replicas(pcs, world), pcs.replicas), budget)

    def surge_pcs_replicas(self, pcs: PCS, world: World) -> int:
        view = self.view(pcs, world)
        present = S.present_replicas(pcs, world)
        top = next((i for i in reversed(present[bisect_left(present, pcs.replicas):]) if view.replica_present(i)),
                   None)
        extent = (top + 1 - pcs.replicas) if top is not None else 0
        wanted = self.decision(pcs, world).surge if S.update_active(self.status(pcs, world)) else 0
        return max(extent, wanted)

    def pcs_pass(self, pcs: PCS, world: World, status: Mapping[str, Any], gang: Any = None) -> list[Action]:
        acts: list[Action] = []
        st = dict(status)
        if not S.update_active(st):
            return acts
        view = self.view(pcs, world)
        budget = self.budget(pcs)
        ru = self.rollout_units(pcs, world)
        d = self._decide(pcs, world, ru)
        why = f"maxUnavailable {budget.max_unavailable}, maxSurge {budget.max_surge}"
        for u in d.delete:
            acts += teardown(pcs, world, view, u.index, f"recreate replica {u.index} with the new template "
                             f"({'available' if u.available else 'unavailable'}; {why})", None)
        for u in d.remove_surge:
            acts += teardown(pcs, world, view, u.index, f"every replica is recreated: surge replica {u.index} removed", "surge")
        busy = sorted(u.index for u in d.delete)
        if not ru.old and not ru.surge(S.present_replicas(pcs, world), pcs.replicas) \
                and all(view.replica_available(i) for i in range(pcs.replicas)) and len(ru.rows) >= pcs.replicas:
            a, st = S.progress_write(pcs, st, "every replica is recreated: the update ends", R_RECREATE,
                                     updatingReplicas=[], updateEndedAt=U.stamp(world))
            acts.append(a)
        elif busy:
            cur = sorted(set(S.updating_replicas(st)) | set(busy))
            a, st = S.progress_write(pcs, st, f"recreating replicas {', '.join(map(str, cur))}", R_RECREATE,
                                     updatingReplicas=cur)
            acts.append(replace(a, hidden=True))
        return acts

    def converged(self, pcs: PCS, world: World) -> bool:
        if S.update_active(self.status(pcs, world)):
            return False
        ru = self.rollout_units(pcs, world)
        return not ru.old and not ru.surge(S.present_replicas(pcs, world), pcs.replicas)

    def diagnose(self, pcs: PCS, world: World, env: Environment) -> Stuck | None:
        return diagnose_replica_recreate(self, pcs, world, env)

    def warnings(self, pcs: PCS, world: World) -> list[Warning]:
        return [proposed_warning(pcs)]

    def counts(self, pcs: PCS, world: World) -> Mapping[str, Any]:
        return {"surge": surge_pod_count(pcs, world)}


def replica_unit(view: S.View, i: int) -> Unit | None:
    """Replica ``i`` as a unit of the rollout (None: terminating or not all there)."""
    if view.replica_terminating(i) or not view.replica_present(i):
        return None
    return Unit(i, view.replica_outdated(i), view.replica_available(i), view.replica_scheduled_pods(i) > 0)


def teardown(pcs: PCS, world: World, view: S.View, i: int, reason: str, role: str | None) -> list[Action]:
    """Delete every child of PodCliqueSet replica ``i``: standalone PodCliques,
    scaling groups (their PodCliques and pods go with them), PodGangs and the
    headless Service. The PodCliqueSet components recreate them from the current
    template once they are gone."""
    acts = []
    rev = "new" if role == "surge" else "old"
    for q in sorted(view.standalone.get(i, []), key=lambda o: o.name):
        if not q.terminating:
            acts.append(Action(verb="delete", kind="PodClique", name=q.name, namespace=q.namespace, reason=reason,
                               rule=R_RECREATE, index=i, revision=rev, role=role))
    for g in sorted(view.pcsg_by_replica.get(i, []), key=lambda o: o.name):
        if not g.terminating:
            acts.append(Action(verb="delete", kind="PodCliqueScalingGroup", name=g.name, namespace=g.namespace,
                               reason=reason, rule=R_RECREATE, index=i, revision=rev, role=role))
    gangs = {name for name, _r, _g in expected_replica_podgangs(pcs, world, max(pcs.replicas, i + 1), i)}
    for pg in by_names(world, "PodGang", pcs, gangs):
        if not pg.terminating:
            acts.append(Action(verb="delete", kind="PodGang", name=pg.name, namespace=pg.namespace, reason=reason,
                               rule=R_RECREATE, index=i, role=role))
    svc = world.get("Service", pcs.namespace, N.headless_service_name(pcs.name, i))
    if svc is not None and not svc.terminating:
        acts.append(Action(verb="delete", kind="Service", name=svc.name, namespace=svc.namespace, reason=reason,
                           rule=R_RECREATE, index=i, role=role))
    return acts
