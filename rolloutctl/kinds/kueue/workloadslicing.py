"""Workload slices of an elastic job: the reserved head of the chain, at most one pending
replacement, counts updated in place or a replacement slice needed.

Upstream: kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7, ``pkg/workloadslicing/workloadslicing.go`` (``Enabled``,
``EnsureWorkloadSlices``, ``normalizeActiveSlices``); the ``ElasticJobsViaWorkloadSlices``
feature gate is beta and on.
"""

from __future__ import annotations

import copy

from ...core.model import Obj
from .constants import ELASTIC_ANN, REPLACEMENT_ANN, WL
from .context import WSL, KueuePass, rule
from .evict import evicted
from .podset import PodSet, counts, quantities, requests_of
from .workload import quota_reserved, with_conditions, wl_pod_sets
from .workload_names import slice_number


def is_elastic(obj: Obj) -> bool:
    """``workloadslicing.Enabled``: annotation ``kueue.x-k8s.io/elastic-job: "true"`` (gate
    ElasticJobsViaWorkloadSlices is beta and on)."""
    return obj.annotations.get(ELASTIC_ANN) == "true"


def ensure_workload_slices(p: KueuePass, job: Obj, pss: list[PodSet], ws: list[Obj]) -> tuple[Obj | None, bool]:
    """``EnsureWorkloadSlices`` / ``normalizeActiveSlices`` (workloadslicing.go): keep the
    reserved head of the chain and at most one pending replacement (others Finished);
    equal counts keep the slice; a slice without quota, or any scale-down, is updated in
    place; a scale-up of a reserved slice needs a replacement slice (None here, with
    ``p.replace_for`` set). Returns the slice and whether the job's pod sets are
    compatible with it: when the pod set names differ (``HasSamePodSetKeys`` false: a
    worker group added, removed or renamed) the answer is ``(None, False)`` and the
    caller falls back to the non-elastic matching of ``ensureOneWorkload``."""
    p.replace_for = None
    if not ws:
        return None, True
    if len(ws) == 1:
        if set(counts(wl_pod_sets(ws[0]))) != set(counts(pss)):
            return None, False
        if evicted(ws[0]):
            return ws[0], True  # eviction is handled by the reconciler (stop the job, then requeue)
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
        p.act("update", WL, w.name, f"more than one active slice: this one is finished ({why})",
              rule(WSL, "normalizeActiveSlices"), payload=raw, fields={"conditions": {"Finished": f"True/{why}"}},
              role=f"slice-{slice_number(w.name)}")
    if not keep:
        return None, True
    w = keep[-1]
    old = counts(wl_pod_sets(w))
    new = counts(pss)
    if set(old) != set(new):
        return None, False
    if old == new:
        return w, True
    if not quota_reserved(w) or all(new[k] <= old[k] for k in new):
        raw = copy.deepcopy(dict(w.raw))
        raw["spec"]["podSets"] = [dict(ps, count=new[ps["name"]]) for ps in raw["spec"]["podSets"]]
        why = "scale-down" if all(new[k] <= old[k] for k in new) else "no quota reserved yet"
        rel = ""
        if quota_reserved(w) and why == "scale-down":
            rel = f"; the ClusterQueue frees {quantities(requests_of(wl_pod_sets(w)))} - " \
                  f"{quantities(requests_of([PodSet(ps.name, new[ps.name], ps.template) for ps in wl_pod_sets(w)]))} at once"
        p.act("update", WL, w.name, f"the job's pod sets changed ({why}): the slice's counts are updated in "
              f"place{rel}", rule(WSL, "EnsureWorkloadSlices"), payload=raw,
              fields={"podSets": new, "was": old}, role=f"slice-{slice_number(w.name)}")
        return p.w.get(WL, w.namespace, w.name), True
    p.replace_for = w
    return None, True
