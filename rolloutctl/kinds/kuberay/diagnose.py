"""Why a RayService plan gets stuck, in the operator's terms.

Upstream (ray-project/kuberay @ feeaf72f): ``rayservice_controller.go``
``validateRayService``, ``updateHeadPodServeLabel``, ``isInitializingTimeout``,
``modifyRayCluster``, ``getAndCheckServeStatus``, ``calculateConditions`` (no serve endpoint);
``common/pod.go`` ``initLivenessAndReadinessProbe``; ``raycluster_controller.go``
``rayClusterReconcile`` (``utils.ValidateRayClusterUpgradeOptions``);
``common/service.go`` ``BuildServeService``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.environment import Environment, add
from ...core.model import STUCK_INSUFFICIENT_CAPACITY, STUCK_NEVER_READY, Obj, ObjectRef, Stuck
from ...core.world import World
from . import service as ksvc
from .api import (API, HEAD_PENDING, HEAD_READY, HEAD_STARTING, L_CRD, L_NAME, RC, RS, SA, cluster_requests, display,
                  has_head_pod, head_phase, is_generated, worker_pods)
from .conditions import is_true
from .operator import DEFAULT_CONFIG, OperatorConfig

#: a Serve application a live snapshot records as failed, on a cluster the RayService tracks
STUCK_SERVE_APPLICATION_FAILED = "ServeApplicationFailed"
from .spec import incremental, serve_app_names, serve_config_error, serve_config_target_capacity
from .pod import head_pod_serve_label, head_serve_port
from .status import cluster_serve_proxy, is_initializing_timeout
from .validation import first_error
from .validation.utils_validation import ray_cluster_upgrade_options_error


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, dict) or isinstance(v, Mapping) else {}  # dict first: the common case, cheaper


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def serve_service_error(desired: Obj, world: World, cfg: OperatorConfig = DEFAULT_CONFIG) -> str | None:
    """``BuildServeService``'s error for the RayService's live clusters, if any."""
    view = {"metadata": {"name": desired.name, "namespace": desired.namespace}, "spec": dict(desired.spec)}
    for c in world.of_kind(RC):
        if c.terminating or c.labels.get(L_NAME) != desired.name:
            continue
        try:
            ksvc.build_serve_service(view, c.raw, cfg)
        except ksvc.ServeServiceError as exc:
            return str(exc)
    return None


def serve_config_apps(desired: Obj) -> list[str]:
    """The application names of the RayService's ``spec.serveConfigV2``."""
    return serve_app_names(str(desired.spec.get("serveConfigV2") or ""))


def diagnose(cfg: OperatorConfig, desired: Obj, world: World, env: Environment) -> Stuck:
    """Why a RayService plan stops short of Ready: the first of validation, a refused
    RayCluster, an unbuildable serve Service, finalizers, the initializing timeout, a
    suspended cluster, capacity, a cluster that never becomes ready, no Serve config."""
    rs = world.get(RS, desired.namespace, desired.name)
    ref = ObjectRef(RS, desired.namespace, desired.name, API)
    err = first_error(desired, cfg)
    if err:
        return Stuck("ValidationFailed", f"{err} (Ready=False/ValidationFailed; the controller waits for the "
                     "next spec change)", (ref,), ("fix the spec; rolloutctl lint shows every rule",))
    st = rs.status if rs else {}
    for c in world.of_kind(RC):
        refused = ray_cluster_upgrade_options_error(c.spec, c.labels.get(L_CRD) == "RayService")
        if refused and not c.terminating:
            return Stuck("InvalidRayClusterSpec",
                         f"the RayCluster controller refuses RayCluster {display(c.name)}: {refused} "
                         "(raycluster_controller.go#rayClusterReconcile, utils.ValidateRayClusterUpgradeOptions); "
                         "it never gets a head Pod, so every RayService pass stops at updateHeadPodServeLabel",
                         (ObjectRef(RC, c.namespace, display(c.name) or c.name, API),),
                         ("remove spec.rayClusterConfig.upgradeStrategy (use spec.upgradeStrategy for the "
                          "RayService)",))
    config_err = desired.derived(serve_config_error)
    tracked = [world.get(RC, desired.namespace, _m(st.get(k)).get("rayClusterName") or "")
               for k in ("activeServiceStatus", "pendingServiceStatus")]
    tracked = [c for c in tracked if c is not None]
    if config_err and tracked and all(has_head_pod(c) for c in tracked) \
            and any(head_phase(c) == HEAD_READY for c in tracked):
        return Stuck("ServeConfigInvalid",
                     f"spec.serveConfigV2 does not unmarshal ({config_err}): updateServeDeployment fails before "
                     "submitting it, so every pass ends with that error: no Serve config is submitted, the "
                     "Services do not switch and the status is not written; a running cluster keeps serving its "
                     "current applications (rayservice_controller.go#updateServeDeployment)", (ref,),
                     ("fix the YAML of spec.serveConfigV2 (it must be a mapping with applications: [...])",))
    # reconcileServicesToReadyCluster (and so BuildServeService) runs only once a cluster
    # is ready, which needs a Serve application: without one, the empty config is the blocker;
    # under incremental upgrade reconcilePerClusterServeService builds it before any readiness
    serve_err = serve_service_error(desired, world, cfg) \
        if incremental(desired, cfg) or desired.derived(serve_config_apps) else None
    if serve_err:
        return Stuck("ServeServiceNotBuilt", f"{serve_err} (common/service.go#BuildServeService): "
                     "reconcileServices fails on every pass, so no Service is created and the status is not "
                     "written", (ref,), ("name the serve port 'serve' in the head container" + (
                         "" if incremental(desired, cfg) else ", or set spec.serveService"),))
    held = [o for o in world if o.terminating and _l(o.metadata.get("finalizers"))]
    if held:
        return Stuck("DeletionBlocked", "objects being deleted are held by finalizers: "
                     + ", ".join(f"{o.kind} {display(o.name)} {o.metadata.get('finalizers')}" for o in held)
                     + (" — the RayService stays Suspending until they are gone" if is_true(st, "Suspending") else ""),
                     tuple(ObjectRef(o.kind, o.namespace, display(o.name) or o.name, o.api_version) for o in held),
                     ("remove the finalizer once its owner has finished",))
    if is_initializing_timeout(st):
        return Stuck("InitializingTimeout", "Ready=False/InitializingTimeout is terminal: the clusters are "
                     "deleted and nothing is created again, whatever the spec (rayservice_controller.go#"
                     "isInitializingTimeout)", (ref,),
                     ("delete and re-create the RayService", "or set spec.suspend: true, wait for Suspended, "
                      "then set it back to false (resume re-arms Initializing)"))
    tracked = [world.get(RC, desired.namespace, _m(st.get(k)).get("rayClusterName") or "")
               for k in ("activeServiceStatus", "pendingServiceStatus")]
    tracked = [c for c in tracked if c is not None]
    for c in tracked:
        if c.spec.get("suspend") is True or is_true(c.status, "RayClusterSuspended"):
            return Stuck("ClusterSuspended",
                         f"RayCluster {display(c.name)} is suspended (it was created with rayClusterConfig.suspend: "
                         "true, which is copied only at creation). It has no head Pod, so every RayService pass "
                         "stops at updateHeadPodServeLabel (\"found 0 head\") and the status stays frozen; "
                         "KubeRay never unsuspends it and editing rayClusterConfig.suspend has no effect "
                         "(rayservice_controller.go#modifyRayCluster)",
                         (ObjectRef(RC, c.namespace, display(c.name) or c.name, API),),
                         (f"kubectl patch raycluster {display(c.name)} --type merge -p '{{\"spec\":{{\"suspend\":false}}}}'",
                          f"or delete RayCluster {display(c.name)} (it is re-created from the current spec)",
                          "or set the RayService's spec.suspend: true, wait for Suspended, then false"))
    for c in world.of_kind(RC):
        if c.terminating:
            continue
        if head_phase(c) == HEAD_PENDING:
            req = cluster_requests(c)
            used: dict[str, int] = {}
            for o in world.of_kind(RC):
                if o.name != c.name and head_phase(o) in (HEAD_STARTING, HEAD_READY):
                    add(used, cluster_requests(o, worker_pods(world, o)))
            short = env.short(used, req)
            return Stuck(STUCK_INSUFFICIENT_CAPACITY,
                         f"the Pods of RayCluster {display(c.name)} do not fit next to the running clusters "
                         f"(short of {', '.join(short) or 'capacity'}); a NewCluster upgrade needs room for both "
                         "clusters at once", (ObjectRef(RC, c.namespace, display(c.name) or c.name, API),),
                         ("raise --capacity", "or use upgradeStrategy NewClusterWithIncrementalUpgrade with a "
                          "smaller maxSurgePercent"))
    for c in tracked:
        sa = world.get(SA, c.namespace, c.name)
        failed = sorted((k, _m(v)) for k, v in _m(sa.status.get("applications") if sa else {}).items()
                        if _m(v).get("status") in ("DEPLOY_FAILED", "UNHEALTHY"))
        if head_phase(c) == HEAD_READY and failed:
            which = "active" if c.name == _m(st.get("activeServiceStatus")).get("rayClusterName") else "pending"
            apps = "; ".join(f"{k} {v.get('status')}" + (f" ({v['message']})" if v.get("message") else "")
                             for k, v in failed)
            return Stuck(STUCK_SERVE_APPLICATION_FAILED,
                         f"Serve application{'s' if len(failed) > 1 else ''} on the {which} RayCluster "
                         f"{display(c.name)}: {apps}. getAndCheckServeStatus finds the cluster not ready, and the "
                         "controller resubmits serveConfigV2 only when it differs from its cache, so "
                         + ("the Services keep pointing at the serving cluster and the upgrade waits"
                            if which == "pending" else "the RayService is not Ready")
                         + " (rayservice_controller.go#checkIfNeedSubmitServeApplications)",
                         (ObjectRef(RC, c.namespace, display(c.name) or c.name, API),),
                         ("fix the application and change serveConfigV2 (a changed config is submitted)",
                          "or revert the spec to stop the upgrade" if which == "pending" else
                          "or fix it in Ray Serve directly"))
    for c in world.of_kind(RC):
        if c.terminating or not is_generated(c.name):
            continue
        sa = world.get(SA, c.namespace, c.name)
        apps_ok = sa is not None and all(_m(v).get("status") == "RUNNING" for v in _m(sa.status.get("applications")).values())
        if head_phase(c) != HEAD_READY or not apps_ok:
            return Stuck(STUCK_NEVER_READY, f"RayCluster {display(c.name)} never becomes ready (--never-ready): "
                         "the Services keep pointing at the serving cluster and the new cluster stays pending",
                         (ObjectRef(RC, c.namespace, display(c.name) or c.name, API),),
                         ("fix the image or the Serve config; revert the spec to stop the upgrade",))
    tc = serve_config_target_capacity(str(desired.spec.get("serveConfigV2") or ""))
    if tc is not None and is_true(st, "UpgradeInProgress") and incremental(desired, cfg):
        return Stuck("TargetCapacityInServeConfig",
                     f"serveConfigV2 sets a fractional target_capacity that truncates to {tc}. "
                     "applyServeTargetCapacity compares each goal with the cached config's own target_capacity when "
                     "that is a float (the cache holds the user's serveConfigV2) and returns "
                     f"early when they are equal, so the target capacity never passes {tc} and the incremental upgrade "
                     "stops (rayservice_controller.go#applyServeTargetCapacity)", (ref,),
                     ("remove target_capacity from serveConfigV2: KubeRay sets it during an incremental upgrade",))
    config = str(desired.spec.get("serveConfigV2") or "")
    if not config.strip():
        return Stuck(STUCK_NEVER_READY, "spec.serveConfigV2 is empty: no Serve application, so no cluster is "
                     "ever ready (rayservice_controller.go#getAndCheckServeStatus)", (ref,))
    if not serve_app_names(config):
        return Stuck(STUCK_NEVER_READY, "spec.serveConfigV2 declares no application: the cluster reports none, so "
                     "getAndCheckServeStatus never finds it ready, and the controller resubmits the config on every "
                     "pass (rayservice_controller.go#checkIfNeedSubmitServeApplications)", (ref,),
                     ("list the Serve applications under serveConfigV2.applications",))
    active = world.get(RC, desired.namespace, _m(st.get("activeServiceStatus")).get("rayClusterName") or "")
    if active is not None and head_phase(active) == HEAD_READY and not int(st.get("numServeEndpoints") or 0):
        proxy = cluster_serve_proxy(world.get(SA, active.namespace, active.name), desired)
        if not head_pod_serve_label(active.spec, proxy, desired.spec.get("excludeHeadPodFromServeSvc") is True) and \
                not int(active.status.get("readyWorkerReplicas") or 0):
            location, port = proxy
            return Stuck(STUCK_NEVER_READY,
                         f"the serve Service has no endpoint: Serve's proxies listen on port {port} "
                         f"(serveConfigV2 http_options.port{', proxy_location ' + location if location != 'EveryNode' else ''}), "
                         f"the head's serve port is {head_serve_port(active.spec)} (updateHeadPodServeLabel keeps it "
                         "ray.io/serve=false) and no worker Pod passes the readiness probe on its serve port "
                         "(common/pod.go#initLivenessAndReadinessProbe), so Ready stays False", (ref,),
                         (f"name the head's and workers' port {port} 'serve', or set http_options.port to the serve "
                          "port (lint: RS043)",))
    return Stuck("NotConverged", "the RayService does not reach Ready and nothing else moves", (ref,))
