"""The elastic-job ungater, between passes: which RayClusters' Pods lose the
``kueue.x-k8s.io/elastic-job`` scheduling gate.

Upstream: kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7, ``pkg/controller/elasticjobs/elastic_job_ungater.go``
(``ElasticJobUngater``). Modelled per RayCluster: a cluster's Pods are released together.
What the ungater watches (``SetupWithManager``) is ``CONTROLLER``, as data: its key is
the chain's active slice (a Workload).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

from ...core.model import Obj
from ...core.queue import Controller, Watch
from ...core.world import World
from ..kuberay.api import L_CRD, L_NAME, RC, RS
from .constants import ELASTIC_GATE, SLICE_NAME_ANN, WL
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
    active = active_slice(world, rs.namespace, (RS, rs.name))
    if active is not None:
        granted = counts(wl_pod_sets(active))
        used: dict[str, int] = {}
        # podsToUngate lists only the Pods annotated with the active slice's chain name
        # (the origin slice, kueue.x-k8s.io/workload-slice-name, injected at admission):
        # a cluster created under another chain, or before any admission, is neither
        # counted nor released.
        chain = active.annotations.get(SLICE_NAME_ANN) or active.name
        kids = [c for c in kids if slice_chain_of(c) == chain]
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


def slice_chain_of(rc: Obj) -> str | None:
    """The slice chain a RayCluster's Pods belong to: the ``kueue.x-k8s.io/workload-slice-name``
    annotation of its pod templates (the ungater's Pod index, ``indexer.WorkloadSliceNameKey``);
    None when Kueue had not injected one when the cluster was created."""
    md = as_map(as_map(as_map(rc.spec.get("headGroupSpec")).get("template")).get("metadata"))
    v = as_map(md.get("annotations")).get(SLICE_NAME_ANN)
    return str(v) if v else None


def active_slice(world: World, ns: str, owner: tuple[str, str]) -> Obj | None:
    """``latestActiveSliceForOwner`` (with ``workloadslicing.FindLatestActiveWorkload``): the
    job's newest Workload that is not being deleted, not finished, not evicted and is
    admitted; None when there is none."""
    ws = sorted((w for w in world.of_kind(WL) if w.namespace == ns and owner_of(w) == owner
                 and not w.terminating and not finished(w) and not evicted(w) and admitted(w)), key=created_at)
    return ws[-1] if ws else None


def should_ungate(w: Obj) -> bool:
    """``shouldUngate``: an elastic Workload (``IsElasticWorkload``) that is not finished and
    is admitted."""
    return is_elastic(w) and not finished(w) and admitted(w)


def slice_event(old: Obj | None, new: Obj | None, world: World) -> list[str]:
    """The Workload watch: the ungater's predicates (``Create``/``Update``: ``shouldUngate``
    of the new object; ``Delete``: false), then ``sliceKeyHandler``: the chain's active
    slice, found from the event's Workload by its controller owner (``activeSlice``)."""
    if new is None or not should_ungate(new):
        return []
    owner = owner_of(new)
    active = active_slice(world, new.namespace, owner) if owner is not None else None
    return [active.name] if active is not None else []


def pod_event(old: Obj | None, new: Obj | None, world: World) -> list[str]:
    """The Pod watch (``elasticPodHandler.queueReconcileForPod``): a Pod's event enqueues the
    active slice of the job that owns its slice chain (``ownerForPod``). The model keeps a
    RayCluster's Pods in the RayCluster, so their events are the RayCluster's; the job is
    the RayService named by KubeRay's association labels."""
    out: list[str] = []
    for o in (old, new):
        if o is None or o.labels.get(L_CRD) != "RayService" or not o.labels.get(L_NAME):
            continue
        active = active_slice(world, o.namespace, (RS, str(o.labels.get(L_NAME))))
        if active is not None and active.name not in out:
            out.append(active.name)
    return out


_SETUP = "pkg/controller/elasticjobs/elastic_job_ungater.go#SetupWithManager"

#: ``SetupWithManager``: what the elastic-job ungater watches. Its Workload watch keys by
#: the active slice; the Pod watch is, in the model, the RayCluster holding the Pods.
CONTROLLER = Controller("kueue/elastic_job_ungater", WL, (
    Watch(WL, slice_event, f"{_SETUP}: WatchesRawSource(Kind(Workload, sliceKeyHandler, r)), r's predicates "
          "Create/Update (shouldUngate), Delete/Generic false"),
    Watch(RC, pod_event, f"{_SETUP}: Watches(&corev1.Pod{{}}, &podHandler) (the model's Pods live in their "
          "RayCluster)"),
), _SETUP)

#: kinds the ungater reads that no watch of it covers
NOT_WATCHED: Mapping[str, str] = MappingProxyType({})


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
