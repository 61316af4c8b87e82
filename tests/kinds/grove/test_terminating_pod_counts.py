"""A PodClique's status counts a terminating pod that is still Ready (it stays Running
and Ready for its termination grace period) in ``readyReplicas`` and
``scheduledReplicas``, and only ``replicas`` leaves it out: ``mutateReplicas`` over
``CategorizePodsByConditionType`` (podclique/reconcilestatus.go,
internal/utils/kubernetes/pod.go). A live snapshot taken during a pod's grace period is
planned with those counts."""

from __future__ import annotations

import yaml

from rolloutctl.core.model import Obj
from rolloutctl.kinds.grove import status as ST
from rolloutctl.kinds.grove import summary as SUM
from rolloutctl.kinds.grove.spec import PCS
from tests.kinds.grove.operator_world import settled_world
from tests.kinds.grove.test_finished_pods import SMALL, _plan


def _snapshot(min_available: int):
    """SMALL (clique w: 2 pods) settled, with minAvailable ``min_available`` and one of
    its pods deleted a moment ago, still Running and Ready."""
    manifest = yaml.safe_load(SMALL)
    manifest["spec"]["template"]["cliques"][0]["spec"]["minAvailable"] = min_available
    objs = settled_world(manifest)
    pod = next(o for o in objs if o["kind"] == "Pod")
    pod["metadata"]["deletionTimestamp"] = "2026-09-01T10:00:00Z"
    return manifest, objs, pod["metadata"]["name"]


def test_status_counts_a_terminating_ready_pod_as_ready_and_scheduled_but_not_as_a_replica():
    manifest, objs, _name = _snapshot(2)
    pcs = Obj(manifest).derived(PCS)
    pclq = Obj(next(o for o in objs if o["kind"] == "PodClique"))
    pods = [Obj(o) for o in objs if o["kind"] == "Pod"]
    st = ST.pclq_status(pcs, pclq, pods, None, SUM.PodSummary(pods))
    assert (st["replicas"], st["readyReplicas"], st["scheduledReplicas"]) == (1, 2, 2)
    # and the same without a summary
    assert ST.pclq_status(pcs, pclq, pods, None)["readyReplicas"] == 2
    # two scheduled, two Ready: minAvailable 2 is not breached while the pod terminates
    breach = next(c for c in st["conditions"] if c["type"] == "MinAvailableBreached")
    assert breach["status"] == "False"


def test_a_snapshot_during_a_grace_period_does_not_arm_gang_termination_in_the_first_pass():
    manifest, objs, name = _snapshot(2)
    plan = _plan(manifest, objs)
    first = plan.first_pass
    # the first pass replaces the terminating pod and arms no breach: upstream's counts
    # still hold both pods Ready
    assert not [a for a in first.actions if a.kind == "PodClique" and "MinAvailableBreached" in str(a.fields)
                and "'True'" in str(a.fields)]
    assert plan.outcome == "converged"
