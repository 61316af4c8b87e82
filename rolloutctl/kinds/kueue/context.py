"""The state of one Kueue pass, and what every Kueue controller module shares: the
integration model, the rule strings of actions, display names.

Not upstream code: Kueue's controllers share the API server; here they share a
:class:`KueuePass`, the world as they see it during the pass and the actions they wrote
(each applied at once, so later steps see it). Rule strings name the Kueue Go file and
function (``kueue:jobframework/reconciler.go#startJob``), ``kueue[POC]:`` for behaviour
that exists only in Kueue's unmerged PR #11264 (at 1828096a). Names checked against
kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from ...core.model import Action, Obj
from ...core.world import World
from ..kuberay.api import L_CRD, L_NAME, RC, RS
from ..kuberay.api import display as kr_display
from .constants import RF, WL
from .workload import created_at, owner_of
from .workload_names import display

TOP, NESTED, LEGACY = "top-level", "nested", "legacy"
MODELS = (TOP, NESTED, LEGACY)
MEM_CREATE = "kueue/createRequest"
MEM_UNGATED = "kueue/ungated"
MEM_NOTES = "kueue/notes"
#: ClusterQueue name -> {(flavor, resource): milli-units} the cache holds for Workloads the world does
#: not list (``clusterqueue.held_usage``)
MEM_HELD_USAGE = "kueue/heldUsage"
#: (namespace, name) of the RayClusters of settled neighbours the world does not list: they
#: exist, as the jobs of other jobs' Workloads do (``reconciler.load_job``;
#: ``neighbours.neighbour_workloads`` keeps them)
MEM_KEPT_CLUSTERS = "kueue/keptClusters"
#: the RayService's child RayClusters as Kueue's RayCluster job reconciler last saw them
#: (name, content) at its previous pass: a child whose content differs since had an event
#: (``reconciler.child_events``)
MEM_CHILDREN_SEEN = "kueue/childrenSeen"

# Kueue Go files, relative to pkg/controller/ or pkg/
REC = "jobframework/reconciler.go"
RSC = "jobs/rayservice/rayservice_controller.go"
RSW = "jobs/rayservice/rayservice_webhook.go"
RCW = "jobs/raycluster/raycluster_webhook.go"
SCH = "scheduler/scheduler.go"
WSL = "workloadslicing/workloadslicing.go"


def rule(path: str, fn: str, poc: bool = False) -> str:
    return f"kueue{'[POC]' if poc else ''}:{path}#{fn}"


def as_map(v: Any) -> Mapping[str, Any]:
    """``v`` when it is a mapping, else an empty mapping."""
    return v if isinstance(v, Mapping) else {}


def as_list(v: Any) -> list[Any]:
    """``v`` when it is a list, else an empty list."""
    return v if isinstance(v, list) else []


def pod_counts_text(c: Mapping[str, int]) -> str:
    """Pod set counts in a reason: ``head×1, workers×4``."""
    return ", ".join(f"{n}×{v}" for n, v in c.items()) or "none"


def display_rc(name: str) -> str:
    """A RayCluster's name as KubeRay's actions show it."""
    return kr_display(name) or name




def children(world: World, rs: Obj) -> list[Obj]:
    """RayClusters of the RayService by KubeRay's association labels, terminating ones
    included (a terminating RayCluster is still listed)."""
    return [c for c in world.select(RC, {L_NAME: rs.name, L_CRD: "RayService"}) if c.namespace == rs.namespace]


class KueuePass:
    """Everything Kueue writes after one KubeRay pass: webhooks on objects created in
    it, the job reconciler, the scheduler, the job reconciler again (start or stop the job),
    and the POC post-step (the order is ``controllers.run_pass``). Each write is applied at
    once, so later steps see it."""

    def __init__(self, mode: str, world: World, rs_key: tuple[str, str], created: Sequence[str] = (),
                 events: Collection[str] | None = None) -> None:
        self.mode = mode
        self.w = world
        self.ns, self.name = rs_key
        self.created = set(created)
        #: the child RayClusters with an event since the previous pass (None: every child)
        self.events = None if events is None else set(events)
        self.actions: list[Action] = []
        #: the reserved slice an elastic job's scale-up would replace (set by ``ensure_workload_slices``)
        self.replace_for: Obj | None = None

    def act(self, verb: str, kind: str, name: str, reason: str, rule_str: str, *, payload: Mapping | None = None,
            fields: Mapping | None = None, role: str | None = None) -> None:
        shown = display(name) if kind == WL else (kr_display(name) or name)
        a = Action(verb=verb, kind=kind, name=shown, namespace=self.ns, reason=reason, rule=rule_str,
                   role=role, fields=dict(fields or {}), payload=payload, uid=name if shown != name else None)
        self.actions.append(a)
        self.w = self.w.apply([a])

    @property
    def rs(self) -> Obj | None:
        return self.w.get(RS, self.ns, self.name)

    def rfs(self) -> dict[str, Obj]:
        return {o.name: o for o in self.w.of_kind(RF)}

    def workloads_of(self, job: Obj) -> list[Obj]:
        return sorted((w for w in self.w.of_kind(WL) if w.namespace == job.namespace and not w.terminating
                       and owner_of(w) == (job.kind, job.name)), key=created_at)

    def jobs(self) -> list[Obj]:
        rs = self.rs
        if rs is None:
            return []
        if self.mode == LEGACY:
            return [c for c in children(self.w, rs)]
        return [rs]
