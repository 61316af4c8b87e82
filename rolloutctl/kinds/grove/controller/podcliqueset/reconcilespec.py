"""The PodCliqueSet controller's spec reconcile: the component syncs in upstream's
order. Upstream (ai-dynamo/grove @ fcc3b3bb): ``operator/internal/controller/podcliqueset/reconcilespec.go``
(``syncPodCliqueSetResources``, ``getKindSyncGroups``, ``processGenerationHashChange``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .....core.model import Action
from .....core.queue import EVERY_KEY, Round
from .....core.world import World
from ... import update_common as U
from ...spec import PCS
from .components.hpa import sync_hpas
from .components.podclique import sync_standalone_podcliques
from .components.podcliquescalinggroup import sync_scaling_groups
from .components.podgang import PcsgSurges, sync_podgangs
from .components.service import sync_headless_services
from .components.serviceaccount_rbac import sync_rbac, waiting_for_token


def sync_podcliqueset(pcs: PCS, world: World, pcs_status: dict[str, Any], *, surge_replicas: int = 0,
                      pcsg_surge: "PcsgSurges | None" = None, queue: Round = EVERY_KEY) -> list[Action]:
    """One PodCliqueSet reconcile: components in the upstream group order (SA, Role,
    RoleBinding, token Secret, headless Services, HPAs; then standalone PodCliques;
    then PodCliqueScalingGroups and PodGangs).
    Upstream: ``operator/internal/controller/podcliqueset/reconcilespec.go``
    ``getKindSyncGroups`` / ``syncPodCliqueSetResources``.

    ``surge_replicas`` (proposed strategies only) adds replicas at indices
    ``spec.replicas..`` that the components build like any other replica;
    ``pcsg_surge`` gives the scaling groups that keep surge replicas above their
    ``spec.replicas``, and how many (their scaled PodGangs are expected too).
    ``queue``: the round's work queue (``model._Passes``): each component syncs only
    the expected objects whose events it hands out (None: every one). A component
    object's sync reads only that object and the desired spec, so an object nothing
    happened to since it last needed nothing needs nothing now."""
    acts: list[Action] = []
    n = pcs.replicas + surge_replicas
    wait = waiting_for_token(pcs, world)
    acts += sync_rbac(pcs, world)
    acts += sync_headless_services(pcs, world, n, queue=queue)
    acts += sync_hpas(pcs, world)
    if wait:
        # the token Secret's Sync returned ErrCodeRequeueAfter: the reconcile stops
        # after the first group and comes back once the token is there
        return acts
    acts += sync_standalone_podcliques(pcs, world, n, queue=queue)
    acts += sync_scaling_groups(pcs, world, n, queue=queue)
    acts += sync_podgangs(pcs, world, n, pcsg_surge, queue=queue)
    return acts


def process_generation_hash_change(pcs: PCS, world: World, status: Mapping[str, Any]) -> list[Action]:
    """First reconcile stores the generation hash; a later change of the hash starts
    an update: ``updateProgress`` reset (a running rollout's ``currentlyUpdating`` is
    dropped), ``updatedReplicas`` 0, and for OnDelete ``updateEndedAt`` stamped at once.
    Upstream: ``operator/internal/controller/podcliqueset/reconcilespec.go``
    ``processGenerationHashChange`` / ``initUpdateProgress``."""
    cur = status.get("currentGenerationHash")
    new = pcs.generation_hash
    if cur == new:
        return []
    rule = f"{U.R_PCS_SPEC}#processGenerationHashChange"
    if not cur:
        return [Action(verb="status", kind="PodCliqueSet", name=pcs.name, namespace=pcs.namespace,
                       reason="first reconcile stores the generation hash; no update is started", rule=rule,
                       fields={"currentGenerationHash": new})]
    now = U.stamp(world)
    up: dict[str, Any] = {"updateStartedAt": now}
    was = status.get("updateProgress")
    restarting = isinstance(was, Mapping) and not was.get("updateEndedAt") and U.is_auto_update_strategy(pcs)
    if not U.is_auto_update_strategy(pcs):
        up["updateEndedAt"] = now
        reason = ("pod templates changed: new generation hash recorded; OnDelete patches the PodClique specs "
                  "and replaces no pod")
    elif restarting:
        reason = ("pod templates changed again during a rolling update: the update restarts from the first "
                  "replica in order (upstream issues #400, #565)")
    else:
        reason = "pod templates changed: a rolling update starts, one PodCliqueSet replica at a time"
    return [Action(verb="status", kind="PodCliqueSet", name=pcs.name, namespace=pcs.namespace, reason=reason,
                   rule=f"{U.R_PCS_SPEC}#initUpdateProgress",
                   fields={"currentGenerationHash": new, "updateProgress": up, "updatedReplicas": 0})]
