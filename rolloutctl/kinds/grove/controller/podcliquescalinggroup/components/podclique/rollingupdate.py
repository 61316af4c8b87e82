"""The PodCliqueScalingGroup controller's rolling update: delete and recreate whole
scaling-group replicas, lowest index first, guarded by ``availableReplicas`` (and the
PR #817 ``maxUnavailable`` budget). Upstream (ai-dynamo/grove @ fcc3b3bb):
``operator/internal/controller/podcliquescalinggroup/components/podclique/rollingupdate.go``
(``processPendingUpdates``, ``computePendingUpdateWork``,
``deleteOldPendingAndUnavailableReplicas``, ``isCurrentReplicaUpdateComplete``,
``markRollingUpdateEnd``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .......core.model import Action, Obj
from .......core.world import World
from ....common import delete_action, status_action
from ..... import names as N
from ..... import update_common as U
from .....spec import PCS


def _members_by_replica(world: World, pcsg: Obj) -> dict[int, list[Obj]]:
    out: dict[int, list[Obj]] = {}
    for m in U.pclqs_of_pcsg(world, pcsg):
        out.setdefault(U.pcsg_replica_of(m), []).append(m)
    return out


def compute_pcsg_update_work(pcs: PCS, pcsg: Obj, members: Mapping[int, list[Obj]]) -> dict[str, list[int]]:
    """Old scaling-group replicas by state (pending, unavailable, ready), skipping the
    selected replica and updated ones, and, once a replica has been selected, replicas
    that are gone or whose member PodCliques are all terminating. Before the first
    selection nothing is skipped as deleted (``isReplicaDeletedOrMarkedForDeletion``
    answers false while ``readyReplicaIndicesSelectedToUpdate`` is unset): an old
    replica whose members are terminating but still Ready counts as ready and can be
    selected, and the update then waits for it to come back.
    Upstream: ``podcliquescalinggroup/components/podclique/rollingupdate.go``
    ``computePendingUpdateWork``, ``isReplicaDeletedOrMarkedForDeletion``, ``isReplicaUpdated``,
    ``getReplicaState``."""
    up = U.update_progress(pcsg) or {}
    sel = up.get("readyReplicaIndicesSelectedToUpdate")
    selected = U.int_field(sel.get("current"), -1) if isinstance(sel, Mapping) else None
    work: dict[str, list[int]] = {U.PENDING: [], U.UNAVAILABLE: [], U.READY: []}
    for j in range(U.int_field(pcsg.spec.get("replicas"), 0)):
        pclqs = members.get(j, [])
        if selected is not None and (not pclqs or all(p.terminating for p in pclqs)):
            continue
        if selected is not None and selected == j:
            continue
        if U.is_pcsg_replica_updated(pcs, pclqs):
            continue
        work[U.pcsg_replica_state(pclqs)].append(j)
    return work


def _delete_pcsg_replica(pcsg: Obj, j: int, members: Sequence[Obj], reason: str, rule: str) -> list[Action]:
    """Delete every member PodClique of scaling-group replica ``j`` (upstream deletes
    them with one DeleteAllOf on the scaling-group and replica-index labels; their
    pods go with them). Upstream: ``podcliquescalinggroup/components/podclique`` ``createDeleteTasks``."""
    out = []
    for m in sorted(members, key=lambda m: m.name):
        if m.terminating:
            continue
        a = delete_action(m, reason, rule, index=j, revision="old",
                          role="base-gang" if N.L_BASE_PODGANG not in m.labels else "scaled-gang")
        out.append(Action(a.verb, a.kind, a.name, a.namespace, a.reason, a.rule, a.index, a.revision, a.role,
                          fields={"podCliqueScalingGroup": pcsg.name, "replicaIndex": j}))
    return out


def is_current_pcsg_replica_update_complete(pcs: PCS, pcsg: Obj, members: Mapping[int, list[Obj]],
                                            gen: str | None) -> bool:
    """The selected replica's member PodCliques all exist again with the new hashes and
    ``minAvailable`` updated, Ready pods.
    Upstream: ``rollingupdate.go`` ``isCurrentReplicaUpdateComplete``."""
    up = U.update_progress(pcsg) or {}
    sel = up.get("readyReplicaIndicesSelectedToUpdate") or {}
    j = U.int_field(sel.get("current"), -1)
    have = members.get(j, [])
    if len(have) != len(pcsg.spec.get("cliqueNames") or []):
        return False
    return all(U.is_pcsg_member_converged(pcs, p, gen) for p in have)


def process_pending_pcsg_updates(pcs: PCS, pcsg: Obj, world: World, gen: str | None) -> list[Action]:
    """One reconcile of a scaling group's rolling update: delete every pending or
    unavailable old replica at once (no budget, issue #765); wait while the selected
    replica is not complete; else, unless ``availableReplicas < minAvailable``, select
    the lowest-index old ready replica and delete all its member PodCliques; with none
    left, end the update. With ``rollingUpdate`` set (PR #817) a ``maxUnavailable``
    budget decides instead.
    Upstream: ``podcliquescalinggroup/components/podclique/rollingupdate.go``
    ``processPendingUpdates``, ``deleteOldPendingAndUnavailableReplicas``,
    ``updatePCSGStatusWithNextReplicaToUpdate``, ``markRollingUpdateEnd``."""
    g = U.group_of_pcsg(pcs, pcsg)
    if g is not None and U.rolling_update_config(pcs, g):
        return process_pcsg_updates_with_budget(pcs, pcsg, world, gen, U.rolling_update_config(pcs, g))
    rule = f"{U.R_PCSG_RU}#processPendingUpdates"
    members = _members_by_replica(world, pcsg)
    work = compute_pcsg_update_work(pcs, pcsg, members)
    acts: list[Action] = []
    for state in (U.PENDING, U.UNAVAILABLE):
        for j in work[state]:
            acts += _delete_pcsg_replica(
                pcsg, j, members.get(j, []),
                f"scaling-group replica {j} is {state} on the old template: deleted at once, without waiting "
                "(upstream issue #765)", f"{U.R_PCSG_RU}#deleteOldPendingAndUnavailableReplicas")
    up = dict(U.update_progress(pcsg) or {})
    sel = up.get("readyReplicaIndicesSelectedToUpdate")
    if isinstance(sel, Mapping) and not is_current_pcsg_replica_update_complete(pcs, pcsg, members, gen):
        return acts
    if work[U.READY]:
        avail = U.status_int(pcsg, "availableReplicas")
        ma = U.int_field(pcsg.spec.get("minAvailable"), 1)
        if avail < ma:
            return acts
        j = work[U.READY][0]
        if isinstance(sel, Mapping):
            new_sel = {"current": j, "completed": list(sel.get("completed") or []) + [sel.get("current")]}
        else:
            new_sel = {"current": j}
        up["readyReplicaIndicesSelectedToUpdate"] = new_sel
        acts.append(status_action(pcsg, {"updateProgress": up}, f"scaling-group replica {j} selected for update",
                                  f"{U.R_PCSG_RU}#updatePCSGStatusWithNextReplicaToUpdate"))
        left = len(work[U.READY]) - 1
        acts += _delete_pcsg_replica(
            pcsg, j, members.get(j, []),
            f"scaling-group replica {j} recreated whole with the new template (lowest index first; "
            f"{left} more old ready replica{'s' if left != 1 else ''} after it)", rule)
        return acts
    up["updateEndedAt"] = U.stamp(world)
    up.pop("readyReplicaIndicesSelectedToUpdate", None)
    acts.append(status_action(pcsg, {"updateProgress": up}, "no old scaling-group replica left: update ended",
                              f"{U.R_PCSG_RU}#markRollingUpdateEnd"))
    return acts


def process_pcsg_updates_with_budget(pcs: PCS, pcsg: Obj, world: World, gen: str | None,
                                     ru: Mapping[str, Any] | None) -> list[Action]:
    """PR #817 (newer than the snapshot): at most ``maxUnavailable`` scaling-group
    replicas unavailable while the group rolls, pending and unavailable old replicas
    included (which is why issue #840 stalls); old replicas are deleted non-ready
    first, then lowest index; the update ends only when no old replica is left and
    every replica is updated and available. The budget formula is an assumption (PR
    #740's ``rollingupdatebudget.go``), see ``update_common.pcsg_unavailable``."""
    limit = U.max_unavailable(ru) or 1
    members = _members_by_replica(world, pcsg)
    # (model: a replica whose members are all terminating is already being recreated)
    work = {state: [j for j in js if not all(p.terminating for p in members.get(j, []))]
            for state, js in compute_pcsg_update_work(pcs, pcsg, members).items()}
    unavailable = U.pcsg_unavailable(pcsg)
    acts: list[Action] = []
    rule = "grove:operator/internal/controller/podcliquescalinggroup/components/podclique/rollingupdate.go#processPendingUpdates (PR #817)"
    for state in (U.PENDING, U.UNAVAILABLE, U.READY):
        for j in work[state]:
            if unavailable >= limit:
                break
            acts += _delete_pcsg_replica(
                pcsg, j, members.get(j, []),
                f"scaling-group replica {j} ({state}) recreated with the new template within maxUnavailable {limit}",
                rule)
            if state == U.READY:
                unavailable += 1
    old_left = any(work.values())
    reps = U.int_field(pcsg.spec.get("replicas"), 0)
    if not old_left and not acts and U.status_int(pcsg, "updatedReplicas") >= reps:
        up = dict(U.update_progress(pcsg) or {})
        up["updateEndedAt"] = U.stamp(world)
        acts.append(status_action(pcsg, {"updateProgress": up},
                                  "every scaling-group replica updated and available: update ended", rule))
    return acts
