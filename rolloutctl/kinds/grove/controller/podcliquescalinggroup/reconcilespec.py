"""The PodCliqueScalingGroup controller's spec reconcile: when a scaling group's
update starts or restarts. Upstream (ai-dynamo/grove @ fcc3b3bb):
``operator/internal/controller/podcliquescalinggroup/reconcilespec.go``
(``shouldResetOrTriggerUpdate``, ``processUpdate``, ``initOrResetUpdate``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .....core.model import Action, Obj
from .....core.world import World
from ... import update_common as U
from ...spec import PCS
from ..common import status_action


def should_reset_or_trigger_pcsg_update(pcs_status: Mapping[str, Any], pcsg: Obj) -> bool:
    """Start (or restart) a scaling group's update unless it already ran or runs for
    the current PodCliqueSet hash.
    Upstream: ``podcliquescalinggroup/reconcilespec.go`` ``shouldResetOrTriggerUpdate``."""
    gen = pcs_status.get("currentGenerationHash")
    if not gen:
        return False
    up = U.update_progress(pcsg)
    return not (up is not None and up.get("podCliqueSetGenerationHash") == gen)


def process_pcsg_update(pcs: PCS, pcsg: Obj, world: World, pcs_status: Mapping[str, Any]) -> list[Action]:
    """Under RollingRecreate a scaling group starts its update only when its
    PodCliqueSet replica is the one in ``currentlyUpdating``.
    Upstream: ``podcliquescalinggroup/reconcilespec.go`` ``processUpdate``, ``initOrResetUpdate``."""
    cur = U.currently_updating(pcs_status)
    if cur is None or U.pcs_replica_of(pcsg) != cur:
        return []
    if not should_reset_or_trigger_pcsg_update(pcs_status, pcsg):
        return []
    up = {"updateStartedAt": U.stamp(world), "podCliqueSetGenerationHash": pcs_status["currentGenerationHash"]}
    return [status_action(pcsg, {"updateProgress": up, "updatedReplicas": 0},
                          "scaling group starts its update for the new PodCliqueSet hash",
                          f"{U.R_PCSG_SPEC}#initOrResetUpdate")]
