"""RollingRecreate, Grove's default update strategy, as the operator performs it.

- PodCliqueSet controller: one PodCliqueSet replica at a time, chosen by
  ``orderPCSReplicaInfo`` (``orchestrate_rolling_update``).
- Inside the selected replica every standalone PodClique and every scaling group
  update at the same time:
  - a standalone PodClique replaces its old pods one by one (non-ready ones at once,
    Ready ones oldest first, guarded by ``minAvailable``), delete first, then the
    replica sync recreates the pod on the lowest free index
    (``process_pending_pod_updates``);
  - a scaling group deletes and recreates whole scaling-group replicas, lowest index
    first, guarded by ``availableReplicas`` (``process_pending_pcsg_updates``).
- Components that set ``rollingUpdate`` (PR #817, newer than the snapshot) follow a
  ``maxUnavailable`` budget instead, and their update ends only when the desired
  replacements are Ready.

Every function names the upstream function it models; paths are relative to
``ai-dynamo/grove`` at the snapshot in the reference digest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...core.environment import Environment
from ...core.model import (STUCK_PROGRESS_DEADLINE, Action, Obj, ObjectRef, Stuck, Warning, describe_actions)
from ...core.world import World, mark_terminating
from .controller.common import delete_action, pod_display_name
from .controller.podclique.components.pod.syncflow import sync_pods
from . import gang_terminate as GT
from . import names as N
from . import objects as O
from . import update_common as U
from .diagnose import diagnose as generic
from .policy import Policy
from .spec import PCS


def _status(o: Obj, fields: Mapping[str, Any], reason: str, rule: str, *, hidden: bool = True,
            index: int | None = None) -> Action:
    return Action(verb="status", kind=o.kind, name=o.name, namespace=o.namespace, reason=reason, rule=rule,
                  fields=dict(fields), hidden=hidden, index=index)


# ============================================================================ PodCliqueSet level


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
    infos = U.pcs_replica_infos(pcs, world, gen, skip=skip)
    cur_info = next((i for i in infos if i.index == cur), None) if cur is not None else None
    pending = [i for i in infos if i.index != cur and not i.done]
    up: dict[str, Any] = dict(status.get("updateProgress") or {})
    acts: list[Action] = []
    now = U.stamp(world)
    if cur_info is not None:
        if not cur_info.done:
            return []
        entry = dict(up["currentlyUpdating"][0])
        entry["updateEndedAt"] = now
        up["currentlyUpdating"] = [entry]
        acts.append(_status(live, {"updateProgress": dict(up)},
                            f"replica {cur} is updated: its standalone PodCliques and scaling groups run the new template",
                            f"{U.R_PCS_RU}#updatePCSWithReplicaUpdateProgress", hidden=False, index=cur))
    breached = sorted(gang.breached) if gang is not None else GT.min_available_breached_replicas(pcs, world)
    ordered = U.order_pcs_replica_info(pcs, pending, breached)
    if ordered:
        nxt = ordered[0]
        if U.num_scheduled_pods(pcs, nxt) == 0:
            why = "it has no scheduled pod, so it goes first"
        elif nxt.index in breached:
            why = "it has a PodClique or scaling group below minAvailable, so it goes before healthy replicas"
        else:
            why = "lowest index among the replicas still on the old template"
        up["currentlyUpdating"] = [{"replicaIndex": nxt.index, "updateStartedAt": now}]
        acts.append(_status(live, {"updateProgress": dict(up)}, f"replica {nxt.index} selected for update: {why}",
                            f"{U.R_PCS_RU}#orderPCSReplicaInfo", hidden=False, index=nxt.index))
    else:
        up.pop("currentlyUpdating", None)
        up["updateEndedAt"] = now
        acts.append(_status(live, {"updateProgress": up}, "no replica left on the old template: the update ends",
                            f"{U.R_PCS_RU}#updatePCSWithNextSelectedReplica", hidden=False))
    return acts


# ============================================================================ PodCliqueScalingGroup level


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
    return [_status(pcsg, {"updateProgress": up, "updatedReplicas": 0},
                    "scaling group starts its update for the new PodCliqueSet hash",
                    f"{U.R_PCSG_SPEC}#initOrResetUpdate")]


def _members_by_replica(world: World, pcsg: Obj) -> dict[int, list[Obj]]:
    out: dict[int, list[Obj]] = {}
    for m in U.pclqs_of_pcsg(world, pcsg):
        out.setdefault(U.pcsg_replica_of(m), []).append(m)
    return out


def compute_pcsg_update_work(pcs: PCS, pcsg: Obj, members: Mapping[int, list[Obj]]) -> dict[str, list[int]]:
    """Old scaling-group replicas by state (pending, unavailable, ready), skipping the
    selected replica, replicas already deleted, and updated ones.
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
        if all(p.terminating for p in pclqs) and pclqs:
            continue  # deletion already triggered (model: the delete is not repeated)
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
        acts.append(_status(pcsg, {"updateProgress": up}, f"scaling-group replica {j} selected for update",
                            f"{U.R_PCSG_RU}#updatePCSGStatusWithNextReplicaToUpdate"))
        left = len(work[U.READY]) - 1
        acts += _delete_pcsg_replica(
            pcsg, j, members.get(j, []),
            f"scaling-group replica {j} recreated whole with the new template (lowest index first; "
            f"{left} more old ready replica{'s' if left != 1 else ''} after it)", rule)
        return acts
    up["updateEndedAt"] = U.stamp(world)
    up.pop("readyReplicaIndicesSelectedToUpdate", None)
    acts.append(_status(pcsg, {"updateProgress": up}, "no old scaling-group replica left: update ended",
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
    work = compute_pcsg_update_work(pcs, pcsg, members)
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
        acts.append(_status(pcsg, {"updateProgress": up}, "every scaling-group replica updated and available: update ended",
                            rule))
    return acts


# ============================================================================ PodClique level


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
    return _status(pclq, {"updateProgress": up, "updatedReplicas": 0},
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


def _pod_delete(pod: Obj, reason: str, rule: str) -> Action:
    return delete_action(pod, reason, rule, index=O.pod_index(pod), revision="old", name=pod_display_name(pod))


def process_pending_pod_updates(pcs: PCS, pclq: Obj, world: World, pods: Sequence[Obj] | None = None) -> list[Action]:
    """One reconcile of a standalone PodClique's rolling update: delete every old pod
    that is not Ready at once (pending, unhealthy, starting; a Ready pod with a past
    crash counts as unhealthy, issue #697); wait while the selected pod's replacement
    is not Ready; else, unless ``readyReplicas < minAvailable``, select the oldest
    Ready old pod and delete it (the replica sync recreates it on the lowest free
    index); with no old pod left, end the update even if replacements are not Ready
    yet (issue #786). With ``rollingUpdate`` set (PR #817) a budget decides instead.
    Upstream: ``operator/internal/controller/podclique/components/pod/rollingupdate.go``
    ``processPendingUpdates``, ``computeUpdateWork``, ``deleteOldNonReadyPods``,
    ``isCurrentPodUpdateComplete``, ``getNextPodToUpdate``, ``markRollingUpdateEnd``."""
    c = U.clique_of(pcs, pclq)
    pods = list(pods) if pods is not None else U.pods_of(world, pclq)
    if c is not None and U.rolling_update_config(pcs, c):
        return process_pod_updates_with_budget(pcs, pclq, world, U.rolling_update_config(pcs, c), pods)
    target = U.expected_pod_template_hash(pcs, pclq)
    old_by_class: dict[str, list[Obj]] = {}
    new_ready = 0
    for p in pods:
        if U.pod_outdated(p, target):
            if p.terminating:
                continue
            old_by_class.setdefault(U.classify_old_pod(p), []).append(p)
        elif O.pod_ready(p):
            new_ready += 1
    acts: list[Action] = []
    for cls in (U.PENDING_POD, U.UNHEALTHY_POD, U.STARTING_POD, U.OTHER_POD):
        for p in sorted(old_by_class.get(cls, []), key=U.created_key):
            why = {U.PENDING_POD: "is Pending", U.STARTING_POD: "has not started",
                   U.OTHER_POD: "is in no known state"}.get(cls)
            if cls == U.UNHEALTHY_POD:
                why = ("is Ready but once exited with a non-zero code (counted as unhealthy, upstream issue #697)"
                       if O.pod_ready(p) else "is started but not Ready")
            acts.append(_pod_delete(p, f"old-template pod {why}: deleted at once, without waiting",
                                    f"{U.R_PCLQ_RU}#deleteOldNonReadyPods"))
    up = dict(U.update_progress(pclq) or {})
    sel = up.get("readyPodsSelectedToUpdate")
    if isinstance(sel, Mapping) and sel.get("current"):
        selected = world.get("Pod", pclq.namespace, str(sel["current"]))
        complete = (selected is None or selected.terminating) and new_ready >= len(sel.get("completed") or []) + 1
        if not complete:
            return acts
    ready_old = sorted(old_by_class.get(U.READY_POD, []), key=U.created_key)
    if ready_old:
        if U.status_int(pclq, "readyReplicas") < U.min_available(pclq):
            return acts
        nxt = ready_old[0]
        if isinstance(sel, Mapping) and sel.get("current"):
            new_sel = {"current": nxt.name, "completed": list(sel.get("completed") or []) + [sel["current"]]}
        else:
            new_sel = {"current": nxt.name}
        up["readyPodsSelectedToUpdate"] = new_sel
        acts.append(_status(pclq, {"updateProgress": dict(up)}, f"pod {nxt.name} selected for update",
                            f"{U.R_PCLQ_RU}#updatePCLQStatusWithNextPodToUpdate"))
        left = len(ready_old) - 1
        acts.append(_pod_delete(nxt, f"oldest Ready pod on the old template, replaced one at a time "
                                     f"({left} more after it)", f"{U.R_PCLQ_RU}#processPendingUpdates"))
        return acts
    up["updateEndedAt"] = U.stamp(world)
    up.pop("readyPodsSelectedToUpdate", None)
    acts.append(_status(pclq, {"updateProgress": up}, "no old pod left: PodClique update ended",
                        f"{U.R_PCLQ_RU}#markRollingUpdateEnd"))
    return acts


def process_pod_updates_with_budget(pcs: PCS, pclq: Obj, world: World, ru: Mapping[str, Any] | None,
                                    pods: Sequence[Obj]) -> list[Action]:
    """PR #817 (newer than the snapshot): old pods are deleted while fewer than
    ``maxUnavailable`` pods are unavailable (non-ready old pods first, then the oldest
    Ready ones); the update ends only when no old pod is left and ``spec.replicas``
    new pods are Ready. The budget formula is an assumption (PR #740), see
    ``update_common.pclq_unavailable``."""
    limit = U.max_unavailable(ru) or 1
    target = U.expected_pod_template_hash(pcs, pclq)
    old = [p for p in pods if U.pod_outdated(p, target)]
    candidates = sorted((p for p in old if not p.terminating), key=lambda p: (O.pod_ready(p), U.created_key(p)))
    new_ready = sum(1 for p in pods if not U.pod_outdated(p, target) and O.pod_ready(p))
    unavailable = U.pclq_unavailable(pclq, pods)
    rule = "grove:operator/internal/controller/podclique/components/pod/rollingupdate.go#processPendingUpdates (PR #817)"
    acts: list[Action] = []
    for p in candidates:
        if unavailable >= limit:
            break
        acts.append(_pod_delete(p, f"old-template pod replaced within maxUnavailable {limit} "
                                   f"({unavailable} unavailable before it)", rule))
        if O.pod_ready(p):
            unavailable += 1
    if not old and new_ready >= U.int_field(pclq.spec.get("replicas"), 0):
        up = dict(U.update_progress(pclq) or {})
        up["updateEndedAt"] = U.stamp(world)
        acts.append(_status(pclq, {"updateProgress": up}, "no old pod left and every new pod Ready: update ended", rule))
    return acts


# ============================================================================ the policy


class RollingRecreate(Policy):
    """``spec.updateStrategy.type: RollingRecreate`` (also the default)."""

    name = "RollingRecreate"

    def pcs_pass(self, pcs: PCS, world: World, status: Mapping[str, Any], gang: Any = None) -> list[Action]:
        return orchestrate_rolling_update(pcs, world, status, gang)

    def pcsg_pass(self, pcs: PCS, pcsg: Obj, world: World) -> list[Action]:
        pcs_status = U.live_pcs_status(pcs, world)
        acts = process_pcsg_update(pcs, pcsg, world, pcs_status)
        if acts:
            world = world.apply(acts)
            pcsg = world.get(pcsg.kind, pcsg.namespace, pcsg.name) or pcsg
        if U.is_update_in_progress(pcsg):
            acts += process_pending_pcsg_updates(pcs, pcsg, world, pcs_status.get("currentGenerationHash"))
        return acts

    def pclq_pass(self, pcs: PCS, pclq: Obj, world: World) -> list[Action]:
        pcs_status = U.live_pcs_status(pcs, world)
        acts = process_pclq_update(pcs, pclq, world, pcs_status)
        if acts:
            world = world.apply(acts)
            pclq = world.get(pclq.kind, pclq.namespace, pclq.name) or pclq
        sync = sync_pods(pclq, world)
        acts += sync
        if U.is_update_in_progress(pclq):
            # the pods this pass deleted count as terminating (their delete expectations
            # are recorded); no need to rebuild the world for that
            gone = {a.uid or a.name for a in sync if a.verb == "delete"}
            pods = [mark_terminating(p) if p.name in gone else p for p in U.pods_of(world, pclq)]
            acts += process_pending_pod_updates(pcs, pclq, world, pods)
        return acts

    def pclq_selection(self, status: Mapping[str, Any]) -> tuple[Any, frozenset]:
        """``pclq_pass`` reads the PodCliqueSet status only through the generation
        hash, whether an update is recorded or ended, and whether its replica is the
        one being updated."""
        up = status.get("updateProgress")
        cur = U.currently_updating(status)
        return ((status.get("currentGenerationHash"), isinstance(up, Mapping),
                 bool(up.get("updateEndedAt")) if isinstance(up, Mapping) else None),
                frozenset(() if cur is None else (cur,)))

    def pcsg_selection(self, status: Mapping[str, Any]) -> tuple[Any, frozenset]:
        """``pcsg_pass`` reads the PodCliqueSet status through the generation hash and
        whether its replica is the one being updated (upstream ``mapPCSToPCSG``)."""
        cur = U.currently_updating(status)
        return ((status.get("currentGenerationHash"),), frozenset(() if cur is None else (cur,)))

    def pcsg_requeue(self, pcs: PCS, pcsg: Obj, world: World) -> bool:
        return U.is_update_in_progress(pcsg)

    def pclq_requeue(self, pcs: PCS, pclq: Obj, world: World) -> bool:
        # a rolling PodClique also reads the pod it selected: it runs every round
        return U.is_update_in_progress(pclq)

    def converged(self, pcs: PCS, world: World) -> bool:
        live = world.get("PodCliqueSet", pcs.namespace, pcs.name)
        if live is None:
            return True
        st = live.status
        if st.get("currentGenerationHash") != pcs.generation_hash:
            return False
        if U.pcs_update_in_progress(pcs, st):
            return False
        for kind in ("PodClique", "PodCliqueScalingGroup"):
            for o in world.index(kind, N.L_PART_OF).get(pcs.name, ()):
                if U.is_update_in_progress(o):
                    return False
        return True

    def diagnose(self, pcs: PCS, world: World, env: Environment) -> Stuck | None:
        return diagnose_update(pcs, world, env)

    def warnings(self, pcs: PCS, world: World) -> list[Warning]:
        return []

    def counts(self, pcs: PCS, world: World) -> Mapping[str, Any]:
        live = world.get("PodCliqueSet", pcs.namespace, pcs.name)
        if live is None:
            return {}
        cur = U.currently_updating(live.status)
        return {"updatingReplica": cur} if cur is not None else {}

    def title(self, actions: Sequence[Action], world: World) -> str | None:
        return update_title(actions)


def update_title(actions: Sequence[Action]) -> str | None:
    """A title a person reads for a step of a rolling update."""
    sel = [a for a in actions if a.verb == "status" and a.kind == "PodCliqueSet" and "selected" in a.reason]
    end = [a for a in actions if a.verb == "status" and a.kind == "PodCliqueSet" and "update ends" in a.reason]
    start = [a for a in actions if a.verb == "status" and a.kind == "PodCliqueSet" and "changed" in a.reason]
    rest = [a for a in actions if a.verb != "status" or a.kind != "PodCliqueSet"]
    if not (sel or end or start or any(a.revision == "old" and a.verb == "delete" for a in actions)):
        return None
    parts = []
    if start:
        parts.append("template change detected: " + ("update restarts" if "again" in start[0].reason
                                                      else "update starts"))
    if sel:
        parts.append(f"replica {sel[-1].index} selected for update")
    if end:
        parts.append("update complete")
    if rest:
        pod_dels = [a for a in rest if a.kind == "Pod" and a.verb == "delete" and a.revision == "old"]
        pclq_dels = [a for a in rest if a.kind == "PodClique" and a.verb == "delete" and a.revision == "old"]
        if pod_dels or pclq_dels:
            bits = []
            if pod_dels:
                bits.append(f"{len(pod_dels)} old pod{'s' if len(pod_dels) != 1 else ''}")
            if pclq_dels:
                reps = sorted({(str(a.fields.get("podCliqueScalingGroup", a.name)), a.index) for a in pclq_dels})
                bits.append(", ".join(f"scaling-group replica {g}/{j}" for g, j in reps))
            parts.append("replace " + " and ".join(bits))
            others = [a for a in rest if a not in pod_dels and a not in pclq_dels]
            if others:
                parts.append(describe_actions(others))
        else:
            parts.append(describe_actions(rest))
    return "; ".join(parts) if parts else None


# ============================================================================ stuck


def rolling_components(pcs: PCS, world: World) -> list[Obj]:
    """PodCliques and scaling groups whose update is active."""
    out = []
    for kind in ("PodCliqueScalingGroup", "PodClique"):
        for o in world.index(kind, N.L_PART_OF).get(pcs.name, ()):
            if U.is_update_in_progress(o) and not o.terminating:
                out.append(o)
    return out


def _component_config(pcs: PCS, o: Obj) -> Mapping[str, Any] | None:
    if o.kind == "PodCliqueScalingGroup":
        g = U.group_of_pcsg(pcs, o)
        return U.rolling_update_config(pcs, g) if g is not None else None
    c = U.clique_of(pcs, o)
    return U.rolling_update_config(pcs, c) if c is not None and U.is_standalone_pclq(o) else None


def diagnose_update(pcs: PCS, world: World, env: Environment) -> Stuck | None:
    """Why a rolling update cannot move, naming the component that waits. The
    underlying cause comes from the model's generic diagnosis (capacity, never-ready,
    gated gang). When a waiting component sets ``rollingUpdate.progressDeadline``
    (PR #817), its ``UpdateInProgress`` condition would turn Unknown with reason
    ``ProgressDeadlineExceeded``: the model is untimed, so it reports that only for a
    wait that can never end (whatever the deadline's length)."""
    live = world.get("PodCliqueSet", pcs.namespace, pcs.name)
    if live is None or not U.pcs_update_in_progress(pcs, live.status):
        return None
    base = generic(pcs, world, env)
    cur = U.currently_updating(live.status)
    waiting = [o for o in rolling_components(pcs, world) if cur is None or U.pcs_replica_of(o) == cur]
    if not waiting:
        return None
    descr = []
    for o in waiting:
        if o.kind == "PodClique":
            ready, ma = U.status_int(o, "readyReplicas"), U.min_available(o)
            guard = f" (readyReplicas {ready} < minAvailable {ma}, so no further pod is replaced)" if ready < ma else ""
            descr.append(f"PodClique {o.name} waits for its replacement pods to become Ready{guard}")
        else:
            avail, ma = U.status_int(o, "availableReplicas"), U.int_field(o.spec.get("minAvailable"), 1)
            guard = f" (availableReplicas {avail} < minAvailable {ma})" if avail < ma else ""
            descr.append(f"PodCliqueScalingGroup {o.name} waits for its recreated replica to become available{guard}")
    where = f"replica {cur}: " if cur is not None else ""
    msg = f"rolling update of {where}" + "; ".join(descr) + f" — {base.message}"
    blocked = tuple(sorted(set(base.blocked_on) | {o.ref for o in waiting}))
    with_deadline = [o for o in waiting if U.progress_deadline(_component_config(pcs, o))]
    if with_deadline:
        names = ", ".join(f"{o.kind} {o.name} (progressDeadline {U.progress_deadline(_component_config(pcs, o))})"
                          for o in with_deadline)
        return Stuck(STUCK_PROGRESS_DEADLINE,
                     f"{names}: no progress is possible, so the deadline passes and UpdateInProgress turns Unknown "
                     f"with reason ProgressDeadlineExceeded (PR #817) — {msg}", blocked, base.remedies)
    return Stuck(base.reason, msg, blocked, base.remedies + (
        "fix the new template and apply again (the update restarts)",))

