"""Top-level spec.suspend, mirroring ray-operator/test/e2erayservice/rayservice_suspend_test.go
and ray-operator/test/e2eincrementalupgrade/rayservice_suspend_test.go (ray-project/kuberay @ feeaf72f)."""

from __future__ import annotations

import copy

from rolloutctl.core.model import Obj

from .helpers import (base, clusters, cond, edit, incremental, new_image, plan, retarget, rs_status, settled,
                      steps)


def suspended(raw: dict, value: bool = True) -> dict:
    return edit(raw, lambda d: d["spec"].__setitem__("suspend", value))


def test_suspend_resume():
    """Mirrors TestRayServiceSuspendResume."""
    # given a settled RayService
    world = settled(base())
    # when spec.suspend is set to true
    run = plan(suspended(base()), world)
    # then the first pass only writes status (the commit point) ...
    first = run.plan.steps[0]
    assert [a.verb for a in first.actions] == ["status"]
    f = first.actions[0].fields
    assert f["conditions"]["Suspending"] == "True/SuspendRequested"
    assert f["conditions"]["Ready"] == "False/SuspendInProgress"
    assert f["conditions"]["UpgradeInProgress"] == "False/SuspendInProgress"
    assert f["conditions"]["RollbackInProgress"] == "False/SuspendInProgress"
    assert f["numServeEndpoints"] == 0 and f["activeServiceStatus.rayClusterName"] == ""
    # ... the next pass deletes the cluster and both RayService Services ...
    second = run.plan.steps[1]
    deleted = sorted((a.kind, a.name) for a in second.actions if a.verb == "delete")
    assert deleted == [("RayCluster", "text-ml-<random>"), ("Service", "text-ml-head-svc"),
                       ("Service", "text-ml-serve-svc")]
    # ... and the last pass reaches Suspended with the other conditions retained as False/SuspendComplete
    assert run.plan.outcome == "converged"
    assert cond(run.world, "Suspended") == ("True", "SuspendComplete")
    for t in ("Suspending", "UpgradeInProgress", "RollbackInProgress", "Ready"):
        assert cond(run.world, t) == ("False", "SuspendComplete")
    assert clusters(run.world) == [] and run.world.of_kind("Service") == []

    # when spec.suspend goes back to false
    resumed = plan(base(), retarget(run.world, base()))
    # then the service resumes as a fresh start: a new cluster, the Services, Ready again
    st0 = [a for a in resumed.plan.steps[0].actions if a.verb == "status"]
    assert st0[0].fields["conditions"]["Suspended"] == "False/RayServiceResumed"
    assert st0[0].fields["conditions"]["Ready"] == "False/Initializing"
    assert st0[-1].fields["pendingServiceStatus.rayClusterName"] == "text-ml-<random>"
    assert ("create", "text-ml-<random>") in resumed.verbs("RayCluster")
    assert {n for v, n in resumed.verbs("Service") if v == "create"} == {"text-ml-head-svc", "text-ml-serve-svc"}
    assert resumed.plan.outcome == "converged"
    assert cond(resumed.world, "Ready") == ("True", "NonZeroServeEndpoints")
    assert cond(resumed.world, "Suspended") == ("False", "RayServiceResumed")


def test_suspend_is_atomic_and_next_continues_cleanup_when_suspend_flipped_back():
    """Mirrors TestRayServiceSuspendAtomic: once Suspending is persisted, cleanup runs to
    completion whatever spec.suspend says; the service then comes back on a different cluster."""
    # given a RayService whose suspend was committed (Suspending=True) and whose cluster is held by a finalizer
    world = steps(suspended(base()), settled(base()), 1)
    assert cond(world, "Suspending") == ("True", "SuspendRequested")
    rc = world.of_kind("RayCluster")[0]
    raw = copy.deepcopy(dict(rc.raw))
    raw["metadata"]["finalizers"] = ["example.com/deletion-blocker"]
    world = world.replace(put=[Obj(raw)])
    # when spec.suspend is flipped back to false
    run = plan(base(), retarget(world, base()))
    # then the next pass still deletes, and Suspending stays True while the finalizer holds the cluster
    assert run.plan.steps[0].actions[0].verb == "delete"
    assert run.plan.outcome == "stuck" and run.plan.stuck.reason == "DeletionBlocked"
    assert cond(run.world, "Suspending") == ("True", "SuspendInProgress")
    # when the finalizer is removed
    held = run.world.of_kind("RayCluster")[0]
    raw = copy.deepcopy(dict(held.raw))
    raw["metadata"]["finalizers"] = []
    after = plan(base(), run.world.replace(put=[Obj(raw)]))
    # then Suspended is reached, the service resumes and a different cluster backs it
    titles = [s.title for s in after.plan.steps]
    assert titles[0].startswith("Suspended")
    assert after.plan.outcome == "converged"
    assert cond(after.world, "Ready") == ("True", "NonZeroServeEndpoints")
    verbs = [(a.verb, a.kind) for a in after.actions]
    assert verbs.index(("create", "RayCluster")) > 0 and len(clusters(after.world)) == 1


def test_created_suspended():
    """Mirrors TestRayServiceCreatedSuspended: no owned object is ever created."""
    run = plan(suspended(base()))
    assert [s.actions[-1].verb for s in run.plan.steps] == ["update", "status", "status"]
    assert not [a for a in run.actions if a.verb in ("create", "delete")]
    assert cond(run.world, "Suspended") == ("True", "SuspendComplete")
    assert cond(run.world, "Ready") == ("False", "SuspendComplete")
    # then flipping to false brings the service up normally
    up = plan(base(), retarget(run.world, base()))
    assert up.plan.outcome == "converged" and len(clusters(up.world)) == 1


def test_suspend_during_upgrade_deletes_both_clusters_and_resume_applies_upgraded_spec():
    """Mirrors TestRayServiceSuspendDuringUpgrade."""
    # given an upgrade in progress (the pending cluster exists)
    upgraded = new_image(base())
    world = steps(upgraded, settled(base()), 2)
    assert len(clusters(world)) == 2
    # when the RayService is suspended
    run = plan(suspended(upgraded), retarget(world, suspended(upgraded)))
    # then both clusters are deleted in one pass
    deletes = [a for a in run.actions if a.verb == "delete" and a.kind == "RayCluster"]
    assert len(deletes) == 2  # status no longer names them: the commit pass reset both cluster statuses
    assert cond(run.world, "Suspended") == ("True", "SuspendComplete")
    # when resumed, the upgraded spec is the new baseline: one cluster with the new image
    up = plan(upgraded, retarget(run.world, upgraded))
    assert up.plan.outcome == "converged"
    (name,) = clusters(up.world)
    img = up.world.get("RayCluster", "ml-serving", name).spec["headGroupSpec"]["template"]["spec"]["containers"][0]["image"]
    assert img.endswith(":1.5.0")


def test_suspend_during_incremental_upgrade_deletes_gateway_and_httproute():
    """Mirrors TestRayServiceSuspendDuringIncrementalUpgrade (e2eincrementalupgrade/rayservice_suspend_test.go)."""
    old = incremental(base())
    upgraded = new_image(old)
    world = steps(upgraded, settled(old), 3)
    assert len(clusters(world)) == 2 and world.of_kind("Gateway") and world.of_kind("HTTPRoute")
    run = plan(suspended(upgraded), retarget(world, suspended(upgraded)))
    deleted = [(a.kind, a.name) for a in run.actions if a.verb == "delete"]
    assert ("Gateway", "text-ml-gateway") in deleted and ("HTTPRoute", "text-ml-httproute") in deleted
    assert sum(1 for k, _ in deleted if k == "RayCluster") == 2
    assert run.world.of_kind("Gateway") == [] and run.world.of_kind("HTTPRoute") == []
    assert run.world.of_kind("Service") == []  # per-cluster serve Services go with their clusters
    # resume re-creates Gateway, HTTPRoute, cluster and Services
    up = plan(upgraded, retarget(run.world, upgraded))
    created = {a.kind for a in up.actions if a.verb == "create"}
    assert {"Gateway", "HTTPRoute", "RayCluster", "Service"} <= created
    assert up.plan.outcome == "converged"


def test_gateway_not_deleted_when_not_incremental():
    """deleteRayServiceOwnedResources touches Gateway/HTTPRoute only in incremental mode."""
    run = plan(suspended(base()), settled(base()))
    assert not [a for a in run.actions if a.kind in ("Gateway", "HTTPRoute")]


def test_status_only_commit_pass_is_first_step_of_next():
    from rolloutctl.core.simulate import first_step
    run = plan(suspended(base()), settled(base()))
    nxt = first_step(run.plan)
    assert len(nxt.steps) == 1 and [a.verb for a in nxt.steps[0].actions] == ["status"]
    assert rs_status(run.world)["serviceStatus"] == ""


def test_the_pass_that_completes_a_suspend_requeues_and_the_next_does_not():
    """handleSuspend Case 3 sets Suspended and returns RequeueAfter 2 s; only Case 1 (already
    Suspended) returns without a requeue."""
    from rolloutctl.kinds.kuberay.api import MEM_REQUEUE
    from rolloutctl.kinds.kuberay.model import RayServiceModel
    from rolloutctl.core.environment import Environment

    old = base()
    new = edit(old, lambda d: d["spec"].__setitem__("suspend", True))
    m, d, env, world = RayServiceModel(), Obj(copy.deepcopy(new), "t.yaml", 1), Environment(), settled(old)
    ends = []
    for _ in range(8):
        acts, memory = m.reconcile_pass(d, world)
        ends.append((cond(world.apply(acts), "Suspended"), memory[MEM_REQUEUE]))
        world = m.advance(d, world.with_memory(**memory).apply(acts), env).world
    completing = next(i for i, (c, _) in enumerate(ends) if c and c[0] == "True")
    assert "requeue in 2 s" in ends[completing][1]
    assert "requeue" not in ends[completing + 1][1].replace("no requeue", "")


def test_a_load_balancer_service_delays_the_suspend_without_blocking_it():
    """A ``type: LoadBalancer`` serve Service carries the cloud service controller's
    ``service.kubernetes.io/load-balancer-cleanup`` finalizer, which that controller removes
    once the load balancer is gone: deleteRayServiceOwnedResources counts the Service as
    remaining and requeues, then Suspended is reached. An unknown finalizer still blocks."""
    world = settled(base())
    svc = next(s for s in world.of_kind("Service") if s.name == "text-ml-serve-svc")
    raw = copy.deepcopy(dict(svc.raw))
    raw["spec"]["type"] = "LoadBalancer"
    raw["metadata"]["finalizers"] = ["service.kubernetes.io/load-balancer-cleanup"]
    run = plan(suspended(base()), world.replace(put=[Obj(raw)]))
    assert run.plan.outcome == "converged", run.plan.stuck
    assert cond(run.world, "Suspended") == ("True", "SuspendComplete") and run.world.of_kind("Service") == []
    waits = [w for s in run.plan.steps for w in s.wait_for]
    assert any("load-balancer-cleanup" in w and "cloud service controller" in w for w in waits), waits
    raw["metadata"]["finalizers"] = ["example.com/keep"]
    held = plan(suspended(base()), world.replace(put=[Obj(raw)]))
    assert held.plan.outcome == "stuck" and held.plan.stuck.reason == "DeletionBlocked"
