"""RollingRecreate scenarios, given/when/then, mirroring the upstream e2e suite
``operator/e2e/tests/update/rolling_recreate_test.go`` (RU-7 … RU-21) on the e2e
workload ``samples/workload1.yaml`` (pc-a standalone 2/2; scaling group sg-x 2/2 with
pc-b 1/1 and pc-c 3/3)."""

from __future__ import annotations

import copy


from rolloutctl.core.environment import Environment
from rolloutctl.core.model import Obj
from rolloutctl.core.simulate import run
from rolloutctl.kinds.grove.model import GroveModel

from tests.kinds.grove.upstream_samples import with_image, workload1


def plan(new: dict, old: dict | None = None, env: Environment | None = None, observed: list | None = None):
    env = env or Environment()
    model = GroveModel()
    desired = Obj(new)
    obs = observed if observed is not None else ([Obj(old)] if old is not None else [])
    world = model.observe(desired, obs, env)
    return run(model, desired, world, env)


def actions(p, verb=None, kind=None):
    return [(s.step, a) for s in p.steps for a in s.actions
            if (verb is None or a.verb == verb) and (kind is None or a.kind == kind)]


def test_standalone_clique_change_replaces_pods_one_at_a_time_and_leaves_scaling_group_alone():
    """RU-7: given WL1 settled, when pc-a's image changes, then its two pods are deleted
    one per step (delete first, then a replacement on the same index), nothing of sg-x
    is touched, and at most one pc-a pod is missing at any time."""
    old = workload1()
    p, final = plan(with_image(old, "pc-a", "busybox:v2"), old)
    assert p.outcome == "converged"
    dels = actions(p, "delete")
    assert [a.kind for _, a in dels] == ["Pod", "Pod"]
    assert all(a.name.startswith("workload1-0-pc-a-") for _, a in dels)
    assert dels[0][0] < dels[1][0]
    assert sorted(a.index for _, a in dels) == [0, 1]
    # each deleted index is recreated before the next deletion
    creates = actions(p, "create", "Pod")
    assert [a.index for _, a in creates] == [dels[0][1].index, dels[1][1].index]
    assert creates[0][0] < dels[1][0]
    assert not [a for _, a in actions(p) if "sg-x" in a.name and a.verb in ("delete", "create")]
    assert p.summary["minReadyPods"] == 9
    assert p.summary["peakPods"] == 10
    assert p.steps[-1].after["old"] == 0 and p.steps[-1].after["updated"] == 10
    # the rule cites the upstream function
    assert dels[1][1].rule.endswith("podclique/components/pod/rollingupdate.go#processPendingUpdates")


def test_scaling_group_member_change_recreates_whole_replicas_in_index_order():
    """RU-8: when pc-b (a member of sg-x) changes, each sg-x replica is recreated whole
    (both pc-b and pc-c PodCliques), replica 0 before replica 1; pc-a keeps its pods."""
    old = workload1()
    p, _ = plan(with_image(old, "pc-b", "busybox:v2"), old)
    assert p.outcome == "converged"
    dels = actions(p, "delete")
    assert all(a.kind == "PodClique" for _, a in dels)
    by_step: dict[int, set[str]] = {}
    for step, a in dels:
        by_step.setdefault(step, set()).add(a.name)
    assert list(by_step.values()) == [{"workload1-0-sg-x-0-pc-b", "workload1-0-sg-x-0-pc-c"},
                                      {"workload1-0-sg-x-1-pc-b", "workload1-0-sg-x-1-pc-c"}]
    assert not [a for _, a in actions(p, "delete", "Pod")]
    assert p.summary["minReadyPods"] == 6  # one scaling-group replica (4 pods) down at a time
    assert p.summary["peakPods"] == 10


def test_two_replicas_replica_one_untouched_until_replica_zero_is_done():
    """RU-9 with two PodCliqueSet replicas: replica 1 loses no pod until replica 0 is
    updated, and the PodCliqueSet selects replica 1 only after that."""
    old = workload1()
    old["spec"]["replicas"] = 2
    new = with_image(with_image(old, "pc-a", "busybox:v2"), "pc-b", "busybox:v2")
    p, _ = plan(new, old)
    assert p.outcome == "converged"
    dels = actions(p, "delete")
    first_r1 = min(step for step, a in dels if a.name.startswith("workload1-1-"))
    last_r0 = max(step for step, a in dels if a.name.startswith("workload1-0-"))
    assert last_r0 < first_r1
    sel = [(step, a.index) for step, a in actions(p, "status", "PodCliqueSet") if "selected" in a.reason]
    assert [i for _, i in sel] == [0, 1]
    assert sel[1][0] == first_r1
    # one pc-a pod and one sg-x replica at a time inside replica 0 (RU-9), in parallel
    assert p.summary["minReadyPods"] == 20 - 1 - 4
    assert p.summary["peakPods"] == 20


def test_replicas_only_change_rolls_nothing():
    """A change of replicas alone is not hashed: scaling out plans new objects only,
    and a template replicas edit plans nothing for existing objects."""
    old = workload1()
    new = copy.deepcopy(old)
    new["spec"]["replicas"] = 2
    p, _ = plan(new, old)
    assert p.outcome == "converged"
    assert not actions(p, "delete")
    assert all(a.name.startswith("workload1-1") for _, a in actions(p, "create"))
    edited = copy.deepcopy(old)
    edited["spec"]["template"]["cliques"][0]["spec"]["replicas"] = 5
    p2, _ = plan(edited, old)
    assert p2.outcome == "noop"
    assert "TemplateReplicasIgnored" in {w.code for w in p2.warnings}


def test_delete_first_replacement_waits_for_capacity():
    """RU-10: with no room for one more pod, one old pc-a pod is deleted, its
    replacement stays Pending and the plan is stuck on capacity naming the PodClique."""
    old = workload1()
    env = Environment(capacity={"memory": 9 * 80 * 1024 * 1024 * 1000})
    # settle at the old spec with enough room, then restrict capacity for the update
    model = GroveModel()
    world = model.observe(Obj(with_image(old, "pc-a", "busybox:v2")), [Obj(old)], Environment())
    p, final = run(model, Obj(with_image(old, "pc-a", "busybox:v2")), world, env)
    assert p.outcome == "stuck"
    assert p.stuck.reason == "InsufficientCapacity"
    assert len(actions(p, "delete", "Pod")) == 1
    assert len(actions(p, "create", "Pod")) == 1
    assert any(r.name == "workload1-0-pc-a" for r in p.stuck.blocked_on)
    assert "replica 0" in p.stuck.message


def test_replacement_never_ready_is_stuck_with_the_waiting_clique():
    """A replacement pod that never becomes Ready stops the rollout after one deletion."""
    old = workload1()
    env = Environment(never_ready=("workload1-0-pc-a-*",))
    model = GroveModel()
    new = with_image(old, "pc-a", "busybox:v2")
    world = model.observe(Obj(new), [Obj(old)], Environment())
    p, _ = run(model, Obj(new), world, env)
    assert p.stuck is not None and p.stuck.reason == "NeverReady"
    assert len(actions(p, "delete", "Pod")) == 1
    assert "workload1-0-pc-a" in p.stuck.message


def test_progress_deadline_turns_a_permanent_wait_into_progress_deadline_exceeded():
    """PR #817: with rollingUpdate.progressDeadline on the clique, a replacement that
    can never become Ready is reported as ProgressDeadlineExceeded."""
    old = workload1()
    new = with_image(old, "pc-a", "busybox:v2")
    new["spec"]["template"]["cliques"][0]["rollingUpdate"] = {"maxUnavailable": 1, "progressDeadline": "10m"}
    env = Environment(never_ready=("workload1-0-pc-a-*",))
    model = GroveModel()
    world = model.observe(Obj(new), [Obj(old)], Environment())
    p, _ = run(model, Obj(new), world, env)
    assert p.stuck is not None and p.stuck.reason == "ProgressDeadlineExceeded"
    assert "progressDeadline 10m" in p.stuck.message


def test_max_unavailable_budget_replaces_two_pods_at_once():
    """PR #817: maxUnavailable 2 on a 4-pod clique deletes two old pods per wave and
    never has more than two missing."""
    old = workload1()
    old["spec"]["template"]["cliques"][0]["spec"]["replicas"] = 4
    old["spec"]["template"]["cliques"][0]["spec"]["minAvailable"] = 2
    new = with_image(old, "pc-a", "busybox:v2")
    new["spec"]["template"]["cliques"][0]["rollingUpdate"] = {"maxUnavailable": 2}
    p, _ = plan(new, old)
    assert p.outcome == "converged"
    per_step: dict[int, int] = {}
    for step, a in actions(p, "delete", "Pod"):
        per_step[step] = per_step.get(step, 0) + 1
    assert sorted(per_step.values()) == [2, 2]
    assert p.summary["minReadyPods"] == 12 - 2


def test_spec_change_during_rollout_restarts_and_warns():
    """4.8: a new template while a rollout is running resets the update; the plan says
    so and pods of the intermediate template are replaced again."""
    old = workload1()
    mid = with_image(old, "pc-a", "busybox:v2")
    model = GroveModel()
    world = model.observe(Obj(mid), [Obj(old)], Environment())
    # run the first two steps of the v2 rollout
    from rolloutctl.core.simulate import simulate  # noqa: F401
    for _ in range(3):
        acts = model.reconcile(Obj(mid), world)
        world = model.advance(Obj(mid), world.apply(acts), Environment()).world
    new = with_image(old, "pc-a", "busybox:v3")
    # the cluster is mid-rollout at v2; the user applies v3
    live = [o for o in world if o.kind != "PodCliqueSet"] + [world.get("PodCliqueSet", "default", "workload1")]
    w2 = model.observe(Obj(new), live, Environment())
    p, _ = run(model, Obj(new), w2, Environment())
    assert p.outcome == "converged"
    assert "RolloutRestarts" in {w.code for w in p.warnings}
    assert "restart" in p.steps[0].title


def test_scale_out_during_update_creates_new_replica_on_new_template_only():
    """RU-11: PodCliqueSet replicas 1 → 2 together with a pc-a change: replica 1 is
    created from the new template and never has a pod replaced."""
    old = workload1()
    new = with_image(old, "pc-a", "busybox:v2")
    new["spec"]["replicas"] = 2
    p, final = plan(new, old)
    assert p.outcome == "converged"
    assert not [a for _, a in actions(p, "delete") if a.name.startswith("workload1-1-")]
    assert all(o.labels["grove.io/pod-template-hash"] for o in final if o.kind == "Pod")
    assert p.steps[-1].after["old"] == 0


def test_scale_in_during_update_skips_the_removed_replica():
    """RU-12: replica 1 is being updated when replicas drop to 1: its children are
    deleted as scaled away (except its headless Service, which upstream's Service sync
    never deletes) and the update ends without visiting it again."""
    old = workload1()
    old["spec"]["replicas"] = 2
    mid = with_image(old, "pc-a", "busybox:v2")
    model = GroveModel()
    world = model.observe(Obj(mid), [Obj(old)], Environment())
    while True:
        acts = model.reconcile(Obj(mid), world)
        world = model.advance(Obj(mid), world.apply(acts), Environment()).world
        st = world.get("PodCliqueSet", "default", "workload1").status
        if (st.get("updateProgress") or {}).get("currentlyUpdating", [{}])[0].get("replicaIndex") == 1:
            break
    smaller = copy.deepcopy(mid)
    smaller["spec"]["replicas"] = 1
    live = [o for o in world if o.kind != "PodCliqueSet"] + [world.get("PodCliqueSet", "default", "workload1")]
    p, final = run(model, Obj(smaller), model.observe(Obj(smaller), live, Environment()), Environment())
    assert p.outcome == "converged"
    assert [(o.kind, o.name) for o in final if o.name.startswith("workload1-1")] == [("Service", "workload1-1")]
    assert "HeadlessServiceLeftBehind" in {w.code for w in p.warnings}
    assert not final.get("PodCliqueSet", "default", "workload1").status["updateProgress"].get("currentlyUpdating")


def test_clique_name_suffix_hazard_is_warned():
    """Cliques ``worker`` and ``pworker`` (``worker`` first): the operator's
    suffix match would build pworker's PodCliques from worker's template."""
    old = workload1()
    old["spec"]["template"]["cliques"][0]["name"] = "worker"
    old["spec"]["template"]["cliques"][1]["name"] = "pworker"
    old["spec"]["template"]["podCliqueScalingGroups"][0]["cliqueNames"] = ["pworker", "pc-c"]
    p, _ = plan(old)
    w = [w for w in p.warnings if w.code == "CliqueNameSuffixHazard"]
    assert len(w) == 1 and "'worker' is a suffix of 'pworker'" in w[0].message
    assert w[0].path == "spec.template.cliques[name=pworker].name"  # keyed where warnings leave the planner


def test_capacity_stuck_during_update_names_the_base_gang():
    """With room for nine pods, the base gang cannot take back its replacement pc-a
    pod (the gang minimum is not met): stuck on capacity, blocked on the base gang."""
    old = workload1()
    grp = old["spec"]["template"]["podCliqueScalingGroups"][0]
    grp["minAvailable"] = 1
    new = with_image(old, "pc-a", "busybox:v2")
    model = GroveModel()
    world = model.observe(Obj(new), [Obj(old)], Environment())
    # only 9 pods fit: the base gang's replacement pc-a pod cannot be placed
    env = Environment(capacity={"memory": 9 * 80 * 1024 * 1024 * 1000})
    p, _ = run(model, Obj(new), world, env)
    assert p.stuck is not None and p.stuck.reason == "InsufficientCapacity"
    assert any(r.kind == "PodGang" and r.name == "workload1-0" for r in p.stuck.blocked_on)


def test_pods_of_a_large_clique_are_replaced_in_index_order():
    """Pods created in the same second tie in upstream's oldest-first order
    (``getNextPodToUpdate`` sorts by ``CreationTimestamp``, one-second resolution, an
    unstable sort): the plan replaces them by pod index, 0 to 11, not in the names'
    string order (0, 1, 10, 11, 2, …). (A manifest of its own: this test needs no
    upstream sample.)"""
    import yaml

    from tests.kinds.grove.test_finished_pods import SMALL

    old = yaml.safe_load(SMALL)
    old["spec"]["template"]["cliques"][0]["spec"]["replicas"] = 12
    p, _final = plan(with_image(old, "w", "busybox:v2"), old)
    assert p.outcome == "converged"
    deleted = [a.index for _, a in actions(p, "delete", "Pod")]
    assert deleted == list(range(12))
