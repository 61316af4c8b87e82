"""What a RayService under Kueue reads from a cluster (``plan --kueue MODEL --from-cluster``):
KubeRay's reads (``kinds/kuberay/live.py``), the Workloads and LocalQueues of the namespace
(the model finds its own Workloads by owner) and the cluster-wide ClusterQueues,
ResourceFlavors and WorkloadPriorityClasses. Users with a namespaced role often cannot
read cluster-wide objects: those reads warn, and the queues can be given with ``--observed``.
"""

from __future__ import annotations

from ...core.kind import LiveRead
from ...core.model import Obj
from ..kuberay.live import live_reads as kuberay_reads
from .workload import CQ, KUEUE_API, LQ, RF, WL


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
