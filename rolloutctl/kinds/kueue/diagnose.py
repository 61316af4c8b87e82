"""Why a RayService under Kueue is stuck: a Workload that does not fit the ClusterQueue's
quota (or a misconfigured queue), Pods that keep the elastic-job scheduling gate, and
RayClusters that stay suspended.

Not a Kueue controller: the diagnosis reads the Workloads' conditions as Kueue's
scheduler (``pkg/scheduler/scheduler.go``, ``flavorassigner/flavorassigner.go``) and the
job reconciler (``pkg/controller/jobframework/reconciler.go``) leave them
(kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7), and names the fields to
change. ``KueueRayServiceModel.diagnose`` asks these in order.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from ...core.model import ObjectRef, Obj, Stuck
from ...core.quantity import format_quantity
from ...core.world import World
from ..kuberay.api import API as RAY_API
from ..kuberay.api import HEAD_PENDING, RC, RS, head_phase
from ..kuberay.api import display as kr_display
from .clusterqueue import STRICT_FIFO, inactive_reason, quota_of, usage
from .constants import CQ, ELASTIC_GATE, KUEUE_API, PRIORITY_LABEL, QUEUE_LABEL, RF, WL, WPC
from .context import LEGACY, NESTED, TOP, as_map, children, pod_counts_text
from .elastic_job_ungater import gate_reason
from .finish import finished
from .flavorassigner import assign_flavors
from .podset import counts, quantities, requests_of
from .priority import priority_of
from .queue_manager import find_queue
from .scheduler import queue_head
from .rayservice_controller import is_suspended
from .workload import admitted, condition, quota_reserved, wl_pod_sets
from .workload_names import display

def priority_class_stuck(workloads: Sequence[Obj], world: World, rs: Obj) -> Stuck | None:
    """No unfinished Workload because the ``kueue.x-k8s.io/priority-class`` label names a
    WorkloadPriorityClass that does not exist: ``ExtractPriority`` fails with NotFound (event
    ``WorkloadPriorityClassNotFound``), so the job reconciler creates no Workload and the
    RayService stays suspended (``reconciler.extract_priority``)."""
    name = rs.labels.get(PRIORITY_LABEL)
    if not name or any(o.name == name for o in world.of_kind(WPC)) or any(not finished(w) for w in workloads):
        return None
    return Stuck("WorkloadPriorityClassNotFound",
                 f"the RayService's label {PRIORITY_LABEL}={name!r} names a WorkloadPriorityClass that does not "
                 "exist: Kueue's job reconciler fails to construct the Workload (ExtractPriority: NotFound, event "
                 "WorkloadPriorityClassNotFound), creates none and retries; the RayService is never admitted. "
                 f"Fields: RayService metadata.labels[{PRIORITY_LABEL}] → WorkloadPriorityClass metadata.name",
                 (ObjectRef(RS, rs.namespace, rs.name, RAY_API), ObjectRef(WPC, "", name, KUEUE_API)),
                 (f"create WorkloadPriorityClass {name} (include it in the input)",
                  "or, while the RayService is suspended, set the label to an existing class (it cannot be removed "
                  "once set)"))


def quota_stuck(mode: str, workloads: Sequence[Obj], world: World, rs: Obj) -> Stuck | None:
    """A Workload of the RayService (``workloads``: all of them, oldest first) that is not
    admitted: the queue is missing or stopped, or the quota is short (and by how much).
    Under the nested model, RayClusters KubeRay created while the service was suspended
    stay suspended after admission: the diagnosis says so, and what to do with them then."""
    got = _quota_stuck(mode, workloads, world, rs)
    if got is None or mode != NESTED or not is_suspended(mode, rs):
        return got
    born = _born_suspended(world, rs)
    if not born:
        return got
    refs = tuple(ObjectRef(RC, c.namespace, kr_display(c.name) or c.name, RAY_API) for c in born)
    return Stuck(got.reason, got.message + born_suspended_text(born),
                 got.blocked_on + tuple(r for r in refs if r not in got.blocked_on),
                 got.remedies + tuple(born_suspended_remedies(born)))


def _quota_stuck(mode: str, workloads: Sequence[Obj], world: World, rs: Obj) -> Stuck | None:
    ours = [w for w in workloads if not finished(w)]
    pend = [w for w in ours if not quota_reserved(w)]
    if not pend:
        return None
    w = pend[-1]
    holding = [o for o in ours if quota_reserved(o) and o.name != w.name]
    c = condition(w, "QuotaReserved") or {}
    why = str(c.get("reason") or "Pending")
    wref = ObjectRef(WL, w.namespace, display(w.name), KUEUE_API)
    lq, cq = find_queue(world, w.namespace, str(w.spec.get("queueName") or ""))
    blocked = [wref]
    if cq is not None:
        blocked.append(ObjectRef(CQ, "", cq.name, KUEUE_API))
    pss = wl_pod_sets(w)
    req = requests_of(pss)
    what = (f"Workload {display(w.name)} (pod sets {pod_counts_text(counts(pss))}, requests {_fmt(req)}) is not admitted "
            f"(QuotaReserved=False/{why}: {c.get('message') or 'pending'})")
    if why == "Misconfigured" and cq is not None and str(c.get("message") or "").startswith(
            "workload namespace doesn't match"):
        return Stuck("QueueMisconfigured", what + f". Fields: ClusterQueue {cq.name} spec.namespaceSelector",
                     tuple(blocked), (f"set ClusterQueue {cq.name} spec.namespaceSelector to {{}} (every namespace) "
                                      f"or to a selector that matches namespace {w.namespace}",))
    if why in ("Misconfigured",) or lq is None or cq is None:
        return Stuck("QueueMisconfigured", what + f". Fields: RayService metadata.labels[{QUEUE_LABEL}]="
                     f"{w.spec.get('queueName')!r} → LocalQueue spec.clusterQueue → ClusterQueue",
                     tuple(blocked), (f"create LocalQueue {w.spec.get('queueName')} in namespace {w.namespace} "
                                      "pointing at an existing ClusterQueue (include it in the input)",))
    q = quota_of(cq)
    inactive = inactive_reason(cq, world)
    if inactive is not None:
        remedy = (f"set ClusterQueue {cq.name} spec.stopPolicy: None" if q.stop_policy in ("Hold", "HoldAndDrain")
                  else f"create the ResourceFlavors ClusterQueue {cq.name} names (include them in the input), or "
                       "remove them from its resourceGroups")
        return Stuck("QueueMisconfigured", what + f". ClusterQueue {cq.name} is inactive: {inactive}",
                     tuple(blocked), (remedy,))
    head = queue_head(world, cq.name) if q.queueing == STRICT_FIFO else None
    if head is not None and head.name not in {o.name for o in ours}:
        hc = condition(head, "QuotaReserved") or {}
        return Stuck("QueueBlocked",
                     f"never admitted: {what}. ClusterQueue {cq.name} uses queueingStrategy StrictFIFO and its head is "
                     f"Workload {head.namespace}/{display(head.name)} (priority {priority_of(head)}, older or higher), "
                     f"not admitted ({hc.get('reason') or 'pending'}: {hc.get('message') or 'waits for quota'}); the "
                     "head is retried first every cycle, so no Workload behind it is tried "
                     "(pkg/cache/queue/cluster_queue.go#RequeueIfNotPresent)",
                     tuple(blocked) + (ObjectRef(WL, head.namespace, display(head.name), KUEUE_API),),
                     (f"free quota for Workload {display(head.name)} or delete it", f"or set ClusterQueue {cq.name} "
                      "spec.queueingStrategy: BestEffortFIFO (a Workload that does not fit then steps aside)"))
    upgrade = bool(holding) or (mode == LEGACY and any(
        quota_reserved(o) for o in ours if o.name != w.name))
    old = next((o for o in holding), None)
    exclude = [old.name] if (old is not None and mode != LEGACY) else []
    used = usage(world, cq.name, exclude=exclude)
    rfs = {o.name: o for o in world.of_kind(RF)}
    a = assign_flavors(q, pss, used, rfs)
    need_lines = []
    remedies = []
    for (f, r), (total, free, nom) in sorted(a.short.items()):
        others = nom - free if free > 0 else sum(v for (ff, rr), v in used.items() if ff == f and rr == r)
        need = total + others
        need_lines.append(f"{r} in flavor {f}: nominalQuota {format_quantity(nom, r)}, used by other Workloads "
                          f"{format_quantity(others, r)}, this Workload needs {format_quantity(total, r)}")
        remedies.append(f"raise ClusterQueue {cq.name} spec.resourceGroups[].flavors[name={f}].resources"
                        f"[name={r}].nominalQuota to at least {format_quantity(need, r)}"
                        + (" (or free the quota the other Workloads hold)" if others and total <= nom else ""))
    code = "QuotaExceeded" if why in ("ExceedsMaxQuota", "NoMatchingFlavor") or a.reason in (
        "ExceedsMaxQuota", "NoMatchingFlavor") else "InsufficientQuota"
    if upgrade:
        held = old if old is not None else next(o for o in ours if quota_reserved(o) and o.name != w.name)
        head = (f"admitted for the old size but not the upgrade size: Workload {display(held.name)} holds "
                f"{pod_counts_text(counts(wl_pod_sets(held)))} ({_fmt(requests_of(wl_pod_sets(held)))}); the upgrade needs ")
        if mode == TOP:
            head += (f"slice {display(w.name)} for both clusters, {pod_counts_text(counts(pss))} ({_fmt(req)}; only the delta "
                     "must fit next to the other Workloads)")
            pend_rc = [c for c in children(world, rs) if c.spec.get("suspend") is True and not c.terminating]
            blocked += [ObjectRef(RC, c.namespace, kr_display(c.name) or c.name, RAY_API) for c in pend_rc]
            head += (". The new RayCluster stays suspended (spec.suspend: true, the persistent gate) and the "
                     "old one keeps serving")
        else:
            head += f"Workload {display(w.name)} for the new RayCluster ({_fmt(req)}, its full request)"
        message = head + ". " + what
        remedies.append("or make the change without a new RayCluster (an in-place change needs no extra quota)")
    elif condition(w, "Requeued") is not None:
        message = ("preempted and re-queued: " + what + f"; evicted because "
                   f"{(condition(w, 'Requeued') or {}).get('reason')}, the RayService was stopped")
    else:
        message = "never admitted: " + what
        if mode != LEGACY and is_suspended(mode, rs):
            message += (f"; the RayService stays suspended ({'spec.suspend' if mode == TOP else 'spec.rayClusterConfig.suspend'}"
                        ": true) and no RayCluster runs")
            blocked.append(ObjectRef(RS, rs.namespace, rs.name, RAY_API))
    if need_lines:
        message = message.replace(f": {c.get('message') or 'pending'})", ")") + ". " + "; ".join(need_lines)
    if code == "QuotaExceeded" and not remedies:
        remedies.append(f"add the missing resource or a matching flavor to ClusterQueue {cq.name}")
    return Stuck(code, message, tuple(blocked), tuple(remedies))


def _born_suspended(world: World, rs: Obj) -> list[Obj]:
    """The RayService's RayClusters KubeRay created while it was queued (nested model):
    ``spec.suspend: true``, copied from ``rayClusterConfig.suspend`` at creation."""
    return [c for c in children(world, rs) if not c.terminating and c.spec.get("suspend") is True]


def born_suspended_text(born: Sequence[Obj]) -> str:
    """Why admission alone does not start a RayCluster born suspended (nested model):
    KubeRay copies the nested suspend only when it creates a cluster
    (``rayservice_controller.go#modifyRayCluster``) and Kueue never unsuspends a child
    job (``reconciler.go#shouldSuspendChildJob`` only suspends)."""
    names = ", ".join(kr_display(c.name) or c.name for c in born)
    one = len(born) == 1
    return (f"; KubeRay has already created RayCluster {names} with spec.suspend: true (copied from "
            f"rayClusterConfig.suspend while the service is queued): when Kueue admits the Workload it sets "
            f"rayClusterConfig.suspend to false, but KubeRay ignores the flip for a cluster that exists "
            f"(rayservice_controller.go#modifyRayCluster) and Kueue never unsuspends a child RayCluster, so "
            f"{'it stays' if one else 'they stay'} suspended and the RayService stays down after admission too")


def born_suspended_remedies(born: Sequence[Obj]) -> list[str]:
    """What to do with RayClusters born suspended once the Workload is admitted."""
    out = []
    for c in born:
        name = kr_display(c.name) or c.name
        out.append(f"then, once the Workload is admitted: kubectl patch raycluster {name} --type merge "
                   "-p '{\"spec\":{\"suspend\":false}}', or delete RayCluster " + name
                   + " (KubeRay re-creates it from the current spec, unsuspended)")
    return out


def gated_stuck(mode: str, workloads: Sequence[Obj], world: World, rs: Obj) -> Stuck | None:
    """A RayCluster whose head Pod keeps the elastic-job gate (``elastic_job_ungater.gate_reason``)."""
    for c in children(world, rs):
        if c.terminating or c.spec.get("suspend") is True or head_phase(c) != HEAD_PENDING:
            continue
        reason = gate_reason(mode, c, world)
        if reason is None:
            continue
        ws = [w for w in workloads if not finished(w) and admitted(w)]
        grant = counts(wl_pod_sets(ws[-1])) if ws else {}
        return Stuck("PodsGated", f"the Pods of RayCluster {kr_display(c.name)} keep the scheduling gate "
                     f"{ELASTIC_GATE}: the admitted Workload grants {pod_counts_text(grant)} and the other cluster's Pods already "
                     "use it; under the nested model an upgrade does not grow the Workload (Kueue sizes it from "
                     "the RayService template, kubernetes-sigs/kueue#11102) [derived]",
                     (ObjectRef(RC, c.namespace, kr_display(c.name) or c.name, RAY_API),) +
                     tuple(ObjectRef(WL, w.namespace, display(w.name), KUEUE_API) for w in ws[-1:]),
                     ("remove the kueue.x-k8s.io/elastic-job annotation (non-elastic: the new cluster is not "
                      "gated but also not accounted)", "or use the top-level model (Kueue PR #11264), which "
                      "sizes a slice for both clusters"))
    return None


def suspended_stuck(mode: str, workloads: Sequence[Obj], base: Stuck, world: World, rs: Obj) -> Stuck:
    """KubeRay's ``ClusterSuspended`` explained by who suspended the RayCluster and why nobody
    unsuspends it, per Kueue model."""
    ws = [w for w in workloads if not finished(w)]
    susp = [c for c in children(world, rs) if not c.terminating and c.spec.get("suspend") is True]
    refs = tuple(ObjectRef(RC, c.namespace, kr_display(c.name) or c.name, RAY_API) for c in susp)
    refs += tuple(ObjectRef(WL, w.namespace, display(w.name), KUEUE_API) for w in ws)
    names = ", ".join(kr_display(c.name) or c.name for c in susp)
    if mode == NESTED:
        if ws and admitted(ws[-1]):
            msg = (f"RayCluster {names} was created while rayClusterConfig.suspend was still true (Kueue admits "
                   f"by setting it to false, Workload {display(ws[-1].name)} is Admitted) — KubeRay copies the "
                   "nested suspend only when it creates a cluster and ignores later flips "
                   "(rayservice_controller.go#modifyRayCluster), and Kueue never unsuspends a child RayCluster. "
                   "The RayService status is frozen (every pass stops at \"found 0 head\") while the Workload "
                   "holds quota")
        else:
            st = rs.status
            active = as_map(st.get("activeServiceStatus")).get("rayClusterName")
            outage = any(c.name == active for c in susp)
            pending = as_map(st.get("pendingServiceStatus")).get("rayClusterName")
            pending_named = bool(pending) and all(c.name == pending for c in susp)
            msg = ((f"the serving RayCluster {kr_display(active)} was suspended by Kueue (its Pods are deleted) "
                    "while the RayService status still says Ready=True; " if outage else "") +
                   f"{'the pending RayCluster' if pending_named else 'RayCluster'} {names} is suspended and the RayService has "
                   + (f"Workload {display(ws[-1].name)} not admitted" if ws else "no Workload") +
                   ": Kueue suspended it as a child job (reconciler.go#shouldSuspendChildJob) or KubeRay created "
                   "it while rayClusterConfig.suspend was true; Kueue creates no new Workload while the "
                   "RayService reports Ready=True, and nobody unsuspends the cluster [derived]")
            running = [c for c in children(world, rs) if not c.terminating and c.spec.get("suspend") is not True]
            if running and not (ws and admitted(ws[-1])):
                names_r = ", ".join(kr_display(c.name) or c.name for c in running)
                which = "the serving RayCluster" if any(c.name == active for c in running) else "RayCluster"
                msg += (f"; {which} {names_r} keeps running with no admitted Workload, so Kueue holds no quota "
                        "for it (other Workloads can be admitted into that quota), until Kueue's RayCluster job "
                        "reconciler next sees an event of it (a change of the RayCluster, a Kueue restart, or "
                        "the informer's resync, every 10 hours by default): then shouldSuspendChildJob "
                        "suspends it and its Pods are deleted (it watches the RayCluster, not the RayService "
                        "or its Workload)")
    elif mode == TOP:
        msg = (f"RayCluster {names} is suspended (born suspended from the persistent nested gate) and Kueue's "
               "unsuspendAdmittedChildren does not release it: the newest Workload is not Admitted or does not "
               "cover every child (kueue[POC])")
    else:
        msg = base.message
    return Stuck("ClusterSuspended", msg + ". Fields: RayCluster spec.suspend, RayService "
                 "spec.rayClusterConfig.suspend, Workload status.conditions[Admitted]", refs or base.blocked_on,
                 base.remedies)


def _fmt(res: Mapping[str, int]) -> str:
    return ", ".join(f"{r} {v}" for r, v in quantities(res).items()) or "nothing"
