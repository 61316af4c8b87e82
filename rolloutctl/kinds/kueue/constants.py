"""The names Kueue's code uses for its API, labels, annotations and gates, and the
values of the RayCluster integration that several modules read.

Upstream: kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7:

- ``apis/kueue/v1beta2``: the API group and version, the kinds, ``ElasticJobSchedulingGate``
  (``constants.go``), ``WorkloadAnnotation`` and ``WorkloadSliceNameAnnotation``
  (``topology_types.go``);
- ``pkg/controller/constants/constants.go``: ``QueueLabel``, ``WorkloadPriorityClassLabel``,
  ``JobUIDLabel``, ``ElasticJobAnnotation``;
- ``pkg/constants/constants.go``: ``PodSetLabel``, ``LocalQueueLabel``, ``ClusterQueueLabel``;
- ``pkg/workloadslicing/workloadslicing.go``: ``WorkloadSliceReplacementFor``;
- ``pkg/controller/jobs/raycluster/common.go``: ``headGroupPodSetName``.
"""

from __future__ import annotations

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
HEAD = "head"
