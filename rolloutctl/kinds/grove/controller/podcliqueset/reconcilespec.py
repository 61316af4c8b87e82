"""The PodCliqueSet controller's spec reconcile: the component syncs in upstream's
order. Upstream (ai-dynamo/grove @ fcc3b3bb): ``operator/internal/controller/podcliqueset/reconcilespec.go``
(``syncPodCliqueSetResources``, ``getKindSyncGroups``).
"""

from __future__ import annotations

from typing import Any

from .....core.model import Action
from .....core.queue import EVERY_KEY, Round
from .....core.world import World
from ...spec import PCS
from .components.hpa import sync_hpas
from .components.podclique import sync_standalone_podcliques
from .components.podcliquescalinggroup import sync_scaling_groups
from .components.podgang import PcsgSurges, sync_podgangs
from .components.service import sync_headless_services
from .components.serviceaccount_rbac import sync_rbac


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
    acts += sync_rbac(pcs, world)
    acts += sync_headless_services(pcs, world, n, queue=queue)
    acts += sync_hpas(pcs, world)
    acts += sync_standalone_podcliques(pcs, world, n, queue=queue)
    acts += sync_scaling_groups(pcs, world, n, queue=queue)
    acts += sync_podgangs(pcs, world, n, pcsg_surge, queue=queue)
    return acts
