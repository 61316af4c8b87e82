"""Plan invariants for a RayService under Kueue (hypothesis): for any head request and
ClusterQueue quota, under every model, a plan ends either converged with every live
RayCluster unsuspended and admitted quota within the nominal quota, or stuck with a
quota, queue, gate or suspension reason; Kueue never reserves more than the nominal quota."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rolloutctl.core.quantity import parse_quantity
from rolloutctl.kinds.kueue.podset import requests_of
from rolloutctl.kinds.kueue.workload import quota_reserved, wl_pod_sets

from .helpers import edit, plan, queues, rs, rs_new_image

REASONS = {"QuotaExceeded", "InsufficientQuota", "QueueMisconfigured", "WorkloadPriorityClassNotFound", "PodsGated",
           "ClusterSuspended"}


def _cq(cpu: int) -> dict:
    return edit(queues()[1], lambda d: d["spec"]["resourceGroups"][0]["flavors"][0].__setitem__(
        "resources", [{"name": "cpu", "nominalQuota": cpu}, {"name": "memory", "nominalQuota": "64Gi"}]))


def _head(raw: dict, cpu: int) -> dict:
    def f(d):
        c = d["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]
        c["resources"] = {"requests": {"cpu": str(cpu), "memory": "4Gi"}, "limits": {"cpu": str(cpu), "memory": "4Gi"}}
    return edit(raw, f)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mode=st.sampled_from(["top-level", "nested", "legacy"]), head=st.integers(1, 4), quota=st.integers(1, 9),
       upgrade=st.booleans())
def test_plans_end_admitted_within_quota_or_stuck_with_a_reason(mode, head, quota, upgrade):
    qs = [queues()[0], _cq(quota), queues()[2]]
    if upgrade:
        run = plan(mode, _head(rs_new_image(), head), observed=[_head(rs(), head)] + qs)
    else:
        run = plan(mode, _head(rs(), head), observed=qs)
    used = 0
    for w in run.world.of_kind("Workload"):
        if quota_reserved(w) and not w.terminating and not any(
                c.get("type") == "Finished" and c.get("status") == "True" for c in w.status.get("conditions") or []):
            used += requests_of(wl_pod_sets(w)).get("cpu", 0)
    assert used <= parse_quantity(quota)
    if run.plan.outcome == "converged":
        live = [c for c in run.world.of_kind("RayCluster") if not c.terminating]
        assert live and all(c.spec.get("suspend") is not True for c in live)
        assert head <= quota
    else:
        assert run.plan.outcome == "stuck" and run.plan.stuck.reason in REASONS, run.plan.stuck
        if not upgrade and mode == "top-level":
            assert head > quota  # creation under top-level only gets stuck on quota
