"""A ClusterQueue's quota and usage, as the scheduler's cache keeps them.

Upstream: kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7, ``pkg/cache/scheduler/clusterqueue.go`` (``updateQuotasAndResourceGroups``,
``updateWorkloadUsage``; usage from ``workload.totalRequestsFromAdmission`` in
``pkg/workload/workload.go``). Nominal quota only: borrowing and cohorts are not modelled.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Iterable

from ...core.model import Obj
from ...core.quantity import parse_quantity
from ...core.records import record
from ...core.world import World
from .constants import RF, WL
from .context import MEM_HELD_USAGE
from .finish import finished
from .workload import quota_reserved, wl_pod_sets


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


#: ``kueue.StrictFIFO``: the head Workload of the queue is retried first every cycle, even when it
#: does not fit (``pkg/cache/queue/cluster_queue.go`` ``RequeueIfNotPresent``)
STRICT_FIFO = "StrictFIFO"


@record(frozen=True)
class Quota:
    """A ClusterQueue's nominal quota: resource groups (covered resources, flavors in
    order) and ``(flavor, resource) -> milli-units``."""

    name: str
    groups: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]
    nominal: Mapping[tuple[str, str], int]
    preemption: str
    stop_policy: str
    cohort: str
    #: ``spec.queueingStrategy``: BestEffortFIFO (the CRD default) or StrictFIFO
    queueing: str = "BestEffortFIFO"


def quota_of(cq: Obj) -> Quota:
    """``updateQuotasAndResourceGroups`` (clusterqueue.go): the ClusterQueue's resource groups,
    nominal quota per (flavor, resource), preemption within the queue, stop policy, cohort and
    queueing strategy."""
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
                # (admission refuses a ClusterQueue whose quota is missing or not a quantity:
                # queue_webhooks.admit_queue, KQ007; none is read as 0)
                nominal[(fn, str(r.get("name")))] = parse_quantity(r["nominalQuota"])
        groups.append((tuple(str(x) for x in _l(g.get("coveredResources"))), tuple(flavors)))
    pre = _m(cq.spec.get("preemption")).get("withinClusterQueue") or "Never"
    return Quota(cq.name, tuple(groups), nominal, str(pre), str(cq.spec.get("stopPolicy") or "None"),
                 str(cq.spec.get("cohortName") or cq.spec.get("cohort") or ""),
                 STRICT_FIFO if cq.spec.get("queueingStrategy") == STRICT_FIFO else "BestEffortFIFO")


def usage(world: World, cq_name: str, exclude: Iterable[str] = ()) -> dict[tuple[str, str], int]:
    """ClusterQueue usage: the sum over quota-reserved, not finished Workloads admitted
    to it, from their spec counts (``totalRequestsFromAdmission``), plus what the cache
    holds for admitted Workloads the world does not list (``held_usage``)."""
    skip = set(exclude)
    used = dict(held_usage(world, cq_name))
    for w in world.of_kind(WL):
        if (w.namespace, w.name) in skip or w.name in skip:
            continue
        for k, v in workload_usage(w, cq_name).items():
            used[k] = used.get(k, 0) + v
    return used


def workload_usage(w: Obj, cq_name: str) -> dict[tuple[str, str], int]:
    """What Workload ``w`` adds to ClusterQueue ``cq_name``'s usage (``updateWorkloadUsage``,
    clusterqueue.go, with ``totalRequestsFromAdmission``): per (flavor, resource) its pod
    sets' totals in the flavors of its admission, when it holds quota there (reserved,
    not finished, not being deleted); empty otherwise."""
    used: dict[tuple[str, str], int] = {}
    if finished(w) or not quota_reserved(w) or w.terminating:
        return used
    adm = _m(w.status.get("admission"))
    if adm.get("clusterQueue") != cq_name:
        return used
    flav = {str(_m(a).get("name")): _m(_m(a).get("flavors")) for a in _l(adm.get("podSetAssignments"))}
    for ps in wl_pod_sets(w):
        total = ps.total()
        if flav.get(ps.name, {}).get("pods"):
            total["pods"] = ps.count * 1000  # admitted where the pods are counted (one per pod)
        for r, v in total.items():
            f = flav.get(ps.name, {}).get(r)
            if f:
                used[(str(f), r)] = used.get((str(f), r), 0) + v
    return used


def held_usage(world: World, cq_name: str) -> Mapping[tuple[str, str], int]:
    """The usage the scheduler's cache holds for ClusterQueue ``cq_name`` on behalf of
    admitted Workloads the world does not list one by one (world memory ``MEM_HELD_USAGE``:
    cache state, as ``clusterQueue.addWorkload`` keeps usage incrementally in
    clusterqueue.go). The model sets it when it settles the other observed jobs of a
    ClusterQueue: a job settled after them reads their Workloads only through the quota
    they hold (``KueueRayServiceModel._neighbour_workloads``)."""
    return _m(_m(world.memory.get(MEM_HELD_USAGE)).get(cq_name))


def inactive_reason(cq: Obj, world: World) -> str | None:
    """Why the scheduler's cache holds ``cq`` inactive (``updateQueueStatus``,
    ``inactiveReason``; ``updateFlavorMetadata`` lists the missing flavors), or None: a
    ``stopPolicy`` of Hold or HoldAndDrain (stopped), or a ResourceFlavor its resource
    groups name that does not exist (FlavorNotFound). An input with no ResourceFlavor at
    all is taken to have them (they were not given, not deleted). Admission checks,
    topology-aware scheduling and MultiKueue are not modelled."""
    q = quota_of(cq)
    if q.stop_policy in ("Hold", "HoldAndDrain"):
        return f"stopPolicy {q.stop_policy}"
    have = {f.name for f in world.of_kind(RF)}
    if have:
        missing = [f for _covered, flavors in q.groups for f in flavors if f not in have]
        if missing:
            return f"references missing ResourceFlavor(s): {','.join(missing)}"
    return None


#: the label the API server sets on every Namespace (its name)
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"


def _selector_matches(sel: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """``metav1.LabelSelectorAsSelector(sel).Matches(labels)``: every ``matchLabels`` pair
    and every ``matchExpressions`` requirement (In, NotIn, Exists, DoesNotExist)."""
    for k, v in _m(sel.get("matchLabels")).items():
        if labels.get(str(k)) != str(v):
            return False
    for e in _l(sel.get("matchExpressions")):
        e = _m(e)
        key, op, values = str(e.get("key")), str(e.get("operator")), [str(v) for v in _l(e.get("values"))]
        has = key in labels
        if op == "In" and not (has and labels[key] in values):
            return False
        if op == "NotIn" and has and labels[key] in values:
            return False
        if op == "Exists" and not has:
            return False
        if op == "DoesNotExist" and has:
            return False
        if op not in ("In", "NotIn", "Exists", "DoesNotExist"):
            return False  # LabelSelectorAsSelector refuses the selector: it selects nothing
    return True


def _only_name(sel: Mapping[str, Any]) -> dict[str, Any]:
    """The requirements of ``sel`` on the ``kubernetes.io/metadata.name`` label."""
    return {"matchLabels": {k: v for k, v in _m(sel.get("matchLabels")).items() if k == NAMESPACE_NAME_LABEL},
            "matchExpressions": [e for e in _l(sel.get("matchExpressions")) if _m(e).get("key") == NAMESPACE_NAME_LABEL]}


def namespace_admissible(cq: Obj, namespace: str, world: World) -> bool | None:
    """Whether ``cq``'s ``namespaceSelector`` admits Workloads of ``namespace``
    (``ValidateAdmissibility``, pkg/workload/resources.go; the selector built by
    ``LabelSelectorAsSelector`` in clusterqueue.go): no selector admits no namespace, ``{}``
    every one. The namespace's labels are the observed Namespace's, else only the
    ``kubernetes.io/metadata.name`` label the API server sets; None when the selector
    needs labels a Namespace that was not given may have."""
    sel = cq.spec.get("namespaceSelector")
    if not isinstance(sel, Mapping):
        return False
    ns = next((o for o in world.of_kind("Namespace") if o.name == namespace), None)
    labels = {**(dict(ns.labels) if ns is not None else {}), NAMESPACE_NAME_LABEL: namespace}
    if _selector_matches(sel, labels):
        return True
    if ns is not None or not _selector_matches(_only_name(sel), labels):
        return False  # (the name requirements alone already fail)
    keys = {str(k) for k in _m(sel.get("matchLabels"))} | {str(_m(e).get("key")) for e in _l(sel.get("matchExpressions"))}
    return False if keys <= {NAMESPACE_NAME_LABEL} else None
