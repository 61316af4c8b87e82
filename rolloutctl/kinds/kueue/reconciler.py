"""Kueue's generic job reconciler for a RayService (or a RayCluster in the legacy model):
one Workload per job, started when admitted, stopped when evicted or no longer admitted,
deleted when the job no longer matches it; Workloads of deleted jobs released; child
jobs suspended.

Upstream: kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7, ``pkg/controller/jobframework/reconciler.go``
(``ReconcileGenericJob``, ``ensureOneWorkload``, ``updateWorkloadToMatchJob``,
``EquivalentToWorkload``, ``handleJobWithNoWorkload``, ``prepareWorkloadSlice``,
``startJob``, ``stopJob``, ``QueueNameChange``, ``loadJob``, ``finalizeWorkloads``, ``shouldSuspendChildJob``,
``ExtractPriority``, ``UpdateWorkloadPriority``, ``syncWorkloadSlicePriority``). What the generic reconciler watches as the RayCluster integration
uses it (``genericReconciler.SetupWithManager``) is ``CONTROLLER``, as data; the
RayService integration's own watches are ``rayservice_controller.CONTROLLER``.
"""

from __future__ import annotations

import copy
import json
from types import MappingProxyType
from typing import Any, Mapping, Sequence

from ...core.model import Obj
from ...core.queue import Controller, Watch, by_controller_owner, own_name
from ...core.world import World
from ..kuberay.api import RC, RS
from .constants import (ELASTIC_ANN, JOB_UID_LABEL, KUEUE_API, PRIORITY_LABEL, QUEUE_LABEL, REPLACEMENT_ANN,
                        RF, SLICE_NAME_ANN, WL, WPC)
from .context import (MEM_KEPT_CLUSTERS, REC, RSC, TOP, KueuePass, as_list, as_map, children, display_rc,
                      pod_counts_text, rule)
from .evict import evicted
from .finish import finished
from .podset import PodSet, counts, injected_pod_set_info, merge_into_template, quantities, requests_of
from .raycluster_common import cluster_templates, strip_cluster_injection
from .rayservice_controller import cluster_spec, is_active, is_suspended, pod_sets, suspend
from .workload import admitted, condition, owner_of, quota_reserved, with_conditions, wl_pod_sets
from .workload_names import display, slice_number, workload_name
from .workloadslicing import ensure_workload_slices, is_elastic


def priority_class_ref(name: str) -> dict[str, str]:
    """``kueue.NewWorkloadPriorityClassRef`` (apis/kueue/v1beta2/workload_types.go): the
    Workload's ``spec.priorityClassRef`` for a WorkloadPriorityClass."""
    return {"group": "kueue.x-k8s.io", "kind": WPC, "name": name}


def workload_object(name: str, ns: str, owner: tuple[str, str], queue: str, pod_sets: Sequence[PodSet],
                    priority: int, annotations: Mapping[str, str], now: int, priority_class: str = "") -> dict:
    """``jobframework.NewWorkload`` / ``ConstructWorkload`` (reconciler.go): owned by the job,
    ``spec.queueName`` from the queue label. (Upstream adds the ``resource-in-use`` finalizer
    and removes it when it releases the Workload; the model deletes the Workload at that
    point instead.)"""
    md: dict[str, Any] = {"name": name, "namespace": ns, "labels": {JOB_UID_LABEL: "<uid>"},
                          "creationTimestamp": now,
                          "ownerReferences": [{"apiVersion": "ray.io/v1", "kind": owner[0], "name": owner[1],
                                               "controller": True}]}
    if annotations:
        md["annotations"] = dict(annotations)
    spec: dict[str, Any] = {"queueName": queue, "priority": priority, "active": True,
                            "podSets": [p.to_raw() for p in pod_sets]}
    if priority_class:
        spec["priorityClassRef"] = priority_class_ref(priority_class)
    return {"apiVersion": KUEUE_API, "kind": WL, "metadata": md, "spec": spec, "status": {}}


def equivalent_to_workload(job_sets: Sequence[PodSet], w: Obj) -> bool:
    """``EquivalentToWorkload`` -> ``equality.ComparePodSetSlices`` / ``ComparePodSets``
    (``pkg/util/equality/podset.go``): as many pod sets, and index by index the same count
    and the same containers and init containers. Pod set names are not compared (a renamed
    worker group with the same pods still matches), nor labels, annotations and node
    selectors; tolerations (compared while the Workload is not admitted) are not modelled."""
    ws = wl_pod_sets(w)
    if len(job_sets) != len(ws):
        return False
    for a, b in zip(job_sets, ws):
        if a.count != b.count:
            return False
        for k in ("containers", "initContainers"):
            if as_list(as_map(a.template.get("spec")).get(k)) != as_list(as_map(b.template.get("spec")).get(k)):
                return False
    return True


def extract_priority(p: KueuePass, job: Obj) -> int | None:
    """``ExtractPriority``: the value of the WorkloadPriorityClass named by the priority label,
    else 0 (PriorityClasses of pod templates are not modelled). None when the label names a
    class that does not exist: upstream returns the NotFound error of
    ``GetPriorityFromWorkloadPriorityClass`` (event ``WorkloadPriorityClassNotFound``), and
    the Workload is neither created nor rewritten."""
    n = job.labels.get(PRIORITY_LABEL)
    if n:
        wpc = next((o for o in p.w.of_kind(WPC) if o.name == n), None)
        if wpc is None:
            return None
        if isinstance(wpc.raw.get("value"), int):
            return int(wpc.raw["value"])
    return 0


def reconcile_generic_job(p: KueuePass, job0: Obj) -> None:
    """``ReconcileGenericJob`` (reconciler.go): first matching row wins."""
    job = p.w.get(job0.kind, job0.namespace, job0.name)
    if job is None or job.terminating:
        return
    if not job.labels.get(QUEUE_LABEL):
        return  # not managed (manageJobsWithoutQueueName off)
    elastic = is_elastic(job) and job.kind == RS
    pss = pod_sets(p.mode, job, p.w)
    if pss is None:  # JobPodSets failed (UpdatePodSets: PodSet name mismatch): the reconcile ends here
        return
    w, ok = ensure_one_workload(p, job, pss, elastic)
    if not ok:  # ensureOneWorkload returned an error: the reconcile ends here
        return
    job = p.w.get(job.kind, job.namespace, job.name) or job
    if w is None:
        handle_job_with_no_workload(p, job, pss, elastic)
        return
    if finished(w):
        return
    if evicted(w):
        stop_job(p, job, w, "WorkloadEvicted", f"Workload {display(w.name)} was evicted "
                 f"({(condition(w, 'Evicted') or {}).get('reason')})")
        job = p.w.get(job.kind, job.namespace, job.name) or job
        if quota_reserved(w) and not is_active(job):
            clear_reservation(p, w)
        return
    if is_suspended(p.mode, job):
        if admitted(w):
            start_job(p, job, w)
            return
        queue_name_change(p, job, w)
        return
    if not admitted(w):
        if elastic:
            return  # pods are held by the elastic-job scheduling gate instead
        stop_job(p, job, w, "NotAdmitted", f"Workload {display(w.name)} is not admitted")


def queue_name_change(p: KueuePass, job: Obj, w: Obj) -> None:
    """``QueueNameChange`` (reconciler.go, through ``handleQueueNameChange``): a suspended
    job whose Workload is not admitted and names another queue than the job's
    ``kueue.x-k8s.io/queue-name`` label moves its Workload to the job's queue
    (``spec.queueName`` updated; the scheduler then queues it there)."""
    queue = str(job.labels.get(QUEUE_LABEL) or "")
    if str(w.spec.get("queueName") or "") == queue:
        return
    raw = copy.deepcopy(dict(w.raw))
    raw["spec"]["queueName"] = queue
    p.act("update", WL, w.name, f"the job's {QUEUE_LABEL} label changed while it is suspended "
          f"({w.spec.get('queueName')} -> {queue}): the Workload moves to LocalQueue {queue}",
          rule(REC, "QueueNameChange"), payload=raw, fields={"spec.queueName": queue},
          role=f"slice-{slice_number(w.name)}" if w.annotations.get(ELASTIC_ANN) == "true" else None)


def ensure_one_workload(p: KueuePass, job: Obj, pss: list[PodSet], elastic: bool) -> tuple[Obj | None, bool]:
    """``ensureOneWorkload``: elastic jobs go through ``EnsureWorkloadSlices`` (then
    ``syncWorkloadSlicePriority``); otherwise (or when the slices are incompatible with the
    job: its pod set names changed — upstream's "Fallback") a Workload that is not
    equivalent is removed (the job stopped first when running) or, while suspended without
    quota, rewritten in place (``updateWorkloadToMatchJob``), and a matching one takes the
    job's priority class (``UpdateWorkloadPriority``). Returns the Workload and False when
    upstream returns an error (the reconcile stops there)."""
    ws = [w for w in p.workloads_of(job) if not finished(w)]
    fallback = False
    if elastic:
        w, compatible = ensure_workload_slices(p, job, pss, ws)
        if compatible:
            # syncWorkloadSlicePriority: the returned slice and the quota-reserved slice it waits behind
            live = [p.w.get(WL, w.namespace, w.name) if w is not None else None]
            retained = next((x for x in reversed(p.workloads_of(job)) if not finished(x) and quota_reserved(x)
                             and not evicted(x)), None)
            if retained is not None and (w is None or retained.name != w.name):
                live.append(retained)
            if not update_workload_priority(p, job, live):
                return None, False
            return (p.w.get(WL, w.namespace, w.name) if w is not None else None), True
        fallback = True
        ws = [w for w in p.workloads_of(job) if not finished(w)]
    if not ws:
        return None, True
    w = ws[-1]
    for extra in ws[:-1]:
        p.act("delete", WL, extra.name, "more than one Workload for the job: the extra one is removed",
              rule(REC, "ensureOneWorkload"))
    if equivalent_to_workload(pss, w):
        if not update_workload_priority(p, job, [w]):
            return None, False
        return p.w.get(WL, w.namespace, w.name), True
    if is_suspended(p.mode, job) and not quota_reserved(w):
        if extract_priority(p, job) is None:  # prepareWorkload fails: nothing is written
            return None, False
        raw = copy.deepcopy(dict(w.raw))
        raw["spec"]["podSets"] = [ps.to_raw() for ps in pss]
        p.act("update", WL, w.name, "the job changed while suspended and the Workload holds no quota: "
              "its pod sets are rewritten in place", rule(REC, "updateWorkloadToMatchJob"), payload=raw,
              fields={"podSets": counts(pss)})
        return p.w.get(WL, w.namespace, w.name), True
    if fallback:
        names = f"{'/'.join(ps.name for ps in wl_pod_sets(w))} -> {'/'.join(ps.name for ps in pss)}"
        stop_why = (f"the job's pod set names changed ({names}): workload slicing cannot resize Workload "
                    f"{display(w.name)}, so it falls back to the non-elastic matching, which finds no match")
        del_why = (f"the job's pod set names changed ({names}): the slice is deleted; the elastic job gets a new "
                   "Workload at once (slicing jobs do not wait for the job to become inactive)")
    else:
        stop_why = (f"the job no longer matches Workload {display(w.name)} "
                    "(pod set counts or containers changed) and the elastic-job annotation is absent")
        del_why = ("the job no longer matches this Workload (pod set counts or containers "
                   "differ): it is deleted; a new one is created once the job is no longer active")
    if not is_suspended(p.mode, job):
        stop_job(p, job, w, "WorkloadDeleted" if not fallback else "NoMatchingWorkload", stop_why)
    p.act("delete", WL, w.name, del_why, rule(REC, "ensureOneWorkload"),
          fields={"podSets": counts(wl_pod_sets(w)), "job": counts(pss)},
          role=f"slice-{slice_number(w.name)}" if w.annotations.get(ELASTIC_ANN) == "true" else None)
    return None, True


def update_workload_priority(p: KueuePass, job: Obj, wls: Sequence[Obj | None]) -> bool:
    """``UpdateWorkloadPriority`` / ``classifyWorkloadsForPriorityUpdate`` (reconciler.go):
    the job's Workloads whose ``spec.priorityClassRef`` names another WorkloadPriorityClass
    than the job's ``kueue.x-k8s.io/priority-class`` label take the label's class and its
    value (so do same-class ones whose value differs, but only when some Workload changes
    class: a class's new value alone is not re-read). A quota-reserved Workload without a
    class is left alone (a class can no longer be added to it). False when the label names
    a class that does not exist (the error ends the reconcile)."""
    label = str(job.labels.get(PRIORITY_LABEL) or "")
    same: list[Obj] = []
    change: list[Obj] = []
    for wl in wls:
        if wl is None:
            continue
        ref = as_map(wl.spec.get("priorityClassRef"))
        if (quota_reserved(wl) and not ref) or (ref and ref.get("kind") != WPC):
            continue
        (same if str(ref.get("name") or "") == label else change).append(wl)
    if not change:
        return True
    prio = extract_priority(p, job)
    if prio is None:
        return False
    ref = priority_class_ref(label) if label else None
    for wl in same + change:
        if wl.spec.get("priority") == prio and (as_map(wl.spec.get("priorityClassRef")) or None) == ref:
            continue
        raw = copy.deepcopy(dict(wl.raw))
        raw["spec"]["priority"] = prio
        if ref:
            raw["spec"]["priorityClassRef"] = ref
        else:
            raw["spec"].pop("priorityClassRef", None)
        p.act("update", WL, wl.name, f"the job's {PRIORITY_LABEL} label is {label or '(none)'}: the Workload takes "
              f"that WorkloadPriorityClass and its priority {prio} (queue order and preemption use it)",
              rule(REC, "UpdateWorkloadPriority"), payload=raw,
              fields={"spec.priorityClassRef.name": label or None, "spec.priority": prio},
              role=f"slice-{slice_number(wl.name)}" if wl.annotations.get(ELASTIC_ANN) == "true" else None)
    return True


def handle_job_with_no_workload(p: KueuePass, job: Obj, pss: list[PodSet], elastic: bool) -> None:
    """``handleJobWithNoWorkload``: an active non-elastic job waits; otherwise a Workload
    is constructed and created (elastic: a slice, a replacement when scaling up)."""
    if is_active(job) and not elastic:
        return
    priority = extract_priority(p, job)
    if priority is None:  # prepareWorkload fails on the missing WorkloadPriorityClass: no Workload
        return
    old = p.replace_for if elastic else None
    prefix = "rayservice" if job.kind == RS else "raycluster"
    name = workload_name(prefix, job.name, p.w, job.namespace, fresh=elastic or
                         p.w.get(WL, job.namespace, f"{prefix}-{job.name}-<hash>") is not None)
    ann: dict[str, str] = {}
    role = None
    why = "no Workload for the job: create one from its pod sets"
    fn, poc = "handleJobWithNoWorkload", False
    if elastic:
        ann[ELASTIC_ANN] = "true"
        origin = old.annotations.get(SLICE_NAME_ANN, old.name) if old is not None else name
        ann[SLICE_NAME_ANN] = origin
        role = f"slice-{slice_number(name)}"
        if old is not None:
            ann[REPLACEMENT_ANN] = f"{job.namespace}/{old.name}"
            why = (f"the job's pod sets grew ({pod_counts_text(counts(wl_pod_sets(old)))} -> {pod_counts_text(counts(pss))}) while slice "
                   f"{display(old.name)} holds quota: create a replacement slice")
            fn = "prepareWorkloadSlice"
    if p.mode == TOP and job.kind == RS:
        kids = [c.name for c in children(p.w, job)]
        src = (f"summed over RayClusters {', '.join(sorted(display_rc(k) for k in kids))}" if kids
               else "from the RayService template (no RayCluster yet)")
        why += f"; pod sets {src} (kueue[POC] RayService.PodSets)"
        poc = True
    elif job.kind == RC:
        why += " (legacy model: the RayCluster is the job)"
    else:
        why += " (pod sets from the RayService template)"
    raw = workload_object(name, job.namespace, (job.kind, job.name), str(job.labels.get(QUEUE_LABEL)),
                          pss, priority, ann, p.w.now, str(job.labels.get(PRIORITY_LABEL) or ""))
    fields: dict[str, Any] = {"podSets": counts(pss), "requests": quantities(requests_of(pss)),
                              "queueName": job.labels.get(QUEUE_LABEL)}
    if ann.get(REPLACEMENT_ANN):
        fields["replacementFor"] = display(old.name) if old is not None else ""
    p.act("create", WL, name, why, rule(REC if not poc else RSC, fn if not poc else "PodSets", poc),
          payload=raw, fields=fields, role=role)


def start_job(p: KueuePass, job: Obj, w: Obj) -> None:
    """``startJob``: one patch of the job running ``RunWithPodSetsInfo`` — unsuspend and
    merge the admission's pod set info into the templates (index 0 = head, i+1 =
    worker group i). Top-level (POC): ``spec.suspend=false``, the nested gate stays true."""
    raw = copy.deepcopy(dict(job.raw))
    adm = as_map(w.status.get("admission"))
    flav = {str(as_map(a).get("name")): as_map(as_map(a).get("flavors")) for a in as_list(adm.get("podSetAssignments"))}
    lq = str(w.spec.get("queueName") or "")
    cq = str(adm.get("clusterQueue") or "")
    origin = w.annotations.get(SLICE_NAME_ANN) if w.annotations.get(ELASTIC_ANN) == "true" else None
    templates = cluster_templates(cluster_spec(raw))
    rfs = p.rfs()
    injected: dict[str, Any] = {}
    for ps, t in zip(wl_pod_sets(w), templates):
        info = injected_pod_set_info(ps, flav.get(ps.name, {}), rfs, lq, cq, display(w.name), origin)
        merge_into_template(t, info)
        if info["nodeSelector"]:
            injected.setdefault("nodeSelector", {}).update(info["nodeSelector"])
    if job.kind == RC:
        raw["spec"]["suspend"] = False
        fields: dict[str, Any] = {"spec.suspend": False}
        fn, poc = "startJob", False
    elif p.mode == TOP:
        raw["spec"]["suspend"] = False
        fields = {"spec.suspend": False, "spec.rayClusterConfig.suspend": "stays true (persistent gate)"}
        fn, poc = "RunWithPodSetsInfo", True
    else:
        cluster_spec(raw)["suspend"] = False
        fields = {"spec.rayClusterConfig.suspend": False}
        fn, poc = "startJob", False
    fields["injected"] = {"labels": ["kueue.x-k8s.io/podset", "kueue.x-k8s.io/local-queue-name",
                                     "kueue.x-k8s.io/cluster-queue-name"],
                          "annotations": ["kueue.x-k8s.io/workload"] + (["kueue.x-k8s.io/workload-slice-name"]
                                                                        if origin else []), **injected}
    where = "RayCluster" if job.kind == RC else "RayService"
    p.act("update", job.kind, job.name, f"Workload {display(w.name)} is admitted by ClusterQueue {cq}: "
          f"unsuspend the {where} and inject the scheduling information into its pod templates",
          rule(RSC if poc else REC, fn, poc), payload=raw, fields=fields,
          role="pending" if job.kind == RC else None)


def stop_job(p: KueuePass, job: Obj, w: Obj, reason: str, why: str) -> None:
    """``stopJob``: nothing if already suspended; else one patch calling ``Suspend`` and
    ``RestorePodSetsInfo`` (templates back to the pre-admission ones)."""
    if is_suspended(p.mode, job):
        return
    raw = copy.deepcopy(dict(job.raw))
    fields = suspend(p.mode, raw)
    rfs = list(p.rfs().values())
    cs = cluster_spec(raw)
    if isinstance(cs, dict) and len(wl_pod_sets(w)) == len(cluster_templates(cs)):
        strip_cluster_injection(cs, rfs)
        fields["templates"] = "restored (injected scheduling information removed)"
    elif isinstance(cs, dict):
        # raycluster/common.go RestorePodSetsInfo: the Workload's pod sets no longer line up
        # with the job's groups, so the restore is skipped and the injected information stays.
        fields["templates"] = "not restored (the Workload's pod sets no longer match the job's groups)"
    poc = p.mode == TOP and job.kind == RS
    p.act("update", job.kind, job.name, f"stop the job ({reason}): {why}",
          rule(RSC if poc else REC, "Suspend" if poc else "stopJob", poc), payload=raw, fields=fields,
          role="active" if job.kind == RC else None)


def clear_reservation(p: KueuePass, w: Obj) -> None:
    """Eviction handling: once the job is no longer active, the reservation is cleared and
    the Workload requeued (``Requeued=True`` for Preempted)."""
    raw = copy.deepcopy(dict(w.raw))
    st = dict(raw.get("status") or {})
    st.pop("admission", None)
    raw["status"] = st
    evc = condition(w, "Evicted") or {}
    ev = evc.get("reason") or "Evicted"
    # UnadmittedWorkloadReasonWithFallback(PendingEvaluation, Pending): the granular reason
    # with UnadmittedWorkloadsObservability, on by default since Kueue v0.19; the message
    # is the eviction's (UnsetQuotaReservationWithCondition)
    raw = with_conditions(raw, {"QuotaReserved": ("False", "PendingEvaluation", str(evc.get("message") or "evicted")),
                                "Admitted": ("False", "NoReservation", ""),
                                "Evicted": ("False", ev, "requeued"),
                                "Requeued": ("True" if ev in ("Preempted", "NodeFailures") else "False", ev, "")})
    p.act("update", WL, w.name, "the job is no longer active: the quota reservation is cleared and the "
          "Workload requeued", rule(REC, "ReconcileGenericJob (eviction)"), payload=raw,
          fields={"admission": None, "conditions": {"QuotaReserved": "False/PendingEvaluation", "Requeued": f"True/{ev}"}},
          role=f"slice-{slice_number(w.name)}" if w.annotations.get(ELASTIC_ANN) == "true" else None)


def load_job(world: World, ns: str, name: str) -> tuple[Obj | None, bool]:
    """``loadJob`` for RayCluster ``name``: the RayCluster as the world holds it, and
    whether its Workloads should be finalized (``shouldFinalize``: it is not found, or it
    is being deleted). The RayClusters of settled neighbours (world memory
    ``MEM_KEPT_CLUSTERS``: other RayServices' clusters, which the world does not list)
    are found: they were never deleted."""
    rc = world.get(RC, ns, name)
    if rc is not None:
        return rc, rc.terminating
    return None, (ns, name) not in world.memory.get(MEM_KEPT_CLUSTERS, ())


def finalize_workloads(p: KueuePass) -> None:
    """Row 0 (``finalizeWorkloads``): a job that is gone or being deleted (``load_job``)
    releases its Workloads (finalizer removed; garbage-collected with the owner) — quota
    is freed."""
    for w in p.w.of_kind(WL):
        if w.namespace != p.ns or w.terminating:
            continue
        own = owner_of(w)
        if own is None or own[0] != RC:
            continue
        rc, should_finalize = load_job(p.w, w.namespace, own[1])
        if not should_finalize:
            continue
        if rc is None and own[1] in p.created:
            continue
        p.act("delete", WL, w.name, f"its RayCluster {display_rc(own[1])} is being deleted: the Workload's "
              "finalizer is removed and it goes with its owner; its quota is released",
              rule(REC, "finalizeWorkloads"))


def suspend_children(p: KueuePass) -> None:
    """Row 2 (``shouldSuspendChildJob``, nested model): a running RayCluster of a
    Kueue-managed RayService is suspended when the RayService has no unfinished Workload,
    (elastic) when its latest one is Evicted, or else when it is not Admitted. Kueue never
    unsuspends a child. It runs when the child is reconciled: on an event of the RayCluster
    itself (``CONTROLLER``'s watches: its create, update or delete; nothing maps a
    RayService or its Workload to the child), ``p.events``. [derived]"""
    rs = p.rs
    if rs is None or not rs.labels.get(QUEUE_LABEL):
        return
    ws = [w for w in p.workloads_of(rs) if not finished(w)]
    latest = ws[-1] if ws else None
    for c in children(p.w, rs):
        if c.terminating or c.spec.get("suspend") is True:
            continue
        if p.events is not None and c.name not in p.events:
            continue  # no event: the child is not reconciled in this pass
        if latest is None:
            why = "the RayService has no unfinished Workload"
        elif is_elastic(rs):
            if not evicted(latest):
                continue
            why = f"the RayService's Workload {display(latest.name)} is evicted"
        elif admitted(latest):
            continue
        else:
            why = f"the RayService's Workload {display(latest.name)} is not admitted"
        raw = copy.deepcopy(dict(c.raw))
        raw["spec"]["suspend"] = True
        p.act("update", RC, c.name, f"child job of a Kueue-managed RayService: {why}; Kueue suspends the "
              "RayCluster (its Pods are deleted) and never unsuspends it", rule(REC, "shouldSuspendChildJob"),
              payload=raw, fields={"spec.suspend": True})


def child_versions(world: World, rs: Obj) -> tuple[tuple[str, str], ...]:
    """The RayService's child RayClusters as the RayCluster job reconciler's informer
    holds them: (name, content) in name order. A child whose content differs from what
    the previous pass saw had an update event (``CONTROLLER``: ``For(RayCluster)``, no
    predicates)."""
    return tuple(sorted((c.name, json.dumps(c.raw, sort_keys=True, default=str)) for c in children(world, rs)))


def child_events(seen: Sequence[tuple[str, str]], world: World, rs: Obj, created: Sequence[str] = ()) -> set[str]:
    """The child RayClusters with an event since ``seen`` (``child_versions`` of the
    previous pass, or of the plan's starting world: a running controller has already
    reconciled what it finds at the start): created, changed, or just created in this
    pass (``created``)."""
    before = set(seen)
    return {name for name, v in child_versions(world, rs) if (name, v) not in before} | set(created)


# --------------------------------------------------------------------------- watches

_GENERIC = "pkg/controller/jobframework/reconciler.go#genericReconciler.SetupWithManager"

#: ``genericReconciler.SetupWithManager`` as the RayCluster integration builds it
#: (``pkg/controller/jobs/raycluster/raycluster_controller.go``: ``NewReconciler =
#: NewGenericReconcilerFactory(NewJob)``, no extra setup): ``For(RayCluster)`` without
#: predicates and ``Owns(Workload)``. Its keys are the RayClusters: each one a job of its
#: own (legacy), or a child job of a Kueue-managed RayService (nested:
#: ``shouldSuspendChildJob``). ``finalizeWorkloads`` runs on the key of a RayCluster that
#: is being deleted or gone (its delete event; its Workloads name it as owner).
CONTROLLER = Controller("kueue/raycluster", RC, (
    Watch(RC, own_name, f"{_GENERIC}: For(newJob().Object()), no predicates"),
    Watch(WL, by_controller_owner(RC), f"{_GENERIC}: Owns(&kueue.Workload{{}}) (EnqueueRequestForOwner, OnlyControllerOwner)"),
), _GENERIC)

#: kinds the RayCluster job reconciler reads that no watch of it covers, and why
NOT_WATCHED = MappingProxyType({
    RS: "a child RayCluster's ancestor job (ReconcileGenericJob -> FindAncestorJobManagedByKueue, then "
        "shouldSuspendChildJob reads the ancestor's latest unfinished Workload): read through the controller owner "
        "chain with client Gets, not watched; a change of the RayService or its Workload reaches the child on its "
        "next event",
    WPC: "read when a Workload is constructed (ExtractPriority -> GetPriorityFromWorkloadPriorityClass, a client Get); "
         "not watched",
    RF: "read when the job starts (startJob -> getPodSetsInfoFromStatus -> podset.FromAssignment, a client Get) and, "
        "in the model, when it stops (to remove what startJob injected); not watched",
})
