"""The KubeRay RayService model: the KindModel the planner, diff, lint and advise use.
It holds the modelled operator's configuration and no per-plan state; each method
delegates to the module that models the upstream code.

Upstream: ray-project/kuberay @ feeaf72f (``ray-operator/controllers/ray/``). Where each
part lives:

- ``rayservice_controller.py``: ``Reconcile``, one pass (with ``reconciler.py``, what a
  pass works with; ``suspend.py``, ``incremental_upgrade.py``, ``status.py``,
  ``builders.py``, ``decisions.py``);
- ``world.py``: the RayCluster controller, Pods, Ray Serve, garbage collection and the
  deletion timers between passes;
- ``observe.py``: the world a plan starts from and the warnings about it;
- ``diagnose.py``: why a plan is stuck;
- ``validation/``: ``utils/validation.go`` and the controller's other checks.

State upstream keeps in memory lives in the world: the serve-config cache (the
``ServeApplications`` objects), the deletion timers and how the last pass ended
(world memory, ``api.MEM_*``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...core.environment import Environment, add
from ...core.kind import Progress, resolve
from ...core.model import Action, Finding, Obj, Stuck, Warning
from ...core.trees import copy_tree
from ...core.world import World
from . import KIND, defaults, phases, provenance
from .api import (API, FINALIZER, HEAD_NONE, HEAD_READY, HEAD_STARTING, L_CLUSTER, MEM_NOTES, MEM_REQUEUE, RC, ROUTE, RS, SVC,
                  cluster_requests, desired_workers, display, head_phase, route_name, worker_pods)
from .conditions import find_condition, is_true
from .decisions import keeps_empty_at, strategy_name
from .diagnose import diagnose
from .incremental_upgrade import weights_from_http_route
from .observe import observe as observe_world
from .observe import with_notes
from .operator import OperatorConfig
from .rayservice_controller import reconcile
from .reconciler import REQUEUE_2S, REQUEUE_BACKOFF, REQUEUE_NONE, Reconciler, outcome_text
from .spec import incremental, managed_by_external_controller, serve_config_error, serve_svc_name
from .status import is_initializing_timeout
from .suspend import suspend_is_operative
from .validation import first_error, rejected_at_admission, validate
from .world import Advance, kept_worker_pods

if TYPE_CHECKING:  # diff's vocabulary: a plan does not import it
    from ...core.results import Change, Impact


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, dict) or isinstance(v, Mapping) else {}  # dict first: the common case, cheaper


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


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

    # -- observe (observe.py) ------------------------------------------------------------
    def observe(self, desired: Obj | None, observed: Sequence[Obj], env: Environment) -> World:
        """Build the world: nothing (a new RayService), a settled world derived from the
        previously applied manifest, or the live objects as given. It remembers its
        RayClusters that a Redis cleanup holds once deleted (``not_modelled``)."""
        return provenance.with_observed_clusters(observe_world(self, desired, observed, env), self.config)

    def with_notes(self, desired: Obj, world: World) -> World:
        """``world`` with the observation warnings of ``desired`` (for a world built
        elsewhere), remembering its RayClusters as ``observe`` does."""
        return provenance.with_observed_clusters(with_notes(self, desired, world), self.config)

    # -- KindModel ---------------------------------------------------------------------
    def strategy(self, desired: Obj) -> str:
        return strategy_name(desired, self.config)

    def run_pass(self, desired: Obj, world: World) -> Reconciler:
        """One ``Reconcile`` pass on ``world`` as this controller reads it (``world_view``)."""
        view = self.world_view(world) if self.world_view is not None else world
        r = Reconciler(desired, view, self.config, self.version)
        reconcile(r)
        return r

    def reconcile(self, desired: Obj, world: World) -> list[Action]:
        """What one ``Reconcile`` pass does (rayservice_controller.py)."""
        return self.run_pass(desired, world).actions

    def reconcile_pass(self, desired: Obj, world: World) -> tuple[list[Action], dict[str, Any]]:
        """One ``Reconcile`` pass: what it does, and how it ends as upstream requeues it
        (``MEM_REQUEUE``), which the driver keeps in world memory for the next interval's
        waits (world.py)."""
        r = self.run_pass(desired, world)
        return r.actions, {MEM_REQUEUE: outcome_text(r)}

    def pass_outcome(self, desired: Obj, world: World) -> str:
        """How a reconcile pass on ``world`` ends, as upstream requeues it: e.g. "waits for
        the head Pod of RayCluster X (updateHeadPodServeLabel: found 0 head); the pass
        returns an error: controller-runtime requeues with backoff" or "requeue in 2 s"
        (``ServiceDefaultRequeueDuration``)."""
        return outcome_text(self.run_pass(desired, world))

    def advance(self, desired: Obj, world: World, env: Environment) -> Progress:
        """The world between two passes (world.py)."""
        return Advance(self, desired, world, env).run()

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
        if rs is None:
            return True  # deleted: its finalizer removed, the API server let it go (Reconcile)
        if first_error(desired, self.config):
            return False
        st = rs.status
        if desired.spec.get("suspend") is True or suspend_is_operative(st):
            return is_true(st, "Suspended") and desired.spec.get("suspend") is True
        if is_initializing_timeout(st) or desired.derived(serve_config_error) is not None:
            return False  # a config updateServeDeployment cannot unmarshal is never applied
        a = world.get(RC, desired.namespace, _m(st.get("activeServiceStatus")).get("rayClusterName") or "")
        return (a is not None and head_phase(a) == HEAD_READY and is_true(st, "Ready")
                and not _m(st.get("pendingServiceStatus")).get("rayClusterName"))

    def diagnose(self, desired: Obj, world: World, env: Environment) -> Stuck:
        return diagnose(self.config, desired, world, env)

    def metrics(self, world: World) -> Mapping[str, Any]:
        ready = pods = 0
        res: dict[str, int] = {}
        for c in world.of_kind(RC):
            if c.terminating:
                continue
            ph = head_phase(c)
            if ph == HEAD_NONE:
                continue
            running = worker_pods(world, c) if ph in (HEAD_STARTING, HEAD_READY) else None
            n = int(c.status.get("desiredWorkerReplicas") or desired_workers(c.spec)) if running is None \
                else sum(running.values())
            pods += 1 + n
            if ph == HEAD_READY:
                ready += 1 + int(c.status.get("readyWorkerReplicas") or 0)
            if running is not None:
                add(res, cluster_requests(c, running))
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
            removes = "remove finalizer" in actions[0].reason
            return f"{'Remove' if removes else 'Add'} finalizer {FINALIZER}" + (": the RayService is deleted" if removes else "")
        # a role tells the clusters apart (their names may all be ``<rs>-<random>``); a
        # cluster with none that carries the old spec (the one the switch left) says so
        parts = [f"{a.verb} {a.kind} {a.name}" + (f" ({a.role})" if a.role else " (old)" if a.revision == "old" else "")
                 for a in actions if a.verb != "status"]
        return "; ".join(parts[:4]) + (f"; +{len(parts) - 4} more" if len(parts) > 4 else "")

    def warnings(self, desired: Obj, world: World) -> list[Warning]:
        return [*world.memory.get(MEM_NOTES, ()), *kept_worker_pods(world)]

    # -- phases and provenance (phases.py, provenance.py) ------------------------------
    def phase_of(self, desired: Obj, step: Any) -> Any:
        return phases.phase_of(desired, step)

    def phase_title(self, desired: Obj, label: Any, steps: Sequence[Any]) -> str | None:
        return phases.phase_title(desired, label, steps)

    def operators(self, desired: Obj) -> list[Any]:
        return provenance.operators(desired, self.version, self.config.gates, self.config.env)

    def not_modelled(self, desired: Obj, world: World) -> list[Warning]:
        return provenance.not_modelled(desired, self.config, world)

    def validate(self, obj: Obj, old: Obj | None = None) -> list[Finding]:
        return validate(obj, old, self.config)

    def rejected_at_admission(self, finding: Finding) -> bool:
        """Only the CRD's rules refuse a RayService at admission; the controller enforces the
        rest after it is stored (``validation.ADMISSION_RULES``), and the plan shows how."""
        return rejected_at_admission(finding)

    def defaults(self, raw: dict) -> dict:
        """The RayService as the API server stores it (CRD defaults), for ``diff``: a copy
        (``DiffHooks`` never change their input; the kind's admission hook fills its own copy)."""
        return defaults.rayservice_crd_defaults(copy_tree(dict(raw)))

    def order_matters(self, list_path: tuple) -> bool:
        return defaults.rayservice_order_matters(list_path)

    def keeps_empty(self, path: tuple) -> bool:
        """An empty mapping inside ``rayClusterConfig`` that Go's JSON writes (and so the
        cluster hash sees): ``decisions.keeps_empty_at``."""
        return tuple(path[:2]) == ("spec", "rayClusterConfig") and keeps_empty_at(tuple(path[2:]))

    def classify(self, changes: Sequence[Change], desired: Obj, live: Obj, related: Sequence[Obj] = ()) -> list[Impact]:
        return KIND.load("classify")(changes, desired, live, self.version, self.config, related)

    # -- plan --compare (kinds/kuberay/compare.py, imported by the command only) ------------
    def compare(self, desired: Obj, observed: Sequence[Obj], env: Environment) -> Any:
        """``plan --compare``: the change under each upgrade strategy, side by side."""
        old = next((o for o in observed if o.kind == RS and o.name == desired.name
                    and o.namespace == desired.namespace), None)
        return resolve("rolloutctl.kinds.kuberay.compare:compare")(self, desired, observed, env, old,
                                                                  self.strategy(desired))

    def own_strategy(self, desired: Obj) -> str:
        return self.strategy(desired)

    # -- advise (kinds/kuberay/advise.py, through KIND.advise: a plan does not import it) --
    floor_goal = "the service keeps serving"
    floor_text = "the service stops serving (no RayCluster receives traffic)"

    def advice_spaces(self, desired: Obj, old: Obj | None) -> list:
        return KIND.load("advise").advice_spaces(desired, old)

    def floor_deficit(self, desired: Obj, world: World) -> int:
        """The default floor: the service keeps serving (one serving cluster)."""
        return max(0, 1 - int(self.counts(desired, world).get("servingClusters") or 0))

    def desired_pods(self, desired: Obj) -> int:
        return 1 + desired_workers(_m(desired.spec.get("rayClusterConfig")))

    def teardown(self, desired: Obj) -> str | None:
        return KIND.load("advise").teardown(desired)

    def rolls_out(self, desired: Obj, world: World) -> tuple[str, str] | None:
        rs = self._rs(desired, world)
        name = _m((rs.status if rs else {}).get("activeServiceStatus")).get("rayClusterName") or ""
        return KIND.load("advise").rolls_out(desired, world, world.get(RC, desired.namespace, name))
