"""What the models read of observed objects, as JSON Schemas of types (the shapes the
API server stores): admission checks every observed object against them, so a wrong
type in a field a model reads is ``PATH:LINE: field: message`` (exit 2) instead of an
internal error. Objects stay open (``additionalProperties`` is not restricted): a newer
API server or operator may store fields the models never read.

This module holds the building blocks and the core kinds every model reads: ObjectMeta
and Condition (k8s.io/apimachinery ``pkg/apis/meta/v1/types.go``), Pod and Service
(k8s.io/api ``core/v1/types.go``). Each operator package adds its own kinds
(``KIND.read_schemas``: ``kinds/<operator>/read_schemas.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

STR = {"type": "string"}
INT = {"type": "integer"}
BOOL = {"type": "boolean"}
OBJ = {"type": "object"}
STR_MAP = {"type": "object", "additionalProperties": STR}
STR_LIST = {"type": "array", "items": STR}


def obj(**props: Any) -> dict:
    return {"type": "object", "properties": props}


def array(item: dict) -> dict:
    return {"type": "array", "items": item}


OWNER_REFERENCE = obj(apiVersion=STR, kind=STR, name=STR, uid=STR, controller=BOOL, blockOwnerDeletion=BOOL)
OBJECT_META = obj(name=STR, generateName=STR, namespace=STR, uid=STR, resourceVersion=STR, generation=INT,
                  labels=STR_MAP, annotations=STR_MAP, ownerReferences=array(OWNER_REFERENCE),
                  finalizers=STR_LIST, deletionTimestamp=STR, creationTimestamp={"type": ["string", "null"]},
                  deletionGracePeriodSeconds=INT)
CONDITION = obj(type=STR, status=STR, reason=STR, message=STR, observedGeneration=INT)
CONDITIONS = array(CONDITION)
CONTAINER = obj(name=STR, image=STR, resources=obj(requests=OBJ, limits=OBJ), env=array(obj(name=STR)),
                ports=array(OBJ))
POD_SPEC = obj(containers=array(CONTAINER), initContainers=array(CONTAINER), nodeName=STR, schedulerName=STR,
               schedulingGates=array(obj(name=STR)), priorityClassName=STR, restartPolicy=STR)
POD_TEMPLATE = obj(metadata=obj(labels=STR_MAP, annotations=STR_MAP), spec=POD_SPEC)


def kind_schema(spec: dict | None = None, status: dict | None = None) -> dict:
    props: dict[str, Any] = {"apiVersion": STR, "kind": STR, "metadata": OBJECT_META}
    if spec is not None:
        props["spec"] = spec
    if status is not None:
        props["status"] = status
    return {"type": "object", "properties": props}


#: (api group, kind) -> what the models read of these core kinds
READ_SCHEMAS: Mapping[tuple[str, str], dict] = MappingProxyType({
    ("", "Pod"): kind_schema(POD_SPEC, obj(phase=STR, conditions=CONDITIONS, podIP=STR, containerStatuses=array(obj(
        name=STR, ready=BOOL, restartCount=INT, image=STR, state=OBJ)))),
    ("", "Service"): kind_schema(obj(selector=STR_MAP, ports=array(OBJ), type=STR, clusterIP=STR,
                                     publishNotReadyAddresses=BOOL)),
})
#: every other observed kind: its metadata
GENERIC = kind_schema()
