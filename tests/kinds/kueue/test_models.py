"""Each Kueue integration model's distinctive behaviour (kueue-rayservice digest §3.5-3.7,
§5.1-5.2): nested (merged) — the cluster born running with free quota, born suspended when
admission is late, an image upgrade that Kueue answers by stopping the job; legacy — one
Workload per RayCluster; top-level without the elastic annotation — downtime; preemption."""

from __future__ import annotations

import copy
from typing import Callable

from rolloutctl.core.environment import Environment
from rolloutctl.core.model import Obj
from rolloutctl.kinds.kueue.model import KueueRayServiceModel, compare_rows, compare_variants, queue_objects

from .helpers import edit, not_elastic, obj, plan, queues, queues_two, rs, rs_new_image


def test_nested_free_quota_admits_before_the_cluster_exists():
    """Kueue e2e "Should run a RayService if admitted": the cluster is created running."""
    run = plan("nested", rs(), observed=queues())
    assert run.plan.outcome == "converged"
    rc = next(a for a in run.actions if a.kind == "RayCluster" and a.verb == "create")
    assert rc.fields["suspend"] is False
    assert not any(r.startswith("kueue[POC]") for r in run.rules())
    webhook = run.plan.steps[0].actions[0]
    assert webhook.fields == {"spec.rayClusterConfig.suspend": True, "schedulingGates": ["kueue.x-k8s.io/elastic-job"]}


def test_nested_late_admission_leaves_the_cluster_suspended_forever():
    """Digest §3.6: admitted after KubeRay created the cluster -> born suspended, stuck."""
    first = plan("nested", rs(), observed=queues()[:2])  # the LocalQueue is created later
    assert first.plan.stuck.reason == "QueueMisconfigured"
    (rc,) = first.world.of_kind("RayCluster")
    assert rc.spec["suspend"] is True
    world = first.world.replace(put=[obj(queues()[2])])
    run = plan("nested", rs(), world=world)
    admit = [a for a in run.actions if "admission.clusterQueue" in a.fields]
    assert admit and any(a.kind == "RayService" and a.fields.get("spec.rayClusterConfig.suspend") is False
                         for a in run.actions)
    st = run.plan.stuck
    assert st.reason == "ClusterSuspended"
    assert "was created while rayClusterConfig.suspend was still true" in st.message
    assert any("kubectl patch raycluster" in r for r in st.remedies)
    assert {r.kind for r in st.blocked_on} >= {"RayCluster", "Workload"}


def test_nested_image_upgrade_stops_the_job_and_leaves_the_serving_cluster_until_its_next_event():
    """Digest §5.1 (derived): containers changed -> no matching Workload -> stopJob and delete.
    The serving RayCluster is a child job that Kueue suspends when the RayService has no
    Workload, but only when its RayCluster job reconciler runs for it, on an event of the
    RayCluster (For(RayCluster), Owns(Workload); the Workload is the RayService's): nothing
    writes the serving cluster here, so it keeps serving with no Workload holding its quota,
    and the diagnosis says when the suspension comes."""
    run = _image_upgrade()
    rules = run.rules()
    assert "kueue:jobframework/reconciler.go#stopJob" in rules
    assert "kueue:jobframework/reconciler.go#shouldSuspendChildJob" not in rules
    assert any(a.verb == "delete" and a.kind == "Workload" for a in run.actions)
    assert run.plan.stuck.reason == "ClusterSuspended"
    assert "the serving RayCluster" in run.plan.stuck.message
    assert "keeps running with no admitted Workload" in run.plan.stuck.message
    assert run.plan.summary["minReadyPods"] > 0
    assert "KueueUpgradeUnaccounted" in run.codes()


def _image_upgrade():
    return plan("nested", not_elastic(rs_new_image()), observed=[not_elastic(rs())] + queues(),
                desired_queues=queues_two())


def test_nested_serving_cluster_with_no_workload_is_suspended_at_its_next_event():
    """The same service after the plan above, when the serving RayCluster changes (here a
    label someone adds; a status write of the RayCluster controller, when a Pod restarts,
    does the same): the update event reaches Kueue's RayCluster job reconciler, which
    suspends the cluster (its Pods are deleted)."""
    run = _image_upgrade()
    active = run.world.get("RayService", "default", rs()["metadata"]["name"]).status["activeServiceStatus"]["rayClusterName"]
    rc = run.world.get("RayCluster", "default", active)
    raw = copy.deepcopy(dict(rc.raw))
    raw["metadata"]["labels"] = {**raw["metadata"].get("labels", {}), "team": "ml"}
    world = run.world.replace(put=[Obj(raw, rc.file, rc.line, rc.lines)])
    again = plan("nested", not_elastic(rs_new_image()), world=world, desired_queues=queues_two())
    (susp,) = [a for a in again.actions if a.rule.endswith("#shouldSuspendChildJob")]
    assert (susp.kind, susp.uid or susp.name, susp.fields) == ("RayCluster", active, {"spec.suspend": True})
    assert "was suspended by Kueue" in again.plan.stuck.message


def test_nested_elastic_upgrade_pods_stay_gated():
    run = plan("nested", rs_new_image(), observed=[rs()] + queues(), desired_queues=queues_two())
    assert run.plan.stuck.reason == "PodsGated"
    assert not [a for a in run.actions if a.kind == "Workload"]  # the Workload never grows


def test_legacy_one_workload_per_cluster_each_needs_its_full_request():
    run = plan("legacy", rs_new_image(), observed=[rs()] + queues(), desired_queues=queues_two())
    assert run.plan.outcome == "converged"
    created = [a for a in run.actions if a.kind == "Workload" and a.verb == "create"]
    assert [a.name for a in created] == ["raycluster-test-rayservice-<random>-<hash>"]
    assert created[0].fields["requests"] == {"cpu": "2", "memory": "4Gi"}
    i_webhook = run.index(lambda a: a.rule == "kueue:jobs/raycluster/raycluster_webhook.go#Default")
    i_start = run.index(lambda a: a.kind == "RayCluster" and a.rule.endswith("#startJob"))
    i_gone = run.index(lambda a: a.kind == "Workload" and a.verb == "delete")
    assert i_webhook < i_start < i_gone
    assert not any(r.startswith("kueue[POC]") for r in run.rules())
    assert not [a for a in run.actions if a.kind == "RayService" and a.rule.startswith("kueue")]
    assert len([w for w in run.world.of_kind("Workload") if not w.terminating]) == 1


def test_legacy_quota_for_one_cluster_waits_for_quota():
    run = plan("legacy", rs_new_image(), observed=[rs()] + queues())
    assert run.plan.stuck.reason == "InsufficientQuota"
    assert "its full request" in run.plan.stuck.message


def test_top_level_without_elastic_annotation_stops_the_service_to_upgrade():
    """Digest §4.6 (derived): pod sets change without slicing -> stopJob -> teardown, requeue."""
    run = plan("top-level", not_elastic(rs_new_image()), observed=[not_elastic(rs())] + queues(),
               desired_queues=queues_two())
    assert run.plan.outcome == "converged"
    assert run.plan.summary["minReadyPods"] == 0
    assert any(a.kind == "RayService" and a.fields.get("spec.suspend") is True for a in run.actions)
    assert "kuberay:rayservice_controller.go#deleteRayServiceOwnedResources" in run.rules()
    assert "KueueNotElastic" in run.codes()


def test_preemption_stops_the_service_and_requeues_its_workload():
    """Digest §3.5 "stop" and §1.4: a higher-priority Workload preempts ours (withinClusterQueue
    LowerPriority); Kueue suspends the RayService, clears the reservation once Ready=False, and
    the Workload waits for quota again."""
    batch = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
             "metadata": {"name": "batch", "namespace": "default",
                          "ownerReferences": [{"kind": "Job", "name": "batch", "controller": True}]},
             "spec": {"queueName": "user-queue", "priority": 100, "podSets": [{"name": "main", "count": 1, "template": {
                 "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "2", "memory": "4Gi"}}}]}}}]}}
    cq = edit(queues()[1], lambda d: d["spec"].__setitem__("preemption", {"withinClusterQueue": "LowerPriority"}))
    run = plan("top-level", rs(), observed=[rs()] + queues() + [batch], desired_queues=[cq])
    i_pre = run.index(lambda a: a.rule.endswith("#IssuePreemptions"))
    i_stop = run.index(lambda a: a.kind == "RayService" and a.fields.get("spec.suspend") is True)
    i_commit = run.index(lambda a: a.kind == "RayService" and a.verb == "status"
                         and a.fields.get("conditions", {}).get("Suspending") == "True/SuspendRequested")
    i_requeue = run.index(lambda a: a.fields.get("conditions", {}).get("Requeued") == "True/Preempted")
    i_batch = run.index(lambda a: a.name == "batch" and "admission.clusterQueue" in a.fields)
    assert i_pre < i_stop < i_commit < i_requeue < i_batch
    assert run.plan.stuck.reason == "InsufficientQuota"
    assert run.plan.stuck.message.startswith("preempted and re-queued")
    assert not [c for c in run.world.of_kind("RayCluster") if not c.terminating]


def test_compare_three_models_side_by_side():
    d = obj(rs_new_image())
    observed = [obj(rs())] + [obj(q) for q in queues()]
    m = KueueRayServiceModel("top-level", queues=queue_objects([obj(q) for q in queues_two()]),
                             observed_queues=queue_objects(observed))
    rows = compare_rows(m, d, observed, Environment())
    assert [r.strategy for r in rows] == list(compare_variants())
    by = {r.strategy: r for r in rows}
    assert by["kueue:top-level"].outcome == "converged" and by["kueue:top-level"].min_ready_pods == 1
    assert by["kueue:nested"].outcome == "stuck" and by["kueue:nested"].stuck.reason == "PodsGated"
    assert by["kueue:legacy"].outcome == "converged"
    comp = m.compare(d, observed, Environment())
    assert comp.to_dict()["kind"] == "Comparison" and len(comp.rows) == 3
    assert m.own_strategy(d) == "kueue:top-level"


def test_kueue_webhook_validation():
    bad = edit(rs(), lambda d: d["spec"]["rayClusterConfig"].__setitem__("workerGroupSpecs", [
        {"groupName": "head", "replicas": 1, "minReplicas": 1, "maxReplicas": 1,
         "template": {"spec": {"containers": [{"name": "w", "image": "x"}]}}}]))
    bad = edit(bad, lambda d: d["spec"]["rayClusterConfig"].__setitem__("enableInTreeAutoscaling", True))
    bad = not_elastic(bad)
    rules = {f.rule for f in KueueRayServiceModel().validate(Obj(bad, "x.yaml", 1))}
    assert {"KQ001", "KQ003"} <= rules
    assert not [f for f in KueueRayServiceModel().validate(Obj(rs(), "x.yaml", 1)) if f.rule.startswith("KQ")]


def test_rules_name_the_controller():
    for mode in ("top-level", "nested", "legacy"):
        run = plan(mode, rs_new_image(), observed=[rs()] + queues(), desired_queues=queues_two())
        for r in run.rules():
            assert r.startswith(("kuberay:", "kueue:", "kueue[POC]:")), r
            if mode != "top-level":
                assert not r.startswith("kueue[POC]"), r


def test_deterministic_plans():
    a = plan("top-level", rs_new_image(), observed=[rs()] + queues(), desired_queues=queues_two()).plan.to_dict()
    b = plan("top-level", copy.deepcopy(rs_new_image()), observed=[rs()] + queues(),
             desired_queues=queues_two()).plan.to_dict()
    assert a == b


def _add_worker_group(d: dict) -> None:
    rcc = d["spec"]["rayClusterConfig"]
    image = rcc["headGroupSpec"]["template"]["spec"]["containers"][0]["image"]
    rcc["workerGroupSpecs"] = [{"groupName": "small-group", "replicas": 1, "minReplicas": 1, "maxReplicas": 1,
                                "rayStartParams": {}, "template": {"spec": {"containers": [
                                    {"name": "ray-worker", "image": image,
                                     "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}}]


def test_top_level_elastic_upgrade_that_adds_a_worker_group_stops_the_service():
    """workloadslicing.go EnsureWorkloadSlices: new pod set names are incompatible with the
    slice, so ensureOneWorkload falls back to non-elastic matching: no match -> stopJob
    (spec.suspend, KubeRay tears everything down) and the slice deleted; a new Workload is
    created at once (slicing jobs do not wait) and the service comes back: downtime."""
    run = plan("top-level", edit(rs_new_image(), _add_worker_group), observed=[rs()] + queues(),
               desired_queues=queues_two())
    assert run.plan.outcome == "converged"
    assert run.plan.summary["minReadyPods"] == 0
    i_stop = run.index(lambda a: a.kind == "RayService" and a.fields.get("spec.suspend") is True)
    i_del = run.index(lambda a: a.kind == "Workload" and a.verb == "delete")
    assert "pod set names changed (head -> head/small-group)" in run.actions[i_del].reason
    i_new = run.index(lambda a: a.kind == "Workload" and a.verb == "create")
    i_teardown = run.index(lambda a: a.rule == "kuberay:rayservice_controller.go#deleteRayServiceOwnedResources")
    assert i_stop < i_del < i_new < i_teardown
    # the Workload's single pod set no longer lines up with the two groups: templates not restored
    assert run.actions[i_stop].fields["templates"].startswith("not restored")
    (w,) = [w for w in run.workloads() if not w.terminating]
    assert w.spec["podSets"][1]["name"] == "small-group"


def test_nested_elastic_upgrade_that_adds_a_worker_group_gets_a_new_workload():
    """The same fallback under the merged nested model: the job is stopped (nested suspend), the
    slice deleted and a new one with both pod sets admitted and started; the new cluster's Pods
    belong to the new slice chain, so the ungater releases them (the old cluster's Pods carry
    the old chain's name and do not count)."""
    run = plan("nested", edit(rs_new_image(), _add_worker_group), observed=[rs()] + queues(),
               desired_queues=queues_two())
    assert run.plan.outcome == "converged"
    assert "kueue:jobframework/reconciler.go#stopJob" in run.rules()
    created = [a for a in run.actions if a.kind == "Workload" and a.verb == "create"]
    assert [a.fields["podSets"] for a in created] == [{"head": 1, "small-group": 1}]
    assert any(a.kind == "Workload" and a.verb == "delete" for a in run.actions)
    rc_create = [a for a in run.actions if a.kind == "RayCluster" and a.verb == "create"]
    assert rc_create and rc_create[0].fields["suspend"] is False


def test_gcs_fault_tolerance_head_is_accounted_for_the_redis_cleanup_job():
    """raycluster/common.go BuildPodSets -> accountForRedisCleanupInHeadPodSet: with GCS fault
    tolerance the head's Ray container counts at least 200m CPU / 256Mi (KubeRay's Redis
    cleanup Job); without it the head's own requests."""
    def small_head(d: dict, ft: bool) -> None:
        rcc = d["spec"]["rayClusterConfig"]
        rcc["headGroupSpec"]["template"]["spec"]["containers"][0]["resources"] = {
            "requests": {"cpu": "100m", "memory": "4Gi"}}
        if ft:
            rcc["gcsFaultToleranceOptions"] = {"redisAddress": "redis:6379"}

    for ft, want in ((True, {"cpu": "200m", "memory": "4Gi"}), (False, {"cpu": "100m", "memory": "4Gi"})):
        run = plan("nested", edit(rs(), lambda d: small_head(d, ft)), observed=queues())
        (created,) = [a for a in run.actions if a.kind == "Workload" and a.verb == "create"]
        assert created.fields["requests"] == want


def _queue(name: str, suspend_field: str) -> Callable[[dict], None]:
    def f(d: dict) -> None:
        d["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] = name
        if suspend_field == "spec":
            d["spec"]["suspend"] = True
        else:
            d["spec"]["rayClusterConfig"]["suspend"] = True
    return f


def test_queue_label_fixed_while_suspended_moves_the_workload_to_the_new_queue():
    """reconciler.go QueueNameChange: a suspended job whose Workload is not admitted takes the
    job's new queue-name onto the Workload, and the scheduler admits it there. Before, the
    Workload stayed in the missing queue and the plan was stuck QueueMisconfigured."""
    for mode, field, outcome in (("top-level", "spec", "converged"), ("nested", "rayClusterConfig", "stuck")):
        run = plan(mode, edit(rs(), _queue("user-queue", field)),
                   observed=[edit(rs(), _queue("typo-queue", field))] + queues())
        moved = [a for a in run.actions if a.rule == "kueue:jobframework/reconciler.go#QueueNameChange"]
        assert [a.fields for a in moved] == [{"spec.queueName": "user-queue"}]
        assert any("admission.clusterQueue" in a.fields for a in run.actions)
        assert run.plan.outcome == outcome
        if outcome == "stuck":  # nested: the cluster was born suspended while the queue was wrong
            assert run.plan.stuck.reason == "ClusterSuspended"


def _rename_worker_group(name: str) -> Callable[[dict], None]:
    def f(d: dict) -> None:
        _add_worker_group(d)
        d["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["groupName"] = name
    return f


def _big_queues() -> list[dict]:
    """The sample queues with the ClusterQueue of kueue-queues-two-clusters.yaml (4 CPU, 8Gi)."""
    return [q for q in queues() if q["kind"] != "ClusterQueue"] + [q for q in queues_two() if q["kind"] == "ClusterQueue"]


def test_nested_rename_of_a_worker_group_keeps_the_workload():
    """equality.ComparePodSetSlices (EquivalentToWorkload) compares pod sets by position:
    count and containers, not names. Renaming a worker group whose pods stay the same keeps
    the Workload: Kueue does not stop the job. Before, the plan stopped the RayService
    (stopJob), deleted its Workload and suspended the serving cluster (stuck
    ClusterSuspended, no ready pods)."""
    old = not_elastic(edit(rs(), _add_worker_group))
    run = plan("nested", not_elastic(edit(rs(), _rename_worker_group("workers"))), observed=[old] + _big_queues())
    assert run.plan.outcome == "converged"
    assert not any(a.kind == "Workload" and a.verb == "delete" for a in run.actions)
    assert "kueue:jobframework/reconciler.go#stopJob" not in run.rules()
    assert run.plan.summary["minReadyPods"] > 0
    (w,) = run.workloads()
    assert [ps["name"] for ps in w.spec["podSets"]] == ["head", "small-group"]
    # another count is still no match: the job is stopped and its Workload deleted
    def more(d: dict) -> None:
        _rename_worker_group("workers")(d)
        d["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["replicas"] = 2
    run = plan("nested", not_elastic(edit(rs(), more)), observed=[old] + _big_queues())
    assert "kueue:jobframework/reconciler.go#stopJob" in run.rules()


def test_autoscaler_sidecar_is_counted_with_its_configured_resources():
    """raycluster/common.go BuildPodSets -> autoscalerContainer: with in-tree autoscaling the
    head pod set gets the autoscaler container, with autoscalerOptions.resources when set
    (a limit stands for a missing request) and KubeRay's 500m / 512Mi otherwise. Before, the
    Workload always counted 500m / 512Mi."""
    def autoscaling(resources: dict | None) -> Callable[[dict], None]:
        def f(d: dict) -> None:
            rcc = d["spec"]["rayClusterConfig"]
            rcc["enableInTreeAutoscaling"] = True
            rcc["headGroupSpec"]["template"]["spec"]["containers"][0]["resources"] = {
                "requests": {"cpu": "1", "memory": "2Gi"}}
            if resources is not None:
                rcc["autoscalerOptions"] = {"resources": resources}
        return f

    for resources, want in ((None, {"cpu": "1500m", "memory": "2560Mi"}),
                            ({"requests": {"cpu": "1", "memory": "2Gi"}}, {"cpu": "2", "memory": "4Gi"}),
                            ({"limits": {"cpu": "250m", "memory": "1Gi"}}, {"cpu": "1250m", "memory": "3Gi"})):
        run = plan("nested", edit(rs(), autoscaling(resources)), observed=_big_queues())
        (created,) = [a for a in run.actions if a.kind == "Workload" and a.verb == "create"]
        assert created.fields["requests"] == want, resources


def test_priority_class_label_naming_a_missing_class_creates_no_workload():
    """reconciler.go ExtractPriority (GetPriorityFromWorkloadPriorityClass): a priority-class
    label naming a WorkloadPriorityClass that does not exist fails the Workload's
    construction, so Kueue creates none and the RayService is never admitted. Before, the
    plan created the Workload with priority 0 and converged. With the class, its value is
    the Workload's priority."""
    labelled = edit(rs(), lambda d: d["metadata"]["labels"].__setitem__("kueue.x-k8s.io/priority-class", "high"))
    for mode in ("top-level", "nested", "legacy"):
        run = plan(mode, labelled, observed=queues())
        assert not any(a.kind == "Workload" and a.verb == "create" for a in run.actions)
        assert run.plan.outcome == "stuck"
        assert run.plan.stuck.reason == "WorkloadPriorityClassNotFound"
        assert "create WorkloadPriorityClass high (include it in the input)" in run.plan.stuck.remedies
    wpc = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass", "metadata": {"name": "high"},
           "value": 1000}
    run = plan("nested", labelled, observed=queues() + [wpc])
    assert run.plan.outcome == "converged"
    (w,) = run.workloads()
    assert w.spec["priority"] == 1000


def test_default_workload_priority_class_is_applied_on_create():
    """defaults.go ApplyDefaultWorkloadPriorityClass (gate WorkloadPriorityClassDefaulting, beta
    and on since v0.20): the RayService webhook (the RayCluster webhook under legacy) labels a
    job without a priority class kueue.x-k8s.io/priority-class: default when a
    WorkloadPriorityClass named default exists, so its Workload takes that class's value.
    Before, the label was not added and the Workload had priority 0."""
    wpc = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass",
           "metadata": {"name": "default"}, "value": 100}
    for mode in ("top-level", "nested", "legacy"):
        run = plan(mode, rs(), observed=queues() + [wpc])
        webhook = next(a for a in run.actions if "webhook.go#Default" in a.rule)
        assert webhook.fields["metadata.labels[kueue.x-k8s.io/priority-class]"] == "default"
        assert [w.spec["priority"] for w in run.workloads()] == [100]
        assert run.plan.outcome == "converged"
    labelled = edit(rs(), lambda d: d["metadata"]["labels"].__setitem__("kueue.x-k8s.io/priority-class", "high"))
    high = edit(wpc, lambda d: (d["metadata"].__setitem__("name", "high"), d.__setitem__("value", 7)))
    run = plan("nested", labelled, observed=queues() + [wpc, high])
    assert not any("metadata.labels[kueue.x-k8s.io/priority-class]" in a.fields for a in run.actions)
    assert [w.spec["priority"] for w in run.workloads()] == [7]


def test_priority_class_label_change_reprioritises_the_workload():
    """reconciler.go UpdateWorkloadPriority: a job whose priority-class label now names another
    WorkloadPriorityClass updates its Workload's priorityClassRef and priority, and the
    scheduler orders and preempts by the new value. A suspended RayService waiting behind a
    priority-100 Workload, raised from class low (10) to high (1000) in a ClusterQueue that
    preempts LowerPriority, preempts the holder and is admitted. Before, the Workload kept
    priority 10 and the plan stayed stuck InsufficientQuota."""
    def wpc(name: str, value: int) -> dict:
        return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass", "metadata": {"name": name},
                "value": value}
    holder = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
              "metadata": {"name": "batch", "namespace": "default", "creationTimestamp": 0,
                           "ownerReferences": [{"kind": "Job", "name": "batch", "controller": True}]},
              "spec": {"queueName": "user-queue", "priority": 100, "podSets": [{"name": "main", "count": 1, "template": {
                  "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "2", "memory": "4Gi"}}}]}}}]},
              "status": {"admission": {"clusterQueue": "cluster-queue", "podSetAssignments": [
                  {"name": "main", "flavors": {"cpu": "default-flavor", "memory": "default-flavor"}, "count": 1}]},
                  "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved"},
                                 {"type": "Admitted", "status": "True", "reason": "Admitted"}]}}
    cq = edit(queues()[1], lambda d: d["spec"].__setitem__("preemption", {"withinClusterQueue": "LowerPriority"}))

    def with_class(name: str) -> Callable[[dict], None]:
        def f(d: dict) -> None:
            d["metadata"]["labels"]["kueue.x-k8s.io/priority-class"] = name
            d["spec"]["suspend"] = True
        return f

    observed = [edit(rs(), with_class("low")), queues()[0], cq, queues()[2], wpc("low", 10), wpc("high", 1000), holder]
    run = plan("top-level", edit(rs(), with_class("high")), observed=observed)
    i_prio = run.index(lambda a: a.rule == "kueue:jobframework/reconciler.go#UpdateWorkloadPriority")
    assert run.actions[i_prio].fields == {"spec.priorityClassRef.name": "high", "spec.priority": 1000}
    i_pre = run.index(lambda a: a.rule.endswith("#IssuePreemptions") and a.name == "batch")
    i_admit = run.index(lambda a: a.name.startswith("rayservice-") and "admission.clusterQueue" in a.fields)
    assert i_prio < i_pre < i_admit
    assert run.plan.outcome == "converged"
    (w,) = run.workloads()
    assert w.spec["priorityClassRef"] == {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "high"}


def test_nested_autoscaling_upgrade_that_removes_a_worker_group_leaves_kueue_in_error():
    """raycluster/common.go UpdatePodSets: an elastic autoscaling RayService takes its worker
    counts from the active RayCluster, and a group of that cluster the template no longer has
    is an error ("PodSet name mismatch"): the reconcile fails before ensureOneWorkload, so
    Kueue neither stops the job nor deletes its slice. Before, the plan fell back to the
    non-elastic matching and showed stopJob and the slice deleted."""
    def groups(*names: str) -> Callable[[dict], None]:
        def f(d: dict) -> None:
            _add_worker_group(d)
            rcc = d["spec"]["rayClusterConfig"]
            rcc["enableInTreeAutoscaling"] = True
            g = rcc["workerGroupSpecs"][0]
            rcc["workerGroupSpecs"] = [dict(copy.deepcopy(g), groupName=n) for n in names]
        return f

    cq8 = edit(queues()[1], lambda d: d["spec"]["resourceGroups"][0]["flavors"][0].__setitem__(
        "resources", [{"name": "cpu", "nominalQuota": 8}, {"name": "memory", "nominalQuota": "16Gi"}]))
    run = plan("nested", edit(rs_new_image(), groups("small-group")),
               observed=[edit(rs(), groups("small-group", "extra")), queues()[0], cq8, queues()[2]])
    assert any(a.kind == "RayCluster" and a.verb == "create" for a in run.actions)  # the upgrade's cluster
    assert "kueue:jobframework/reconciler.go#stopJob" not in run.rules()
    assert not any(a.kind == "Workload" and a.verb in ("delete", "create") for a in run.actions)


def _queues_with(f) -> list[dict]:
    out = copy.deepcopy(queues())
    for q in out:
        if q["kind"] == "ClusterQueue":
            f(q)
    return out


def test_a_cluster_queue_naming_a_missing_flavor_is_inactive_and_admits_nothing():
    """updateFlavorMetadata / updateQueueStatus (pkg/cache/scheduler/clusterqueue.go): a
    ClusterQueue whose resource groups name a ResourceFlavor that does not exist is
    inactive (FlavorNotFound), and the scheduler admits nothing to it ("ClusterQueue ... is
    inactive", scheduler.go nominate)."""
    def missing(q):
        q["spec"]["resourceGroups"][0]["flavors"][0]["name"] = "spot"
    run = plan("nested", rs(), observed=_queues_with(missing))
    assert run.plan.outcome == "stuck" and run.plan.stuck.reason == "QueueMisconfigured"
    assert "references missing ResourceFlavor(s): spot" in run.plan.stuck.message
    assert not [a for a in run.actions if a.kind == "Workload" and "quota reserved and admitted" in a.reason]


def test_a_cluster_queue_without_namespace_selector_admits_no_namespace():
    """ClusterQueueSpec.namespaceSelector: null selects no namespace, {} every one
    (LabelSelectorAsSelector; ValidateAdmissibility -> ErrNamespaceMismatch); a selector
    on the namespace's name label is read without the Namespace object, others from it."""
    run = plan("nested", rs(), observed=_queues_with(lambda q: q["spec"].pop("namespaceSelector")))
    assert run.plan.outcome == "stuck" and run.plan.stuck.reason == "QueueMisconfigured"
    assert "namespaceSelector absent" in run.plan.stuck.message
    by_name = {"matchLabels": {"kubernetes.io/metadata.name": "other"}}
    run = plan("nested", rs(), observed=_queues_with(lambda q: q["spec"].__setitem__("namespaceSelector", by_name)))
    assert run.plan.stuck is not None and "does not select default" in run.plan.stuck.message
    team = {"matchExpressions": [{"key": "team", "operator": "In", "values": ["ml"]}]}
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default", "labels": {"team": "ml"}}}
    queues_team = _queues_with(lambda q: q["spec"].__setitem__("namespaceSelector", team))
    assert plan("nested", rs(), observed=queues_team + [ns]).plan.outcome == "converged"
    unknown = plan("nested", rs(), observed=queues_team)  # without the Namespace: taken to match, said so
    assert unknown.plan.outcome == "converged" and "KueueNamespaceSelectorAssumed" in {w.code for w in unknown.plan.warnings}
    ns["metadata"]["labels"]["team"] = "web"
    assert plan("nested", rs(), observed=queues_team + [ns]).plan.outcome == "stuck"


def test_live_workload_creation_times_come_before_the_plans_clock():
    """A live RFC 3339 creationTimestamp orders among live Workloads by its time and before
    every Workload the plan (0, 1, ...) or a settled previous manifest (-2, -3, ...) has."""
    from rolloutctl.kinds.kueue.workload import created_at

    def wl(name, t):
        return obj({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
                    "metadata": {"name": name, "namespace": "default", "creationTimestamp": t}})
    live_old, live_new = wl("a", "2025-01-01T00:00:00Z"), wl("b", "2025-01-02T00:00:00Z")
    assert created_at(live_old) < created_at(live_new) < created_at(wl("c", -2)) < created_at(wl("d", 0))


def test_a_workload_update_is_called_a_resize_only_when_its_counts_change():
    """A slice's counts updated in place (workloadslicing EnsureWorkloadSlices) is a
    resize; a suspended job's Workload whose pod sets are rewritten to match the job
    (reconciler.go updateWorkloadToMatchJob, e.g. an image change, counts as they were)
    is not: its title said "resize ... to" the counts it already had."""
    from rolloutctl.core.model import Action
    from rolloutctl.kinds.kueue.phases import kueue_phrase

    def wl(fields):
        return Action("update", "Workload", "w", "ns", "why", "kueue:x", fields=fields)

    assert kueue_phrase(wl({"podSets": {"head": 1, "g": 3}, "was": {"head": 1, "g": 2}})) == \
        "resize Workload w to [head×1, g×3]"
    assert kueue_phrase(wl({"podSets": {"head": 1, "g": 2}})) == \
        "rewrite the pod sets of Workload w [head×1, g×2]"


def _quota_holder() -> dict:
    """An admitted Workload of another job that holds the whole ClusterQueue quota."""
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": "job-big-abcde", "namespace": "default", "creationTimestamp": "2026-08-01T00:00:00Z",
                         "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "big", "uid": "j1",
                                              "controller": True}]},
            "spec": {"queueName": "user-queue", "priority": 0, "podSets": [
                {"name": "main", "count": 1, "template": {"spec": {"containers": [
                    {"name": "c", "image": "x", "resources": {"requests": {"cpu": "100", "memory": "1000Gi"}}}]}}}]},
            "status": {"admission": {"clusterQueue": "cluster-queue", "podSetAssignments": [
                {"name": "main", "count": 1, "flavors": {"cpu": "default-flavor", "memory": "default-flavor"},
                 "resourceUsage": {"cpu": "100", "memory": "1000Gi"}}]},
                "conditions": [{"type": t, "status": "True", "reason": t, "message": "ok",
                                "lastTransitionTime": "2026-08-01T00:00:00Z"} for t in ("QuotaReserved", "Admitted")]}}


def test_nested_queued_at_creation_says_the_cluster_born_suspended_stays_suspended_after_admission():
    """Queued at creation behind another job's Workload: KubeRay creates the RayCluster with
    spec.suspend: true (copied from rayClusterConfig.suspend). Freeing the quota is not
    enough: admission flips rayClusterConfig.suspend, which KubeRay ignores for an existing
    cluster, and Kueue never unsuspends a child, so the diagnosis says so and names what to
    do with the cluster once admitted (as the live-state diagnosis does)."""
    run = plan("nested", not_elastic(rs()), observed=queues() + [_quota_holder()])
    st = run.plan.stuck
    assert st.reason in ("InsufficientQuota", "QuotaExceeded")
    (rc,) = run.world.of_kind("RayCluster")
    assert rc.spec["suspend"] is True
    assert "stays down after admission too" in st.message and "modifyRayCluster" in st.message
    assert "RayCluster" in {r.kind for r in st.blocked_on}
    assert st.remedies[0].startswith("raise ClusterQueue")
    assert st.remedies[-1].startswith("then, once the Workload is admitted: kubectl patch raycluster")


def test_nested_queue_created_late_says_the_cluster_born_suspended_stays_suspended():
    """The LocalQueue is missing (QueueMisconfigured) and KubeRay has already created the
    RayCluster suspended: creating the queue admits the Workload but does not start the
    cluster (test_nested_late_admission_leaves_the_cluster_suspended_forever plans it), so
    the diagnosis says what to do with the cluster then."""
    run = plan("nested", rs(), observed=queues()[:2])
    st = run.plan.stuck
    assert st.reason == "QueueMisconfigured"
    assert "stays down after admission too" in st.message
    assert any(r.startswith("create LocalQueue") for r in st.remedies)
    assert st.remedies[-1].startswith("then, once the Workload is admitted")


def test_top_level_queued_service_has_no_born_suspended_note():
    """Top-level model: the RayService's own spec.suspend holds it (no cluster is created
    while it is suspended), so no cluster remedy."""
    run = plan("top-level", not_elastic(rs()), observed=queues() + [_quota_holder()])
    st = run.plan.stuck
    assert st is not None and "stays down after admission too" not in st.message
    assert not any("once the Workload is admitted" in r for r in st.remedies)
