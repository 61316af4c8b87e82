"""Kueue's objects as a planner needs them: the Workload of a RayService (or of a
RayCluster in the legacy model), its pod sets and names, the queues, and quota.

Upstream: kubernetes-sigs/kueue (merged code at ff69552e, v0.20 line; POC PR #11264 at
1828096a where marked). Paths below are relative to the Kueue repository:

- ``pkg/controller/jobs/raycluster/common.go`` ``BuildPodSets``, ``effectiveWorkerCount``,
  ``UpdateRayClusterSpecToRunWithPodSetsInfo``, ``RestorePodSetsInfo``;
- ``pkg/controller/jobs/rayservice/rayservice_controller.go`` ``PodSets`` (merged: from the
  RayService template; POC: summed over the live child RayClusters);
- ``pkg/controller/jobframework/workload_names.go`` ``GetWorkloadNameForOwnerWithGVK``;
- ``pkg/podset/podset.go`` ``FromAssignment``, ``Merge`` (what admission injects);
- ``pkg/scheduler/flavorassigner/flavorassigner.go`` ``findFlavorForPodSets``,
  ``fitsResourceQuota`` (what fits).

Names: a Workload's name ends in the first five hex digits of a SHA-1 over the owner's
UID, which a manifest does not carry. The model renders it as ``-<hash>``; inside the
world a later slice of the same RayService is ``-<hash2>`` (``Action.uid``), shown
as ``-<hash>`` with the slice number in ``Action.role``.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Iterable, Mapping, Sequence

from ...core.environment import add, pod_requests
from ...core.model import Obj
from ...core.quantity import format_quantity, parse_quantity
from ...core.world import World
from ..kuberay.api import display as kr_display

KUEUE_API = "kueue.x-k8s.io/v1beta2"
WL = "Workload"
CQ = "ClusterQueue"
LQ = "LocalQueue"
RF = "ResourceFlavor"
WPC = "WorkloadPriorityClass"
KUEUE_KINDS = (CQ, LQ, RF, WL, WPC)

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
ELASTIC_ANN = "kueue.x-k8s.io/elastic-job"
SLICE_NAME_ANN = "kueue.x-k8s.io/workload-slice-name"
REPLACEMENT_ANN = "kueue.x-k8s.io/workload-slice-replacement-for"
ELASTIC_GATE = "kueue.x-k8s.io/elastic-job"
PODSET_LABEL = "kueue.x-k8s.io/podset"
LQ_LABEL = "kueue.x-k8s.io/local-queue-name"
CQ_LABEL = "kueue.x-k8s.io/cluster-queue-name"
WL_ANN = "kueue.x-k8s.io/workload"
JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"
RESOURCE_IN_USE = "kueue.x-k8s.io/resource-in-use"
HEAD = "head"

#: Extra container Kueue counts on the head when in-tree autoscaling is on (#12405).
AUTOSCALER_REQUESTS = MappingProxyType({"cpu": 500, "memory": 512 * 1024 * 1024 * 1000})

HASH = "<hash"
_HASH_RE = re.compile(r"-<hash\d*>")


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def display(name: str | None) -> str:
    """A Workload name as shown: every slice's hash renders as ``-<hash>``; a cluster
    name inside it keeps KubeRay's ``-<random>``."""
    return kr_display(_HASH_RE.sub("-<hash>", name or "")) or ""


def slice_number(name: str) -> int:
    m = re.search(r"-<hash(\d*)>$", name)
    return int(m.group(1) or 1) if m else 1


# --------------------------------------------------------------------------- pod sets


@dataclass(frozen=True)
class PodSet:
    """A Workload pod set: name, pod count and the per-pod template."""

    name: str
    count: int
    template: Mapping[str, Any]

    def per_pod(self) -> dict[str, int]:
        req = pod_requests(_m(self.template.get("spec")))
        if self.name == HEAD and self.template.get("__autoscaler__"):
            add(req, AUTOSCALER_REQUESTS)
        return req

    def total(self) -> dict[str, int]:
        return {k: v * self.count for k, v in self.per_pod().items()}

    def to_raw(self) -> dict[str, Any]:
        t = {k: v for k, v in self.template.items() if k != "__autoscaler__"}
        return {"name": self.name, "count": self.count, "template": copy.deepcopy(t),
                **({"rolloutctl.dev/autoscaler": True} if self.template.get("__autoscaler__") else {})}


def pod_set_from_raw(raw: Mapping[str, Any]) -> PodSet:
    t = dict(_m(raw.get("template")))
    if raw.get("rolloutctl.dev/autoscaler"):
        t["__autoscaler__"] = True
    return PodSet(str(raw.get("name") or ""), int(raw.get("count") or 0), t)


def effective_worker_count(group: Mapping[str, Any]) -> int:
    """``effectiveWorkerCount`` (raycluster/common.go): ``replicas`` (CRD default 0)
    times ``numOfHosts`` when above one; a suspended group counts zero."""
    if group.get("suspend") is True:
        return 0
    r = group.get("replicas")
    r = r if isinstance(r, int) and not isinstance(r, bool) else 0
    h = group.get("numOfHosts")
    h = h if isinstance(h, int) and h > 1 else 1
    return max(0, r) * h


def build_pod_sets(cluster_spec: Mapping[str, Any]) -> list[PodSet]:
    """``BuildPodSets`` (raycluster/common.go): ``head`` x1 from the head template (plus
    the autoscaler sidecar's requests when in-tree autoscaling is on), then one pod set
    per worker group in spec order."""
    head_t = dict(_m(_m(cluster_spec.get("headGroupSpec")).get("template")))
    if cluster_spec.get("enableInTreeAutoscaling") is True:
        head_t["__autoscaler__"] = True
    out = [PodSet(HEAD, 1, head_t)]
    for g in _l(cluster_spec.get("workerGroupSpecs")):
        g = _m(g)
        out.append(PodSet(str(g.get("groupName") or ""), effective_worker_count(g), dict(_m(g.get("template")))))
    return out


def sum_pod_sets(children: Sequence[Mapping[str, Any]]) -> list[PodSet]:
    """kueue[POC] ``RayService.PodSets`` (rayservice_controller.go @1828096a): the pod
    sets of every child RayCluster, united by name with counts summed; the first
    child's template wins for a shared name (a known limitation of the POC)."""
    merged: dict[str, PodSet] = {}
    for spec in children:
        for ps in build_pod_sets(spec):
            cur = merged.get(ps.name)
            merged[ps.name] = ps if cur is None else PodSet(cur.name, cur.count + ps.count, cur.template)
    return list(merged.values())


def counts(pod_sets: Iterable[PodSet]) -> dict[str, int]:
    return {p.name: p.count for p in pod_sets}


def requests_of(pod_sets: Iterable[PodSet]) -> dict[str, int]:
    total: dict[str, int] = {}
    for p in pod_sets:
        add(total, p.total())
    return total


def fmt(res: Mapping[str, int]) -> str:
    return ", ".join(f"{r} {format_quantity(v, r)}" for r, v in sorted(res.items()) if v) or "nothing"


# --------------------------------------------------------------------------- workloads


def wl_pod_sets(w: Obj) -> list[PodSet]:
    return [pod_set_from_raw(_m(p)) for p in _l(w.spec.get("podSets"))]


def condition(w: Obj, t: str) -> Mapping[str, Any] | None:
    for c in _l(w.status.get("conditions")):
        if _m(c).get("type") == t:
            return c
    return None


def cond_true(w: Obj, t: str) -> bool:
    c = condition(w, t)
    return c is not None and c.get("status") == "True"


def quota_reserved(w: Obj) -> bool:
    return cond_true(w, "QuotaReserved") and bool(w.status.get("admission"))


def admitted(w: Obj) -> bool:
    return cond_true(w, "Admitted") and quota_reserved(w)


def finished(w: Obj) -> bool:
    return cond_true(w, "Finished")


def evicted(w: Obj) -> bool:
    return cond_true(w, "Evicted")


def with_conditions(raw: dict, conds: Mapping[str, tuple[str, str, str]]) -> dict:
    """Set Workload conditions ``type -> (status, reason, message)``."""
    st = dict(raw.get("status") or {})
    cur = [dict(c) for c in _l(st.get("conditions")) if isinstance(c, Mapping)]
    for t, (s, r, msg) in conds.items():
        for c in cur:
            if c.get("type") == t:
                c.update(status=s, reason=r, message=msg)
                break
        else:
            cur.append({"type": t, "status": s, "reason": r, "message": msg})
    st["conditions"] = cur
    raw["status"] = st
    return raw


def priority_of(w: Obj) -> int:
    p = w.spec.get("priority")
    return p if isinstance(p, int) and not isinstance(p, bool) else 0


def created_at(w: Obj) -> tuple:
    t = w.metadata.get("creationTimestamp")
    return (t if isinstance(t, int) else -1, w.name)


def owner_of(w: Obj) -> tuple[str, str] | None:
    for o in w.owner_references:
        if o.get("controller"):
            return str(o.get("kind") or ""), str(o.get("name") or "")
    return None


def workload_object(name: str, ns: str, owner: tuple[str, str], queue: str, pod_sets: Sequence[PodSet],
                    priority: int, annotations: Mapping[str, str], now: int) -> dict:
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
    return {"apiVersion": KUEUE_API, "kind": WL, "metadata": md,
            "spec": {"queueName": queue, "priority": priority, "active": True,
                     "podSets": [p.to_raw() for p in pod_sets]},
            "status": {}}


def workload_name(prefix_kind: str, owner: str, world: World, ns: str, fresh: bool) -> str:
    """``GetWorkloadNameForOwnerWithGVK`` (workload_names.go): ``<kind>-<owner>-<hash>``.
    ``fresh``: an elastic slice (the hash covers the generation too) gets a new name."""
    base = f"{prefix_kind}-{owner}-"
    if not fresh:
        return base + "<hash>"
    used = {w.name for w in world.of_kind(WL) if w.namespace == ns}
    i = 1
    while True:
        n = base + ("<hash>" if i == 1 else f"<hash{i}>")
        if n not in used:
            return n
        i += 1


# --------------------------------------------------------------------------- queues and quota


@dataclass(frozen=True)
class Quota:
    """A ClusterQueue's nominal quota: resource groups (covered resources, flavors in
    order) and ``(flavor, resource) -> milli-units``."""

    name: str
    groups: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]
    nominal: Mapping[tuple[str, str], int]
    preemption: str
    stop_policy: str
    cohort: str


def quota_of(cq: Obj) -> Quota:
    groups = []
    nominal: dict[tuple[str, str], int] = {}
    for g in _l(cq.spec.get("resourceGroups")):
        g = _m(g)
        flavors = []
        for f in _l(g.get("flavors")):
            f = _m(f)
            fn = str(f.get("name") or "")
            flavors.append(fn)
            for r in _l(f.get("resources")):
                r = _m(r)
                try:
                    nominal[(fn, str(r.get("name")))] = parse_quantity(r.get("nominalQuota", 0))
                except ValueError:
                    nominal[(fn, str(r.get("name")))] = 0
        groups.append((tuple(str(x) for x in _l(g.get("coveredResources"))), tuple(flavors)))
    pre = _m(cq.spec.get("preemption")).get("withinClusterQueue") or "Never"
    return Quota(cq.name, tuple(groups), nominal, str(pre), str(cq.spec.get("stopPolicy") or "None"),
                 str(cq.spec.get("cohortName") or cq.spec.get("cohort") or ""))


def find_queue(world: World, ns: str, queue: str) -> tuple[Obj | None, Obj | None]:
    lq = world.get(LQ, ns, queue)
    if lq is None:
        return None, None
    cqn = str(lq.spec.get("clusterQueue") or "")
    cq = next((c for c in world.of_kind(CQ) if c.name == cqn), None)
    return lq, cq


def usage(world: World, cq_name: str, exclude: Iterable[str] = ()) -> dict[tuple[str, str], int]:
    """ClusterQueue usage: the sum over quota-reserved, not finished Workloads admitted
    to it, from their spec counts (``totalRequestsFromAdmission``)."""
    skip = set(exclude)
    used: dict[tuple[str, str], int] = {}
    for w in world.of_kind(WL):
        if (w.namespace, w.name) in skip or w.name in skip or finished(w) or not quota_reserved(w) or w.terminating:
            continue
        adm = _m(w.status.get("admission"))
        if adm.get("clusterQueue") != cq_name:
            continue
        flav = {str(_m(a).get("name")): _m(_m(a).get("flavors")) for a in _l(adm.get("podSetAssignments"))}
        for ps in wl_pod_sets(w):
            for r, v in ps.total().items():
                f = flav.get(ps.name, {}).get(r)
                if f:
                    used[(str(f), r)] = used.get((str(f), r), 0) + v
    return used


@dataclass(frozen=True)
class Assignment:
    """The outcome of flavor assignment for one Workload."""

    fits: bool
    reason: str  # Fit | ExceedsMaxQuota | WaitingForQuota | Unavailable | NoMatchingFlavor
    message: str
    flavors: Mapping[str, Mapping[str, str]]  # pod set -> resource -> flavor
    short: Mapping[tuple[str, str], tuple[int, int, int]]  # (flavor, res) -> (requested, free, nominal)


def flavor_matches(rf: Obj | None, template: Mapping[str, Any]) -> bool:
    """A flavor whose ``nodeLabels`` conflict with the pod's ``nodeSelector`` is skipped
    (flavorassigner.go ``checkFlavorForPodSets``; taints are not modelled)."""
    if rf is None:
        return True
    sel = _m(_m(template.get("spec")).get("nodeSelector"))
    for k, v in _m(rf.spec.get("nodeLabels")).items():
        if k in sel and sel[k] != v:
            return False
    return True


def assign_flavors(q: Quota, pod_sets: Sequence[PodSet], used: Mapping[tuple[str, str], int],
                   rfs: Mapping[str, Obj], pinned: Mapping[str, Mapping[str, str]] | None = None) -> Assignment:
    """``findFlavorForPodSets`` / ``fitsResourceQuota`` (flavorassigner.go), nominal quota
    only: per pod set in order, per resource group, the first flavor (in the group's
    order) where what the Workload already took plus the pod set's request fits next to
    the usage. ``pinned``: an elastic replacement must keep the old slice's flavors."""
    acc: dict[tuple[str, str], int] = {}
    out: dict[str, dict[str, str]] = {}
    short: dict[tuple[str, str], tuple[int, int, int]] = {}
    exceeds = False
    for ps in pod_sets:
        req = {r: v for r, v in ps.total().items() if v > 0}
        if not req:
            out[ps.name] = {}
            continue
        out[ps.name] = {}
        for r in sorted(req):
            if not any(r in covered for covered, _ in q.groups):
                return Assignment(False, "Unavailable", f"resource {r} unavailable in ClusterQueue {q.name}",
                                  {}, {})
        for covered, flavors in q.groups:
            need = {r: v for r, v in req.items() if r in covered}
            if not need:
                continue
            choices = list(flavors)
            if pinned and ps.name in pinned:
                old = {pinned[ps.name].get(r) for r in need} - {None}
                if old:
                    choices = [f for f in flavors if f in old]
            chosen = None
            any_match = False
            for f in choices:
                if not flavor_matches(rfs.get(f), ps.template):
                    continue
                any_match = True
                ok = True
                for r, v in need.items():
                    nom = q.nominal.get((f, r), 0)
                    total = acc.get((f, r), 0) + v
                    if total > nom:
                        exceeds = True
                        ok = False
                        short[(f, r)] = (total, max(0, nom - used.get((f, r), 0)), nom)
                    elif total + used.get((f, r), 0) > nom:
                        ok = False
                        short[(f, r)] = (total, max(0, nom - used.get((f, r), 0)), nom)
                if ok:
                    chosen = f
                    break
            if chosen is None:
                if not any_match:
                    return Assignment(False, "NoMatchingFlavor", f"no flavor of ClusterQueue {q.name} matches pod "
                                      f"set {ps.name}'s node selector", {}, {})
                exceeds = all(any(acc.get((f, r), 0) + v > q.nominal.get((f, r), 0) for r, v in need.items())
                              for f in choices if flavor_matches(rfs.get(f), ps.template))
                why = "ExceedsMaxQuota" if exceeds else "WaitingForQuota"
                parts = [f"{r} in flavor {f}: request {format_quantity(t, r)}, free {format_quantity(fr, r)} of "
                         f"nominal {format_quantity(n, r)}" for (f, r), (t, fr, n) in sorted(short.items())]
                msg = (f"couldn't assign flavors to pod set {ps.name}: "
                       f"{'request exceeds the maximum capacity' if exceeds else 'insufficient quota'} for "
                       + "; ".join(parts))
                return Assignment(False, why, msg, {}, short)
            for r, v in need.items():
                acc[(chosen, r)] = acc.get((chosen, r), 0) + v
                out[ps.name][r] = chosen
    return Assignment(True, "Fit", "", out, {})


def injected_pod_set_info(ps: PodSet, flavors: Mapping[str, str], rfs: Mapping[str, Obj], lq: str, cq: str,
                          wl: str, slice_origin: str | None) -> dict[str, Any]:
    """``podset.FromAssignment`` + the reconciler's extras: what admission merges into
    the pod set's template (labels, annotations, nodeSelector, tolerations)."""
    labels = {PODSET_LABEL: ps.name, LQ_LABEL: lq, CQ_LABEL: cq}
    ann = {WL_ANN: wl}
    if slice_origin:
        ann[SLICE_NAME_ANN] = slice_origin
    sel: dict[str, str] = {}
    tol: list[Any] = []
    for f in sorted(set(flavors.values())):
        rf = rfs.get(f)
        if rf is None:
            continue
        sel.update({str(k): str(v) for k, v in _m(rf.spec.get("nodeLabels")).items()})
        tol.extend(copy.deepcopy(_l(rf.spec.get("tolerations"))))
    return {"labels": labels, "annotations": ann, "nodeSelector": sel, "tolerations": tol}


def merge_into_template(template: dict, info: Mapping[str, Any]) -> None:
    """``podset.Merge``: labels, annotations and nodeSelector added; tolerations appended."""
    md = template.setdefault("metadata", {})
    for k in ("labels", "annotations"):
        if info.get(k):
            cur = dict(md.get(k) or {})
            cur.update(info[k])
            md[k] = cur
    spec = template.setdefault("spec", {})
    if info.get("nodeSelector"):
        cur = dict(spec.get("nodeSelector") or {})
        cur.update(info["nodeSelector"])
        spec["nodeSelector"] = cur
    for t in _l(info.get("tolerations")):
        tl = list(spec.get("tolerations") or [])
        if t not in tl:
            tl.append(t)
            spec["tolerations"] = tl


def strip_cluster_injection(cluster_spec: dict, rfs: Iterable[Obj]) -> None:
    """``strip_injection`` on the head and every worker group template of a RayCluster
    spec, in place."""
    rfs = list(rfs)
    groups = [cluster_spec.get("headGroupSpec"), *_l(cluster_spec.get("workerGroupSpecs"))]
    for g in groups:
        if isinstance(g, dict) and isinstance(g.get("template"), dict):
            g["template"] = strip_injection(g["template"], rfs)


def strip_injection(template: Mapping[str, Any], rfs: Iterable[Obj]) -> dict:
    """A template without what admission injected (Kueue's labels/annotations and the
    flavors' node labels): what ``RestorePodSetsInfo`` puts back, and what KubeRay's
    stored hash saw when Kueue injected into a RayCluster after its creation."""
    t = copy.deepcopy(dict(template))
    md = t.get("metadata")
    if isinstance(md, dict):
        for k in ("labels", "annotations"):
            v = md.get(k)
            if isinstance(v, dict):
                v = {a: b for a, b in v.items() if a not in (PODSET_LABEL, LQ_LABEL, CQ_LABEL, WL_ANN, SLICE_NAME_ANN)}
                if v:
                    md[k] = v
                else:
                    md.pop(k)
        if not md:
            t.pop("metadata")
    spec = t.get("spec")
    if isinstance(spec, dict) and isinstance(spec.get("nodeSelector"), dict):
        labels = {}
        for rf in rfs:
            labels.update({str(k): str(v) for k, v in _m(rf.spec.get("nodeLabels")).items()})
        sel = {k: v for k, v in spec["nodeSelector"].items() if labels.get(k) != v}
        if sel:
            spec["nodeSelector"] = sel
        else:
            spec.pop("nodeSelector")
    return t


def cluster_templates(cluster_spec: dict) -> list[dict]:
    """The pod templates of a cluster spec by pod set index (0 = head, i+1 = worker i),
    as ``UpdateRayClusterSpecToRunWithPodSetsInfo`` indexes them."""
    out = []
    head = cluster_spec.get("headGroupSpec")
    if isinstance(head, dict):
        out.append(head.setdefault("template", {}))
    for g in _l(cluster_spec.get("workerGroupSpecs")):
        if isinstance(g, dict):
            out.append(g.setdefault("template", {}))
    return out


def has_gate(template: Mapping[str, Any], gate: str) -> bool:
    return any(_m(g).get("name") == gate for g in _l(_m(template.get("spec")).get("schedulingGates")))


def add_gate(template: dict, gate: str) -> None:
    spec = template.setdefault("spec", {})
    gates = list(spec.get("schedulingGates") or [])
    if not any(_m(g).get("name") == gate for g in gates):
        gates.append({"name": gate})
    spec["schedulingGates"] = gates


def quantities(res: Mapping[str, int]) -> dict[str, str]:
    return {r: format_quantity(v, r) for r, v in sorted(res.items()) if v}
