"""What a RayService under Kueue reads from a cluster (``plan --kueue MODEL --from-cluster``):
KubeRay's reads (``kinds/kuberay/live.py``), the Workloads and LocalQueues of the namespace
(the model finds its own Workloads by owner) and the cluster-wide ClusterQueues,
ResourceFlavors and WorkloadPriorityClasses. Users with a namespaced role often cannot
read cluster-wide objects: those reads warn, and the queues can be given with ``--observed``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ...core.environment import add
from ...core.kind import LiveRead
from ...core.model import Obj
from ...core.quantity import parse_quantities
from ..kuberay.live import live_reads as kuberay_reads
from .constants import CQ, KUEUE_API, LQ, RF, WL


def live_reads(desired: Obj) -> list[LiveRead]:
    return [
        *kuberay_reads(desired),
        LiveRead(KUEUE_API, WL, "workloads.kueue.x-k8s.io"),
        LiveRead(KUEUE_API, LQ, "localqueues.kueue.x-k8s.io"),
        LiveRead(KUEUE_API, CQ, "clusterqueues.kueue.x-k8s.io", namespaced=False, required=False),
        LiveRead(KUEUE_API, RF, "resourceflavors.kueue.x-k8s.io", namespaced=False, required=False),
        LiveRead(KUEUE_API, "WorkloadPriorityClass", "workloadpriorityclasses.kueue.x-k8s.io", namespaced=False,
                 required=False),
    ]


def capacity_reads() -> list[LiveRead]:
    """``--capacity from-cluster`` with ``--kueue``: the ClusterQueues, whose nominal
    quota caps what the workload can be admitted with."""
    return [LiveRead("kueue.x-k8s.io/v1beta2", CQ, "clusterqueues.kueue.x-k8s.io", namespaced=False)]


def capacity_limits(objects: Sequence[Obj]) -> list[dict[str, int]]:
    """Per ClusterQueue, the sum over its resource groups and flavors of each resource's
    ``nominalQuota`` (``clusterqueue_types.go`` ``ResourceQuota.NominalQuota``)."""
    out = []
    for cq in objects:
        if cq.kind != CQ:
            continue
        total: dict[str, int] = {}
        for group in cq.spec.get("resourceGroups") or []:
            for flavor in (group.get("flavors") or []) if isinstance(group, Mapping) else []:
                for r in (flavor.get("resources") or []) if isinstance(flavor, Mapping) else []:
                    if isinstance(r, Mapping) and r.get("name"):
                        add(total, parse_quantities({r["name"]: r.get("nominalQuota")}))
        out.append(total)
    return out


