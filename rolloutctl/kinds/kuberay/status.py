"""The RayService status the controller computes at the end of a pass: application
statuses, traffic weights, promotion of the pending cluster, rollback completion, the
next pending cluster's name, serve endpoints and the conditions (with the initializing
timeout).

Upstream: ``ray-operator/controllers/ray/rayservice_controller.go`` of ray-project/kuberay
@ feeaf72f ``reconcilePromotionAndServingStatus``, ``calculateStatus``,
``calculateConditions``, ``calculateNumServeEndpointsFromSlices``,
``getInitializingTimeout``, ``isInitializingTimeout``, ``markFailedOnInitializingTimeout``;
``ray-operator/controllers/ray/utils/util.go`` ``GenerateRayClusterName``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.go_time import format_duration
from ...core.model import Obj
from .api import HEAD_READY, L_CLUSTER, RC, SA, SVC, head_phase
from .conditions import find_condition, is_true, remove_condition, set_condition
from .decisions import should_prepare_new_cluster
from .incremental_upgrade import should_complete_incremental_rollback, weights_from_http_route
from .pod import head_pod_serve_label, serve_proxy
from .reconciler import Reconciler
from .spec import incremental, serve_svc_name
from .validation.util import INITIALIZING_TIMEOUT_ANNOTATION, parse_initializing_timeout, serve_config_document


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, dict) or isinstance(v, Mapping) else {}  # dict first: the common case, cheaper


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def reconcile_promotion_and_serving_status(r: Reconciler, head_svc: Obj, pending: Obj | None) -> bool:
    """``reconcilePromotionAndServingStatus``."""
    st = r.st
    points_to = _m(head_svc.spec.get("selector")).get(L_CLUSTER)
    pname, aname = r.pending_name(), r.active_name()
    promote = False
    if incremental(r.d, r.config):
        if is_true(st, "UpgradeInProgress"):
            a, p = _m(st.get("activeServiceStatus")), _m(st.get("pendingServiceStatus"))
            if not is_true(st, "RollbackInProgress") and pending is not None and a.get("targetCapacity") == 0 \
                    and p.get("trafficRoutedPercent") == 100:
                promote = True
        elif not aname and pname:
            promote = True
    elif aname != points_to:
        promote = True
    if promote:
        st["activeServiceStatus"] = dict(_m(st.get("pendingServiceStatus")))
        st["pendingServiceStatus"] = {}
    return points_to == pname


def calculate_status(r: Reconciler, head_svc: Obj | None, serve_svc: Obj | None, active: Obj | None, pending: Obj | None,
                     active_apps: dict | None, pending_apps: dict | None, route: Obj | None) -> None:
    """``calculateStatus``: apps, traffic weights, promotion, rollback completion, new
    pending name (``shouldPrepareNewCluster``), endpoints, conditions."""
    st = r.st
    st["observedGeneration"] = r.gen
    a, p = r.sub("activeServiceStatus"), r.sub("pendingServiceStatus")
    for s, apps in ((a, active_apps), (p, pending_apps)):
        if apps:
            s["applicationStatuses"] = apps
        else:
            s.pop("applicationStatuses", None)
    serving = False
    if head_svc is not None and serve_svc is not None:
        if incremental(r.d, r.config):
            aw, pw = weights_from_http_route(route, a.get("rayClusterName"), p.get("rayClusterName"))
            if aw >= 0:
                old = a.get("trafficRoutedPercent")
                a["trafficRoutedPercent"] = aw
                if aw != (-1 if old is None else old):
                    a["lastTrafficMigratedTime"] = r.now
            if pw >= 0 and pending is not None:
                old = p.get("trafficRoutedPercent")
                p["trafficRoutedPercent"] = pw
                if pw != (-1 if old is None else old):
                    p["lastTrafficMigratedTime"] = r.now
        serving = reconcile_promotion_and_serving_status(r, head_svc, pending)
    if is_true(st, "RollbackInProgress"):
        if should_complete_incremental_rollback(_m(st.get("activeServiceStatus")),
                                                _m(st.get("pendingServiceStatus")), pending):
            st["pendingServiceStatus"] = {}
            pending = None
            remove_condition(st, "RollbackInProgress")
            set_condition(st, "UpgradeInProgress", "False", "NoPendingCluster",
                          "Rollback complete, active Ray cluster exists and no pending Ray cluster", r.now)
    if should_prepare_new_cluster(r.d, active, pending, serving, is_true(st, "RollbackInProgress"),
                                  r.config):
        newp: dict[str, Any] = {"rayClusterName": generate_ray_cluster_name(r)}
        if incremental(r.d, r.config):
            if not _m(st.get("activeServiceStatus")).get("rayClusterName"):
                if _m(st.get("activeServiceStatus")).get("targetCapacity") is None:
                    newp["targetCapacity"] = 100
            else:
                newp["targetCapacity"] = 0
        st["pendingServiceStatus"] = newp
    n = calculate_num_serve_endpoints_from_slices(r, _serve_endpoint_service(r, active), )
    if incremental(r.d, r.config) and pending is not None:
        n += calculate_num_serve_endpoints_from_slices(r, f"{pending.name}-serve-svc")
    st["numServeEndpoints"] = n
    calculate_conditions(st, r.d, r.now)
    st["serviceStatus"] = "Running" if is_true(st, "Ready") else ""


def calculate_conditions(st: dict, desired: Obj, now: int) -> None:
    """``calculateConditions`` (with ``markFailedOnInitializingTimeout``)."""
    if not _l(st.get("conditions")):
        msg = "RayService is initializing"
        set_condition(st, "Ready", "False", "Initializing", msg, now)
        set_condition(st, "UpgradeInProgress", "False", "Initializing", msg, now)
    if (st.get("numServeEndpoints") or 0) > 0:
        set_condition(st, "Ready", "True", "NonZeroServeEndpoints", "Number of serve endpoints is greater than 0", now)
    elif is_true(st, "Ready"):
        set_condition(st, "Ready", "False", "ZeroServeEndpoints", "Number of serve endpoints dropped to 0", now)
    else:
        mark_failed_on_initializing_timeout(st, desired, now)
    a = _m(st.get("activeServiceStatus")).get("rayClusterName")
    p = _m(st.get("pendingServiceStatus")).get("rayClusterName")
    if a and p:
        set_condition(st, "UpgradeInProgress", "True", "BothActivePendingClustersExist",
                      "Both active and pending Ray clusters exist", now)
    elif a:
        set_condition(st, "UpgradeInProgress", "False", "NoPendingCluster",
                      "Active Ray cluster exists and no pending Ray cluster", now)
    else:
        c = find_condition(st, "UpgradeInProgress")
        if c is None or c.get("reason") not in ("Initializing", "InitializingTimeout"):
            set_condition(st, "UpgradeInProgress", "Unknown", "NoActiveCluster",
                          "No active Ray cluster exists, and the RayService is not initializing. Please open a GitHub "
                          "issue in the KubeRay repository.", now)


def generate_ray_cluster_name(r: Reconciler) -> str:
    """``utils.GenerateRayClusterName``: ``<rs>-<5 random chars>``; see the module docstring."""
    used = {o.name for o in r.w.of_kind(RC)} | {r.active_name(), r.pending_name()}
    used |= {n for (k, _, n), o in r.objs.items() if k == RC}
    i = 1
    while True:
        n = f"{r.name}-<random{'' if i == 1 else i}>"
        if n not in used:
            return n
        i += 1


def _serve_endpoint_service(r: Reconciler, active: Obj | None) -> str:
    if incremental(r.d, r.config) and active is not None:
        return f"{active.name}-serve-svc"
    return serve_svc_name(r.d, None, r.config)


def cluster_serve_proxy(cached: Obj | None, desired: Obj) -> tuple[str, int]:
    """Where Serve runs its proxies on a cluster, and on which port (``pod.serve_proxy``):
    from the config last submitted to it (its Serve state ``cached``, the serve-config
    cache), else from the RayService's ``serveConfigV2``, which the controller submits once
    the head is ready. (Serve reads ``http_options`` when it starts on the cluster; a config
    submitted later is taken as the one it started with.)"""
    holder = desired if cached is None or cached.spec.get("serveConfigV2") == desired.spec.get("serveConfigV2") \
        else cached  # (the same text: the RayService's own decoding of it)
    return holder.derived(_serve_proxy_of)  # type: ignore[no-any-return]


def _serve_proxy_of(holder: Obj) -> tuple[str, int]:
    return serve_proxy(serve_config_document(holder))


def calculate_num_serve_endpoints_from_slices(r: Reconciler, svc_name: str) -> int:
    """``calculateNumServeEndpointsFromSlices``: ready Pods behind the serve Service (the
    head when its proxy is up and it is not excluded, and ready workers). Upstream lists
    the Service's EndpointSlices from the informer cache, which the EndpointSlice
    controller writes after it sees the Service: they follow the Service as it was when
    the pass began (``r.w``), not a create or re-point of this same pass, which the next
    pass counts. A cluster's Pods serve only once Serve runs there: its Serve config
    submitted before this pass began (``r.w``; in the submitting pass no proxy is up yet,
    so the workers' readiness probe on the proxy fails and the head keeps
    ``ray.io/serve=false``: ``common/pod.go``, ``updateHeadPodServeLabel``). The head counts
    only while its label is true (``pod.head_pod_serve_label``: the proxy on its serve port)."""
    svc = r.w.get(SVC, r.ns, svc_name) if svc_name else None
    if svc is None:
        return 0
    c = r.get(RC, _m(svc.spec.get("selector")).get(L_CLUSTER))
    if c is None or c.terminating or r.w.get(SA, r.ns, c.name) is None:
        return 0
    n = 0
    if head_phase(c) == HEAD_READY and head_pod_serve_label(
            c.spec, cluster_serve_proxy(r.w.get(SA, r.ns, c.name), r.d),
            r.d.spec.get("excludeHeadPodFromServeSvc") is True):
        n += 1
    n += int(c.status.get("readyWorkerReplicas") or 0)
    return n


def initializing_deadline(st: Mapping[str, Any], desired: Obj) -> int | None:
    """When ``markFailedOnInitializingTimeout`` would fire (model seconds), or None."""
    timeout = parse_initializing_timeout(desired.annotations.get(INITIALIZING_TIMEOUT_ANNOTATION))
    c = find_condition(st, "Ready")
    if timeout is None or timeout <= 0 or c is None or c.get("status") != "False" or c.get("reason") != "Initializing":
        return None
    ltt = c.get("lastTransitionTime")
    start = ltt if isinstance(ltt, int) else 0
    return start + int(-(-timeout // 1))


def is_initializing_timeout(st: Mapping[str, Any]) -> bool:
    """``isInitializingTimeout``: Ready is False with reason InitializingTimeout (terminal)."""
    c = find_condition(st, "Ready")
    return c is not None and c.get("status") == "False" and c.get("reason") == "InitializingTimeout"


def mark_failed_on_initializing_timeout(st: dict, desired: Obj, now: int) -> None:
    """``markFailedOnInitializingTimeout``: clear both cluster names; Ready=False/InitializingTimeout."""
    deadline = initializing_deadline(st, desired)
    if deadline is None or now < deadline:
        return
    a, p = dict(_m(st.get("activeServiceStatus"))), dict(_m(st.get("pendingServiceStatus")))
    a.pop("rayClusterName", None)
    p.pop("rayClusterName", None)
    st["activeServiceStatus"], st["pendingServiceStatus"] = a, p
    timeout = parse_initializing_timeout(desired.annotations.get(INITIALIZING_TIMEOUT_ANNOTATION)) or 0
    c = find_condition(st, "Ready")
    ltt = c.get("lastTransitionTime") if c is not None else None
    spent = now - (ltt if isinstance(ltt, int) else 0)
    set_condition(st, "Ready", "False", "InitializingTimeout",
                  "RayService failed to become ready within the configured timeout of "
                  f"{format_duration(round(timeout * 1e9))}. Time spent initializing: {format_duration(spent * 10**9)}",
                  now)
