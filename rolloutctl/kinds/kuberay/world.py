"""The world between two RayService passes (one requeue): the RayCluster controller's
Pods, the scheduler and kubelet (``--capacity``, ``--never-ready``), Ray Serve, the
garbage collector and the deletion timers.

Upstream (ray-project/kuberay @ feeaf72f): ``ray-operator/controllers/ray/raycluster_controller.go``
``reconcilePods`` / ``calculateStatus`` with RayClusterStatusConditions on (suspend is
atomic: Suspending, every Pod deleted, Suspended), ``rayservice_controller.go``
``cleanUpRayClusterInstance`` (the deletion time recorded at a dangling cluster's first
sighting) and Kubernetes owner-reference garbage collection. Pod start-up and Serve
deployment take one requeue per stage.

How the pass before ended (controller-runtime's requeue, with what it waited for) is
read from the world's memory (``MEM_REQUEUE``): the pass writes it with its actions
(``RayServiceModel.reconcile_pass``), and the world handed to the next pass starts
without it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.environment import Environment, add
from ...core.k8s_finalizers import SELF_CLEARING, clears_itself
from ...core.kind import Progress
from ...core.model import Obj, Warning
from ...core.trees import copy_tree
from ...core.world import World
from .api import (GW, HEAD_NONE, HEAD_PENDING, HEAD_READY, HEAD_STARTING, L_CRD, L_NAME, MEM_REQUEUE, RC,
                  REDIS_CLEANUP_FINALIZER, REQUEUE, ROUTE, RS, SA, SVC, MEM_WORKER_PODS, cluster_requests, deletion_timers, desired_workers, display,
                  gateway_name, head_phase, is_generated, route_name, with_deletion_timers, worker_count, worker_pods)
from .conditions import is_true, set_condition
from .incremental_upgrade import gateway_ready, http_route_ready
from .pod import ready_workers
from .reconciler import REQUEUE_2S, REQUEUE_NONE, Reconciler, outcome_text
from .spec import deletion_delay, incremental, managed_by_external_controller, upgrade_options
from .status import cluster_serve_proxy, initializing_deadline
from . import utils as ku
from .utils import is_gcs_fault_tolerance_embedded
from .validation.util import is_autoscaling_enabled
from .validation.utils_validation import ray_cluster_upgrade_options_error


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, dict) or isinstance(v, Mapping) else {}  # dict first: the common case, cheaper


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


#: Serve application statuses that become RUNNING by themselves (a submitted config deploys)
DEPLOYS = frozenset({"DEPLOYING", "NOT_STARTED", None, ""})


def without_outcome(memory: Mapping[str, Any]) -> dict[str, Any]:
    """World memory without how a pass ended (``MEM_REQUEUE``): a world handed to a pass
    does not know yet how that pass will end."""
    return {**memory, MEM_REQUEUE: None}


def _pass(p: Reconciler) -> tuple[list, dict[str, Any]]:
    """A pass as ``RayServiceModel.reconcile_pass`` returns it."""
    return p.actions, {MEM_REQUEUE: outcome_text(p)}


def kept_worker_pods(world: World) -> list[Warning]:
    """``AutoscalerKeepsWorkerPods``: the RayClusters that, at the plan's end, run more
    worker Pods in a group than their spec asks for (``Advance.reconcile_worker_pods``)."""
    out = []
    for rc in world.of_kind(RC):
        if rc.terminating:
            continue
        pods = worker_pods(world, rc)
        for g in _l(rc.spec.get("workerGroupSpecs")):
            name, want = str(_m(g).get("groupName")), worker_count(_m(g))
            if pods.get(name, want) > want:
                out.append(Warning(
                    "AutoscalerKeepsWorkerPods",
                    f"RayCluster {display(rc.name)} keeps {pods[name]} worker Pods of group {name} where its spec now "
                    f"asks for {want}: with in-tree autoscaling the RayCluster controller deletes no Pod to scale a "
                    "group down, the Ray autoscaler alone decides which go (raycluster_controller.go reconcilePods; "
                    "the operator's ENABLE_RANDOM_POD_DELETE=true restores the deletion); the plan counts them to "
                    "its end", f"spec.rayClusterConfig.workerGroupSpecs[groupName={name}].replicas"))
    return out


def _without_stale_redis_finalizer(rc: Obj) -> Obj:
    """A deleted RayCluster on the embedded GCS backend that still carries the Redis
    cleanup finalizer (it was created on Redis): the RayCluster controller removes the
    finalizer at once, there being no Redis to clean up (raycluster_controller.go
    ``rayClusterReconcile``, before the Redis cleanup block)."""
    raw = copy_tree(rc.raw)
    raw["metadata"]["finalizers"] = [f for f in _l(rc.metadata.get("finalizers")) if f != REDIS_CLEANUP_FINALIZER]
    return Obj(raw, rc.file, rc.line, rc.lines)


class Advance:
    """The RayCluster controller, the scheduler/kubelet, Ray Serve and the garbage
    collector between two RayService passes (one requeue)."""

    def __init__(self, model: Any, desired: Obj, world: World, env: Environment) -> None:
        self.m, self.d, self.w, self.env = model, desired, world, env
        self.put: dict[tuple, Obj] = {}
        self.remove: set[tuple] = set()
        self.waits: list[str] = []
        #: the worker Pods per group of each RayCluster whose head runs, as this interval
        #: leaves them (``MEM_WORKER_PODS``)
        self.worker_pods: dict[str, tuple[tuple[str, int], ...]] = {}

    def obj(self, k: tuple) -> Obj | None:
        """The object ``k`` as this interval leaves it."""
        if k in self.remove:
            return None
        return self.put.get(k) or self.w.get(*k)

    def run(self) -> Progress:
        """One requeue of world time; how the pass before it ended (``MEM_REQUEUE``) and
        what the world did are the step's waits. A world that does not move skips to the
        next pass a timer makes act, if any. The world returned carries how the pass it is
        handed to will end."""
        self.garbage_collect()
        self.ray_cluster_controller()
        self.serve()
        self.gateway_implementation()
        changed = bool(self.put or self.remove)
        # the pass before this interval ended as self.w's memory says; the next pass
        # writes its own ending (RayServiceModel.reconcile_pass)
        memory = without_outcome(self.w.memory)
        memory[MEM_WORKER_PODS] = tuple(sorted(self.worker_pods.items()))
        w = self.w.replace(put=self.put.values(), remove=self.remove, now=self.w.now + REQUEUE, memory=memory)
        w = self.schedule_deletion_timers(w)
        then = self.w.memory.get(MEM_REQUEUE) or REQUEUE_2S
        tail = () if then == REQUEUE_2S and self.waits else (then,)
        if not changed:
            # whether the next pass acts decides if time skips to a timer: that pass is run
            # here once and handed to the driver (Progress.ahead)
            ahead = self.m.run_pass(self.d, w)
            if ahead.actions:
                return Progress(w, tuple(self.waits) + tail, True, _pass(ahead))
            # a pass that returned without a requeue schedules nothing: a timer the controller keeps in
            # memory (a deletion deadline) acts only when some event brings the next pass
            nxt = None if then.endswith(REQUEUE_NONE) else self.next_timed_event(w)
            if nxt is None:
                return Progress(w.with_memory(**_pass(ahead)[1]), tuple(self.waits), False)
            t = self.w.now + REQUEUE
            while t < nxt:
                t += REQUEUE
            w = World({k: w.get(*k) for k in w.keys()}, t, w.memory)
            timer = "a timer (deletion delay, traffic interval or initializing timeout)"
            msg = (f"{then} until {timer} fires: the next pass that acts is at {t}s" if then == REQUEUE_2S
                   else f"{then}; {timer} brings the next pass that acts at {t}s")
            return Progress(w, tuple(self.waits) or (msg,), True, _pass(self.m.run_pass(self.d, w)))
        return Progress(w, tuple(self.waits) + tail, True)

    def garbage_collect(self) -> None:
        """Deletions finish unless a finalizer holds the object; a RayCluster takes its
        owned serve Service and its Serve state with it (GC)."""
        for o in list(self.w):
            if not o.terminating:
                continue
            if o.kind == RC and REDIS_CLEANUP_FINALIZER in _l(o.metadata.get("finalizers")) and \
                    self.drops_stale_redis_finalizer(o):
                o = _without_stale_redis_finalizer(o)
                if _l(o.metadata.get("finalizers")):
                    self.put[(RC, o.namespace, o.name)] = o
            fins = _l(o.metadata.get("finalizers"))
            own = [f for f in fins if clears_itself(f, o.kind)]
            if own:  # its controller removes it: the deletion waits one step, it is not blocked
                raw = copy_tree(o.raw)
                raw["metadata"]["finalizers"] = [f for f in fins if f not in own]
                o = Obj(raw, o.file, o.line, o.lines)
                self.put[(o.kind, o.namespace, o.name)] = o
                self.waits.append(f"{o.kind} {display(o.name)} waits for {own[0]}: {SELF_CLEARING[own[0]]}")
                continue
            if fins:
                self.waits.append(f"{o.kind} {display(o.name)} is held by finalizers {o.metadata.get('finalizers')}")
                continue
            self.remove.add((o.kind, o.namespace, o.name))
            if o.kind == RC:
                self.remove.add((SA, o.namespace, o.name))
                for s in self.w.of_kind(SVC):
                    if any(r.get("kind") == RC and r.get("name") == o.name for r in s.owner_references):
                        self.remove.add((SVC, s.namespace, s.name))

    def drops_stale_redis_finalizer(self, rc: Obj) -> bool:
        """Whether ``rayClusterReconcile`` (raycluster_controller.go) reaches the removal
        of a deleted embedded-backend cluster's stale Redis finalizer: the cluster is on
        the embedded backend (``IsGCSFaultToleranceEmbedded``), no external controller
        manages it (``ManagedByExternalController`` returns first) and its spec passes
        ``ValidateRayClusterSpec``, which refuses the embedded backend unless the
        ``GCSFaultToleranceEmbeddedStorage`` gate is on (``validateGcsFaultToleranceBackend``;
        the spec's other checks are not repeated here). Otherwise the finalizer stays."""
        return is_gcs_fault_tolerance_embedded(rc.spec.get("gcsFaultToleranceOptions")) and \
            ku.managed_by_external_controller(rc.spec.get("managedBy")) is None and \
            self.m.config.gate("GCSFaultToleranceEmbeddedStorage")

    def used(self, exclude: str) -> dict[str, int]:
        """What the RayClusters with running Pods request, but ``exclude``."""
        total: dict[str, int] = {}
        for rc in self.w.of_kind(RC):
            k = (RC, rc.namespace, rc.name)
            cur = self.obj(k)
            if cur is None or rc.name == exclude:
                continue
            if head_phase(cur) in (HEAD_STARTING, HEAD_READY):
                add(total, cluster_requests(cur, worker_pods(self.w, cur)))
        return total

    def never_ready(self, name: str) -> bool:
        """Whether a cluster the controller created matches ``--never-ready``."""
        return is_generated(name) and (self.env.is_never_ready(name) or self.env.is_never_ready(display(name) or name))

    def ray_cluster_controller(self) -> None:
        """``raycluster_controller.go`` ``reconcilePods`` / ``calculateStatus`` with
        RayClusterStatusConditions on: suspend is atomic (Suspending, delete all Pods,
        Suspended); otherwise Pods are created, scheduled (``--capacity``) and become ready
        (``--never-ready``)."""
        for rc in self.w.of_kind(RC):
            if rc.terminating:
                continue
            refused = ray_cluster_upgrade_options_error(rc.spec, rc.labels.get(L_CRD) == "RayService")
            if refused:
                self.waits.append(f"the RayCluster controller refuses RayCluster {display(rc.name)} ({refused}; event "
                                  "InvalidRayClusterSpec): no Pod is created")
                continue
            st = copy_tree(dict(rc.status))
            phase = head_phase(rc)
            suspend = rc.spec.get("suspend") is True
            new_phase = phase
            workers = desired_workers(rc.spec)
            running = self.reconcile_worker_pods(rc) if phase in (HEAD_STARTING, HEAD_READY) else None
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
                req = cluster_requests(rc)
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
                st["readyWorkerReplicas"] = 0
            every = True
            if new_phase == HEAD_READY:
                # the workers whose readiness probe finds the Serve proxy (``pod.ready_workers``)
                proxy = cluster_serve_proxy(self.w.get(SA, rc.namespace, rc.name), self.d)
                # (a head that turns ready was starting or ready: its worker Pods were reconciled above)
                st["readyWorkerReplicas"], every = ready_workers(rc.spec, running or {}, proxy, self.m.config)
            if new_phase == HEAD_READY and every:
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

    def reconcile_worker_pods(self, rc: Obj) -> dict[str, int]:
        """The worker Pods per group of a RayCluster whose head runs, after ``reconcilePods``
        (raycluster_controller.go) brings each group to ``GetWorkerGroupDesiredReplicas``
        (``worker_count``): a suspended group loses every Pod; a group short of Pods gets
        them; a group over it loses the surplus, unless the cluster has in-tree autoscaling
        (``utils.IsAutoscalingEnabled``) and the operator's ``ENABLE_RANDOM_POD_DELETE`` is
        not ``true``: then no Pod is deleted, the autoscaler being the only one to decide
        which go (it lowers the count once it has removed them, which is not modelled)."""
        before = worker_pods(self.w, rc)
        keeps = is_autoscaling_enabled(rc.spec) and not self.m.config.random_pod_delete_env()
        after: dict[str, int] = {}
        for g in _l(rc.spec.get("workerGroupSpecs")):
            g = _m(g)
            name, want = str(g.get("groupName")), worker_count(g)
            had = before.get(name, want)
            after[name] = had if keeps and g.get("suspend") is not True and had > want else want
        self.worker_pods[rc.name] = tuple(after.items())
        return after

    def serve(self) -> None:
        """Ray Serve on each ready cluster: submitted applications (DEPLOYING, or not
        started) become RUNNING. One a live snapshot records as failed (``DEPLOY_FAILED``,
        ``UNHEALTHY``) stays so: Ray Serve deploys a config when it is submitted, and the
        controller resubmits only a config that differs from its cache
        (``checkIfNeedSubmitServeApplications``)."""
        for sa in self.w.of_kind(SA):
            rc = self.obj((RC, sa.namespace, sa.name))
            if rc is None or head_phase(rc) != HEAD_READY:
                continue
            apps = {k: dict(_m(v)) for k, v in _m(sa.status.get("applications")).items()}
            if not any(a.get("status") in DEPLOYS for a in apps.values()):
                continue
            if self.never_ready(sa.name):
                self.waits.append(f"Serve applications on {display(sa.name)} never become RUNNING (--never-ready)")
                continue
            for a in apps.values():
                if a.get("status") in DEPLOYS:
                    a["status"] = "RUNNING"
                    a.pop("message", None)
            raw = dict(sa.raw)
            raw["status"] = {"applications": apps}
            self.put[(SA, sa.namespace, sa.name)] = Obj(raw)
            self.waits.append(f"Serve applications on {display(sa.name)} RUNNING")

    def gateway_implementation(self) -> None:
        """The Gateway API implementation (not modelled; CONTRACT.md: Gateways and HTTPRoutes
        become Accepted/Programmed): the RayService's live Gateway whose conditions say it
        is not ready (``incremental_upgrade.gateway_ready``) is Accepted and Programmed after
        the interval, and so is its HTTPRoute's parent entry for that Gateway. Until then
        ``checkIfNeedTargetCapacityUpdate`` holds traffic and target capacity."""
        ns = self.d.namespace
        gw = self.w.get(GW, ns, gateway_name(self.d.name))
        if gw is None or gw.terminating:
            return
        if not gateway_ready(gw):
            raw = copy_tree(dict(gw.raw))
            st = raw.setdefault("status", {})
            st["conditions"] = _ready_conditions(st.get("conditions"), ("Accepted", "Programmed"))
            self.put[(GW, ns, gw.name)] = gw = Obj(raw, gw.file, gw.line, gw.lines)
            self.waits.append(f"Gateway {gw.name} becomes Accepted and Programmed (the Gateway API implementation)")
        route = self.w.get(ROUTE, ns, route_name(self.d.name))
        if route is None or route.terminating or http_route_ready(gw, route):
            return
        raw = copy_tree(dict(route.raw))
        parents = raw.setdefault("status", {}).setdefault("parents", [])
        mine = [pa for pa in parents if isinstance(pa, dict) and _m(pa.get("parentRef")).get("name") == gw.name
                and _m(pa.get("parentRef")).get("namespace") in (None, gw.namespace)]
        if not mine:  # the implementation reports on the route once it has processed it
            mine = [{"parentRef": {"name": gw.name, "namespace": gw.namespace}}]
            parents.append(mine[0])
        for parent in mine:
            parent["conditions"] = _ready_conditions(parent.get("conditions"), ("Accepted", "ResolvedRefs"))
        self.put[(ROUTE, ns, route.name)] = Obj(raw, route.file, route.line, route.lines)
        self.waits.append(f"HTTPRoute {route.name} becomes Accepted with ResolvedRefs by Gateway {gw.name} "
                          "(the Gateway API implementation)")

    def schedule_deletion_timers(self, w: World) -> World:
        """The deletion time ``cleanUpRayClusterInstance`` records when it first sees a
        dangling cluster: the next pass's time plus the delay."""
        rs = w.get(RS, self.d.namespace, self.d.name)
        if rs is None:
            return w
        timers = {k: v for k, v in deletion_timers(w).items() if w.get(RC, self.d.namespace, k) is not None}
        for rc in dangling_clusters(rs, w):
            timers.setdefault(rc.name, w.now + deletion_delay(self.d))
        return with_deletion_timers(w, timers)

    def next_timed_event(self, w: World) -> int | None:
        """The earliest future time at which a pass acts on a timer alone."""
        rs = w.get(RS, self.d.namespace, self.d.name)
        if rs is None or managed_by_external_controller(self.d):
            return None
        cands: list[int] = []
        now = self.w.now
        for name, deadline in deletion_timers(w).items():
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


def _ready_conditions(conditions: Any, types: tuple[str, ...]) -> list[dict]:
    """``conditions`` with each of ``types`` set True (added when absent)."""
    out = [dict(c) for c in _l(conditions) if isinstance(c, Mapping)]
    for t in types:
        for c in out:
            if c.get("type") == t:
                c.update(status="True", reason=t)
                break
        else:
            out.append({"type": t, "status": "True", "reason": t})
    return out


def dangling_clusters(rs: Obj, w: World) -> list[Obj]:
    """The RayService's RayClusters that are neither active nor pending, not yet deleting."""
    st = rs.status
    a = _m(st.get("activeServiceStatus")).get("rayClusterName")
    p = _m(st.get("pendingServiceStatus")).get("rayClusterName")
    return [rc for rc in w.select(RC, {L_NAME: rs.name, L_CRD: "RayService"})
            if rc.namespace == rs.namespace and rc.name not in (a, p) and not rc.terminating]
