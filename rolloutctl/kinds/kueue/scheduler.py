"""Kueue's scheduler for the pass: pending Workloads in order, flavor assignment against
nominal quota, preemption when the ClusterQueue allows it, admission.

Upstream: kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7, ``pkg/scheduler/scheduler.go`` (``schedule``, ``admit``,
``replaceWorkloadSlice``, ``requeueAndUpdate``); flavor assignment in ``workload.py``
(``pkg/scheduler/flavorassigner/flavorassigner.go``), preemption in ``preemption.py``.

The scheduler is not a controller-runtime controller: it takes the heads of the queue
manager's queues (``pkg/cache/queue/manager.go``), which the core controllers' event
predicates fill. ``SCHEDULER`` declares that as data, the way a controller declares its
watches: a Workload key enters the queues on those events (``is_pending``).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from types import MappingProxyType

from ...core.model import Obj
from ...core.queue import Controller, Watch
from ...core.world import World
from .clusterqueue import STRICT_FIFO, inactive_reason, namespace_admissible, quota_of, usage
from .constants import CQ, ELASTIC_ANN, LQ, REPLACEMENT_ANN, RF, WL
from .context import SCH, KueuePass, as_list, as_map, rule
from .evict import evicted
from .finish import finished
from .flavorassigner import assign_flavors
from .podset import counts, quantities, requests_of
from .preemption import preempt
from .priority import priority_of
from .queue_manager import find_queue
from .workload import condition, created_at, quota_reserved, with_conditions, wl_pod_sets
from .workload_names import display, slice_number


def schedule(p: KueuePass) -> None:
    """``scheduler.go`` ``schedule``: pending Workloads by priority then creation; flavor
    assignment against nominal quota (an elastic replacement only needs the delta and
    keeps the old slice's flavors); preemption within the ClusterQueue when its policy
    allows; admission (no admission checks: QuotaReserved and Admitted together). Under a
    StrictFIFO ClusterQueue the first Workload not admitted stays its head, so none behind
    it is tried (``queue_head``)."""
    pend = sorted((w for w in p.w.of_kind(WL) if is_pending(w)), key=queue_order)
    #: a StrictFIFO ClusterQueue whose head was not admitted: it is the head again next cycle,
    #: so the Workloads behind it are not tried (``RequeueIfNotPresent``: immediate)
    blocked: set[str] = set()
    for w0 in pend:
        w = p.w.get(WL, w0.namespace, w0.name)
        if w is None or quota_reserved(w):
            continue
        lq, cq = find_queue(p.w, w.namespace, str(w.spec.get("queueName") or ""))
        if lq is None or cq is None:
            what = f"LocalQueue {w.spec.get('queueName')} doesn't exist" if lq is None else \
                f"ClusterQueue {lq.spec.get('clusterQueue')} doesn't exist"
            requeue_and_update(p, w, "Misconfigured", what)
            continue
        q = quota_of(cq)
        if cq.name in blocked:
            continue
        if q.queueing == STRICT_FIFO:
            blocked.add(cq.name)  # (admitted below: the next cycle's head is tried, as the loop goes on)
        inactive = inactive_reason(cq, p.w)
        if inactive is not None:
            requeue_and_update(p, w, "Suspended", f"ClusterQueue {cq.name} is inactive ({inactive})")
            continue
        if namespace_admissible(cq, w.namespace, p.w) is False:
            requeue_and_update(p, w, "Misconfigured", f"workload namespace doesn't match ClusterQueue selector "
                               f"(ClusterQueue {cq.name}: namespaceSelector "
                               f"{'absent: no namespace is eligible' if cq.spec.get('namespaceSelector') is None else 'does not select ' + w.namespace})")
            blocked.discard(cq.name)  # a namespace mismatch is not requeued at the head
            continue
        old = None
        ref = w.annotations.get(REPLACEMENT_ANN)
        if ref:
            ons, _, on = ref.partition("/")
            o = p.w.get(WL, ons, on)
            if o is not None and quota_reserved(o) and not finished(o) and \
                    as_map(o.status.get("admission")).get("clusterQueue") == cq.name:
                old = o
        used = usage(p.w, cq.name, exclude=[old.name] if old is not None else [])
        pinned = None
        if old is not None:
            pinned = {str(as_map(a).get("name")): as_map(as_map(a).get("flavors"))
                      for a in as_list(as_map(old.status.get("admission")).get("podSetAssignments"))}
        a = assign_flavors(q, wl_pod_sets(w), used, p.rfs(), pinned)
        if a.fits:
            admit(p, w, cq.name, a.flavors, old)
            blocked.discard(cq.name)
            continue
        if a.reason == "WaitingForQuota" and q.preemption in ("LowerPriority", "LowerOrNewerEqualPriority"):
            if preempt(p, w, q, cq.name, used, old, pinned):
                requeue_and_update(p, w, "WaitingForPreemptedWorkloads",
                                   "waiting for the preempted workloads to release their quota")
                continue
        requeue_and_update(p, w, a.reason, a.message)


def queue_head(world: World, cq_name: str) -> Obj | None:
    """The Workload a ClusterQueue's queue offers the scheduler first: its pending Workloads
    (routed to it through their LocalQueue) by priority, then creation (``baseCompareFunc``)."""
    mine: list[Obj] = []
    for w in world.of_kind(WL):
        if is_pending(w):
            cq = find_queue(world, w.namespace, str(w.spec.get("queueName") or ""))[1]
            if cq is not None and cq.name == cq_name:
                mine.append(w)
    return min(mine, key=queue_order) if mine else None


def queue_order(w: Obj) -> tuple[int, tuple]:
    """The queues' order of pending Workloads: priority, then creation (``baseCompareFunc``)."""
    return (-priority_of(w), created_at(w))


def is_pending(w: Obj) -> bool:
    """A Workload the queue manager holds for the scheduler: not being deleted, not
    finished, active, without quota and not evicted (``workload.IsAdmissible`` with the
    ``WorkloadReconciler`` predicates' status switch)."""
    return (not w.terminating and not finished(w) and not quota_reserved(w) and w.spec.get("active") is not False
            and not evicted(w))


def requeue_and_update(p: KueuePass, w: Obj, reason: str, message: str) -> None:
    """``requeueAndUpdate``: the Workload stays pending, with ``QuotaReserved=False`` and the
    reason (written once; an unchanged condition is not written again)."""
    c = condition(w, "QuotaReserved")
    if c is not None and c.get("status") == "False" and c.get("reason") == reason and c.get("message") == message:
        return
    raw = with_conditions(copy.deepcopy(dict(w.raw)), {"QuotaReserved": ("False", reason, message)})
    p.act("update", WL, w.name, f"not admitted: {message}", rule(SCH, "requeueAndUpdate"), payload=raw,
          fields={"conditions": {"QuotaReserved": f"False/{reason}"}},
          role=f"slice-{slice_number(w.name)}" if w.annotations.get(ELASTIC_ANN) == "true" else None)


def admit(p: KueuePass, w: Obj, cq: str, flavors: Mapping[str, Mapping[str, str]], old: Obj | None) -> None:
    """``admit``: ``status.admission`` with the pod set assignments, ``QuotaReserved`` and
    ``Admitted``; for a replacement slice the old slice is then Finished with
    ``WorkloadSliceReplaced`` (``replaceWorkloadSlice``)."""
    raw = copy.deepcopy(dict(w.raw))
    st = dict(raw.get("status") or {})
    psa = []
    for ps in wl_pod_sets(w):
        psa.append({"name": ps.name, "flavors": dict(flavors.get(ps.name, {})), "count": ps.count,
                    "resourceUsage": quantities(ps.total())})
    st["admission"] = {"clusterQueue": cq, "podSetAssignments": psa}
    raw["status"] = st
    raw = with_conditions(raw, {"QuotaReserved": ("True", "QuotaReserved", f"Quota reserved in ClusterQueue {cq}"),
                                "Admitted": ("True", "Admitted", "The workload is admitted")})
    fl = sorted({f for m in flavors.values() for f in m.values()})
    delta = ""
    if old is not None:
        d = requests_of(wl_pod_sets(w))
        for r, v in requests_of(wl_pod_sets(old)).items():
            d[r] = d.get(r, 0) - v
        delta = f"; only the delta ({', '.join(f'{r} {v}' for r, v in quantities(d).items())}) had to fit " \
                "(the old slice counts as released)"
    p.act("update", WL, w.name, f"fits ClusterQueue {cq}'s nominal quota in flavor {', '.join(fl) or '-'}: "
          f"quota reserved and admitted{delta}", rule(SCH, "admit"), payload=raw,
          fields={"admission.clusterQueue": cq, "podSets": counts(wl_pod_sets(w)), "flavors": fl,
                  "conditions": {"QuotaReserved": "True/QuotaReserved", "Admitted": "True/Admitted"}},
          role=f"slice-{slice_number(w.name)}" if w.annotations.get(ELASTIC_ANN) == "true" else None)
    if old is not None:
        oraw = with_conditions(copy.deepcopy(dict(old.raw)), {
            "Finished": ("True", "WorkloadSliceReplaced",
                         "Replaced to accommodate a workload due to workload slice aggregation")})
        p.act("update", WL, old.name, f"replaced by slice {display(w.name)}: finished, its quota is now "
              "part of the new slice's", rule(SCH, "replaceWorkloadSlice"), payload=oraw,
              fields={"conditions": {"Finished": "True/WorkloadSliceReplaced"}},
              role=f"slice-{slice_number(old.name)}")


# --------------------------------------------------------------------------- what feeds the queues


def _pending_where(world: World, keep) -> list[str]:
    out = []
    for w in world.of_kind(WL):
        if is_pending(w):
            lq, cq = find_queue(world, w.namespace, str(w.spec.get("queueName") or ""))
            if keep(w, lq, cq):
                out.append(w.name)
    return out


def workload_event(old: Obj | None, new: Obj | None, world: World) -> list[str]:
    """``WorkloadReconciler.Create``/``Update``/``Delete`` (workload_controller.go): a
    pending admissible Workload is added to (or updated in) its queue
    (``queues.AddOrUpdateWorkload``); one that stops holding quota (deleted, finished,
    evicted and requeued) requeues the pending Workloads of its ClusterQueue
    (``QueueAssociatedInadmissibleWorkloadsAfter``); one that gets quota leaves the queue."""
    out = [new.name] if new is not None and is_pending(new) else []
    if old is not None and quota_reserved(old) and not finished(old) and (
            new is None or new.terminating or finished(new) or not quota_reserved(new)):
        cq_name = as_map(old.status.get("admission")).get("clusterQueue")
        out += [n for n in _pending_where(world, lambda w, lq, cq: cq is not None and cq.name == cq_name)
                if n not in out]
    return out


def cluster_queue_event(old: Obj | None, new: Obj | None, world: World) -> list[str]:
    """``ClusterQueueReconciler.Create``/``Update``/``Delete`` (clusterqueue_controller.go):
    the cache and the queue manager take the new quota (``AddClusterQueue``,
    ``UpdateClusterQueue``) and the queue's pending Workloads are retried."""
    names = {o.name for o in (old, new) if o is not None}
    return _pending_where(world, lambda w, lq, cq: lq is not None and str(lq.spec.get("clusterQueue") or "") in names)


def local_queue_event(old: Obj | None, new: Obj | None, world: World) -> list[str]:
    """``LocalQueueReconciler.Create``/``Update``/``Delete`` (localqueue_controller.go):
    ``queues.AddLocalQueue``/``UpdateLocalQueue`` put the LocalQueue's pending Workloads
    in its ClusterQueue's queue."""
    keys = {(o.namespace, o.name) for o in (old, new) if o is not None}
    return _pending_where(world, lambda w, lq, cq: (w.namespace, str(w.spec.get("queueName") or "")) in keys)


def resource_flavor_event(old: Obj | None, new: Obj | None, world: World) -> list[str]:
    """``ResourceFlavorReconciler.Create``/``Update``/``Delete`` (resourceflavor_controller.go):
    the cache returns the ClusterQueues using the flavor and their inadmissible Workloads
    are retried (``NotifyRetryInadmissible``)."""
    names = {o.name for o in (old, new) if o is not None}
    return _pending_where(world, lambda w, lq, cq: cq is not None and any(
        f in names for _, flavors in quota_of(cq).groups for f in flavors))


def namespace_event(old: Obj | None, new: Obj | None, world: World) -> list[str]:
    """``cqNamespaceHandler.Update`` (clusterqueue_controller.go): a Namespace whose labels
    change requeues the inadmissible Workloads of the ClusterQueues whose
    ``namespaceSelector`` it now matches (the plan never changes a Namespace; a created or
    deleted one changes nothing upstream either)."""
    if old is None or new is None or dict(old.labels) == dict(new.labels):
        return []
    return _pending_where(world, lambda w, lq, cq: w.namespace == new.name)


_CORE = "pkg/controller/core/"

#: What puts a Workload key in front of the scheduler (``Scheduler.schedule`` takes
#: ``queues.Heads``): the core controllers' event predicates on Workloads, ClusterQueues,
#: LocalQueues and ResourceFlavors, which update the queue manager and its cache.
SCHEDULER = Controller("kueue/scheduler", WL, (
    Watch(WL, workload_event, f"{_CORE}workload_controller.go#WorkloadReconciler.Create/Update/Delete "
          "(WorkloadReconciler.SetupWithManager: WatchesRawSource(Kind(Workload, ..., r)), r as the predicate)"),
    Watch(CQ, cluster_queue_event, f"{_CORE}clusterqueue_controller.go#ClusterQueueReconciler.Create/Update/Delete"),
    Watch(LQ, local_queue_event, f"{_CORE}localqueue_controller.go#LocalQueueReconciler.Create/Update/Delete"),
    Watch(RF, resource_flavor_event, f"{_CORE}resourceflavor_controller.go#ResourceFlavorReconciler.Create/Update/Delete"),
    Watch("Namespace", namespace_event, f"{_CORE}clusterqueue_controller.go#cqNamespaceHandler.Update"),
), "pkg/scheduler/scheduler.go#Scheduler.schedule (queues.Heads, pkg/cache/queue/manager.go)")

#: kinds the scheduler reads that nothing feeding its queues covers
NOT_WATCHED: Mapping[str, str] = MappingProxyType({})
