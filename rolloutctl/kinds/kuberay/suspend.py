"""The RayService suspend state machine.

Upstream: ``ray-operator/controllers/ray/rayservice_controller.go`` of ray-project/kuberay
@ feeaf72f ``suspendIsOperative``, ``handleSuspend`` (Case 1: Suspended, resume on
``spec.suspend: false``; Case 2: the commit point, status only; Case 3: teardown until
every owned object is gone) and ``deleteRayServiceOwnedResources``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .api import GW, RC, ROUTE, SVC, gateway_name, route_name
from .conditions import is_true, remove_condition, set_condition
from .reconciler import Reconciler
from .spec import incremental


def suspend_is_operative(st: Mapping[str, Any]) -> bool:
    """``suspendIsOperative``: Suspending or Suspended is True."""
    return is_true(st, "Suspending") or is_true(st, "Suspended")


def handle_suspend(r: Reconciler) -> None:
    """``handleSuspend``: Case 1 (Suspended), Case 2 (commit point), Case 3 (teardown)."""
    st, now = r.st, r.now
    suspend = r.d.spec.get("suspend") is True
    if is_true(st, "Suspended"):
        if not suspend:
            st["observedGeneration"] = r.gen
            set_condition(st, "Suspended", "False", "RayServiceResumed", "Spec.Suspend is false; RayService has resumed.", now)
            msg = "RayService is initializing after resuming from suspend."
            remove_condition(st, "Ready")
            set_condition(st, "Ready", "False", "Initializing", msg, now)
            remove_condition(st, "UpgradeInProgress")
            set_condition(st, "UpgradeInProgress", "False", "Initializing", msg, now)
        return
    if not is_true(st, "Suspending"):
        if not suspend:
            return
        st["observedGeneration"] = r.gen
        set_condition(st, "Suspending", "True", "SuspendRequested",
                      "Spec.Suspend is true; will delete all Kubernetes resources owned by this RayService.", now)
        set_condition(st, "Ready", "False", "SuspendInProgress", "RayService is suspending.", now)
        set_condition(st, "UpgradeInProgress", "False", "SuspendInProgress", "No upgrade in progress.", now)
        set_condition(st, "RollbackInProgress", "False", "SuspendInProgress", "No rollback in progress.", now)
        st["activeServiceStatus"] = {}
        st["pendingServiceStatus"] = {}
        st["numServeEndpoints"] = 0
        st["serviceStatus"] = ""
        return
    if not delete_ray_service_owned_resources(r):
        set_condition(st, "Suspending", "True", "SuspendInProgress",
                      "Waiting for all Kubernetes resources owned by this RayService to be deleted.", now)
        return
    msg = "All owned resources have been deleted."
    set_condition(st, "Suspending", "False", "SuspendComplete", msg, now)
    set_condition(st, "Suspended", "True", "SuspendComplete", msg, now)
    set_condition(st, "Ready", "False", "SuspendComplete", "RayService is suspended.", now)
    set_condition(st, "UpgradeInProgress", "False", "SuspendComplete", "No upgrade in progress.", now)
    set_condition(st, "RollbackInProgress", "False", "SuspendComplete", "No rollback in progress.", now)


def delete_ray_service_owned_resources(r: Reconciler) -> bool:
    """``deleteRayServiceOwnedResources``: every associated RayCluster, every associated
    Service, and (incremental mode of the current spec) the Gateway and HTTPRoute.
    Objects already terminating count as remaining."""
    all_deleted = True
    for kind in (RC, SVC):
        for o in r.assoc(kind):
            all_deleted = False
            if o.terminating:
                continue
            r.act("delete", kind, o.name, "suspend: delete every object owned by the RayService",
                  "deleteRayServiceOwnedResources", role=r.role_of_world(o.name) if kind == RC else None)
    if incremental(r.d, r.config):
        for kind, n in ((GW, gateway_name(r.name)), (ROUTE, route_name(r.name))):
            o = r.w.get(kind, r.ns, n)
            if o is not None:
                all_deleted = False
                if not o.terminating:
                    r.act("delete", kind, n, "suspend (incremental upgrade): delete the Gateway and HTTPRoute",
                          "deleteRayServiceOwnedResources")
    return all_deleted
