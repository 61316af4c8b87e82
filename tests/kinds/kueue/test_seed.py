"""The seed's 14 steps (kuberay PR #4841's Kueue walkthrough, Kueue POC PR #11264) under
the top-level model, and the quota cases around them.

Given a RayService with a queue label and the elastic-job annotation, one head Pod
(2 CPU, 4Gi), a ClusterQueue with quota for one head Pod (then two); when it is created
and then its image changes; then the steps come out in the seed's order. Mirrors the
Kueue e2e "Should run a RayService if admitted" (test/e2e/singlecluster/extended/
kuberay_test.go) for creation and the POC's upgrade walkthrough for the rest.
"""

from __future__ import annotations

from rolloutctl.kinds.kueue.finish import finished
from rolloutctl.kinds.kueue.workload import admitted, wl_pod_sets
from rolloutctl.kinds.kueue.workload_names import slice_number

from .helpers import edit, plan, queues, queues_two, rs, rs_new_image

TOP = "top-level"


def is_kueue(a, fn):
    return a.rule.startswith("kueue") and a.rule.endswith(fn) or a.rule.split("#")[-1].startswith(fn)


def test_seed_steps_1_to_7_creation_in_order():
    run = plan(TOP, rs(), observed=queues())
    acts = run.actions
    i_webhook = run.index(lambda a: a.kind == "RayService" and a.fields.get("spec.suspend") is True)
    i_w1 = run.index(lambda a: a.kind == "Workload" and a.verb == "create")
    i_admit = run.index(lambda a: a.kind == "Workload" and "admission.clusterQueue" in a.fields)
    i_unsuspend_rs = run.index(lambda a: a.kind == "RayService" and a.fields.get("spec.suspend") is False)
    i_rc = run.index(lambda a: a.kind == "RayCluster" and a.verb == "create")
    i_unsuspend_rc = run.index(lambda a: a.kind == "RayCluster" and a.fields.get("spec.suspend") is False)
    assert i_webhook < i_w1 < i_admit < i_unsuspend_rs < i_rc < i_unsuspend_rc
    # step 2: both suspend fields, elastic gate on the templates; step 1 is the webhook alone
    assert run.plan.steps[0].actions[0].fields["spec.rayClusterConfig.suspend"] is True
    assert run.plan.steps[0].actions[0].fields["schedulingGates"] == ["kueue.x-k8s.io/elastic-job"]
    assert len(run.plan.steps[0].actions) == 1
    # step 3: W1 from the template, head x1
    assert acts[i_w1].fields["podSets"] == {"head": 1} and acts[i_w1].name == "rayservice-test-rayservice-<hash>"
    # step 5: the cluster is born suspended (nested gate stays true); step 6 is the POC post-step
    assert acts[i_rc].fields["suspend"] is True and acts[i_rc].rule.startswith("kuberay:")
    assert acts[i_unsuspend_rc].rule == "kueue[POC]:jobs/rayservice/rayservice_controller.go#unsuspendAdmittedChildren"
    assert acts[i_unsuspend_rs].rule.startswith("kueue[POC]:")
    assert run.plan.outcome == "converged"
    rsobj = run.world.get("RayService", "default", "test-rayservice")
    assert rsobj.spec["suspend"] is False and rsobj.spec["rayClusterConfig"]["suspend"] is True
    assert run.plan.steps[-1].after["ready"] is True and run.plan.steps[-1].after["admittedWorkloads"] == 1


def test_seed_steps_8_to_14_upgrade_with_quota_for_two():
    run = plan(TOP, rs_new_image(), observed=[rs()] + queues(), desired_queues=queues_two())
    acts = run.actions
    i_rc2 = run.index(lambda a: a.kind == "RayCluster" and a.verb == "create")
    i_w2 = run.index(lambda a: a.kind == "Workload" and a.verb == "create")
    i_admit = run.index(lambda a: a.kind == "Workload" and "admission.clusterQueue" in a.fields)
    i_w1_done = run.index(lambda a: a.kind == "Workload" and a.fields.get("conditions", {}).get("Finished")
                          == "True/WorkloadSliceReplaced")
    i_unsuspend = run.index(lambda a: a.kind == "RayCluster" and a.fields.get("spec.suspend") is False)
    i_switch = run.index(lambda a: a.kind == "Service" and a.verb == "update")
    i_delete = run.index(lambda a: a.kind == "RayCluster" and a.verb == "delete")
    i_shrink = run.index(lambda a: a.kind == "Workload" and a.fields.get("was") == {"head": 2})
    assert i_rc2 < i_w2 < i_admit < i_w1_done < i_unsuspend < i_switch < i_delete < i_shrink
    assert acts[i_rc2].fields["suspend"] is True
    assert acts[i_w2].fields["podSets"] == {"head": 2} and acts[i_w2].role == "slice-2"
    assert acts[i_w2].fields["replacementFor"] == "rayservice-test-rayservice-<hash>"
    assert acts[i_w1_done].role == "slice-1" and acts[i_admit].role == "slice-2"
    assert acts[i_shrink].fields["podSets"] == {"head": 1} and acts[i_shrink].role == "slice-2"
    assert run.plan.outcome == "converged"
    ws = sorted(run.workloads(), key=lambda w: slice_number(w.name))
    assert [finished(w) for w in ws] == [True, False]
    assert admitted(ws[1]) and {p.name: p.count for p in wl_pod_sets(ws[1])} == {"head": 1}
    assert run.plan.summary["minReadyPods"] >= 1  # zero downtime
    assert run.plan.steps[-1].after["quotaReserved"] == {"cpu": "2", "memory": "4Gi"}


def test_upgrade_with_quota_for_one_cluster_is_stuck_waiting_for_admission():
    run = plan(TOP, rs_new_image(), observed=[rs()] + queues())
    assert run.plan.outcome == "stuck"
    st = run.plan.stuck
    assert st.reason == "QuotaExceeded"
    assert "admitted for the old size but not the upgrade size" in st.message
    assert "head×2" in st.message and "stays suspended" in st.message
    kinds = {r.kind for r in st.blocked_on}
    assert {"ClusterQueue", "Workload", "RayCluster"} <= kinds
    assert any("nominalQuota to at least 4" in r for r in st.remedies)
    assert run.plan.summary["minReadyPods"] == 1  # the old cluster keeps serving
    new = [c for c in run.world.of_kind("RayCluster") if c.spec.get("suspend") is True]
    assert len(new) == 1


def test_quota_held_by_another_workload_is_insufficient_quota():
    other = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
             "metadata": {"name": "other", "namespace": "default",
                          "ownerReferences": [{"kind": "Job", "name": "j", "controller": True}]},
             "spec": {"queueName": "user-queue", "podSets": [{"name": "main", "count": 1, "template": {"spec": {
                 "containers": [{"name": "c", "resources": {"requests": {"cpu": "2", "memory": "4Gi"}}}]}}}]},
             "status": {"admission": {"clusterQueue": "cluster-queue", "podSetAssignments": [
                 {"name": "main", "flavors": {"cpu": "default-flavor", "memory": "default-flavor"}, "count": 1}]},
                 "conditions": [{"type": "QuotaReserved", "status": "True"}, {"type": "Admitted", "status": "True"}]}}
    four_cpu = [queues()[0]] + queues_two() + [queues()[2]]
    run = plan(TOP, rs(), observed=four_cpu + [other])
    assert run.plan.outcome == "converged"
    run = plan(TOP, rs_new_image(), observed=[rs(), other] + four_cpu)
    assert run.plan.stuck.reason == "InsufficientQuota"
    assert "used by other Workloads 2" in run.plan.stuck.message


def test_never_admitted_keeps_the_rayservice_suspended():
    small = edit(queues()[1], lambda d: d["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0].__setitem__(
        "nominalQuota", "1"))
    run = plan(TOP, rs(), observed=[queues()[0], small, queues()[2]])
    assert run.plan.outcome == "stuck" and run.plan.stuck.reason == "QuotaExceeded"
    assert run.plan.stuck.message.startswith("never admitted")
    assert not run.world.of_kind("RayCluster")
    assert run.world.get("RayService", "default", "test-rayservice").spec["suspend"] is True


def test_missing_local_queue_is_misconfigured():
    run = plan(TOP, rs(), observed=queues()[:2])
    assert run.plan.stuck.reason == "QueueMisconfigured"
    assert "LocalQueue user-queue doesn't exist" in run.plan.stuck.message


def test_plain_rayservice_without_queue_label_is_ignored_by_kueue():
    run = plan(TOP, edit(rs(), lambda d: d["metadata"].pop("labels")), observed=queues())
    assert run.plan.outcome == "converged"
    assert all(r.startswith("kuberay:") for r in run.rules())
    assert "KueueNotManaging" in run.codes()
