"""What the RayService model reads of observed RayServices and RayClusters, as JSON
Schemas of types (``core.read_schemas``): ray-operator/apis/ray/v1
``rayservice_types.go`` (``RayServiceStatuses``) and ``raycluster_types.go``
(``RayClusterSpec``, ``RayClusterStatus``)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from ...core.read_schemas import (BOOL, CONDITIONS, INT, OBJ, POD_TEMPLATE, STR, STR_LIST, array, kind_schema,
                                  obj)

_SERVICE_STATUS = obj(rayClusterName=STR, applicationStatuses={"type": "object", "additionalProperties": obj(
    status=STR, message=STR, serveDeploymentStatuses=OBJ)}, targetCapacity=INT, trafficRoutedPercent=INT,
    lastTrafficMigratedTime={"type": ["string", "integer"]}, rayClusterStatus=OBJ)
_WORKER_GROUP = obj(groupName=STR, replicas=INT, minReplicas=INT, maxReplicas=INT, numOfHosts=INT, suspend=BOOL,
                    template=POD_TEMPLATE, scaleStrategy=obj(workersToDelete=STR_LIST))
_RAYCLUSTER_SPEC = obj(headGroupSpec=obj(template=POD_TEMPLATE, rayStartParams=OBJ), workerGroupSpecs=array(
    _WORKER_GROUP), suspend=BOOL, rayVersion=STR, enableInTreeAutoscaling=BOOL)

#: (api group, kind) -> schema of what the model reads, observed side only
READ_SCHEMAS: Mapping[tuple[str, str], dict] = MappingProxyType({
    ("ray.io", "RayService"): kind_schema(None, obj(serviceStatus=STR, numServeEndpoints=INT, observedGeneration=INT,
                                                    conditions=CONDITIONS, activeServiceStatus=_SERVICE_STATUS,
                                                    pendingServiceStatus=_SERVICE_STATUS)),
    ("ray.io", "RayCluster"): kind_schema(_RAYCLUSTER_SPEC, obj(state=STR, conditions=CONDITIONS,
                                                                readyWorkerReplicas=INT, desiredWorkerReplicas=INT,
                                                                availableWorkerReplicas=INT, observedGeneration=INT,
                                                                head=OBJ)),
})
