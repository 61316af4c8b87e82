"""OnDelete: the PodClique specs follow the new template in place and Grove deletes
nothing; a pod takes the new template only when someone (or something) deletes it.

Upstream: GREP-291 (``docs/proposals/291-ondelete-update/README.md``); e2e
``operator/e2e/tests/update/ondelete_test.go``.
"""

from __future__ import annotations

from typing import Any, Mapping

from ...core.model import Action, Obj, Warning
from ...core.world import World
from .controller.common import R_PCSG, pod_display_name, status_action
from .controller.podclique.components.pod.syncflow import sync_pods
from .controller.podcliqueset.components.podclique import patch_podclique
from . import names as N
from . import objects as O
from . import update_common as U
from .policy import Policy
from .controller.podclique.reconcilespec import init_or_reset_pclq_update, should_reset_or_trigger_pclq_update
from .spec import PCS


def create_or_update_pcsg_pclqs(pcs: PCS, pcsg: Obj, world: World) -> list[Action]:
    """Under OnDelete the scaling-group controller patches its existing member
    PodCliques in place (spec and hash label from the template, replicas kept)
    instead of only creating missing ones.
    Upstream: ``podcliquescalinggroup/components/podclique/sync.go`` ``createOrUpdatePCLQs``."""
    g = U.group_of_pcsg(pcs, pcsg)
    if g is None:
        return []
    i = U.pcs_replica_of(pcsg)
    reps = U.int_field(pcsg.spec.get("replicas"), g.replicas)
    acts = []
    for m in U.pclqs_of_pcsg(world, pcsg):
        j = U.pcsg_replica_of(m)
        c = U.clique_of(pcs, m)
        if m.terminating or c is None or j < 0 or j >= reps:
            continue
        raw = O.build_member_pclq(pcs, i, g, j, c)
        a = patch_podclique(m, raw, f"{R_PCSG}/components/podclique/sync.go#createOrUpdatePCLQs", index=j)
        if a is not None:
            acts.append(a)
    return acts


def process_pcsg_update_ondelete(pcs: PCS, pcsg: Obj, world: World, pcs_status: Mapping[str, Any]) -> list[Action]:
    """Every scaling group records the new PodCliqueSet hash with its update ended at
    once, so gang termination stays armed.
    Upstream: ``podcliquescalinggroup/reconcilespec.go`` ``processUpdate`` (OnDelete branch)."""
    gen = pcs_status.get("currentGenerationHash")
    if not gen:
        return []
    up = U.update_progress(pcsg)
    if up is not None and up.get("podCliqueSetGenerationHash") == gen:
        return []
    now = U.stamp(world)
    return [status_action(pcsg, {"updateProgress": {"updateStartedAt": now, "updateEndedAt": now,
                                                    "podCliqueSetGenerationHash": gen}, "updatedReplicas": 0},
                          "OnDelete: update recorded and ended at once", f"{U.R_PCSG_SPEC}#initOrResetUpdate")]


def process_pclq_update_ondelete(pcs: PCS, pclq: Obj, world: World, pcs_status: Mapping[str, Any]) -> list[Action]:
    """Every PodClique (standalone or scaling-group member) records the new target hash
    with its update ended at once. Upstream: ``podclique/reconcilespec.go`` ``processUpdate``
    (OnDelete branch)."""
    if should_reset_or_trigger_pclq_update(pcs_status, pclq):
        return [init_or_reset_pclq_update(pcs, pclq, world, pcs_status)]
    return []


class OnDelete(Policy):
    """``spec.updateStrategy.type: OnDelete``."""

    name = "OnDelete"

    def pcsg_pass(self, pcs: PCS, pcsg: Obj, world: World) -> list[Action]:
        pcs_status = U.live_pcs_status(pcs, world)
        return process_pcsg_update_ondelete(pcs, pcsg, world, pcs_status) + create_or_update_pcsg_pclqs(pcs, pcsg, world)

    def pclq_pass(self, pcs: PCS, pclq: Obj, world: World) -> list[Action]:
        pcs_status = U.live_pcs_status(pcs, world)
        acts = process_pclq_update_ondelete(pcs, pclq, world, pcs_status)
        if acts:
            world = world.apply(acts)
            pclq = world.get(pclq.kind, pclq.namespace, pclq.name) or pclq
        return acts + sync_pods(pclq, world)

    def pclq_selection(self, status: Mapping[str, Any]) -> tuple[Any, frozenset]:
        """Both passes read the PodCliqueSet status (``processUpdate``'s OnDelete
        branch); upstream's ``podCliqueSetPredicate`` enqueues every PodClique on any
        PodCliqueSet update with an update progress under a non-auto strategy."""
        return (dict(status), frozenset())

    pcsg_selection = pclq_selection

    def warnings(self, pcs: PCS, world: World) -> list[Warning]:
        return outdated_pod_warnings(pcs, world)


def outdated_pod_warnings(pcs: PCS, world: World) -> list[Warning]:
    """Pods still on an old template when the plan ends: under OnDelete they keep it
    until they are deleted (by a user, eviction or node loss); a deleted pod comes back
    with the new template on its own, even inside a scaling group (e2e OD-5)."""
    by_pclq: dict[str, list[tuple[int, str]]] = {}
    for pclq in world.index("PodClique", N.L_PART_OF).get(pcs.name, ()):
        target = U.expected_pod_template_hash(pcs, pclq)
        for p in U.pods_of(world, pclq):
            if O.pod_active(p) and U.pod_outdated(p, target):
                shown = pod_display_name(p)
                label = f"pod {O.pod_index(p)}" if shown.endswith("<random>") else shown
                by_pclq.setdefault(pclq.name, []).append((O.pod_index(p) or 0, label))
    if not by_pclq:
        return []
    n = sum(len(v) for v in by_pclq.values())
    detail = "; ".join(f"{k}: {', '.join(lbl for _i, lbl in sorted(v))}" for k, v in sorted(by_pclq.items()))
    return [Warning("OnDeletePodsOutdated",
                    f"{n} pod{'s' if n != 1 else ''} keep the old template until deleted "
                    f"(OnDelete, GREP-291): {detail}. Delete them one at a time (`kubectl delete pod NAME`) "
                    "to move them to the new template.", "spec.updateStrategy.type")]

