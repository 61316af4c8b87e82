"""What the KubeRay model reads from a cluster for one RayService (``plan --from-cluster``).

KubeRay labels the RayClusters and Services it creates for a RayService with
``ray.io/originated-from-cr-name=<rs>`` and ``ray.io/originated-from-crd=RayService``
(rayservice_controller.go ``constructRayClusterForRayService``; common/service.go
``BuildHeadServiceForRayService``, ``BuildServeService``); their Pods carry
``ray.io/cluster=<raycluster>`` (common/pod.go ``labelPod``). The incremental-upgrade
Gateway and HTTPRoute are found by name (``<rs>-gateway``, ``<rs>-httproute``), and its
per-cluster serve Services by their cluster: ``BuildServeService`` names and labels them
after the RayCluster (``ray.io/originated-from-cr-name=<raycluster>``), not the RayService.
"""

from __future__ import annotations

from ...core.kind import LiveRead
from ...core.model import Obj
from .api import API, GW, GW_API, L_CLUSTER, L_CRD, L_NAME, RC, ROUTE, RS, SVC, gateway_name, route_name
from .spec import incremental


def live_reads(desired: Obj) -> list[LiveRead]:
    sel = f"{L_NAME}={desired.name},{L_CRD}=RayService"
    gateway = incremental(desired)
    return [
        LiveRead(API, RS, "rayservices.ray.io", names=(desired.name,)),
        LiveRead(API, RC, "rayclusters.ray.io", selector=sel),
        LiveRead("v1", SVC, "services", selector=sel),
        LiveRead(GW_API, GW, "gateways.gateway.networking.k8s.io", names=(gateway_name(desired.name),),
                 required=gateway),
        LiveRead(GW_API, ROUTE, "httproutes.gateway.networking.k8s.io", names=(route_name(desired.name),),
                 required=gateway),
        *([LiveRead("v1", SVC, "services", selector=f"{L_CRD}=RayService", after=(RC, L_NAME))] if gateway else []),
        # the model reads the clusters' state from their status, not from their Pods
        LiveRead("v1", "Pod", "pods", required=False, after=(RC, L_CLUSTER)),
    ]
