"""Plan invariants for creating generated PodCliqueSets (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from rolloutctl.core.environment import Environment
from rolloutctl.core.simulate import run, simulate
from rolloutctl.kinds.grove import names as N
from rolloutctl.kinds.grove import objects as O
from rolloutctl.kinds.grove.model import GroveModel
from tests.kinds.grove.test_create import pcs


@st.composite
def podcliquesets(draw):
    n_standalone = draw(st.integers(1, 2))
    n_members = draw(st.integers(0, 2))
    cliques = []
    for i in range(n_standalone + n_members):
        reps = draw(st.integers(1, 3))
        cliques.append((f"c{i}", reps, draw(st.integers(1, reps))))
    groups = ()
    if n_members:
        reps = draw(st.integers(1, 3))
        groups = (("g", tuple(c[0] for c in cliques[n_standalone:]), reps, draw(st.integers(1, reps))),)
    return pcs(name="p", replicas=draw(st.integers(1, 2)), cliques=tuple(cliques), groups=groups,
               startup=draw(st.sampled_from([None, "CliqueStartupTypeInOrder"])))


@settings(max_examples=40, deadline=None)
@given(podcliquesets())
def test_creation_converges_with_clean_indices_and_a_settled_world_plans_nothing(obj):
    m = GroveModel()
    env = Environment()
    plan, world = run(m, obj, m.observe(obj, [], env), env)
    assert plan.outcome == "converged"
    # every PodClique has pods 0..replicas-1, all Ready
    for pclq in world.of_kind("PodClique"):
        pods = [p for p in world.index("Pod", N.L_PCLQ).get(pclq.name, [])]
        assert sorted(O.pod_index(p) for p in pods) == list(range(pclq.spec["replicas"]))
        assert all(O.pod_ready(p) for p in pods)
    # reconciling the final world yields no action
    assert m.reconcile(obj, world) == []
    assert simulate(m, obj, world, env).outcome == "noop"
    # the peak is exactly the number of pods created
    assert plan.summary["peakPods"] == sum(1 for a in (a for s in plan.steps for a in s.actions) if a.kind == "Pod")


@settings(max_examples=25, deadline=None)
@given(podcliquesets(), st.integers(0, 6))
def test_capacity_never_exceeded_and_plan_terminates(obj, gpus):
    raw = obj.raw
    for c in raw["spec"]["template"]["cliques"]:
        c["spec"]["podSpec"]["containers"][0]["resources"]["requests"] = {"nvidia.com/gpu": "1"}
    m = GroveModel()
    env = Environment(capacity={"nvidia.com/gpu": gpus * 1000}, max_steps=50)
    plan, world = run(m, obj, m.observe(obj, [], env), env)
    assert plan.outcome in ("converged", "stuck")
    scheduled = [p for p in world.of_kind("Pod") if O.pod_scheduled(p)]
    assert len(scheduled) <= gpus
    if plan.outcome == "stuck":
        assert plan.stuck.reason in ("InsufficientCapacity", "GangGated")
        assert plan.stuck.blocked_on
