"""Plan invariants of the proposed budgets (issue 4): surge never exceeds maxSurge,
unavailability never exceeds maxUnavailable, indices end clean (0..replicas-1)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rolloutctl.core.model import Obj
from rolloutctl.core.simulate import run
from rolloutctl.kinds.grove import names as N
from rolloutctl.kinds.grove import objects as O
from rolloutctl.kinds.grove.model import GroveModel
from rolloutctl.kinds.grove.proposed.budgets import resolve

from proposed_fixtures import clique, env, group, pcs, with_image

pct = st.sampled_from(["0%", "25%", "50%", "100%"])


@st.composite
def budgets(draw, replicas: int):
    mu = draw(st.one_of(st.integers(0, replicas), pct))
    ms = draw(st.one_of(st.integers(0, 3), pct))
    b = resolve({"maxUnavailable": mu, "maxSurge": ms}, replicas)
    if b.max_unavailable == 0 and b.max_surge == 0:
        ms = 1
    return {"maxUnavailable": mu, "maxSurge": ms}


def _run(new: dict, old: dict):
    e = env()
    m = GroveModel()
    o = Obj(new)
    return run(m, o, m.observe(o, [Obj(old)], e), e)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 5).flatmap(lambda r: st.tuples(st.just(r), budgets(r))))
def test_clique_budgets_hold(case):
    replicas, us = case
    b = resolve(us, replicas)
    old = pcs([clique("fe", replicas, update_strategy=us)])
    plan, world = _run(with_image(old, "img:v2"), old)
    assert plan.outcome == "converged"
    assert plan.summary["peakPods"] <= replicas + b.max_surge
    assert plan.summary["minReadyPods"] >= replicas - b.max_unavailable
    for s in plan.steps:
        assert s.after["surge"] <= b.max_surge
    pods = [p for p in world.of_kind("Pod") if O.pod_active(p)]
    assert sorted(O.pod_index(p) for p in pods) == list(range(replicas))
    assert plan.steps[-1].after["old"] == 0


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 4).flatmap(lambda r: st.tuples(st.just(r), st.integers(1, r), budgets(r))))
def test_scaling_group_budgets_hold(case):
    replicas, min_available, us = case
    b = resolve(us, replicas)
    per_replica = 3  # leader 1 + worker 2
    old = pcs([clique("leader", 1), clique("worker", 2)],
              groups=[group("sg", ["leader", "worker"], replicas, min_available, us)])
    plan, world = _run(with_image(old, "img:v2"), old)
    assert plan.outcome == "converged"
    assert plan.summary["peakPods"] <= (replicas + b.max_surge) * per_replica
    assert plan.summary["minReadyPods"] >= (replicas - b.max_unavailable) * per_replica
    surge = set()
    for s in plan.steps:
        for a in s.actions:
            if a.kind == "PodClique" and a.role == "surge":
                (surge.add if a.verb == "create" else surge.discard)(a.index)
        assert len(surge) <= b.max_surge
    members = [q for q in world.of_kind("PodClique") if q.labels.get(N.L_PCSG) == "demo-0-sg"]
    assert sorted({int(q.labels[N.L_PCSG_REPLICA]) for q in members}) == list(range(replicas))
    assert {g.name for g in world.of_kind("PodGang")} == {"demo-0"} | {f"demo-0-sg-{k}" for k in range(replicas - min_available)}


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3).flatmap(lambda r: st.tuples(st.just(r), budgets(r))))
def test_replica_recreate_budgets_hold(case):
    replicas, ru = case
    b = resolve(ru, replicas)
    old = pcs([clique("fe", 2)], replicas=replicas, strategy="ReplicaRecreate", rolling_update=ru)
    plan, world = _run(with_image(old, "img:v2"), old)
    assert plan.outcome == "converged"
    assert plan.summary["peakPods"] <= (replicas + b.max_surge) * 2
    assert plan.summary["minReadyPods"] >= (replicas - b.max_unavailable) * 2
    assert sorted(int(s.labels[N.L_PCS_REPLICA]) for s in world.of_kind("Service")) == list(range(replicas))
