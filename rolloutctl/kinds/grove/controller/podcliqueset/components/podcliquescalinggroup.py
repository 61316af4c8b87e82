"""The PodCliqueScalingGroups of every PodCliqueSet replica. Upstream (ai-dynamo/grove @ fcc3b3bb):
``operator/internal/controller/podcliqueset/components/podcliquescalinggroup/``
``podcliquescalinggroup.go`` (``Sync``, ``buildResource``).
"""

from __future__ import annotations

from ......core.model import Action
from ......core.queue import EVERY_KEY, Round
from ......core.world import World
from .... import objects as O
from ....spec import PCS
from .... import register as R
from ...common import Expected, R_PCS, by_names, create_action, delete_action, owned, replica_of
from .serviceaccount_rbac import _role


def _pcsgs(pcs: PCS, n: int) -> Expected:
    items = [(i, g, O.build_pcsg(pcs, i, g)) for i in range(n) for g in pcs.groups]
    return Expected(items, [raw["metadata"]["name"] for _i, _g, raw in items])


def sync_scaling_groups(pcs: PCS, world: World, n: int | None = None, queue: Round = EVERY_KEY) -> list[Action]:
    """PodCliqueScalingGroups (``spec.replicas`` only on create), then the PodGangs
    that need them. Upstream: ``podcliqueset/components/podcliquescalinggroup/
    podcliquescalinggroup.go`` ``buildResource``."""
    acts = []
    n = pcs.replicas if n is None else n
    exp = pcs.derived(_pcsgs, n)
    expected = exp.names
    ctl = R.pcs_component("PodCliqueScalingGroup", "podcliquescalinggroup")
    look = queue.keys(ctl, world, (n,))
    unsettled: set[str] = set()
    for i, g, raw in exp.looked(look):
        name = raw["metadata"]["name"]
        if world.get("PodCliqueScalingGroup", pcs.namespace, name) is None:
            acts.append(create_action(raw, f"scaling group {g.name} of replica {i} ({g.replicas} replicas)",
                                      f"{R_PCS}/components/podcliquescalinggroup/podcliquescalinggroup.go#buildResource",
                                      index=i, role=_role(pcs, i)))
            unsettled.add(name)
    pcsgs = owned(world, "PodCliqueScalingGroup", pcs) if look is None else \
        by_names(world, "PodCliqueScalingGroup", pcs, look)
    for o in pcsgs:
        if o.name not in expected and not o.terminating:
            acts.append(delete_action(o, "its replica or group is no longer in the spec",
                                      f"{R_PCS}/components/podcliquescalinggroup/podcliquescalinggroup.go#Sync",
                                      index=replica_of(o)))
            unsettled.add(o.name)
    queue.done(ctl, sorted(unsettled), (n,))
    return acts
