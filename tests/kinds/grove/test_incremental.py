"""The incremental bookkeeping that keeps Grove planning linear in pods gives the
same answers as computing everything afresh.

- the ``summary.PodGroups`` world view patched from an ancestor world equals one
  built from scratch on the same world;
- a plan whose rounds take their keys from the work queue (``core/queue.py``, the
  watches of ``kinds/grove/register.py``) equals the plan that reconciles every key
  every round with a model that forgets every memo before every call (a fresh
  ``PCS`` and fresh trackers), for generated PodCliqueSets, strategies, capacity and
  failing pods.
"""

from __future__ import annotations

import copy
import gc
from typing import Any

from bench.workloads import large_pcs, with_image
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rolloutctl.core.environment import Environment
from rolloutctl.core.model import Action, Obj
from rolloutctl.core.queue import WorkQueue
from rolloutctl.core.simulate import simulate
from rolloutctl.core.world import World
from rolloutctl.kinds.grove import names as N
from rolloutctl.kinds.grove import gang_terminate as GT
from rolloutctl.kinds.grove import model as M
from rolloutctl.kinds.grove import status as ST
from rolloutctl.kinds.grove import summary as SUM
from rolloutctl.kinds.grove import replica_index as RI
from rolloutctl.kinds.grove import update_common as U
from rolloutctl.kinds.grove.controller.podcliqueset.components.podcliquesetreplica import rollingupdate as PCSR
from rolloutctl.kinds.grove.controller.podcliqueset.components import podgang as PG
from rolloutctl.kinds.grove.proposed import replica_recreate as RR
from rolloutctl.kinds.grove.proposed import rolling_update as RU
from rolloutctl.kinds.grove.proposed import state as PS
from rolloutctl.kinds.grove.proposed import stuck as SK
from rolloutctl.kinds.grove.model import GroveModel
from rolloutctl.kinds.grove.spec import PCS


def _pod(name: str, pclq: str | None, part_of: str, ns: str, *, ready: bool, sched: bool, gated: bool,
         phase: str, h: str, cpu: str) -> Obj:
    labels = {N.L_PART_OF: part_of, N.L_TEMPLATE_HASH: h}
    if pclq is not None:
        labels[N.L_PCLQ] = pclq
    spec: dict[str, Any] = {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}
    if sched:
        spec["nodeName"] = "n"
    if gated:
        spec["schedulingGates"] = [{"name": N.GATE_PODGANG_PENDING}]
    return Obj({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns, "labels": labels},
                "spec": spec, "status": {"phase": phase, "conditions": [
                    {"type": "Ready", "status": "True" if ready else "False"}]}})


pod_ops = st.lists(st.tuples(
    st.sampled_from(["put", "put", "remove", "delete"]), st.integers(0, 9),
    st.sampled_from(["a", "b", None]), st.sampled_from(["p", "other"]), st.sampled_from(["default", "ns2"]),
    st.booleans(), st.booleans(), st.booleans(), st.sampled_from(["Pending", "Running", "Failed"]),
    st.sampled_from(["h1", "h2"]), st.sampled_from(["1", "500m"]), st.booleans()), max_size=25)


def _fields(t: SUM.PodGroups) -> tuple:
    groups = {k: (len(s.pods), s.n_active, s.act_ready, s.act_sched, s.nt, dict(s.hash_active))
              for k, s in t.groups.items()}
    return (groups, t.n_active, t.act_ready, t.act_sched, t.n_pods, {k: v for k, v in t.res.items() if v},
            set(t.terminating), set(t.gated), set(t.pending), set(t.unready_sched))


@settings(max_examples=50, deadline=None)
@given(pod_ops, st.sampled_from([("default", "p"), (None, None)]))
def test_pod_groups_patched_equal_fresh(script, scope):
    # given a world the tracker has seen, changed step by step (sometimes looked at)
    world = World([_pod("x0", "a", "p", "default", ready=True, sched=True, gated=False, phase="Running", h="h1",
                        cpu="1")])
    SUM.pod_groups(world, *scope)
    for op, i, pclq, part_of, ns, ready, sched, gated, phase, h, cpu, look in script:
        name = f"x{i}"
        if op == "put":
            world = world.replace(put=[_pod(name, pclq, part_of, ns, ready=ready, sched=sched, gated=gated,
                                            phase=phase, h=h, cpu=cpu)])
        elif op == "remove":
            world = world.replace(remove=[("Pod", ns, name)])
        else:
            world = world.apply([Action("delete", "Pod", name, ns, "r", "x")])
        if look:
            # when the view is asked for (patched from the nearest world that had it)
            # then it equals the view built from nothing on the same world
            assert _fields(SUM.pod_groups(world, *scope)) == _fields(SUM.PodGroupsView(*scope).build(world))
    assert _fields(SUM.pod_groups(world, *scope)) == _fields(SUM.PodGroupsView(*scope).build(world))


class Forgetful(GroveModel):
    """A GroveModel without memory between calls: a fresh PCS every time (so no
    per-PodCliqueSet memo survives)."""

    def pcs(self, desired: Obj) -> PCS:
        return PCS(desired)


def _clique(name: str, replicas: int, min_av: int, image: str) -> dict[str, Any]:
    return {"name": name, "spec": {"roleName": name, "replicas": replicas, "minAvailable": min_av,
                                   "podSpec": {"containers": [{"name": "main", "image": image,
                                                               "resources": {"requests": {"cpu": "1"}}}]}}}


@st.composite
def change(draw):
    cliques = [_clique("front", draw(st.integers(1, 3)), 1, "app:v1")]
    groups = []
    for g in range(draw(st.integers(0, 2))):
        names = [f"g{g}lead", f"g{g}work"]
        cliques += [_clique(names[0], 1, 1, "app:v1"), _clique(names[1], draw(st.integers(1, 3)), 1, "app:v1")]
        reps = draw(st.integers(1, 3))
        groups.append({"name": f"g{g}", "cliqueNames": names, "replicas": reps,
                       "minAvailable": draw(st.integers(1, reps))})
    old = {"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"replicas": draw(st.integers(1, 4)), "template": {"cliques": cliques, "podCliqueScalingGroups": groups}}}
    new = copy.deepcopy(old)
    for c in new["spec"]["template"]["cliques"]:
        if draw(st.booleans()):
            c["spec"]["podSpec"]["containers"][0]["image"] = "app:v2"
    strategy = draw(st.sampled_from(["RollingRecreate", "RollingUpdate", "OnDelete", "ReplicaRecreate"]))
    if strategy != "RollingRecreate":
        new["spec"]["updateStrategy"] = {"type": strategy}
    if strategy == "RollingUpdate":
        for c in new["spec"]["template"]["cliques"]:
            c["spec"]["updateStrategy"] = {"maxSurge": draw(st.integers(0, 1)), "maxUnavailable": draw(st.integers(0, 1))}
    new["spec"]["replicas"] = max(1, old["spec"]["replicas"] + draw(st.integers(-1, 1)))
    env = Environment(capacity=draw(st.sampled_from([{}, {"cpu": 30_000}])),
                      never_ready=tuple(draw(st.sampled_from([[], ["*-1-front-*"]]))), max_steps=400)
    return old, new, env, draw(st.booleans())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(change())
def test_work_queue_plans_equal_reconciling_everything(case):
    old, new, env, create = case
    # given a change planned once with the work queue (each round reconciles only the
    # keys its watches enqueued) and once reconciling every key every round, without
    # any memo between calls
    plans = []
    for model, queue in ((GroveModel(), None), (Forgetful(), WorkQueue(everything=True))):
        desired = Obj(new)
        world = model.observe(desired, [] if create else [Obj(old)], env)
        plans.append(simulate(model, desired, world, env, queue=queue))
    # then the plans are the same, step by step
    assert plans[0] == plans[1]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(change())
def test_work_queue_reconciles_fewer_keys_than_everything(case):
    old, new, env, create = case
    # given a plan of more than one step, counting the keys each round reconciles
    counted = []

    class Counting(WorkQueue):
        def take(self, controller, scope, base, world):
            got = super().take(controller, scope, base, world)
            owned = {o.name for o in world.index(controller.kind, N.L_PART_OF).get("p", ())}
            n = len(owned if got is None else owned & got)
            counted.append((self.everything, n))
            return got

    model = GroveModel()
    desired = Obj(new)
    for queue in (Counting(), Counting(everything=True)):
        world = model.observe(desired, [] if create else [Obj(old)], env)
        simulate(GroveModel(), desired, world, env, queue=queue)
    queued = sum(n for every, n in counted if not every)
    everything = sum(n for every, n in counted if every)
    # then the queue never reconciles more
    assert queued <= everything


def test_a_rolling_update_reconciles_a_fraction_of_the_keys():
    # given an image change of a 4-replica PodCliqueSet rolled replica by replica
    old = large_pcs(200)
    new = Obj(with_image(old, "engine:2"))
    counted = {True: 0, False: 0}

    class Counting(WorkQueue):
        def take(self, controller, scope, base, world):
            got = super().take(controller, scope, base, world)
            owned = {o.name for o in world.index(controller.kind, N.L_PART_OF).get("bench", ())}
            counted[self.everything] += len(owned if got is None else owned & got)
            return got

    plans = []
    for queue in (Counting(), Counting(everything=True)):
        model = GroveModel()
        plans.append(simulate(model, new, model.observe(new, [Obj(old)], Environment()), Environment(), queue=queue))
    # then both plan the same steps, and the queue's rounds reconcile under a third of
    # the keys reconciling everything would
    assert plans[0] == plans[1] and plans[0].outcome == "converged"
    assert counted[False] * 3 < counted[True]


def test_plans_of_many_replicas_build_no_more_views_from_nothing_than_plans_of_few(monkeypatch):
    """A world builds a view from nothing when no ancestor it patches from has it: that
    costs every object of the world, so it must happen a bounded number of times per
    plan, not once per replica or per PodClique (a creation round of many objects once
    made every PodClique's pod sync build the pod index afresh: quadratic in replicas)."""
    from bench.workloads import wide_pcs

    fresh: list[str] = []
    built = World._fresh_kinds
    monkeypatch.setattr(World, "_fresh_kinds", lambda self, kind: (fresh.append(kind), built(self, kind))[1])

    def count(replicas: int, strategy: str | None) -> int:
        old = wide_pcs(2 * replicas)
        new = copy.deepcopy(old)
        new["spec"]["template"]["cliques"][0]["spec"]["podSpec"]["containers"][0]["image"] = "engine:2"
        if strategy:
            new["spec"]["updateStrategy"] = {"type": strategy}
        model, env = GroveModel(), Environment()
        fresh.clear()
        plan = simulate(model, Obj(new), model.observe(Obj(new), [Obj(old)], env), env)
        assert plan.outcome == "converged"
        return len(fresh)

    # given the same change of a PodCliqueSet of 80 and of 160 replicas, under each strategy
    # (sizes past the one where the settled world's creation round, which creates the
    # PodCliques after the token Secret's round, outgrows the lists it could patch: a
    # constant number of views more, from about 60 replicas on)
    for strategy in (None, "OnDelete", "RollingUpdate", "ReplicaRecreate"):
        # then the larger plan builds as many views from nothing as the smaller one
        assert count(160, strategy) == count(80, strategy), strategy


# ----------------------------------------------------------------------------- armed breaches


@st.composite
def breach_world(draw):
    """A settled live world (``operator_world``) where some replicas' pods crashed or
    lost their node, planned again with a limited GPU capacity."""
    from tests.kinds.grove.operator_world import settled_world
    gpu = {"requests": {"nvidia.com/gpu": "1"}}
    cliques = [_clique("front", draw(st.integers(1, 2)), 1, "app:v1"), _clique("wlead", 1, 1, "app:v1"),
               _clique("wwork", draw(st.integers(1, 2)), 1, "app:v1")]
    for c in cliques:
        c["spec"]["podSpec"]["containers"][0]["resources"] = gpu
    reps = draw(st.integers(1, 3))
    manifest = {"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet", "metadata": {"name": "p"},
                "spec": {"replicas": draw(st.integers(1, 3)), "template": {"cliques": cliques, "podCliqueScalingGroups": [
                    {"name": "sg", "cliqueNames": ["wlead", "wwork"], "replicas": reps,
                     "minAvailable": draw(st.integers(1, reps))}]}}}
    live = settled_world(manifest)
    used = 0
    for o in live:
        if o["kind"] != "Pod":
            continue
        fate = draw(st.sampled_from(["ok", "ok", "crash", "lost"]))
        if fate == "crash":
            o["status"]["containerStatuses"] = [{"name": "main", "ready": False, "started": False,
                                                 "lastState": {"terminated": {"exitCode": 1}}}]
            o["status"]["conditions"] = [c if c["type"] != "Ready" else {**c, "status": "False"}
                                         for c in o["status"]["conditions"]]
        if fate == "lost":
            o["spec"].pop("nodeName")
            o["status"] = {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False"}]}
        else:
            used += 1
    env = Environment(capacity={"nvidia.com/gpu": 1000 * (used + draw(st.integers(0, 2)))},
                      never_ready=tuple(draw(st.sampled_from([[], ["p-0-*"]]))), max_steps=200)
    return manifest, live, env


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(breach_world())
def test_tracked_armed_breaches_equal_the_plain_rule(case):
    """``gang_terminate.armed`` (a world view, patched from world to world for the
    objects that changed) equals ``gang_terminate.armed_breaches`` on every world a
    plan reconciles, and the plan equals the one reconciling every key every round."""
    import rolloutctl.kinds.grove.gang_terminate as GT
    manifest, live, env = case
    seen = []
    real = GT.armed

    def checked(pcs, world):
        got = real(pcs, world)
        want = {(o.kind, o.name) for o in GT.armed_breaches(pcs, world)}
        seen.append(got == want)
        return got
    GT.armed = checked
    try:
        plans = []
        for model, queue in ((GroveModel(), None), (Forgetful(), WorkQueue(everything=True))):
            desired = Obj(manifest)
            plans.append(simulate(model, desired, model.observe(desired, [Obj(o) for o in live], env), env,
                                  queue=queue))
    finally:
        GT.armed = real
    assert seen and all(seen)
    assert plans[0] == plans[1]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(change())
def test_planning_makes_no_reference_cycles(case):
    # The planner switches the cyclic collector off while a plan runs (core/simulate.py
    # _Collector): its worlds and views must be freed by reference counting alone.
    old, new, env, create = case
    model = GroveModel()
    world = model.observe(Obj(new), [] if create else [Obj(old)], env)
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        simulate(model, Obj(new), world, env)
        assert gc.collect() == 0
    finally:
        if was:
            gc.enable()


def test_a_replica_recreate_plan_with_a_scaling_group_makes_no_reference_cycles():
    # given a ReplicaRecreate update of a PodCliqueSet with a scaling group (the world
    # views of the proposed strategy keep the parsed PodCliqueSet, never a world)
    old = {"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"replicas": 1, "template": {
               "cliques": [_clique("front", 1, 1, "app:v1"), _clique("g0lead", 1, 1, "app:v1"),
                           _clique("g0work", 1, 1, "app:v1")],
               "podCliqueScalingGroups": [{"name": "g0", "cliqueNames": ["g0lead", "g0work"], "replicas": 1,
                                           "minAvailable": 1}]}}}
    new = copy.deepcopy(old)
    new["spec"]["template"]["cliques"][2] = _clique("g0work", 1, 1, "app:v2")
    new["spec"]["updateStrategy"] = {"type": "ReplicaRecreate"}
    model, env = GroveModel(), Environment()
    world = model.observe(Obj(new), [Obj(old)], env)
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        # when it is planned
        plan = simulate(model, Obj(new), world, env)
        # then reference counting alone frees everything it made
        assert plan.outcome == "converged" and gc.collect() == 0
    finally:
        if was:
            gc.enable()


def _replica_views(model: GroveModel, desired: Obj, world: World) -> list[tuple[str, Any, Any]]:
    """(name, the view as the plan's world has it, the view built from nothing) of the
    per-replica and per-PodClique world views the rounds patch, normalised for
    comparison (a patched count may keep a zero entry a fresh build leaves out)."""
    pcs = model.pcs(desired)
    gen = U.live_pcs_status(pcs, world).get("currentGenerationHash")

    def nonzero(m: Any) -> dict:
        return {k: v for k, v in dict(m).items() if v}

    views = [
        ("ReplicaGroups standalone", RI.ReplicaGroups("PodClique", pcs.namespace, pcs.name, True),
         lambda v: (dict(v[0]), v[1])),
        ("ReplicaGroups pcsg", RI.ReplicaGroups("PodCliqueScalingGroup", pcs.namespace, pcs.name, False),
         lambda v: (dict(v[0]), v[1])),
        ("ReplicaDone", PCSR.ReplicaDone(pcs, gen), dict),
        ("PendingReplicas", PCSR.pending_replicas(pcs, gen), lambda v: (v.unscheduled, v.scheduled)),
        ("PendingReplicas RollingUpdate", RU.pending_replicas(pcs), lambda v: (v.unscheduled, v.scheduled)),
        ("ReplicaCounts", ST.ReplicaCounts(pcs, gen), lambda v: (dict(v.counts), v.totals)),
        ("counts", M._CountsView(pcs), lambda v: (v.want, v.updated, nonzero(v.want_of), nonzero(v.updated_of))),
        ("BreachedReplicas", GT.BreachedReplicas(pcs), frozenset),
        ("ReplicasDone", RU.ReplicasDone(pcs), dict),
        ("SurgePodCount", SK.SurgePodCount(pcs), lambda v: (nonzero(v[0]), v[1])),
        ("SurgeMemberGroups", RU.SurgeMemberGroups(pcs.namespace), frozenset),
        ("LivePcsgReplicas", PG.LivePcsgReplicas(pcs, pcs.replicas), tuple),
        ("ReplicaUnits", PS.ReplicaUnits(pcs, RR.replica_unit),
         lambda v: (dict(v.rows), v.old, len(v.rows), v.available)),
        ("PresentReplicas", PS.PresentReplicas(pcs), tuple),
    ]
    return [(name, norm(world.derived(v)), norm(v.build(world))) for name, v, norm in views]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(change())
def test_patched_replica_views_equal_fresh_builds(case):
    old, new, env, create = case
    # given a plan whose rounds patch the per-replica world views from round to round
    mismatches: list[str] = []
    seen = []

    class Checking(GroveModel):
        def reconcile(self, desired, world, queue=None):
            acts = super().reconcile(desired, world, queue)
            for name, got, fresh in _replica_views(self, desired, world):
                seen.append(name)
                if got != fresh:
                    mismatches.append(f"{name}: {got} != {fresh}")
            return acts

    model = Checking()
    desired = Obj(new)
    simulate(model, desired, model.observe(desired, [] if create else [Obj(old)], env), env)
    # then on every world a round reconciled, each view equals one built from nothing
    assert seen and not mismatches, mismatches[:3]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(change())
def test_next_replica_to_update_is_the_first_in_order_pcs_replica_info_order(case):
    old, new, env, create = case
    # given every world a RollingRecreate plan's rounds reconcile
    mismatches: list[str] = []
    seen = []

    class Checking(GroveModel):
        def reconcile(self, desired, world, queue=None):
            pcs = self.pcs(desired)
            gen = U.live_pcs_status(pcs, world).get("currentGenerationHash")
            for exclude, breached in (((), GT.min_available_breached_replicas(pcs, world)), ((0,), [pcs.replicas - 1]),
                                      (tuple(range(0, pcs.replicas, 2)), [1, 0, 7])):
                # when the next replica is picked from the world views (upstream's
                # rolling update, and the proposed RollingUpdate with its own "done")
                ru_done = world.derived(RU.ReplicasDone(pcs))
                for pending, done in ((PCSR.pending_replicas(pcs, gen), None), (RU.pending_replicas(pcs), ru_done)):
                    got = PCSR.next_pcs_replica_to_update(pcs, world, pending, exclude, breached)
                    # then it is upstream's sort of every pending replica's info, first
                    infos = [i for i in PCSR.pcs_replica_infos(pcs, world, gen, skip=exclude)
                             if not (i.done if done is None else done[i.index])]
                    ordered = PCSR.order_pcs_replica_info(pcs, infos, breached)
                    want = (ordered[0].index, PCSR.num_scheduled_pods(pcs, ordered[0]) == 0) if ordered else None
                    seen.append(want)
                    if got != want:
                        mismatches.append(f"exclude {exclude}: {got} != {want}")
            return super().reconcile(desired, world, queue)

    model = Checking()
    desired = Obj(new)
    simulate(model, desired, model.observe(desired, [] if create else [Obj(old)], env), env)
    assert seen and not mismatches, mismatches[:3]
