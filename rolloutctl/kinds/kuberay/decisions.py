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

import json
from collections.abc import Mapping
from typing import Any

from ...core.go_values import JSON, field_form, go_form
from ...core.go_values import keeps_empty_at as go_keeps_empty_at
from ...core.k8s_go_types import K8S_GO_TYPES
from ...core.model import Obj
from .defaults import raycluster_spec_defaults
from .go_types import RAY_GO_TYPES
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


# ``json.Marshal`` (``utils.GenerateJsonHash``) of the Go types under ``RayClusterSpec``:
# which empty or zero values are written unlike an absent field is a matter of each
# field's Go type (``core.go_values``; the types: ``go_types.py`` and
# ``core/k8s_go_types.py``, k8s.io/api v0.36.0 as kuberay's go.mod pins).
GO_TYPES = (RAY_GO_TYPES, K8S_GO_TYPES)
CLUSTER_SPEC = "rayv1.RayClusterSpec"


def keeps_empty_at(path: tuple) -> bool:
    """Whether an empty mapping or list at ``path`` inside a ``RayClusterSpec`` (field
    names, list items as other segments) is written by ``json.Marshal`` unlike an absent
    one: a pointer (``securityContext: {}``, a pod spec's ``resources: {}``), a map or
    slice without ``omitempty`` (``rayStartParams: {}``, ``projected.sources: []``)."""
    return go_keeps_empty_at(path, CLUSTER_SPEC, GO_TYPES, JSON)


def _prune(spec: Any) -> Any:
    """The comparison form of a cluster spec: what ``json.Marshal`` writes, as equality
    sees it (``core.go_values.go_form``): ``readOnly: false`` on a volume mount,
    ``hostNetwork: false`` or an empty ``tolerations`` list are written as their absence
    is; ``storageClassName: ""`` or ``runAsUser: 0`` (pointers) are not."""
    return go_form(spec, CLUSTER_SPEC, GO_TYPES, JSON) if isinstance(spec, Mapping) else {}


def _field(value: Any, struct: str, field: str) -> Any:
    """One field's value as ``_prune`` has it (``core.go_values.field_form``)."""
    return field_form(value, struct, field, GO_TYPES, JSON)


#: what older operators still hashed, by the first KubeRay version that blanks it: the
#: templates' ``tolerations``/``schedulingGates`` from v1.5.2 (``utils/util.go``
#: ``GenerateHashWithoutReplicasAndWorkersToDelete``; up to v1.5.1 ``rayservice_controller.go``
#: blanked only the worker counts), ``suspend`` from v1.7.0 (``rayClusterSpecForHashing``).
#: (``upgradeStrategy`` came to RayClusterSpec in v1.6.0, blanked from the start.)
BLANKED_SINCE: tuple[tuple[tuple[int, int, int], tuple[str, ...]], ...] = (
    ((1, 5, 2), TEMPLATE_IGNORED), ((1, 7, 0), ("suspend",)))


def _semver(version: str) -> tuple[int, int, int] | None:
    """``v1.5.2`` (or ``1.5.2``, ``v1.5.2-rc.1``) as numbers; None for anything else
    (``nightly``: the modelled commit)."""
    core = version.removeprefix("v").split("-", 1)[0].split(".")
    if len(core) != 3 or not all(p.isdigit() for p in core):
        return None
    return int(core[0]), int(core[1]), int(core[2])


def hashed_by(version: str) -> frozenset[str]:
    """The fields the modelled operator leaves out of the cluster hash that the KubeRay
    ``version`` which made a cluster still hashed (``BLANKED_SINCE``)."""
    v = _semver(version)
    return frozenset() if v is None else frozenset(f for since, fs in BLANKED_SINCE if v < since for f in fs)


def _strip_template(template: Any, kept: frozenset[str] = frozenset()) -> Any:
    if not isinstance(template, dict):
        return template
    spec = template.get("spec")
    if isinstance(spec, dict):
        for f in TEMPLATE_IGNORED:
            if f not in kept:
                spec.pop(f, None)
    return template


def ray_cluster_spec_for_hashing(cluster_spec: Mapping[str, Any], kept: frozenset[str] = frozenset()) -> dict[str, Any]:
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
        if f not in kept:
            spec.pop(f, None)
    head = spec.get("headGroupSpec")
    if isinstance(head, dict):
        _strip_template(head.get("template"), kept)
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
            _strip_template(g.get("template"), kept)
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


#: the ``rayClusterConfig`` (JSON) a live RayCluster's hash annotation was computed from,
#: where it is known to differ from the cluster's spec (``observe``: a settled service whose
#: cluster someone edited since); model-private, dropped by every write of the cluster
HASHED_SPEC_ANNOTATION = "rolloutctl.dev/hashed-spec"


def cluster_hashing_form(cluster: Obj) -> dict[str, Any]:
    """The same form of a live RayCluster's spec: it stands for the hash upstream stored
    on the cluster when it created it (the module docstring says why); where observation
    knows the spec the hash came from (``HASHED_SPEC_ANNOTATION``), that spec's. A cluster
    an older KubeRay made keeps what that version still hashed (``hashed_by``): the goal's
    form never has it, so the two differ exactly when upstream's hashes do."""
    src = cluster.annotations.get(HASHED_SPEC_ANNOTATION)
    kept = hashed_by(str(cluster.annotations.get(KUBERAY_VERSION_ANNOTATION) or ""))
    return ray_cluster_spec_for_hashing(json.loads(src) if src else cluster.spec, kept)


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
    if _field(goal.get("upgradeStrategy"), CLUSTER_SPEC, "upgradeStrategy") != \
            _field(live.get("upgradeStrategy"), CLUSTER_SPEC, "upgradeStrategy"):
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
        if _field(_m(g.get("scaleStrategy")).get("workersToDelete"), "rayv1.ScaleStrategy", "workersToDelete") != \
                _field(_m(other.get("scaleStrategy")).get("workersToDelete"), "rayv1.ScaleStrategy", "workersToDelete"):
            out.append(("replicas", f"{wp}.scaleStrategy.workersToDelete"))
        for f in TEMPLATE_IGNORED:
            if _field(_m(_m(g.get("template")).get("spec")).get(f), "corev1.PodSpec", f) != \
                    _field(_m(_m(other.get("template")).get("spec")).get(f), "corev1.PodSpec", f):
                out.append(("scheduling", f"{wp}.template.spec.{f}"))
    hg, hl = _m(goal.get("headGroupSpec")), _m(live.get("headGroupSpec"))
    for f in TEMPLATE_IGNORED:
        if _field(_m(_m(hg.get("template")).get("spec")).get(f), "corev1.PodSpec", f) != \
                _field(_m(_m(hl.get("template")).get("spec")).get(f), "corev1.PodSpec", f):
            out.append(("scheduling", f"{base}.headGroupSpec.template.spec.{f}"))
    return out
