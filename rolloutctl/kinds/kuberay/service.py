"""The Services the RayService controller builds, in our words.

Upstream (ray-project/kuberay @ feeaf72f): ``ray-operator/controllers/ray/common/service.go``
``getServicePorts``, ``getPortsFromCluster``, ``getDefaultPorts``, ``isServingPort``,
``BuildServiceForHeadPod``, ``BuildHeadServiceForRayService``, ``BuildServeService``;
names from ``ray-operator/controllers/ray/utils/util.go`` ``GenerateHeadServiceName``
(RayService CRD) and ``GenerateServeServiceName``.

The builders return a Service as a plain dict. Port lists are sorted by name (upstream
iterates a Go map; the head Service sorts, the serve Service order is not defined, so
the model fixes one).
"""

from __future__ import annotations

from types import MappingProxyType
from collections.abc import Mapping
from typing import Any

from ...core.trees import copy_tree
from .operator import DEFAULT_CONFIG, OperatorConfig
from .validation.util import is_incremental_upgrade_enabled

L_NAME = "ray.io/originated-from-cr-name"
L_CRD = "ray.io/originated-from-crd"
L_CLUSTER = "ray.io/cluster"
L_SERVE = "ray.io/serve"
L_NODE_TYPE = "ray.io/node-type"
L_ID = "ray.io/identifier"
APP_NAME = "app.kubernetes.io/name"
CREATED_BY = "app.kubernetes.io/created-by"

#: ``getDefaultPorts`` (constant.go port names and numbers)
DEFAULT_PORTS: Mapping[str, int] = MappingProxyType(
    {"client": 10001, "gcs-server": 6379, "dashboard": 8265, "metrics": 8080, "serve": 8000})
METRICS_PORT_NAME, DEFAULT_METRICS_PORT = "metrics", 8080
#: ``utils.DefaultServiceAppProtocol``
DEFAULT_APP_PROTOCOL = "tcp"


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, dict) or isinstance(v, Mapping) else {}  # dict first: the common case, cheaper


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def get_service_ports(cluster_spec: Mapping[str, Any]) -> dict[str, int]:
    """``getServicePorts``: the head container's ports by name (an unnamed one is
    ``<port>-port``), the defaults when it declares none, and ``metrics`` 8080 added."""
    containers = _l(_m(_m(_m(cluster_spec.get("headGroupSpec")).get("template")).get("spec")).get("containers"))
    ports: dict[str, int] = {}
    for p in _l(_m(containers[0] if containers else {}).get("ports")):
        p = _m(p)
        cp = p.get("containerPort")
        if not isinstance(cp, int):
            continue
        ports[str(p.get("name") or f"{cp}-port")] = cp
    if not ports:
        ports = dict(DEFAULT_PORTS)
    ports.setdefault(METRICS_PORT_NAME, DEFAULT_METRICS_PORT)
    return ports


def is_serving_port(name: str) -> bool:
    """``isServingPort``: ``serve`` or ``serve-*``."""
    return name == "serve" or name.startswith("serve-")


def head_service_name(rs: str) -> str:
    """``utils.GenerateHeadServiceName`` for the RayService CRD."""
    return f"{rs}-head-svc"


def serve_service_name(name: str) -> str:
    """``utils.GenerateServeServiceName``."""
    return f"{name}-serve-svc"


def _owner(kind: str, name: str) -> dict:
    return {"apiVersion": "ray.io/v1", "kind": kind, "name": name, "controller": True}


def build_head_service_for_ray_service(rs: Mapping[str, Any], cluster: Mapping[str, Any],
                                       cfg: OperatorConfig = DEFAULT_CONFIG) -> dict:
    """``BuildHeadServiceForRayService`` over ``BuildServiceForHeadPod``: ``<rs>-head-svc``
    selecting the cluster's head Pod, every head port (appProtocol tcp); headless
    (``clusterIP: None``, ``publishNotReadyAddresses``) unless the head service type is
    not ClusterIP or the operator sets ``ENABLE_RAY_HEAD_CLUSTER_IP_SERVICE=true``."""
    md, cmd = _m(rs.get("metadata")), _m(cluster.get("metadata"))
    cspec = _m(cluster.get("spec"))
    cname = str(cmd.get("name") or "")
    rs_name = str(md.get("name") or "")
    head = _m(cspec.get("headGroupSpec"))
    user = _m(head.get("headService"))
    selector = {L_CLUSTER: cname, L_NODE_TYPE: "head", L_ID: f"{cname}-head", APP_NAME: "kuberay",
                CREATED_BY: "kuberay-operator"}
    ports = [{"name": n, "port": p, "appProtocol": DEFAULT_APP_PROTOCOL}
             for n, p in sorted(get_service_ports(cspec).items())]
    svc_type = head.get("serviceType")
    if user:
        spec = copy_tree(dict(_m(user.get("spec"))))
        spec["selector"] = selector
        spec["ports"] = _l(spec.get("ports")) + ports
        if not spec.get("type"):
            spec["type"] = svc_type or "ClusterIP"
    else:
        spec = {"selector": selector, "ports": ports}
        if svc_type:
            spec["type"] = svc_type
        if str(cfg.env.get("ENABLE_RAY_HEAD_CLUSTER_IP_SERVICE", "")).lower() != "true" \
                and svc_type in (None, "", "ClusterIP"):
            spec["clusterIP"] = "None"
            spec["publishNotReadyAddresses"] = True
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": head_service_name(rs_name), "namespace": md.get("namespace"),
                         "labels": {L_NAME: rs_name, L_CRD: "RayService", L_NODE_TYPE: "head",
                                    L_ID: f"{rs_name}-head"},
                         "ownerReferences": [_owner("RayService", rs_name)]},
            "spec": spec}


class ServeServiceError(ValueError):
    """``BuildServeService`` fails: no serve port and no ``serveService``."""


def build_serve_service(rs: Mapping[str, Any], cluster: Mapping[str, Any], cfg: OperatorConfig = DEFAULT_CONFIG) -> dict:
    """``BuildServeService`` for a RayService: ``<rs>-serve-svc`` (``<cluster>-serve-svc``
    in incremental mode, owned by the cluster) selecting the cluster's Pods labelled
    ``ray.io/serve=true`` on the head's serve ports; a user ``serveService`` (not in
    incremental mode) keeps its name, type and metadata, its ports merged by name with
    the serve ports. Raises ServeServiceError when there is no serve port and no
    ``serveService`` (in incremental mode, whenever there is no serve port)."""
    md, cmd = _m(rs.get("metadata")), _m(cluster.get("metadata"))
    rs_spec = _m(rs.get("spec"))
    cname = str(cmd.get("name") or "")
    inc = is_incremental_upgrade_enabled(rs_spec, cfg)
    name = cname if inc else str(md.get("name") or "")
    labels = {L_NAME: name, L_CRD: "RayService", L_SERVE: f"{name}-serve"}
    selector = {L_CLUSTER: cname, L_SERVE: "true"}
    svc_type = _m(_m(rs_spec.get("rayClusterConfig")).get("headGroupSpec")).get("serviceType")
    ports = [{"name": n, "port": p} for n, p in sorted(get_service_ports(_m(cluster.get("spec"))).items())
             if is_serving_port(n)]
    user = rs_spec.get("serveService")
    owner = _owner("RayCluster", cname) if inc else _owner("RayService", str(md.get("name") or ""))
    if not ports and user is None:
        raise ServeServiceError("Please specify a port named 'serve' (or with the prefix 'serve-', e.g. 'serve-grpc') "
                                "in the Ray head container; otherwise, the Kubernetes service for Ray Serve will not "
                                "be created.")
    if isinstance(user, Mapping) and not inc:
        svc = copy_tree(dict(user))
        umd = dict(_m(svc.get("metadata")))
        spec = dict(_m(svc.get("spec")))
        spec["selector"] = selector
        if ports:
            by_name = {str(_m(p).get("name") or ""): p for p in _l(spec.get("ports"))}
            spec["ports"] = [by_name.get(p["name"], p) for p in ports]
        if not spec.get("type"):
            spec["type"] = svc_type or "ClusterIP"
        umd["labels"] = {**dict(_m(umd.get("labels"))), **labels}
        umd["annotations"] = dict(_m(umd.get("annotations")))
        umd["name"] = umd.get("name") or serve_service_name(name)
        umd["namespace"] = md.get("namespace")
        umd["ownerReferences"] = [owner]
        return {"apiVersion": "v1", "kind": "Service", "metadata": umd, "spec": spec}
    if not ports:  # serveService is ignored in incremental mode: the head's serve ports are required
        raise ServeServiceError("Please specify a port named 'serve' (or with the prefix 'serve-', e.g. 'serve-grpc') "
                                "in the Ray head container; otherwise, the Kubernetes service for Ray Serve will not "
                                "be created.")
    spec = {"selector": selector, "ports": ports}
    if svc_type:
        spec["type"] = svc_type
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": serve_service_name(name), "namespace": md.get("namespace"), "labels": labels,
                         "ownerReferences": [owner]},
            "spec": spec}
