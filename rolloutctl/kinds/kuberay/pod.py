"""Whether a RayService's Pods serve: the Serve proxy check KubeRay builds into a worker's
readiness probe, and the head's serve port that ``updateHeadPodServeLabel`` checks, against
the port Ray Serve's proxies listen on.

Upstream (ray-project/kuberay @ feeaf72f): ``ray-operator/controllers/ray/common/pod.go``
``initLivenessAndReadinessProbe`` (for a RayService's worker Pods the readiness probe also
fetches ``/-/healthz`` from the Serve proxy on the ray container's ``serve`` port, 8000 when
it has none; only when the container has no readiness probe of its own) and ``BuildPod``
(probes are injected unless the operator runs with ``ENABLE_PROBES_INJECTION=false``,
``getEnableProbesInjection``); ``rayservice_controller.go`` ``updateHeadPodServeLabel`` (the
head Pod's ``ray.io/serve`` label is ``true`` only while the proxy answers on the head's
``serve`` port, and always ``false`` with ``excludeHeadPodFromServeSvc``);
``utils/util.go`` ``FindContainerPort``.

What Ray Serve does (not KubeRay): the Serve config's ``http_options.port`` (default 8000) is
the port its HTTP proxies listen on, on every node (``proxy_location: EveryNode``, the
default), on the head node only (``HeadOnly``) or nowhere (``Disabled``). A worker whose
probe asks another port, or a node with no proxy, fails the probe: that worker never
becomes Ready, and a head whose ``serve`` port is another gets ``ray.io/serve=false``. The
serve Service then has no endpoints and the RayService never becomes Ready (or, after an
upgrade switches to such a cluster, drops to Ready=False with ZeroServeEndpoints).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .operator import OperatorConfig
from .utils import DEFAULT_SERVING_PORT, SERVING_PORT_NAME, find_container_port

#: Ray Serve's ``proxy_location`` values (``DeploymentMode``) and its default
EVERY_NODE, HEAD_ONLY, DISABLED = "EveryNode", "HeadOnly", "Disabled"


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, dict) or (v is not None and isinstance(v, Mapping)) else {}


def _first_container(pod_spec: Mapping[str, Any]) -> Mapping[str, Any]:
    containers = pod_spec.get("containers")
    return _m(containers[0]) if isinstance(containers, list) and containers else {}


def serve_proxy(doc: Any) -> tuple[str, int]:
    """Where Ray Serve runs its HTTP proxies for a decoded Serve config and the port they
    listen on: (``proxy_location``, ``http_options.port``), ``EveryNode`` and 8000 when not
    given (a config that does not decode: the defaults)."""
    doc = _m(doc)
    location = doc.get("proxy_location")
    port = _m(doc.get("http_options")).get("port")
    if isinstance(port, str) and port.strip().isdigit():
        port = int(port.strip())  # (Serve's schema coerces a numeric string)
    return (str(location) if isinstance(location, str) and location else EVERY_NODE,
            port if isinstance(port, int) and not isinstance(port, bool) else DEFAULT_SERVING_PORT)


def worker_readiness_probe_serve_port(group: Mapping[str, Any], cfg: OperatorConfig) -> int | None:
    """``initLivenessAndReadinessProbe`` for a RayService's worker Pod: the port its
    injected readiness probe asks the Serve proxy on (the ray container's ``serve`` port,
    ``FindContainerPort``), or None when no probe is injected (the container has its own
    readiness probe, or ``ENABLE_PROBES_INJECTION=false``)."""
    if not cfg.probes_injection_env():
        return None
    container = _first_container(_m(_m(group.get("template")).get("spec")))
    if container.get("readinessProbe") is not None:
        return None
    return find_container_port(container, SERVING_PORT_NAME, DEFAULT_SERVING_PORT)


def worker_group_serves(group: Mapping[str, Any], proxy: tuple[str, int], cfg: OperatorConfig) -> bool:
    """Whether the worker Pods of ``group`` pass their readiness probe once Serve runs its
    proxies as ``proxy`` says (``serve_proxy``; ``worker_readiness_probe_serve_port``): no
    injected probe, or a proxy on every node on the port the probe asks."""
    port = worker_readiness_probe_serve_port(group, cfg)
    if port is None:
        return True
    location, listens = proxy
    return location == EVERY_NODE and listens == port


def head_serve_port(cluster_spec: Mapping[str, Any]) -> int:
    """The port ``updateHeadPodServeLabel`` asks the head's proxy on: the head's ray
    container's ``serve`` port (``FindContainerPort``), else 8000."""
    head = _first_container(_m(_m(_m(cluster_spec.get("headGroupSpec")).get("template")).get("spec")))
    return find_container_port(head, SERVING_PORT_NAME, DEFAULT_SERVING_PORT)


def head_pod_serve_label(cluster_spec: Mapping[str, Any], proxy: tuple[str, int], exclude: bool) -> bool:
    """``updateHeadPodServeLabel``: the head Pod's ``ray.io/serve`` label once Serve runs its
    proxies as ``proxy`` says (``serve_proxy``): false with ``excludeHeadPodFromServeSvc``,
    else whether a proxy answers on the head's serve port (``head_serve_port``)."""
    if exclude:
        return False
    location, listens = proxy
    return location != DISABLED and listens == head_serve_port(cluster_spec)


def ready_workers(cluster_spec: Mapping[str, Any], running: Mapping[str, int], proxy: tuple[str, int],
                  cfg: OperatorConfig) -> tuple[int, bool]:
    """(ready worker Pods, every worker Pod ready) of a RayService's cluster whose head is
    ready and runs ``running`` worker Pods per group, with Serve's proxies as ``proxy``
    says (``worker_group_serves``): what ``calculateStatus`` (raycluster_controller.go) reports
    as ``readyWorkerReplicas`` and reads for ``state: ready`` (``CheckAllPodsRunning``)."""
    ready, every = 0, True
    for g in cluster_spec.get("workerGroupSpecs") or ():
        g = _m(g)
        n = int(running.get(str(g.get("groupName")), 0))
        if worker_group_serves(g, proxy, cfg):
            ready += n
        elif n:
            every = False
    return ready, every
