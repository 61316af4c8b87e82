"""Readings of a RayService manifest as written, before admission, tolerant of any
shape: the pod templates it carries (Kubernetes' resource checks, SC006).

Upstream: ``ray-operator/apis/ray/v1/raycluster_types.go`` (``HeadGroupSpec.Template``,
``WorkerGroupSpec.Template``) under ``RayServiceSpec.RayClusterSpec``
(``rayservice_types.go``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .operator import OperatorConfig


#: ``AutoscalerContainerName`` and the workers' init container (ray-operator/controllers/ray/common/pod.go)
AUTOSCALER_CONTAINER = "autoscaler"
WAIT_GCS_READY = "wait-gcs-ready"


def injected_into_pods(obj: Any, options: Mapping[str, Any] | None = None) -> Iterator[tuple[tuple, str, str, str]]:
    """(pod spec path, list, name, what) of the containers KubeRay adds whatever the
    template holds (common/pod.go): with ``enableInTreeAutoscaling``,
    ``DefaultHeadPodTemplate`` appends the ``autoscaler`` sidecar to the head Pod's
    containers; unless the operator runs with ``ENABLE_INIT_CONTAINER_INJECTION=false``
    (``--kuberay-env``, in ``options``), ``DefaultWorkerPodTemplate`` appends the
    ``wait-gcs-ready`` init container to every worker Pod's."""
    opts = options or {}
    config = OperatorConfig.from_options(None, opts.get("feature_gates", ()), opts.get("kuberay_env", ()))
    rcc = obj.spec.get("rayClusterConfig")
    if not isinstance(rcc, Mapping):
        return
    if rcc.get("enableInTreeAutoscaling") is True:
        yield (("spec", "rayClusterConfig", "headGroupSpec", "template", "spec"), "containers", AUTOSCALER_CONTAINER,
               "the autoscaler sidecar KubeRay adds to the head Pod (enableInTreeAutoscaling)")
    if config.init_container_injection_env():
        groups = rcc.get("workerGroupSpecs")
        for i, _g in enumerate(groups if isinstance(groups, list) else []):
            yield (("spec", "rayClusterConfig", "workerGroupSpecs", i, "template", "spec"), "initContainers",
                   WAIT_GCS_READY, "the init container KubeRay adds to every worker Pod (unless the operator runs "
                   "with ENABLE_INIT_CONTAINER_INJECTION=false: --kuberay-env)")


def pod_templates(obj: Any) -> Iterator[tuple[tuple, Mapping[str, Any]]]:
    """(path, pod spec) of the head group's and every worker group's template."""
    rcc = obj.spec.get("rayClusterConfig")
    if not isinstance(rcc, Mapping):
        return
    head = rcc.get("headGroupSpec")
    if isinstance(head, Mapping) and isinstance(head.get("template"), Mapping):
        ps = head["template"].get("spec")
        if isinstance(ps, Mapping):
            yield ("spec", "rayClusterConfig", "headGroupSpec", "template", "spec"), ps
    groups = rcc.get("workerGroupSpecs")
    for i, g in enumerate(groups if isinstance(groups, list) else []):
        t = g.get("template") if isinstance(g, Mapping) else None
        ps = t.get("spec") if isinstance(t, Mapping) else None
        if isinstance(ps, Mapping):
            yield ("spec", "rayClusterConfig", "workerGroupSpecs", i, "template", "spec"), ps
