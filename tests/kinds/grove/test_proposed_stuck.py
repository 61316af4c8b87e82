"""Stuck analysis of the proposed strategies: every scenario of the design's "Stuck
Scenarios" tables (ai-dynamo/grove PR #262), with reason, blocked objects and the
design's remedies."""

from __future__ import annotations

from rolloutctl.core.model import Obj
from rolloutctl.core.simulate import simulate
from rolloutctl.kinds.grove import objects as O
from rolloutctl.kinds.grove.model import GroveModel

from proposed_fixtures import clique, env, group, pcs, plan, pod_moves, with_image


def _live(old: dict, mutate) -> list[Obj]:
    """The settled cluster of ``old`` as live objects, with ``mutate`` applied."""
    m = GroveModel()
    o = Obj(old)
    return [mutate(x) or x for x in m.observe(o, [o], env())]


def _plan_live(new: dict, observed: list[Obj], **kw):
    e = env(**kw)
    m = GroveModel()
    o = Obj(new)
    return simulate(m, o, m.observe(o, observed, e), e)


def test_surge_pod_unschedulable_is_stuck_before_any_old_pod_is_deleted():
    # given capacity equal to what the workload uses now
    old = pcs([clique("fe", 3, update_strategy={"maxSurge": 1, "maxUnavailable": 0})])
    p = plan(with_image(old, "img:v2"), old, capacity={"nvidia.com/gpu": 3})
    assert p.outcome == "stuck" and p.stuck.reason == "InsufficientCapacity"
    assert pod_moves(p) == [("create", 3)]  # no old pod deleted
    assert "surge pod demo-0-fe-3" in p.stuck.message
    assert {r.name for r in p.stuck.blocked_on} == {"demo-0-fe", "demo-0"}
    text = " ".join(p.stuck.remedies)
    assert "maxSurge" in text and "to 0" in text and "delete the stuck surge" in text and "capacity" in text


def test_delete_then_create_converges_with_the_same_capacity():
    old = pcs([clique("fe", 3, update_strategy={"maxSurge": 0, "maxUnavailable": 1})])
    p = plan(with_image(old, "img:v2"), old, capacity={"nvidia.com/gpu": 3})
    assert p.outcome == "converged"


def test_surge_pod_never_ready_blocks_with_max_unavailable_zero():
    old = pcs([clique("fe", 3, update_strategy={"maxSurge": 1, "maxUnavailable": 0})])
    p = plan(with_image(old, "img:v2"), old, never_ready=["demo-0-fe-3"])
    assert p.stuck is not None and p.stuck.reason == "NeverReady"
    assert "surge pod demo-0-fe-3" in p.stuck.message
    assert ("delete", 0) not in pod_moves(p)


def test_surge_scaling_group_replica_unschedulable():
    old = pcs([clique("leader", 1), clique("worker", 2)],
              groups=[group("sg", ["leader", "worker"], 3, 3, {"maxSurge": 1, "maxUnavailable": 0})])
    p = plan(with_image(old, "img:v2"), old, capacity={"nvidia.com/gpu": 9})
    assert p.stuck is not None and p.stuck.reason == "InsufficientCapacity"
    assert "surge replica 3 of demo-0-sg" in p.stuck.message
    assert {r.name for r in p.stuck.blocked_on} >= {"demo-0-sg-0", "demo-0-sg-3-leader", "demo-0-sg-3-worker"}


def test_surge_scaling_group_replica_never_available():
    old = pcs([clique("leader", 1), clique("worker", 2)],
              groups=[group("sg", ["leader", "worker"], 3, 3, {"maxSurge": 1, "maxUnavailable": 0})])
    p = plan(with_image(old, "img:v2"), old, never_ready=["demo-0-sg-3-*"])
    assert p.stuck is not None and p.stuck.reason == "NeverReady"
    assert not any(a.verb == "delete" and a.kind == "PodClique" for s in p.steps for a in s.actions)


def test_base_and_scaled_gang_circular_wait():
    # given a live cluster whose base gang has an old pod that cannot be scheduled
    def unschedule(x: Obj):
        if x.kind == "Pod" and x.labels.get("grove.io/podclique") == "demo-0-sg-0-worker" \
                and x.labels.get("grove.io/podclique-pod-index") == "1":
            raw = dict(x.raw)
            raw["spec"] = {k: v for k, v in raw["spec"].items() if k != "nodeName"}
            raw["status"] = {"phase": "Pending", "conditions": []}
            return Obj(raw)
        return None

    old = pcs([clique("leader", 1), clique("worker", 2)],
              groups=[group("sg", ["leader", "worker"], 3, 3, {"maxSurge": 1, "maxUnavailable": 0})])
    # when the template changes with capacity only for what is scheduled now
    p = _plan_live(with_image(old, "img:v2"), _live(old, unschedule), capacity={"nvidia.com/gpu": 8})
    # then the surge replica waits for the base gang, which waits for the update
    assert p.stuck is not None and p.stuck.reason == "GangGated"
    assert "circular wait" in p.stuck.message
    assert {r.name for r in p.stuck.blocked_on} == {"demo-0", "demo-0-sg-0"}
    assert any("maxSurge" in r for r in p.stuck.remedies)


def test_old_pods_that_are_already_unavailable_are_deleted_whatever_the_budget():
    def unready(x: Obj):
        if x.kind == "Pod" and x.labels.get("grove.io/podclique-pod-index") in ("1", "2"):
            return O.with_pod_state(x, ready=False)
        return None

    old = pcs([clique("fe", 3, update_strategy={"maxUnavailable": 1})])
    p = _plan_live(with_image(old, "img:v2"), _live(old, unready))
    # old pods that are not Ready cost no availability: deleted at once, as today's operator
    # does (deleteOldNonReadyPods), though only pod 0 is Ready (below the floor of 2)
    first = next(s for s in p.steps if any(a.kind == "Pod" for a in s.actions))
    assert sorted(a.index for a in first.actions if a.kind == "Pod" and a.verb == "delete") == [1, 2]
    assert p.outcome == "converged"
    # the Ready pod 0 waits for the floor: it goes only once a replacement is Ready
    moves = pod_moves(p)
    assert moves.index(("delete", 0)) > moves.index(("create", 1))


def test_replica_recreate_surge_replica_unschedulable():
    old = pcs([clique("fe", 2)], replicas=2, strategy="ReplicaRecreate",
              rolling_update={"maxUnavailable": 0, "maxSurge": 1})
    p = plan(with_image(old, "img:v2"), old, capacity={"nvidia.com/gpu": 4})
    assert p.stuck is not None and p.stuck.reason == "InsufficientCapacity"
    assert "surge PodCliqueSet replica 2" in p.stuck.message
    assert [r.name for r in p.stuck.blocked_on] == ["demo-2"]
    assert any("delete the stuck surge replica 2" in r for r in p.stuck.remedies)


def test_replica_recreate_surge_replica_never_ready():
    old = pcs([clique("fe", 2)], replicas=2, strategy="ReplicaRecreate",
              rolling_update={"maxUnavailable": 0, "maxSurge": 1})
    p = plan(with_image(old, "img:v2"), old, never_ready=["demo-2-*"])
    assert p.stuck is not None and p.stuck.reason == "NeverReady"
    assert "surge PodCliqueSet replica 2" in p.stuck.message


def test_plan_warns_that_the_strategy_is_proposed():
    old = pcs([clique("fe", 1)])
    p = plan(with_image(old, "img:v2"), old)
    assert any(w.code == "ProposedStrategy" for w in p.warnings)


def test_rolling_update_replaces_the_oldest_pod_first():
    """The design's RollingUpdate keeps "Pod selection: oldest pod first (by creation
    timestamp)", as getNextPodToUpdate: pods created in the order 2, 1, 0 go in that order."""
    def aged(x: Obj):
        if x.kind == "Pod" and x.labels.get("grove.io/podclique-pod-index") in ("0", "1", "2"):
            raw = dict(x.raw)
            i = int(x.labels["grove.io/podclique-pod-index"])
            raw["metadata"] = {**raw["metadata"], "creationTimestamp": f"2026-01-01T00:00:0{9 - i}Z"}
            return Obj(raw)
        return None

    old = pcs([clique("fe", 3)])
    p = _plan_live(with_image(old, "img:v2"), _live(old, aged))
    assert [i for v, i in pod_moves(p) if v == "delete"] == [2, 1, 0]
