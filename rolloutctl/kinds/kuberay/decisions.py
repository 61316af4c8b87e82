"""Cluster decisions of the KubeRay RayService controller: the spec comparison that
stands in for upstream's cluster hash, in-place update, new pending cluster, upgrade
strategy. The planner (``model``), ``classify`` and the warnings call these functions
and nothing else.

Upstream: ``ray-operator/controllers/ray/rayservice_controller.go`` (ray-project/kuberay
@ feeaf72f) ``rayClusterSpecForHashing``, ``isClusterSpecHashEqual``,
``shouldUpdateCluster``, ``shouldPrepareNewCluster``, ``isZeroDowntimeUpgradeEnabled``;
``ray-operator/controllers/ray/utils/util.go`` ``GenerateHashWithoutReplicasAndWorkersToDelete``.

Upstream hashes the RayService's ``rayClusterConfig`` when it creates a RayCluster and
stores the hash on the cluster (annotation ``ray.io/hash-without-replicas-and-workers-to-delete``);
later passes compare the hash of the current ``rayClusterConfig`` with that annotation.
A SHA-1 of Go's JSON encoding cannot be recomputed here, so the model compares the
live RayCluster's spec with the desired ``rayClusterConfig``, both reduced the same way
(the ignored fields blanked, CRD defaults applied, whatever Go's JSON writes as it writes
an absent field dropped). For clusters the RayService created and nobody edited, this
gives the same answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from ...core.model import Obj
from .defaults import raycluster_spec_defaults
from .operator import DEFAULT_CONFIG, MODELLED_KUBERAY_VERSION, OperatorConfig
from .validation.util import INCREMENTAL, is_incremental_upgrade_enabled

CTRL = "rayservice_controller.go"
KUBERAY_VERSION_ANNOTATION = "ray.io/kuberay-version"
NUM_WORKER_GROUPS_ANNOTATION = "ray.io/num-worker-groups"
HASH_ANNOTATION = "ray.io/hash-without-replicas-and-workers-to-delete"
__all__ = ["MODELLED_KUBERAY_VERSION"]  # re-exported: ``utils.KUBERAY_VERSION`` at the modelled commit

# Worker-group fields the hash blanks (GenerateHashWithoutReplicasAndWorkersToDelete).
WORKER_IGNORED = ("replicas", "minReplicas", "maxReplicas")
# Pod-template fields the hash blanks (so that Kueue-injected ones are neutral).
TEMPLATE_IGNORED = ("tolerations", "schedulingGates")
# Cluster-level fields rayClusterSpecForHashing / the hash blank.
CLUSTER_IGNORED = ("suspend", "upgradeStrategy")


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, dict) or isinstance(v, Mapping) else {}  # dict first: the common case, cheaper


# ``json.Marshal`` (``utils.GenerateJsonHash``) of the Go types under ``RayClusterSpec``
# (ray-operator/apis/ray/v1/raycluster_types.go; k8s.io/api v0.36.0 core/v1/types.go and
# networking/v1/types.go; k8s.io/apimachinery meta/v1/types.go): where an empty or zero
# value is not the same as an absent one. The tables name Go fields by their JSON name;
# ``GO_KIND_AT`` settles the names whose Go type depends on the struct that holds them, by
# the names of the enclosing fields (a list item's struct is named by its list's field).
# Every field not listed is a plain one (a non-pointer scalar or struct, an ``omitempty``
# slice): its zero value, its empty value and its absence are written alike.

#: the Go behaviours of a field (``go_kind``)
POINTER = "pointer"          # ``*T``: nil is left out, a set value is written even when empty or zero
MAP = "map"                  # ``map`` with ``omitempty``: every entry is written; empty is left out
MAP_ALWAYS = "map!"          # ``map`` without ``omitempty``: nil is ``null``, empty is ``{}``
LIST_ALWAYS = "list!"        # slice without ``omitempty``: nil is ``null``, empty is ``[]``
PLAIN = "plain"              # everything else: zero, empty and absent are written alike
#: the shapes of a YAML value (``go_kind``): one name can be a struct in one place and a scalar in another
MAPPING, LIST, SCALAR = "mapping", "list", "scalar"

# Fields that are pointers to structs: nil is left out, an empty struct is written as
# ``{}`` (``securityContext: {}`` hashes unlike no ``securityContext``). Non-pointer
# structs (a container's ``resources``, ``metadata``) are written whole even when empty,
# so there ``{}`` and absent agree.
GO_POINTER_STRUCTS = frozenset({
    # raycluster_types.go
    "autoscalerOptions", "gcsFaultToleranceOptions", "headService", "authOptions", "networkPolicy",
    "tlsOptions", "historyServerOptions", "ingressOptions", "collectorOptions", "redisUsername",
    "redisPassword", "storage", "upgradeStrategy",
    "head", "worker",  # NetworkPolicyConfig.Head, .Worker: *NetworkPolicyRules
    # networking/v1: NetworkPolicyPeer
    "podSelector", "ipBlock",
    # core/v1: pod and container
    "securityContext", "affinity", "nodeAffinity", "podAffinity", "podAntiAffinity", "dnsConfig", "os",
    "schedulingGroup", "livenessProbe", "readinessProbe", "startupProbe", "lifecycle", "postStart", "preStop",
    "httpGet", "tcpSocket", "exec", "grpc", "sleep", "valueFrom", "secretKeyRef", "configMapKeyRef",
    "fieldRef", "resourceFieldRef", "fileKeyRef", "configMapRef", "secretRef", "seLinuxOptions",
    "seccompProfile", "appArmorProfile", "capabilities", "windowsOptions", "labelSelector",
    "namespaceSelector", "requiredDuringSchedulingIgnoredDuringExecution",
    "exitCodes",  # ContainerRestartRule.ExitCodes (a container's restartPolicyRules)
    # core/v1: Service (the head service)
    "sessionAffinityConfig", "clientIP",
    # core/v1: PersistentVolumeClaimSpec (an ephemeral volume's claim template)
    "selector", "dataSource", "dataSourceRef",
    # core/v1: volume sources
    "emptyDir", "hostPath", "configMap", "secret", "persistentVolumeClaim", "projected", "downwardAPI",
    "csi", "nfs", "ephemeral", "image", "iscsi", "rbd", "cephfs", "cinder", "fc", "azureFile", "azureDisk",
    "awsElasticBlockStore", "gcePersistentDisk", "gitRepo", "glusterfs", "flexVolume", "flocker",
    "vsphereVolume", "quobyte", "photonPersistentDisk", "portworxVolume", "scaleIO", "storageos",
    "clusterTrustBundle", "podCertificate", "serviceAccountToken", "volumeClaimTemplate",
    "nodePublishSecretRef",
})
# Scalar fields that are pointers (``*string``, ``*bool``, ``*int32``, ``*int64``,
# ``*resource.Quantity``, ``*metav1.Time``, pointers to string types): a set value is
# written even when it is ``""``, ``false`` or ``0`` (``storageClassName: ""`` asks for no
# storage class and hashes unlike no ``storageClassName``). Every other scalar is a plain
# one, whose zero value ``json.Marshal`` writes as it writes its absence: left out under
# ``omitempty`` (``readOnly: false`` on a volume mount or a PVC source, ``hostNetwork:
# false``, ``partition: 0``, ``sslEnabled: false``), the zero itself without it.
GO_POINTER_SCALARS = frozenset({
    # raycluster_types.go
    "suspend", "managedBy", "enableInTreeAutoscaling", "enabled", "enableK8sTokenAuth", "size",
    "storageClassName", "deletionPolicy", "idleTimeoutSeconds", "upscalingMode", "version", "enableIngress",
    "pathType", "replicas", "minReplicas", "maxReplicas", "priority", "mode",
    # core/v1: PodSpec, PodSecurityContext, SecurityContext, WindowsSecurityContextOptions
    "activeDeadlineSeconds", "automountServiceAccountToken", "enableServiceLinks", "hostUsers",
    "hostnameOverride", "preemptionPolicy", "runtimeClassName", "setHostnameAsFQDN", "shareProcessNamespace",
    "terminationGracePeriodSeconds", "fsGroup", "fsGroupChangePolicy", "seLinuxChangePolicy",
    "supplementalGroupsPolicy", "runAsGroup", "runAsNonRoot", "runAsUser", "allowPrivilegeEscalation",
    "privileged", "procMount", "readOnlyRootFilesystem", "localhostProfile", "gmsaCredentialSpec",
    "gmsaCredentialSpecName", "hostProcess", "runAsUserName",
    # core/v1: containers, probes, scheduling
    "mountPropagation", "recursiveReadOnly", "stopSignal", "service", "tolerationSeconds", "minDomains",
    "nodeAffinityPolicy", "nodeTaintsPolicy", "resourceClaimName", "resourceClaimTemplateName", "podGroupName",
    # core/v1: volumes, projections, env sources, claim templates
    "optional", "defaultMode", "sizeLimit", "cachingMode", "initiatorName", "expirationSeconds",
    "maxExpirationSeconds", "signerName", "volumeMode", "volumeAttributesClassName", "apiGroup",
    # core/v1: Service, ObjectMeta, OwnerReference, ManagedFieldsEntry
    "allocateLoadBalancerNodePorts", "appProtocol", "internalTrafficPolicy", "ipFamilyPolicy",
    "loadBalancerClass", "trafficDistribution", "error", "ipMode", "deletionGracePeriodSeconds",
    "deletionTimestamp", "blockOwnerDeletion", "controller", "time",
    # networking/v1: NetworkPolicyPort
    "endPort",
})
# Go maps: every entry is written, an empty string value too
GO_MAPS = frozenset({"labels", "annotations", "nodeSelector", "rayStartParams", "limits", "requests",
                     "matchLabels", "headServiceAnnotations", "volumeAttributes", "options",
                     "overhead",  # PodSpec.Overhead: a ResourceList
                     "userAnnotations"})  # core/v1 PodCertificateProjection.UserAnnotations
# Maps without ``omitempty``: nil is written as null, an empty map as ``{}``
GO_MAPS_ALWAYS = frozenset({"rayStartParams"})
# Slices without ``omitempty``: nil (absent) is written as null, an empty slice as ``[]``
# (PodSpec.Containers, NodeSelector.NodeSelectorTerms, ProjectedVolumeSource.Sources,
# CephFSVolumeSource/RBDVolumeSource.Monitors)
GO_LISTS_ALWAYS = frozenset({"containers", "nodeSelectorTerms", "sources", "monitors"})
# Names whose Go type depends on where they are: the trailing field names (the holder's
# holder, the holder, the field) -> the Go behaviour there. Longer suffixes win.
GO_KIND_AT: Mapping[tuple[str, ...], str] = MappingProxyType({
    # ``resources``: a container's and a claim template's are plain structs; a group's is a map
    ("template", "spec", "resources"): POINTER,  # PodSpec.Resources *ResourceRequirements
    ("autoscalerOptions", "resources"): POINTER,
    ("collectorOptions", "resources"): POINTER,
    ("headGroupSpec", "resources"): MAP,  # HeadGroupSpec.Resources map[string]string
    ("workerGroupSpecs", "resources"): MAP,
    ("headService", "spec", "selector"): MAP,  # ServiceSpec.Selector map[string]string
    # networking/v1 NetworkPolicyPort: *Protocol, *IntOrString (a Service's and a container's are plain)
    ("ingressRules", "ports", "protocol"): POINTER,
    ("egressRules", "ports", "protocol"): POINTER,
    ("ingressRules", "ports", "port"): POINTER,
    ("egressRules", "ports", "port"): POINTER,
    # pointers where the same name is plain elsewhere
    ("autoscalerOptions", "image"): POINTER,
    ("autoscalerOptions", "imagePullPolicy"): POINTER,
    ("collectorOptions", "image"): POINTER,
    ("collectorOptions", "imagePullPolicy"): POINTER,
    ("authOptions", "secretName"): POINTER,
    ("ingressOptions", "host"): POINTER,
    ("ingressOptions", "path"): POINTER,
    ("upgradeStrategy", "type"): POINTER,
    ("hostPath", "type"): POINTER,  # HostPathVolumeSource.Type *HostPathType
    ("csi", "readOnly"): POINTER,
    ("csi", "fsType"): POINTER,
    ("azureDisk", "readOnly"): POINTER,
    ("azureDisk", "fsType"): POINTER,
    ("azureDisk", "kind"): POINTER,
    ("fc", "lun"): POINTER,
    ("clientIP", "timeoutSeconds"): POINTER,
    ("clusterTrustBundle", "name"): POINTER,
    ("dataSourceRef", "namespace"): POINTER,
    ("options", "value"): POINTER,  # PodDNSConfigOption.Value
    ("containers", "restartPolicy"): POINTER,  # Container.RestartPolicy *ContainerRestartPolicy
    ("initContainers", "restartPolicy"): POINTER,
    ("ephemeralContainers", "restartPolicy"): POINTER,
    # plain where the same name is a pointer elsewhere
    ("authOptions", "mode"): PLAIN,  # AuthOptions.Mode AuthMode
    ("podCertificate", "signerName"): PLAIN,
})
_ABSENT = object()


def go_kind(names: tuple, shape: str) -> str:
    """The Go behaviour (``POINTER``, ``MAP``, ``MAP_ALWAYS``, ``LIST_ALWAYS``, ``PLAIN``) of
    the field at the end of ``names`` (the field names down to it, inside a
    ``RayClusterSpec``) holding a value of ``shape`` (``MAPPING``, ``LIST`` or ``SCALAR``):
    ``GO_KIND_AT`` by its last three, then two names, then the name tables."""
    for n in (3, 2):
        kind = GO_KIND_AT.get(tuple(names[-n:])) if len(names) >= n else None
        if kind is not None:
            return kind
    name = names[-1] if names else None
    if shape == MAPPING:
        if name in GO_POINTER_STRUCTS:
            return POINTER
        if name in GO_MAPS_ALWAYS:
            return MAP_ALWAYS
        return MAP if name in GO_MAPS else PLAIN
    if shape == LIST:
        return LIST_ALWAYS if name in GO_LISTS_ALWAYS else PLAIN
    return POINTER if name in GO_POINTER_SCALARS else PLAIN


def go_keeps_empty(names: tuple) -> bool:
    """Whether ``json.Marshal`` writes an empty mapping held by the field at the end of
    ``names``: a pointer to a struct (``GO_POINTER_STRUCTS``; a pod spec's ``resources``,
    ``GO_KIND_AT``) or a map without ``omitempty`` (``rayStartParams``)."""
    return go_kind(names, MAPPING) in (POINTER, MAP_ALWAYS)


def go_is_map(names: tuple) -> bool:
    """Whether the field at the end of ``names`` is a Go map (``GO_MAPS``, ``GO_KIND_AT``):
    its entries are data, each written whatever its value, not struct fields."""
    return go_kind(names, MAPPING) in (MAP, MAP_ALWAYS)


def go_keeps_empty_list(names: tuple) -> bool:
    """Whether ``json.Marshal`` writes an empty slice held by the field at the end of
    ``names`` as ``[]`` where an absent one (nil) is ``null``: a slice without ``omitempty``
    (``GO_LISTS_ALWAYS``)."""
    return go_kind(names, LIST) == LIST_ALWAYS


def go_keeps_zero(names: tuple) -> bool:
    """Whether ``json.Marshal`` writes a zero scalar (``""``, ``false``, ``0``) held by the
    field at the end of ``names`` unlike an absent one: a pointer (``GO_POINTER_SCALARS``,
    ``GO_KIND_AT``). A plain field's zero value is written as its absence is."""
    return go_kind(names, SCALAR) == POINTER


def keeps_empty_at(path: tuple) -> bool:
    """``go_keeps_empty`` at ``path`` inside a ``RayClusterSpec`` (field names, list items
    as other segments: the struct of an item is named by its list's field)."""
    if not path or not isinstance(path[-1], str):
        return False
    return go_keeps_empty(tuple(p for p in path if isinstance(p, str))[-3:])


def _is_zero(v: Any) -> bool:
    return v == "" or v is False or (isinstance(v, (int, float)) and not isinstance(v, bool) and v == 0)


def _go_form(v: Any, names: tuple = ()) -> Any:
    """What ``json.Marshal`` writes for ``v``, the value of the field at the end of
    ``names`` (``go_kind``), as far as equality goes: an omitted value, or one written as
    its absence is, is ``_ABSENT``. An empty struct is ``_ABSENT`` unless it is behind a
    pointer (``go_keeps_empty``); a Go map's entries are all written, an empty string value
    too, and an empty map is ``_ABSENT`` unless the map has no ``omitempty``
    (``rayStartParams: {}`` is ``{}``); an empty slice is ``_ABSENT`` unless the slice has
    no ``omitempty`` (``go_keeps_empty_list``); a zero scalar is ``_ABSENT`` unless the
    field is a pointer (``go_keeps_zero``)."""
    if v is None:
        return _ABSENT
    if isinstance(v, dict) or isinstance(v, Mapping):
        if go_is_map(names):
            out = {k: x for k, x in v.items() if x is not None}
            return out if out or go_keeps_empty(names) else _ABSENT
        out = _struct_form(v, names)
        return out if out or go_keeps_empty(names) else _ABSENT
    if isinstance(v, list):
        if not v and not go_keeps_empty_list(names):
            return _ABSENT
        return [_element(x, names) for x in v]
    if _is_zero(v) and not go_keeps_zero(names):
        return _ABSENT
    return v


def _struct_form(v: Mapping[str, Any], names: tuple) -> dict:
    """The written fields of a struct held by the field at the end of ``names``."""
    out = {}
    for k, x in v.items():
        px = _go_form(x, (*names[-2:], k))
        if px is not _ABSENT:
            out[k] = px
    return out


def _element(x: Any, names: tuple) -> Any:
    """A slice item is always written: a struct with its written fields (``{}`` when none),
    a scalar as it is."""
    if isinstance(x, dict) or isinstance(x, Mapping):
        return _struct_form(x, names)
    if isinstance(x, list):
        return [_element(y, names) for y in x]
    return x


def _prune(v: Any, names: tuple = ()) -> Any:
    """The comparison form of a cluster spec: ``_go_form`` with omitted values dropped."""
    got = _go_form(v, names)
    return {} if got is _ABSENT else got


def _strip_template(template: Any) -> Any:
    if not isinstance(template, dict):
        return template
    spec = template.get("spec")
    if isinstance(spec, dict):
        for f in TEMPLATE_IGNORED:
            spec.pop(f, None)
    return template


def ray_cluster_spec_for_hashing(cluster_spec: Mapping[str, Any]) -> dict[str, Any]:
    """``rayClusterSpecForHashing`` + ``GenerateHashWithoutReplicasAndWorkersToDelete``:
    the cluster spec with ``suspend``, ``upgradeStrategy``, worker ``replicas``/``minReplicas``/
    ``maxReplicas``/``scaleStrategy.workersToDelete`` and template ``tolerations``/
    ``schedulingGates`` removed, after the CRD defaults (``defaults.RAYCLUSTER_SPEC_DEFAULTS``):
    the live cluster was defaulted by the API server, the manifest was not. The result is
    ``utils.GenerateJsonHash``'s input as equality sees it (``_go_form``): what ``json.Marshal``
    leaves out, or writes as it writes an absent field, is dropped, so ``readOnly: false``
    on a volume mount or ``hostNetwork: false`` is no change; the RayCluster KubeRay created
    is stored without them."""
    spec = raycluster_spec_defaults(cluster_spec) if isinstance(cluster_spec, Mapping) else {}
    for f in CLUSTER_IGNORED:
        spec.pop(f, None)
    head = spec.get("headGroupSpec")
    if isinstance(head, dict):
        _strip_template(head.get("template"))
    groups = spec.get("workerGroupSpecs")
    if isinstance(groups, list):
        for g in groups:
            if not isinstance(g, dict):
                continue
            for f in WORKER_IGNORED:
                g.pop(f, None)
            ss = g.get("scaleStrategy")
            if isinstance(ss, dict):
                ss.pop("workersToDelete", None)
            _strip_template(g.get("template"))
    return _prune(spec)


def goal_cluster_spec(desired: Obj) -> Mapping[str, Any]:
    return _m(desired.spec.get("rayClusterConfig"))


def cluster_num_worker_groups(cluster: Obj) -> int:
    v = cluster.annotations.get(NUM_WORKER_GROUPS_ANNOTATION)
    try:
        return int(v) if v is not None else len(cluster.spec.get("workerGroupSpecs") or [])
    except (TypeError, ValueError):
        return -1


def is_cluster_spec_hash_equal(desired: Obj, cluster: Obj, partial: bool) -> bool:
    """``isClusterSpecHashEqual`` (rayservice_controller.go). ``partial``: compare only the
    first N worker groups of the goal, N = the cluster's ``ray.io/num-worker-groups``
    (worker groups appended at the end). The live cluster's spec stands for its hash."""
    goal, live = _hashing_forms(desired, cluster)
    return _hash_equal(goal, live, cluster, partial)


def goal_hashing_form(desired: Obj) -> dict[str, Any]:
    """``rayClusterSpecForHashing`` of a RayService's ``rayClusterConfig`` (what upstream
    hashes for the goal)."""
    return ray_cluster_spec_for_hashing(goal_cluster_spec(desired))


def cluster_hashing_form(cluster: Obj) -> dict[str, Any]:
    """The same form of a live RayCluster's spec: it stands for the hash upstream stored
    on the cluster when it created it (the module docstring says why)."""
    return ray_cluster_spec_for_hashing(cluster.spec)


def _hashing_forms(desired: Obj, cluster: Obj) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    """Both forms, derived once per object (``Obj.derived``: a plain function of the
    object's content, as upstream computes the cluster's hash once, when it creates the
    cluster). Read-only: callers copy what they change."""
    return desired.derived(goal_hashing_form), cluster.derived(cluster_hashing_form)


def _hash_equal(goal: Mapping[str, Any], live: Mapping[str, Any], cluster: Obj, partial: bool) -> bool:
    """``isClusterSpecHashEqual`` on both hashing forms. Worker groups are reduced one by
    one, so the form of the first N groups is the first N groups of the form."""
    if not partial:
        return goal == live
    n = cluster_num_worker_groups(cluster)
    if n < 0:
        return True  # upstream: an unparsable annotation counts as equal
    if len(_first_groups(goal, None).get("workerGroupSpecs") or ()) < n:
        return False
    return _first_groups(goal, n) == _first_groups(live, n)


def _first_groups(form: Mapping[str, Any], n: int | None) -> dict[str, Any]:
    """A hashing form with only its first ``n`` worker groups (all: None); no groups
    left means no ``workerGroupSpecs`` (empty values are dropped)."""
    out = dict(form)
    groups = out.pop("workerGroupSpecs", None)
    kept = list(groups[:n]) if isinstance(groups, list) else []
    if kept:
        out["workerGroupSpecs"] = kept
    return out


def is_zero_downtime_upgrade_enabled(desired: Obj, cfg: OperatorConfig = DEFAULT_CONFIG) -> bool:
    """``isZeroDowntimeUpgradeEnabled`` (rayservice_controller.go). A set
    ``upgradeStrategy.type`` decides: with the RayServiceIncrementalUpgrade gate on, only
    NewCluster and NewClusterWithIncrementalUpgrade create new clusters; with it off, only
    NewCluster. An unset type is enabled unless the operator's ``ENABLE_ZERO_DOWNTIME``
    is ``false``."""
    t = _m(desired.spec.get("upgradeStrategy")).get("type")
    if t is None:
        return cfg.zero_downtime_env()
    if cfg.gate("RayServiceIncrementalUpgrade"):
        return t in ("NewCluster", INCREMENTAL)
    return t == "NewCluster"


def strategy_name(desired: Obj, cfg: OperatorConfig = DEFAULT_CONFIG) -> str:
    """The upgrade strategy in force, as the operator names it: an incremental type with
    the gate off, or an unset type with ``ENABLE_ZERO_DOWNTIME=false``, acts as None."""
    t = _m(desired.spec.get("upgradeStrategy")).get("type")
    if t == INCREMENTAL and not is_incremental_upgrade_enabled(desired.spec, cfg):
        return "None"
    if t is None and not cfg.zero_downtime_env():
        return "None"
    return str(t) if t else "NewCluster"


def cluster_kuberay_version(cluster: Obj, operator_version: str) -> str:
    """The ``ray.io/kuberay-version`` of a live cluster; a cluster without the annotation
    (a hand-made snapshot) is taken as created by the modelled operator version."""
    v = cluster.annotations.get(KUBERAY_VERSION_ANNOTATION)
    return operator_version if v is None else str(v)


def should_update_cluster(desired: Obj, cluster: Obj | None, is_active: bool, upgrade_in_progress: bool,
                          operator_version: str) -> bool:
    """``shouldUpdateCluster`` (rayservice_controller.go): in-place update when the
    KubeRay version differs (active only, not during an upgrade) or when only worker
    groups were appended at the end."""
    if cluster is None:
        return False
    if is_active:
        if upgrade_in_progress:
            return False
        if cluster_kuberay_version(cluster, operator_version) != operator_version:
            return True
    goal, live = _hashing_forms(desired, cluster)
    if _hash_equal(goal, live, cluster, False):
        return False
    return _hash_equal(goal, live, cluster, True)


def should_prepare_new_cluster(desired: Obj, active: Obj | None, pending: Obj | None,
                               is_pending_cluster_serving: bool, rollback_in_progress: bool,
                               cfg: OperatorConfig = DEFAULT_CONFIG) -> bool:
    """``shouldPrepareNewCluster`` (rayservice_controller.go)."""
    if is_pending_cluster_serving:
        return False
    if rollback_in_progress:
        return False
    if active is None and pending is None:
        return True
    cluster = pending if pending is not None else active
    assert cluster is not None
    goal, live = _hashing_forms(desired, cluster)
    if _hash_equal(goal, live, cluster, False):
        return False
    if _hash_equal(goal, live, cluster, True):
        return False
    return is_zero_downtime_upgrade_enabled(desired, cfg)


# --------------------------------------------------------------------------- explaining a comparison


def ignored_differences(goal: Mapping[str, Any], live: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Differences between two cluster specs that the comparison ignores, as
    (kind, dotted path) with kind in ``replicas`` / ``suspend`` / ``scheduling`` /
    ``upgradeStrategy``. Worker groups are matched by ``groupName``."""
    out: list[tuple[str, str]] = []
    base = "spec.rayClusterConfig"
    if bool(goal.get("suspend")) != bool(live.get("suspend")):
        out.append(("suspend", f"{base}.suspend"))
    if _prune(goal.get("upgradeStrategy")) != _prune(live.get("upgradeStrategy")):
        out.append(("upgradeStrategy", f"{base}.upgradeStrategy"))
    lg = {str(_m(g).get("groupName")): _m(g) for g in live.get("workerGroupSpecs") or []}
    for g in goal.get("workerGroupSpecs") or []:
        g = _m(g)
        name = str(g.get("groupName"))
        other = lg.get(name)
        if other is None:
            continue
        wp = f"{base}.workerGroupSpecs[groupName={name}]"
        for f in WORKER_IGNORED:
            if g.get(f) != other.get(f):
                out.append(("replicas", f"{wp}.{f}"))
        if _prune(_m(g.get("scaleStrategy")).get("workersToDelete")) != _prune(_m(other.get("scaleStrategy")).get("workersToDelete")):
            out.append(("replicas", f"{wp}.scaleStrategy.workersToDelete"))
        for f in TEMPLATE_IGNORED:
            if _prune(_m(_m(g.get("template")).get("spec")).get(f)) != _prune(_m(_m(other.get("template")).get("spec")).get(f)):
                out.append(("scheduling", f"{wp}.template.spec.{f}"))
    hg, hl = _m(goal.get("headGroupSpec")), _m(live.get("headGroupSpec"))
    for f in TEMPLATE_IGNORED:
        if _prune(_m(_m(hg.get("template")).get("spec")).get(f)) != _prune(_m(_m(hl.get("template")).get("spec")).get(f)):
            out.append(("scheduling", f"{base}.headGroupSpec.template.spec.{f}"))
    return out
