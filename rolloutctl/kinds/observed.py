"""What the models read of observed objects, as JSON Schemas of types (the shapes the
API server stores): admission checks every observed object against them, so a wrong
type in a field a model reads is ``PATH:LINE: field: message`` (exit 2) instead of an
internal error. Objects stay open (``additionalProperties`` is not restricted): a newer
API server or operator may store fields the models never read.

The shapes follow the Go types the fields come from: ObjectMeta and Condition
(k8s.io/apimachinery ``pkg/apis/meta/v1/types.go``), Pod and Service
(k8s.io/api ``core/v1/types.go``), RayService and RayCluster status
(ray-operator/apis/ray/v1 ``rayservice_types.go``, ``raycluster_types.go``), and
Grove's PodCliqueSet, PodClique, PodCliqueScalingGroup and PodGang
(operator/api/core/v1alpha1, scheduler/api/core/v1alpha1).
"""

from __future__ import annotations

from typing import Any

STR = {"type": "string"}
INT = {"type": "integer"}
BOOL = {"type": "boolean"}
OBJ = {"type": "object"}
STR_MAP = {"type": "object", "additionalProperties": STR}
STR_LIST = {"type": "array", "items": STR}


def _obj(**props: Any) -> dict:
    return {"type": "object", "properties": props}


def _list(item: dict) -> dict:
    return {"type": "array", "items": item}


OWNER_REFERENCE = _obj(apiVersion=STR, kind=STR, name=STR, uid=STR, controller=BOOL, blockOwnerDeletion=BOOL)
OBJECT_META = _obj(name=STR, generateName=STR, namespace=STR, uid=STR, resourceVersion=STR, generation=INT,
                   labels=STR_MAP, annotations=STR_MAP, ownerReferences=_list(OWNER_REFERENCE),
                   finalizers=STR_LIST, deletionTimestamp=STR, creationTimestamp={"type": ["string", "null"]},
                   deletionGracePeriodSeconds=INT)
CONDITION = _obj(type=STR, status=STR, reason=STR, message=STR, observedGeneration=INT)
CONDITIONS = _list(CONDITION)
CONTAINER = _obj(name=STR, image=STR, resources=_obj(requests=OBJ, limits=OBJ), env=_list(_obj(name=STR)),
                 ports=_list(OBJ))
POD_SPEC = _obj(containers=_list(CONTAINER), initContainers=_list(CONTAINER), nodeName=STR, schedulerName=STR,
                schedulingGates=_list(_obj(name=STR)), priorityClassName=STR, restartPolicy=STR)
POD_TEMPLATE = _obj(metadata=_obj(labels=STR_MAP, annotations=STR_MAP), spec=POD_SPEC)


def _kind(spec: dict | None = None, status: dict | None = None) -> dict:
    props: dict[str, Any] = {"apiVersion": STR, "kind": STR, "metadata": OBJECT_META}
    if spec is not None:
        props["spec"] = spec
    if status is not None:
        props["status"] = status
    return {"type": "object", "properties": props}


_SERVICE_STATUS = _obj(rayClusterName=STR, applicationStatuses={"type": "object", "additionalProperties": _obj(
    status=STR, message=STR, serveDeploymentStatuses=OBJ)}, targetCapacity=INT, trafficRoutedPercent=INT,
    lastTrafficMigratedTime={"type": ["string", "integer"]}, rayClusterStatus=OBJ)
_WORKER_GROUP = _obj(groupName=STR, replicas=INT, minReplicas=INT, maxReplicas=INT, numOfHosts=INT, suspend=BOOL,
                     template=POD_TEMPLATE, scaleStrategy=_obj(workersToDelete=STR_LIST))
_RAYCLUSTER_SPEC = _obj(headGroupSpec=_obj(template=POD_TEMPLATE, rayStartParams=OBJ), workerGroupSpecs=_list(
    _WORKER_GROUP), suspend=BOOL, rayVersion=STR, enableInTreeAutoscaling=BOOL)
_GROVE_COUNTS = dict(replicas=INT, readyReplicas=INT, updatedReplicas=INT, availableReplicas=INT,
                     scheduledReplicas=INT, scheduleGatedReplicas=INT, observedGeneration=INT, conditions=CONDITIONS)

#: (api group, kind) -> schema of what the models read, observed side only
READ_SCHEMAS: dict[tuple[str, str], dict] = {
    ("", "Pod"): _kind(POD_SPEC, _obj(phase=STR, conditions=CONDITIONS, podIP=STR, containerStatuses=_list(_obj(
        name=STR, ready=BOOL, restartCount=INT, image=STR, state=OBJ)))),
    ("", "Service"): _kind(_obj(selector=STR_MAP, ports=_list(OBJ), type=STR, clusterIP=STR,
                                publishNotReadyAddresses=BOOL)),
    ("ray.io", "RayService"): _kind(None, _obj(serviceStatus=STR, numServeEndpoints=INT, observedGeneration=INT,
                                               conditions=CONDITIONS, activeServiceStatus=_SERVICE_STATUS,
                                               pendingServiceStatus=_SERVICE_STATUS)),
    ("ray.io", "RayCluster"): _kind(_RAYCLUSTER_SPEC, _obj(state=STR, conditions=CONDITIONS, readyWorkerReplicas=INT,
                                                           desiredWorkerReplicas=INT, availableWorkerReplicas=INT,
                                                           observedGeneration=INT, head=OBJ)),
    ("grove.io", "PodCliqueSet"): _kind(None, _obj(currentGenerationHash=STR, updatedReplicas=INT,
                                                   availableReplicas=INT, replicas=INT, observedGeneration=INT,
                                                   conditions=CONDITIONS, updateProgress=OBJ,
                                                   rollingUpdateProgress=OBJ, hpaPodSelector=STR)),
    ("grove.io", "PodClique"): _kind(_obj(replicas=INT, minAvailable=INT, roleName=STR, podSpec=POD_SPEC,
                                          startsAfter=STR_LIST, autoScalingConfig=_obj(minReplicas=INT,
                                                                                       maxReplicas=INT)),
                                     _obj(**_GROVE_COUNTS, currentPodTemplateHash=STR,
                                          currentPodCliqueSetGenerationHash=STR, selector=STR,
                                          updateProgress=OBJ, rollingUpdateProgress=OBJ)),
    ("grove.io", "PodCliqueScalingGroup"): _kind(_obj(replicas=INT, minAvailable=INT, cliqueNames=STR_LIST),
                                                 _obj(**_GROVE_COUNTS, currentPodCliqueSetGenerationHash=STR,
                                                      selector=STR, updateProgress=OBJ,
                                                      rollingUpdateProgress=OBJ)),
    ("scheduler.grove.io", "PodGang"): _kind(_obj(podgroups=_list(_obj(name=STR, minReplicas=INT, podReferences=_list(
        _obj(name=STR, namespace=STR)))), priorityClassName=STR), _obj(phase=STR, conditions=CONDITIONS)),
}
#: every other observed kind: its metadata
GENERIC = _kind()
