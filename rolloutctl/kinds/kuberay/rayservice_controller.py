"""The RayService controller's ``Reconcile``, one pass at a time.

Upstream: ``ray-operator/controllers/ray/rayservice_controller.go`` of ray-project/kuberay
@ feeaf72f ``Reconcile`` and, in upstream order, ``reconcileRayCluster``,
``cleanUpRayClusterInstance``, ``checkIfNeedSubmitServeApplications``,
``updateServeDeployment``, ``getServeConfigFromCache``, ``reconcileServices``,
``reconcileServe`` and ``updateHeadPodServeLabel``; what the controller watches
(``SetupWithManager``) is ``CONTROLLER``, as data. The suspend state machine is in
``suspend.py``, the incremental-upgrade steps in ``incremental_upgrade.py``, the status
in ``status.py``, what the controller creates in ``builders.py`` and the cluster
decisions (``shouldUpdateCluster``, ``shouldPrepareNewCluster``) in ``decisions.py``.

Modelling decisions (also in docs/kuberay.md):

- Time: a pass is followed by the next one after the 2 s requeue
  (``ServiceDefaultRequeueDuration``); deletion delays, traffic intervals and the
  initializing timeout are exact on that grid.
- The head Pod's ``ray.io/serve`` label update is not shown as an action; its value, which
  decides whether the head is a serve endpoint, is ``pod.head_pod_serve_label``.
- ``InconsistentRayServiceStatuses`` compares the incremental-upgrade pointers by address
  upstream (so it writes status on every incremental pass); the model compares values.
- The serve-config cache is world state (the ``ServeApplications`` objects), and so are
  the deletion timers (world memory), as upstream keeps both in the reconciler.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from ...core.model import Obj
from ...core.queue import Controller, Watch, by_controller_owner
from ...core.trees import copy_tree
from . import service as ksvc
from .api import (FINALIZER, GW, HEAD_READY, L_CLUSTER, RC, ROUTE, RS, SA, SVC, deletion_timers, display,
                  has_head_pod, head_phase)
from .builders import construct_ray_cluster_for_ray_service, modify_ray_cluster, owner_reference, sa_object
from .conditions import is_true, set_condition
from .decisions import KUBERAY_VERSION_ANNOTATION, cluster_kuberay_version, should_prepare_new_cluster, should_update_cluster
from .incremental_upgrade import (check_if_need_target_capacity_update, reconcile_gateway, reconcile_http_route,
                                  reconcile_per_cluster_serve_service, reconcile_rollback_state,
                                  reconcile_serve_target_capacity)
from .reconciler import REQUEUE_BACKOFF, REQUEUE_NONE, Reconciler, Stop
from .spec import application_names, deletion_delay, incremental, managed_by_external_controller
from .status import calculate_status, is_initializing_timeout
from .suspend import handle_suspend, suspend_is_operative
from .validation import first_error
from .validation.util import decode_serve_config, decoded_serve_config


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, dict) or isinstance(v, Mapping) else {}  # dict first: the common case, cheaper


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def reconcile(r: Reconciler) -> None:
    """``Reconcile``; ``r.result`` says how upstream requeues after this pass."""
    if r.rs is None:
        r.result = REQUEUE_NONE
        return  # getRayServiceInstance: not found
    if managed_by_external_controller(r.d) is not None:
        r.result, r.why = REQUEUE_NONE, "managed by another controller"
        return  # ManagedByExternalController: nothing at all
    try:
        has_clusters_to_clean = clean_up_ray_cluster_instance(r)
        if r.rs.terminating:
            _finalize(r, has_clusters_to_clean)
            if has_clusters_to_clean:
                r.why = "waits for its RayClusters to be deleted"
            else:
                r.result = REQUEUE_NONE
            return
        if FINALIZER not in _l(r.rs.metadata.get("finalizers")):
            raw = copy_tree(dict(r.rs.raw))
            md = dict(raw.get("metadata") or {})
            md["finalizers"] = _l(md.get("finalizers")) + [FINALIZER]
            raw["metadata"] = md
            r.act("update", RS, r.name, f"add finalizer {FINALIZER}; requeue", "Reconcile",
                  payload=raw, fields={"metadata.finalizers": [FINALIZER]})
            return
        err = first_error(r.d, r.config)
        if err:
            set_condition(r.st, "Ready", "False", "ValidationFailed", err, r.now)
            r.write_status("validateRayService", "validation failed: Ready=False/ValidationFailed; no requeue")
            r.result, r.why = REQUEUE_NONE, "validation failed; waits for the spec to change"
            return
        handle_suspend(r)
        r.write_status("handleSuspend", "suspend state machine: status written before any other work")
        if suspend_is_operative(r.st):
            if is_true(r.st, "Suspended") and r.d.spec.get("suspend") is True:
                # handleSuspend: the pass that completes the suspend requeues (2 s); only an
                # already suspended RayService's pass returns without one
                if is_true(r.orig, "Suspended"):
                    r.result, r.why = REQUEUE_NONE, "suspended"
                else:
                    r.why = "suspended: the pass that completes the suspend requeues once more"
            elif is_true(r.st, "Suspending"):
                r.why = "waits for every object the RayService owns to be deleted"
            return
        if is_initializing_timeout(r.st):
            r.why = "failed (InitializingTimeout)"
            if not has_clusters_to_clean:
                r.result = REQUEUE_NONE
            return
        active, pending = reconcile_ray_cluster(r)
        if incremental(r.d, r.config) and is_true(r.st, "UpgradeInProgress") and active is not None and pending is not None:
            reconcile_rollback_state(r, active, pending)
        for c in (active, pending):
            update_head_pod_serve_label(r, c)
        _reconcile_serve_all(r, active, pending)
    except Stop as stop:
        r.result, r.why = stop.result, stop.why
        return


def _reconcile_serve_all(r: Reconciler, active: Obj | None, pending: Obj | None) -> None:
    """The rest of ``Reconcile``: ``reconcileServe`` on the pending, then the active cluster;
    the incremental-upgrade objects; ``reconcileServicesToReadyCluster`` (the head and
    serve Services point at the ready cluster); ``calculateStatus`` and the status write."""
    active_ready = pending_ready = False
    active_apps = pending_apps = None
    if pending is not None:
        pending_ready, pending_apps = reconcile_serve(r, pending)
    rollback = is_true(r.st, "RollbackInProgress")
    if active is not None and pending is None and not should_prepare_new_cluster(r.d, active, None, False, rollback, r.config):
        active_ready, active_apps = reconcile_serve(r, active)
    elif active is not None and pending is not None and incremental(r.d, r.config):
        active_ready, active_apps = reconcile_serve(r, active)
    route = None
    if incremental(r.d, r.config):
        reconcile_per_cluster_serve_service(r, active)
        reconcile_per_cluster_serve_service(r, pending)
        reconcile_gateway(r)
        route = reconcile_http_route(r, pending_ready)
    head_svc = serve_svc = None
    if pending_ready or active_ready:
        target = active
        in_upgrade = incremental(r.d, r.config) and is_true(r.st, "UpgradeInProgress")
        if pending_ready and not in_upgrade:
            target = pending
        assert target is not None
        head_svc = reconcile_services(r, target, "head")
        serve_svc = reconcile_services(r, target, "serve")
    calculate_status(r, head_svc, serve_svc, active, pending, active_apps, pending_apps, route)
    r.write_status("calculateStatus", "status after this pass")


def _finalize(r: Reconciler, has_clusters_to_clean: bool) -> None:
    """``Reconcile`` with a deletionTimestamp: no status write; while RayClusters remain,
    requeue in 2 s; once none is listed, remove ``ray.io/rayservice-finalizer`` (the
    API server then deletes the RayService; its Services, Gateway and HTTPRoute go by
    owner-reference garbage collection)."""
    assert r.rs is not None
    if has_clusters_to_clean or FINALIZER not in _l(r.rs.metadata.get("finalizers")):
        return
    raw = copy_tree(dict(r.rs.raw))
    md = dict(raw.get("metadata") or {})
    md["finalizers"] = [f for f in _l(md.get("finalizers")) if f != FINALIZER]
    raw["metadata"] = md
    r.act("update", RS, r.name, f"no RayCluster left: remove finalizer {FINALIZER}", "Reconcile",
          payload=raw, fields={"metadata.finalizers": "removed " + FINALIZER})


def reconcile_ray_cluster(r: Reconciler) -> tuple[Obj | None, Obj | None]:
    """``reconcileRayCluster``: create the pending cluster named in status, else update
    the active and/or pending cluster in place (``shouldUpdateCluster``)."""
    active = r.get(RC, r.active_name())
    pending = r.get(RC, r.pending_name())
    if r.pending_name() and pending is None:
        raw = construct_ray_cluster_for_ray_service(r.d, r.pending_name(), r.st, r.version,
                                                    r.config)
        suspended = raw["spec"].get("suspend") is True
        fields: dict[str, Any] = {"suspend": suspended}
        if incremental(r.d, r.config) and r.active_name():
            fields["workerReplicas"] = "cleared (starts at minReplicas, autoscales with target_capacity)"
        r.act("create", RC, r.pending_name(),
              "pending cluster named in status does not exist: create it from rayClusterConfig"
              + (" (rayClusterConfig.suspend is true: the cluster is born suspended)" if suspended else ""),
              "createRayClusterInstance", payload=raw, fields=fields, role="pending", revision="new")
        return active, r.get(RC, r.pending_name())
    up = is_true(r.st, "UpgradeInProgress")
    for cluster, is_active in ((active, True), (pending, False)):
        if should_update_cluster(r.d, cluster, is_active, up, r.version):
            assert cluster is not None
            raw = modify_ray_cluster(cluster, construct_ray_cluster_for_ray_service(r.d, cluster.name, r.st,
                                                                                    r.version, r.config))
            version_bump = is_active and cluster_kuberay_version(cluster, r.version) != r.version
            why = (f"RayCluster was created by KubeRay {cluster.annotations.get(KUBERAY_VERSION_ANNOTATION)}, "
                   f"the operator is {r.version}: re-apply the whole spec in place" if version_bump
                   else "only worker groups appended at the end: update in place")
            r.act("update", RC, cluster.name, why, "shouldUpdateCluster", payload=raw,
                  fields={"workerGroups": [g.get("groupName") for g in _l(raw["spec"].get("workerGroupSpecs"))],
                          "suspend": "kept from the live cluster"},
                  role="active" if is_active else "pending", revision="new")
    return r.get(RC, r.active_name()), r.get(RC, r.pending_name())


def clean_up_ray_cluster_instance(r: Reconciler) -> bool:
    """``cleanUpRayClusterInstance``: a RayCluster that is neither active nor pending is
    deleted on the first pass after its deletion time (first sighting + delay); while
    the RayService is being deleted every associated RayCluster is, with no delay.
    Returns whether any cluster is left to clean (terminating ones included: the list
    still shows them)."""
    timers = deletion_timers(r.w)
    active, pending = r.active_name(), r.pending_name()
    deleting = r.rs is not None and r.rs.terminating
    left = False
    for rc in r.assoc(RC):
        if not deleting and rc.name in (active, pending):
            continue
        left = True
        if rc.terminating:
            continue
        if deleting:
            r.act("delete", RC, rc.name, "the RayService is being deleted: delete every RayCluster it owns "
                  "(no deletion delay)", "cleanUpRayClusterInstance", role=r.role_of(rc.name))
            r.objs[(RC, r.ns, rc.name)] = None
            continue
        deadline = timers.get(rc.name)
        if deadline is not None and r.now > deadline:
            r.act("delete", RC, rc.name, f"dangling cluster: deletion time {deadline}s has passed "
                  f"(rayClusterDeletionDelaySeconds={deletion_delay(r.d)})", "cleanUpRayClusterInstance",
                  revision="old")
            r.objs[(RC, r.ns, rc.name)] = None
    return left


def check_if_need_submit_serve_applications(cached: str | None, config: str, apps: Mapping[str, Any]) -> bool:
    """``checkIfNeedSubmitServeApplications``: nothing cached, no application reported, or a
    different config. (Upstream does not cache an empty config and resubmits it every
    pass, and resubmits a config that declares no application every pass, the cluster
    reporting none; the model submits either once, which leaves the world as upstream's
    resubmissions do, and ``diagnose`` names why no cluster becomes ready.)"""
    if cached is None or (cached == "" and config != ""):
        return True
    if not apps and config and not (cached == config and declares_no_application(config)):
        return True
    return cached != config


def declares_no_application(config: str) -> bool:
    """A Serve config that unmarshals (``updateServeDeployment`` submits it) and lists no
    application: the cluster then reports none, whatever is submitted."""
    apps, err = decode_serve_config(config)
    return err is None and not apps


def update_serve_deployment(r: Reconciler, cluster: Obj, config: str) -> None:
    """``updateServeDeployment``: unmarshal the config, PUT it (with ``target_capacity``
    from status in incremental mode) and cache it. A config that does not unmarshal
    (``validation.util.serve_config_unmarshal_error``) is an error before anything is submitted:
    the pass ends there (no status write), on every pass until the spec changes. ``config``
    is the RayService's own ``serveConfigV2``, decoded once per object
    (``decoded_serve_config``)."""
    apps, err = r.d.derived(decoded_serve_config)
    if err is not None:
        raise Stop(REQUEUE_BACKOFF, f"spec.serveConfigV2 does not unmarshal ({err}): updateServeDeployment "
                   f"fails before submitting it to RayCluster {display(cluster.name)}")
    tc = None
    if incremental(r.d, r.config):
        a, p = _m(r.st.get("activeServiceStatus")), _m(r.st.get("pendingServiceStatus"))
        if cluster.name == a.get("rayClusterName") and a.get("targetCapacity") is not None:
            tc = a.get("targetCapacity")
        elif cluster.name == p.get("rayClusterName") and p.get("targetCapacity") is not None:
            tc = p.get("targetCapacity")
    names = application_names(apps)
    payload = sa_object(r.ns, cluster.name, config, tc, {n: {"status": "DEPLOYING"} for n in names})
    fields: dict[str, Any] = {"serveConfigV2": "submitted", "applications": names}
    if tc is not None:
        fields["targetCapacity"] = tc
    r.act("update", SA, cluster.name, "submit serveConfigV2 to the cluster's dashboard (the cached config "
          "differs, is missing, or the cluster reports no application)", "updateServeDeployment",
          payload=payload, fields=fields, role=r.role_of(cluster.name))


def reconcile_services(r: Reconciler, cluster: Obj, which: str) -> Obj:
    """``reconcileServices``: create the Service, or update it only when its
    ``ray.io/cluster`` selector must point at another cluster."""
    rs_raw = r.rs_view()
    try:
        built = (ksvc.build_head_service_for_ray_service(rs_raw, cluster.raw, r.config) if which == "head"
                 else ksvc.build_serve_service(rs_raw, cluster.raw, r.config))
    except ksvc.ServeServiceError:
        # reconcileServices returns the builder's error: no status write
        raise Stop(REQUEUE_BACKOFF, "cannot build the serve Service (no serve port)")
    if which == "serve" and incremental(r.d, r.config):
        built["metadata"]["ownerReferences"] = [owner_reference(RS, r.name)]
    n = built["metadata"]["name"]
    cur = r.get(SVC, n)
    if cur is not None:
        if _m(cur.spec.get("selector")).get(L_CLUSTER) == cluster.name:
            return cur
        raw = copy_tree(dict(cur.raw))
        spec = copy_tree(built["spec"])
        if "clusterIP" in _m(cur.spec):
            spec["clusterIP"] = cur.spec["clusterIP"]
        else:
            spec.pop("clusterIP", None)
        raw["spec"] = spec
        r.act("update", SVC, n, f"the {which} Service selects cluster "
              f"{display(_m(cur.spec.get('selector')).get(L_CLUSTER)) or '(none)'}: rebuild its spec for "
              f"{display(cluster.name)} (ClusterIP kept)", "reconcileServices", payload=raw,
              fields={"selector": {L_CLUSTER: display(cluster.name)}}, role=r.role_of(cluster.name))
    else:
        raw = built
        r.act("create", SVC, n, f"{which} Service of the RayService, pointing at {display(cluster.name)}",
              "reconcileServices", payload=raw, fields={"selector": {L_CLUSTER: display(cluster.name)}},
              role=r.role_of(cluster.name))
    got = r.get(SVC, n)
    assert got is not None
    return got


def reconcile_serve(r: Reconciler, cluster: Obj) -> tuple[bool, dict | None]:
    """``reconcileServe``: read the applications, then (re)submit the config when
    ``checkIfNeedSubmitServeApplications`` says so; incremental target capacity."""
    if head_phase(cluster) != HEAD_READY:
        r.why = r.why or f"waits for the head Pod of RayCluster {display(cluster.name)} to become ready"
        return False, None
    is_active = cluster.name == r.active_name()
    up = incremental(r.d, r.config) and is_true(r.st, "UpgradeInProgress")
    rollback = incremental(r.d, r.config) and is_true(r.st, "RollbackInProgress")
    skip = (is_active and up and not rollback) or (not is_active and rollback)
    sa = r.get(SA, cluster.name)
    apps = {k: dict(_m(v)) for k, v in _m(_m(sa.status if sa else {}).get("applications")).items()}
    ready = bool(apps) and all(a.get("status") == "RUNNING" for a in apps.values())
    if not ready:
        r.why = r.why or (f"waits for the Serve applications of RayCluster {display(cluster.name)} to be "
                          "RUNNING (getAndCheckServeStatus)")
    cached = None if sa is None else str(sa.spec.get("serveConfigV2") or "")
    config = str(r.d.spec.get("serveConfigV2") or "")
    if check_if_need_submit_serve_applications(cached, config, apps) and not skip:
        update_serve_deployment(r, cluster, config)
    if up:
        if check_if_need_target_capacity_update(r):
            reconcile_serve_target_capacity(r, cluster)
    return ready, apps


def update_head_pod_serve_label(r: Reconciler, cluster: Obj | None) -> None:
    """``updateHeadPodServeLabel``: a tracked cluster without a head Pod ends the pass
    with the error "found 0 head" (no status is written)."""
    if cluster is None:
        return
    if not has_head_pod(cluster):
        raise Stop(REQUEUE_BACKOFF, f"no head Pod of RayCluster {display(cluster.name)} yet "
                   "(updateHeadPodServeLabel: found 0 head)")


# --------------------------------------------------------------------------- watches


def rayservice_event(old: Obj | None, new: Obj | None, world: Any) -> list[str]:
    """``For(&rayv1.RayService{}, builder.WithPredicates(predicate.Or(GenerationChangedPredicate{},
    LabelChangedPredicate{}, AnnotationChangedPredicate{})))``: a created or deleted
    RayService, or an update that changes its generation (its spec), labels or
    annotations, enqueues it; a status-only update does not (the controller sees its own
    status writes on the next requeue)."""
    if old is None or new is None:
        o = new if new is not None else old
        return [o.name] if o is not None else []
    changed = (old.metadata.get("generation") != new.metadata.get("generation")
               or dict(old.labels) != dict(new.labels) or dict(old.annotations) != dict(new.annotations))
    return [new.name] if changed else []


#: ``Owns(...)``: ``handler.EnqueueRequestForOwner(..., &rayv1.RayService{}, handler.OnlyControllerOwner())``:
#: an event on the object enqueues the RayService named by its controller owner
#: reference, before and after the event.
owning_rayservice = by_controller_owner(RS)


_SETUP = "ray-operator/controllers/ray/rayservice_controller.go#SetupWithManager"

#: ``RayServiceReconciler.SetupWithManager``: what the RayService controller watches.
#: Gateways and HTTPRoutes (incremental upgrade) are not watched upstream, and the Serve
#: applications are the Ray dashboard's state, read over HTTP: the controller sees their
#: changes on its next requeue (``ServiceDefaultRequeueDuration``).
CONTROLLER = Controller("rayservice", RS, (
    Watch(RS, rayservice_event, f"{_SETUP}: For(&rayv1.RayService{{}}, WithPredicates(Or(GenerationChangedPredicate, "
          "LabelChangedPredicate, AnnotationChangedPredicate)))"),
    Watch(RC, owning_rayservice, f"{_SETUP}: Owns(&rayv1.RayCluster{{}})"),
    Watch(SVC, owning_rayservice, f"{_SETUP}: Owns(&corev1.Service{{}})"),
), _SETUP)

#: kinds the controller reads that no watch covers, and why
NOT_WATCHED = MappingProxyType({
    GW: "not watched upstream (SetupWithManager has no Owns(&gwv1.Gateway{})): seen on the next requeue",
    ROUTE: "not watched upstream (SetupWithManager has no Owns(&gwv1.HTTPRoute{})): seen on the next requeue",
    SA: "the Ray dashboard's state (the serve-config cache and the applications' status), read over HTTP every pass",
})
