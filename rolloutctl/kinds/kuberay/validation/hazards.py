"""Specs KubeRay stores that do not do what they seem: a nested ``suspend`` that is
copied only at creation, deprecated fields, a RayService without Serve applications, a
worker group of no hosts or with replicas outside its bounds, Pods whose serve port is not
the one Serve's proxies listen on (warnings), and a
``serveConfigV2`` that never unmarshals (RS036, an error: that service never serves).

Upstream (ray-project/kuberay @ feeaf72f): ``ray-operator/controllers/ray/rayservice_controller.go``
``constructRayClusterForRayService``, ``getAndCheckServeStatus`` and ``updateServeDeployment``;
``apis/ray/v1/rayservice_types.go`` ``RayServiceSpec`` (deprecated thresholds);
``controllers/ray/utils/util.go`` ``GetWorkerGroupDesiredReplicas``;
``controllers/ray/common/pod.go`` ``initLivenessAndReadinessProbe`` (``kinds/kuberay/pod.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..api import desired_worker_replicas
from ..pod import (DISABLED, HEAD_ONLY, head_pod_serve_label, head_serve_port, serve_proxy, worker_group_serves,
                   worker_readiness_probe_serve_port)
from .rules import (R_CLAMPED, R_DEPRECATED, R_NESTED_SUSPEND, R_NO_HOSTS, R_NO_SERVE_CONFIG, R_SERVE_CONFIG_YAML,
                    R_SERVE_PROXY_PORT, Ctx)
from .util import as_list, as_mapping, decoded_serve_config, serve_config_document, worker_path


def construct_ray_cluster_for_ray_service(c: Ctx) -> None:
    """``constructRayClusterForRayService`` (rayservice_controller.go) copies
    ``rayClusterConfig.suspend`` only at creation; ``rayClusterSpecForHashing`` ignores it."""
    if as_mapping(c.obj.spec.get("rayClusterConfig")).get("suspend") is True:
        c.add(R_NESTED_SUSPEND, ("spec", "rayClusterConfig", "suspend"), "spec.rayClusterConfig.suspend",
              "rayClusterConfig.suspend: true makes the next RayCluster start suspended; KubeRay never unsuspends it "
              "and every RayService pass stops until someone sets the RayCluster's own spec.suspend to false. "
              "To pause the whole service use spec.suspend")


def deprecated_fields(c: Ctx) -> None:
    """``RayServiceSpec`` (rayservice_types.go): deprecated threshold fields have no effect."""
    for f in ("serviceUnhealthySecondThreshold", "deploymentUnhealthySecondThreshold"):
        if f in c.obj.spec:
            c.add(R_DEPRECATED, ("spec", f), f"spec.{f}", f"spec.{f} is deprecated and ignored by the controller")


def get_and_check_serve_status(c: Ctx) -> None:
    """``getAndCheckServeStatus`` (rayservice_controller.go): a cluster with no Serve
    application is never ready, so the service never switches to it."""
    config = c.obj.spec.get("serveConfigV2")
    if not str(config or "").strip():
        c.add(R_NO_SERVE_CONFIG, ("spec",), "spec.serveConfigV2",
              "spec.serveConfigV2 is empty: no Serve application is deployed and the RayService never becomes ready")
    elif isinstance(config, str) and c.obj.derived(decoded_serve_config) == ([], None):
        c.add(R_NO_SERVE_CONFIG, ("spec", "serveConfigV2"), "spec.serveConfigV2",
              "spec.serveConfigV2 declares no application: the cluster reports none, so the RayService never "
              "becomes ready (and the controller resubmits the config on every pass)")


def update_serve_deployment(c: Ctx) -> None:
    """``updateServeDeployment`` (rayservice_controller.go) unmarshals ``serveConfigV2`` before
    submitting it; when that fails the pass returns the error, every pass: nothing is submitted,
    the Services never switch to a new cluster and a new RayService never becomes ready
    (``plan`` stops with ``ServeConfigInvalid``). Nothing validates the field before that."""
    err = c.obj.derived(decoded_serve_config)[1]
    if err is not None:
        c.add(R_SERVE_CONFIG_YAML, ("spec", "serveConfigV2"), "spec.serveConfigV2",
              f"spec.serveConfigV2 does not unmarshal ({err}): the controller fails before submitting it on every "
              "pass, so the Serve applications are never deployed")


def get_worker_group_desired_replicas(c: Ctx) -> None:
    """``GetWorkerGroupDesiredReplicas`` (utils/util.go) returns the group's replicas times
    ``numOfHosts``; ``reconcilePods`` (raycluster_controller.go) counts the Pods it expects
    with that before it treats a ``numOfHosts`` below one as one, so such a group gets no
    worker Pod. The CRD defaults only an absent ``numOfHosts`` (to 1) and sets no minimum.
    The replicas are clamped to [minReplicas, maxReplicas] first (``api.desired_worker_replicas``):
    a ``replicas`` written outside them is not what the group gets (RS042; a group without
    ``replicas`` is stored with 0 and starts at minReplicas, as intended, so it is not reported)."""
    written = as_list(as_mapping((c.obj.written or c.obj).spec.get("rayClusterConfig")).get("workerGroupSpecs"))
    for i, g in enumerate(as_list(as_mapping(c.obj.spec.get("rayClusterConfig")).get("workerGroupSpecs"))):
        g = as_mapping(g)
        _clamped(c, i, g, as_mapping(written[i]) if i < len(written) else {})
        hosts = g.get("numOfHosts")
        if isinstance(hosts, int) and not isinstance(hosts, bool) and hosts < 1:
            p, d = worker_path(i, g)
            c.add(R_NO_HOSTS, p + ("numOfHosts",), d + ".numOfHosts",
                  f"numOfHosts: {hosts}: KubeRay creates no worker Pod for group {g.get('groupName')!r} (it multiplies "
                  "the replicas by numOfHosts); a replica of one Pod is numOfHosts: 1")


def _clamped(c: Ctx, i: int, g: Mapping[str, Any], written: Mapping[str, Any]) -> None:
    r, mn, mx = g.get("replicas"), g.get("minReplicas"), g.get("maxReplicas")
    if g.get("suspend") is True or "replicas" not in written or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in (r, mn, mx)) or mn > mx:
        return  # suspended: no workers; min > max: the controller refuses it (RS010)
    kept = desired_worker_replicas(g)
    if kept != r:
        p, d = worker_path(i, g)
        bound = f"maxReplicas {mx}" if r > mx else f"minReplicas {mn}"
        c.add(R_CLAMPED, p + ("replicas",), d + ".replicas",
              f"replicas: {r} is {'above' if r > mx else 'below'} {bound}: KubeRay keeps {kept} worker "
              f"replica{'s' if kept != 1 else ''} in group {g.get('groupName')!r}, not {r}")


def init_liveness_and_readiness_probe(c: Ctx) -> None:
    """``initLivenessAndReadinessProbe`` (common/pod.go) and ``updateHeadPodServeLabel``
    (rayservice_controller.go) against the port Serve's proxies listen on
    (``pod.serve_proxy``): a worker group whose injected readiness probe asks another port,
    or that runs no proxy, never has a Ready Pod; a head whose serve port is another is never
    labelled ``ray.io/serve=true``. With neither, the serve Service has no endpoint and the
    RayService never becomes Ready (``plan`` stops with NeverReady)."""
    doc = serve_config_document(c.obj)
    if doc is None or c.obj.derived(decoded_serve_config)[1] is not None:
        return  # (empty or undecodable: RS035, RS036)
    location, port = proxy = serve_proxy(doc)
    if location == DISABLED:
        return
    where = f"on port {port} (serveConfigV2 http_options.port{'' if 'port' in as_mapping(as_mapping(doc).get('http_options')) else ', by default'})"
    rc = as_mapping(c.obj.spec.get("rayClusterConfig"))
    head = head_serve_port(rc)
    if c.obj.spec.get("excludeHeadPodFromServeSvc") is not True and not head_pod_serve_label(rc, proxy, False):
        c.add(R_SERVE_PROXY_PORT, ("spec", "rayClusterConfig", "headGroupSpec", "template", "spec", "containers", 0),
              "spec.rayClusterConfig.headGroupSpec.template.spec.containers[0].ports",
              f"the head's serve port is {head} but Serve's proxies listen {where}: KubeRay finds no proxy there, "
              "labels the head ray.io/serve=false and keeps it out of the serve Service")
    for i, g in enumerate(as_list(rc.get("workerGroupSpecs"))):
        g = as_mapping(g)
        if worker_group_serves(g, proxy, c.cfg) or g.get("suspend") is True:
            continue
        probe = worker_readiness_probe_serve_port(g, c.cfg)
        p, d = worker_path(i, g)
        ctr = as_list(as_mapping(as_mapping(g.get("template")).get("spec")).get("containers"))
        named = ("the ray container's serve port" if any(as_mapping(x).get("name") == "serve" for x in as_list(
            as_mapping(ctr[0] if ctr else {}).get("ports"))) else "the ray container names no serve port")
        why = (f"proxy_location {HEAD_ONLY} runs no proxy on worker nodes" if location == HEAD_ONLY else
               f"Serve's proxies listen {where}")
        c.add(R_SERVE_PROXY_PORT, p + ("template", "spec", "containers", 0), d + ".template.spec.containers[0]",
              f"the readiness probe KubeRay gives the Pods of worker group {g.get('groupName')!r} asks the Serve "
              f"proxy on port {probe} ({named}), "
              f"but {why}: those Pods never become Ready (set a port named serve to {port}, or a readinessProbe "
              "of your own)")
