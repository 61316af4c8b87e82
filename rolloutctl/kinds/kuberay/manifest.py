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
from .validation.utils_validation import COLLECTOR_CONTAINER


#: ``AutoscalerContainerName`` and the workers' init container (ray-operator/controllers/ray/common/pod.go)
AUTOSCALER_CONTAINER = "autoscaler"
WAIT_GCS_READY = "wait-gcs-ready"
#: the init container ``configureTLS`` prepends (common/pod.go)
WAIT_FOR_TLS_IP_SAN = "wait-for-tls-ip-san"


def _named(ps: Any, key: str, name: str) -> bool:
    items = ps.get(key) if isinstance(ps, Mapping) else None
    return any(isinstance(c, Mapping) and c.get("name") == name for c in (items if isinstance(items, list) else []))


def injected_into_pods(obj: Any, options: Mapping[str, Any] | None = None) -> Iterator[tuple[tuple, str, str, str]]:
    """(pod spec path, list, name, what) of the containers KubeRay adds whatever the
    template holds (common/pod.go), run with the model ``options``:

    - with ``enableInTreeAutoscaling: true`` (``utils.IsAutoscalingEnabled``, autoscaler
      v1 or v2), ``DefaultHeadPodTemplate`` appends the ``autoscaler`` sidecar to the
      head Pod's containers;
    - unless the operator runs with ``ENABLE_INIT_CONTAINER_INJECTION=false``
      (``--kuberay-env``), ``DefaultWorkerPodTemplate`` appends the ``wait-gcs-ready``
      init container to every worker Pod's;
    - with the RayClusterMTLS gate on and ``tlsOptions.enabled: true``
      (``utils.IsTLSEnabled``), ``configureTLS`` prepends the ``wait-for-tls-ip-san``
      init container to the head's and every worker's, unless the template already has
      an init container of that name (so only a regular container of that name clashes);
    - with the RayClusterHistoryServer gate on and ``historyServerOptions.collectorOptions``
      set, both append the ``ray-history-collector`` container to the head's and every
      worker's containers; a template's own container of that name is refused by
      ``ValidateRayClusterSpec`` first (RS039), so it is listed only when none has one,
      and then an init container of that name is what clashes.

    What KubeRay adds only when the Pod lacks it is no duplicate: ``AddRayTokenVolume``
    (``ray-token``, ``VolumeExists``), ``configureTLS``'s ``ray-tls`` volume, and
    ``BuildPod``'s ``addEmptyDir`` (``shared-mem``, ``ray-logs``: ``checkIfVolumeExists``).
    The embedded GCS FT ``gcs-storage`` volume is appended unchecked, but a head
    template's own volume of that name is refused by ``validateGcsFaultToleranceBackend``
    first (RS016)."""
    opts = options or {}
    config = OperatorConfig.from_options(None, opts.get("feature_gates", ()), opts.get("kuberay_env", ()))
    rcc = obj.spec.get("rayClusterConfig")
    if not isinstance(rcc, Mapping):
        return
    templates = list(pod_templates(obj))
    head = ("spec", "rayClusterConfig", "headGroupSpec", "template", "spec")
    tls = rcc.get("tlsOptions")
    tls_on = config.gate("RayClusterMTLS") and isinstance(tls, Mapping) and tls.get("enabled") is True
    hso = rcc.get("historyServerOptions")
    collector = (config.gate("RayClusterHistoryServer") and isinstance(hso, Mapping)
                 and hso.get("collectorOptions") is not None
                 and not any(_named(ps, "containers", COLLECTOR_CONTAINER) for _p, ps in templates))
    for path, ps in templates:
        if path == head and rcc.get("enableInTreeAutoscaling") is True:
            yield (path, "containers", AUTOSCALER_CONTAINER,
                   "the autoscaler sidecar KubeRay adds to the head Pod (enableInTreeAutoscaling)")
        if path != head and config.init_container_injection_env():
            yield (path, "initContainers", WAIT_GCS_READY, "the init container KubeRay adds to every worker Pod "
                   "(unless the operator runs with ENABLE_INIT_CONTAINER_INJECTION=false: --kuberay-env)")
        if tls_on and not _named(ps, "initContainers", WAIT_FOR_TLS_IP_SAN):
            yield (path, "initContainers", WAIT_FOR_TLS_IP_SAN,
                   "the init container KubeRay adds to every Pod with mTLS (RayClusterMTLS, tlsOptions.enabled)")
        if collector:
            yield (path, "containers", COLLECTOR_CONTAINER, "the history server collector KubeRay adds to every Pod "
                   "(RayClusterHistoryServer, historyServerOptions.collectorOptions)")


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
