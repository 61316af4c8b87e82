"""Names and labels of the objects the Grove operator creates.

Upstream: ``operator/api/common/namegen.go`` and ``operator/api/common/labels.go``.
"""

from __future__ import annotations

API_CORE = "grove.io/v1alpha1"
API_SCHED = "scheduler.grove.io/v1alpha1"

L_MANAGED_BY = "app.kubernetes.io/managed-by"
L_PART_OF = "app.kubernetes.io/part-of"
L_NAME = "app.kubernetes.io/name"
L_COMPONENT = "app.kubernetes.io/component"
L_PCS_REPLICA = "grove.io/podcliqueset-replica-index"
L_PODGANG = "grove.io/podgang"
L_BASE_PODGANG = "grove.io/base-podgang"
L_PCSG = "grove.io/podcliquescalinggroup"
L_PCSG_REPLICA = "grove.io/podcliquescalinggroup-replica-index"
L_PCLQ = "grove.io/podclique"
L_POD_INDEX = "grove.io/podclique-pod-index"
L_TEMPLATE_HASH = "grove.io/pod-template-hash"
MANAGED_BY = "grove-operator"

#: ``app.kubernetes.io/component`` values (``operator/api/common/labels.go``)
C_HEADLESS_SERVICE = "pcs-headless-service"
C_HPA = "pcs-hpa"
C_SERVICE_ACCOUNT = "pod-service-account"
C_ROLE = "pod-role"
C_ROLE_BINDING = "pod-role-binding"
C_SA_TOKEN_SECRET = "pod-sa-token-secret"
C_PCS_PCLQ = "pcs-podclique"
C_PCSG_PCLQ = "pcsg-podclique"
C_PCSG = "pcs-podcliquescalinggroup"
C_PODGANG = "podgang"

#: annotation the PodClique builders drop after hashing (``constants.AnnotationTopologyName``)
A_TOPOLOGY_NAME = "grove.io/topology-name"
#: annotation whose change alone makes the PodCliqueSet controller reconcile
#: (``constants.AnnotationReconcileTrigger``, ``podcliqueset/register.go`` ``podCliqueSetPredicate``)
A_RECONCILE_TRIGGER = "grove.io/reconcile-trigger"
#: the MNNVL group annotation (``mnnvl.AnnotationMNNVLGroup``, ``operator/internal/mnnvl/constants.go``)
A_MNNVL_GROUP = "grove.io/mnnvl-group"
#: pod resource claim the MNNVL injection adds (``mnnvl.MNNVLClaimName``)
MNNVL_CLAIM = "mnnvl-claim"

GATE_PODGANG_PENDING = "grove.io/podgang-pending-creation"

#: (apiVersion, kind, resource) of every object the operator creates for a PodCliqueSet:
#: the components of ``operator/internal/controller/podcliqueset/components`` (PodClique,
#: PodCliqueScalingGroup, PodGang, headless Service, HPA, and the pods' ServiceAccount,
#: Role, RoleBinding and token Secret) and the pods of ``podclique/components/pod``. The
#: operator lists only these, by its label selector; any other object in the namespace
#: (a ConfigMap, a ResourceClaimTemplate the pods mount) is never its child.
CHILD_KINDS_WITH_SPEC = (
    (API_CORE, "PodClique", "podcliques.grove.io"),
    (API_CORE, "PodCliqueScalingGroup", "podcliquescalinggroups.grove.io"),
    ("v1", "Pod", "pods"),
    (API_SCHED, "PodGang", "podgangs.scheduler.grove.io"),
    ("v1", "Service", "services"),
    ("autoscaling/v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers.autoscaling"),
)
CHILD_KINDS_RBAC = (
    ("v1", "ServiceAccount", "serviceaccounts"),
    ("rbac.authorization.k8s.io/v1", "Role", "roles.rbac.authorization.k8s.io"),
    ("rbac.authorization.k8s.io/v1", "RoleBinding", "rolebindings.rbac.authorization.k8s.io"),
    ("v1", "Secret", "secrets"),
)
CHILD_KINDS = frozenset(k for _a, k, _r in CHILD_KINDS_WITH_SPEC + CHILD_KINDS_RBAC)


def pclq_name(owner: str, replica: int, clique: str) -> str:
    """``GeneratePodCliqueName``: ``<owner>-<replica>-<clique>`` (owner is the PCS or a PCSG FQN)."""
    return f"{owner}-{replica}-{clique}"


def pcsg_name(pcs: str, replica: int, group: str) -> str:
    """``GeneratePodCliqueScalingGroupName``: ``<pcs>-<replica>-<group>``."""
    return f"{pcs}-{replica}-{group}"


def base_podgang_name(pcs: str, replica: int) -> str:
    """``GenerateBasePodGangName``: ``<pcs>-<replica>``."""
    return f"{pcs}-{replica}"


def scaled_podgang_name(pcsg_fqn: str, pcsg_replica: int, min_available: int) -> str:
    """``CreatePodGangNameFromPCSGFQN`` with index ``pcsgReplica - minAvailable``
    (``GeneratePodGangNameForPodCliqueOwnedByPCSG``)."""
    return f"{pcsg_fqn}-{pcsg_replica - min_available}"


def podgang_for_pcsg_replica(pcs: str, replica: int, pcsg_fqn: str, pcsg_replica: int, min_available: int) -> str:
    """Replicas below minAvailable share the base gang; the others get a scaled gang
    (``GeneratePodGangNameForPodCliqueOwnedByPCSG``)."""
    if pcsg_replica < min_available:
        return base_podgang_name(pcs, replica)
    return scaled_podgang_name(pcsg_fqn, pcsg_replica, min_available)


def headless_service_name(pcs: str, replica: int) -> str:
    """``GenerateHeadlessServiceName``: ``<pcs>-<replica>``."""
    return f"{pcs}-{replica}"


def role_name(pcs: str) -> str:
    """``GeneratePodRoleName`` / ``GeneratePodRoleBindingName``: ``grove.io:pcs:<pcs>``."""
    return f"grove.io:pcs:{pcs}"


#: the type of the PodCliqueSet's token Secret (Kubernetes' token controller fills such a Secret)
SA_TOKEN_SECRET_TYPE = "kubernetes.io/service-account-token"


def token_secret_name(pcs: str) -> str:
    """``GenerateInitContainerSATokenSecretName``: ``<pcs>-ic-sat``."""
    return f"{pcs}-ic-sat"


def pod_display_name(pclq: str) -> str:
    """Pods use ``generateName: <pclq>-``; the suffix is random."""
    return f"{pclq}-<random>"


def pod_hostname(pclq: str, index: int) -> str:
    return f"{pclq}-{index}"


def default_labels(pcs: str) -> dict[str, str]:
    return {L_MANAGED_BY: MANAGED_BY, L_PART_OF: pcs}
