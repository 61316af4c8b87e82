"""The PodClique controller's spec reconcile: when a PodClique's update starts,
restarts or is checked. Upstream (ai-dynamo/grove @ fcc3b3bb):
``operator/internal/controller/podclique/reconcilespec.go``
(``shouldCheckPendingUpdatesForPCLQ``, ``shouldResetOrTriggerUpdate``, ``initOrResetUpdate``,
``processUpdate``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .....core.model import Action, Obj
from .....core.world import World
from ... import update_common as U
from ...spec import PCS
from ..common import status_action


def should_check_pending_updates_for_pclq(pcs: PCS, pclq: Obj, pcs_status: Mapping[str, Any]) -> bool:
    """Only standalone PodCliques update pod by pod, and while the PodCliqueSet rolls
    only those of the replica in ``currentlyUpdating``.
    Upstream: ``podclique/reconcilespec.go`` ``shouldCheckPendingUpdatesForPCLQ``."""
    if not U.is_standalone_pclq(pclq):
        return False
    up = pcs_status.get("updateProgress")
    if not isinstance(up, Mapping) or up.get("updateEndedAt"):
        return True
    cur = U.currently_updating(pcs_status)
    return cur is not None and U.pcs_replica_of(pclq) == cur


def should_reset_or_trigger_pclq_update(pcs_status: Mapping[str, Any], pclq: Obj) -> bool:
    """Start, restart or skip a PodClique's update. A PodClique with no update history
    whose current PodCliqueSet hash already matches (created after the change) is
    skipped (PR #757); an update running or finished for an older PodCliqueSet hash is
    reset. Upstream: ``podclique/reconcilespec.go`` ``shouldResetOrTriggerUpdate``."""
    gen = pcs_status.get("currentGenerationHash")
    if not gen:
        return False
    up = U.update_progress(pclq)
    cur = pclq.status.get("currentPodCliqueSetGenerationHash")
    if up is None and cur is not None and cur == gen:
        return False
    if up is None and cur is not None and cur != gen:
        return True
    if up is not None and up.get("podCliqueSetGenerationHash") == gen:
        return False
    return True


def init_or_reset_pclq_update(pcs: PCS, pclq: Obj, world: World, pcs_status: Mapping[str, Any]) -> Action:
    """``updateProgress`` set to the new target hash; ``updatedReplicas`` 0; under
    OnDelete ended at once. Upstream: ``podclique/reconcilespec.go`` ``initOrResetUpdate``."""
    now = U.stamp(world)
    up: dict[str, Any] = {"updateStartedAt": now,
                          "podCliqueSetGenerationHash": pcs_status["currentGenerationHash"],
                          "podTemplateHash": U.expected_pod_template_hash(pcs, pclq)}
    if not U.is_auto_update_strategy(pcs):
        up["updateEndedAt"] = now
    return status_action(pclq, {"updateProgress": up, "updatedReplicas": 0},
                         "PodClique update starts for the new PodCliqueSet hash", f"{U.R_PCLQ_SPEC}#initOrResetUpdate")


def process_pclq_update(pcs: PCS, pclq: Obj, world: World, pcs_status: Mapping[str, Any]) -> list[Action]:
    """Upstream: ``podclique/reconcilespec.go`` ``processUpdate`` (RollingRecreate branch)."""
    if not pcs_status.get("currentGenerationHash"):
        return []
    if not should_check_pending_updates_for_pclq(pcs, pclq, pcs_status):
        return []
    if should_reset_or_trigger_pclq_update(pcs_status, pclq):
        return [init_or_reset_pclq_update(pcs, pclq, world, pcs_status)]
    return []
