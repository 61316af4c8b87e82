"""The Grove PodCliqueSet model: one reconcile round of the PodCliqueSet,
PodCliqueScalingGroup and PodClique controllers, and the world around them.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ...core.environment import Environment
from ...core.kind import resolve
from ...core.kind import Progress
from ...core.model import Action, Change, Comparison, Finding, Impact, Obj, Stuck, Warning, describe_actions
from ...core.queue import Controller, Round, WorkQueue
from ...core.simulate import run
from ...core.timestamps import snapshot_time
from ...core.overlay import Overlay
from ...core.world import World
from . import admission as ADM
from . import cluster
from .controller.common import by_names, owned, pods_of
from .controller.podcliquescalinggroup.components.podclique.sync import sync_scaling_group_podcliques
from .controller.podcliqueset.components.podgang import live_pcsg_replicas
from .controller.podcliqueset.reconcilespec import process_generation_hash_change, sync_podcliqueset
from . import gang_terminate as GT
from . import live as LIVE
from . import mnnvl as MNNVL
from . import names as N
from . import objects as O
from . import observed as OBS
from . import phases as PH
from . import provenance as PROV
from . import status as ST
from . import summary as SUM
from . import update_common as U
from . import replica_index as RI
from .controller.podcliqueset.components.podcliquesetreplica import rollingupdate as PCSR
from . import register as R
from ...core.records import record
from .defaults import as_stored
from .diagnose import diagnose
from .hashing import hash_keeps_empty
from .options import GroveConfig
from .spec import PCS
from .strategies import policy_for, policy_named

_P = "rolloutctl.kinds.grove."

#: world.memory key: warnings about the starting state, computed once by ``observe``
MEM_WARNINGS = "grove.warnings"
#: world.memory key: the update of the observed PodCliqueSet to the desired one does not
#: make the PodCliqueSet controller reconcile (``register.pcs_update_reconciles``)
MEM_UPDATE_FILTERED = "grove.updateFiltered"


class GroveModel:
    api_version = N.API_CORE
    kind = "PodCliqueSet"
    timed = False

    def __init__(self, **options: Any) -> None:
        self.options = options

    # helpers -----------------------------------------------------------------
    def pcs(self, desired: Obj) -> PCS:
        """The desired PodCliqueSet, parsed once per object."""
        return desired.derived(PCS)  # type: ignore[no-any-return]

    # KindModel ---------------------------------------------------------------
    def strategy(self, desired: Obj) -> str:
        return self.pcs(desired).strategy_type

    def observe(self, desired: Obj | None, observed: Sequence[Obj], env: Environment) -> World:
        """Build the starting world. No observed objects: a new PodCliqueSet. Only the
        previously applied PodCliqueSet: the settled cluster at that spec (derived by
        planning its creation with unlimited capacity). Live children: as given."""
        assert desired is not None
        pcs = self.pcs(desired)
        tops = [o for o in observed if o.kind == "PodCliqueSet" and o.name == desired.name and o.namespace == desired.namespace]
        children, foreign = OBS.partition_owned(pcs, [o for o in observed if o.kind != "PodCliqueSet"])
        breaches: tuple[Warning, ...] = ()
        if not tops and not children:
            world = World([_with_status(desired, {})])
        elif tops and not children:
            old = tops[0]
            _plan, settled = run(GroveModel(**self.options), old, World([_with_status(old, {})]),
                                 Environment(max_steps=100000), record=False)
            old_pcs = settled.get("PodCliqueSet", old.namespace, old.name)
            status = dict(old_pcs.status) if old_pcs is not None else {}
            world = settled.replace(put=[_with_status(desired, status)])
        else:
            kids, status = OBS.translate_live(pcs, tops[0] if tops else None, children)
            world = World(list(kids) + [_with_status(desired, status)])
            since = snapshot_time(observed)
            if since is not None:
                world = GT.with_expired(world, GT.breaches_expired_at(pcs, world, since))
            breaches = tuple(OBS.breach_warnings(pcs, world, since) + OBS.crash_loop_warnings(pcs, world)
                             + LIVE.missing_owner_warnings(pcs, world))
        return world.with_memory(**{MEM_WARNINGS: OBS.initial_warnings(pcs, world) + OBS.foreign_warnings(pcs, foreign)
                                    + breaches,
                                    MEM_UPDATE_FILTERED: bool(tops) and not R.pcs_update_reconciles(tops[0], desired)})

    def reobserve(self, world: World, desired: Obj, observed: Sequence[Obj], env: Environment) -> World:
        """The starting world of ``desired`` when ``world`` is what ``observe`` built from
        the same ``observed`` input for a manifest that differs from ``desired`` only in
        its update-strategy fields (``advise`` plans many such candidates). With only the
        previous PodCliqueSet observed, the settled cluster does not depend on the new
        manifest: the PodCliqueSet object is swapped, its status kept, as ``observe``
        does. Otherwise (live children) ``observe`` runs again."""
        pcs = self.pcs(desired)
        tops = [o for o in observed if o.kind == "PodCliqueSet" and o.name == desired.name and o.namespace == desired.namespace]
        children, foreign = OBS.partition_owned(pcs, [o for o in observed if o.kind != "PodCliqueSet"])
        cur = world.get("PodCliqueSet", desired.namespace, desired.name)
        if not tops or children or cur is None:
            return self.observe(desired, observed, env)
        w = world.replace(put=[_with_status(desired, cur.status)])
        return w.with_memory(**{MEM_WARNINGS: OBS.initial_warnings(pcs, w) + OBS.foreign_warnings(pcs, foreign),
                                MEM_UPDATE_FILTERED: not R.pcs_update_reconciles(tops[0], desired)})

    #: rounds take their keys from the plan's work queue (``core/queue.py``; the
    #: controllers' watches: ``register.py``)
    work_queue = True

    def reconcile(self, desired: Obj, world: World, queue: WorkQueue | None = None) -> list[Action]:
        """One round: every controller's pass, each on the world the previous one left,
        each reconciling the keys the work queue hands it (``queue``; None: every key,
        as on a controller's start)."""
        pcs = self.pcs(desired)
        base = world
        # Views the passes use, computed on the round's input world so that the next
        # round's world (derived from this one, not from the passes' scratch worlds)
        # patches them instead of building them afresh.
        for kind, label in _VIEWS:
            world.index(kind, label)
        RI.warm_replica_index(pcs, world)
        actions: list[Action] = []
        policy = policy_for(pcs)
        _warm(pcs, policy, world)
        q = _Passes(queue, pcs, base)
        # status bookkeeping of what happened since the last round (every controller's
        # reconcileStatus), hidden
        no_gang = policy.gang_termination_suppressed(pcs, world)
        pass_actions = ST.refresh(pcs, world, arming=not no_gang, queue=q)
        if pass_actions:
            world = world.apply(pass_actions)
            actions += pass_actions
        # PodCliqueSet controller: generation hash, update orchestration, components
        live = world.get("PodCliqueSet", pcs.namespace, pcs.name)
        status = U.live_pcs_status(pcs, world)
        pass_actions = process_generation_hash_change(pcs, world, status) if live is not None else []
        first_hash: list[Action] = []
        if pass_actions and not status.get("currentGenerationHash"):
            # the very first reconcile only stores the hash; listed after the creations
            first_hash, pass_actions = pass_actions, []
        if pass_actions:
            world = world.apply(pass_actions)
            status = U.live_pcs_status(pcs, world)
        # the PodCliqueSet replica component: gang termination first, then (RollingRecreate)
        # the rolling update, which skips the terminated replicas
        armed = GT.armed(pcs, world)
        more, gang = GT.gang_terminate_pcs_replicas(pcs, world, armed) if not no_gang else ([], None)
        if more:
            world = world.apply(more)
            pass_actions += more
        more = policy.pcs_pass(pcs, world, status, gang=gang)
        if more:
            world = world.apply(more)
            pass_actions += more
            status = U.live_pcs_status(pcs, world)
        more = sync_podcliqueset(
            pcs, world, status, surge_replicas=policy.surge_pcs_replicas(pcs, world),
            pcsg_surge=lambda live, w=world: policy.pcsg_surges(pcs, w, live), queue=q) + first_hash
        world = world.apply(more)
        pass_actions += more
        actions += pass_actions
        # PodCliqueScalingGroup controller
        members_idx = world.index("PodClique", N.L_PCSG)
        pass_actions = q.run(
            R.pcsg_components(pcs, policy.pcsg_hooks_selection), world,
            lambda g: sync_scaling_group_podcliques(
                pcs, world, may_create=lambda pcsg, j: policy.may_create_pcsg_replica(pcs, pcsg, j, world),
                surge=lambda pcsg, w=world: policy.surge_pcsg_replicas(pcs, pcsg, w), only=[g],
                gang=not no_gang and any(k[0] == "PodClique" and k[1].startswith(g.name + "-") for k in armed)),
            lambda g: policy.pcsg_hooks_requeue(pcs, g, world) or
            bool(armed and GT.pcsg_waits_on_breach(g, members_idx.get(g.name, ()))))
        pass_actions += q.run(R.pcsg_update(pcs, policy.pcsg_selection), world,
                              lambda g: policy.pcsg_pass(pcs, g, world), lambda g: policy.pcsg_requeue(pcs, g, world))
        world = world.apply(pass_actions)
        actions += pass_actions
        # PodClique controller. Its pass derives a world from this one for each PodClique
        # it writes to: the pod views the pass reads are computed here first, so that
        # each of those worlds patches them (a round that created many objects has cut
        # this world's link to the round's input world, whose views it would patch)
        SUM.pod_summaries(world, N.L_PCLQ)
        actions += q.run(R.pclq_spec(pcs, policy.pclq_selection), world,
                         lambda o: policy.pclq_pass(pcs, o, world), lambda o: policy.pclq_requeue(pcs, o, world))
        if base.memory.get(MEM_UPDATE_FILTERED) and not R.pcs_requeues(pcs, base) and \
                R.only_mirrors_metadata(actions, base):
            # podCliqueSetPredicate (podcliqueset/register.go) drops the update (labels or
            # annotations only), nothing else changed and the controller is not requeueing
            # itself: upstream does not reconcile the PodCliqueSet, whose reconcile is all
            # this round would do
            return []
        return actions

    def advance(self, desired: Obj, world: World, env: Environment, queue: WorkQueue | None = None) -> Progress:
        # ``env.idle``: the operator had nothing to do on exactly this world, so time
        # may pass (``gang_terminate.expire_breaches``)
        return cluster.advance(self.pcs(desired), world, env, quiet=queue is not None and queue.was_idle(world))

    def converged(self, desired: Obj, world: World) -> bool:
        pcs = self.pcs(desired)
        for name in expected_pclqs(pcs, world):
            pclq = world.get("PodClique", pcs.namespace, name)
            if pclq is None or pclq.terminating:
                return False
            pods = [p for p in pods_of(world, pclq) if O.pod_active(p)]
            if len(pods) != (pclq.spec.get("replicas") or 0) or not all(O.pod_ready(p) for p in pods):
                return False
        if any(o.terminating for kind in ("PodClique", "Pod", "PodCliqueScalingGroup", "PodGang")
               for o in owned(world, kind, pcs)):
            return False
        return policy_for(pcs).converged(pcs, world)

    def diagnose(self, desired: Obj, world: World, env: Environment) -> Stuck:
        pcs = self.pcs(desired)
        return policy_for(pcs).diagnose(pcs, world, env) or diagnose(pcs, world, env)

    def metrics(self, world: World) -> Mapping[str, Any]:
        """Every pod of the world: the one PodCliqueSet's pod view (which the round and
        the step's counts read anyway) when it holds every pod, else a view of its own."""
        live = world.of_kind("PodCliqueSet")
        t = SUM.pod_groups(world, live[0].namespace, live[0].name) if len(live) == 1 else None
        if t is None or t.n_pods != world.count("Pod"):
            t = SUM.pod_groups(world, None, None)
        pods, ready, res = t.n_active, t.act_ready, dict(t.res)
        return {"pods": pods, "readyPods": ready, "resources": res}

    def counts(self, desired: Obj, world: World) -> Mapping[str, Any]:
        pcs = self.pcs(desired)
        t = SUM.pod_groups(world, pcs.namespace, pcs.name)
        c: _Counts = world.derived(_CountsView(pcs))
        total, ready, scheduled = t.n_active, t.act_ready, t.act_sched
        out = {"desired": c.want, "total": total, "scheduled": scheduled, "ready": ready,
               "updated": c.updated, "old": total - c.updated}
        out.update(policy_for(pcs).counts(pcs, world))
        return out

    def title(self, actions: Sequence[Action], world: World) -> str:
        live = world.of_kind("PodCliqueSet")
        t = policy_named(PCS.strategy_of(live[0])).title(actions, world) if len(live) == 1 else None
        gang = GT.gang_termination_title(actions)
        if gang:
            return gang if not t else f"{gang}; {t}"
        return t or describe_actions(actions)

    def warnings(self, desired: Obj, world: World) -> list[Warning]:
        pcs = self.pcs(desired)
        out = list(world.memory.get(MEM_WARNINGS, ()))
        if world.memory.get(MEM_UPDATE_FILTERED):
            out += OBS.metadata_not_mirrored(pcs, world)
        out += OBS.hazard_warnings(pcs)
        out += OBS.excess_service_warnings(pcs, world)
        out += policy_for(pcs).warnings(pcs, world)
        return out

    # phases and provenance: kinds/grove/phases.py, kinds/grove/provenance.py
    def phase_of(self, desired: Obj, step: Any) -> Any:
        return PH.phase_of(desired, step, self.pcs(desired))

    def phase_title(self, desired: Obj, label: Any, steps: Sequence[Any]) -> str | None:
        return PH.phase_title(desired, label, steps, self.pcs(desired))

    def operators(self, desired: Obj) -> list[Any]:
        return PROV.operators(desired, self.grove_config())

    def grove_config(self) -> GroveConfig:
        """The operator configuration of the model options (``--grove-config``)."""
        return GroveConfig.from_options(self.options)

    def not_modelled(self, desired: Obj, world: World) -> list[Warning]:
        out = PROV.not_modelled(desired)
        if self.grove_config().auto_mnnvl_enabled:
            domains = MNNVL.required_compute_domains(desired.raw)
            if domains:
                shown = ", ".join(domains[:4]) + (f" and {len(domains) - 4} more" if len(domains) > 4 else "")
                out.append(Warning("NotModelledMNNVL", f"with autoMNNVLEnabled the PodCliqueSet controller creates "
                                   f"the ComputeDomains {shown} (resource.nvidia.com) and injects the "
                                   f"{N.MNNVL_CLAIM} resource claim into the pods of the GPU cliques in their "
                                   "MNNVL groups; neither is modelled (nor the wait for the NVIDIA DRA driver to "
                                   "allocate the claims before those pods can run)", "metadata.annotations"))
        return out

    def validate(self, obj: Obj, old: Obj | None = None) -> list[Finding]:
        return ADM.validate(obj, old, self.grove_config())

    def compare(self, desired: Obj, observed: Sequence[Obj], env: Environment) -> "Comparison":
        """``plan --compare``: the change under every Grove update strategy
        (``proposed/compare.py``)."""
        return resolve(_P + "proposed.compare:compare")(GroveModel(**self.options), desired, observed, env)

    def own_strategy(self, desired: Obj) -> str:
        return self.pcs(desired).strategy_type

    # advise (kinds/grove/advise.py) --------------------------------------------
    floor_goal = "every PodCliqueSet replica keeps the minAvailable of its cliques and scaling groups"
    floor_text = ("a PodCliqueSet replica drops below the minAvailable of one of its cliques or scaling groups "
                  "(surge replicas count)")

    # (kinds/grove/advise.py, kinds/grove/classify.py and the comparison are loaded by
    # the commands that use them, through their references)
    def advice_spaces(self, desired: Obj, old: Obj | None) -> list:
        return resolve(_P + "advise:advice_spaces")(desired, old)  # type: ignore[no-any-return]

    def floor_deficit(self, desired: Obj, world: World) -> int:
        return resolve(_P + "advise:floor_deficit")(self.pcs(desired), world)  # type: ignore[no-any-return]

    def desired_pods(self, desired: Obj) -> int:
        return resolve(_P + "advise:desired_pods")(self.pcs(desired))  # type: ignore[no-any-return]

    def rolls_out(self, desired: Obj, world: World) -> tuple[str, str] | None:
        return resolve(_P + "advise:rolls_out")(self.pcs(desired), world)  # type: ignore[no-any-return]

    def defaults(self, raw: dict) -> dict:
        """The PodCliqueSet as the API server stores it, for ``diff``."""
        return resolve(_P + "classify:defaults")(raw)  # type: ignore[no-any-return]

    def stored(self, obj: Obj) -> Mapping[str, Any]:
        """The PodCliqueSet ``diff`` compares: its quantities as the API server stores them,
        which the pod template hash tells apart (``defaults.as_stored``)."""
        return as_stored(obj)

    def keeps_empty(self, path: tuple) -> bool:
        """An empty map, list or struct that Grove's pod template hash tells from an
        absent one (``hashing.hash_keeps_empty``)."""
        return hash_keeps_empty(path)

    def order_matters(self, list_path: tuple) -> bool:
        return resolve(_P + "classify:order_matters")(list_path)  # type: ignore[no-any-return]

    def classify(self, changes: Sequence[Change], desired: Obj, live: Obj, related: Sequence[Obj] = ()) -> list[Impact]:
        return resolve(_P + "classify:classify")(changes, desired, live)  # type: ignore[no-any-return]


class _Passes(Round):
    """One round's passes over the work queue: each controller's pass reconciles the
    keys the queue hands it (every owned object when it hands none), in name order,
    and requeues those that wrote something or ask for it."""

    def __init__(self, queue: WorkQueue | None, pcs: PCS, base: World) -> None:
        super().__init__(queue, (pcs.namespace, pcs.name), base)
        self.pcs = pcs

    def run(self, ctl: Controller, world: World, run: Any, requeue: Any) -> list[Action]:
        """``run`` for the enqueued, non-terminating ``ctl.kind`` objects of the
        PodCliqueSet, concatenating the actions."""
        names = self.keys(ctl, world)
        if names is None:
            todo = [o for o in owned(world, ctl.kind, self.pcs) if not o.terminating]
        else:
            todo = [o for o in by_names(world, ctl.kind, self.pcs, names) if not o.terminating]
        out: list[Action] = []
        again = []
        for o in todo:
            acts = run(o)
            out += acts
            if acts or requeue(o):
                again.append(o.name)
        self.done(ctl, again)
        return out


def _warm(pcs: PCS, policy: Any, world: World) -> None:
    """The world views the passes read, computed on the round's input world: the
    passes' worlds derive from it, and so does the next round's input world (a view
    computed only on a pass's world would be built afresh every round)."""
    gen = U.live_pcs_status(pcs, world).get("currentGenerationHash")
    GT.armed(pcs, world)
    world.derived(PCSR.ReplicaDone(pcs, gen))
    world.derived(ST.ReplicaCounts(pcs, gen))
    live_pcsg_replicas(pcs, world, pcs.replicas + policy.surge_pcs_replicas(pcs, world))
    # the pod summaries by PodGang (the PodGang sync's pod references, the scheduler's
    # gangs): read on the passes' and the cluster step's worlds, which derive from this one
    SUM.pod_summaries(world, N.L_PODGANG)
    policy.warm(pcs, world)


#: the label indexes a round's passes read (the PodCliqueSet-wide groups, by
#: ``grove.io/part-of``, are left out: only the first round, the end of a plan and
#: rare paths read them, and keeping them would copy a group of every PodClique,
#: scaling group, PodGang or Service of the PodCliqueSet on each round that changes one)
_VIEWS = (("Pod", N.L_PCLQ), ("Pod", N.L_PODGANG), ("PodClique", N.L_PCSG),
          ("PodClique", N.L_PCS_REPLICA), ("PodCliqueScalingGroup", N.L_PCS_REPLICA),
          ("HorizontalPodAutoscaler", N.L_PART_OF))


def expected_pclqs(pcs: PCS, world: World) -> list[str]:
    """Names of every PodClique the PodCliqueSet's replicas and their live scaling
    groups' replicas call for."""
    out = []
    for i in range(pcs.replicas):
        for c in pcs.standalone:
            out.append(pcs.standalone_pclq_fqn(i, c.name))
        for g in pcs.groups:
            live = world.get("PodCliqueScalingGroup", pcs.namespace, pcs.pcsg_fqn(i, g))
            reps = live.spec.get("replicas") if live is not None else g.replicas
            reps = reps if isinstance(reps, int) else g.replicas
            for j in range(reps):
                for cn in g.clique_names:
                    out.append(pcs.member_pclq_fqn(i, g, j, cn))
    return out


@record(frozen=True)
class _Counts:
    names: tuple  # expected PodCliques (``expected_pclqs``)
    mult: Mapping[str, int]  # how often each name is expected (clique and group names can collide)
    want_of: Mapping[str, int]
    updated_of: Mapping[str | None, int]
    want: int
    updated: int


@record(frozen=True)
class _CountsView:
    """``World.derived`` description of ``GroveModel.counts``' desired and updated pods
    per PodClique with their totals: patched for the PodCliques whose object or pods
    changed, rebuilt when a scaling group's replicas change."""

    pcs: PCS  # compared by identity: the model's parsed desired PodCliqueSet

    def replicas_of(self, name: str, pcsg: Obj | None) -> int | None:
        """The replicas ``expected_pclqs`` counts for the scaling group ``name`` when its
        live object is ``pcsg`` (the template's when there is none or it is not a
        number); None when ``expected_pclqs`` does not read that scaling group."""
        pcs = self.pcs
        prefix = pcs.name + "-"
        for g in pcs.groups:
            mid = name[len(prefix):len(name) - len(g.name) - 1]
            if name.startswith(prefix) and name.endswith("-" + g.name) and mid.isdecimal() and \
                    int(mid) < pcs.replicas and pcs.pcsg_fqn(int(mid), g) == name:
                r = pcsg.spec.get("replicas") if pcsg is not None else None
                return r if isinstance(r, int) else g.replicas
        return None

    def want(self, world: World, name: str) -> int:
        pclq = world.get("PodClique", self.pcs.namespace, name)
        return (pclq.spec.get("replicas") or 0) if pclq is not None else _template_replicas(self.pcs, name)

    def updated(self, world: World, t: Any, name: str | None) -> int:
        s = t.groups.get(name)
        if s is None:
            return 0
        pcs = self.pcs
        pclq = world.get("PodClique", pcs.namespace, name) if name else None
        target = U.expected_pod_template_hash(pcs, pclq) if pclq is not None and \
            pclq.labels.get(N.L_PART_OF) == pcs.name else None
        return s.hash_active.get(target, 0)

    def build(self, world: World) -> _Counts:
        names = tuple(expected_pclqs(self.pcs, world))
        mult: dict[str, int] = {}
        for n in names:
            mult[n] = mult.get(n, 0) + 1
        t = SUM.pod_groups(world, self.pcs.namespace, self.pcs.name)
        want_of = {n: self.want(world, n) * m for n, m in mult.items()}
        updated_of = {n: self.updated(world, t, n) for n in t.groups}
        return _Counts(names, mult, want_of, updated_of, sum(want_of.values()), sum(updated_of.values()))

    def patch(self, prev: _Counts, changes: Mapping[Any, tuple[Obj | None, Obj | None]], world: World) -> _Counts:
        for k, (old, new) in changes.items():
            if k[0] == "PodCliqueScalingGroup" and self.replicas_of(k[2], old) != self.replicas_of(k[2], new):
                return self.build(world)
        dirty = SUM.changed_pclq_names(changes)
        if not dirty:
            return prev
        t = SUM.pod_groups(world, self.pcs.namespace, self.pcs.name)
        # the counts of ``prev`` shared, plus this world's edits (a copy would cost
        # every PodClique on every round)
        want_of, updated_of = Overlay.over(prev.want_of), Overlay.over(prev.updated_of)
        want, updated = prev.want, prev.updated
        for n in dirty | {None}:  # None: owned pods without a PodClique label
            if n in prev.mult:
                v = self.want(world, n) * prev.mult[n]
                want += v - want_of[n]
                want_of.put(n, v)
            v = self.updated(world, t, n)
            updated += v - updated_of.get(n, 0)
            updated_of.put(n, v)
        return _Counts(prev.names, prev.mult, want_of.settled(), updated_of.settled(), want, updated)


def _template_replicas(pcs: PCS, pclq_name: str) -> int:
    for c in pcs.cliques:
        if pclq_name.endswith("-" + c.name):
            return c.replicas
    return 0


def _with_status(obj: Obj, status: Mapping[str, Any]) -> Obj:
    raw = dict(obj.raw)
    raw["status"] = dict(status)
    return Obj(raw, obj.file, obj.line, obj.lines)
