"""Status bookkeeping of the three Grove controllers (their ``reconcileStatus``).

Each function computes the status fields the controller writes from the objects
below it and returns a hidden ``status`` action when they changed: the write is
applied to the world (later decisions read it) but not shown as a plan action.
Fields the function does not own (``updateProgress`` written by the spec passes,
``observedGeneration`` of live objects) are left as they are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...core.model import Action, Obj
from ...core.queue import EVERY_KEY, Round
from ...core.overlay import Overlay
from ...core.world import World
from .controller.common import by_names
from . import gang_terminate as GT
from . import names as N
from . import register as R
from . import objects as O
from . import update_common as U
from . import replica_index as RI
from .controller.podcliqueset.components.podcliquesetreplica import rollingupdate as PCSR
from .spec import PCS
from . import summary as SUM
from ...core.records import record

R_PCLQ_ST = f"{U.RULE_ROOT}/podclique/reconcilestatus.go"
R_PCSG_ST = f"{U.RULE_ROOT}/podcliquescalinggroup/reconcilestatus.go"
R_PCS_ST = f"{U.RULE_ROOT}/podcliqueset/reconcilestatus.go"


def _status_action(o: Obj, fields: Mapping[str, Any], reason: str, rule: str) -> Action | None:
    """A hidden status write of ``fields`` when any of them differs from ``o``."""
    changed = {k: v for k, v in fields.items() if o.status.get(k) != v}
    if not changed:
        return None
    return Action(verb="status", kind=o.kind, name=o.name, namespace=o.namespace, reason=reason, rule=rule,
                  fields=changed, hidden=True)


def _condition(o: Obj, ctype: str, status: str, reason: str, now: str | None = None) -> dict[str, Any]:
    """A condition, keeping the observed one when type/status/reason are unchanged. A
    status that changes records ``lastTransitionTime`` (``now``; the first write of a
    condition carries none), which ``gang_terminate.was_pclq_ever_scheduled`` reads.
    Upstream: ``meta.SetStatusCondition``."""
    prev = None
    for c in o.status.get("conditions") or []:
        if isinstance(c, Mapping) and c.get("type") == ctype:
            if c.get("status") == status and c.get("reason") == reason:
                return dict(c)
            prev = c
    out: dict[str, Any] = {"type": ctype, "status": status, "reason": reason}
    if prev is not None:
        if prev.get("status") == status:
            if prev.get("lastTransitionTime"):
                out["lastTransitionTime"] = prev["lastTransitionTime"]
        elif now is not None:
            out["lastTransitionTime"] = now
    return out


def _with_conditions(o: Obj, new: list[dict[str, Any]]) -> list[dict[str, Any]]:
    types = {c["type"] for c in new}
    kept = [dict(c) for c in o.status.get("conditions") or [] if isinstance(c, Mapping) and c.get("type") not in types]
    return sorted(kept + new, key=lambda c: str(c.get("type")))


# ----------------------------------------------------------------------------- PodClique


def breach_pod_counts(pods: Sequence[Obj]) -> tuple[int, int]:
    """Pods (terminating ones included) whose Ready condition is not True and that have
    a container that exited with a non-zero code, and those with a started, not Ready
    container. Upstream: ``internal/utils/kubernetes/pod.go`` ``CategorizePodsByConditionType``."""
    err = snr = 0
    for p in pods:
        if O.pod_ready_condition(p):
            continue
        if U.has_any_container_exited_erroneously(p):
            err += 1
        elif U.started_not_ready(p):
            snr += 1
    return err, snr


def compute_min_available_breached_condition(pclq: Obj, scheduled: int, ready: int, pods: Sequence[Obj],
                                             now: str | None = None) -> dict[str, Any]:
    """Unknown while the PodClique's own update runs; True when fewer than
    ``minAvailable`` pods are scheduled, or when the scheduled pods minus those with an
    erroring container and those started but not Ready are fewer (pods still starting
    count as available); else False.
    Upstream: ``podclique/reconcilestatus.go`` ``computeMinAvailableBreachedCondition``."""
    ma = U.min_available(pclq)
    if U.is_update_in_progress(pclq):
        return _condition(pclq, "MinAvailableBreached", "Unknown", "UpdateInProgress", now)
    if scheduled < ma:
        return _condition(pclq, "MinAvailableBreached", "True", "ScheduledReplicasBelowMinAvailable", now)
    if ready < ma:
        err, snr = breach_pod_counts(pods)
        if scheduled - err - snr < ma:
            return _condition(pclq, "MinAvailableBreached", "True", "InsufficientReadyPods", now)
    return _condition(pclq, "MinAvailableBreached", "False", "SufficientReadyPods", now)


def pclq_status(pcs: PCS, pclq: Obj, pods: list[Obj], generation_hash: str | None,
                counts: "SUM.PodSummary | None" = None, now: str | None = None) -> dict[str, Any]:
    """PodClique status from its pods: replica counts (``mutateReplicas``), updated
    pods (``mutateUpdatedReplica``), current hashes (``mutateCurrentHashes``) and the
    ``PodCliqueScheduled`` / ``MinAvailableBreached`` conditions.
    Upstream: ``operator/internal/controller/podclique/reconcilestatus.go``.
    ``counts``: the summary of exactly ``pods``, when the caller has it (the same
    numbers, counted once per pod group)."""
    # mutateReplicas: ``replicas`` leaves terminating pods out, the other counts do not
    # (a terminating pod stays Ready and scheduled for its grace period)
    if counts is not None:
        replicas, ready, scheduled, gated = counts.nt, counts.all_ready, counts.all_sched, counts.all_gated
    else:
        replicas = sum(1 for p in pods if not p.terminating)
        ready = sum(1 for p in pods if O.pod_ready_condition(p))
        scheduled = sum(1 for p in pods if O.pod_scheduled(p))
        gated = sum(1 for p in pods if not O.pod_scheduled(p) and O.pod_gated(p))
    st: dict[str, Any] = {"replicas": replicas, "readyReplicas": ready, "scheduledReplicas": scheduled,
                          "scheduleGatedReplicas": gated}
    target = U.pclq_target_hash(pclq)
    updated = U.status_int(pclq, "updatedReplicas")
    if target:
        updated = counts.hash_all.get(target, 0) if counts is not None else \
            sum(1 for p in pods if p.labels.get(N.L_TEMPLATE_HASH) == target)
    st["updatedReplicas"] = updated
    # mutateCurrentHashes
    cur_t = pclq.status.get("currentPodTemplateHash")
    cur_g = pclq.status.get("currentPodCliqueSetGenerationHash")
    if not U.is_update_in_progress(pclq) and updated == replicas:
        up = U.update_progress(pclq)
        if up is None:
            expected = U.expected_pod_template_hash(pcs, pclq)
            if expected and pclq.labels.get(N.L_TEMPLATE_HASH) == expected:
                cur_t, cur_g = expected, generation_hash
        elif up.get("updateEndedAt"):
            cur_t, cur_g = up.get("podTemplateHash"), up.get("podCliqueSetGenerationHash")
    if cur_t is not None:
        st["currentPodTemplateHash"] = cur_t
    if cur_g is not None:
        st["currentPodCliqueSetGenerationHash"] = cur_g
    ma = U.min_available(pclq)
    conds = [_condition(pclq, "PodCliqueScheduled", "True" if scheduled >= ma else "False",
                        "SufficientScheduledPods" if scheduled >= ma else "InsufficientScheduledPods", now),
             compute_min_available_breached_condition(pclq, scheduled, ready, pods, now)]
    st["conditions"] = _with_conditions(pclq, conds)
    return st


# ----------------------------------------------------------------------------- PodCliqueScalingGroup


def pcsg_status(pcs: PCS, pcsg: Obj, members: list[Obj], generation_hash: str | None,
                now: str | None = None) -> dict[str, Any]:
    """Scaling-group status from its member PodCliques: scheduled, available and
    updated replicas (``mutateReplicas`` / ``computeReplicaStatus``), the
    ``MinAvailableBreached`` condition and the current PodCliqueSet hash, which
    advances only when no member is pending update, no update is active and every
    expected member has converged (``mutateCurrentPodCliqueSetGenerationHash``).
    Upstream: ``operator/internal/controller/podcliquescalinggroup/reconcilestatus.go``."""
    reps = U.int_field(pcsg.spec.get("replicas"), 0)
    cliques = [str(c) for c in pcsg.spec.get("cliqueNames") or []]
    by_rep: dict[int, list[Obj]] = {}
    for m in members:
        by_rep.setdefault(U.pcsg_replica_of(m), []).append(m)
    scheduled = available = updated = not_breached = 0
    for j in range(reps):
        live = [m for m in by_rep.get(j, []) if not m.terminating]
        if len(live) != len(cliques):
            continue
        is_sched = all(U.condition_status(m, "PodCliqueScheduled") == "True" for m in live)
        is_avail = is_sched and all(U.status_int(m, "readyReplicas") >= U.min_available(m) for m in live)
        is_upd = is_avail and all(U.is_pcsg_member_converged(pcs, m, generation_hash) for m in live)
        scheduled += is_sched
        available += is_avail
        updated += is_upd
        if not any(U.condition_status(m, "MinAvailableBreached") == "True" for m in live):
            not_breached += 1
    st: dict[str, Any] = {"replicas": reps, "scheduledReplicas": scheduled, "availableReplicas": available,
                          "updatedReplicas": updated}
    ma = U.int_field(pcsg.spec.get("minAvailable"), 1)
    if U.is_update_in_progress(pcsg):
        cond = _condition(pcsg, "MinAvailableBreached", "Unknown", "UpdateInProgress", now)
    elif not_breached < ma:
        cond = _condition(pcsg, "MinAvailableBreached", "True", "InsufficientAvailablePodCliqueScalingGroupReplicas",
                          now)
    else:
        cond = _condition(pcsg, "MinAvailableBreached", "False", "SufficientAvailablePodCliqueScalingGroupReplicas",
                          now)
    conds = _with_conditions(pcsg, [cond])
    if cond["status"] == "False":
        # a recovered scaling group re-arms gang termination (mutateMinAvailableBreachedCondition)
        conds = [c for c in conds if c.get("type") != "GangTerminationInProgress"]
    st["conditions"] = conds
    # mutateCurrentPodCliqueSetGenerationHash, over the members pruneStrayPCSGPCLQs keeps
    # (replica index below spec.replicas, a name spec.cliqueNames gives): a scaled-in
    # replica's old PodCliques still terminating do not hold the hash back
    spec_names = {N.pclq_name(pcsg.name, j, cn) for j in range(reps) for cn in cliques}
    members = [m for m in members if m.name in spec_names]
    want = [U.expected_pod_template_hash(pcs, m) for m in members]
    pending = any(m.labels.get(N.L_TEMPLATE_HASH) != h for m, h in zip(members, want))
    if generation_hash and not pending and not U.is_update_in_progress(pcsg):
        expected = {pcs.member_pclq_fqn(U.pcs_replica_of(pcsg), g, j, cn)
                    for g in pcs.groups if pcs.pcsg_fqn(U.pcs_replica_of(pcsg), g) == pcsg.name
                    for j in range(reps) for cn in g.clique_names}
        by_name = {m.name: (m, h) for m, h in zip(members, want)}
        converged = bool(expected) and all(
            (mh := by_name.get(n)) is not None and not mh[0].terminating
            and mh[0].labels.get(N.L_TEMPLATE_HASH) == mh[1]
            and mh[0].status.get("currentPodTemplateHash") == mh[1]
            and mh[0].status.get("currentPodCliqueSetGenerationHash") == generation_hash
            for n in expected)
        if converged:
            st["currentPodCliqueSetGenerationHash"] = generation_hash
    return st


# ----------------------------------------------------------------------------- PodCliqueSet


def _replica_counts(pcs: PCS, info: PCSR.PCSReplicaInfo, gen: str | None) -> tuple[bool, bool, int, int]:
    """One PodCliqueSet replica's part of ``pcs_status``: available, updated, and its
    updated PodCliques and scaling groups."""
    pclqs = [p for p in info.pclqs if not p.terminating]
    pcsgs = [g for g in info.pcsgs if not g.terminating]
    pclq_ok = len(pclqs) == len(pcs.standalone) and all(
        U.status_int(p, "readyReplicas") >= U.min_available(p) for p in pclqs)
    pcsg_ok = len(pcsgs) == len(pcs.groups) and all(
        U.status_int(g, "availableReplicas") >= U.int_field(g.spec.get("minAvailable"), 1) for g in pcsgs)
    n_upd_pclq = sum(1 for p in pclqs if U.is_pclq_update_complete(pcs, p, gen))
    n_upd_pcsg = sum(1 for g in pcsgs if U.is_pcsg_update_complete(g, gen))
    return (pclq_ok and pcsg_ok, n_upd_pclq == len(pclqs) and n_upd_pcsg == len(pcsgs), n_upd_pclq, n_upd_pcsg)


def _as_totals(c: tuple[bool, bool, int, int]) -> tuple[int, int, int, int]:
    ok, both_upd, n_pclq, n_pcsg = c
    return (1 if ok else 0, 1 if ok and both_upd else 0, n_pclq, n_pcsg)


@record(frozen=True)
class _Counted:
    counts: Mapping[int, tuple[bool, bool, int, int]]
    totals: tuple[int, int, int, int]


@record(frozen=True)
class ReplicaCounts:
    """``World.derived`` description of ``_replica_counts`` of every replica, with
    their totals (``_as_totals``): recounted for the replicas whose PodCliques or
    scaling groups changed."""

    pcs: PCS  # compared by identity: the model's parsed desired PodCliqueSet
    generation_hash: str | None

    kinds = ("PodClique", "PodCliqueScalingGroup")  # what the view reads (``World.derived``)

    def _count(self, world: World, i: int) -> tuple[bool, bool, int, int]:
        pcs = self.pcs
        return _replica_counts(pcs, PCSR.PCSReplicaInfo(i, RI.by_replica(world, "PodClique", pcs, True).get(i, []),
                                                     RI.by_replica(world, "PodCliqueScalingGroup", pcs, False).get(i, [])),
                               self.generation_hash)

    def build(self, world: World) -> _Counted:
        counts = {i: self._count(world, i) for i in range(self.pcs.replicas)}
        totals = [0, 0, 0, 0]
        for c in counts.values():
            for k, v in enumerate(_as_totals(c)):
                totals[k] += v
        return _Counted(counts, (totals[0], totals[1], totals[2], totals[3]))

    def patch(self, prev: _Counted, changes: Mapping[Any, tuple[Obj | None, Obj | None]], world: World) -> _Counted:
        touched = RI.children_touched(changes, self.pcs)
        if touched is None:
            return self.build(world)
        if not touched:
            return prev
        counts = Overlay.over(prev.counts)  # the other replicas' counts shared
        totals = list(prev.totals)
        for i in touched:
            new = self._count(world, i)
            for k, v in enumerate(_as_totals(new)):
                totals[k] += v - _as_totals(counts[i])[k]
            counts.put(i, new)
        return _Counted(counts.settled(), (totals[0], totals[1], totals[2], totals[3]))


def pcs_status(pcs: PCS, world: World, status: Mapping[str, Any]) -> dict[str, Any]:
    """PodCliqueSet replica counts and update-progress counts.
    Upstream: ``podcliqueset/reconcilestatus.go`` ``mutateReplicas`` /
    ``computeAvailableAndUpdatedReplicas``."""
    gen = status.get("currentGenerationHash")
    available, updated, upd_pclqs, upd_pcsgs = world.derived(ReplicaCounts(pcs, gen)).totals
    st: dict[str, Any] = {"replicas": pcs.replicas, "availableReplicas": available, "updatedReplicas": updated}
    up = status.get("updateProgress")
    if isinstance(up, Mapping):
        new_up = dict(up)
        new_up.update({"updatedPodCliquesCount": upd_pclqs, "totalPodCliquesCount": pcs.replicas * len(pcs.standalone),
                       "updatedPodCliqueScalingGroupsCount": upd_pcsgs,
                       "totalPodCliqueScalingGroupsCount": pcs.replicas * len(pcs.groups)})
        st["updateProgress"] = new_up
    return st


# ----------------------------------------------------------------------------- the status pass


def _arming_breach(pcs: PCS, o: Obj, a: Action) -> Action:
    """A status write that turns ``MinAvailableBreached`` True in a way that arms gang
    termination is shown as a step (the untimed model's ``terminationDelay`` starts
    here; ``gang_terminate`` fires in a later round)."""

    conds = a.fields.get("conditions")
    if conds is None or not any(c.get("type") == "MinAvailableBreached" and c.get("status") == "True"
                                for c in conds) or GT._breached(o):
        return a
    new = Obj({**o.raw, "status": {**o.status, **a.fields}}, o.file, o.line, o.lines)
    armed = GT.is_armed_pclq_breach(new) if o.kind == "PodClique" else GT.is_armed_pcsg_breach(new)
    if not armed:
        return a
    return Action(verb=a.verb, kind=a.kind, name=a.name, namespace=a.namespace,
                  reason=GT.breach_step_reason(new, pcs), rule=a.rule, fields=a.fields, hidden=False,
                  index=U.pcs_replica_of(o))


def refresh(pcs: PCS, world: World, arming: bool = True, queue: Round = EVERY_KEY) -> list[Action]:
    """Every controller's status write for this round, bottom-up (PodCliques, then
    scaling groups, then the PodCliqueSet), as hidden actions. Returns the actions;
    the caller applies them. ``queue``: the round's work queue (``model._Passes``):
    each status pass writes only for the keys it hands out (None: every object)."""
    live = world.get("PodCliqueSet", pcs.namespace, pcs.name)
    status = U.live_pcs_status(pcs, world)
    gen = status.get("currentGenerationHash")
    now = U.stamp(world)
    acts: list[Action] = []
    ns = pcs.namespace
    ctl = R.pclq_status(pcs)
    keys = queue.keys(ctl, world)
    if keys is None:
        todo = [p for p in world.index("PodClique", N.L_PART_OF).get(pcs.name, ()) if p.namespace == ns]
    else:
        todo = by_names(world, "PodClique", pcs, keys)
    written = []
    for pclq in todo:
        summ = SUM.pod_summary(world, N.L_PCLQ, pclq.name, pclq.namespace)
        a = _status_action(pclq, pclq_status(pcs, pclq, list(summ.pods), gen, summ, now), "PodClique status from its pods",
                           R_PCLQ_ST)
        if a is not None and arming:
            a = _arming_breach(pcs, pclq, a)
        if a is not None:
            acts.append(a)
            written.append(pclq.name)
    queue.done(ctl, written)
    if acts:
        world = world.apply(acts)
    n = len(acts)
    ctl = R.pcsg_status(pcs)
    keys = queue.keys(ctl, world)
    if keys is None:
        todo = [g for g in world.index("PodCliqueScalingGroup", N.L_PART_OF).get(pcs.name, ()) if g.namespace == ns]
    else:
        todo = by_names(world, "PodCliqueScalingGroup", pcs, keys)
    written = []
    for pcsg in todo:
        members = U.pclqs_of_pcsg(world, pcsg)
        a = _status_action(pcsg, pcsg_status(pcs, pcsg, members, gen, now),
                           "scaling-group status from its PodCliques", R_PCSG_ST)
        if a is not None and arming:
            a = _arming_breach(pcs, pcsg, a)
        if a is not None:
            acts.append(a)
            written.append(pcsg.name)
    queue.done(ctl, written)
    if len(acts) > n:
        world = world.apply(acts[n:])
    if live is not None:
        a = _status_action(live, pcs_status(pcs, world, status), "PodCliqueSet replica counts", R_PCS_ST)
        if a is not None:
            acts.append(a)
    return acts
