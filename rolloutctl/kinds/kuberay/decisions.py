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
(the ignored fields blanked, CRD defaults applied, empty values dropped). For clusters
the RayService created and nobody edited, this gives the same answer.
"""

from __future__ import annotations

from collections.abc import Mapping
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
# (apis/ray/v1/raycluster_types.go, k8s.io/api/core/v1/types.go), where an empty value
# is not the same as an absent one. Fields that are pointers to structs: nil is left out,
# an empty struct is written as ``{}`` (``securityContext: {}`` hashes unlike no
# ``securityContext``). Non-pointer structs (a container's ``resources``, ``metadata``)
# are written whole even when empty, so there ``{}`` and absent agree.
GO_POINTER_STRUCTS = frozenset({
    # raycluster_types.go
    "autoscalerOptions", "gcsFaultToleranceOptions", "headService", "authOptions", "networkPolicy",
    "tlsOptions", "historyServerOptions", "ingressOptions", "collectorOptions", "redisUsername",
    "redisPassword", "storage",
    # core/v1: pod and container
    "securityContext", "affinity", "nodeAffinity", "podAffinity", "podAntiAffinity", "dnsConfig", "os",
    "livenessProbe", "readinessProbe", "startupProbe", "lifecycle", "postStart", "preStop",
    "httpGet", "tcpSocket", "exec", "grpc", "sleep", "valueFrom", "secretKeyRef", "configMapKeyRef",
    "fieldRef", "resourceFieldRef", "fileKeyRef", "configMapRef", "secretRef", "seLinuxOptions",
    "seccompProfile", "appArmorProfile", "capabilities", "windowsOptions", "labelSelector",
    "namespaceSelector", "requiredDuringSchedulingIgnoredDuringExecution",
    # core/v1: volume sources
    "emptyDir", "hostPath", "configMap", "secret", "persistentVolumeClaim", "projected", "downwardAPI",
    "csi", "nfs", "ephemeral", "image", "iscsi", "rbd", "cephfs", "fc", "azureFile", "azureDisk",
    "awsElasticBlockStore", "gcePersistentDisk", "gitRepo", "glusterfs", "flexVolume", "flocker",
    "vsphereVolume", "quobyte", "photonPersistentDisk", "portworxVolume", "scaleIO", "storageos",
    "clusterTrustBundle", "podCertificate", "serviceAccountToken", "volumeClaimTemplate",
    "nodePublishSecretRef",
})
# ``resources`` is a pointer only in these structs (a container's is a plain struct; a
# group's is a ``map[string]string``)
_POINTER_RESOURCES_IN = frozenset({"autoscalerOptions", "collectorOptions"})
# Go maps: every entry is written, an empty string value too
GO_MAPS = frozenset({"labels", "annotations", "nodeSelector", "rayStartParams", "limits", "requests",
                     "matchLabels", "headServiceAnnotations", "volumeAttributes", "options"})
# Maps without ``omitempty``: nil is written as null, an empty map as ``{}``
GO_MAPS_ALWAYS = frozenset({"rayStartParams"})
# the groups whose ``resources`` is a ``map[string]string`` (``HeadGroupSpec``, ``WorkerGroupSpec``)
_GROUP_KEYS = frozenset({"headGroupSpec", "workerGroupSpecs"})
_ABSENT = object()


def go_keeps_empty(key: Any, owner: Any) -> bool:
    """Whether ``json.Marshal`` writes an empty mapping held by field ``key`` of the
    struct held by field ``owner``: a pointer to a struct (``GO_POINTER_STRUCTS``;
    ``resources`` where it is one) or a map without ``omitempty`` (``rayStartParams``)."""
    if key == "resources":
        return owner in _POINTER_RESOURCES_IN
    return key in GO_POINTER_STRUCTS or key in GO_MAPS_ALWAYS


def keeps_empty_at(path: tuple) -> bool:
    """``go_keeps_empty`` at ``path`` inside a ``RayClusterSpec`` (field names, list items
    as other segments: the struct of an item is named by its list's field)."""
    names = [p for p in path if isinstance(p, str)]
    if not names or not isinstance(path[-1], str):
        return False
    owner = names[-2] if len(names) > 1 else None
    return go_keeps_empty(path[-1], owner)


def _go_form(v: Any, key: str | None = None, owner: str | None = None) -> Any:
    """What ``json.Marshal`` writes for ``v``, the value of field ``key`` of the struct
    held by field ``owner`` (a list element has no ``key``; its struct is named by the
    list's field), as far as equality goes: an omitted value is ``_ABSENT``. Empty
    strings, lists and maps of ``omitempty`` fields are omitted; an empty struct behind a
    pointer is written ``{}`` (``go_keeps_empty``); a Go map's entries are all written, an
    empty string value too; ``rayStartParams`` has no ``omitempty``, so an empty one is
    written ``{}``."""
    if v is None:
        return _ABSENT
    if isinstance(v, dict) or isinstance(v, Mapping):
        is_map = owner in _GROUP_KEYS if key == "resources" else key in GO_MAPS
        if is_map:
            out = {k: x for k, x in v.items() if x is not None}
            return out if out or key in GO_MAPS_ALWAYS else _ABSENT
        here = key if key is not None else owner
        out = {}
        for k, x in v.items():
            px = _go_form(x, k, here)
            if px is not _ABSENT:
                out[k] = px
        return out if out or go_keeps_empty(key, owner) else _ABSENT
    if isinstance(v, list):
        if not v:
            return _ABSENT
        return [_element(x, key) for x in v]
    if v == "":
        return _ABSENT
    return v


def _element(x: Any, list_key: str | None) -> Any:
    px = _go_form(x, None, list_key)
    return {} if px is _ABSENT else px


def _prune(v: Any) -> Any:
    """The comparison form of a cluster spec: ``_go_form`` with omitted values dropped."""
    got = _go_form(v)
    return {} if got is _ABSENT else got


# Non-pointer ``omitempty`` fields of the corev1 types in a pod template, with the zero
# value ``json.Marshal`` leaves out (``utils.GenerateJsonHash`` hashes that JSON, and the
# RayCluster the operator creates is stored without them).
POD_GO_ZERO = (("hostNetwork", False), ("hostPID", False), ("hostIPC", False))
CONTAINER_GO_ZERO = (("stdin", False), ("stdinOnce", False), ("tty", False))
#: ``Container.volumeMounts``
VOLUME_MOUNTS = "volumeMounts"
PROBE_GO_ZERO = tuple((f, 0) for f in ("initialDelaySeconds", "timeoutSeconds", "periodSeconds",
                                         "successThreshold", "failureThreshold"))
# volume sources whose ``readOnly`` is a plain ``bool`` with ``omitempty`` (``csi``'s is a pointer)
VOLUME_READ_ONLY = ("persistentVolumeClaim", "awsElasticBlockStore", "gcePersistentDisk", "nfs", "iscsi",
                    "rbd", "cephfs", "fc", "azureFile", "glusterfs", "flexVolume", "flocker", "quobyte",
                    "portworxVolume", "scaleIO", "storageos")


def _drop_zero(m: Any, fields: tuple[tuple[str, Any], ...]) -> None:
    if isinstance(m, dict):
        for f, zero in fields:
            v = m.get(f)
            if v is not None and isinstance(v, bool) == isinstance(zero, bool) and v == zero:
                del m[f]


def drop_go_zero_values(pod_spec: dict) -> None:
    """``utils.GenerateJsonHash`` (utils/util.go): ``json.Marshal`` of the Go pod spec omits
    the zero value of a non-pointer ``omitempty`` field, so ``readOnly: false`` on a volume
    mount or a volume source, ``initialDelaySeconds: 0`` on a probe, ``stdin: false`` or
    ``hostNetwork: false`` hash as if absent, and the RayCluster KubeRay created does not
    carry them: drop them from the comparison form (in place). Covers the pod spec's host
    namespaces, each container's stdin/tty, port ``hostPort``, mount ``readOnly`` and probe
    counters, and the volume sources' ``readOnly``."""
    _drop_zero(pod_spec, POD_GO_ZERO)
    for key in ("containers", "initContainers", "ephemeralContainers"):
        for c in pod_spec.get(key) or ():
            if not isinstance(c, dict):
                continue
            _drop_zero(c, CONTAINER_GO_ZERO)
            for port in c.get("ports") or ():
                _drop_zero(port, (("hostPort", 0),))
            for mount in c.get(VOLUME_MOUNTS) or ():
                _drop_zero(mount, (("readOnly", False),))
            for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
                _drop_zero(c.get(probe), PROBE_GO_ZERO)
    for vol in pod_spec.get("volumes") or ():
        if isinstance(vol, dict):
            for src in VOLUME_READ_ONLY:
                _drop_zero(vol.get(src), (("readOnly", False),))


def _strip_template(template: Any) -> Any:
    if not isinstance(template, dict):
        return template
    spec = template.get("spec")
    if isinstance(spec, dict):
        for f in TEMPLATE_IGNORED:
            spec.pop(f, None)
        drop_go_zero_values(spec)
    return template


def ray_cluster_spec_for_hashing(cluster_spec: Mapping[str, Any]) -> dict[str, Any]:
    """``rayClusterSpecForHashing`` + ``GenerateHashWithoutReplicasAndWorkersToDelete``:
    the cluster spec with ``suspend``, ``upgradeStrategy``, worker ``replicas``/``minReplicas``/
    ``maxReplicas``/``scaleStrategy.workersToDelete`` and template ``tolerations``/
    ``schedulingGates`` removed, after the CRD defaults (``defaults.RAYCLUSTER_SPEC_DEFAULTS``):
    the live cluster was defaulted by the API server, the manifest was not."""
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
