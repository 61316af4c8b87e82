"""Helpers of KubeRay's ``utils`` and ``common`` packages that decide "update or not"
for the objects the RayService controller owns, in our words.

Upstream (ray-project/kuberay @ feeaf72f):
``ray-operator/controllers/ray/utils/util.go`` ``IsGatewayEqual``, ``IsHTTPRouteEqual``,
``IsGatewayReady``, ``IsHTTPRouteReady``, ``GetWeightsFromHTTPRoute``,
``ManagedByExternalController``, ``GetGcsFaultToleranceBackend``, ``IsGCSFaultToleranceEmbedded``,
``FindContainerPort``;
``ray-operator/controllers/ray/common/service.go`` ``GetServePort``;
``ray-operator/controllers/ray/utils/constant.go`` (port names and defaults).

Objects are plain mappings as read from YAML/JSON (``spec`` of a Gateway or HTTPRoute).
Each helper compares exactly the fields its upstream namesake compares, so that fields
the API server or a Gateway implementation fills in (listener ``allowedRoutes``, backend
``group``/``kind``, parent ``sectionName``...) never cause a rewrite.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: ``utils.KubeRayController``
KUBERAY_CONTROLLER = "ray.io/kuberay-operator"
#: ``utils.DefaultServingPort`` / ``utils.ServingPortName``
DEFAULT_SERVING_PORT = 8000
SERVING_PORT_NAME = "serve"
#: ``utils.GatewayListenerPortName`` / ``utils.DefaultGatewayListenerPort``
GATEWAY_LISTENER_PORT_NAME = "http"
DEFAULT_GATEWAY_LISTENER_PORT = 80


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, dict) or isinstance(v, Mapping) else {}  # dict first: the common case, cheaper


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def get_gcs_fault_tolerance_backend(options: Any) -> str:
    """``GetGcsFaultToleranceBackend``: ``gcsFaultToleranceOptions.backend``, ``redis``
    when there are no options or no backend."""
    backend = options.get("backend") if isinstance(options, Mapping) else None
    return str(backend) if backend else "redis"


def is_gcs_fault_tolerance_embedded(options: Any) -> bool:
    """``IsGCSFaultToleranceEmbedded``: GCS fault tolerance options with the embedded
    ``rocksdb`` backend."""
    return isinstance(options, Mapping) and get_gcs_fault_tolerance_backend(options) == "rocksdb"


def managed_by_external_controller(managed_by: Any) -> str | None:
    """``utils.ManagedByExternalController``: the manager when ``spec.managedBy`` is set to
    anything but ``ray.io/kuberay-operator``; None when it is absent or null (the API
    server prunes a null, so the field is simply unset) or names KubeRay."""
    if managed_by is not None and managed_by != KUBERAY_CONTROLLER:
        return str(managed_by)
    return None


def find_container_port(container: Any, name: str, default: int) -> int:
    """``utils.FindContainerPort``: the ``containerPort`` of the container's port named
    ``name`` (the first), else ``default``."""
    for p in _l(_m(container).get("ports")):
        if _m(p).get("name") == name:
            v = _m(p).get("containerPort")  # (required by the schema)
            return int(v) if isinstance(v, int) and not isinstance(v, bool) else 0
    return default


def get_serve_port(cluster_spec: Mapping[str, Any]) -> int:
    """``common.GetServePort``: the head container's port named ``serve``, else 8000."""
    containers = _l(_m(_m(_m(cluster_spec.get("headGroupSpec")).get("template")).get("spec")).get("containers"))
    if not containers:
        return DEFAULT_SERVING_PORT
    return find_container_port(containers[0], SERVING_PORT_NAME, DEFAULT_SERVING_PORT)


def is_gateway_equal(existing: Mapping[str, Any] | None, desired: Mapping[str, Any] | None) -> bool:
    """``utils.IsGatewayEqual``: the same ``gatewayClassName`` and, listener by listener in
    order, the same ``name``, ``protocol`` and ``port`` (arguments are Gateway specs)."""
    if existing is None or desired is None:
        return existing is None and desired is None  # upstream: existing == desired, one of them nil
    if str(existing.get("gatewayClassName") or "") != str(desired.get("gatewayClassName") or ""):
        return False
    el, dl = _l(existing.get("listeners")), _l(desired.get("listeners"))
    if len(el) != len(dl):
        return False
    for e, d in zip(el, dl):
        e, d = _m(e), _m(d)
        if (str(e.get("name") or ""), e.get("protocol"), e.get("port")) != \
                (str(d.get("name") or ""), d.get("protocol"), d.get("port")):
            return False
    return True


def _same_list(a: Any, b: Any) -> bool:
    """Length first (nil and empty are the same), then deep equality when non-empty."""
    a, b = _l(a), _l(b)
    return len(a) == len(b) and (not a or a == b)


def is_http_route_equal(existing: Mapping[str, Any] | None, desired: Mapping[str, Any] | None) -> bool:
    """``utils.IsHTTPRouteEqual`` (arguments are HTTPRoute specs): hostnames; parentRefs by
    ``name`` and ``namespace``; rules by ``matches`` (deep), ``filters`` and, backend by
    backend, ``name``, ``namespace``, ``weight`` (unset = 1) and ``port`` (unset = 0).
    Nothing else (backend ``group``/``kind``, parent ``sectionName``, timeouts)."""
    if existing is None or desired is None:
        return existing is None and desired is None  # upstream: existing == desired, one of them nil
    if not _same_list(existing.get("hostnames"), desired.get("hostnames")):
        return False
    ep, dp = _l(existing.get("parentRefs")), _l(desired.get("parentRefs"))
    if len(ep) != len(dp):
        return False
    for e, d in zip(ep, dp):
        e, d = _m(e), _m(d)
        if (str(e.get("name") or ""), str(e.get("namespace") or "")) != (str(d.get("name") or ""),
                                                                          str(d.get("namespace") or "")):
            return False
    er, dr = _l(existing.get("rules")), _l(desired.get("rules"))
    if len(er) != len(dr):
        return False
    for e, d in zip(er, dr):
        e, d = _m(e), _m(d)
        if e.get("matches") != d.get("matches"):
            return False
        if not _same_list(e.get("filters"), d.get("filters")):
            return False
        eb, db = _l(e.get("backendRefs")), _l(d.get("backendRefs"))
        if len(eb) != len(db):
            return False
        for x, y in zip(eb, db):
            x, y = _m(x), _m(y)
            if (str(x.get("name") or ""), str(x.get("namespace") or ""), _deref(x.get("weight"), 1),
                    _deref(x.get("port"), 0)) != (str(y.get("name") or ""), str(y.get("namespace") or ""),
                                                  _deref(y.get("weight"), 1), _deref(y.get("port"), 0)):
                return False
    return True


def _condition_true(conditions: Any, t: str) -> bool:
    """``meta.IsStatusConditionTrue`` over a list of conditions."""
    return any(_m(c).get("type") == t and _m(c).get("status") == "True" for c in _l(conditions))


def is_gateway_ready(gateway: Mapping[str, Any] | None) -> bool:
    """``utils.IsGatewayReady``: the Gateway's ``Accepted`` and ``Programmed`` conditions
    are both True (``gateway``: the whole object)."""
    if gateway is None:
        return False
    conditions = _m(gateway.get("status")).get("conditions")
    return _condition_true(conditions, "Accepted") and _condition_true(conditions, "Programmed")


def is_http_route_ready(gateway: Mapping[str, Any], route: Mapping[str, Any] | None) -> bool:
    """``utils.IsHTTPRouteReady``: some ``status.parents`` entry for this Gateway (same
    name; same namespace when the parent names one) has ``Accepted`` and ``ResolvedRefs``
    True (both arguments: whole objects)."""
    if route is None:
        return False
    md = _m(gateway.get("metadata"))
    for parent in _l(_m(route.get("status")).get("parents")):
        ref = _m(_m(parent).get("parentRef"))
        if ref.get("name") != md.get("name"):
            continue
        if ref.get("namespace") is not None and ref.get("namespace") != md.get("namespace"):
            continue
        conditions = _m(parent).get("conditions")
        if _condition_true(conditions, "Accepted") and _condition_true(conditions, "ResolvedRefs"):
            return True
    return False


def _deref(v: Any, default: int) -> Any:
    return default if v is None else v


def get_weights_from_http_route(route_spec: Mapping[str, Any] | None, active: str | None,
                                pending: str | None) -> tuple[int, int]:
    """``utils.GetWeightsFromHTTPRoute``: the weights of the first rule's backends whose
    name contains the active / pending cluster name; -1 when absent."""
    aw = pw = -1
    if route_spec is None:
        return aw, pw
    rules = _l(route_spec.get("rules"))
    if not rules or not _l(_m(rules[0]).get("backendRefs")):
        return aw, pw
    for b in _l(_m(rules[0]).get("backendRefs")):
        n = str(_m(b).get("name") or "")
        w = _m(b).get("weight")
        w = 0 if w is None else int(w)
        if active and active in n:
            aw = w
        if pending and pending in n:
            pw = w
    return aw, pw
