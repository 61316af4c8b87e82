"""What --capacity did not do is said: a resource the observed workload already requests
beyond the limit (only new pods wait for room), and a named resource no pod requests."""

from __future__ import annotations

import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PCS_OLD = str(REPO / "samples" / "disaggregated-inference.yaml")
PCS_NEW = str(REPO / "samples" / "disaggregated-inference-v2.yaml")
RS_OLD = str(REPO / "samples" / "rayservice-text-ml.yaml")
RS_NEW = str(REPO / "samples" / "rayservice-text-ml-new-image.yaml")


def _codes(r) -> dict:
    return {w["code"]: w["message"] for w in json.loads(r.stdout)["warnings"]}


def test_a_workload_already_over_the_capacity_is_said(cli):
    r = cli("plan", PCS_NEW, "--observed", PCS_OLD, "--capacity", "nvidia.com/gpu=16", "-o", "json")
    msg = _codes(r)["CapacityExceededAtStart"]
    assert "nvidia.com/gpu 40" in msg and "--capacity nvidia.com/gpu=16" in msg
    # a capacity the running workload fits in is not warned of
    r = cli("plan", PCS_NEW, "--observed", PCS_OLD, "--capacity", "nvidia.com/gpu=80", "-o", "json")
    assert "CapacityExceededAtStart" not in _codes(r)


def test_a_named_resource_no_pod_requests_is_said(cli):
    r = cli("plan", RS_NEW, "--observed", RS_OLD, "--capacity", "nvidia.com/gpu=1", "-o", "json")
    assert "no pod of this plan requests nvidia.com/gpu" in _codes(r)["CapacityNotRequested"]
    r = cli("plan", RS_NEW, "--observed", RS_OLD, "--capacity", "cpu=100", "-o", "json")
    assert "CapacityNotRequested" not in _codes(r)


def test_capacity_takes_comma_separated_resources_as_kubectl_limits_does(cli):
    one = cli("plan", PCS_NEW, "--observed", PCS_OLD, "--capacity", "nvidia.com/gpu=44,memory=1Ti", "-o", "json")
    two = cli("plan", PCS_NEW, "--observed", PCS_OLD, "--capacity", "nvidia.com/gpu=44", "--capacity", "memory=1Ti",
              "-o", "json")
    assert one.exit_code == two.exit_code and one.stdout == two.stdout
    assert json.loads(one.stdout)["outcome"] == "converged"
    # each part is a limit: 16 GPUs after the comma stops the rollout, as it does alone
    tight = json.loads(cli("plan", PCS_NEW, "--observed", PCS_OLD, "--capacity", "memory=1Ti, nvidia.com/gpu=16",
                           "-o", "json").stdout)
    assert tight["outcome"] == "stuck" and tight["stuck"]["reason"] == "InsufficientCapacity"
    assert "CapacityExceededAtStart" in {w["code"] for w in tight["warnings"]}
    bad = cli("plan", PCS_NEW, "--capacity", "nvidia.com/gpu=16,cpu")
    assert bad.exit_code == 2 and "--capacity 'cpu': expected RESOURCE=QUANTITY" in bad.stderr
