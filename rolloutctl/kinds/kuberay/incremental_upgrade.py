"""The ``NewClusterWithIncrementalUpgrade`` steps of the RayService controller: the
Gateway, the HTTPRoute whose weights move traffic by ``stepSizePercent`` every
``intervalSeconds``, Serve ``target_capacity`` moved by ``maxSurgePercent``, the
per-cluster serve Services and the rollback.

Upstream: ``ray-operator/controllers/ray/rayservice_controller.go`` of ray-project/kuberay
@ feeaf72f ``reconcileGateway``, ``calculateTrafficRoutedPercent``, ``reconcileHTTPRoute``,
``checkIfNeedTargetCapacityUpdate``, ``applyServeTargetCapacity``,
``reconcileServeTargetCapacity``, ``reconcilePerClusterServeService``,
``shouldCompleteIncrementalRollback``, ``reconcileRollbackState``;
``ray-operator/controllers/ray/utils/util.go`` ``GetWeightsFromHTTPRoute``. The objects
themselves are built in ``builders.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.model import Obj
from ...core.trees import copy_tree
from . import service as ksvc
from . import utils as ku
from .api import GW, HEAD_READY, RC, ROUTE, RS, SA, SVC, gateway_name, head_phase, route_name
from .builders import create_gateway, create_http_route, owner_reference, sa_object
from .conditions import is_true, remove_condition, set_condition
from .decisions import is_cluster_spec_hash_equal
from .reconciler import REQUEUE_2S, REQUEUE_BACKOFF, Reconciler, Stop
from .spec import serve_config_target_capacity, upgrade_options


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, dict) or isinstance(v, Mapping) else {}  # dict first: the common case, cheaper


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def reconcile_gateway(r: Reconciler) -> None:
    """``reconcileGateway``: create ``<rs>-gateway``; when it exists, restore its spec
    if ``utils.IsGatewayEqual`` finds the class or a listener's name, protocol or port
    changed (an edit made out of band, or new gatewayClassName). The HTTPRoute step
    that follows reads the Gateway from the cache and returns quietly in the pass
    that created it."""
    n = gateway_name(r.name)
    desired = create_gateway(r.d, r.ns)
    cur = r.w.get(GW, r.ns, n)
    if cur is None:
        desired["metadata"]["ownerReferences"] = [owner_reference(RS, r.name)]
        cls = desired["spec"]["gatewayClassName"]
        r.act("create", GW, n, f"Gateway for incremental upgrade (class {cls})", "reconcileGateway",
              payload=desired)
        # reconcileHTTPRoute: Gateway not yet in the informer cache (NotFound is ignored)
        raise Stop(REQUEUE_2S, "waits for the new Gateway to reach the informer cache")
    if not ku.is_gateway_equal(_m(cur.spec), desired["spec"]):
        raw = copy_tree(dict(cur.raw))
        raw["spec"] = copy_tree(desired["spec"])
        r.act("update", GW, n, "the Gateway's class or listeners differ from what the controller builds: "
              "restore them (utils.IsGatewayEqual)", "reconcileGateway", payload=raw,
              fields={"gatewayClassName": desired["spec"]["gatewayClassName"],
                      "listeners": [f"{x['name']}/{x['protocol']}/{x['port']}" for x in desired["spec"]["listeners"]]})


def calculate_traffic_routed_percent(r: Reconciler, pending_ready: bool) -> tuple[int, int]:
    """``calculateTrafficRoutedPercent``: step traffic by stepSizePercent once every
    intervalSeconds, up to the target capacity (towards the active on rollback)."""
    a, p = _m(r.st.get("activeServiceStatus")), _m(r.st.get("pendingServiceStatus"))
    aw = a.get("trafficRoutedPercent")
    aw = 100 if aw is None else aw
    pw = p.get("trafficRoutedPercent") or 0
    opts = upgrade_options(r.d)
    ptc = p.get("targetCapacity") or 0
    atc = a.get("targetCapacity")
    atc = 100 if atc is None else atc
    rollback = is_true(r.st, "RollbackInProgress")
    if (pw == ptc and not rollback) or (rollback and aw == atc):
        return aw, pw
    interval = int(opts.get("intervalSeconds") or 0)
    step = int(opts.get("stepSizePercent") or 0)
    last = a.get("lastTrafficMigratedTime") if rollback else p.get("lastTrafficMigratedTime")
    if last is None or not isinstance(last, int) or r.now - last >= interval:
        if rollback:
            aw = min(100, aw + step, atc)
            pw = 100 - aw
        elif pending_ready:
            pw = min(100, pw + step, ptc)
            aw = 100 - pw
    return aw, pw


def reconcile_http_route(r: Reconciler, pending_ready: bool) -> Obj | None:
    """``reconcileHTTPRoute`` / ``createHTTPRoute``: one rule, backends = the active (and
    pending) per-cluster serve Services with weights; nothing before an active cluster."""
    active = r.get(RC, r.active_name())
    if active is None:
        return None
    pending = r.get(RC, r.pending_name())
    aw, pw = calculate_traffic_routed_percent(r, pending_ready)
    n = route_name(r.name)
    raw = create_http_route(r.d, r.ns, active, pending, aw, pw)
    raw["metadata"]["ownerReferences"] = [owner_reference(RS, r.name)]
    spec = raw["spec"]
    weights = {"active": aw, **({"pending": pw} if pending is not None else {})}
    cur = r.get(ROUTE, n)
    if cur is None:
        r.act("create", ROUTE, n, "HTTPRoute to the per-cluster serve Services", "reconcileHTTPRoute",
              payload=raw, fields={"weights": weights})
    elif not ku.is_http_route_equal(_m(cur.spec), spec):
        r.act("update", ROUTE, n, "the backends, weights, parent or match the controller builds differ from "
              "the HTTPRoute's (utils.IsHTTPRouteEqual): write them", "reconcileHTTPRoute",
              payload={**copy_tree(dict(cur.raw)), "spec": spec}, fields={"weights": weights})
    return r.get(ROUTE, n)


def gateway_ready(gw: Obj) -> bool:
    """``utils.IsGatewayReady`` of a Gateway in the world. No Gateway API implementation
    is modelled: a Gateway with no status conditions at all (one KubeRay created in the
    plan, or a hand-written snapshot) counts as accepted and programmed; one whose status
    has conditions is judged as upstream judges it."""
    return not _m(gw.status).get("conditions") or ku.is_gateway_ready(gw.raw)


def http_route_ready(gw: Obj, route: Obj) -> bool:
    """``utils.IsHTTPRouteReady`` the same way: a route with no ``status.parents`` counts
    as accepted with resolved references."""
    return not _m(route.status).get("parents") or ku.is_http_route_ready(gw.raw, route.raw)


def check_if_need_target_capacity_update(r: Reconciler) -> bool:
    """``checkIfNeedTargetCapacityUpdate``."""
    a, p = _m(r.st.get("activeServiceStatus")), _m(r.st.get("pendingServiceStatus"))
    if not a.get("rayClusterName") or not p.get("rayClusterName"):
        return False
    gw, route = r.w.get(GW, r.ns, gateway_name(r.name)), r.w.get(ROUTE, r.ns, route_name(r.name))
    if gw is None or route is None:
        return False
    if not gateway_ready(gw):
        r.why = r.why or (f"waits for Gateway {gw.name} to be Accepted and Programmed (IsGatewayReady; the "
                          "Gateway API implementation sets them): traffic and target capacity do not move")
        return False
    if not http_route_ready(gw, route):
        r.why = r.why or (f"waits for HTTPRoute {route.name} to be Accepted with ResolvedRefs by Gateway {gw.name} "
                          "(IsHTTPRouteReady): traffic and target capacity do not move")
        return False
    if a.get("targetCapacity") is None or a.get("trafficRoutedPercent") is None:
        return True
    if p.get("targetCapacity") is None or p.get("trafficRoutedPercent") is None:
        return True
    # upstream also reads the pending trafficRoutedPercent, but only to choose between two messages
    atc, ptc = a["targetCapacity"], p["targetCapacity"]
    if is_true(r.st, "RollbackInProgress"):
        return not (atc == 100 and ptc == 0)
    if atc == 0 and ptc == 100:
        return False
    return True


def apply_serve_target_capacity(r: Reconciler, cluster: Obj, goal: int) -> None:
    """``applyServeTargetCapacity``: PUT the cached config (else the spec's) with the new
    target_capacity, unless that config's own top-level ``target_capacity`` is a float that
    already equals the goal (``spec.serve_config_target_capacity``: only a non-integral
    number is a float there): then it returns early, without the status update. The cache
    only ever holds the user's ``serveConfigV2``, so the early return fires only when the
    user's config sets a fractional ``target_capacity`` (and then the upgrade stops there)."""
    sa = r.get(SA, cluster.name)
    config = str((sa.spec.get("serveConfigV2") if sa else None) or r.d.spec.get("serveConfigV2") or "")
    if serve_config_target_capacity(config) == goal:
        r.why = r.why or (f"serveConfigV2 sets a target_capacity that truncates to {goal}, the goal for RayCluster "
                          f"{cluster.name}: applyServeTargetCapacity returns early and the status's target "
                          "capacity stays where it is")
        return
    apps = dict(_m(sa.status.get("applications"))) if sa else {}
    r.act("update", SA, cluster.name, f"set Serve target_capacity to {goal}%", "applyServeTargetCapacity",
          payload=sa_object(r.ns, cluster.name, config, goal, apps), fields={"targetCapacity": goal},
          role=r.role_of(cluster.name))
    which = "activeServiceStatus" if cluster.name == r.active_name() else "pendingServiceStatus"
    r.sub(which)["targetCapacity"] = goal


def reconcile_serve_target_capacity(r: Reconciler, cluster: Obj) -> None:
    """``reconcileServeTargetCapacity``: move target_capacity by maxSurgePercent, pending
    up while the total is 100, active down while it exceeds 100 (reverse on rollback)."""
    a, p = r.sub("activeServiceStatus"), r.sub("pendingServiceStatus")
    if a.get("targetCapacity") is None:
        a["targetCapacity"] = 100
    if p.get("targetCapacity") is None:
        p["targetCapacity"] = 0
    atc, ptc = a["targetCapacity"], p["targetCapacity"]
    ptr = p.get("trafficRoutedPercent") or 0
    surge = upgrade_options(r.d).get("maxSurgePercent", 100)
    goal = None
    if is_true(r.st, "RollbackInProgress"):
        if atc != (a.get("trafficRoutedPercent") or 0):
            return
        if atc + ptc > 100:
            if cluster.name == p.get("rayClusterName"):
                goal = max(0, ptc - surge)
        elif cluster.name == a.get("rayClusterName"):
            goal = min(100, atc + surge)
    else:
        if ptc != ptr:
            return
        if cluster.name == a.get("rayClusterName") and atc + ptc > 100:
            goal = max(0, atc - surge)
        elif cluster.name == p.get("rayClusterName") and atc + ptc <= 100:
            goal = min(100, ptc + surge)
    if goal is None:
        return
    apply_serve_target_capacity(r, cluster, goal)


def reconcile_per_cluster_serve_service(r: Reconciler, cluster: Obj | None) -> None:
    """``reconcilePerClusterServeService``: ``<cluster>-serve-svc`` owned by the cluster, create-only."""
    if cluster is None:
        return
    try:
        raw = ksvc.build_serve_service(r.rs_view(), cluster.raw, r.config)
    except ksvc.ServeServiceError:
        raise Stop(REQUEUE_BACKOFF, "cannot build the serve Service (no serve port)")
    n = raw["metadata"]["name"]
    if r.get(SVC, n) is not None:
        return
    r.act("create", SVC, n, "per-cluster serve Service for incremental upgrade (owned by the RayCluster)",
          "reconcilePerClusterServeService", payload=raw, role=r.role_of(cluster.name))


def should_complete_incremental_rollback(a: Mapping[str, Any], p: Mapping[str, Any], pending: Obj | None) -> bool:
    """``shouldCompleteIncrementalRollback``."""
    healthy = pending is not None and head_phase(pending) == HEAD_READY
    return a.get("targetCapacity") == 100 and a.get("trafficRoutedPercent") == 100 and (
        not healthy or (p.get("targetCapacity") == 0 and p.get("trafficRoutedPercent") == 0))


def reconcile_rollback_state(r: Reconciler, active: Obj, pending: Obj) -> None:
    """``reconcileRollbackState`` (incremental only)."""
    rollback = is_true(r.st, "RollbackInProgress")
    if is_cluster_spec_hash_equal(r.d, active, False):
        if not rollback:
            set_condition(r.st, "RollbackInProgress", "True", "DesiredClusterSpecChanged",
                          "Goal state reverted to original cluster, rolling back.", r.now)
        return
    if is_cluster_spec_hash_equal(r.d, pending, False):
        if rollback:
            remove_condition(r.st, "RollbackInProgress")
        return
    if not rollback:
        set_condition(r.st, "RollbackInProgress", "True", "DesiredClusterSpecChanged",
                      "Goal state changed mid-upgrade, rolling back to original cluster.", r.now)


def weights_from_http_route(route: Obj | None, active: Any, pending: Any) -> tuple[int, int]:
    """``utils.GetWeightsFromHTTPRoute``: -1 when the route or backend is absent."""
    return ku.get_weights_from_http_route(None if route is None else _m(route.spec), active or None, pending or None)
