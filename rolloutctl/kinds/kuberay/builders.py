"""What the RayService controller creates: the RayCluster (and the in-place update of
one), the incremental-upgrade Gateway and HTTPRoute, and the model's Serve state object.

Upstream: ``ray-operator/controllers/ray/rayservice_controller.go`` of ray-project/kuberay
@ feeaf72f ``constructRayClusterForRayService``, ``modifyRayCluster``, ``createGateway``,
``createHTTPRoute``; owner references as ``ctrl.SetControllerReference`` sets them.
The Services are built in ``service.py`` (``common/service.go``).

The Serve state of a cluster (its dashboard's applications, and the controller's
serve-config cache ``serveConfigs``: ``cacheServeConfig`` / ``getServeConfigFromCache``)
is a pseudo-object of kind ``ServeApplications`` named after the cluster, held in the
world; submitting a config is an ``update`` of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.model import Obj
from ...core.trees import copy_tree
from . import service as ksvc
from . import utils as ku
from .api import API, GW, GW_API, L_CRD, L_NAME, RC, ROUTE, RS, SA, SA_API, gateway_name, route_name
from .decisions import HASH_ANNOTATION, KUBERAY_VERSION_ANNOTATION, NUM_WORKER_GROUPS_ANNOTATION
from .operator import DEFAULT_CONFIG, OperatorConfig
from .spec import incremental, upgrade_options


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, dict) or isinstance(v, Mapping) else {}  # dict first: the common case, cheaper


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def construct_ray_cluster_for_ray_service(desired: Obj, name: str, st: Mapping[str, Any], version: str,
                                          cfg: OperatorConfig = DEFAULT_CONFIG) -> dict:
    """``constructRayClusterForRayService``: labels and annotations of the RayService plus
    the association labels, the hash / worker-group count / KubeRay version annotations;
    spec = a copy of ``rayClusterConfig`` (its ``suspend`` included); for an incremental
    upgrade of a running service, worker ``replicas`` cleared."""
    labels = dict(desired.labels)
    labels[L_NAME] = desired.name
    labels[L_CRD] = "RayService"
    ann = dict(desired.annotations)
    ann[HASH_ANNOTATION] = "<hash of rayClusterConfig>"
    ann[NUM_WORKER_GROUPS_ANNOTATION] = str(len(_l(desired.spec.get("rayClusterConfig", {}).get("workerGroupSpecs"))))
    ann[KUBERAY_VERSION_ANNOTATION] = version
    spec = copy_tree(dict(_m(desired.spec.get("rayClusterConfig"))))
    if incremental(desired, cfg) and _m(st.get("activeServiceStatus")).get("rayClusterName"):
        for g in _l(spec.get("workerGroupSpecs")):
            if isinstance(g, dict):
                g.pop("replicas", None)
    return {"apiVersion": API, "kind": RC,
            "metadata": {"name": name, "namespace": desired.namespace, "labels": labels, "annotations": ann,
                         "ownerReferences": [owner_reference(RS, desired.name)]},
            "spec": spec, "status": {}}


def modify_ray_cluster(current: Obj, goal: Mapping[str, Any]) -> dict:
    """``modifyRayCluster``: spec := goal spec except ``suspend`` (kept from the live
    cluster); labels and annotations := goal. Pod state (status) is the cluster's own."""
    raw = copy_tree(dict(current.raw))
    spec = copy_tree(dict(goal["spec"]))
    if "suspend" in current.spec:
        spec["suspend"] = current.spec.get("suspend")
    else:
        spec.pop("suspend", None)
    raw["spec"] = spec
    md = dict(raw.get("metadata") or {})
    md["labels"] = dict(goal["metadata"]["labels"])
    md["annotations"] = dict(goal["metadata"]["annotations"])
    raw["metadata"] = md
    return raw


def owner_reference(kind: str, name: str) -> dict:
    """The controller owner reference to a RayService (or RayCluster) ``name``."""
    return {"apiVersion": API, "kind": kind, "name": name, "controller": True}


def sa_object(ns: str, cluster: str, config: str, tc: Any, apps: Mapping[str, Any]) -> dict:
    """The Serve state of RayCluster ``cluster``: the config last submitted (the serve-config
    cache) with its ``target_capacity``, and the applications the dashboard reports."""
    return {"apiVersion": SA_API, "kind": SA, "metadata": {"name": cluster, "namespace": ns},
            "spec": {"serveConfigV2": config, "targetCapacity": tc}, "status": {"applications": dict(apps)}}


def create_gateway(desired: Obj, ns: str) -> dict:
    """``createGateway`` (rayservice_controller.go): ``<rs>-gateway``, the options'
    gatewayClassName, one listener ``http`` / HTTP / 80."""
    cls = upgrade_options(desired).get("gatewayClassName")
    return {"apiVersion": GW_API, "kind": GW, "metadata": {"name": gateway_name(desired.name), "namespace": ns},
            "spec": {"gatewayClassName": cls,
                     "listeners": [{"name": ku.GATEWAY_LISTENER_PORT_NAME, "protocol": "HTTP",
                                    "port": ku.DEFAULT_GATEWAY_LISTENER_PORT}]}}


def create_http_route(desired: Obj, ns: str, active: Obj, pending: Obj | None, aw: int, pw: int) -> dict:
    """``createHTTPRoute`` (rayservice_controller.go): ``<rs>-httproute`` with one parentRef
    (the Gateway, its namespace) and one rule: PathPrefix ``/`` to the active (and
    pending) per-cluster serve Services, in the Gateway's namespace, on each cluster's
    serve port (``common.GetServePort``), weighted."""
    backends = [{"name": ksvc.serve_service_name(active.name), "namespace": ns,
                 "port": ku.get_serve_port(_m(active.spec)), "weight": aw}]
    if pending is not None:
        backends.append({"name": ksvc.serve_service_name(pending.name), "namespace": ns,
                         "port": ku.get_serve_port(_m(pending.spec)), "weight": pw})
    spec = {"parentRefs": [{"name": gateway_name(desired.name), "namespace": ns}],
            "rules": [{"matches": [{"path": {"type": "PathPrefix", "value": "/"}}], "backendRefs": backends}]}
    return {"apiVersion": GW_API, "kind": ROUTE, "metadata": {"name": route_name(desired.name), "namespace": ns},
            "spec": spec}
