"""Kueue's controllers for a RayService, one pass at a time: the mutating webhooks, the
generic job reconciler (with workload slicing), the scheduler (admission, preemption)
and, in the top-level model, the POC's ``unsuspendAdmittedChildren`` post-step; plus the
elastic-job ungater that runs between passes.

Three integration models (docs/kueue.md):

- ``top-level`` — kueue[POC] PR #11264 @1828096a: Kueue owns the RayService's
  ``spec.suspend``; ``rayClusterConfig.suspend`` stays true as a persistent gate so every
  RayCluster is born suspended; pod sets are summed over the live child RayClusters.
- ``nested`` — merged (Kueue >= v0.17): Kueue owns ``rayClusterConfig.suspend``; pod sets come
  from the RayService template; a RayCluster the RayService creates is a child job that
  Kueue may suspend but never unsuspends.
- ``legacy`` — merged RayCluster integration (Kueue < v0.17, or the RayService integration
  disabled): every RayCluster is its own job with its own Workload.

Upstream paths (kubernetes-sigs/kueue): ``pkg/controller/jobframework/reconciler.go``
(``ReconcileGenericJob``, ``ensureOneWorkload``, ``handleJobWithNoWorkload``, ``startJob``,
``stopJob``), ``pkg/workloadslicing/workloadslicing.go`` (``EnsureWorkloadSlices``),
``pkg/scheduler/scheduler.go`` (``schedule``, ``admit``, ``replaceWorkloadSlice``),
``pkg/scheduler/preemption/preemption.go``, ``pkg/controller/jobs/rayservice/`` and
``pkg/controller/jobs/raycluster/`` (``rayservice_webhook.go`` ``Default``,
``raycluster_webhook.go`` ``Default``), ``pkg/controller/elasticjobs/elastic_job_ungater.go``.
"""

from __future__ import annotations

import copy
from typing import Any, Mapping, Sequence

from ...core.model import Action, Obj
from ...core.world import World
from ..kuberay.api import L_CRD, L_NAME, RC, RS
from ..kuberay.api import display as kr_display
from ..kuberay.conditions import is_true as kr_is_true
from .workload import (CQ, ELASTIC_ANN, ELASTIC_GATE, LQ, QUEUE_LABEL, PRIORITY_LABEL, REPLACEMENT_ANN, RF,
                       SLICE_NAME_ANN, WL, WPC, PodSet, add_gate, admitted, assign_flavors, build_pod_sets,
                       cluster_templates, counts, created_at, display, evicted, find_queue, finished,
                       injected_pod_set_info, merge_into_template, owner_of, priority_of, quantities, quota_of,
                       quota_reserved, requests_of, slice_number, strip_injection, sum_pod_sets, usage,
                       with_conditions, wl_pod_sets, workload_name, workload_object, condition)

TOP, NESTED, LEGACY = "top-level", "nested", "legacy"
MODELS = (TOP, NESTED, LEGACY)
MEM_CREATE = "kueue/createRequest"
MEM_UNGATED = "kueue/ungated"
MEM_NOTES = "kueue/notes"


def rule(path: str, fn: str, poc: bool = False) -> str:
    return f"kueue{'[POC]' if poc else ''}:{path}#{fn}"


REC = "jobframework/reconciler.go"
RSC = "jobs/rayservice/rayservice_controller.go"
RSW = "jobs/rayservice/rayservice_webhook.go"
RCW = "jobs/raycluster/raycluster_webhook.go"
SCH = "scheduler/scheduler.go"
WSL = "workloadslicing/workloadslicing.go"


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def is_elastic(obj: Obj) -> bool:
    """``workloadslicing.Enabled``: annotation ``kueue.x-k8s.io/elastic-job: "true"`` (gate
    ElasticJobsViaWorkloadSlices is beta and on)."""
    return obj.annotations.get(ELASTIC_ANN) == "true"


def children(world: World, rs: Obj) -> list[Obj]:
    """RayClusters of the RayService by KubeRay's association labels, terminating ones
    included (a terminating RayCluster is still listed)."""
    return [c for c in world.select(RC, {L_NAME: rs.name, L_CRD: "RayService"}) if c.namespace == rs.namespace]


# --------------------------------------------------------------------------- GenericJob per model


def is_suspended(mode: str, job: Obj) -> bool:
    """``IsSuspended``: (top-level, POC) RayService ``spec.suspend``; (nested) RayService
    ``rayClusterConfig.suspend``; (legacy) RayCluster ``spec.suspend``."""
    if job.kind == RC:
        return job.spec.get("suspend") is True
    if mode == TOP:
        return job.spec.get("suspend") is True
    return _m(job.spec.get("rayClusterConfig")).get("suspend") is True


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


def pod_sets(mode: str, job: Obj, world: World) -> list[PodSet]:
    """``PodSets``: (top-level, kueue[POC]) summed over the live child RayClusters, the
    template when there is none; (nested) the RayService template, worker counts from the
    active RayCluster for an elastic autoscaling RayService (``UpdatePodSets``);
    (legacy) the RayCluster's spec."""
    if job.kind == RC:
        return build_pod_sets(job.spec)
    rcc = _m(job.spec.get("rayClusterConfig"))
    if mode == TOP:
        kids = children(world, job)
        return sum_pod_sets([c.spec for c in kids]) if kids else build_pod_sets(rcc)
    pss = build_pod_sets(rcc)
    if is_elastic(job) and rcc.get("enableInTreeAutoscaling") is True:
        active = _m(job.status.get("activeServiceStatus")).get("rayClusterName")
        rc = world.get(RC, job.namespace, active) if active else None
        if rc is not None:
            live = {p.name: p.count for p in build_pod_sets(rc.spec)}
            pss = [PodSet(p.name, live.get(p.name, p.count), p.template) for p in pss]
    return pss


def equivalent(job_sets: Sequence[PodSet], w: Obj) -> bool:
    """``EquivalentToWorkload`` / ``ComparePodSets``: same pod set names and counts, and the
    same containers and init containers; labels, annotations and node selectors are not
    compared."""
    ws = wl_pod_sets(w)
    if [p.name for p in job_sets] != [p.name for p in ws] or counts(job_sets) != counts(ws):
        return False
    for a, b in zip(job_sets, ws):
        for k in ("containers", "initContainers"):
            if _l(_m(a.template.get("spec")).get(k)) != _l(_m(b.template.get("spec")).get(k)):
                return False
    return True


# --------------------------------------------------------------------------- the Kueue pass


class KueuePass:
    """Everything Kueue writes after one KubeRay pass: webhooks on objects created in
    it, the job reconciler, the scheduler, the job reconciler again (start or stop the job),
    and the POC post-step. Each write is applied at once, so later steps see it."""

    def __init__(self, mode: str, world: World, rs_key: tuple[str, str], created: Sequence[str] = ()) -> None:
        self.mode = mode
        self.w = world
        self.ns, self.name = rs_key
        self.created = set(created)
        self.actions: list[Action] = []

    # -- helpers -----------------------------------------------------------------------
    def act(self, verb: str, kind: str, name: str, reason: str, rule_str: str, *, payload: Mapping | None = None,
            fields: Mapping | None = None, role: str | None = None) -> None:
        shown = display(name) if kind == WL else (kr_display(name) or name)
        a = Action(verb=verb, kind=kind, name=shown, namespace=self.ns, reason=reason, rule=rule_str,
                   role=role, fields=dict(fields or {}), payload=payload, uid=name if shown != name else None)
        self.actions.append(a)
        self.w = self.w.apply([a])

    @property
    def rs(self) -> Obj | None:
        return self.w.get(RS, self.ns, self.name)

    def rfs(self) -> dict[str, Obj]:
        return {o.name: o for o in self.w.of_kind(RF)}

    def workloads_of(self, job: Obj) -> list[Obj]:
        return sorted((w for w in self.w.of_kind(WL) if w.namespace == job.namespace and not w.terminating
                       and owner_of(w) == (job.kind, job.name)), key=created_at)

    def jobs(self) -> list[Obj]:
        rs = self.rs
        if rs is None:
            return []
        if self.mode == LEGACY:
            return [c for c in children(self.w, rs)]
        return [rs]

    def priority(self, job: Obj) -> int:
        """``ExtractPriority``: the WorkloadPriorityClass named by the priority label, else 0
        (PriorityClasses of pod templates are not modelled)."""
        n = job.labels.get(PRIORITY_LABEL)
        if n:
            wpc = next((o for o in self.w.of_kind(WPC) if o.name == n), None)
            if wpc is not None and isinstance(wpc.raw.get("value"), int):
                return int(wpc.raw["value"])
        return 0

    # -- the pass ----------------------------------------------------------------------
    def run(self) -> list[Action]:
        if self.rs is None:
            return []
        if self.mode == LEGACY:
            for c in list(children(self.w, self.rs)):
                if c.name in self.created:
                    self.raycluster_webhook_default(c)
        for job in self.jobs():
            self.reconcile_generic_job(job)
        self.finalize_orphans()
        if self.mode == NESTED:
            self.suspend_children()
        self.schedule()
        for job in self.jobs():
            self.reconcile_generic_job(job)
        if self.mode == TOP:
            self.unsuspend_admitted_children()
        return self.actions

    # -- webhooks ----------------------------------------------------------------------
    def raycluster_webhook_default(self, rc: Obj) -> None:
        """``raycluster_webhook.go`` ``Default`` → ``ApplyDefaultForSuspend`` (legacy model):
        a RayCluster with a queue label and no Kueue-managed owner is stored suspended.
        Shown as its own action; it happens inside KubeRay's create request."""
        if not rc.labels.get(QUEUE_LABEL) or rc.spec.get("suspend") is True:
            return
        raw = copy.deepcopy(dict(rc.raw))
        raw["spec"]["suspend"] = True
        self.act("update", RC, rc.name, "Kueue's RayCluster mutating webhook on create: the cluster carries the "
                 f"queue label {rc.labels.get(QUEUE_LABEL)!r} (copied from the RayService) and is stored suspended",
                 rule(RCW, "Default"), payload=raw, fields={"spec.suspend": True}, role="pending")

    # -- ReconcileGenericJob -----------------------------------------------------------
    def reconcile_generic_job(self, job0: Obj) -> None:
        """``ReconcileGenericJob`` (reconciler.go): first matching row wins."""
        job = self.w.get(job0.kind, job0.namespace, job0.name)
        if job is None or job.terminating:
            return
        if not job.labels.get(QUEUE_LABEL):
            return  # not managed (manageJobsWithoutQueueName off)
        elastic = is_elastic(job) and job.kind == RS
        pss = pod_sets(self.mode, job, self.w)
        w = self.ensure_one_workload(job, pss, elastic)
        job = self.w.get(job.kind, job.namespace, job.name) or job
        if w is None:
            self.handle_job_with_no_workload(job, pss, elastic)
            return
        if finished(w):
            return
        if evicted(w):
            self.stop_job(job, w, "WorkloadEvicted", f"Workload {display(w.name)} was evicted "
                          f"({(condition(w, 'Evicted') or {}).get('reason')})")
            job = self.w.get(job.kind, job.namespace, job.name) or job
            if quota_reserved(w) and not is_active(job):
                self.clear_reservation(w)
            return
        if is_suspended(self.mode, job):
            if admitted(w):
                self.start_job(job, w)
            return
        if not admitted(w):
            if elastic:
                return  # pods are held by the elastic-job scheduling gate instead
            self.stop_job(job, w, "NotAdmitted", f"Workload {display(w.name)} is not admitted")

    def ensure_one_workload(self, job: Obj, pss: list[PodSet], elastic: bool) -> Obj | None:
        """``ensureOneWorkload``: elastic jobs go through ``EnsureWorkloadSlices``; otherwise a
        Workload that is not equivalent is removed (the job stopped first when running) or,
        while suspended without quota, rewritten in place (``updateWorkloadToMatchJob``)."""
        ws = [w for w in self.workloads_of(job) if not finished(w)]
        if elastic:
            return self.ensure_workload_slices(job, pss, ws)
        if not ws:
            return None
        w = ws[-1]
        for extra in ws[:-1]:
            self.act("delete", WL, extra.name, "more than one Workload for the job: the extra one is removed",
                     rule(REC, "ensureOneWorkload"))
        if equivalent(pss, w):
            return w
        if is_suspended(self.mode, job) and not quota_reserved(w):
            raw = copy.deepcopy(dict(w.raw))
            raw["spec"]["podSets"] = [p.to_raw() for p in pss]
            self.act("update", WL, w.name, "the job changed while suspended and the Workload holds no quota: "
                     "its pod sets are rewritten in place", rule(REC, "updateWorkloadToMatchJob"), payload=raw,
                     fields={"podSets": counts(pss)})
            return self.w.get(WL, w.namespace, w.name)
        if not is_suspended(self.mode, job):
            self.stop_job(job, w, "WorkloadDeleted", f"the job no longer matches Workload {display(w.name)} "
                          "(pod set counts or containers changed) and the elastic-job annotation is absent")
        self.act("delete", WL, w.name, "the job no longer matches this Workload (pod set counts or containers "
                 "differ): it is deleted; a new one is created once the job is no longer active",
                 rule(REC, "ensureOneWorkload"), fields={"podSets": counts(wl_pod_sets(w)), "job": counts(pss)})
        return None

    def ensure_workload_slices(self, job: Obj, pss: list[PodSet], ws: list[Obj]) -> Obj | None:
        """``EnsureWorkloadSlices`` / ``normalizeActiveSlices`` (workloadslicing.go): keep the
        reserved head of the chain and at most one pending replacement (others Finished);
        equal counts keep the slice; a slice without quota, or any scale-down, is updated in
        place; a scale-up of a reserved slice needs a replacement slice (None here, with
        ``self.replace_for`` set)."""
        self.replace_for: Obj | None = None
        if not ws:
            return None
        if len(ws) == 1 and evicted(ws[0]):
            return ws[0]  # eviction is handled by the reconciler (stop the job, then requeue)
        reserved = [w for w in ws if quota_reserved(w) and not evicted(w)]
        pending = [w for w in ws if not quota_reserved(w)]
        keep: list[Obj] = []
        if reserved:
            keep.append(reserved[0])
        if pending:
            keep.append(pending[-1])
        for w in ws:
            if w in keep:
                continue
            replaced = any(k.annotations.get(REPLACEMENT_ANN) == f"{w.namespace}/{w.name}" for k in keep)
            why = "WorkloadSliceReplaced" if replaced else "OutOfSync"
            raw = with_conditions(copy.deepcopy(dict(w.raw)), {"Finished": ("True", why, "slice normalisation")})
            self.act("update", WL, w.name, f"more than one active slice: this one is finished ({why})",
                     rule(WSL, "normalizeActiveSlices"), payload=raw, fields={"conditions": {"Finished": f"True/{why}"}},
                     role=f"slice-{slice_number(w.name)}")
        if not keep:
            return None
        w = keep[-1]
        old = counts(wl_pod_sets(w))
        new = counts(pss)
        if set(old) != set(new):
            return None if not quota_reserved(w) else w
        if old == new:
            return w
        if not quota_reserved(w) or all(new[k] <= old[k] for k in new):
            raw = copy.deepcopy(dict(w.raw))
            raw["spec"]["podSets"] = [dict(p, count=new[p["name"]]) for p in raw["spec"]["podSets"]]
            why = "scale-down" if all(new[k] <= old[k] for k in new) else "no quota reserved yet"
            rel = ""
            if quota_reserved(w) and why == "scale-down":
                rel = f"; the ClusterQueue frees {quantities(requests_of(wl_pod_sets(w)))} - " \
                      f"{quantities(requests_of([PodSet(p.name, new[p.name], p.template) for p in wl_pod_sets(w)]))} at once"
            self.act("update", WL, w.name, f"the job's pod sets changed ({why}): the slice's counts are updated in "
                     f"place{rel}", rule(WSL, "EnsureWorkloadSlices"), payload=raw,
                     fields={"podSets": new, "was": old}, role=f"slice-{slice_number(w.name)}")
            return self.w.get(WL, w.namespace, w.name)
        self.replace_for = w
        return None

    def handle_job_with_no_workload(self, job: Obj, pss: list[PodSet], elastic: bool) -> None:
        """``handleJobWithNoWorkload``: an active non-elastic job waits; otherwise a Workload
        is constructed and created (elastic: a slice, a replacement when scaling up)."""
        if is_active(job) and not elastic:
            return
        old = getattr(self, "replace_for", None) if elastic else None
        prefix = "rayservice" if job.kind == RS else "raycluster"
        name = workload_name(prefix, job.name, self.w, job.namespace, fresh=elastic or
                             self.w.get(WL, job.namespace, f"{prefix}-{job.name}-<hash>") is not None)
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
                why = (f"the job's pod sets grew ({_ps(counts(wl_pod_sets(old)))} -> {_ps(counts(pss))}) while slice "
                       f"{display(old.name)} holds quota: create a replacement slice")
                fn = "prepareWorkloadSlice"
        if self.mode == TOP and job.kind == RS:
            kids = [c.name for c in children(self.w, job)]
            src = (f"summed over RayClusters {', '.join(sorted(display_rc(k) for k in kids))}" if kids
                   else "from the RayService template (no RayCluster yet)")
            why += f"; pod sets {src} (kueue[POC] RayService.PodSets)"
            poc = True
        elif job.kind == RC:
            why += " (legacy model: the RayCluster is the job)"
        else:
            why += " (pod sets from the RayService template)"
        raw = workload_object(name, job.namespace, (job.kind, job.name), str(job.labels.get(QUEUE_LABEL)),
                              pss, self.priority(job), ann, self.w.now)
        fields: dict[str, Any] = {"podSets": counts(pss), "requests": quantities(requests_of(pss)),
                                  "queueName": job.labels.get(QUEUE_LABEL)}
        if ann.get(REPLACEMENT_ANN):
            fields["replacementFor"] = display(old.name) if old is not None else ""
        self.act("create", WL, name, why, rule(REC if not poc else RSC, fn if not poc else "PodSets", poc),
                 payload=raw, fields=fields, role=role)

    def start_job(self, job: Obj, w: Obj) -> None:
        """``startJob``: one patch of the job running ``RunWithPodSetsInfo`` — unsuspend and
        merge the admission's pod set info into the templates (index 0 = head, i+1 =
        worker group i). Top-level (POC): ``spec.suspend=false``, the nested gate stays true."""
        raw = copy.deepcopy(dict(job.raw))
        adm = _m(w.status.get("admission"))
        flav = {str(_m(a).get("name")): _m(_m(a).get("flavors")) for a in _l(adm.get("podSetAssignments"))}
        lq = str(w.spec.get("queueName") or "")
        cq = str(adm.get("clusterQueue") or "")
        origin = w.annotations.get(SLICE_NAME_ANN) if w.annotations.get(ELASTIC_ANN) == "true" else None
        templates = cluster_templates(cluster_spec(raw))
        rfs = self.rfs()
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
        elif self.mode == TOP:
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
        self.act("update", job.kind, job.name, f"Workload {display(w.name)} is admitted by ClusterQueue {cq}: "
                 f"unsuspend the {where} and inject the scheduling information into its pod templates",
                 rule(RSC if poc else REC, fn, poc), payload=raw, fields=fields,
                 role="pending" if job.kind == RC else None)

    def stop_job(self, job: Obj, w: Obj, reason: str, why: str) -> None:
        """``stopJob``: nothing if already suspended; else one patch calling ``Suspend`` and
        ``RestorePodSetsInfo`` (templates back to the pre-admission ones)."""
        if is_suspended(self.mode, job):
            return
        raw = copy.deepcopy(dict(job.raw))
        fields = suspend(self.mode, raw)
        rfs = list(self.rfs().values())
        cs = cluster_spec(raw)
        head = cs.get("headGroupSpec")
        if isinstance(head, dict) and isinstance(head.get("template"), dict):
            head["template"] = strip_injection(head["template"], rfs)
        for g in _l(cs.get("workerGroupSpecs")):
            if isinstance(g, dict) and isinstance(g.get("template"), dict):
                g["template"] = strip_injection(g["template"], rfs)
        fields["templates"] = "restored (injected scheduling information removed)"
        poc = self.mode == TOP and job.kind == RS
        self.act("update", job.kind, job.name, f"stop the job ({reason}): {why}",
                 rule(RSC if poc else REC, "Suspend" if poc else "stopJob", poc), payload=raw, fields=fields,
                 role="active" if job.kind == RC else None)

    def clear_reservation(self, w: Obj) -> None:
        """Eviction handling: once the job is no longer active, the reservation is cleared and
        the Workload requeued (``Requeued=True`` for Preempted)."""
        raw = copy.deepcopy(dict(w.raw))
        st = dict(raw.get("status") or {})
        st.pop("admission", None)
        raw["status"] = st
        ev = (condition(w, "Evicted") or {}).get("reason") or "Evicted"
        raw = with_conditions(raw, {"QuotaReserved": ("False", "Pending", "evicted, requeued"),
                                    "Admitted": ("False", "NoReservation", ""),
                                    "Evicted": ("False", ev, "requeued"),
                                    "Requeued": ("True" if ev in ("Preempted", "NodeFailures") else "False", ev, "")})
        self.act("update", WL, w.name, "the job is no longer active: the quota reservation is cleared and the "
                 "Workload requeued", rule(REC, "ReconcileGenericJob (eviction)"), payload=raw,
                 fields={"admission": None, "conditions": {"QuotaReserved": "False/Pending", "Requeued": f"True/{ev}"}},
                 role=f"slice-{slice_number(w.name)}" if w.annotations.get(ELASTIC_ANN) == "true" else None)

    def finalize_orphans(self) -> None:
        """Row 0 (``finalizeWorkloads``): a job that is gone or being deleted releases its
        Workloads (finalizer removed; garbage-collected with the owner) — quota is freed."""
        for w in self.w.of_kind(WL):
            if w.namespace != self.ns or w.terminating:
                continue
            own = owner_of(w)
            if own is None or own[0] != RC:
                continue
            rc = self.w.get(RC, w.namespace, own[1])
            if rc is not None and not rc.terminating:
                continue
            if rc is None and own[1] in self.created:
                continue
            self.act("delete", WL, w.name, f"its RayCluster {display_rc(own[1])} is being deleted: the Workload's "
                     "finalizer is removed and it goes with its owner; its quota is released",
                     rule(REC, "finalizeWorkloads"))

    def suspend_children(self) -> None:
        """Row 2 (``shouldSuspendChildJob``, nested model): a running RayCluster of a
        Kueue-managed RayService is suspended when the RayService has no unfinished Workload,
        (elastic) when its latest one is Evicted, or else when it is not Admitted. Kueue never
        unsuspends a child. [derived]"""
        rs = self.rs
        if rs is None or not rs.labels.get(QUEUE_LABEL):
            return
        ws = [w for w in self.workloads_of(rs) if not finished(w)]
        latest = ws[-1] if ws else None
        for c in children(self.w, rs):
            if c.terminating or c.spec.get("suspend") is True:
                continue
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
            self.act("update", RC, c.name, f"child job of a Kueue-managed RayService: {why}; Kueue suspends the "
                     "RayCluster (its Pods are deleted) and never unsuspends it", rule(REC, "shouldSuspendChildJob"),
                     payload=raw, fields={"spec.suspend": True})

    # -- scheduler ---------------------------------------------------------------------
    def schedule(self) -> None:
        """``scheduler.go`` ``schedule``: pending Workloads by priority then creation; flavor
        assignment against nominal quota (an elastic replacement only needs the delta and
        keeps the old slice's flavors); preemption within the ClusterQueue when its policy
        allows; admission (no admission checks: QuotaReserved and Admitted together)."""
        pend = [w for w in self.w.of_kind(WL) if not w.terminating and not finished(w) and not quota_reserved(w)
                and w.spec.get("active") is not False and not evicted(w)]
        pend.sort(key=lambda w: (-priority_of(w), created_at(w)))
        for w0 in pend:
            w = self.w.get(WL, w0.namespace, w0.name)
            if w is None or quota_reserved(w):
                continue
            lq, cq = find_queue(self.w, w.namespace, str(w.spec.get("queueName") or ""))
            if lq is None or cq is None:
                what = f"LocalQueue {w.spec.get('queueName')} doesn't exist" if lq is None else \
                    f"ClusterQueue {lq.spec.get('clusterQueue')} doesn't exist"
                self.pending(w, "Misconfigured", what)
                continue
            q = quota_of(cq)
            if q.stop_policy in ("Hold", "HoldAndDrain"):
                self.pending(w, "Suspended", f"ClusterQueue {cq.name} is inactive (stopPolicy {q.stop_policy})")
                continue
            old = None
            ref = w.annotations.get(REPLACEMENT_ANN)
            if ref:
                ons, _, on = ref.partition("/")
                o = self.w.get(WL, ons, on)
                if o is not None and quota_reserved(o) and not finished(o) and \
                        _m(o.status.get("admission")).get("clusterQueue") == cq.name:
                    old = o
            used = usage(self.w, cq.name, exclude=[old.name] if old is not None else [])
            pinned = None
            if old is not None:
                pinned = {str(_m(a).get("name")): _m(_m(a).get("flavors"))
                          for a in _l(_m(old.status.get("admission")).get("podSetAssignments"))}
            a = assign_flavors(q, wl_pod_sets(w), used, self.rfs(), pinned)
            if a.fits:
                self.admit(w, cq.name, a.flavors, old)
                continue
            if a.reason == "WaitingForQuota" and q.preemption in ("LowerPriority", "LowerOrNewerEqualPriority"):
                if self.preempt(w, q, cq.name, used, old, pinned):
                    continue
            self.pending(w, a.reason, a.message)

    def pending(self, w: Obj, reason: str, message: str) -> None:
        c = condition(w, "QuotaReserved")
        if c is not None and c.get("status") == "False" and c.get("reason") == reason and c.get("message") == message:
            return
        raw = with_conditions(copy.deepcopy(dict(w.raw)), {"QuotaReserved": ("False", reason, message)})
        self.act("update", WL, w.name, f"not admitted: {message}", rule(SCH, "requeueAndUpdate"), payload=raw,
                 fields={"conditions": {"QuotaReserved": f"False/{reason}"}},
                 role=f"slice-{slice_number(w.name)}" if w.annotations.get(ELASTIC_ANN) == "true" else None)

    def admit(self, w: Obj, cq: str, flavors: Mapping[str, Mapping[str, str]], old: Obj | None) -> None:
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
        self.act("update", WL, w.name, f"fits ClusterQueue {cq}'s nominal quota in flavor {', '.join(fl) or '-'}: "
                 f"quota reserved and admitted{delta}", rule(SCH, "admit"), payload=raw,
                 fields={"admission.clusterQueue": cq, "podSets": counts(wl_pod_sets(w)), "flavors": fl,
                         "conditions": {"QuotaReserved": "True/QuotaReserved", "Admitted": "True/Admitted"}},
                 role=f"slice-{slice_number(w.name)}" if w.annotations.get(ELASTIC_ANN) == "true" else None)
        if old is not None:
            oraw = with_conditions(copy.deepcopy(dict(old.raw)), {
                "Finished": ("True", "WorkloadSliceReplaced",
                             "Replaced to accommodate a workload due to workload slice aggregation")})
            self.act("update", WL, old.name, f"replaced by slice {display(w.name)}: finished, its quota is now "
                     "part of the new slice's", rule(SCH, "replaceWorkloadSlice"), payload=oraw,
                     fields={"conditions": {"Finished": "True/WorkloadSliceReplaced"}},
                     role=f"slice-{slice_number(old.name)}")

    def preempt(self, w: Obj, q: Any, cq: str, used: dict, old: Obj | None, pinned: Any) -> bool:
        """``preemption.go``: within the ClusterQueue, lower-priority admitted Workloads (for
        ``LowerOrNewerEqualPriority`` also newer equal ones), lowest priority and newest
        first, until the Workload fits; the victims are evicted (``Preempted``)."""
        mine = priority_of(w)
        cands = []
        for v in self.w.of_kind(WL):
            if v.name == w.name or v is old or finished(v) or not quota_reserved(v) or evicted(v) or v.terminating:
                continue
            if _m(v.status.get("admission")).get("clusterQueue") != cq:
                continue
            if old is not None and v.name == old.name:
                continue
            pv = priority_of(v)
            if pv < mine or (q.preemption == "LowerOrNewerEqualPriority" and pv == mine
                             and created_at(v) > created_at(w)):
                cands.append(v)
        cands.sort(key=lambda v: (priority_of(v), -created_at(v)[0], v.name))
        victims: list[Obj] = []
        for v in cands:
            victims.append(v)
            u = usage(self.w, cq, exclude=[x.name for x in victims] + ([old.name] if old is not None else []))
            if assign_flavors(q, wl_pod_sets(w), u, self.rfs(), pinned).fits:
                break
        else:
            return False
        for v in victims:
            raw = with_conditions(copy.deepcopy(dict(v.raw)), {
                "Evicted": ("True", "Preempted", f"Preempted to accommodate workload {display(w.name)} due to "
                            "prioritization in the ClusterQueue"),
                "Preempted": ("True", "InClusterQueue", "")})
            self.act("update", WL, v.name, f"preempted: Workload {display(w.name)} (priority {mine}) needs its quota "
                     f"and ClusterQueue {cq} allows preemption ({q.preemption})", "kueue:preemption/preemption.go#"
                     "IssuePreemptions", payload=raw, fields={"conditions": {"Evicted": "True/Preempted"}},
                     role=f"slice-{slice_number(v.name)}" if v.annotations.get(ELASTIC_ANN) == "true" else None)
        self.pending(w, "WaitingForPreemptedWorkloads", "waiting for the preempted workloads to release their quota")
        return True

    # -- POC post-step -----------------------------------------------------------------
    def unsuspend_admitted_children(self) -> None:
        """kueue[POC] ``unsuspendAdmittedChildren`` (rayservice_controller.go @1828096a): when
        the newest unfinished Workload is Admitted and its counts cover the pod sets every
        current child needs (race guard), every suspended child RayCluster is unsuspended."""
        rs = self.rs
        if rs is None or rs.spec.get("suspend") is True or not rs.labels.get(QUEUE_LABEL):
            return
        ws = [w for w in self.workloads_of(rs) if not finished(w)]
        if not ws:
            return
        newest = ws[-1]
        if not admitted(newest):
            return
        kids = children(self.w, rs)
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
            role = ("active" if c.name == _m(st.get("activeServiceStatus")).get("rayClusterName") else
                    "pending" if c.name == _m(st.get("pendingServiceStatus")).get("rayClusterName") else None)
            self.act("update", RC, c.name, f"Workload {display(newest.name)} is admitted and covers every child "
                     f"({_ps(have)} >= {_ps(need)}): unsuspend the RayCluster", rule(RSC, "unsuspendAdmittedChildren", True),
                     payload=raw, fields={"spec.suspend": False}, role=role)


def _ps(c: Mapping[str, int]) -> str:
    return ", ".join(f"{n}×{v}" for n, v in c.items()) or "none"


def display_rc(name: str) -> str:
    return kr_display(name) or name


# --------------------------------------------------------------------------- webhook on create (RayService)


def rayservice_webhook_default(mode: str, rs: Obj, world: World) -> Action | None:
    """``rayservice_webhook.go`` ``Default`` on create (models top-level and nested):
    ``ApplyDefaultLocalQueue`` (label ``default`` when such a LocalQueue exists), then
    ``ApplyDefaultForSuspend`` → ``Suspend()`` unless already suspended, then the
    elastic-job scheduling gate on every template when the elastic annotation is set."""
    if mode == LEGACY:
        return None
    raw = copy.deepcopy(dict(rs.raw))
    md = raw.setdefault("metadata", {})
    fields: dict[str, Any] = {}
    queue = rs.labels.get(QUEUE_LABEL)
    if not queue and world.get(LQ, rs.namespace, "default") is not None:
        md["labels"] = {**dict(md.get("labels") or {}), QUEUE_LABEL: "default"}
        fields[f"metadata.labels[{QUEUE_LABEL}]"] = "default"
        queue = "default"
    if not queue:
        return None
    obj = Obj(raw)
    if not is_suspended(mode, obj):
        fields.update(suspend(mode, raw))
    if is_elastic(obj):
        for t in cluster_templates(cluster_spec(raw)):
            add_gate(t, ELASTIC_GATE)
        fields["schedulingGates"] = [ELASTIC_GATE]
    if not fields:
        return None
    poc = mode == TOP
    return Action("update", RS, rs.name, rs.namespace,
                  "Kueue's RayService mutating webhook on create (queue label "
                  f"{queue!r}): the RayService is stored suspended"
                  + (" — both spec.suspend and the nested rayClusterConfig.suspend (the persistent child gate)"
                     if poc else " — rayClusterConfig.suspend")
                  + ("; elastic: scheduling gate kueue.x-k8s.io/elastic-job on every pod template" if is_elastic(obj) else ""),
                  rule(RSW, "Default") if not poc else rule(RSC, "Suspend (via rayservice_webhook.go#Default)", True),
                  fields=fields, payload=raw)


# --------------------------------------------------------------------------- ungater (between passes)


def ungate(mode: str, world: World, rs: Obj) -> World:
    """``ElasticJobUngater`` (elastic_job_ungater.go): for the chain's active slice (newest
    unfinished, not evicted, admitted), remove the elastic-job gate from at most the
    granted count of Pods per pod set, lowest name first. Modelled per RayCluster (a
    cluster's Pods are released together). Not an action (CONTRACT)."""
    released = set(world.memory.get(MEM_UNGATED, ()))
    kids = [c for c in children(world, rs) if not c.terminating]
    alive = {c.name for c in kids if c.spec.get("suspend") is not True}
    released &= alive
    if mode == LEGACY or not is_elastic(rs):
        return world.with_memory(**{MEM_UNGATED: tuple(sorted(released))}) if \
            tuple(sorted(released)) != tuple(world.memory.get(MEM_UNGATED, ())) else world
    ws = sorted((w for w in world.of_kind(WL) if w.namespace == rs.namespace and owner_of(w) == (RS, rs.name)
                 and not w.terminating and not finished(w) and not evicted(w) and admitted(w)), key=created_at)
    if ws:
        granted = counts(wl_pod_sets(ws[-1]))
        used: dict[str, int] = {}
        for c in kids:
            if c.name in released:
                for k, v in counts(build_pod_sets(c.spec)).items():
                    used[k] = used.get(k, 0) + v
        for c in sorted(kids, key=lambda c: c.name):
            if c.name in released or c.name not in alive:
                continue
            need = counts(build_pod_sets(c.spec))
            if all(used.get(k, 0) + v <= granted.get(k, 0) for k, v in need.items() if v):
                released.add(c.name)
                for k, v in need.items():
                    used[k] = used.get(k, 0) + v
    new = tuple(sorted(released))
    if new == tuple(world.memory.get(MEM_UNGATED, ())):
        return world
    return world.with_memory(**{MEM_UNGATED: new})


def gate_reason(mode: str, rc: Obj, world: World) -> str | None:
    """Why ``rc``'s Pods stay unschedulable: they carry the elastic-job gate and the
    ungater has not released them."""
    if mode == LEGACY:
        return None
    tpls = [_m(_m(rc.spec.get("headGroupSpec")).get("template"))]
    if not any(_m(t.get("spec")).get("schedulingGates") and
               any(_m(g).get("name") == ELASTIC_GATE for g in _l(_m(t.get("spec")).get("schedulingGates")))
               for t in tpls):
        return None
    if rc.name in set(world.memory.get(MEM_UNGATED, ())):
        return None
    return (f"scheduling gate {ELASTIC_GATE}: the active Workload slice does not grant Pods for this cluster "
            "(the ungater releases at most the admitted count per pod set)")
