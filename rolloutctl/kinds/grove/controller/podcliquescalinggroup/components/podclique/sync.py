"""The PodCliqueScalingGroup controller's member PodCliques: create those of the
replicas below ``spec.replicas``, delete those scaled in, gang-terminate replicas whose
``minAvailable`` is breached. Upstream (ai-dynamo/grove @ fcc3b3bb):
``operator/internal/controller/podcliquescalinggroup/components/podclique/sync.go``
(``runSyncFlow``, ``createExpectedPCLQs``, ``computePCSGReplicasToDelete``,
``processMinAvailableBreachedPCSGReplicas``).
"""

from __future__ import annotations

from typing import Callable, Iterable

from .......core.model import Action, Obj
from .......core.world import World
from ..... import gang_terminate as GT
from ..... import names as N
from ..... import objects as O
from .....spec import PCS
from ....common import R_PCSG, create_action, delete_action, owned, replica_of


def sync_scaling_group_podcliques(pcs: PCS, world: World, may_create: Callable[[Obj, int], bool] | None = None,
                                  surge: Callable[[Obj], int] | None = None,
                                  only: Iterable[Obj] | None = None, gang: bool = True) -> list[Action]:
    """For each PodCliqueScalingGroup: create the member PodCliques of replicas
    ``0..spec.replicas-1`` that do not exist (waiting while an old one with the same
    name is still terminating) and delete those of replicas scaled in (highest
    indices). Upstream: ``operator/internal/controller/podcliquescalinggroup/components/
    podclique/sync.go`` ``runSyncFlow``, ``createExpectedPCLQs``, ``computePCSGReplicasToDelete``.
    Replicas that ``surge`` says the strategy keeps above ``spec.replicas`` are not scaled in.
    ``only``: these scaling groups instead of all of the PodCliqueSet's."""
    acts = []
    ns = pcs.namespace
    pclqs_by_pcsg = world.index("PodClique", N.L_PCSG)
    for pcsg in owned(world, "PodCliqueScalingGroup", pcs) if only is None else only:
        if pcsg.terminating:
            continue
        i = replica_of(pcsg)
        g = next((g for g in pcs.groups if pcs.pcsg_fqn(i, g) == pcsg.name), None)
        if g is None:
            continue
        reps = pcsg.spec.get("replicas")
        reps = reps if isinstance(reps, int) else g.replicas
        keep = reps + (surge(pcsg) if surge is not None else 0)
        for j in range(reps):
            if may_create is not None and not may_create(pcsg, j):
                continue
            for cn in g.clique_names:
                c = pcs.clique_by_name.get(cn)
                if c is None:
                    continue
                name = pcs.member_pclq_fqn(i, g, j, cn)
                if world.get("PodClique", ns, name) is None:
                    raw = O.build_member_pclq(pcs, i, g, j, c)
                    acts.append(create_action(raw, f"member {cn} of {g.name} replica {j}",
                                              f"{R_PCSG}/components/podclique/sync.go#createExpectedPCLQs", index=j,
                                              role="base-gang" if j < g.min_available else "scaled-gang"))
        for pclq in pclqs_by_pcsg.get(pcsg.name, ()):
            try:
                j = int(pclq.labels.get(N.L_PCSG_REPLICA, "0"))
            except ValueError:
                continue
            if j >= keep and not pclq.terminating:
                acts.append(delete_action(pclq, f"scaling-group replica {j} scaled in",
                                          f"{R_PCSG}/components/podclique/sync.go#computePCSGReplicasToDelete",
                                          index=j))
        if gang and keep == reps:
            members = [m for m in pclqs_by_pcsg.get(pcsg.name, ()) if m.namespace == ns]
            acts += GT.process_min_available_breached_pcsg_replicas(pcs, pcsg, members, world)
    return acts
