"""Upgrades, in-place updates and ignored edits, mirroring ray-operator/test/e2erayservice/
rayservice_upgrade_test.go, rayservice_in_place_update_test.go and
ray-operator/test/e2eincrementalupgrade/rayservice_incremental_upgrade_test.go (ray-project/kuberay @ feeaf72f)."""

from __future__ import annotations

import copy

from rolloutctl.core.environment import Environment
from rolloutctl.core.model import Obj
from rolloutctl.kinds.kuberay.model import RayServiceModel

from .helpers import base, clusters, cond, edit, incremental, new_image, plan, retarget, settled, steps


def codes(run) -> set[str]:
    return {w.code for w in run.plan.warnings}


def test_image_change_plans_pending_cluster_switch_and_delayed_deletion():
    """Mirrors the zero-downtime flow of TestOldHeadPodFailDuringUpgrade (rayservice_upgrade_test.go)."""
    # given a settled service, when the image changes
    run = plan(new_image(base()), settled(base()))
    acts = run.actions
    # then a pending cluster is named, created, gets the Serve config, both Services switch, the old one goes
    order = [(a.verb, a.kind) for a in acts if a.verb != "status"]
    assert order == [("create", "RayCluster"), ("update", "ServeApplications"), ("update", "Service"),
                     ("update", "Service"), ("delete", "RayCluster")]
    assert run.plan.steps[0].actions[0].fields["conditions"]["UpgradeInProgress"] == "True/BothActivePendingClustersExist"
    switch = next(s for s in run.plan.steps if any(a.kind == "Service" for a in s.actions))
    delete = next(s for s in run.plan.steps if any(a.verb == "delete" for a in s.actions))
    assert delete.time - switch.time >= 60  # rayClusterDeletionDelaySeconds
    assert delete.time - switch.time <= 60 + 2 * 2
    assert run.plan.outcome == "converged" and run.plan.strategy == "NewCluster"
    assert run.plan.summary["minReadyPods"] == 4 and run.plan.summary["peakPods"] == 8
    assert cond(run.world, "UpgradeInProgress") == ("False", "NoPendingCluster")


def test_deletion_delay_zero_deletes_on_next_pass():
    raw = edit(new_image(base()), lambda d: d["spec"].__setitem__("rayClusterDeletionDelaySeconds", 0))
    run = plan(raw, settled(edit(base(), lambda d: d["spec"].__setitem__("rayClusterDeletionDelaySeconds", 0))))
    switch = next(s for s in run.plan.steps if any(a.kind == "Service" for a in s.actions))
    delete = next(s for s in run.plan.steps if any(a.verb == "delete" for a in s.actions))
    assert delete.time - switch.time <= 4


def test_worker_replicas_only_is_noop_with_warning():
    run = plan(edit(base(), lambda d: d["spec"]["rayClusterConfig"]["workerGroupSpecs"][0].__setitem__("replicas", 5)),
               settled(base()))
    assert run.plan.outcome == "noop"
    w = [w for w in run.plan.warnings if w.code == "WorkerReplicasIgnored"]
    assert w and w[0].path == "spec.rayClusterConfig.workerGroupSpecs[groupName=cpu].replicas"
    assert "rayClusterSpecForHashing" in w[0].message


def test_nested_suspend_flip_on_running_service_has_no_effect():
    """A Kueue flip of rayClusterConfig.suspend on a running service (kuberay-rayservice digest section 8)."""
    run = plan(edit(base(), lambda d: d["spec"]["rayClusterConfig"].__setitem__("suspend", True)), settled(base()))
    assert run.plan.outcome == "noop" and "NestedSuspendIgnored" in codes(run)
    (name,) = clusters(run.world)
    assert run.world.get("RayCluster", "ml-serving", name).spec.get("suspend") is not True


def test_tolerations_only_is_noop():
    def f(d):
        d["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["template"]["spec"]["tolerations"] = [
            {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    run = plan(edit(base(), f), settled(base()))
    assert run.plan.outcome == "noop" and "SchedulingFieldsIgnored" in codes(run)


def test_appending_worker_group_updates_active_in_place():
    def f(d):
        g = copy.deepcopy(d["spec"]["rayClusterConfig"]["workerGroupSpecs"][0])
        g["groupName"] = "cpu-large"
        d["spec"]["rayClusterConfig"]["workerGroupSpecs"].append(g)
    run = plan(edit(base(), f), settled(base()))
    (upd,) = [a for a in run.actions if a.kind == "RayCluster"]
    assert upd.verb == "update" and upd.role == "active" and upd.rule.endswith("#shouldUpdateCluster")
    assert not [a for a in run.actions if a.verb == "create"]
    assert run.plan.outcome == "converged" and run.plan.summary["peakPods"] == 7


def test_serve_config_change_is_submitted_in_place():
    """Mirrors TestRayServiceInPlaceUpdate."""
    run = plan(edit(base(), lambda d: d["spec"].__setitem__("serveConfigV2", d["spec"]["serveConfigV2"].replace(
        "num_replicas: 2", "num_replicas: 3"))), settled(base()))
    non_status = [(a.verb, a.kind, a.role) for a in run.actions if a.verb != "status"]
    assert non_status == [("update", "ServeApplications", "active")]
    assert run.plan.outcome == "converged"


def test_serve_config_and_cluster_spec_change_goes_to_new_cluster():
    """Mirrors TestUpdateServeConfigAndRayClusterSpec: the new cluster gets the new config,
    the old cluster keeps the old one."""
    def f(d):
        d["spec"]["serveConfigV2"] = d["spec"]["serveConfigV2"].replace("num_replicas: 2", "num_replicas: 3")
        d["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]["env"] = [
            {"name": "FOO", "value": "BAR"}]
    run = plan(edit(base(), f), settled(base()))
    serve = [a for a in run.actions if a.kind == "ServeApplications"]
    assert [a.role for a in serve] == ["pending"]
    assert ("create", "text-ml-<random>") in run.verbs("RayCluster")


def test_serve_config_and_cluster_spec_with_upgrade_disabled():
    """Mirrors TestUpdateServeConfigAndRayClusterSpecWithUpgradeDisabled: with upgradeStrategy None
    only the Serve config reaches the running cluster."""
    none = edit(base(), lambda d: d["spec"].__setitem__("upgradeStrategy", {"type": "None"}))

    def f(d):
        d["spec"]["serveConfigV2"] = d["spec"]["serveConfigV2"].replace("num_replicas: 2", "num_replicas: 3")
        d["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]["env"] = [
            {"name": "FOO", "value": "BAR"}]
    run = plan(edit(none, f), settled(none))
    assert [(a.verb, a.kind) for a in run.actions if a.verb != "status"] == [("update", "ServeApplications")]
    assert "UpgradeStrategyNone" in codes(run) and run.plan.strategy == "None"


def test_second_change_during_upgrade_replaces_pending_cluster():
    # given an upgrade whose pending cluster exists
    one = new_image(base())
    world = steps(one, settled(base()), 2)
    # when a second image change arrives
    two = new_image(base(), "registry.example.com/text-ml:1.6.0")
    run = plan(two, retarget(world, two))
    # then a new pending cluster is named and created; the replaced pending one is deleted later
    creates = [a for a in run.actions if a.verb == "create" and a.kind == "RayCluster"]
    deletes = [a for a in run.actions if a.verb == "delete" and a.kind == "RayCluster"]
    assert len(creates) == 1 and len(deletes) == 2
    assert run.plan.outcome == "converged" and len(clusters(run.world)) == 1


def test_revert_under_newcluster_creates_third_cluster():
    world = steps(new_image(base()), settled(base()), 2)
    run = plan(base(), retarget(world, base()))
    assert "RevertCreatesNewCluster" in codes(run)
    assert [a.verb for a in run.actions if a.kind == "RayCluster"].count("create") == 1


def test_never_ready_image_is_stuck():
    run = plan(new_image(base()), settled(base()), Environment(never_ready=("text-ml-*",)))
    assert run.plan.outcome == "stuck" and run.plan.stuck.reason == "NeverReady"
    # the Services never switched
    assert not [a for a in run.actions if a.kind == "Service"]


def test_capacity_for_two_clusters_is_needed():
    run = plan(new_image(base()), settled(base()), Environment(capacity={"cpu": 20_000}))
    assert run.plan.outcome == "stuck" and run.plan.stuck.reason == "InsufficientCapacity"


def test_cluster_born_suspended_is_stuck_with_remedy():
    """Kueue model B: rayClusterConfig.suspend true when the cluster is created."""
    run = plan(edit(base(), lambda d: d["spec"]["rayClusterConfig"].__setitem__("suspend", True)))
    assert run.plan.outcome == "stuck" and run.plan.stuck.reason == "ClusterSuspended"
    assert any("kubectl patch raycluster" in r for r in run.plan.stuck.remedies)
    assert cond(run.world, "Ready") == ("False", "Initializing")


def test_managed_by_multikueue_is_ignored():
    run = plan(edit(new_image(base()), lambda d: d["spec"].__setitem__("managedBy", "kueue.x-k8s.io/multikueue")),
               settled(base()))
    assert run.plan.outcome == "noop" and not run.plan.steps and "ManagedByExternalController" in codes(run)


def test_invalid_spec_fails_validation():
    run = plan(edit(base(), lambda d: d["spec"].__setitem__("rayClusterDeletionDelaySeconds", -1)), settled(base()))
    assert run.plan.outcome == "stuck" and run.plan.stuck.reason == "ValidationFailed"
    assert cond(run.world, "Ready") == ("False", "ValidationFailed")


def test_kuberay_version_bump_reapplies_in_place():
    world = settled(base())
    rc = world.of_kind("RayCluster")[0]
    raw = copy.deepcopy(dict(rc.raw))
    raw["metadata"]["annotations"]["ray.io/kuberay-version"] = "v1.4.2"
    live = [world.get("RayService", "ml-serving", "text-ml"), Obj(raw)]
    live += [o for o in world.of_kind("Service")]
    m = RayServiceModel(kuberay_version="v1.5.0")
    run = plan(base(), m.observe(Obj(base()), live, Environment()), model=m)
    upd = [a for a in run.actions if a.kind == "RayCluster"]
    assert [a.verb for a in upd] == ["update"] and "v1.4.2" in upd[0].reason
    assert "KubeRayVersionMismatch" in codes(run)


def test_live_cluster_without_version_annotation():
    """``shouldUpdateCluster`` reads a missing ``ray.io/kuberay-version`` as "": with a
    RayService status (a real operator wrote it: one older than v1.2.0, which set no such
    annotation) the active cluster gets the whole rayClusterConfig again, in place. A
    hand-written snapshot (no status anywhere) is taken as made by the modelled version."""
    world = settled(base())
    rc = world.of_kind("RayCluster")[0]
    raw = copy.deepcopy(dict(rc.raw))
    del raw["metadata"]["annotations"]["ray.io/kuberay-version"]
    rs = world.get("RayService", "ml-serving", "text-ml")
    live = [rs, Obj(raw)] + list(world.of_kind("Service"))
    m = RayServiceModel()
    run = plan(base(), m.observe(Obj(base()), live, Environment()), model=m)
    (upd,) = [a for a in run.actions if a.kind == "RayCluster"]
    assert upd.verb == "update" and upd.role == "active" and "KubeRayVersionMissing" in codes(run)
    assert not [a for a in run.actions if a.verb == "create"]
    bare_rs = copy.deepcopy(dict(rs.raw))
    bare_rs.pop("status", None)
    bare_rc = copy.deepcopy(raw)
    bare_rc.pop("status", None)
    live = [Obj(bare_rs), Obj(bare_rc)] + list(world.of_kind("Service"))
    run = plan(base(), m.observe(Obj(base()), live, Environment()), model=m)
    assert "KubeRayVersionAssumed" in codes(run) and "KubeRayVersionMissing" not in codes(run)


# --------------------------------------------------------------------------- incremental


def _milestones(run) -> list[tuple]:
    out = []
    for a in run.actions:
        if a.kind == "ServeApplications" and "targetCapacity" in a.fields and a.fields.get("serveConfigV2") is None:
            out.append(("capacity", a.role, a.fields["targetCapacity"]))
        if a.kind == "HTTPRoute" and a.verb == "update":
            w = a.fields["weights"]
            out.append(("traffic", (w.get("active"), w.get("pending"))))
    return out


def test_incremental_upgrade_steps():
    """Mirrors TestRayServiceIncrementalUpgrade (stepSize 25, maxSurge 50) and the milestone
    sequence of generateUpgradeSteps (e2eincrementalupgrade/support.go)."""
    old = incremental(base())
    run = plan(new_image(old), settled(old))
    ms = [m for m in _milestones(run) if not (m[0] == "traffic" and m[1] in ((100, 0), (100, None)))]
    assert ms[:8] == [("capacity", "pending", 50), ("traffic", (75, 25)), ("traffic", (50, 50)),
                      ("capacity", "active", 50), ("capacity", "pending", 100), ("traffic", (25, 75)),
                      ("traffic", (0, 100)), ("capacity", "active", 0)]
    # traffic steps are intervalSeconds apart
    times = [s.time for s in run.plan.steps if any(a.kind == "HTTPRoute" and a.fields["weights"].get("pending")
                                                   in (25, 50, 75, 100) for a in s.actions)]
    assert all(b - a >= 30 for a, b in zip(times, times[1:]))
    # the new cluster starts without worker replicas (autoscaling from minReplicas)
    create = next(a for a in run.actions if a.verb == "create" and a.kind == "RayCluster")
    assert "workerReplicas" in create.fields
    # promotion moves the head Service; the old cluster is deleted after the delay; route has one backend
    assert any(a.kind == "Service" and a.name == "text-ml-head-svc" and a.verb == "update" for a in run.actions)
    assert run.plan.outcome == "converged" and len(clusters(run.world)) == 1
    route = run.world.of_kind("HTTPRoute")[0]
    assert len(route.spec["rules"][0]["backendRefs"]) == 1


def test_incremental_initial_creation_creates_gateway_then_route():
    run = plan(incremental(base()))
    kinds = [(a.verb, a.kind) for a in run.actions if a.verb != "status"]
    assert kinds.index(("create", "Gateway")) < kinds.index(("create", "RayCluster")) < kinds.index(("create", "HTTPRoute"))
    assert ("create", "Service") in kinds and run.plan.outcome == "converged"


def test_incremental_rollback_when_spec_reverted():
    """Mirrors TestRayServiceIncrementalUpgradeRollback: reverting mid-upgrade rolls traffic back
    and removes the pending cluster; the original cluster stays."""
    old = incremental(base())
    up = new_image(old)
    world = steps(up, settled(old), 6)
    original = [c for c in clusters(world) if c.endswith("<random>")]
    run = plan(old, retarget(world, old))
    st = [a for a in run.actions if a.verb == "status"]
    assert any(_cond_field(a, "RollbackInProgress") == "True/DesiredClusterSpecChanged" for a in st)
    assert not [a for a in run.actions if a.verb == "create" and a.kind == "RayCluster"]
    assert run.plan.outcome == "converged"
    assert clusters(run.world) == original
    assert cond(run.world, "RollbackInProgress") is None
    assert cond(run.world, "UpgradeInProgress") == ("False", "NoPendingCluster")


def _cond_field(a, t):
    return (a.fields.get("conditions") or {}).get(t)


def _autoscaling(raw: dict, resources: dict | None = None) -> dict:
    def f(d: dict) -> None:
        d["spec"]["rayClusterConfig"]["enableInTreeAutoscaling"] = True
        if resources is not None:
            d["spec"]["rayClusterConfig"]["autoscalerOptions"] = {"resources": resources}
    return edit(raw, f)


def test_the_autoscaler_sidecar_counts_in_the_head_pods_requests():
    """With enableInTreeAutoscaling the head Pod carries the autoscaler container
    (common/pod.go#BuildAutoscalerContainer: 500m CPU, 512Mi, unless autoscalerOptions.resources
    replaces them, mergeAutoscalerOverrides): the peak and --capacity count it."""
    # head 2 CPU / 8Gi + 3 workers of 4 CPU / 16Gi = 14 CPU / 56Gi, plus the sidecar
    run = plan(_autoscaling(base()))
    assert run.plan.outcome == "converged"
    assert run.plan.summary["peak"] == {"cpu": "14500m", "memory": "57856Mi"}
    custom = plan(_autoscaling(base(), {"limits": {"cpu": "1", "memory": "1Gi"}}))
    assert custom.plan.summary["peak"] == {"cpu": "15", "memory": "57Gi"}
    # 14 CPU fits the Ray containers but not the head Pod with its sidecar
    tight = plan(_autoscaling(base()), env=Environment(capacity={"cpu": 14_000}))
    assert tight.plan.outcome == "stuck" and tight.plan.stuck.reason == "InsufficientCapacity"
    assert plan(base(), env=Environment(capacity={"cpu": 14_000})).plan.outcome == "converged"


def _scale_down_and_append(d: dict) -> None:
    groups = d["spec"]["rayClusterConfig"]["workerGroupSpecs"]
    extra = copy.deepcopy(groups[0])
    extra.update(groupName="cpu-extra", replicas=1)
    groups[0]["replicas"] = 1
    groups.append(extra)


def test_an_autoscaling_cluster_keeps_its_pods_when_an_in_place_update_scales_a_group_down():
    """raycluster_controller.go reconcilePods: a group over its desired Pods loses the
    surplus, except with in-tree autoscaling, where the autoscaler alone deletes Pods
    (unless the operator sets ENABLE_RANDOM_POD_DELETE=true). An in-place update that
    lowers a group and appends another (shouldUpdateCluster) leaves 3 + 1 workers, not 1 + 1."""
    old = _autoscaling(base())
    new = edit(old, _scale_down_and_append)
    run = plan(new, settled(old))
    (upd,) = [a for a in run.actions if a.kind == "RayCluster"]
    assert upd.verb == "update" and upd.role == "active"
    assert run.plan.outcome == "converged"
    # head + 3 cpu workers kept + 1 cpu-extra: 5 Pods, 2 + 4 * 4 CPU + the autoscaler sidecar
    assert run.plan.summary["peakPods"] == 5 and run.plan.summary["peak"]["cpu"] == "18500m"
    assert RayServiceModel().metrics(run.world)["pods"] == 5
    (kept,) = [w for w in run.plan.warnings if w.code == "AutoscalerKeepsWorkerPods"]
    assert "keeps 3 worker Pods of group cpu where its spec now asks for 1" in kept.message
    assert kept.path == "spec.rayClusterConfig.workerGroupSpecs[groupName=cpu].replicas"

    deleting = RayServiceModel(kuberay_env=["ENABLE_RANDOM_POD_DELETE=True"])
    run = plan(new, settled(old), model=deleting)
    assert deleting.metrics(run.world)["pods"] == 3 and run.plan.summary["peakPods"] == 4
    assert not [w for w in run.plan.warnings if w.code == "AutoscalerKeepsWorkerPods"]

    fixed = edit(base(), _scale_down_and_append)  # no autoscaling: the controller deletes the surplus
    run = plan(fixed, settled(base()))
    assert RayServiceModel().metrics(run.world)["pods"] == 3
    assert not [w for w in run.plan.warnings if w.code == "AutoscalerKeepsWorkerPods"]


def test_a_pending_cluster_an_older_kuberay_hashed_with_its_tolerations_is_replaced():
    """Up to v1.5.1 the cluster hash covered the templates' tolerations (v1.5.2 blanks them,
    utils/util.go GenerateHashWithoutReplicasAndWorkersToDelete); shouldUpdateCluster
    re-stamps only the active cluster, so a pending cluster that v1.5.1 made from a spec
    with tolerations never matches the modelled operator's hash: a new pending cluster
    replaces it. Without tolerations, or made by v1.5.2, it is kept."""
    from rolloutctl.kinds.kuberay.decisions import hashed_by

    assert hashed_by("v1.5.1") == {"tolerations", "schedulingGates", "suspend"}
    assert hashed_by("v1.6.2") == {"suspend"} and hashed_by("v1.7.0") == set() and hashed_by("nightly") == set()

    def tolerated(d):
        d["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["template"]["spec"]["tolerations"] = [
            {"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}]

    def pending_by(version: str, spec: dict) -> list:
        world = steps(spec, settled(base()), 2)  # the pending cluster named and created
        pending = next(c for c in world.of_kind("RayCluster") if c.name.endswith("<random2>") or
                       c.name == rs_status(world)["pendingServiceStatus"]["rayClusterName"])
        raw = copy.deepcopy(dict(pending.raw))
        raw["metadata"]["annotations"]["ray.io/kuberay-version"] = version
        run = plan(spec, world.replace(put=[Obj(raw)]))
        return [a for a in run.actions if a.kind == "RayCluster" and a.verb == "create"]

    spec = edit(new_image(base()), tolerated)
    assert pending_by("v1.5.1", spec), "a new pending cluster"
    assert not pending_by("v1.5.2", spec)
    assert not pending_by("v1.5.1", new_image(base()))
