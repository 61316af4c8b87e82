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
from .constants import WL
from .finish import finished
from .workload import quota_reserved, wl_pod_sets


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


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


def quota_of(cq: Obj) -> Quota:
    """``updateQuotasAndResourceGroups`` (clusterqueue.go): the ClusterQueue's resource groups,
    nominal quota per (flavor, resource), preemption within the queue, stop policy and cohort."""
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
