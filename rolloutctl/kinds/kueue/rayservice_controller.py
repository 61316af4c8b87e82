"""The GenericJob side of Kueue's RayService integration: how Kueue reads and writes a
RayService (and, in the legacy model, a RayCluster) as a job, per integration model, and
the POC's post-step that unsuspends admitted children.

Upstream: kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7, ``pkg/controller/jobs/rayservice/rayservice_controller.go``
(``IsSuspended``, ``Suspend``, ``IsActive``, ``PodSets``) and, for the legacy model,
``pkg/controller/jobs/raycluster/raycluster_controller.go``; top-level model: Kueue's
PR #11264 at 1828096a (``unsuspendAdmittedChildren``, ``PodSets`` summed over the child
RayClusters). The children are found by KubeRay's association labels. What the
RayService job reconciler watches (``rayServiceReconciler.SetupWithManager`` and
``setup``) is ``CONTROLLER``, as data.
"""

from __future__ import annotations

import copy
from types import MappingProxyType
from typing import Any, Mapping, Sequence

from ...core.model import Obj
from ...core.queue import Controller, Watch, by_controller_owner, own_name
from ...core.world import World
from ..kuberay.api import RC, RS
from ..kuberay.conditions import is_true as kr_is_true
from .constants import QUEUE_LABEL, RF, WL, WPC
from .context import RSC, TOP, KueuePass, as_map, children, pod_counts_text, rule
from .finish import finished
from .podset import PodSet, counts
from .raycluster_common import build_pod_sets
from .workload import admitted, wl_pod_sets
from .workload_names import display
from .workloadslicing import is_elastic


def sum_pod_sets(cluster_specs: Sequence[Mapping[str, Any]],
                 annotations: Sequence[Mapping[str, Any]] | None = None) -> list[PodSet]:
    """kueue[POC] ``RayService.PodSets`` (rayservice_controller.go @1828096a): the pod
    sets of every child RayCluster, united by name with counts summed; the first
    child's template wins for a shared name (a known limitation of the POC)."""
    merged: dict[str, PodSet] = {}
    for i, spec in enumerate(cluster_specs):
        for ps in build_pod_sets(spec, annotations[i] if annotations else None):
            cur = merged.get(ps.name)
            merged[ps.name] = ps if cur is None else PodSet(cur.name, cur.count + ps.count, cur.template)
    return list(merged.values())


def is_suspended(mode: str, job: Obj) -> bool:
    """``IsSuspended``: (top-level, POC) RayService ``spec.suspend``; (nested) RayService
    ``rayClusterConfig.suspend``; (legacy) RayCluster ``spec.suspend``."""
    if job.kind == RC:
        return job.spec.get("suspend") is True
    if mode == TOP:
        return job.spec.get("suspend") is True
    return as_map(job.spec.get("rayClusterConfig")).get("suspend") is True


def is_active(job: Obj) -> bool:
    """``IsActive``: RayService ``Ready`` condition True; RayCluster ``status.state`` ready."""
    if job.kind == RC:
        return job.status.get("state") == "ready"
    return kr_is_true(job.status, "Ready")


def cluster_spec(raw: dict) -> dict:
    spec = raw.setdefault("spec", {})
    if raw.get("kind") == RC:
        return spec
    return spec.setdefault("rayClusterConfig", {})


def suspend(mode: str, raw: dict) -> dict[str, Any]:
    """``Suspend``: (top-level, POC) both suspend fields true; (nested) the nested one;
    (legacy) the RayCluster's. Returns the fields written."""
    if raw.get("kind") == RC:
        raw["spec"]["suspend"] = True
        return {"spec.suspend": True}
    if mode == TOP:
        raw["spec"]["suspend"] = True
        cluster_spec(raw)["suspend"] = True
        return {"spec.suspend": True, "spec.rayClusterConfig.suspend": True}
    cluster_spec(raw)["suspend"] = True
    return {"spec.rayClusterConfig.suspend": True}


def pod_sets(mode: str, job: Obj, world: World) -> list[PodSet] | None:
    """``PodSets``: (top-level, kueue[POC]) summed over the live child RayClusters, the
    template when there is none; (nested) the RayService template, worker counts from the
    active RayCluster for an elastic autoscaling RayService (``raycluster/common.go``
    ``UpdatePodSets``), None when that cluster has a worker group the template does not
    (upstream's "PodSet name mismatch" error: the reconcile stops); (legacy) the
    RayCluster's spec."""
    if job.kind == RC:
        return build_pod_sets(job.spec, job.annotations)
    rcc = as_map(job.spec.get("rayClusterConfig"))
    if mode == TOP:
        kids = children(world, job)
        return sum_pod_sets([c.spec for c in kids], [c.annotations for c in kids]) if kids else \
            build_pod_sets(rcc, job.annotations)
    pss = build_pod_sets(rcc, job.annotations)
    if is_elastic(job) and rcc.get("enableInTreeAutoscaling") is True:
        active = as_map(job.status.get("activeServiceStatus")).get("rayClusterName")
        rc = world.get(RC, job.namespace, active) if active else None
        if rc is not None:
            live = {p.name: p.count for p in build_pod_sets(rc.spec)[1:]}
            if set(live) - {p.name for p in pss}:
                return None
            pss = [PodSet(p.name, live.get(p.name, p.count), p.template) for p in pss]
    return pss


def unsuspend_admitted_children(p: KueuePass) -> None:
    """kueue[POC] ``unsuspendAdmittedChildren`` (rayservice_controller.go @1828096a): when
    the newest unfinished Workload is Admitted and its counts cover the pod sets every
    current child needs (race guard), every suspended child RayCluster is unsuspended."""
    rs = p.rs
    if rs is None or rs.spec.get("suspend") is True or not rs.labels.get(QUEUE_LABEL):
        return
    ws = [w for w in p.workloads_of(rs) if not finished(w)]
    if not ws:
        return
    newest = ws[-1]
    if not admitted(newest):
        return
    kids = children(p.w, rs)
    need = counts(sum_pod_sets([c.spec for c in kids]))
    have = counts(wl_pod_sets(newest))
    if any(have.get(k, 0) < v for k, v in need.items()):
        return
    for c in kids:
        if c.terminating or c.spec.get("suspend") is not True:
            continue
        raw = copy.deepcopy(dict(c.raw))
        raw["spec"]["suspend"] = False
        st = rs.status
        role = ("active" if c.name == as_map(st.get("activeServiceStatus")).get("rayClusterName") else
                "pending" if c.name == as_map(st.get("pendingServiceStatus")).get("rayClusterName") else None)
        p.act("update", RC, c.name, f"Workload {display(newest.name)} is admitted and covers every child "
              f"({pod_counts_text(have)} >= {pod_counts_text(need)}): unsuspend the RayCluster", rule(RSC, "unsuspendAdmittedChildren", True),
              payload=raw, fields={"spec.suspend": False}, role=role)


# --------------------------------------------------------------------------- watches

_SETUP = "pkg/controller/jobs/rayservice/rayservice_controller.go#rayServiceReconciler.SetupWithManager"

#: ``rayServiceReconciler.SetupWithManager`` (and ``setup``): what Kueue's RayService job
#: reconciler watches, the same at ff69552e and in PR #11264 @1828096a, whose
#: ``Reconcile`` adds ``unsuspendAdmittedChildren`` (same controller, same watches).
#: ``For`` has no predicate: every event on the RayService, status-only updates included
#: (KubeRay's status writes), enqueues it. The job reconciler of
#: ``jobframework/reconciler.go`` (``ReconcileGenericJob``) runs on these keys.
CONTROLLER = Controller("kueue/rayservice", RS, (
    Watch(RS, own_name, f"{_SETUP}: For(newJob().Object()), no predicates"),
    Watch(WL, by_controller_owner(RS), f"{_SETUP}: Owns(&kueue.Workload{{}}) (EnqueueRequestForOwner, OnlyControllerOwner)"),
    Watch(RC, by_controller_owner(RS), "pkg/controller/jobs/rayservice/rayservice_controller.go#setup (from SetupWithManager): "
          "Watches(&rayv1.RayCluster{}, EnqueueRequestForOwner(..., &rayv1.RayService{}, OnlyControllerOwner()))"),
), _SETUP)

#: kinds the RayService job reconciler reads that no watch of it covers, and why
NOT_WATCHED = MappingProxyType({
    WPC: "read when a Workload is constructed (reconciler.go ExtractPriority -> "
         "GetPriorityFromWorkloadPriorityClass, a client Get); not watched: a changed class does not enqueue the job",
    RF: "read when the job starts (reconciler.go startJob -> getPodSetsInfoFromStatus -> podset.FromAssignment, a "
        "client Get of each assigned flavor for its node labels and tolerations) and, in the model, when it stops "
        "(to remove what startJob injected; upstream restores from the Workload's pod sets); not watched",
})
