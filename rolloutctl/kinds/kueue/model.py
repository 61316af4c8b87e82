"""A RayService under Kueue: KubeRay's RayService controller and Kueue's controllers
interleaved, one round at a time (``rolloutctl plan --kueue MODEL``).

A round is: Kueue's mutating webhook when the RayService is being created, then one
KubeRay pass (``kinds/kuberay``) reading the RayService as stored (with Kueue's writes),
then Kueue's pass reacting to it (``controllers.run_pass``: webhooks on the RayClusters
KubeRay just created, the job reconciler, the scheduler, the reconciler again, the POC
post-step). Each action's ``rule`` names its controller: ``kuberay:…``, ``kueue:…`` or
``kueue[POC]:…`` for behaviour that exists only in Kueue's unmerged PR #11264. Between
rounds the world moves: KubeRay's world (RayCluster controller, Pods, Serve, GC, timers)
and Kueue's elastic-job ungater.

Kueue objects (ClusterQueue, LocalQueue, ResourceFlavor, WorkloadPriorityClass, Workload)
come from ``--observed``; ClusterQueues, LocalQueues and ResourceFlavors in the desired
files are applied with the change (they replace observed ones of the same name).
"""

from __future__ import annotations

import copy
from typing import Any, Mapping, Sequence

from ...core.environment import Environment
from ...core.kind import Progress
from ...core.model import (STUCK_NO_PROGRESS, Action, Change, Comparison, ComparisonRow, Finding, Impact, Obj, Stuck,
                           Warning)
from ...core.simulate import simulate
from ...core.world import World, key_of
from ..kuberay.api import API as RAY_API
from ..kuberay.api import RC, RS
from ..kuberay.model import RayServiceModel
from ..kuberay.world import without_outcome
from . import rayservice_webhook
from . import validation as kueue_validation
from .clusterqueue import namespace_admissible
from .constants import CQ, KUEUE_KINDS, LQ, QUEUE_LABEL, RF, WL
from .context import (LEGACY, MEM_CHILDREN_SEEN, MEM_CREATE, MEM_HELD_USAGE, MEM_KEPT_CLUSTERS, MEM_NOTES, MEM_UNGATED, MODELS, NESTED, TOP,
                      as_map, children)
from .controllers import run_pass
from .diagnose import gated_stuck, priority_class_stuck, quota_stuck, suspended_stuck
from .elastic_job_ungater import gate_reason, ungate
from .evict import evicted
from .finish import finished
from .neighbours import Neighbours, neighbour_workloads
from .observe import KUEUE_PREFIXES, carry_kueue_fields
from .phases import kueue_phrase, phase_of, phase_title
from .podset import quantities, requests_of
from .provenance import not_modelled, operators
from .queue_webhooks import admit_queue
from .queue_manager import find_queue
from .raycluster_common import strip_cluster_injection
from .reconciler import child_events, child_versions, load_job
from .rayservice_controller import is_suspended
from .workload import admitted, condition, created_at, owner_of, quota_reserved, with_conditions, wl_pod_sets

APPLIED_KINDS = (CQ, LQ, RF, "WorkloadPriorityClass")




class _Keep:
    """Wraps a model to keep the last world of a simulation."""

    def __init__(self, model: Any, box: list[World]) -> None:
        self._m, self._box = model, box
        self.api_version, self.kind, self.timed = model.api_version, model.kind, model.timed

    def __getattr__(self, n: str) -> Any:
        return getattr(self._m, n)

    def converged(self, d: Obj, w: World) -> bool:
        self._box.append(w)
        return self._m.converged(d, w)

    def diagnose(self, d: Obj, w: World, e: Environment) -> Stuck:
        self._box.append(w)
        return self._m.diagnose(d, w, e)


class KueueRayServiceModel:
    """KindModel for a RayService planned with Kueue in the loop."""

    api_version = RAY_API
    kind = RS
    timed = True

    def __init__(self, kueue: str = TOP, kuberay_version: str | None = None, queues: Sequence[Obj] = (),
                 observed_queues: Sequence[Obj] = (), neighbours: Sequence[Obj] = (), siblings: Sequence[Obj] = (),
                 **options: Any) -> None:
        if kueue not in MODELS:
            raise ValueError(f"unknown Kueue model {kueue!r}; choose one of {', '.join(MODELS)}")
        self.mode = kueue
        self.kuberay_version = kuberay_version
        self.kr = RayServiceModel(kuberay_version=kuberay_version, **options)
        self.options = options
        self.kr.pod_gate = self._pod_gate
        self.kr.world_view = self._kr_view
        self.queues = tuple(queues)
        self.observed_queues = tuple(observed_queues)
        #: the other observed RayServices under Kueue (``_neighbour_workloads``)
        self.neighbours = tuple(neighbours)
        #: the other desired RayServices under Kueue (each planned on its own: ``_model_notes``)
        self.siblings = tuple(siblings)

    def provenance(self) -> dict[str, Any]:
        """The modelled KubeRay operator (``RayServiceModel.provenance``) and the Kueue model."""
        return {**self.kr.provenance(), "kueueModel": self.mode}

    def _pod_gate(self, rc: Obj, world: World) -> str | None:
        return gate_reason(self.mode, rc, world)

    # -- observe -----------------------------------------------------------------------
    def observe(self, desired: Obj | None, observed: Sequence[Obj], env: Environment) -> World:
        assert desired is not None
        qobs: dict[tuple, Obj] = {}
        # (Namespaces: their labels, for the ClusterQueues' namespaceSelector)
        for o in list(self.observed_queues) + [o for o in observed if o.kind in KUEUE_KINDS
                                               or (o.kind == "Namespace" and o.api_version == "v1")]:
            qobs[key_of(o)] = o
        others = [o for o in observed if o.kind not in KUEUE_KINDS]
        seen = {key_of(o) for o in others}
        found = self._neighbour_workloads(desired, [*others, *(n for n in self.neighbours if key_of(n) not in seen)],
                                          qobs, env)
        for w in found.workloads:
            qobs[key_of(w)] = w
        # the settled neighbours' RayClusters keep running (neighbours.py)
        kept = {MEM_KEPT_CLUSTERS: found.clusters} if found.clusters else {}
        rs_obs = next((o for o in others if o.kind == RS and o.name == desired.name
                       and o.namespace == desired.namespace), None)
        notes: list[Warning] = []
        if rs_obs is None:
            world = self.kr.observe(desired, [], env)
            world = world.replace(put=qobs.values()).with_memory(**{MEM_CREATE: True})
        else:
            kids = [o for o in others if o.kind in (RC, "Service", "Gateway", "HTTPRoute")]
            ours = [w for w in qobs.values() if w.kind == WL and w.namespace == desired.namespace and (
                owner_of(w) == (RS, desired.name) or (owner_of(w) or ("", ""))[1].startswith(desired.name + "-"))]
            if not rs_obs.status and not kids and not ours:
                # pending Workloads of other jobs arrived after the RayService settled
                before = [o for o in qobs.values() if o.kind != WL or quota_reserved(o)]
                base = self._settled(rs_obs, before, env, clusters=found.clusters)
                base = base.replace(put=[o for o in qobs.values() if o.kind == WL and not quota_reserved(o)])
                live = base.get(RS, desired.namespace, desired.name) or rs_obs
                merged = carry_kueue_fields(live, desired)
                world = self._retarget(base, live, merged)
                world = self.kr.with_notes(merged, world)
                notes.append(Warning("ObservedFromManifest",
                                     "only the RayService manifest was observed: assuming the state it settles in "
                                     f"under Kueue ({self.mode}) with the observed queues — Workload admitted, one "
                                     "RayCluster serving", ""))
            else:
                merged = carry_kueue_fields(rs_obs, desired)
                world = self.kr.observe(merged, others, env)
                world = world.replace(put=qobs.values())
        # queues in the desired files are applied with the change
        world = world.replace(put=[q for q in self.queues if q.kind in APPLIED_KINDS])
        world = world.with_memory(**{MEM_NOTES: tuple(notes) + tuple(self._model_notes(desired, world))}, **kept)
        # how KubeRay's pass ends is written by that pass (reconcile_pass)
        return world.replace(memory=without_outcome(world.memory))

    def _neighbour_workloads(self, desired: Obj, others: Sequence[Obj], qobs: Mapping[tuple, Obj],
                             env: Environment) -> Neighbours:
        """The Workloads of the other observed RayServices under Kueue that the input does
        not give: each is settled as the target's previous manifest is (``_settled``), in
        input order against the queues and the Workloads before it, and its quota-holding
        Workloads count in the ClusterQueue's usage (``updateWorkloadUsage``,
        clusterqueue.go). A suspended one (its Workload pending) holds none. The
        RayClusters that own them (legacy) keep running.

        Settled in ``neighbours.neighbour_workloads``: a later one's settling reads the
        Workloads before it through the usage they hold, as the scheduler's cache keeps
        it, except those its Kueue controllers read one by one."""
        return neighbour_workloads(desired, others, qobs,
                                   lambda rs, given, held, clusters: self._settled(rs, given, env, held, clusters))

    def _settled(self, prev: Obj, queues: list[Obj], env: Environment,
                 held: Mapping[str, Mapping[tuple[str, str], int]] | None = None,
                 clusters: frozenset[tuple[str, str]] = frozenset()) -> World | None:
        """The previous manifest planned from creation under the same Kueue model and the
        observed queues; Workload creation times are moved before the plan's clock.
        ``held``: per ClusterQueue, the usage of admitted Workloads not in ``queues``
        (``clusterqueue.held_usage``); then None when the plan's loop guard ended it
        (NoProgress): where that guard stops depends on how many objects the world holds,
        which the held ones are not (``neighbours.neighbour_workloads`` settles again with
        every Workload given). ``clusters``: the settled neighbours' RayClusters that own
        Workloads in ``queues`` (world memory ``MEM_KEPT_CLUSTERS``); the world returned
        does not carry them."""
        raw = copy.deepcopy(dict(prev.raw))
        raw.pop("status", None)
        md = dict(raw.get("metadata") or {})
        md.pop("finalizers", None)
        md["generation"] = 1
        raw["metadata"] = md
        base = Obj(raw, prev.file, prev.line, prev.lines)
        sub = KueueRayServiceModel(self.mode, self.kuberay_version, (), queues, config=self.kr.config)
        world = sub.observe(base, [], env)
        if held:
            world = world.with_memory(**{MEM_HELD_USAGE: held})
        if clusters:
            world = world.with_memory(**{MEM_KEPT_CLUSTERS: clusters})
        box: list[World] = []
        plan = simulate(_Keep(sub, box), base, world, Environment(capacity=env.capacity, max_steps=200))
        if held and plan.stuck is not None and plan.stuck.reason == STUCK_NO_PROGRESS:
            return None
        final = box[-1] if box else world
        ws = sorted((w for w in final.of_kind(WL)), key=created_at)
        moved = []
        for i, w in enumerate(ws):
            r = copy.deepcopy(dict(w.raw))
            r["metadata"]["creationTimestamp"] = i - len(ws) - 1
            moved.append(Obj(r, w.file, w.line, w.lines))
        mem = {a: b for a, b in final.memory.items()
               if a not in (MEM_CREATE, MEM_NOTES, MEM_HELD_USAGE, MEM_KEPT_CLUSTERS, MEM_CHILDREN_SEEN, "kuberay/notes")}
        return World({kk: final.get(*kk) for kk in final.keys()}, 0, mem).replace(put=moved)

    def _retarget(self, world: World, live: Obj, merged: Obj) -> World:
        raw = copy.deepcopy(dict(live.raw))
        md = dict(raw.get("metadata") or {})
        gen = int(md.get("generation") or 1)
        if as_map(live.raw.get("spec")) != as_map(merged.raw.get("spec")):
            gen += 1
        md["generation"] = gen
        for f in ("labels", "annotations"):
            if f in merged.metadata:
                md[f] = {**copy.deepcopy(dict(merged.metadata[f])),
                         **{a: b for a, b in as_map(live.metadata.get(f)).items() if a.startswith(KUEUE_PREFIXES)
                            and a not in as_map(merged.metadata.get(f))}}
        raw["metadata"] = md
        raw["spec"] = copy.deepcopy(dict(merged.spec))
        return world.replace(put=[Obj(raw, merged.file, merged.line, merged.lines)])

    def _model_notes(self, desired: Obj, world: World) -> list[Warning]:
        out: list[Warning] = []
        if not desired.labels.get(QUEUE_LABEL) and world.get(LQ, desired.namespace, "default") is None:
            out.append(Warning("KueueNotManaging", f"the RayService has no {QUEUE_LABEL} label and the namespace has "
                               "no LocalQueue named default: Kueue ignores it (manageJobsWithoutQueueName off)",
                               f"metadata.labels[{QUEUE_LABEL}]"))
            return out
        if self.mode == TOP:
            out.append(Warning("KueuePOC", "Kueue model top-level follows Kueue's unmerged PR #11264 (commit "
                               "1828096a) and KubeRay's RayService spec.suspend; no Kueue release has it. Actions "
                               "whose rule starts with kueue[POC] exist only there", "spec.suspend"))
            if desired.annotations.get("kueue.x-k8s.io/elastic-job") != "true":
                out.append(Warning("KueueNotElastic", "without the kueue.x-k8s.io/elastic-job: \"true\" annotation a "
                                   "second RayCluster changes the Workload's pod sets, so Kueue stops the whole "
                                   "RayService (top-level suspend) and re-queues it: the upgrade has downtime "
                                   "[derived]", "metadata.annotations"))
        elif self.mode == NESTED:
            out.append(Warning("KueueUpgradeUnaccounted", "Kueue model nested (merged, Kueue >= v0.17): a new "
                               "RayCluster of an upgrade is not counted against quota (kubernetes-sigs/kueue#11102); "
                               "upgrade outcomes under this model are predictions [derived]",
                               "spec.rayClusterConfig"))
        else:
            out.append(Warning("KueueLegacy", "Kueue model legacy: each RayCluster is its own job with its own "
                               "Workload; the upgrade's new cluster must fit its full request next to the old one",
                               "metadata.labels"))
        _lq, cq = find_queue(world, desired.namespace, str(desired.labels.get(QUEUE_LABEL) or "default"))
        others = [o.name for o in self.siblings if (o.namespace, o.name) != (desired.namespace, desired.name)
                  and cq is not None and getattr(find_queue(world, o.namespace, str(o.labels.get(QUEUE_LABEL)))[1],
                                                 "name", None) == cq.name]
        if others:
            out.append(Warning("KueueSiblingsNotCounted", "each RayService is planned on its own: this plan does not "
                               f"count the quota of {', '.join(sorted(others))} (desired too, in ClusterQueue "
                               f"{cq.name}) — plan one with the other as --observed to see them compete",
                               f"metadata.labels[{QUEUE_LABEL}]"))
        if cq is not None and namespace_admissible(cq, desired.namespace, world) is None:
            out.append(Warning("KueueNamespaceSelectorAssumed", f"ClusterQueue {cq.name}'s namespaceSelector reads "
                               f"labels of Namespace {desired.namespace}, which the input does not have: taken to "
                               "select it (give the Namespace object, kubectl get namespace -o yaml, to check)",
                               "metadata.namespace"))
        # the CRD names the cohort "cohort" in v1beta1 and "cohortName" in v1beta2
        cohorts = sorted((c.name, "cohortName" if c.spec.get("cohortName") else "cohort") for c in world.of_kind(CQ)
                         if c.kind == CQ and (c.spec.get("cohortName") or c.spec.get("cohort")))
        if cohorts:
            out.append(Warning("KueueCohortNotModelled", "ClusterQueue cohorts (borrowing, lending, reclaim) are not "
                               f"modelled: only nominal quota is used (ClusterQueue{'s' if len(cohorts) > 1 else ''} "
                               f"{', '.join(n for n, _ in cohorts)} in a cohort)",
                               f"ClusterQueue/{cohorts[0][0]}.spec.{cohorts[0][1]}"))
        return out

    # -- the round ---------------------------------------------------------------------
    def _rs(self, desired: Obj, world: World) -> Obj | None:
        return world.get(RS, desired.namespace, desired.name)

    def _kr_view(self, world: World) -> World:
        """Legacy model: KubeRay compared the RayService with the hash it stored when it
        created the RayCluster, before Kueue injected into the cluster's templates; the
        model compares specs, so it reads the clusters without that injection."""
        if self.mode != LEGACY:
            return world
        return self._without_injection(world)

    @staticmethod
    def _without_injection(world: World) -> World:
        """``world`` with every RayCluster's templates as KubeRay made them, before Kueue's
        admission injected its pod-set labels, node selectors and tolerations
        (``strip_cluster_injection``): the spec KubeRay's stored hash was computed from."""
        rfs = world.of_kind(RF)
        put = []
        for rc in world.of_kind(RC):
            raw = copy.deepcopy(dict(rc.raw))
            spec = raw.get("spec")
            if not isinstance(spec, dict):
                continue
            strip_cluster_injection(spec, rfs)
            put.append(Obj(raw, rc.file, rc.line, rc.lines))
        return world.replace(put=put)

    def reconcile(self, desired: Obj, world: World) -> list[Action]:
        return self.reconcile_pass(desired, world)[0]

    def reconcile_pass(self, desired: Obj, world: World) -> tuple[list[Action], dict[str, Any]]:
        """KubeRay's pass, then Kueue's; the world memory KubeRay's pass leaves (how it
        requeues: ``RayServiceModel.reconcile_pass``)."""
        rs = self._rs(desired, world)
        if rs is None:
            return [], {}
        out: list[Action] = []
        w = world
        if w.memory.get(MEM_CREATE):
            a = rayservice_webhook.default(self.mode, rs, w)
            if a is not None:
                # the create request itself: stored mutated, before any controller sees it
                return [a], self.kr.reconcile_pass(rs, w)[1]
        kacts, memory = self.kr.reconcile_pass(rs, w)
        # what Kueue's RayCluster job reconciler saw of the children at its previous pass
        # (at the plan's start: what is there, already reconciled by a running controller)
        seen = w.memory.get(MEM_CHILDREN_SEEN)
        if seen is None:
            seen = child_versions(w, rs)
        if kacts:
            w = w.apply(self._real_payloads(kacts, w))
            out.extend(kacts)
        created = [a.uid or a.name for a in kacts if a.verb == "create" and a.kind == RC]
        rs_now = w.get(RS, rs.namespace, rs.name) or rs
        events = child_events(seen, w, rs_now, created)
        out.extend(run_pass(self.mode, w, (desired.namespace, desired.name), created, events))
        return out, {**memory, MEM_CHILDREN_SEEN: child_versions(w, rs_now)}

    def _real_payloads(self, actions: list[Action], world: World) -> list[Action]:
        return actions

    def advance(self, desired: Obj, world: World, env: Environment) -> Progress:
        rs = self._rs(desired, world)
        if rs is None:
            return self.kr.advance(desired, world, env)
        w = world
        created = bool(w.memory.get(MEM_CREATE))
        if created:
            w = w.with_memory(**{MEM_CREATE: False})
        before = tuple(w.memory.get(MEM_UNGATED, ()))
        w = ungate(self.mode, w, rs)
        ungated = tuple(w.memory.get(MEM_UNGATED, ())) != before
        released = self._release_foreign(w, desired)
        if released:
            w = w.replace(put=released)
        prog = self.kr.advance(rs, w, env)
        return Progress(prog.world, prog.waits, prog.progressed or created or ungated or bool(released))

    def _release_foreign(self, world: World, desired: Obj) -> list[Obj]:
        """Workloads of other jobs that were evicted: their jobs stop (not modelled) and the
        reservation is cleared, as their own job reconciler would. Returns the Workloads
        as they are after that."""
        put = []
        for w in world.of_kind(WL):
            if self._ours(w, desired, world) or not evicted(w) or not quota_reserved(w):
                continue
            raw = copy.deepcopy(dict(w.raw))
            st = dict(raw.get("status") or {})
            st.pop("admission", None)
            raw["status"] = st
            raw = with_conditions(raw, {"QuotaReserved": ("False", "PendingEvaluation",
                                                          str((condition(w, "Evicted") or {}).get("message") or "evicted")),
                                        "Admitted": ("False", "NoReservation", ""),
                                        "Requeued": ("True", "Preempted", "")})
            put.append(Obj(raw, w.file, w.line, w.lines))
        return put

    def _ours(self, w: Obj, desired: Obj, world: World) -> bool:
        own = owner_of(w)
        if own is None or w.namespace != desired.namespace:
            return False
        if own == (RS, desired.name):
            return True
        if own[0] == RC:
            # a Workload whose RayCluster is gone is taken for the planned RayService's (its old
            # cluster's); a settled neighbour's RayCluster is found
            rc, gone = load_job(world, w.namespace, own[1])
            return gone if rc is None else rc.labels.get("ray.io/originated-from-cr-name") == desired.name
        return False

    def our_workloads(self, desired: Obj, world: World) -> list[Obj]:
        return sorted((w for w in world.of_kind(WL) if self._ours(w, desired, world) and not w.terminating),
                      key=created_at)

    def managed(self, rs: Obj) -> bool:
        return bool(rs.labels.get(QUEUE_LABEL))

    # -- outcome -----------------------------------------------------------------------
    def converged(self, desired: Obj, world: World) -> bool:
        rs = self._rs(desired, world)
        if rs is None:
            return False
        if self.managed(rs):
            pending = [w for w in self.our_workloads(desired, world) if not finished(w) and not admitted(w)]
            if pending:
                return False
            if self.mode != LEGACY and is_suspended(self.mode, rs) and self.mode == TOP:
                return False
            if self.mode == LEGACY:
                for c in children(world, rs):
                    if not c.terminating and c.spec.get("suspend") is True:
                        return False
        return self.kr.converged(rs, world)

    def diagnose(self, desired: Obj, world: World, env: Environment) -> Stuck:
        rs = self._rs(desired, world)
        if rs is not None and self.managed(rs):
            s = priority_class_stuck(self.our_workloads(desired, world), world, rs)
            if s is not None:
                return s
            s = quota_stuck(self.mode, self.our_workloads(desired, world), world, rs)
            if s is not None:
                return s
            s = gated_stuck(self.mode, self.our_workloads(desired, world), world, rs)
            if s is not None:
                return s
        base = self.kr.diagnose(rs or desired, world, env)
        if base.reason == "ClusterSuspended" and rs is not None and self.managed(rs):
            return suspended_stuck(self.mode, self.our_workloads(desired, world), base, world, rs)
        return base

    # -- reporting ---------------------------------------------------------------------
    def strategy(self, desired: Obj) -> str:
        return f"{self.kr.strategy(desired)} (Kueue {self.mode})"

    def own_strategy(self, desired: Obj) -> str:
        return f"kueue:{self.mode}"

    def metrics(self, world: World) -> Mapping[str, Any]:
        return self.kr.metrics(world)

    def counts(self, desired: Obj, world: World) -> Mapping[str, Any]:
        out = dict(self.kr.counts(desired, world))
        ws = [w for w in self.our_workloads(desired, world) if not finished(w)]
        out["workloads"] = len(ws)
        out["admittedWorkloads"] = sum(1 for w in ws if admitted(w))
        res: dict[str, int] = {}
        for w in ws:
            if quota_reserved(w):
                for r, v in requests_of(wl_pod_sets(w)).items():
                    res[r] = res.get(r, 0) + v
        out["quotaReserved"] = quantities(res)
        rs = self._rs(desired, world)
        if rs is not None:
            out["rayServiceSuspended"] = is_suspended(self.mode, rs) if self.mode != LEGACY else False
        return out

    def title(self, actions: Sequence[Action], world: World) -> str:
        runs: list[tuple[bool, list[Action]]] = []
        for a in actions:
            kr = a.rule.startswith("kuberay:")
            if runs and runs[-1][0] == kr:
                runs[-1][1].append(a)
            else:
                runs.append((kr, [a]))
        parts = []
        for kr, acts in runs:
            if kr:
                parts.append("KubeRay: " + self.kr.title(acts, world))
            else:
                parts.append("Kueue: " + "; ".join(dict.fromkeys(kueue_phrase(a) for a in acts)))
        return " | ".join(parts)

    def warnings(self, desired: Obj, world: World) -> list[Warning]:
        kr = list(self.kr.warnings(desired, world))
        if self.mode == TOP:
            # rayClusterConfig.suspend: true is Kueue's persistent child gate here, not a user choice
            kr = [w for w in kr if w.code not in ("ClusterBornSuspended", "NestedSuspendIgnored")]
        else:
            written = (desired.written or desired).spec.get("rayClusterConfig")
            if not (isinstance(written, Mapping) and written.get("suspend") is True):
                # Kueue's webhook set rayClusterConfig.suspend (the Workload is queued), not the
                # manifest: the plan's own steps and stuck reason say what follows from it
                kr = [w for w in kr if w.code != "ClusterBornSuspended"]
        return kr + list(world.memory.get(MEM_NOTES, ())) + self._queue_warnings()

    def _queue_warnings(self) -> list[Warning]:
        """What admission warns of the desired queues applied with the change (a deprecated
        served version: ``queue_webhooks.admit_queue``), with where each one is."""
        return [Warning(f.rule, f"{q.kind} {q.name} ({f.file}:{f.line}): {f.message}", f.path)
                for q in self.queues for f in admit_queue(q) if f.severity == "warning"]

    # phases and provenance: kinds/kueue/phases.py, kinds/kueue/provenance.py
    def phase_of(self, desired: Obj, step: Any) -> Any:
        return phase_of(self.kr, desired, step)

    def phase_title(self, desired: Obj, label: Any, steps: Sequence[Any]) -> str | None:
        return phase_title(self.kr, desired, label, steps)

    def operators(self, desired: Obj) -> list[Any]:
        return list(self.kr.operators(desired)) + operators(self.mode)

    def not_modelled(self, desired: Obj, world: World) -> list[Warning]:
        return list(self.kr.not_modelled(desired, world)) + not_modelled(self.mode)

    def rejected_at_admission(self, finding: Finding) -> bool:
        """KubeRay's rules as ``RayServiceModel.rejected_at_admission``; Kueue's webhook rules refuse."""
        return self.kr.rejected_at_admission(finding) if finding.rule.startswith("RS") else True

    def validate(self, obj: Obj, old: Obj | None = None) -> list[Finding]:
        return list(self.kr.validate(obj, old)) + kueue_validation.validate(obj, old, self.mode,
                                                                            self.observed_queues + self.queues)

    def classify(self, changes: Sequence[Change], desired: Obj, live: Obj, related: Sequence[Obj] = ()) -> list[Impact]:
        return self.kr.classify(changes, desired, live, related)

    # -- advise: KubeRay's strategies, each candidate planned with Kueue in the loop -------
    floor_goal = RayServiceModel.floor_goal
    floor_text = RayServiceModel.floor_text

    def advice_spaces(self, desired: Obj, old: Obj | None) -> list:
        return self.kr.advice_spaces(desired, old)

    def desired_pods(self, desired: Obj) -> int:
        return self.kr.desired_pods(desired)

    def floor_deficit(self, desired: Obj, world: World) -> int:
        return self.kr.floor_deficit(desired, world)

    def rolls_out(self, desired: Obj, world: World) -> tuple[str, str] | None:
        """KubeRay's ``rolls_out`` on the clusters as KubeRay made them: the running cluster
        carries the desired config when its hash (computed before Kueue injected into it)
        matches (``_without_injection``)."""
        return self.kr.rolls_out(desired, self._without_injection(world))

    def teardown(self, desired: Obj) -> str | None:
        return self.kr.teardown(desired)

    # -- plan --compare ----------------------------------------------------------------
    def compare(self, desired: Obj, observed: Sequence[Obj], env: Environment) -> Comparison:
        """``plan --compare``: the same change under the three Kueue models, side by side."""
        return Comparison(desired.ref, tuple(compare_rows(self, desired, observed, env)),
                          (Warning("KueuePOC", "row kueue:top-level follows Kueue's unmerged PR #11264",
                                   "spec.suspend"),))


def compare_variants() -> tuple[str, ...]:
    """The rows of ``plan --compare`` for a RayService under Kueue."""
    return tuple(f"kueue:{m}" for m in MODELS)


def compare_rows(model: KueueRayServiceModel, desired: Obj, observed: Sequence[Obj],
                 env: Environment) -> list[ComparisonRow]:
    rows = []
    for m in MODELS:
        sub = KueueRayServiceModel(m, model.kuberay_version, model.queues, model.observed_queues,
                                   neighbours=model.neighbours, config=model.kr.config)
        world = sub.observe(desired, list(observed), env)
        p = simulate(sub, desired, world, env)
        rows.append(ComparisonRow(strategy=f"kueue:{m}", outcome=p.outcome, stuck=p.stuck, steps=len(p.steps),
                                  min_ready_pods=int(p.summary.get("minReadyPods", 0)),
                                  peak_pods=int(p.summary.get("peakPods", 0)),
                                  peak=dict(p.summary.get("peak") or {}), plans=(p,)))
    return rows


# --------------------------------------------------------------------------- webhook validation


def queue_objects(objs: Sequence[Obj]) -> list[Obj]:
    """The Kueue objects among ``objs`` (for the app: desired and observed queues), and the
    Namespaces, whose labels ClusterQueues' ``namespaceSelector`` reads."""
    return [o for o in objs if (o.kind in KUEUE_KINDS and o.api_version.startswith("kueue.x-k8s.io/"))
            or (o.kind == "Namespace" and o.api_version == "v1")]


def neighbours(objs: Sequence[Obj]) -> list[Obj]:
    """The RayServices among ``objs`` that name a Kueue queue (every namespace): the
    other jobs of the ClusterQueues a plan's RayService may share."""
    return [o for o in objs if o.kind == RS and o.labels.get(QUEUE_LABEL)]


def for_plan(mode: str, desired: Sequence[Obj] = (), observed: Sequence[Obj] = (), **options: Any) -> KueueRayServiceModel:
    """The model ``plan --kueue MODE`` uses for a RayService: KubeRay and Kueue
    interleaved, with the Kueue objects of the desired and observed input."""
    return KueueRayServiceModel(kueue=mode, queues=queue_objects(desired), observed_queues=queue_objects(observed),
                                neighbours=neighbours(observed), siblings=neighbours(desired), **options)
