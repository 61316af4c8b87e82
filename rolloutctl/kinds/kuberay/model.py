"""The KubeRay RayService controller, one reconcile pass at a time, and the world it
acts on (the RayCluster controller, pods, Ray Serve, timers).

Upstream: ``ray-operator/controllers/ray/rayservice_controller.go`` of ray-project/kuberay
@ feeaf72f (``Reconcile`` and the functions it calls), the RayCluster controller's
suspend handling in ``raycluster_controller.go`` and the helpers in ``utils/`` and
``common/``. Each step below names the upstream function it models.

Modelling decisions (also in docs/kuberay.md):

- Time: a pass is followed by the next one after the 2 s requeue
  (``ServiceDefaultRequeueDuration``); deletion delays, traffic intervals and the
  initializing timeout are exact on that grid. Pod start-up and Serve deployment are
  assumed to take one requeue per stage.
- Random names: a cluster the controller creates is named ``<rs>-<random>``. Inside the
  world a second generated cluster gets ``<rs>-<random2>`` (and so on) so that keys stay
  distinct; actions and counts render every generated name as ``<rs>-<random>``.
- Ray Serve state of a cluster (the dashboard's applications and the controller's
  serve-config cache) is held in the world as a pseudo-object of kind
  ``ServeApplications`` named after the cluster; submitting a config is an ``update``
  of it. Pods are not objects: the RayCluster's status carries them (``HeadPodReady``
  with the model's reasons ``HeadPodNotFound`` / ``HeadPodPending`` / ``HeadPodNotReady``
  / ``HeadPodRunningAndReady``, ``desiredWorkerReplicas``, ``readyWorkerReplicas``).
  The head Pod's ``ray.io/serve`` label update is not shown.
- Objects created in a pass are visible to later steps of the same pass, except the
  Gateway: ``reconcileHTTPRoute`` reads it from the informer cache and returns quietly
  when it was only just created.
- ``InconsistentRayServiceStatuses`` compares the incremental-upgrade pointers by address
  upstream (so it writes status on every incremental pass); the model compares values.
"""

from __future__ import annotations

import copy
import re
from typing import Any, Iterable, Mapping, Sequence

from ...core.environment import Environment, add, pod_requests
from ...core.kind import Progress
from ...core.model import (STUCK_INSUFFICIENT_CAPACITY, STUCK_NEVER_READY, Action, Change, Finding, Impact, Obj,
                           ObjectRef, Stuck, Warning)
from ...core.world import World
from . import validation as val
from . import service as ksvc
from . import utils as ku
from .operator import DEFAULT_CONFIG, OperatorConfig
from .decisions import (HASH_ANNOTATION, KUBERAY_VERSION_ANNOTATION, MODELLED_KUBERAY_VERSION,
                        NUM_WORKER_GROUPS_ANNOTATION, cluster_kuberay_version, ignored_differences,
                        is_cluster_spec_hash_equal, is_zero_downtime_upgrade_enabled, should_prepare_new_cluster,
                        should_update_cluster, strategy_name)

API = "ray.io/v1"
RS = "RayService"
RC = "RayCluster"
SVC = "Service"
GW = "Gateway"
ROUTE = "HTTPRoute"
GW_API = "gateway.networking.k8s.io/v1"
SA = "ServeApplications"
SA_API = "rolloutctl.dev/v1alpha1"

REQUEUE = 2  # ServiceDefaultRequeueDuration
DEFAULT_DELETION_DELAY = 60  # RayClusterDeletionDelayDuration
FINALIZER = "ray.io/rayservice-finalizer"
L_NAME = "ray.io/originated-from-cr-name"
L_CRD = "ray.io/originated-from-crd"
L_CLUSTER = "ray.io/cluster"
L_SERVE = "ray.io/serve"

MEM_TIMERS = "kuberay/deletionTimers"
MEM_NOTES = "kuberay/notes"

# Model reasons of the RayCluster HeadPodReady condition (pods are not objects).
HEAD_NONE = "HeadPodNotFound"
HEAD_PENDING = "HeadPodPending"
HEAD_STARTING = "HeadPodNotReady"
HEAD_READY = "HeadPodRunningAndReady"

RANDOM = "<random"
_RANDOM_RE = re.compile(r"-<random\d*>")


def rule(fn: str) -> str:
    return f"kuberay:rayservice_controller.go#{fn}"


def rc_rule(fn: str) -> str:
    return f"kuberay:raycluster_controller.go#{fn}"


def display(name: str | None) -> str | None:
    """How a cluster name is shown: generated names end in ``-<random>``."""
    if not name:
        return name
    return _RANDOM_RE.sub("-<random>", name)


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


# --------------------------------------------------------------------------- conditions (meta.SetStatusCondition)


def find_condition(st: Mapping[str, Any], t: str) -> Mapping[str, Any] | None:
    for c in _l(st.get("conditions")):
        if isinstance(c, Mapping) and c.get("type") == t:
            return c
    return None


def is_true(st: Mapping[str, Any], t: str) -> bool:
    c = find_condition(st, t)
    return c is not None and c.get("status") == "True"


def set_condition(st: dict, t: str, status: str, reason: str, message: str, now: int) -> None:
    """``setCondition`` (rayservice_controller.go) over ``meta.SetStatusCondition``: the
    transition time changes only when the status does."""
    conds = [dict(c) for c in _l(st.get("conditions")) if isinstance(c, Mapping)]
    og = st.get("observedGeneration", 0)
    for c in conds:
        if c.get("type") == t:
            if c.get("status") != status:
                c["lastTransitionTime"] = now
            c.update(status=status, reason=reason, message=message, observedGeneration=og)
            break
    else:
        conds.append({"type": t, "status": status, "reason": reason, "message": message,
                      "observedGeneration": og, "lastTransitionTime": now})
    st["conditions"] = conds


def remove_condition(st: dict, t: str) -> None:
    st["conditions"] = [c for c in _l(st.get("conditions")) if _m(c).get("type") != t]


def _project(sub: Mapping[str, Any]) -> tuple:
    apps = _m(sub.get("applicationStatuses"))
    return (sub.get("rayClusterName") or "",
            tuple(sorted((k, _m(v).get("status"), _m(v).get("message")) for k, v in apps.items())),
            sub.get("targetCapacity"), sub.get("trafficRoutedPercent"), sub.get("lastTrafficMigratedTime"))


def inconsistent_ray_service_statuses(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """``utils.InconsistentRayServiceStatuses`` (utils/consistency.go); values, not pointers."""
    if (old.get("serviceStatus") or "") != (new.get("serviceStatus") or ""):
        return True
    if (old.get("numServeEndpoints") or 0) != (new.get("numServeEndpoints") or 0):
        return True
    if _l(old.get("conditions")) != _l(new.get("conditions")):
        return True
    for k in ("activeServiceStatus", "pendingServiceStatus"):
        if _project(_m(old.get(k))) != _project(_m(new.get(k))):
            return True
    return False


# --------------------------------------------------------------------------- cluster helpers


def worker_count(group: Mapping[str, Any]) -> int:
    """Worker pods of a group the RayCluster controller keeps: replicas (or minReplicas
    when unset, as the autoscaler starts) clamped to [min, max], times numOfHosts."""
    if group.get("suspend") is True:
        return 0
    mn = group.get("minReplicas") or 0
    mx = group.get("maxReplicas")
    r = group.get("replicas")
    r = mn if r is None else r
    if isinstance(mx, int):
        r = min(r, mx)
    r = max(r, mn)
    return int(r) * int(group.get("numOfHosts") or 1)


def desired_workers(spec: Mapping[str, Any]) -> int:
    return sum(worker_count(_m(g)) for g in _l(spec.get("workerGroupSpecs")))


def cluster_requests(spec: Mapping[str, Any]) -> dict[str, int]:
    total: dict[str, int] = {}
    add(total, pod_requests(_m(_m(_m(spec.get("headGroupSpec")).get("template")).get("spec"))))
    for g in _l(spec.get("workerGroupSpecs")):
        g = _m(g)
        n = worker_count(g)
        if n:
            req = pod_requests(_m(_m(g.get("template")).get("spec")))
            add(total, {k: v * n for k, v in req.items()})
    return total


def head_phase(rc: Obj) -> str:
    c = find_condition(rc.status, "HeadPodReady")
    if c is None:
        return HEAD_NONE
    if c.get("status") == "True":
        return HEAD_READY
    r = c.get("reason")
    return r if r in (HEAD_NONE, HEAD_PENDING) else HEAD_STARTING


def has_head_pod(rc: Obj) -> bool:
    return head_phase(rc) in (HEAD_STARTING, HEAD_READY)


def is_generated(name: str) -> bool:
    return RANDOM in name


def serve_app_names(config: str) -> list[str]:
    """Application names of a Serve config (``getAndCheckServeStatus`` reports an empty
    name as ``default``)."""
    if not config or not config.strip():
        return []
    try:
        import yaml
        doc = yaml.safe_load(config)
    except Exception:  # noqa: BLE001 - an unparsable config yields no application
        return []
    names = []
    for a in _l(_m(doc).get("applications")):
        n = _m(a).get("name")
        names.append(str(n) if n else "default")
    return sorted(set(names)) if names else []


def deletion_delay(desired: Obj) -> int:
    v = desired.spec.get("rayClusterDeletionDelaySeconds")
    return int(v) if isinstance(v, int) and v >= 0 else DEFAULT_DELETION_DELAY


def managed_by_external_controller(desired: Obj) -> str | None:
    """``utils.ManagedByExternalController`` (utils/util.go) of ``spec.managedBy`` as the API
    server stores it: a null is pruned (unset), so KubeRay reconciles."""
    return ku.managed_by_external_controller(desired.spec.get("managedBy"))


def incremental(desired: Obj, cfg: OperatorConfig = DEFAULT_CONFIG) -> bool:
    """``utils.IsIncrementalUpgradeEnabled`` under the operator's gates."""
    return val.is_incremental_upgrade_enabled(desired.spec, cfg)


def upgrade_options(desired: Obj) -> Mapping[str, Any]:
    return _m(_m(desired.spec.get("upgradeStrategy")).get("clusterUpgradeOptions"))


def head_svc_name(rs: str) -> str:
    """``utils.GenerateHeadServiceName`` for the RayService CRD."""
    return f"{rs}-head-svc"


def serve_svc_name(desired: Obj, cluster: str | None = None, cfg: OperatorConfig = DEFAULT_CONFIG) -> str:
    """``common.RayServiceServeServiceNamespacedName`` / ``BuildServeService``: the custom
    serveService name, else ``<rs>-serve-svc``; in incremental mode ``<cluster>-serve-svc``."""
    if incremental(desired, cfg) and cluster:
        return f"{cluster}-serve-svc"
    custom = _m(_m(desired.spec.get("serveService")).get("metadata")).get("name")
    if custom and not incremental(desired, cfg):
        return str(custom)
    return f"{desired.name}-serve-svc"


def gateway_name(rs: str) -> str:
    return f"{rs}-gateway"


def route_name(rs: str) -> str:
    return f"{rs}-httproute"


def _timers(world: World) -> dict[str, int]:
    return dict(world.memory.get(MEM_TIMERS, ()))


def _with_timers(world: World, timers: Mapping[str, int]) -> World:
    return world.with_memory(**{MEM_TIMERS: tuple(sorted(timers.items()))})


# --------------------------------------------------------------------------- the pass


#: How a pass ends, as controller-runtime requeues it (``ctrl.Result`` / error).
REQUEUE_2S = f"requeue in {REQUEUE} s"
REQUEUE_NONE = "no requeue (the next pass comes with a change to the RayService or an object it owns)"
REQUEUE_BACKOFF = "requeue with controller-runtime's backoff (the pass returns an error)"


class _Stop(Exception):
    """An early return of ``Reconcile`` (error or short-circuit), with how it requeues."""

    def __init__(self, result: str = REQUEUE_2S, why: str = "") -> None:
        super().__init__(why)
        self.result = result
        self.why = why


class _Pass:
    """One call of ``RayServiceReconciler.Reconcile``."""

    def __init__(self, model: "RayServiceModel", desired: Obj, world: World) -> None:
        self.m = model
        self.d = desired
        self.w = world
        self.ns = desired.namespace
        self.name = desired.name
        self.now = world.now
        self.actions: list[Action] = []
        self.rs = world.get(RS, self.ns, self.name)
        self.orig: dict = copy.deepcopy(dict(self.rs.status)) if self.rs else {}
        self.written: dict = copy.deepcopy(self.orig)
        self.st: dict = copy.deepcopy(self.orig)
        self.objs: dict[tuple, Obj | None] = {}  # objects written in this pass
        self.gen = int((self.rs.metadata.get("generation") if self.rs else None) or 1)
        #: how this pass ends (upstream's requeue) and, for an early return, why
        self.result = REQUEUE_2S
        self.why = ""

    # -- reading the world (with this pass's own writes) --------------------------------
    def get(self, kind: str, name: str | None) -> Obj | None:
        if not name:
            return None
        k = (kind, self.ns, name)
        if k in self.objs:
            return self.objs[k]
        return self.w.get(kind, self.ns, name)

    def assoc(self, kind: str) -> list[Obj]:
        """``common.RayServiceRayClustersAssociationOptions``: namespace + the two labels."""
        labels = {L_NAME: self.name, L_CRD: "RayService"}
        seen = {o.name: o for o in self.w.select(kind, labels) if o.namespace == self.ns}
        for (k, ns, n), o in self.objs.items():
            if k == kind and ns == self.ns:
                if o is None:
                    seen.pop(n, None)
                elif all(o.labels.get(a) == b for a, b in labels.items()):
                    seen[n] = o
        return [seen[n] for n in sorted(seen)]

    def act(self, verb: str, kind: str, name: str, reason: str, fn: str, *, payload: Mapping | None = None,
            fields: Mapping | None = None, role: str | None = None, revision: str | None = None,
            rule_str: str | None = None) -> None:
        self.actions.append(Action(verb=verb, kind=kind, name=display(name) or name, namespace=self.ns,
                                   reason=reason, rule=rule_str or rule(fn), role=role, revision=revision,
                                   fields=dict(fields or {}), payload=payload,
                                   uid=name if display(name) != name else None))
        if verb in ("create", "update") and payload is not None:
            self.objs[(kind, self.ns, name)] = Obj(payload)

    def rs_view(self) -> dict:
        """The RayService the controller reads: the desired spec under the live name."""
        return {"metadata": {"name": self.name, "namespace": self.ns}, "spec": dict(self.d.spec)}

    def role_of(self, cluster: str) -> str | None:
        if cluster == self.active_name():
            return "active"
        if cluster == self.pending_name():
            return "pending"
        return None

    def active_name(self) -> str:
        return str(_m(self.st.get("activeServiceStatus")).get("rayClusterName") or "")

    def pending_name(self) -> str:
        return str(_m(self.st.get("pendingServiceStatus")).get("rayClusterName") or "")

    def sub(self, which: str) -> dict:
        s = dict(_m(self.st.get(which)))
        self.st[which] = s
        return s

    # -- status writes -----------------------------------------------------------------
    def write_status(self, fn: str, reason: str) -> None:
        """``updateStatusIfChanged`` / the final ``Status().Update``: only when
        ``InconsistentRayServiceStatuses`` reports a difference."""
        if not inconsistent_ray_service_statuses(self.written, self.st):
            return
        assert self.rs is not None
        raw = dict(self.rs.raw)
        raw["status"] = copy.deepcopy(self.st)
        raw["status"]["lastUpdateTime"] = self.now
        fields = status_fields(self.written, self.st)
        self.actions.append(Action("status", RS, self.name, self.ns, reason, rule(fn), fields=fields, payload=raw))
        self.written = copy.deepcopy(self.st)

    # -- Reconcile ---------------------------------------------------------------------
    def run(self) -> None:
        """``Reconcile``; ``self.result`` says how upstream requeues after this pass."""
        if self.rs is None:
            self.result = REQUEUE_NONE
            return  # getRayServiceInstance: not found
        if managed_by_external_controller(self.d) is not None:
            self.result, self.why = REQUEUE_NONE, "managed by another controller"
            return  # ManagedByExternalController: nothing at all
        try:
            has_clusters_to_clean = self.clean_up_ray_cluster_instance()
            if self.rs.terminating:
                self.finalize(has_clusters_to_clean)
                if has_clusters_to_clean:
                    self.why = "waits for its RayClusters to be deleted"
                else:
                    self.result = REQUEUE_NONE
                return
            if FINALIZER not in _l(self.rs.metadata.get("finalizers")):
                raw = copy.deepcopy(dict(self.rs.raw))
                md = dict(raw.get("metadata") or {})
                md["finalizers"] = _l(md.get("finalizers")) + [FINALIZER]
                raw["metadata"] = md
                self.act("update", RS, self.name, f"add finalizer {FINALIZER}; requeue", "Reconcile",
                         payload=raw, fields={"metadata.finalizers": [FINALIZER]})
                return
            err = val.first_error(self.d, self.m.config)
            if err:
                set_condition(self.st, "Ready", "False", "ValidationFailed", err, self.now)
                self.write_status("validateRayService", "validation failed: Ready=False/ValidationFailed; no requeue")
                self.result, self.why = REQUEUE_NONE, "validation failed; waits for the spec to change"
                return
            self.handle_suspend()
            self.write_status("handleSuspend", "suspend state machine: status written before any other work")
            if suspend_is_operative(self.st):
                if is_true(self.st, "Suspended") and self.d.spec.get("suspend") is True:
                    self.result, self.why = REQUEUE_NONE, "suspended"
                elif is_true(self.st, "Suspending"):
                    self.why = "waits for every object the RayService owns to be deleted"
                return
            if is_initializing_timeout(self.st):
                self.why = "failed (InitializingTimeout)"
                if not has_clusters_to_clean:
                    self.result = REQUEUE_NONE
                return
            active, pending = self.reconcile_ray_cluster()
            if incremental(self.d, self.m.config) and is_true(self.st, "UpgradeInProgress") and active is not None and pending is not None:
                self.reconcile_rollback_state(active, pending)
            for c in (active, pending):
                self.update_head_pod_serve_label(c)
            self.reconcile_serve_all(active, pending)
        except _Stop as stop:
            self.result, self.why = stop.result, stop.why
            return

    def reconcile_serve_all(self, active: Obj | None, pending: Obj | None) -> None:
        active_ready = pending_ready = False
        active_apps = pending_apps = None
        if pending is not None:
            pending_ready, pending_apps = self.reconcile_serve(pending)
        rollback = is_true(self.st, "RollbackInProgress")
        if active is not None and pending is None and not should_prepare_new_cluster(self.d, active, None, False, rollback, self.m.config):
            active_ready, active_apps = self.reconcile_serve(active)
        elif active is not None and pending is not None and incremental(self.d, self.m.config):
            active_ready, active_apps = self.reconcile_serve(active)
        route = None
        if incremental(self.d, self.m.config):
            self.reconcile_per_cluster_serve_service(active)
            self.reconcile_per_cluster_serve_service(pending)
            self.reconcile_gateway()
            route = self.reconcile_http_route(pending_ready)
        head_svc = serve_svc = None
        if pending_ready or active_ready:
            target = active
            in_upgrade = incremental(self.d, self.m.config) and is_true(self.st, "UpgradeInProgress")
            if pending_ready and not in_upgrade:
                target = pending
            assert target is not None
            head_svc = self.reconcile_services(target, "head")
            serve_svc = self.reconcile_services(target, "serve")
        self.calculate_status(head_svc, serve_svc, active, pending, active_apps, pending_apps, route)
        self.write_status("calculateStatus", "status after this pass")

    # -- step 4: dangling clusters -----------------------------------------------------
    def clean_up_ray_cluster_instance(self) -> bool:
        """``cleanUpRayClusterInstance``: a RayCluster that is neither active nor pending is
        deleted on the first pass after its deletion time (first sighting + delay); while
        the RayService is being deleted every associated RayCluster is, with no delay.
        Returns whether any cluster is left to clean (terminating ones included: the list
        still shows them)."""
        timers = _timers(self.w)
        active, pending = self.active_name(), self.pending_name()
        deleting = self.rs is not None and self.rs.terminating
        left = False
        for rc in self.assoc(RC):
            if not deleting and rc.name in (active, pending):
                continue
            left = True
            if rc.terminating:
                continue
            if deleting:
                self.act("delete", RC, rc.name, "the RayService is being deleted: delete every RayCluster it owns "
                         "(no deletion delay)", "cleanUpRayClusterInstance", role=self.role_of(rc.name))
                self.objs[(RC, self.ns, rc.name)] = None
                continue
            deadline = timers.get(rc.name)
            if deadline is not None and self.now > deadline:
                self.act("delete", RC, rc.name, f"dangling cluster: deletion time {deadline}s has passed "
                         f"(rayClusterDeletionDelaySeconds={deletion_delay(self.d)})", "cleanUpRayClusterInstance",
                         revision="old")
                self.objs[(RC, self.ns, rc.name)] = None
        return left

    def finalize(self, has_clusters_to_clean: bool) -> None:
        """``Reconcile`` with a deletionTimestamp: no status write; while RayClusters remain,
        requeue in 2 s; once none is listed, remove ``ray.io/rayservice-finalizer`` (the
        API server then deletes the RayService; its Services, Gateway and HTTPRoute go by
        owner-reference garbage collection)."""
        assert self.rs is not None
        if has_clusters_to_clean or FINALIZER not in _l(self.rs.metadata.get("finalizers")):
            return
        raw = copy.deepcopy(dict(self.rs.raw))
        md = dict(raw.get("metadata") or {})
        md["finalizers"] = [f for f in _l(md.get("finalizers")) if f != FINALIZER]
        raw["metadata"] = md
        self.act("update", RS, self.name, f"no RayCluster left: remove finalizer {FINALIZER}", "Reconcile",
                 payload=raw, fields={"metadata.finalizers": "removed " + FINALIZER})

    # -- step 8: suspend ---------------------------------------------------------------
    def handle_suspend(self) -> None:
        """``handleSuspend``: Case 1 (Suspended), Case 2 (commit point), Case 3 (teardown)."""
        st, now = self.st, self.now
        suspend = self.d.spec.get("suspend") is True
        if is_true(st, "Suspended"):
            if not suspend:
                st["observedGeneration"] = self.gen
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
            st["observedGeneration"] = self.gen
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
        if not self.delete_ray_service_owned_resources():
            set_condition(st, "Suspending", "True", "SuspendInProgress",
                          "Waiting for all Kubernetes resources owned by this RayService to be deleted.", now)
            return
        msg = "All owned resources have been deleted."
        set_condition(st, "Suspending", "False", "SuspendComplete", msg, now)
        set_condition(st, "Suspended", "True", "SuspendComplete", msg, now)
        set_condition(st, "Ready", "False", "SuspendComplete", "RayService is suspended.", now)
        set_condition(st, "UpgradeInProgress", "False", "SuspendComplete", "No upgrade in progress.", now)
        set_condition(st, "RollbackInProgress", "False", "SuspendComplete", "No rollback in progress.", now)

    def delete_ray_service_owned_resources(self) -> bool:
        """``deleteRayServiceOwnedResources``: every associated RayCluster, every associated
        Service, and (incremental mode of the current spec) the Gateway and HTTPRoute.
        Objects already terminating count as remaining."""
        all_deleted = True
        for kind in (RC, SVC):
            for o in self.assoc(kind):
                all_deleted = False
                if o.terminating:
                    continue
                self.act("delete", kind, o.name, "suspend: delete every object owned by the RayService",
                         "deleteRayServiceOwnedResources", role=self.role_of_world(o.name) if kind == RC else None)
        if incremental(self.d, self.m.config):
            for kind, n in ((GW, gateway_name(self.name)), (ROUTE, route_name(self.name))):
                o = self.w.get(kind, self.ns, n)
                if o is not None:
                    all_deleted = False
                    if not o.terminating:
                        self.act("delete", kind, n, "suspend (incremental upgrade): delete the Gateway and HTTPRoute",
                                 "deleteRayServiceOwnedResources")
        return all_deleted

    def role_of_world(self, cluster: str) -> str | None:
        if self.rs is None:
            return None
        o = _m(self.rs.status)
        if cluster == _m(o.get("activeServiceStatus")).get("rayClusterName"):
            return "active"
        if cluster == _m(o.get("pendingServiceStatus")).get("rayClusterName"):
            return "pending"
        return None

    # -- step 10: clusters -------------------------------------------------------------
    def reconcile_ray_cluster(self) -> tuple[Obj | None, Obj | None]:
        """``reconcileRayCluster``: create the pending cluster named in status, else update
        the active and/or pending cluster in place (``shouldUpdateCluster``)."""
        active = self.get(RC, self.active_name())
        pending = self.get(RC, self.pending_name())
        if self.pending_name() and pending is None:
            raw = construct_ray_cluster_for_ray_service(self.d, self.pending_name(), self.st, self.m.version,
                                                        self.m.config)
            suspended = raw["spec"].get("suspend") is True
            fields: dict[str, Any] = {"suspend": suspended}
            if incremental(self.d, self.m.config) and self.active_name():
                fields["workerReplicas"] = "cleared (starts at minReplicas, autoscales with target_capacity)"
            self.act("create", RC, self.pending_name(),
                     "pending cluster named in status does not exist: create it from rayClusterConfig"
                     + (" (rayClusterConfig.suspend is true: the cluster is born suspended)" if suspended else ""),
                     "createRayClusterInstance", payload=raw, fields=fields, role="pending", revision="new")
            return active, self.get(RC, self.pending_name())
        up = is_true(self.st, "UpgradeInProgress")
        for cluster, is_active in ((active, True), (pending, False)):
            if should_update_cluster(self.d, cluster, is_active, up, self.m.version):
                assert cluster is not None
                raw = modify_ray_cluster(cluster, construct_ray_cluster_for_ray_service(self.d, cluster.name, self.st,
                                                                                        self.m.version, self.m.config))
                version_bump = is_active and cluster_kuberay_version(cluster, self.m.version) != self.m.version
                why = (f"RayCluster was created by KubeRay {cluster.annotations.get(KUBERAY_VERSION_ANNOTATION)}, "
                       f"the operator is {self.m.version}: re-apply the whole spec in place" if version_bump
                       else "only worker groups appended at the end: update in place")
                self.act("update", RC, cluster.name, why, "shouldUpdateCluster", payload=raw,
                         fields={"workerGroups": [g.get("groupName") for g in _l(raw["spec"].get("workerGroupSpecs"))],
                                 "suspend": "kept from the live cluster"},
                         role="active" if is_active else "pending", revision="new")
        return self.get(RC, self.active_name()), self.get(RC, self.pending_name())

    def reconcile_rollback_state(self, active: Obj, pending: Obj) -> None:
        """``reconcileRollbackState`` (incremental only)."""
        rollback = is_true(self.st, "RollbackInProgress")
        if is_cluster_spec_hash_equal(self.d, active, False):
            if not rollback:
                set_condition(self.st, "RollbackInProgress", "True", "DesiredClusterSpecChanged",
                              "Goal state reverted to original cluster, rolling back.", self.now)
            return
        if is_cluster_spec_hash_equal(self.d, pending, False):
            if rollback:
                remove_condition(self.st, "RollbackInProgress")
            return
        if not rollback:
            set_condition(self.st, "RollbackInProgress", "True", "DesiredClusterSpecChanged",
                          "Goal state changed mid-upgrade, rolling back to original cluster.", self.now)

    def update_head_pod_serve_label(self, cluster: Obj | None) -> None:
        """``updateHeadPodServeLabel``: a tracked cluster without a head Pod ends the pass
        with the error "found 0 head" (no status is written)."""
        if cluster is None:
            return
        if not has_head_pod(cluster):
            raise _Stop(REQUEUE_BACKOFF, f"no head Pod of RayCluster {display(cluster.name)} yet "
                        "(updateHeadPodServeLabel: found 0 head)")

    # -- step 13: serve ----------------------------------------------------------------
    def reconcile_serve(self, cluster: Obj) -> tuple[bool, dict | None]:
        """``reconcileServe``: read the applications, then (re)submit the config when
        ``checkIfNeedSubmitServeApplications`` says so; incremental target capacity."""
        if head_phase(cluster) != HEAD_READY:
            self.why = self.why or f"waits for the head Pod of RayCluster {display(cluster.name)} to become ready"
            return False, None
        is_active = cluster.name == self.active_name()
        up = incremental(self.d, self.m.config) and is_true(self.st, "UpgradeInProgress")
        rollback = incremental(self.d, self.m.config) and is_true(self.st, "RollbackInProgress")
        skip = (is_active and up and not rollback) or (not is_active and rollback)
        sa = self.get(SA, cluster.name)
        apps = {k: dict(_m(v)) for k, v in _m(_m(sa.status if sa else {}).get("applications")).items()}
        ready = bool(apps) and all(a.get("status") == "RUNNING" for a in apps.values())
        if not ready:
            self.why = self.why or (f"waits for the Serve applications of RayCluster {display(cluster.name)} to be "
                                    "RUNNING (getAndCheckServeStatus)")
        cached = None if sa is None else str(sa.spec.get("serveConfigV2") or "")
        config = str(self.d.spec.get("serveConfigV2") or "")
        if check_if_need_submit_serve_applications(cached, config, apps) and not skip:
            self.update_serve_deployment(cluster, config)
        if up:
            if self.check_if_need_target_capacity_update():
                self.reconcile_serve_target_capacity(cluster)
        return ready, apps

    def update_serve_deployment(self, cluster: Obj, config: str) -> None:
        """``updateServeDeployment``: PUT the config (with ``target_capacity`` from status in
        incremental mode) and cache it."""
        tc = None
        if incremental(self.d, self.m.config):
            a, p = _m(self.st.get("activeServiceStatus")), _m(self.st.get("pendingServiceStatus"))
            if cluster.name == a.get("rayClusterName") and a.get("targetCapacity") is not None:
                tc = a.get("targetCapacity")
            elif cluster.name == p.get("rayClusterName") and p.get("targetCapacity") is not None:
                tc = p.get("targetCapacity")
        payload = sa_object(self.ns, cluster.name, config, tc,
                            {n: {"status": "DEPLOYING"} for n in serve_app_names(config)})
        fields: dict[str, Any] = {"serveConfigV2": "submitted", "applications": serve_app_names(config)}
        if tc is not None:
            fields["targetCapacity"] = tc
        self.act("update", SA, cluster.name, "submit serveConfigV2 to the cluster's dashboard (the cached config "
                 "differs, is missing, or the cluster reports no application)", "updateServeDeployment",
                 payload=payload, fields=fields, role=self.role_of(cluster.name))

    def check_if_need_target_capacity_update(self) -> bool:
        """``checkIfNeedTargetCapacityUpdate``."""
        a, p = _m(self.st.get("activeServiceStatus")), _m(self.st.get("pendingServiceStatus"))
        if not a.get("rayClusterName") or not p.get("rayClusterName"):
            return False
        if self.w.get(GW, self.ns, gateway_name(self.name)) is None or self.w.get(ROUTE, self.ns, route_name(self.name)) is None:
            return False
        if a.get("targetCapacity") is None or a.get("trafficRoutedPercent") is None:
            return True
        if p.get("targetCapacity") is None or p.get("trafficRoutedPercent") is None:
            return True
        atc, ptc, ptr = a["targetCapacity"], p["targetCapacity"], p["trafficRoutedPercent"]
        if is_true(self.st, "RollbackInProgress"):
            return not (atc == 100 and ptc == 0)
        if atc == 0 and ptc == 100:
            return False
        return True

    def reconcile_serve_target_capacity(self, cluster: Obj) -> None:
        """``reconcileServeTargetCapacity``: move target_capacity by maxSurgePercent, pending
        up while the total is 100, active down while it exceeds 100 (reverse on rollback)."""
        a, p = self.sub("activeServiceStatus"), self.sub("pendingServiceStatus")
        if a.get("targetCapacity") is None:
            a["targetCapacity"] = 100
        if p.get("targetCapacity") is None:
            p["targetCapacity"] = 0
        atc, ptc = a["targetCapacity"], p["targetCapacity"]
        ptr = p.get("trafficRoutedPercent") or 0
        surge = upgrade_options(self.d).get("maxSurgePercent", 100)
        goal = None
        if is_true(self.st, "RollbackInProgress"):
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
        self.apply_serve_target_capacity(cluster, goal)

    def apply_serve_target_capacity(self, cluster: Obj, goal: int) -> None:
        """``applyServeTargetCapacity``: PUT the cached config with the new target_capacity."""
        sa = self.get(SA, cluster.name)
        if sa is not None and sa.spec.get("targetCapacity") == goal:
            return
        config = str(sa.spec.get("serveConfigV2") if sa else self.d.spec.get("serveConfigV2") or "")
        apps = dict(_m(sa.status.get("applications"))) if sa else {}
        self.act("update", SA, cluster.name, f"set Serve target_capacity to {goal}%", "applyServeTargetCapacity",
                 payload=sa_object(self.ns, cluster.name, config, goal, apps), fields={"targetCapacity": goal},
                 role=self.role_of(cluster.name))
        which = "activeServiceStatus" if cluster.name == self.active_name() else "pendingServiceStatus"
        self.sub(which)["targetCapacity"] = goal

    # -- step 14: incremental objects --------------------------------------------------
    def reconcile_per_cluster_serve_service(self, cluster: Obj | None) -> None:
        """``reconcilePerClusterServeService``: ``<cluster>-serve-svc`` owned by the cluster, create-only."""
        if cluster is None:
            return
        try:
            raw = ksvc.build_serve_service(self.rs_view(), cluster.raw, self.m.config)
        except ksvc.ServeServiceError:
            raise _Stop(REQUEUE_BACKOFF, "cannot build the serve Service (no serve port)")
        n = raw["metadata"]["name"]
        if self.get(SVC, n) is not None:
            return
        self.act("create", SVC, n, "per-cluster serve Service for incremental upgrade (owned by the RayCluster)",
                 "reconcilePerClusterServeService", payload=raw, role=self.role_of(cluster.name))

    def create_gateway(self) -> dict:
        """``createGateway``: ``<rs>-gateway`` of the options' gatewayClassName with one
        listener ``http``, HTTP, port 80."""
        return create_gateway(self.d, self.ns)

    def reconcile_gateway(self) -> None:
        """``reconcileGateway``: create ``<rs>-gateway``; when it exists, restore its spec
        if ``utils.IsGatewayEqual`` finds the class or a listener's name, protocol or port
        changed (an edit made out of band, or new gatewayClassName). The HTTPRoute step
        that follows reads the Gateway from the cache and returns quietly in the pass
        that created it."""
        n = gateway_name(self.name)
        desired = self.create_gateway()
        cur = self.w.get(GW, self.ns, n)
        if cur is None:
            desired["metadata"]["ownerReferences"] = [_owner(RS, self.name)]
            cls = desired["spec"]["gatewayClassName"]
            self.act("create", GW, n, f"Gateway for incremental upgrade (class {cls})", "reconcileGateway",
                     payload=desired)
            # reconcileHTTPRoute: Gateway not yet in the informer cache (NotFound is ignored)
            raise _Stop(REQUEUE_2S, "waits for the new Gateway to reach the informer cache")
        if not ku.is_gateway_equal(_m(cur.spec), desired["spec"]):
            raw = copy.deepcopy(dict(cur.raw))
            raw["spec"] = copy.deepcopy(desired["spec"])
            self.act("update", GW, n, "the Gateway's class or listeners differ from what the controller builds: "
                     "restore them (utils.IsGatewayEqual)", "reconcileGateway", payload=raw,
                     fields={"gatewayClassName": desired["spec"]["gatewayClassName"],
                             "listeners": [f"{x['name']}/{x['protocol']}/{x['port']}" for x in desired["spec"]["listeners"]]})

    def calculate_traffic_routed_percent(self, pending_ready: bool) -> tuple[int, int]:
        """``calculateTrafficRoutedPercent``: step traffic by stepSizePercent once every
        intervalSeconds, up to the target capacity (towards the active on rollback)."""
        a, p = _m(self.st.get("activeServiceStatus")), _m(self.st.get("pendingServiceStatus"))
        aw = a.get("trafficRoutedPercent")
        aw = 100 if aw is None else aw
        pw = p.get("trafficRoutedPercent") or 0
        opts = upgrade_options(self.d)
        ptc = p.get("targetCapacity") or 0
        atc = a.get("targetCapacity")
        atc = 100 if atc is None else atc
        rollback = is_true(self.st, "RollbackInProgress")
        if (pw == ptc and not rollback) or (rollback and aw == atc):
            return aw, pw
        interval = int(opts.get("intervalSeconds") or 0)
        step = int(opts.get("stepSizePercent") or 0)
        last = a.get("lastTrafficMigratedTime") if rollback else p.get("lastTrafficMigratedTime")
        if last is None or not isinstance(last, int) or self.now - last >= interval:
            if rollback:
                aw = min(100, aw + step, atc)
                pw = 100 - aw
            elif pending_ready:
                pw = min(100, pw + step, ptc)
                aw = 100 - pw
        return aw, pw

    def reconcile_http_route(self, pending_ready: bool) -> Obj | None:
        """``reconcileHTTPRoute`` / ``createHTTPRoute``: one rule, backends = the active (and
        pending) per-cluster serve Services with weights; nothing before an active cluster."""
        active = self.get(RC, self.active_name())
        if active is None:
            return None
        pending = self.get(RC, self.pending_name())
        aw, pw = self.calculate_traffic_routed_percent(pending_ready)
        n = route_name(self.name)
        raw = create_http_route(self.d, self.ns, active, pending, aw, pw)
        raw["metadata"]["ownerReferences"] = [_owner(RS, self.name)]
        spec = raw["spec"]
        weights = {"active": aw, **({"pending": pw} if pending is not None else {})}
        cur = self.get(ROUTE, n)
        if cur is None:
            self.act("create", ROUTE, n, "HTTPRoute to the per-cluster serve Services", "reconcileHTTPRoute",
                     payload=raw, fields={"weights": weights})
        elif not ku.is_http_route_equal(_m(cur.spec), spec):
            self.act("update", ROUTE, n, "the backends, weights, parent or match the controller builds differ from "
                     "the HTTPRoute's (utils.IsHTTPRouteEqual): write them", "reconcileHTTPRoute",
                     payload={**copy.deepcopy(dict(cur.raw)), "spec": spec}, fields={"weights": weights})
        return self.get(ROUTE, n)

    # -- step 15: services -------------------------------------------------------------
    def reconcile_services(self, cluster: Obj, which: str) -> Obj:
        """``reconcileServices``: create the Service, or update it only when its
        ``ray.io/cluster`` selector must point at another cluster."""
        rs_raw = self.rs_view()
        try:
            built = (ksvc.build_head_service_for_ray_service(rs_raw, cluster.raw, self.m.config) if which == "head"
                     else ksvc.build_serve_service(rs_raw, cluster.raw, self.m.config))
        except ksvc.ServeServiceError:
            # reconcileServices returns the builder's error: no status write
            raise _Stop(REQUEUE_BACKOFF, "cannot build the serve Service (no serve port)")
        if which == "serve" and incremental(self.d, self.m.config):
            built["metadata"]["ownerReferences"] = [_owner(RS, self.name)]
        n = built["metadata"]["name"]
        cur = self.get(SVC, n)
        if cur is not None:
            if _m(cur.spec.get("selector")).get(L_CLUSTER) == cluster.name:
                return cur
            raw = copy.deepcopy(dict(cur.raw))
            spec = copy.deepcopy(built["spec"])
            if "clusterIP" in _m(cur.spec):
                spec["clusterIP"] = cur.spec["clusterIP"]
            else:
                spec.pop("clusterIP", None)
            raw["spec"] = spec
            self.act("update", SVC, n, f"the {which} Service selects cluster "
                     f"{display(_m(cur.spec.get('selector')).get(L_CLUSTER)) or '(none)'}: rebuild its spec for "
                     f"{display(cluster.name)} (ClusterIP kept)", "reconcileServices", payload=raw,
                     fields={"selector": {L_CLUSTER: display(cluster.name)}}, role=self.role_of(cluster.name))
        else:
            raw = built
            self.act("create", SVC, n, f"{which} Service of the RayService, pointing at {display(cluster.name)}",
                     "reconcileServices", payload=raw, fields={"selector": {L_CLUSTER: display(cluster.name)}},
                     role=self.role_of(cluster.name))
        got = self.get(SVC, n)
        assert got is not None
        return got

    # -- step 16: status ---------------------------------------------------------------
    def calculate_status(self, head_svc: Obj | None, serve_svc: Obj | None, active: Obj | None, pending: Obj | None,
                         active_apps: dict | None, pending_apps: dict | None, route: Obj | None) -> None:
        """``calculateStatus``: apps, traffic weights, promotion, rollback completion, new
        pending name (``shouldPrepareNewCluster``), endpoints, conditions."""
        st = self.st
        st["observedGeneration"] = self.gen
        a, p = self.sub("activeServiceStatus"), self.sub("pendingServiceStatus")
        for s, apps in ((a, active_apps), (p, pending_apps)):
            if apps:
                s["applicationStatuses"] = apps
            else:
                s.pop("applicationStatuses", None)
        serving = False
        if head_svc is not None and serve_svc is not None:
            if incremental(self.d, self.m.config):
                aw, pw = weights_from_http_route(route, a.get("rayClusterName"), p.get("rayClusterName"))
                if aw >= 0:
                    old = a.get("trafficRoutedPercent")
                    a["trafficRoutedPercent"] = aw
                    if aw != (-1 if old is None else old):
                        a["lastTrafficMigratedTime"] = self.now
                if pw >= 0 and pending is not None:
                    old = p.get("trafficRoutedPercent")
                    p["trafficRoutedPercent"] = pw
                    if pw != (-1 if old is None else old):
                        p["lastTrafficMigratedTime"] = self.now
            serving = self.reconcile_promotion_and_serving_status(head_svc, pending)
        if is_true(st, "RollbackInProgress"):
            if should_complete_incremental_rollback(_m(st.get("activeServiceStatus")),
                                                    _m(st.get("pendingServiceStatus")), pending):
                st["pendingServiceStatus"] = {}
                pending = None
                remove_condition(st, "RollbackInProgress")
                set_condition(st, "UpgradeInProgress", "False", "NoPendingCluster",
                              "Rollback complete, active Ray cluster exists and no pending Ray cluster", self.now)
        if should_prepare_new_cluster(self.d, active, pending, serving, is_true(st, "RollbackInProgress"),
                                      self.m.config):
            newp: dict[str, Any] = {"rayClusterName": self.generate_ray_cluster_name()}
            if incremental(self.d, self.m.config):
                if not _m(st.get("activeServiceStatus")).get("rayClusterName"):
                    if _m(st.get("activeServiceStatus")).get("targetCapacity") is None:
                        newp["targetCapacity"] = 100
                else:
                    newp["targetCapacity"] = 0
            st["pendingServiceStatus"] = newp
        n = self.serve_endpoints(self.serve_endpoint_service(active), )
        if incremental(self.d, self.m.config) and pending is not None:
            n += self.serve_endpoints(f"{pending.name}-serve-svc")
        st["numServeEndpoints"] = n
        calculate_conditions(st, self.d, self.now)
        st["serviceStatus"] = "Running" if is_true(st, "Ready") else ""

    def serve_endpoint_service(self, active: Obj | None) -> str:
        if incremental(self.d, self.m.config) and active is not None:
            return f"{active.name}-serve-svc"
        return serve_svc_name(self.d, None, self.m.config)

    def serve_endpoints(self, svc_name: str) -> int:
        """``calculateNumServeEndpointsFromSlices``: ready Pods behind the serve Service (the
        head when its proxy is up and it is not excluded, and ready workers)."""
        svc = self.get(SVC, svc_name)
        if svc is None:
            return 0
        c = self.get(RC, _m(svc.spec.get("selector")).get(L_CLUSTER))
        if c is None or c.terminating or self.get(SA, c.name) is None:
            return 0
        n = 0
        if head_phase(c) == HEAD_READY and self.d.spec.get("excludeHeadPodFromServeSvc") is not True:
            n += 1
        n += int(c.status.get("readyWorkerReplicas") or 0)
        return n

    def reconcile_promotion_and_serving_status(self, head_svc: Obj, pending: Obj | None) -> bool:
        """``reconcilePromotionAndServingStatus``."""
        st = self.st
        points_to = _m(head_svc.spec.get("selector")).get(L_CLUSTER)
        pname, aname = self.pending_name(), self.active_name()
        promote = False
        if incremental(self.d, self.m.config):
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

    def generate_ray_cluster_name(self) -> str:
        """``utils.GenerateRayClusterName``: ``<rs>-<5 random chars>``; see the module docstring."""
        used = {o.name for o in self.w.of_kind(RC)} | {self.active_name(), self.pending_name()}
        used |= {n for (k, _, n), o in self.objs.items() if k == RC}
        i = 1
        while True:
            n = f"{self.name}-<random{'' if i == 1 else i}>"
            if n not in used:
                return n
            i += 1


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


def suspend_is_operative(st: Mapping[str, Any]) -> bool:
    """``suspendIsOperative``: Suspending or Suspended is True."""
    return is_true(st, "Suspending") or is_true(st, "Suspended")


def is_initializing_timeout(st: Mapping[str, Any]) -> bool:
    """``isInitializingTimeout``: Ready is False with reason InitializingTimeout (terminal)."""
    c = find_condition(st, "Ready")
    return c is not None and c.get("status") == "False" and c.get("reason") == "InitializingTimeout"


def check_if_need_submit_serve_applications(cached: str | None, config: str, apps: Mapping[str, Any]) -> bool:
    """``checkIfNeedSubmitServeApplications``: nothing cached, no application reported, or a
    different config. (Upstream does not cache an empty config and resubmits it every
    pass; the model submits an empty config once.)"""
    if cached is None or (cached == "" and config != ""):
        return True
    if not apps and config:
        return True
    return cached != config


def should_complete_incremental_rollback(a: Mapping[str, Any], p: Mapping[str, Any], pending: Obj | None) -> bool:
    """``shouldCompleteIncrementalRollback``."""
    healthy = pending is not None and head_phase(pending) == HEAD_READY
    return a.get("targetCapacity") == 100 and a.get("trafficRoutedPercent") == 100 and (
        not healthy or (p.get("targetCapacity") == 0 and p.get("trafficRoutedPercent") == 0))


def weights_from_http_route(route: Obj | None, active: Any, pending: Any) -> tuple[int, int]:
    """``utils.GetWeightsFromHTTPRoute``: -1 when the route or backend is absent."""
    return ku.get_weights_from_http_route(None if route is None else _m(route.spec), active or None, pending or None)


def create_gateway(desired: Obj, ns: str) -> dict:
    """``createGateway`` (rayservice_controller.go): ``<rs>-gateway``, the options'
    gatewayClassName, one listener ``http`` / HTTP / 80."""
    cls = upgrade_options(desired).get("gatewayClassName")
    return {"apiVersion": GW_API, "kind": GW, "metadata": {"name": gateway_name(desired.name), "namespace": ns},
            "spec": {"gatewayClassName": cls,
                     "listeners": [{"name": ku.GATEWAY_LISTENER_PORT_NAME, "protocol": "HTTP",
                                    "port": ku.DEFAULT_GATEWAY_LISTENER_PORT}]}}


def create_http_route(desired: Obj, ns: str, active: Obj, pending: Obj | None, aw: int, pw: int) -> dict:
    """``createHTTPRoute`` (rayservice_controller.go): ``<rs>-httproute`` with one parentRef
    (the Gateway, its namespace) and one rule: PathPrefix ``/`` to the active (and
    pending) per-cluster serve Services, in the Gateway's namespace, on each cluster's
    serve port (``common.GetServePort``), weighted."""
    backends = [{"name": ksvc.serve_service_name(active.name), "namespace": ns,
                 "port": ku.get_serve_port(_m(active.spec)), "weight": aw}]
    if pending is not None:
        backends.append({"name": ksvc.serve_service_name(pending.name), "namespace": ns,
                         "port": ku.get_serve_port(_m(pending.spec)), "weight": pw})
    spec = {"parentRefs": [{"name": gateway_name(desired.name), "namespace": ns}],
            "rules": [{"matches": [{"path": {"type": "PathPrefix", "value": "/"}}], "backendRefs": backends}]}
    return {"apiVersion": GW_API, "kind": ROUTE, "metadata": {"name": route_name(desired.name), "namespace": ns},
            "spec": spec}


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
                          "No active Ray cluster exists, and the RayService is not initializing.", now)


def initializing_deadline(st: Mapping[str, Any], desired: Obj) -> int | None:
    """When ``markFailedOnInitializingTimeout`` would fire (model seconds), or None."""
    timeout = val.parse_initializing_timeout(desired.annotations.get(val.INITIALIZING_TIMEOUT_ANNOTATION))
    c = find_condition(st, "Ready")
    if timeout is None or timeout <= 0 or c is None or c.get("status") != "False" or c.get("reason") != "Initializing":
        return None
    ltt = c.get("lastTransitionTime")
    start = ltt if isinstance(ltt, int) else 0
    return start + int(-(-timeout // 1))


def mark_failed_on_initializing_timeout(st: dict, desired: Obj, now: int) -> None:
    """``markFailedOnInitializingTimeout``: clear both cluster names; Ready=False/InitializingTimeout."""
    deadline = initializing_deadline(st, desired)
    if deadline is None or now < deadline:
        return
    a, p = dict(_m(st.get("activeServiceStatus"))), dict(_m(st.get("pendingServiceStatus")))
    a.pop("rayClusterName", None)
    p.pop("rayClusterName", None)
    st["activeServiceStatus"], st["pendingServiceStatus"] = a, p
    timeout = desired.annotations.get(val.INITIALIZING_TIMEOUT_ANNOTATION)
    set_condition(st, "Ready", "False", "InitializingTimeout",
                  f"RayService failed to become ready within the configured timeout of {timeout}.", now)


def construct_ray_cluster_for_ray_service(desired: Obj, name: str, st: Mapping[str, Any], version: str,
                                          cfg: OperatorConfig = DEFAULT_CONFIG) -> dict:
    """``constructRayClusterForRayService``: labels and annotations of the RayService plus
    the association labels, the hash / worker-group count / KubeRay version annotations;
    spec = a copy of ``rayClusterConfig`` (its ``suspend`` included); for an incremental
    upgrade of a running service, worker ``replicas`` cleared."""
    labels = dict(desired.labels)
    labels[L_NAME] = desired.name
    labels[L_CRD] = "RayService"
    ann = dict(desired.annotations)
    ann[HASH_ANNOTATION] = "<hash of rayClusterConfig>"
    ann[NUM_WORKER_GROUPS_ANNOTATION] = str(len(_l(desired.spec.get("rayClusterConfig", {}).get("workerGroupSpecs"))))
    ann[KUBERAY_VERSION_ANNOTATION] = version
    spec = copy.deepcopy(dict(_m(desired.spec.get("rayClusterConfig"))))
    if incremental(desired, cfg) and _m(st.get("activeServiceStatus")).get("rayClusterName"):
        for g in _l(spec.get("workerGroupSpecs")):
            if isinstance(g, dict):
                g.pop("replicas", None)
    return {"apiVersion": API, "kind": RC,
            "metadata": {"name": name, "namespace": desired.namespace, "labels": labels, "annotations": ann,
                         "ownerReferences": [_owner(RS, desired.name)]},
            "spec": spec, "status": {}}


def modify_ray_cluster(current: Obj, goal: Mapping[str, Any]) -> dict:
    """``modifyRayCluster``: spec := goal spec except ``suspend`` (kept from the live
    cluster); labels and annotations := goal. Pod state (status) is the cluster's own."""
    raw = copy.deepcopy(dict(current.raw))
    spec = copy.deepcopy(dict(goal["spec"]))
    if "suspend" in current.spec:
        spec["suspend"] = current.spec.get("suspend")
    else:
        spec.pop("suspend", None)
    raw["spec"] = spec
    md = dict(raw.get("metadata") or {})
    md["labels"] = dict(goal["metadata"]["labels"])
    md["annotations"] = dict(goal["metadata"]["annotations"])
    raw["metadata"] = md
    return raw


def _owner(kind: str, name: str) -> dict:
    return {"apiVersion": API, "kind": kind, "name": name, "controller": True}


def sa_object(ns: str, cluster: str, config: str, tc: Any, apps: Mapping[str, Any]) -> dict:
    return {"apiVersion": SA_API, "kind": SA, "metadata": {"name": cluster, "namespace": ns},
            "spec": {"serveConfigV2": config, "targetCapacity": tc}, "status": {"applications": dict(apps)}}


def status_fields(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    """What a status write changes, compactly (condition = "Status/Reason")."""
    out: dict[str, Any] = {}
    oc = {c.get("type"): c for c in _l(old.get("conditions"))}
    for c in _l(new.get("conditions")):
        o = oc.pop(c.get("type"), None)
        if o is None or (o.get("status"), o.get("reason")) != (c.get("status"), c.get("reason")):
            out.setdefault("conditions", {})[c.get("type")] = f"{c.get('status')}/{c.get('reason')}"
    for t in oc:
        out.setdefault("conditions", {})[t] = "removed"
    for k in ("numServeEndpoints", "serviceStatus", "observedGeneration"):
        if old.get(k) != new.get(k) and (old.get(k) or new.get(k)):
            out[k] = new.get(k)
    for k in ("activeServiceStatus", "pendingServiceStatus"):
        o, n = _m(old.get(k)), _m(new.get(k))
        if (o.get("rayClusterName") or "") != (n.get("rayClusterName") or ""):
            out[f"{k}.rayClusterName"] = display(n.get("rayClusterName")) or ""
        for f in ("targetCapacity", "trafficRoutedPercent"):
            if o.get(f) != n.get(f):
                out[f"{k}.{f}"] = n.get(f)
        oa = {a: _m(v).get("status") for a, v in _m(o.get("applicationStatuses")).items()}
        na = {a: _m(v).get("status") for a, v in _m(n.get("applicationStatuses")).items()}
        if oa != na:
            out[f"{k}.applicationStatuses"] = dict(sorted(na.items()))
    return out


# --------------------------------------------------------------------------- the world between passes


def _outcome_text(p: "_Pass") -> str:
    return f"{p.why}; {p.result}" if p.why else p.result


class _Advance:
    """The RayCluster controller, the scheduler/kubelet, Ray Serve and the garbage
    collector between two RayService passes (one requeue)."""

    def __init__(self, model: "RayServiceModel", desired: Obj, world: World, env: Environment) -> None:
        self.m, self.d, self.w, self.env = model, desired, world, env
        self.put: dict[tuple, Obj] = {}
        self.remove: set[tuple] = set()
        self.waits: list[str] = []

    def obj(self, k: tuple) -> Obj | None:
        if k in self.remove:
            return None
        return self.put.get(k) or self.w.get(*k)

    def run(self) -> Progress:
        self.garbage_collect()
        self.ray_cluster_controller()
        self.serve()
        changed = bool(self.put or self.remove)
        w = self.w.replace(put=self.put.values(), remove=self.remove, now=self.w.now + REQUEUE)
        w = self.schedule_deletion_timers(w)
        then = self.m.take_last_outcome(self.w)
        tail = () if then == REQUEUE_2S and self.waits else (then,)
        if not changed:
            if self.m.reconcile(self.d, w):
                self.m.take_last_outcome(w)
                return Progress(w, tuple(self.waits) + tail, True)
            self.m.take_last_outcome(w)
            nxt = self.next_timed_event(w)
            if nxt is None:
                return Progress(w, tuple(self.waits), False)
            t = self.w.now + REQUEUE
            while t < nxt:
                t += REQUEUE
            w = World({k: w.get(*k) for k in w.keys()}, t, w.memory)
            timer = "a timer (deletion delay, traffic interval or initializing timeout)"
            msg = (f"{then} until {timer} fires: the next pass that acts is at {t}s" if then == REQUEUE_2S
                   else f"{then}; {timer} brings the next pass that acts at {t}s")
            return Progress(w, tuple(self.waits) or (msg,), True)
        return Progress(w, tuple(self.waits) + tail, True)

    def garbage_collect(self) -> None:
        """Deletions finish unless a finalizer holds the object; a RayCluster takes its
        owned serve Service and its Serve state with it (GC)."""
        for o in list(self.w):
            if not o.terminating:
                continue
            if _l(o.metadata.get("finalizers")):
                self.waits.append(f"{o.kind} {display(o.name)} is held by finalizers {o.metadata.get('finalizers')}")
                continue
            self.remove.add((o.kind, o.namespace, o.name))
            if o.kind == RC:
                self.remove.add((SA, o.namespace, o.name))
                for s in self.w.of_kind(SVC):
                    if any(r.get("kind") == RC and r.get("name") == o.name for r in s.owner_references):
                        self.remove.add((SVC, s.namespace, s.name))

    def used(self, exclude: str) -> dict[str, int]:
        total: dict[str, int] = {}
        for rc in self.w.of_kind(RC):
            k = (RC, rc.namespace, rc.name)
            cur = self.obj(k)
            if cur is None or rc.name == exclude:
                continue
            if head_phase(cur) in (HEAD_STARTING, HEAD_READY):
                add(total, cluster_requests(cur.spec))
        return total

    def never_ready(self, name: str) -> bool:
        return is_generated(name) and (self.env.is_never_ready(name) or self.env.is_never_ready(display(name) or name))

    def ray_cluster_controller(self) -> None:
        """``raycluster_controller.go`` ``reconcilePods`` / ``calculateStatus`` with
        RayClusterStatusConditions on: suspend is atomic (Suspending, delete all Pods,
        Suspended); otherwise Pods are created, scheduled (``--capacity``) and become ready
        (``--never-ready``)."""
        for rc in self.w.of_kind(RC):
            if rc.terminating:
                continue
            refused = val.ray_cluster_upgrade_options_error(rc.spec, rc.labels.get(L_CRD) == "RayService")
            if refused:
                self.waits.append(f"the RayCluster controller refuses RayCluster {display(rc.name)} ({refused}; event "
                                  "InvalidRayClusterSpec): no Pod is created")
                continue
            st = copy.deepcopy(dict(rc.status))
            phase = head_phase(rc)
            suspend = rc.spec.get("suspend") is True
            new_phase = phase
            workers = desired_workers(rc.spec)
            if is_true(st, "RayClusterSuspending"):
                new_phase = HEAD_NONE
                set_condition(st, "RayClusterSuspending", "False", "RayClusterSuspending", "", 0)
                set_condition(st, "RayClusterSuspended", "True", "RayClusterSuspended", "", 0)
                set_condition(st, "RayClusterProvisioned", "False", "RayClusterPodsProvisioning",
                              "RayCluster has been suspended", 0)
                st["state"] = "suspended"
            elif suspend and not is_true(st, "RayClusterSuspended"):
                set_condition(st, "RayClusterSuspending", "True", "RayClusterSuspending", "", 0)
                set_condition(st, "RayClusterSuspended", "False", "RayClusterSuspended", "", 0)
            elif is_true(st, "RayClusterSuspended"):
                if not suspend:
                    set_condition(st, "RayClusterSuspended", "False", "RayClusterSuspended", "", 0)
                    st.pop("state", None)
                else:
                    self.waits.append(f"RayCluster {display(rc.name)} is suspended (spec.suspend: true)")
            elif phase in (HEAD_NONE, HEAD_PENDING):
                req = cluster_requests(rc.spec)
                gated = self.m.pod_gate(rc, self.w) if self.m.pod_gate is not None else None
                if gated:
                    new_phase = HEAD_PENDING
                    self.waits.append(f"Pods of RayCluster {display(rc.name)} are held: {gated}")
                elif self.env.fits(self.used(rc.name), req):
                    new_phase = HEAD_STARTING
                else:
                    new_phase = HEAD_PENDING
                    short = self.env.short(self.used(rc.name), req)
                    self.waits.append(f"Pods of RayCluster {display(rc.name)} do not fit ({', '.join(short)})")
            elif phase == HEAD_STARTING:
                if self.never_ready(rc.name):
                    self.waits.append(f"head Pod of RayCluster {display(rc.name)} never becomes ready (--never-ready)")
                else:
                    new_phase = HEAD_READY
            if new_phase in (HEAD_NONE, HEAD_PENDING):
                st["desiredWorkerReplicas"] = workers
                st["readyWorkerReplicas"] = 0
            else:
                st["desiredWorkerReplicas"] = workers
                st["readyWorkerReplicas"] = workers if new_phase == HEAD_READY else 0
            if new_phase == HEAD_READY:
                st["state"] = "ready"
            status = "True" if new_phase == HEAD_READY else "False"
            set_condition(st, "HeadPodReady", status, new_phase, "", 0)
            for c in st["conditions"]:
                c.pop("lastTransitionTime", None)
                c.pop("observedGeneration", None)
            if st != dict(rc.status):
                raw = dict(rc.raw)
                raw["status"] = st
                self.put[(RC, rc.namespace, rc.name)] = Obj(raw, rc.file, rc.line, rc.lines)

    def serve(self) -> None:
        """Ray Serve on each ready cluster: submitted applications become RUNNING."""
        for sa in self.w.of_kind(SA):
            rc = self.obj((RC, sa.namespace, sa.name))
            if rc is None or head_phase(rc) != HEAD_READY:
                continue
            apps = {k: dict(_m(v)) for k, v in _m(sa.status.get("applications")).items()}
            if not apps or all(a.get("status") == "RUNNING" for a in apps.values()):
                continue
            if self.never_ready(sa.name):
                self.waits.append(f"Serve applications on {display(sa.name)} never become RUNNING (--never-ready)")
                continue
            for a in apps.values():
                a["status"] = "RUNNING"
            raw = dict(sa.raw)
            raw["status"] = {"applications": apps}
            self.put[(SA, sa.namespace, sa.name)] = Obj(raw)
            self.waits.append(f"Serve applications on {display(sa.name)} RUNNING")

    def schedule_deletion_timers(self, w: World) -> World:
        """The deletion time ``cleanUpRayClusterInstance`` records when it first sees a
        dangling cluster: the next pass's time plus the delay."""
        rs = w.get(RS, self.d.namespace, self.d.name)
        if rs is None:
            return w
        timers = {k: v for k, v in _timers(w).items() if w.get(RC, self.d.namespace, k) is not None}
        for rc in dangling_clusters(rs, w):
            timers.setdefault(rc.name, w.now + deletion_delay(self.d))
        return _with_timers(w, timers)

    def next_timed_event(self, w: World) -> int | None:
        """The earliest future time at which a pass acts on a timer alone."""
        rs = w.get(RS, self.d.namespace, self.d.name)
        if rs is None or managed_by_external_controller(self.d):
            return None
        cands: list[int] = []
        now = self.w.now
        for name, deadline in _timers(w).items():
            rc = w.get(RC, self.d.namespace, name)
            if rc is not None and not rc.terminating and deadline + 1 > now:
                cands.append(deadline + 1)
        st = rs.status
        dl = initializing_deadline(st, self.d)
        if dl is not None and dl > now:
            cands.append(dl)
        if incremental(self.d, self.m.config) and is_true(st, "UpgradeInProgress"):
            iv = int(upgrade_options(self.d).get("intervalSeconds") or 0)
            key = "activeServiceStatus" if is_true(st, "RollbackInProgress") else "pendingServiceStatus"
            last = _m(st.get(key)).get("lastTrafficMigratedTime")
            if isinstance(last, int) and last + iv > now:
                cands.append(last + iv)
        return min(cands) if cands else None


def dangling_clusters(rs: Obj, w: World) -> list[Obj]:
    st = rs.status
    a = _m(st.get("activeServiceStatus")).get("rayClusterName")
    p = _m(st.get("pendingServiceStatus")).get("rayClusterName")
    return [rc for rc in w.select(RC, {L_NAME: rs.name, L_CRD: "RayService"})
            if rc.namespace == rs.namespace and rc.name not in (a, p) and not rc.terminating]


# --------------------------------------------------------------------------- the model


class RayServiceModel:
    """KindModel for ``ray.io/v1`` RayService (KubeRay)."""

    api_version = API
    kind = RS
    timed = True

    #: Hook for a queueing controller modelled beside KubeRay (kinds/kueue): given a
    #: RayCluster whose Pods would be created and the world, the reason its Pods stay
    #: unschedulable (a scheduling gate not yet removed), or None. Default: no gates.
    pod_gate: Any = None
    #: Hook for the same: how this controller reads the world (e.g. without fields another
    #: controller injected into RayClusters after KubeRay hashed them). Default: as is.
    world_view: Any = None

    def __init__(self, kuberay_version: str | None = None, feature_gates: Sequence[str] = (),
                 kuberay_env: Sequence[str] = (), config: OperatorConfig | None = None, **_: Any) -> None:
        self.config = config or OperatorConfig.from_options(kuberay_version, feature_gates, kuberay_env)
        self.version = self.config.version

    def provenance(self) -> dict[str, Any]:
        """The modelled operator: version, commit, feature gates, operator environment."""
        return self.config.provenance()

    # -- observe -----------------------------------------------------------------------
    def observe(self, desired: Obj | None, observed: Sequence[Obj], env: Environment) -> World:
        """Build the world: nothing (a new RayService), a settled world derived from the
        previously applied manifest, or the live objects as given."""
        observed = list(observed)
        target = desired
        rs_obs = None
        for o in observed:
            if o.kind == RS and (target is None or (o.name == target.name and o.namespace == target.namespace)):
                rs_obs = o
                break
        if target is None:
            target = rs_obs
        assert target is not None
        notes: list[Warning] = []
        if rs_obs is None:
            raw = copy.deepcopy(dict(target.raw))
            md = dict(raw.get("metadata") or {})
            md["generation"] = 1
            md.pop("finalizers", None)
            raw["metadata"] = md
            raw.pop("status", None)
            world = World([Obj(raw, target.file, target.line, target.lines)])
        else:
            # only what the operator made counts as a child: an unrelated Service in the same
            # file (a Redis for GCS fault tolerance) is neither a child nor a sign of a live world
            children = [o for o in observed if o is not rs_obs and o.kind in (RC, SVC, GW, ROUTE)
                        and (o.labels.get(L_CRD) == RS
                             or any(r.get("kind") in (RS, RC) for r in o.owner_references))]
            if not rs_obs.status and not children:
                world = self._settled(rs_obs)
                notes.append(Warning("ObservedFromManifest",
                                     "only the RayService manifest was observed: assuming a settled service with one "
                                     f"ready active RayCluster ({rs_obs.name}-<random>), its Services and Serve "
                                     "applications RUNNING", ""))
            else:
                world = self._live(rs_obs, children, notes)
            world = self._retarget(world, rs_obs, target)
        rs = world.get(RS, target.namespace, target.name)
        timers = {}
        if rs is not None:
            for rc in dangling_clusters(rs, world):
                timers[rc.name] = deletion_delay(target)
        world = _with_timers(World({k: world.get(*k) for k in world.keys()}, 0, world.memory), timers)
        notes.extend(self._observe_warnings(target, world))
        return world.with_memory(**{MEM_NOTES: tuple(notes)})

    def _settled(self, prev: Obj) -> World:
        """Simulate the previous manifest from scratch until it settles."""
        from ...core.simulate import simulate

        raw = copy.deepcopy(dict(prev.raw))
        raw.pop("status", None)
        md = dict(raw.get("metadata") or {})
        md.pop("finalizers", None)
        md["generation"] = int(md.get("generation") or 1)
        raw["metadata"] = md
        base = Obj(raw, prev.file, prev.line, prev.lines)
        world = World([Obj(raw, prev.file, prev.line, prev.lines)])
        env = Environment(max_steps=200)
        box: list[World] = []
        probe = _Recorder(self, box)
        simulate(probe, base, world, env)
        final = box[-1] if box else world
        return World({k: final.get(*k) for k in final.keys()}, 0, {})

    def _live(self, rs: Obj, children: list[Obj], notes: list[Warning]) -> World:
        """Live objects: RayClusters without status are taken as running; each live cluster
        with a ready head gets the RayService's current serveConfigV2 in the serve cache
        (CONTRACT: the operator has been running)."""
        objs = [rs]
        st = rs.status
        config = str(rs.spec.get("serveConfigV2") or "")
        names = {_m(st.get(k)).get("rayClusterName"): k for k in ("activeServiceStatus", "pendingServiceStatus")}
        for o in children:
            if o.namespace != rs.namespace:
                continue
            if o.kind == RC:
                if o.labels.get(L_NAME) != rs.name or o.labels.get(L_CRD) != "RayService":
                    continue
                o = self._live_cluster(o, notes)
                objs.append(o)
                if head_phase(o) == HEAD_READY:
                    sub = _m(st.get(names.get(o.name, ""))) if o.name in names else {}
                    apps = {k: {"status": _m(v).get("status") or "RUNNING"}
                            for k, v in _m(sub.get("applicationStatuses")).items()}
                    if not apps:
                        apps = {n: {"status": "RUNNING"} for n in serve_app_names(config)}
                    objs.append(Obj(sa_object(rs.namespace, o.name, config, sub.get("targetCapacity"), apps)))
            else:
                objs.append(o)
        return World(objs)

    def _live_cluster(self, rc: Obj, notes: list[Warning]) -> Obj:
        raw = copy.deepcopy(dict(rc.raw))
        st = dict(raw.get("status") or {})
        if find_condition(st, "HeadPodReady") is None:
            suspended = rc.spec.get("suspend") is True or str(st.get("state")) == "suspended"
            n = desired_workers(rc.spec)
            conds = [dict(c) for c in _l(st.get("conditions"))]
            if suspended:
                conds.append({"type": "HeadPodReady", "status": "False", "reason": HEAD_NONE})
                if not any(c.get("type") == "RayClusterSuspended" for c in conds):
                    conds.append({"type": "RayClusterSuspended", "status": "True", "reason": "RayClusterSuspended"})
                st.update(desiredWorkerReplicas=n, readyWorkerReplicas=0)
            else:
                conds.append({"type": "HeadPodReady", "status": "True", "reason": HEAD_READY})
                st.setdefault("readyWorkerReplicas", n)
                st.setdefault("desiredWorkerReplicas", n)
            st["conditions"] = conds
            raw["status"] = st
        if KUBERAY_VERSION_ANNOTATION not in rc.annotations:
            notes.append(Warning("KubeRayVersionAssumed", f"RayCluster {rc.name} has no ray.io/kuberay-version "
                                 f"annotation: taken as created by KubeRay {self.version} (no in-place re-apply)",
                                 f"RayCluster/{rc.name}.metadata.annotations"))
        elif rc.annotations.get(KUBERAY_VERSION_ANNOTATION) != self.version:
            notes.append(Warning("KubeRayVersionMismatch", f"RayCluster {rc.name} was created by KubeRay "
                                 f"{rc.annotations.get(KUBERAY_VERSION_ANNOTATION)}; KubeRay {self.version} re-applies "
                                 "the whole rayClusterConfig to the active cluster in place "
                                 "(rayservice_controller.go#shouldUpdateCluster)",
                                 f"RayCluster/{rc.name}.metadata.annotations[{KUBERAY_VERSION_ANNOTATION}]"))
        if HASH_ANNOTATION in rc.annotations:
            notes.append(Warning("SpecComparedWithLiveCluster", f"RayCluster {rc.name}: the upstream hash annotation "
                                 "cannot be recomputed; the model compares the live RayCluster spec with the desired "
                                 "rayClusterConfig instead (same answer unless someone edited the RayCluster)",
                                 f"RayCluster/{rc.name}.metadata.annotations[{HASH_ANNOTATION}]"))
        return Obj(raw, rc.file, rc.line, rc.lines)

    def _retarget(self, world: World, observed_rs: Obj, desired: Obj) -> World:
        """The world's RayService carries the desired spec (what is about to be applied),
        the observed status and metadata; generation bumps when the spec changes."""
        cur = world.get(RS, observed_rs.namespace, observed_rs.name)
        base = cur if cur is not None else observed_rs
        raw = copy.deepcopy(dict(base.raw))
        md = dict(raw.get("metadata") or {})
        gen = int(md.get("generation") or 1)
        if _m(observed_rs.raw.get("spec")) != _m(desired.raw.get("spec")):
            gen += 1
        md["generation"] = gen
        for k in ("labels", "annotations"):
            if k in desired.metadata:
                md[k] = copy.deepcopy(desired.metadata[k])
        raw["metadata"] = md
        raw["spec"] = copy.deepcopy(dict(desired.spec))
        return world.replace(put=[Obj(raw, desired.file, desired.line, desired.lines)])

    def with_notes(self, desired: Obj, world: World) -> World:
        """``world`` with the observation warnings of ``desired`` (for a world built elsewhere)."""
        keep = tuple(w for w in world.memory.get(MEM_NOTES, ()) if w.code in _LIVE_NOTES)
        return world.with_memory(**{MEM_NOTES: keep + tuple(self._observe_warnings(desired, world))})

    def _observe_warnings(self, desired: Obj, world: World) -> list[Warning]:
        out: list[Warning] = []
        rs = world.get(RS, desired.namespace, desired.name)
        if managed_by_external_controller(desired) is not None:
            out.append(Warning("ManagedByExternalController",
                               f"spec.managedBy is {desired.spec.get('managedBy')!r}: this KubeRay operator ignores the "
                               "RayService entirely (rayservice_controller.go#Reconcile, utils.ManagedByExternalController)",
                               "spec.managedBy"))
            return out
        if rs is None:
            return out
        if desired.spec.get("suspend") is True and not incremental(desired, self.config) and (
                world.get(GW, desired.namespace, gateway_name(desired.name)) is not None
                or world.get(ROUTE, desired.namespace, route_name(desired.name)) is not None):
            out.append(Warning("GatewayLeftBySuspend",
                               "suspend deletes the Gateway and HTTPRoute only while upgradeStrategy.type is "
                               "NewClusterWithIncrementalUpgrade; with the current strategy they stay "
                               "(rayservice_controller.go#deleteRayServiceOwnedResources)", "spec.upgradeStrategy.type"))
        st = rs.status
        a = world.get(RC, desired.namespace, _m(st.get("activeServiceStatus")).get("rayClusterName") or "")
        p = world.get(RC, desired.namespace, _m(st.get("pendingServiceStatus")).get("rayClusterName") or "")
        cluster = p if p is not None else a
        if cluster is None:
            return out
        goal = _m(desired.spec.get("rayClusterConfig"))
        full = is_cluster_spec_hash_equal(desired, cluster, False)
        partial = not full and is_cluster_spec_hash_equal(desired, cluster, True)
        ref = "rayservice_controller.go#rayClusterSpecForHashing, utils/util.go#GenerateHashWithoutReplicasAndWorkersToDelete"
        for kind, path in ignored_differences(goal, cluster.spec):
            if kind == "suspend":
                out.append(Warning("NestedSuspendIgnored",
                                   f"rayClusterConfig.suspend differs from RayCluster {display(cluster.name)}'s "
                                   "spec.suspend but is copied only when a cluster is created and never propagated "
                                   "afterwards; the live cluster keeps its value "
                                   "(rayservice_controller.go#modifyRayCluster, #rayClusterSpecForHashing). "
                                   "Use spec.suspend to suspend the whole RayService", path))
            elif full and kind == "replicas":
                out.append(Warning("WorkerReplicasIgnored",
                                   f"{path} is left out of the cluster comparison ({ref}); RayCluster "
                                   f"{display(cluster.name)} keeps its current value and nothing is rolled out. Edit "
                                   "the RayCluster (or let the autoscaler) to scale, or combine with a change that "
                                   "creates a new cluster", path))
            elif full and kind == "scheduling":
                out.append(Warning("SchedulingFieldsIgnored",
                                   f"{path} is left out of the cluster comparison ({ref}) so that Kueue-injected "
                                   "values are neutral; the live RayCluster is not changed", path))
            elif full and kind == "upgradeStrategy":
                out.append(Warning("ClusterUpgradeStrategyIgnored",
                                   f"{path} is left out of the cluster comparison ({ref})", path))
        if not full and not partial:
            if not is_zero_downtime_upgrade_enabled(desired, self.config):
                out.append(Warning("UpgradeStrategyNone",
                                   f"rayClusterConfig differs from RayCluster {display(cluster.name)} but "
                                   f"spec.upgradeStrategy.type is {strategy_name(desired, self.config)}: no new cluster is created "
                                   "and the change never reaches the running cluster "
                                   "(rayservice_controller.go#isZeroDowntimeUpgradeEnabled)", "spec.upgradeStrategy.type"))
            elif p is not None and a is not None and not incremental(desired, self.config) and is_cluster_spec_hash_equal(desired, a, False):
                out.append(Warning("RevertCreatesNewCluster",
                                   "the desired rayClusterConfig matches the active cluster but an upgrade is in "
                                   "progress: NewCluster compares only with the pending cluster, so a third cluster "
                                   "is created rather than cancelling (rayservice_controller.go#shouldPrepareNewCluster)",
                                   "spec.rayClusterConfig"))
            elif goal.get("suspend") is True:
                out.append(Warning("ClusterBornSuspended",
                                   "rayClusterConfig.suspend is true: the new RayCluster is created suspended and "
                                   "KubeRay never unsuspends it (rayservice_controller.go#constructRayClusterForRayService)",
                                   "spec.rayClusterConfig.suspend"))
        return out

    # -- KindModel ---------------------------------------------------------------------
    def strategy(self, desired: Obj) -> str:
        return strategy_name(desired, self.config)

    def reconcile(self, desired: Obj, world: World) -> list[Action]:
        view = self.world_view(world) if self.world_view is not None else world
        p = _Pass(self, desired, view)
        p.run()
        # how this pass ends, for the ``advance`` that follows it (its waits)
        self._last_outcome = (world, _outcome_text(p))
        return p.actions

    def advance(self, desired: Obj, world: World, env: Environment) -> Progress:
        return _Advance(self, desired, world, env).run()

    def take_last_outcome(self, world: World) -> str:
        """How the pass ``reconcile`` last ran ends (consumed once). A pass that acted
        ends with the normal requeue; an idle pass with its wait and requeue."""
        last, self._last_outcome = getattr(self, "_last_outcome", None), None
        if last is None:
            return REQUEUE_2S
        return last[1]

    def pass_outcome(self, desired: Obj, world: World) -> str:
        """How a reconcile pass on ``world`` ends, as upstream requeues it: e.g. "waits for
        the head Pod of RayCluster X (updateHeadPodServeLabel: found 0 head); the pass
        returns an error: controller-runtime requeues with backoff" or "requeue in 2 s"
        (``ServiceDefaultRequeueDuration``)."""
        if self.world_view is not None:
            world = self.world_view(world)
        p = _Pass(self, desired, world)
        p.run()
        return _outcome_text(p)

    def idle_title(self, waits: Sequence[str]) -> str | None:
        """The title of a pass that changes nothing: what it waits for and how it requeues."""
        for w in reversed(tuple(waits)):
            if w.endswith((REQUEUE_2S, REQUEUE_NONE, REQUEUE_BACKOFF)):
                return "No change in this pass: " + w
        return None

    def _rs(self, desired: Obj, world: World) -> Obj | None:
        return world.get(RS, desired.namespace, desired.name)

    def converged(self, desired: Obj, world: World) -> bool:
        if managed_by_external_controller(desired) is not None:
            return True
        rs = self._rs(desired, world)
        if rs is None or val.first_error(desired, self.config):
            return False
        st = rs.status
        if desired.spec.get("suspend") is True or suspend_is_operative(st):
            return is_true(st, "Suspended") and desired.spec.get("suspend") is True
        if is_initializing_timeout(st):
            return False
        a = world.get(RC, desired.namespace, _m(st.get("activeServiceStatus")).get("rayClusterName") or "")
        return (a is not None and head_phase(a) == HEAD_READY and is_true(st, "Ready")
                and not _m(st.get("pendingServiceStatus")).get("rayClusterName"))

    def diagnose(self, desired: Obj, world: World, env: Environment) -> Stuck:
        rs = self._rs(desired, world)
        ref = ObjectRef(RS, desired.namespace, desired.name, API)
        err = val.first_error(desired, self.config)
        if err:
            return Stuck("ValidationFailed", f"{err} (Ready=False/ValidationFailed; the controller waits for the "
                         "next spec change)", (ref,), ("fix the spec; rolloutctl lint shows every rule",))
        st = rs.status if rs else {}
        for c in world.of_kind(RC):
            refused = val.ray_cluster_upgrade_options_error(c.spec, c.labels.get(L_CRD) == "RayService")
            if refused and not c.terminating:
                return Stuck("InvalidRayClusterSpec",
                             f"the RayCluster controller refuses RayCluster {display(c.name)}: {refused} "
                             "(raycluster_controller.go#rayClusterReconcile, utils.ValidateRayClusterUpgradeOptions); "
                             "it never gets a head Pod, so every RayService pass stops at updateHeadPodServeLabel",
                             (ObjectRef(RC, c.namespace, display(c.name) or c.name, API),),
                             ("remove spec.rayClusterConfig.upgradeStrategy (use spec.upgradeStrategy for the "
                              "RayService)",))
        serve_err = serve_service_error(desired, world, self.config)
        if serve_err:
            return Stuck("ServeServiceNotBuilt", f"{serve_err} (common/service.go#BuildServeService): "
                         "reconcileServices fails on every pass, so no Service is created and the status is not "
                         "written", (ref,), ("name the serve port 'serve' in the head container, or set spec.serveService",))
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
                req = cluster_requests(c.spec)
                used: dict[str, int] = {}
                for o in world.of_kind(RC):
                    if o.name != c.name and head_phase(o) in (HEAD_STARTING, HEAD_READY):
                        add(used, cluster_requests(o.spec))
                short = env.short(used, req)
                return Stuck(STUCK_INSUFFICIENT_CAPACITY,
                             f"the Pods of RayCluster {display(c.name)} do not fit next to the running clusters "
                             f"(short of {', '.join(short) or 'capacity'}); a NewCluster upgrade needs room for both "
                             "clusters at once", (ObjectRef(RC, c.namespace, display(c.name) or c.name, API),),
                             ("raise --capacity", "or use upgradeStrategy NewClusterWithIncrementalUpgrade with a "
                              "smaller maxSurgePercent"))
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
        if not str(desired.spec.get("serveConfigV2") or "").strip():
            return Stuck(STUCK_NEVER_READY, "spec.serveConfigV2 is empty: no Serve application, so no cluster is "
                         "ever ready (rayservice_controller.go#getAndCheckServeStatus)", (ref,))
        return Stuck("NotConverged", "the RayService does not reach Ready and nothing else moves", (ref,))

    def metrics(self, world: World) -> Mapping[str, Any]:
        ready = pods = 0
        res: dict[str, int] = {}
        for c in world.of_kind(RC):
            if c.terminating:
                continue
            ph = head_phase(c)
            if ph == HEAD_NONE:
                continue
            n = int(c.status.get("desiredWorkerReplicas") or desired_workers(c.spec))
            pods += 1 + n
            if ph == HEAD_READY:
                ready += 1 + int(c.status.get("readyWorkerReplicas") or 0)
            if ph in (HEAD_STARTING, HEAD_READY):
                add(res, cluster_requests(c.spec))
        return {"readyPods": ready, "pods": pods, "resources": res}

    def counts(self, desired: Obj, world: World) -> Mapping[str, Any]:
        rs = self._rs(desired, world)
        st = rs.status if rs else {}
        a = _m(st.get("activeServiceStatus")).get("rayClusterName") or None
        p = _m(st.get("pendingServiceStatus")).get("rayClusterName") or None
        serving: set[str] = set()
        for s in world.of_kind(SVC):
            if s.terminating:
                continue
            if s.name == serve_svc_name(desired, None, self.config) or (incremental(desired, self.config) and s.name.endswith("-serve-svc")):
                c = _m(s.spec.get("selector")).get(L_CLUSTER)
                if c and world.get(RC, desired.namespace, c) is not None:
                    if incremental(desired, self.config):
                        route = world.get(ROUTE, desired.namespace, route_name(desired.name))
                        aw, pw = weights_from_http_route(route, a, p)
                        if (c == a and aw > 0) or (c == p and pw > 0):
                            serving.add(c)
                    else:
                        serving.add(c)
        cond = find_condition(st, "Ready")
        return {"activeCluster": display(a), "pendingCluster": display(p),
                "clusters": sum(1 for c in world.of_kind(RC) if not c.terminating),
                "servingClusters": len(serving),
                "ready": cond.get("status") == "True" if cond else False,
                "numServeEndpoints": int(st.get("numServeEndpoints") or 0),
                "suspended": is_true(st, "Suspended")}

    def title(self, actions: Sequence[Action], world: World) -> str:
        if all(a.verb == "status" for a in actions):
            conds = _m(actions[-1].fields.get("conditions"))
            if conds.get("Suspending") == "True/SuspendRequested":
                return "Suspend commit point: status only (Suspending=True, cluster statuses reset)"
            if conds.get("Suspended") == "True/SuspendComplete":
                return "Suspended: every owned object is gone"
            f = actions[-1].fields
            if f.get("pendingServiceStatus.rayClusterName"):
                return f"Name a new pending RayCluster {f['pendingServiceStatus.rayClusterName']} in status"
            if f.get("activeServiceStatus.rayClusterName"):
                return f"Promote {f['activeServiceStatus.rayClusterName']} to active"
            return "Status update" + (": " + ", ".join(f"{k}={v}" for k, v in conds.items()) if conds else "")
        if len(actions) == 1 and actions[0].kind == RS and actions[0].verb == "update":
            return f"Add finalizer {FINALIZER}"
        parts = [f"{a.verb} {a.kind} {a.name}" + (f" ({a.role})" if a.role else "") for a in actions if a.verb != "status"]
        return "; ".join(parts[:4]) + (f"; +{len(parts) - 4} more" if len(parts) > 4 else "")

    def warnings(self, desired: Obj, world: World) -> list[Warning]:
        return list(world.memory.get(MEM_NOTES, ()))

    # phases and provenance: kinds/kuberay/phases.py, kinds/kuberay/provenance.py
    def phase_of(self, desired: Obj, step: Any) -> Any:
        from .phases import phase_of
        return phase_of(desired, step)

    def phase_title(self, desired: Obj, label: Any, steps: Sequence[Any]) -> str | None:
        from .phases import phase_title
        return phase_title(desired, label, steps)

    def operators(self, desired: Obj) -> list[Any]:
        from .provenance import operators
        return operators(desired, self.version, self.config.gates)

    def not_modelled(self, desired: Obj, world: World) -> list[Warning]:
        from .provenance import not_modelled
        return not_modelled(desired)

    def validate(self, obj: Obj, old: Obj | None = None) -> list[Finding]:
        return val.validate(obj, old, self.config)

    def rejected_at_admission(self, finding: Finding) -> bool:
        """Only the CRD's rules refuse a RayService at admission; the controller enforces the
        rest after it is stored (``validation.ADMISSION_RULES``), and the plan shows how."""
        return val.rejected_at_admission(finding)

    def defaults(self, raw: dict) -> dict:
        """The RayService as the API server stores it (CRD defaults), for ``diff``."""
        from .defaults import rayservice_crd_defaults
        return rayservice_crd_defaults(raw)

    def order_matters(self, list_path: tuple) -> bool:
        from .defaults import rayservice_order_matters
        return rayservice_order_matters(list_path)

    def classify(self, changes: Sequence[Change], desired: Obj, live: Obj) -> list[Impact]:
        from .classify import classify
        return classify(changes, desired, live, self.version, self.config)

    # -- advise (kinds/kuberay/advise.py) -----------------------------------------------
    floor_goal = "the service keeps serving"
    floor_text = "the service stops serving (no RayCluster receives traffic)"

    def advice_spaces(self, desired: Obj, old: Obj | None) -> list:
        from .advise import advice_spaces
        return advice_spaces(desired, old)

    def floor_deficit(self, desired: Obj, world: World) -> int:
        """The default floor: the service keeps serving (one serving cluster)."""
        return max(0, 1 - int(self.counts(desired, world).get("servingClusters") or 0))

    def desired_pods(self, desired: Obj) -> int:
        return 1 + desired_workers(_m(desired.spec.get("rayClusterConfig")))

    def rolls_out(self, desired: Obj, world: World) -> tuple[str, str] | None:
        from .advise import rolls_out
        rs = self._rs(desired, world)
        name = _m((rs.status if rs else {}).get("activeServiceStatus")).get("rayClusterName") or ""
        return rolls_out(desired, world, world.get(RC, desired.namespace, name))


_LIVE_NOTES = ("ObservedFromManifest", "KubeRayVersionAssumed", "KubeRayVersionMismatch", "SpecComparedWithLiveCluster")


class _Recorder:
    """Wraps the model to keep the last world of a simulation (for a settled world)."""

    def __init__(self, model: RayServiceModel, box: list[World]) -> None:
        self._m = model
        self._box = box
        self.api_version, self.kind, self.timed = model.api_version, model.kind, model.timed

    def __getattr__(self, name: str) -> Any:
        return getattr(self._m, name)

    def converged(self, desired: Obj, world: World) -> bool:
        self._box.append(world)
        return self._m.converged(desired, world)

    def diagnose(self, desired: Obj, world: World, env: Environment) -> Stuck:
        self._box.append(world)
        return self._m.diagnose(desired, world, env)

    def warnings(self, desired: Obj, world: World) -> list[Warning]:
        return []
