"""What the Grove model reads of observed PodCliqueSets, PodCliques,
PodCliqueScalingGroups and PodGangs, as JSON Schemas of types (``core.read_schemas``):
``operator/api/core/v1alpha1`` (``podcliqueset.go``, ``podclique.go``,
``scalinggroup.go``) and ``scheduler/api/core/v1alpha1`` (``podgang.go``)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from ...core.read_schemas import CONDITIONS, INT, OBJ, POD_SPEC, STR, STR_LIST, array, kind_schema, obj

_COUNTS = MappingProxyType(dict(replicas=INT, readyReplicas=INT, updatedReplicas=INT, availableReplicas=INT,
                                scheduledReplicas=INT, scheduleGatedReplicas=INT, observedGeneration=INT,
                                conditions=CONDITIONS))

#: (api group, kind) -> schema of what the model reads, observed side only
READ_SCHEMAS: Mapping[tuple[str, str], dict] = MappingProxyType({
    ("grove.io", "PodCliqueSet"): kind_schema(None, obj(currentGenerationHash=STR, updatedReplicas=INT,
                                                        availableReplicas=INT, replicas=INT, observedGeneration=INT,
                                                        conditions=CONDITIONS, updateProgress=OBJ,
                                                        rollingUpdateProgress=OBJ, hpaPodSelector=STR)),
    ("grove.io", "PodClique"): kind_schema(obj(replicas=INT, minAvailable=INT, roleName=STR, podSpec=POD_SPEC,
                                               startsAfter=STR_LIST, autoScalingConfig=obj(minReplicas=INT,
                                                                                           maxReplicas=INT)),
                                           obj(**_COUNTS, currentPodTemplateHash=STR,
                                               currentPodCliqueSetGenerationHash=STR, selector=STR,
                                               updateProgress=OBJ, rollingUpdateProgress=OBJ)),
    ("grove.io", "PodCliqueScalingGroup"): kind_schema(obj(replicas=INT, minAvailable=INT, cliqueNames=STR_LIST),
                                                       obj(**_COUNTS, currentPodCliqueSetGenerationHash=STR,
                                                           selector=STR, updateProgress=OBJ,
                                                           rollingUpdateProgress=OBJ)),
    ("scheduler.grove.io", "PodGang"): kind_schema(obj(podgroups=array(obj(name=STR, minReplicas=INT,
                                                                            podReferences=array(obj(name=STR,
                                                                                                    namespace=STR)))),
                                                       priorityClassName=STR), obj(phase=STR, conditions=CONDITIONS)),
})
