"""Planning the creation of a PodCliqueSet: names, gangs, scheduling, readiness.

Name formulas: operator/api/common/namegen.go; gang composition:
operator/internal/controller/podcliqueset/components/podgang/syncflow.go
(unit test syncflow_test.go); gang scheduling e2e GS-5 (operator/e2e/tests/gang_scheduling_test.go).
"""

from __future__ import annotations

import pytest
import yaml

from rolloutctl.core.environment import Environment
from rolloutctl.core.model import Obj
from rolloutctl.core.quantity import parse_quantity
from rolloutctl.core.simulate import run, simulate
from rolloutctl.kinds.grove import names as N
from rolloutctl.kinds.grove.model import GroveModel


def pcs(name="mn", replicas=1, cliques=(("frontend", 2, None),), groups=(), startup=None, requests=None, ns="default",
        scheduler=None):
    tmpl: dict = {"cliques": []}
    if startup:
        tmpl["cliqueStartupType"] = startup
    for cname, reps, min_av, *rest in [(*c,) for c in cliques]:
        spec = {"roleName": cname, "replicas": reps,
                "podSpec": {"containers": [{"name": "c", "image": "img:1",
                                            "resources": {"requests": dict(requests or {"cpu": "1"})}}]}}
        if min_av is not None:
            spec["minAvailable"] = min_av
        if rest and rest[0]:
            spec["startsAfter"] = list(rest[0])
        if scheduler:
            spec["podSpec"]["schedulerName"] = scheduler
        tmpl["cliques"].append({"name": cname, "spec": spec})
    if groups:
        tmpl["podCliqueScalingGroups"] = [
            {"name": g, "cliqueNames": list(members), "replicas": reps, "minAvailable": min_av}
            for g, members, reps, min_av in groups]
    raw = {"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet",
           "metadata": {"name": name, "namespace": ns}, "spec": {"replicas": replicas, "template": tmpl}}
    return Obj(raw, "pcs.yaml", 1)


def plan_new(obj, **env):
    m = GroveModel()
    e = Environment(**env)
    return run(m, obj, m.observe(obj, [], e), e)


def created(plan, kind):
    return [a for s in plan.steps for a in s.actions if a.verb == "create" and a.kind == kind]


def test_standalone_and_scaling_group_names_follow_upstream_formulas():
    # given a PCS with a standalone clique and a scaling group of replicas 2, minAvailable 1
    obj = pcs(cliques=(("frontend", 2, None), ("leader", 1, None), ("worker", 2, None)),
              groups=(("prefill", ("leader", "worker"), 2, 1),))
    # when it is planned from scratch
    plan, world = plan_new(obj)
    # then every object carries the operator's name and the plan converges
    assert plan.outcome == "converged"
    assert sorted(a.name for a in created(plan, "PodClique")) == [
        "mn-0-frontend", "mn-0-prefill-0-leader", "mn-0-prefill-0-worker",
        "mn-0-prefill-1-leader", "mn-0-prefill-1-worker"]
    assert [a.name for a in created(plan, "PodCliqueScalingGroup")] == ["mn-0-prefill"]
    assert sorted(a.name for a in created(plan, "PodGang")) == ["mn-0", "mn-0-prefill-0"]
    assert [a.name for a in created(plan, "Service")] == ["mn-0"]
    pods = created(plan, "Pod")
    assert {a.name for a in pods} >= {"mn-0-frontend-<random>", "mn-0-prefill-1-worker-<random>"}
    frontend = sorted(a.index for a in pods if a.name == "mn-0-frontend-<random>")
    assert frontend == [0, 1]
    assert len(pods) == 2 + 2 * (1 + 2)
    # hostnames and gang labels in the final world
    hosts = sorted(p.spec["hostname"] for p in world.of_kind("Pod") if p.labels[N.L_PCLQ] == "mn-0-prefill-1-worker")
    assert hosts == ["mn-0-prefill-1-worker-0", "mn-0-prefill-1-worker-1"]
    scaled = [p for p in world.of_kind("Pod") if p.labels[N.L_PCLQ].startswith("mn-0-prefill-1-")]
    assert {p.labels[N.L_PODGANG] for p in scaled} == {"mn-0-prefill-0"}
    assert {p.labels[N.L_BASE_PODGANG] for p in scaled} == {"mn-0"}
    assert plan.summary["peakPods"] == 8 and plan.summary["minReadyPods"] == 0


@pytest.mark.parametrize("replicas, min_available, base, scaled", [
    (4, 2, [0, 1], {"x-0-prefill-0": 2, "x-0-prefill-1": 3}),   # the digest's syncflow_test example
    (2, 1, [0], {"x-0-prefill-0": 1}),
    (3, 3, [0, 1, 2], {}),
    (1, 1, [0], {}),
])
def test_base_and_scaled_gang_split(replicas, min_available, base, scaled):
    obj = pcs(name="x", cliques=(("leader", 1, None),), groups=(("prefill", ("leader",), replicas, min_available),))
    _plan, world = plan_new(obj)
    gangs = {pg.name: pg for pg in world.of_kind("PodGang")}
    assert set(gangs) == {"x-0", *scaled}
    assert [g["name"] for g in gangs["x-0"].spec["podgroups"]] == [f"x-0-prefill-{j}-leader" for j in base]
    for gang, j in scaled.items():
        assert [g["name"] for g in gangs[gang].spec["podgroups"]] == [f"x-0-prefill-{j}-leader"]
        assert N.scaled_podgang_name("x-0-prefill", j, min_available) == gang


def test_podgroup_min_replicas_is_the_clique_min_available():
    obj = pcs(cliques=(("fe", 3, 2), ("w", 4, 1)), groups=(("g", ("w",), 1, 1),))
    _plan, world = plan_new(obj)
    groups = {g["name"]: g for g in world.get("PodGang", "default", "mn-0").spec["podgroups"]}
    assert groups["mn-0-fe"]["minReplicas"] == 2
    assert groups["mn-0-g-0-w"]["minReplicas"] == 1
    assert len(groups["mn-0-fe"]["podReferences"]) == 3


def test_several_replicas_get_their_own_children():
    obj = pcs(replicas=3)
    plan, _ = plan_new(obj)
    assert sorted(a.name for a in created(plan, "PodClique")) == ["mn-0-frontend", "mn-1-frontend", "mn-2-frontend"]
    assert sorted(a.name for a in created(plan, "PodGang")) == ["mn-0", "mn-1", "mn-2"]


def test_gs5_only_the_base_gang_minimum_fits():
    """e2e GS-5: workload2 with room for 3 pods places exactly pc-a x1, pc-b x1, pc-c x1."""
    obj = pcs(name="workload2", cliques=(("pc-a", 2, 1), ("pc-b", 1, 1), ("pc-c", 3, 1)),
              groups=(("sg-x", ("pc-b", "pc-c"), 2, 1),), requests={"memory": "80Mi"}, scheduler="kai-scheduler")
    plan, world = plan_new(obj, capacity={"memory": parse_quantity("240Mi")})
    assert plan.outcome == "stuck" and plan.stuck.reason == "InsufficientCapacity"
    placed = sorted(p.labels[N.L_PCLQ] for p in world.of_kind("Pod") if p.spec.get("nodeName"))
    assert placed == ["workload2-0-pc-a", "workload2-0-sg-x-0-pc-b", "workload2-0-sg-x-0-pc-c"]


def test_capacity_below_base_gang_minimum_is_stuck_naming_the_gang():
    obj = pcs(cliques=(("fe", 2, 2), ("w", 2, 2)), groups=(("g", ("w",), 2, 1),), requests={"nvidia.com/gpu": "4"},
              scheduler="kai-scheduler")
    plan, world = plan_new(obj, capacity={"nvidia.com/gpu": parse_quantity("8")})
    assert plan.outcome == "stuck"
    st = plan.stuck
    assert st.reason == "InsufficientCapacity"
    assert "PodGang mn-0 cannot place its gang minimum of 4 pods" in st.message
    assert "nvidia.com/gpu=16" in st.message and "only nvidia.com/gpu=8" in st.message
    assert "mn-0-g-0 is gated until its base gang mn-0 is scheduled" in st.message
    assert [r.name for r in st.blocked_on] == ["mn-0", "mn-0-g-0"]
    assert not any(p.spec.get("nodeName") for p in world.of_kind("Pod"))  # all or nothing


def test_default_scheduler_places_pods_one_by_one_without_a_gang_minimum():
    """A PodCliqueSet on ``default-scheduler`` (no schedulerName: the default profile)
    goes to kube-scheduler, which places pods one by one: the kube backend creates nothing
    for a PodGang (kube/backend.go ``SyncPodGang``). Room for 2 of the base gang's 4 pods
    runs 2 of them, where a gang scheduler (KAI) places none."""
    obj = pcs(cliques=(("fe", 2, 2), ("w", 2, 2)), groups=(("g", ("w",), 2, 1),), requests={"nvidia.com/gpu": "4"})
    plan, world = plan_new(obj, capacity={"nvidia.com/gpu": parse_quantity("8")})
    assert plan.outcome == "stuck" and plan.stuck.reason == "InsufficientCapacity"
    assert sum(1 for p in world.of_kind("Pod") if p.spec.get("nodeName")) == 2
    assert "PodGang mn-0 cannot place one more pod: it needs nvidia.com/gpu=4, only nvidia.com/gpu=0" in plan.stuck.message


def test_scaled_gang_stays_gated_until_base_gang_is_scheduled():
    obj = pcs(cliques=(("w", 1, 1),), groups=(("g", ("w",), 2, 1),), requests={"nvidia.com/gpu": "1"})
    # room for exactly the base gang: the scaled gang is ungated but does not fit
    plan, world = plan_new(obj, capacity={"nvidia.com/gpu": parse_quantity("1")})
    scaled = [p for p in world.of_kind("Pod") if p.labels[N.L_PODGANG] == "mn-0-g-0"]
    assert scaled and not any(p.spec.get("schedulingGates") for p in scaled)
    assert plan.stuck.reason == "InsufficientCapacity" and [r.name for r in plan.stuck.blocked_on] == ["mn-0-g-0"]


def test_starts_after_orders_readiness_explicit():
    obj = pcs(cliques=(("a", 1, None), ("b", 1, None, ("a",)), ("c", 1, None, ("b",))),
              startup="CliqueStartupTypeExplicit")
    m = GroveModel()
    e = Environment()
    world = m.observe(obj, [], e)
    order = []
    for _ in range(20):
        acts = m.reconcile(obj, world)
        world = world.apply(acts)
        prog = m.advance(obj, world, e)
        world = prog.world
        ready = sorted(p.labels[N.L_PCLQ] for p in world.of_kind("Pod")
                       if any(c.get("type") == "Ready" and c.get("status") == "True" for c in p.status.get("conditions", [])))
        if ready and (not order or ready != order[-1]):
            order.append(ready)
        if not acts and not prog.progressed:
            break
    assert order == [["mn-0-a"], ["mn-0-a", "mn-0-b"], ["mn-0-a", "mn-0-b", "mn-0-c"]]
    assert world.get("PodClique", "default", "mn-0-c").spec["startsAfter"] == ["mn-0-b"]


def test_never_ready_glob_makes_the_plan_stuck():
    obj = pcs()
    plan, _ = plan_new(obj, never_ready=("mn-0-frontend*",))
    assert plan.stuck.reason == "NeverReady" and "mn-0-frontend" in plan.stuck.message


def test_previous_manifest_only_means_settled_cluster_and_noop():
    obj = pcs(groups=(), cliques=(("frontend", 2, None),))
    m = GroveModel()
    e = Environment()
    world = m.observe(obj, [obj], e)
    assert len([p for p in world.of_kind("Pod")]) == 2
    plan = simulate(m, obj, world, e)
    assert plan.outcome == "noop" and plan.steps == ()


def test_defaulting_follows_the_webhook():
    from rolloutctl.kinds.grove.defaults import default_pcs
    raw = pcs(cliques=(("a", 0, None),)).raw
    d = default_pcs(raw)
    cs = d["spec"]["template"]["cliques"][0]["spec"]
    assert (cs["replicas"], cs["minAvailable"]) == (1, 0)  # upstream quirk kept
    assert cs["podSpec"]["restartPolicy"] == "Always" and cs["podSpec"]["terminationGracePeriodSeconds"] == 30
    assert d["spec"]["template"]["terminationDelay"] == "4h0m0s"
    assert d["spec"]["template"]["cliqueStartupType"] == "CliqueStartupTypeAnyOrder"
    assert raw["spec"]["template"]["cliques"][0]["spec"]["replicas"] == 0  # input untouched
