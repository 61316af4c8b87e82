"""Preemption within a ClusterQueue: which admitted Workloads are evicted so a pending one
fits.

Upstream: kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7, ``pkg/scheduler/preemption/preemption.go`` (candidate order and
``IssuePreemptions``), for the ``LowerPriority`` and ``LowerOrNewerEqualPriority`` policies
within the ClusterQueue.
"""

from __future__ import annotations

import copy
from typing import Any

from ...core.model import Obj
from .clusterqueue import usage
from .constants import ELASTIC_ANN, WL
from .context import KueuePass, as_map
from .evict import evicted
from .finish import finished
from .flavorassigner import assign_flavors
from .priority import priority_of
from .workload import created_at, quota_reserved, quota_reserved_at, with_conditions, wl_pod_sets
from .workload_names import display, slice_number


def preempt(p: KueuePass, w: Obj, q: Any, cq: str, used: dict, old: Obj | None, pinned: Any) -> bool:
    """``preemption.go``: within the ClusterQueue, lower-priority admitted Workloads (for
    ``LowerOrNewerEqualPriority`` also newer equal ones), lowest priority and most recently
    admitted first, until the Workload fits; then the ones it fits without are put back
    (``fillBackWorkloads``); the victims are evicted (``Preempted``). True when there were
    enough victims (the scheduler then requeues the Workload to wait for them)."""
    mine = priority_of(w)
    cands = []
    for v in p.w.of_kind(WL):
        if v.name == w.name or finished(v) or not quota_reserved(v) or evicted(v) or v.terminating:
            continue
        if as_map(v.status.get("admission")).get("clusterQueue") != cq:
            continue
        if old is not None and v.name == old.name:  # the slice being replaced
            continue
        pv = priority_of(v)
        if pv < mine or (q.preemption == "LowerOrNewerEqualPriority" and pv == mine
                         and created_at(v) > created_at(w)):
            cands.append(v)
    # CandidatesOrdering (preemption/common/ordering.go): lowest priority first, then the
    # most recent quota reservation
    cands.sort(key=lambda v: (priority_of(v), -quota_reserved_at(v), v.name))
    keep = [old.name] if old is not None else []

    def fits(victims: list[Obj]) -> bool:
        u = usage(p.w, cq, exclude=[x.name for x in victims] + keep)
        return assign_flavors(q, wl_pod_sets(w), u, p.rfs(), pinned).fits

    victims: list[Obj] = []
    for v in cands:
        victims.append(v)
        if fits(victims):
            break
    else:
        return False
    # fillBackWorkloads (preemption.go): in reverse order, every victim but the last that
    # the Workload fits without is put back
    for i in range(len(victims) - 2, -1, -1):
        if fits(victims[:i] + victims[i + 1:]):
            victims = victims[:i] + victims[i + 1:]
    for v in victims:
        raw = with_conditions(copy.deepcopy(dict(v.raw)), {
            "Evicted": ("True", "Preempted", f"Preempted to accommodate workload {display(w.name)} due to "
                        "prioritization in the ClusterQueue"),
            "Preempted": ("True", "InClusterQueue", "")})
        p.act("update", WL, v.name, f"preempted: Workload {display(w.name)} (priority {mine}) needs its quota "
              f"and ClusterQueue {cq} allows preemption ({q.preemption})", "kueue:preemption/preemption.go#"
              "IssuePreemptions", payload=raw, fields={"conditions": {"Evicted": "True/Preempted"}},
              role=f"slice-{slice_number(v.name)}" if v.annotations.get(ELASTIC_ANN) == "true" else None)
    return True
