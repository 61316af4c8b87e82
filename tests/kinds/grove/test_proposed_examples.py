"""The design's worked examples, step for step (ai-dynamo/grove PR #262,
docs/designs/update-strategy.md "MaxSurge Considerations"; restated as E1-E5 in the
reference digest, section 5.5). Given the old manifest as the settled cluster, when
the pod template changes, then the plan follows the example."""

from __future__ import annotations

import pytest

from rolloutctl.kinds.grove.proposed.budgets import resolve

from proposed_fixtures import clique, group, moves, pcs, plan, pod_moves, with_image


def test_e1_clique_surge_creates_then_replaces_in_order_then_deletes_surge():
    # given a clique with replicas 3, maxSurge 1, maxUnavailable 0
    old = pcs([clique("fe", 3, update_strategy={"maxSurge": 1, "maxUnavailable": 0})])
    # when the image changes
    p = plan(with_image(old, "img:v2"), old)
    # then pod 3 is created, 0, 1, 2 are replaced in order, and 3 is deleted
    assert p.outcome == "converged"
    assert pod_moves(p, "demo-0-fe") == [("create", 3), ("delete", 0), ("create", 0), ("delete", 1), ("create", 1),
                                         ("delete", 2), ("create", 2), ("delete", 3)]
    assert p.summary["minReadyPods"] == 3
    assert p.summary["peakPods"] == 4
    surge = [a for s in p.steps for a in s.actions if a.kind == "Pod" and a.index == 3]
    assert {a.role for a in surge} == {"surge"}


def test_default_budgets_replace_one_pod_at_a_time_delete_then_create():
    old = pcs([clique("fe", 3)])
    p = plan(with_image(old, "img:v2"), old)
    assert pod_moves(p, "demo-0-fe") == [("delete", 0), ("create", 0), ("delete", 1), ("create", 1),
                                         ("delete", 2), ("create", 2)]
    assert p.summary["minReadyPods"] == 2 and p.summary["peakPods"] == 3


def test_several_pods_at_once_when_the_budget_allows():
    old = pcs([clique("fe", 4, update_strategy={"maxUnavailable": 2, "maxSurge": 0})])
    p = plan(with_image(old, "img:v2"), old)
    first = next(s for s in p.steps if any(a.kind == "Pod" for a in s.actions))
    assert sorted(a.index for a in first.actions if a.kind == "Pod" and a.verb == "delete") == [0, 1]
    assert p.summary["minReadyPods"] == 2


def test_e2_scaling_group_surge_replica_in_scaled_gang_then_replicas_in_order():
    # given a scaling group replicas 3, minAvailable 3, maxSurge 1, maxUnavailable 0
    old = pcs([clique("leader", 1), clique("worker", 2)],
              groups=[group("sg", ["leader", "worker"], 3, 3, {"maxSurge": 1, "maxUnavailable": 0})])
    p = plan(with_image(old, "img:v2"), old)
    assert p.outcome == "converged"
    pclqs = [(v, n, i) for v, n, i in moves(p, "PodClique") if n.endswith("-leader")]
    assert pclqs == [("create", "demo-0-sg-3-leader", 3), ("delete", "demo-0-sg-0-leader", 0),
                     ("create", "demo-0-sg-0-leader", 0), ("delete", "demo-0-sg-1-leader", 1),
                     ("create", "demo-0-sg-1-leader", 1), ("delete", "demo-0-sg-2-leader", 2),
                     ("create", "demo-0-sg-2-leader", 2), ("delete", "demo-0-sg-3-leader", 3)]
    # the surge replica lands in scaled PodGang <pcsgFQN>-0 (3 - minAvailable 3), removed at the end
    assert moves(p, "PodGang") == [("create", "demo-0-sg-0", 0), ("delete", "demo-0-sg-0", None)]
    surge = next(a for s in p.steps for a in s.actions if a.name == "demo-0-sg-3-leader")
    assert surge.payload["metadata"]["labels"]["grove.io/base-podgang"] == "demo-0"
    assert p.summary["minReadyPods"] == 9 and p.summary["peakPods"] == 12


def test_e3_surge_replica_gets_the_next_scaled_gang():
    old = pcs([clique("leader", 1), clique("worker", 2)],
              groups=[group("sg", ["leader", "worker"], 3, 2, {"maxSurge": 1, "maxUnavailable": 0})])
    p = plan(with_image(old, "img:v2"), old)
    assert p.outcome == "converged"
    assert moves(p, "PodGang") == [("create", "demo-0-sg-1", 0), ("delete", "demo-0-sg-1", None)]


def test_e4_replica_recreate_with_surge_tears_down_and_recreates_whole_replicas():
    old = pcs([clique("fe", 2), clique("leader", 1), clique("worker", 1)],
              groups=[group("sg", ["leader", "worker"], 2, 1)], replicas=3, strategy="ReplicaRecreate",
              rolling_update={"maxSurge": 1, "maxUnavailable": 0})
    p = plan(with_image(old, "img:v2"), old)
    assert p.outcome == "converged"
    assert moves(p, "Service") == [("create", "demo-3", 3), ("delete", "demo-0", 0), ("create", "demo-0", 0),
                                   ("delete", "demo-1", 1), ("create", "demo-1", 1), ("delete", "demo-2", 2),
                                   ("create", "demo-2", 2), ("delete", "demo-3", 3)]
    teardown = next(s for s in p.steps if any(a.verb == "delete" and a.kind == "Service" for a in s.actions))
    assert {(a.kind, a.name) for a in teardown.actions if a.verb == "delete"} == {
        ("PodClique", "demo-0-fe"), ("PodCliqueScalingGroup", "demo-0-sg"), ("PodGang", "demo-0"),
        ("PodGang", "demo-0-sg-0"), ("Service", "demo-0")}
    # capacity stays at 3 available replicas: 6 pods each
    assert p.summary["minReadyPods"] == 18


def test_e5_replica_recreate_with_max_unavailable_equal_to_replicas_takes_all_down_in_one_step():
    old = pcs([clique("fe", 2)], replicas=2, strategy="ReplicaRecreate",
              rolling_update={"maxUnavailable": 2, "maxSurge": 0})
    p = plan(with_image(old, "img:v2"), old)
    first = next(s for s in p.steps if any(a.verb == "delete" for a in s.actions))
    assert {a.name for a in first.actions if a.kind == "PodClique" and a.verb == "delete"} == {"demo-0-fe", "demo-1-fe"}
    assert p.outcome == "converged" and p.summary["minReadyPods"] == 0


def test_e5_replica_recreate_surge_keeps_full_capacity():
    old = pcs([clique("fe", 2)], replicas=2, strategy="ReplicaRecreate",
              rolling_update={"maxUnavailable": 0, "maxSurge": 1})
    p = plan(with_image(old, "img:v2"), old)
    assert moves(p, "PodClique") == [("create", "demo-2-fe", 2), ("delete", "demo-0-fe", 0), ("create", "demo-0-fe", 0),
                                     ("delete", "demo-1-fe", 1), ("create", "demo-1-fe", 1), ("delete", "demo-2-fe", 2)]
    assert p.summary["minReadyPods"] == 4 and p.summary["peakPods"] == 6


def test_replicas_only_change_rolls_nothing():
    old = pcs([clique("fe", 3, update_strategy={"maxSurge": 1, "maxUnavailable": 0})])
    p = plan(old, old)
    assert p.outcome == "noop"


@pytest.mark.parametrize("mu,ms,replicas,want", [
    ("25%", "25%", 10, (2, 3)),  # the design's example: 10 x 25% -> 2 down, 3 up
    (None, None, 3, (1, 0)),     # defaults
    ("50%", "10%", 3, (1, 1)),
    (0, 1, 3, (0, 1)),
])
def test_percentages_round_unavailable_down_and_surge_up(mu, ms, replicas, want):
    m = {k: v for k, v in (("maxUnavailable", mu), ("maxSurge", ms)) if v is not None}
    b = resolve(m, replicas)
    assert (b.max_unavailable, b.max_surge) == want


def test_percentage_surge_plans_with_the_rounded_budget():
    old = pcs([clique("fe", 3, update_strategy={"maxSurge": "10%", "maxUnavailable": 0})])
    p = plan(with_image(old, "img:v2"), old)
    assert p.summary["peakPods"] == 4 and p.summary["minReadyPods"] == 3


@pytest.mark.parametrize("layout", ["clique", "group"])
def test_the_next_pcs_replica_waits_until_the_last_replacement_of_the_current_one_is_ready(layout):
    """One PodCliqueSet replica at a time: replica 1 is selected (its first unit deleted) only
    once every unit of replica 0 is replaced and Ready, and the update ends only once replica
    1's are, so RollingUpdate's defaults keep what RollingRecreate keeps (upstream
    computeUpdateProgress counts a replica done once each PodClique's update ended)."""
    if layout == "clique":
        old = pcs([clique("fe", 2, min_available=1)], replicas=2)
    else:
        old = pcs([clique("leader", 1), clique("worker", 1)], groups=[group("wk", ["leader", "worker"], 2, 1)], replicas=2)
    new = with_image(old, "img:v2")
    ru = plan(new, old)
    rr = plan({**new, "spec": {**new["spec"], "updateStrategy": {"type": "RollingRecreate"}}}, old)
    assert ru.outcome == rr.outcome == "converged"
    assert ru.summary["minReadyPods"] == rr.summary["minReadyPods"]
    for s_i, step in enumerate(ru.steps):
        if any(a.kind in ("Pod", "PodClique") and a.verb == "delete" and a.name.startswith("demo-1-")
               for a in step.actions):
            break
    else:
        raise AssertionError("replica 1 was never updated")
    # by then every pod of replica 0 exists on the new template and is Ready
    before = [a for s in ru.steps[:s_i] for a in s.actions if a.kind == "Pod" and a.name.startswith("demo-0-")]
    assert before and not any(a.kind in ("Pod", "PodClique") and a.name.startswith("demo-0-") for a in step.actions)
    assert ru.steps[s_i - 1].actions == () or not any(a.verb == "create" and a.name.startswith("demo-0-")
                                                        for a in ru.steps[s_i - 1].actions)
    ended = next(i for i, s in enumerate(ru.steps) if any("the update ends" in a.reason for a in s.actions))
    assert not any(a.kind == "Pod" for s in ru.steps[ended + 1:] for a in s.actions if a.verb in ("create", "delete"))


@pytest.mark.parametrize("strategy, warned", [("RollingRecreate", True), ("RollingUpdate", False),
                                              ("ReplicaRecreate", False)])
def test_the_operators_rolling_update_warnings_are_given_under_rolling_recreate_only(strategy, warned):
    """MinAvailableDipDuringUpdate describes rollingupdate.go's guard (a Ready pod is deleted
    whenever readyReplicas is not below minAvailable): the proposed strategies' budgets decide
    instead, and their plans keep the floor, so the warning would contradict them."""
    old = pcs([clique("fe", 2, min_available=2)], groups=[group("sg", ["leader"], 2, 2)], strategy=strategy)
    old["spec"]["template"]["cliques"].append(clique("leader", 1))
    p = plan(with_image(old, "img:v2"), old)
    codes = {w.code for w in p.warnings}
    assert ("MinAvailableDipDuringUpdate" in codes) is warned, codes


def test_a_percentage_that_rounds_to_zero_is_accepted_and_allows_one_unavailable_pod():
    """The design compares the values as written ("If maxUnavailable=0 (or "0%"), then maxSurge
    cannot be 0"), as a Deployment's validation does: 10% of 3 pods is accepted, resolves to 0,
    and, as ResolveFenceposts has it, the update then allows one unavailable pod."""
    from rolloutctl.core.model import Obj
    from rolloutctl.kinds.grove import admission

    old = pcs([clique("fe", 3, update_strategy={"maxUnavailable": "10%", "maxSurge": 0})])
    assert not [f for f in admission.validate(Obj(old)) if f.rule == "GV203"]
    assert resolve({"maxUnavailable": "10%", "maxSurge": 0}, 3).max_unavailable == 1
    p = plan(with_image(old, "img:v2"), old)
    assert p.outcome == "converged" and p.summary["minReadyPods"] == 2
    zero = pcs([clique("fe", 3, update_strategy={"maxUnavailable": "0%", "maxSurge": 0})])
    assert [f.rule for f in admission.validate(Obj(zero)) if f.rule == "GV203"] == ["GV203"]
