"""Plan invariants over generated RayService edits (hypothesis)."""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .helpers import base, clusters, cond, edit, incremental, plan, settled

EDITS = ("image", "replicas", "nested_suspend", "serve", "append", "tolerations", "none_strategy", "env")


def apply_edits(raw: dict, edits: list[str], n: int) -> dict:
    d = copy.deepcopy(raw)
    rc = d["spec"]["rayClusterConfig"]
    for e in edits:
        if e == "image":
            rc["headGroupSpec"]["template"]["spec"]["containers"][0]["image"] = f"registry.example.com/text-ml:9.{n}"
        elif e == "replicas":
            rc["workerGroupSpecs"][0]["replicas"] = 1 + n % 5
        elif e == "nested_suspend":
            rc["suspend"] = bool(n % 2)
        elif e == "serve":
            d["spec"]["serveConfigV2"] = d["spec"]["serveConfigV2"].replace("num_replicas: 2", f"num_replicas: {2 + n}")
        elif e == "append":
            g = copy.deepcopy(rc["workerGroupSpecs"][0])
            g["groupName"] = f"extra{n}"
            rc["workerGroupSpecs"].append(g)
        elif e == "tolerations":
            rc["workerGroupSpecs"][0]["template"]["spec"]["tolerations"] = [{"key": f"k{n}", "operator": "Exists"}]
        elif e == "none_strategy":
            d["spec"]["upgradeStrategy"] = {"type": "None"}
        elif e == "env":
            rc["headGroupSpec"]["template"]["spec"]["containers"][0]["env"] = [{"name": "X", "value": str(n)}]
    return d


edits_st = st.lists(st.sampled_from(EDITS), max_size=4, unique=True)
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(edits=edits_st, n=st.integers(0, 9), inc=st.booleans())
def test_plan_terminates(edits, n, inc):
    old = incremental(base()) if inc else base()
    desired = apply_edits(old, edits, n)
    run = plan(desired, settled(old))
    if run.plan.outcome == "stuck":
        # the only way these edits get stuck: a new cluster born suspended
        assert run.plan.stuck.reason == "ClusterSuspended"
        assert desired["spec"]["rayClusterConfig"].get("suspend") is True
    else:
        assert run.plan.outcome in ("converged", "noop") and run.plan.stuck is None


@SETTINGS
@given(edits=edits_st, n=st.integers(0, 9), inc=st.booleans())
def test_suspend_removes_every_owned_object(edits, n, inc):
    old = incremental(base()) if inc else base()
    desired = apply_edits(old, edits, n)
    desired["spec"]["suspend"] = True
    run = plan(desired, settled(old))
    assert run.plan.outcome == "converged"
    from rolloutctl.kinds.kuberay.validation.util import is_incremental_upgrade_enabled
    kinds = ("RayCluster", "Service", "Gateway", "HTTPRoute")
    if not is_incremental_upgrade_enabled(desired["spec"]):
        # deleteRayServiceOwnedResources gates Gateway/HTTPRoute on the *current* strategy
        kinds = ("RayCluster", "Service")
        if run.world.of_kind("Gateway"):
            assert "GatewayLeftBySuspend" in {w.code for w in run.plan.warnings}
    left = [o for o in run.world if o.kind in kinds]
    assert left == []
    assert cond(run.world, "Suspended") == ("True", "SuspendComplete")


@SETTINGS
@given(edits=edits_st, n=st.integers(0, 9), inc=st.booleans())
def test_settled_world_plans_nothing(edits, n, inc):
    old = apply_edits(incremental(base()) if inc else base(), edits, n)
    if old["spec"]["rayClusterConfig"].get("suspend"):
        old["spec"]["rayClusterConfig"]["suspend"] = False
    run = plan(old, settled(old))
    assert run.plan.outcome == "noop" and run.plan.steps == ()
    assert len(clusters(run.world)) == 1
