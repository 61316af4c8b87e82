"""The elastic-job ungater, between passes: which RayClusters' Pods lose the
``kueue.x-k8s.io/elastic-job`` scheduling gate.

Upstream: kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7, ``pkg/controller/elasticjobs/elastic_job_ungater.go``
(``ElasticJobUngater``). Modelled per RayCluster: a cluster's Pods are released together.
"""

from __future__ import annotations

from ...core.model import Obj
from ...core.world import World
from ..kuberay.api import RS
from .constants import ELASTIC_GATE, WL
from .context import LEGACY, MEM_UNGATED, as_list, as_map, children
from .evict import evicted
from .finish import finished
from .podset import counts
from .raycluster_common import build_pod_sets
from .workload import admitted, created_at, owner_of, wl_pod_sets
from .workloadslicing import is_elastic


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
    tpls = [as_map(as_map(rc.spec.get("headGroupSpec")).get("template"))]
    if not any(as_map(t.get("spec")).get("schedulingGates") and
               any(as_map(g).get("name") == ELASTIC_GATE for g in as_list(as_map(t.get("spec")).get("schedulingGates")))
               for t in tpls):
        return None
    if rc.name in set(world.memory.get(MEM_UNGATED, ())):
        return None
    return (f"scheduling gate {ELASTIC_GATE}: the active Workload slice does not grant Pods for this cluster "
            "(the ungater releases at most the admitted count per pod set)")
