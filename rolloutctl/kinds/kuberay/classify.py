"""The effect of each change of a RayService on the live service (``diff``).

The cluster-spec changes are judged by the same decision functions the planner uses
(``decisions.is_cluster_spec_hash_equal``, ``should_update_cluster``,
``is_zero_downtime_upgrade_enabled``), against a RayCluster standing for the live one:
its spec is the live RayService's ``rayClusterConfig`` (the settled assumption).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ...core.model import Change, Impact, Obj
from .spec import serve_svc_name
from .validation import NEVER_SERVES, controller_errors, validate
from .validation.util import INITIALIZING_TIMEOUT_ANNOTATION, is_incremental_upgrade_enabled
from .operator import DEFAULT_CONFIG, OperatorConfig
from .decisions import (KUBERAY_VERSION_ANNOTATION, NUM_WORKER_GROUPS_ANNOTATION, is_cluster_spec_hash_equal,
                        is_zero_downtime_upgrade_enabled, strategy_name)

CLUSTER = "spec.rayClusterConfig"
#: a change of spec.managedBy: the CRD's transition rule ``self == oldSelf`` refuses it
MANAGED_BY_IMMUTABLE = "spec.managedBy is immutable (CRD validation rule)"
_WORKER_IGNORED = re.compile(r"^spec\.rayClusterConfig\.workerGroupSpecs\[[^\]]*\]\.(replicas|minReplicas|maxReplicas|"
                             r"scaleStrategy(\.workersToDelete)?)(\.|\[|$)")
_SCHED_IGNORED = re.compile(r"^spec\.rayClusterConfig\.(headGroupSpec|workerGroupSpecs\[[^\]]*\])\.template\.spec\."
                            r"(tolerations|schedulingGates)(\.|\[|$)")


def _live_cluster(live: Obj, version: str) -> Obj:
    spec = live.spec.get("rayClusterConfig") or {}
    return Obj({"apiVersion": "ray.io/v1", "kind": "RayCluster",
                "metadata": {"name": f"{live.name}-<random>", "namespace": live.namespace,
                             "annotations": {NUM_WORKER_GROUPS_ANNOTATION: str(len(spec.get("workerGroupSpecs") or [])),
                                             KUBERAY_VERSION_ANNOTATION: version}},
                "spec": spec})


def upgrade_strategy_effect(desired: Obj, live: Obj, cfg: OperatorConfig = DEFAULT_CONFIG) -> tuple[str, str] | None:
    """What an upgrade-strategy edit does on the next pass of a settled service, as
    ``Reconcile`` (rayservice_controller.go) reads ``utils.IsIncrementalUpgradeEnabled``
    every pass: (the path prefix it concerns, the message), or None when it only affects
    future upgrades. Turning NewClusterWithIncrementalUpgrade on makes the pass create the
    active cluster's serve Service (``reconcilePerClusterServeService``), the Gateway
    (``reconcileGateway``) and the HTTPRoute (``reconcileHTTPRoute``); turning it off makes
    ``reconcileServices`` build the RayService's own serve Service again (the Gateway, the
    HTTPRoute and the per-cluster Services stay); a new ``gatewayClassName`` is written to
    the Gateway (``utils.IsGatewayEqual``)."""
    new, old = is_incremental_upgrade_enabled(desired.spec, cfg), is_incremental_upgrade_enabled(live.spec, cfg)
    if new and not old:
        return ("spec.upgradeStrategy", f"NewClusterWithIncrementalUpgrade takes effect on the next pass: the "
                f"controller creates the active RayCluster's own serve Service, the Gateway {desired.name}-gateway and "
                f"the HTTPRoute {desired.name}-httproute (rayservice_controller.go#reconcilePerClusterServeService, "
                "#reconcileGateway, #reconcileHTTPRoute)")
    if old and not new:
        return ("spec.upgradeStrategy", "leaving NewClusterWithIncrementalUpgrade: the next pass creates the "
                "RayService's serve Service for the active RayCluster (rayservice_controller.go#reconcileServices); "
                "the Gateway, the HTTPRoute and the per-cluster serve Services are left in place")
    opts = "clusterUpgradeOptions"
    if new and _m(_m(desired.spec.get("upgradeStrategy")).get(opts)).get("gatewayClassName") != \
            _m(_m(live.spec.get("upgradeStrategy")).get(opts)).get("gatewayClassName"):
        return ("spec.upgradeStrategy.clusterUpgradeOptions.gatewayClassName", "the Gateway's gatewayClassName is "
                "rewritten on the next pass (rayservice_controller.go#reconcileGateway, utils.IsGatewayEqual)")
    return None


def serve_service_rename(desired: Obj, live: Obj, cfg: OperatorConfig = DEFAULT_CONFIG) -> str | None:
    """``reconcileServices`` (rayservice_controller.go) looks the serve Service up by the name
    ``BuildServeService`` gives it (``serveService.metadata.name``, else ``<rs>-serve-svc``):
    under a new name it finds none and creates one for the active cluster; the Service under
    the old name is neither updated nor deleted. The message, or None when the name stays."""
    new, old = serve_svc_name(desired, None, cfg), serve_svc_name(live, None, cfg)
    if new == old or is_incremental_upgrade_enabled(desired.spec, cfg):
        return None
    return (f"the serve Service is now {new}: the next pass creates it for the active RayCluster; Service {old} is "
            "left as it is (rayservice_controller.go#reconcileServices)")


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix + ".") or path.startswith(prefix + "[")


def _active_cluster_version(live: Obj, related: Sequence[Obj]) -> str | None:
    """The ``ray.io/kuberay-version`` of the live RayService's active RayCluster among the
    live objects given with it (``""`` when it has none: a KubeRay before v1.2.0 made it);
    None when that cluster is not among them."""
    name = _m(live.status.get("activeServiceStatus")).get("rayClusterName")
    rc = next((o for o in related if o.kind == "RayCluster" and o.name == name and o.namespace == live.namespace),
              None) if name else None
    return None if rc is None else str(rc.annotations.get(KUBERAY_VERSION_ANNOTATION) or "")


def classify(changes: Sequence[Change], desired: Obj, live: Obj, version: str,
             cfg: OperatorConfig = DEFAULT_CONFIG, related: Sequence[Obj] = ()) -> list[Impact]:
    """One Impact per effect, each listing the paths that cause it. ``related``: the other
    live objects given (the RayService's clusters among them)."""
    buckets: dict[tuple[str, str], list[str]] = {}

    def put(effect: str, message: str, path: str) -> None:
        buckets.setdefault((effect, message), []).append(path)

    errors = controller_errors(desired, cfg)
    if errors:
        # validateRayService runs before anything else in Reconcile: the pass ends there,
        # so no change of this manifest reaches a cluster, a Service or the dashboard
        msg = (f"the controller fails the RayService (Ready=False/ValidationFailed) and does nothing else with it: "
               f"{errors[0].message} (rayservice_controller.go#validateRayService)")
        put("rejected", msg, errors[0].path or "spec")
        for ch in changes:
            put("rejected", MANAGED_BY_IMMUTABLE if ch.path == "spec.managedBy" else msg, ch.path)
        return _impacts(buckets)
    cluster = _live_cluster(live, version)
    full = is_cluster_spec_hash_equal(desired, cluster, False)
    partial = not full and is_cluster_spec_hash_equal(desired, cluster, True)
    made_by = _active_cluster_version(live, related)
    upgrading = any(isinstance(c, Mapping) and c.get("type") == "UpgradeInProgress" and c.get("status") == "True"
                    for c in live.status.get("conditions") or ())
    if made_by is not None and made_by != version and not upgrading:
        # shouldUpdateCluster checks the version before it compares any hash
        cluster_effect = "in-place"
        cluster_msg = (f"the active RayCluster was made by KubeRay {made_by or '(before v1.2.0, no version)'}: KubeRay "
                       f"{version} re-applies the whole rayClusterConfig to it in place, this change included, and "
                       "prepares no new cluster (rayservice_controller.go#shouldUpdateCluster)")
    elif full:
        cluster_effect, cluster_msg = "none", ""
    elif partial:
        cluster_effect = "in-place"
        cluster_msg = (f"worker groups appended at the end: the {'pending' if upgrading else 'active'} RayCluster is "
                       "updated in place "
                       "(rayservice_controller.go#shouldUpdateCluster)")
    elif is_zero_downtime_upgrade_enabled(desired, cfg):
        if is_incremental_upgrade_enabled(desired.spec, cfg):
            cluster_effect = "rollout"
            cluster_msg = ("a new RayCluster is created and traffic moves to it step by step through the Gateway "
                           "(NewClusterWithIncrementalUpgrade; rayservice_controller.go#shouldPrepareNewCluster)")
        else:
            cluster_effect = "rollout"
            cluster_msg = ("a new pending RayCluster is created; the Services switch to it once its Serve "
                           "applications are RUNNING and the old cluster is deleted after "
                           "rayClusterDeletionDelaySeconds (rayservice_controller.go#shouldPrepareNewCluster)")
    else:
        cluster_effect = "ignored"
        cluster_msg = (f"upgradeStrategy {strategy_name(desired, cfg)}: no new cluster is created and the running "
                       "cluster keeps its spec (rayservice_controller.go#isZeroDowntimeUpgradeEnabled)")
    if cluster_effect == "rollout":
        never = [f for f in validate(desired, cfg=cfg) if f.rule in NEVER_SERVES]
        if never:
            cluster_msg += (f"; with this manifest that never happens: the new cluster never serves "
                            f"({never[0].rule}: {never[0].message})")

    strategy_msg = upgrade_strategy_effect(desired, live, cfg)

    serve_rename = serve_service_rename(desired, live, cfg)

    for ch in changes:
        p = ch.path
        if p == "spec.suspend":
            if ch.new is True:
                put("teardown", "spec.suspend: true deletes every RayCluster, the RayService Services and (incremental) "
                    "the Gateway and HTTPRoute, after a status-only commit pass (rayservice_controller.go#handleSuspend)", p)
            else:
                put("rollout", "resuming creates a new RayCluster from the current spec, as for a new RayService "
                    "(rayservice_controller.go#handleSuspend, Case 1)", p)
        elif p == "spec.managedBy":
            put("rejected", MANAGED_BY_IMMUTABLE, p)
        elif _under(p, f"{CLUSTER}.suspend"):
            put("ignored", "rayClusterConfig.suspend is copied only when a RayCluster is created; the live cluster "
                "keeps its value (rayservice_controller.go#rayClusterSpecForHashing, #modifyRayCluster)", p)
        elif _WORKER_IGNORED.match(p) and cluster_effect in ("none", "ignored"):
            put("ignored", "worker replicas/minReplicas/maxReplicas/workersToDelete are left out of the cluster "
                "comparison; the live RayCluster keeps its values (utils/util.go#"
                "GenerateHashWithoutReplicasAndWorkersToDelete)", p)
        elif _SCHED_IGNORED.match(p) and cluster_effect in ("none", "ignored"):
            put("ignored", "template tolerations and schedulingGates are left out of the cluster comparison "
                "(utils/util.go#GenerateHashWithoutReplicasAndWorkersToDelete)", p)
        elif _under(p, f"{CLUSTER}.upgradeStrategy"):
            put("ignored", "rayClusterConfig.upgradeStrategy is left out of the cluster comparison (and the RayCluster "
                "controller refuses it on clusters a RayService creates)", p)
        elif _under(p, CLUSTER):
            if cluster_effect == "none":
                put("none", "no effect on the running cluster (equal after the comparison's normalisation)", p)
            else:
                put(cluster_effect, cluster_msg, p)
        elif _under(p, "spec.serveConfigV2") and cluster_effect == "rollout":
            put("rollout", "the new Serve config goes to the new cluster once its head is ready; the serving cluster "
                "keeps its config (reconcileServe skips the active cluster while a new one is prepared: "
                "rayservice_controller.go#Reconcile)", p)
        elif _under(p, "spec.serveConfigV2"):
            put("in-place", "the new Serve config is submitted to the serving cluster's dashboard (the pending "
                "cluster during an upgrade) (rayservice_controller.go#checkIfNeedSubmitServeApplications)", p)
        elif _under(p, "spec.serveService") and serve_rename is not None:
            put("in-place", serve_rename, p)
        elif _under(p, "spec.serveService") and cluster_effect == "rollout" and \
                not is_incremental_upgrade_enabled(desired.spec, cfg):
            put("rollout", "applied when the serve Service switches to the new cluster: reconcileServices rebuilds "
                "its spec from serveService then, keeping only its ClusterIP (rayservice_controller.go#"
                "reconcileServices)", p)
        elif _under(p, "spec.serveService") and is_incremental_upgrade_enabled(desired.spec, cfg):
            put("ignored", "with NewClusterWithIncrementalUpgrade each cluster's serve Service is built from its head's "
                "ports and serveService is not read (common/service.go#BuildServeService)", p)
        elif _under(p, "spec.serveService"):
            put("ignored", "deferred: an existing serve Service is rebuilt from serveService only when it must point "
                "at another cluster (the next upgrade's switch); until then it keeps its spec "
                "(rayservice_controller.go#reconcileServices)", p)
        elif _under(p, "spec.excludeHeadPodFromServeSvc"):
            put("in-place", "the head Pod's ray.io/serve label is updated on the next pass "
                "(rayservice_controller.go#updateHeadPodServeLabel)", p)
        elif _under(p, "spec.upgradeStrategy") and strategy_msg is not None \
                and (_under(p, strategy_msg[0]) or _under(strategy_msg[0], p)):
            put("in-place", strategy_msg[1], p)
        elif _under(p, "spec.upgradeStrategy") and cluster_effect not in ("none", "ignored"):
            put("none", f"the upgrade strategy ({strategy_name(desired, cfg)}) is the one this change's cluster "
                "edits are applied under (the controller reads it in the same pass)", p)
        elif _under(p, "spec.upgradeStrategy") or _under(p, "spec.rayClusterDeletionDelaySeconds"):
            put("none", "affects only future upgrades and deletions", p)
        elif p.startswith("metadata.labels") or p.startswith("metadata.annotations"):
            if f"[{INITIALIZING_TIMEOUT_ANNOTATION}]" in p or p.endswith(INITIALIZING_TIMEOUT_ANNOTATION) \
                    or (p == "metadata.annotations" and _changed_keys(ch) == {INITIALIZING_TIMEOUT_ANNOTATION}):
                put("none", "the initializing timeout applies while Ready is False/Initializing", p)
            elif cluster_effect == "in-place":
                put("in-place", "copied onto the active RayCluster, which this change updates in place "
                    "(rayservice_controller.go#modifyRayCluster, #constructRayClusterForRayService)", p)
            elif cluster_effect == "rollout":
                put("rollout", "carried by the new RayCluster this change creates "
                    "(rayservice_controller.go#constructRayClusterForRayService)", p)
            else:
                put("ignored", "RayService labels and annotations reach a RayCluster only when one is created or "
                    "updated in place (rayservice_controller.go#constructRayClusterForRayService)", p)
        else:
            put("none", "no effect on the running service", p)
    return _impacts(buckets)


def _changed_keys(ch: Change) -> set[str]:
    """The keys a change of a whole mapping (``metadata.annotations`` added or removed at
    once) adds, removes or changes: the same change made key by key is classified per key."""
    a = ch.old if isinstance(ch.old, Mapping) else {}
    b = ch.new if isinstance(ch.new, Mapping) else {}
    return {k for k in set(a) | set(b) if a.get(k) != b.get(k)}


def _impacts(buckets: Mapping[tuple[str, str], list[str]]) -> list[Impact]:
    return [Impact(e, m, tuple(sorted(set(paths)))) for (e, m), paths in sorted(buckets.items())]


