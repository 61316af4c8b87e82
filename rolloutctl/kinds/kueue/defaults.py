"""What Kueue's job webhooks default on create, shared by the RayService and RayCluster
webhooks: the default WorkloadPriorityClass.

Upstream: kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7, ``pkg/controller/jobframework/defaults.go``
(``ApplyDefaultWorkloadPriorityClass``; the feature gate ``WorkloadPriorityClassDefaulting`` is beta and on since
v0.20, ``pkg/features/kube_features.go``). The default LocalQueue and the suspend defaults are in the webhook
modules, where each webhook applies them.
"""

from __future__ import annotations

from ...core.model import Obj
from ...core.world import World
from .constants import PRIORITY_LABEL, WPC

#: ``constants.DefaultWorkloadPriorityClassName`` (``pkg/controller/constants/constants.go``)
DEFAULT_WORKLOAD_PRIORITY_CLASS = "default"


def apply_default_workload_priority_class(job: Obj, world: World, owner_managed: bool = False) -> str | None:
    """``ApplyDefaultWorkloadPriorityClass`` (defaults.go): a job without the
    ``kueue.x-k8s.io/priority-class`` label, whose owner is not managed by Kueue, gets the
    label ``default`` when a WorkloadPriorityClass named ``default`` exists
    (``DefaultWorkloadPriorityClassExist``). Returns the label value to add, or None."""
    if job.labels.get(PRIORITY_LABEL) or owner_managed:
        return None
    if not any(o.name == DEFAULT_WORKLOAD_PRIORITY_CLASS for o in world.of_kind(WPC)):
        return None
    return DEFAULT_WORKLOAD_PRIORITY_CLASS
