"""The PodCliqueSet controller's rolling update (RollingRecreate): one PodCliqueSet
replica at a time, in ``orderPCSReplicaInfo`` order. Upstream (ai-dynamo/grove @ fcc3b3bb):
``operator/internal/controller/podcliqueset/components/podcliquesetreplica/rollingupdate.go``
(``orchestrateRollingUpdate``, ``computePendingUpdateWork``, ``orderPCSReplicaInfo``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .......core.model import Action
from .......core.world import World
from ..... import gang_terminate as GT
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
            not U.pcs_replica_infos(pcs, world, gen, only=cur)[0].done:
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
    nxt = U.next_pcs_replica_to_update(pcs, world, U.pending_replicas(pcs, gen),
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
