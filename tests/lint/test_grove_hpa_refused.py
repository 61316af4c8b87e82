"""GV302: the API server refuses the HorizontalPodAutoscaler Grove builds from a
scaling group's ``scaleConfig`` (``hpa.go`` ``buildResource`` copies its bounds;
``validateHorizontalPodAutoscalerSpec`` refuses maxReplicas below minReplicas or 1).
The PodCliqueSet itself is stored, so lint reports an error, plan stops (exit 2) naming
who refuses, and diff marks the change rejected, as for refused pods."""

from __future__ import annotations

import json

import pytest

from rolloutctl.core.k8s_autoscaling import validate_horizontal_pod_autoscaler_spec

from .cases import TWO, pcs

REFUSED = "the API server would reject what the operator creates from this manifest"


def _group(scale: str, replicas: int = 4) -> str:
    return f"- {{name: prefill, cliqueNames: [worker], replicas: {replicas}, scaleConfig: {scale}}}"


@pytest.mark.parametrize("lo, hi, expected", [
    (3, 2, [("maxReplicas", "must be greater than or equal to `minReplicas`")]),
    (None, 0, [("maxReplicas", "must be greater than 0")]),
    (1, 0, [("maxReplicas", "must be greater than 0"), ("maxReplicas", "must be greater than or equal to `minReplicas`")]),
    (0, 3, [("minReplicas", "must be greater than or equal to 1")]),
    (2, 2, []),
    (None, 1, []),
])
def test_kubernetes_replica_bounds(lo, hi, expected):
    assert validate_horizontal_pod_autoscaler_spec(lo, hi) == expected


def test_lint_names_the_hpa_and_the_defaulted_minimum(cli, tmp_path):
    """minReplicas left out defaults to the group's replicas (4): above maxReplicas 2."""
    p = tmp_path / "pcs.yaml"
    p.write_text(pcs(TWO, replicas=2, groups=_group("{maxReplicas: 2}")))
    r = cli("lint", str(p), "-o", "json")
    assert r.exit_code == 1, r.stdout
    found = [f for f in json.loads(r.stdout)["findings"] if f["rule"] == "GV302"]
    assert len(found) == 1, found
    f = found[0]
    assert f["severity"] == "error" and f["path"].endswith("podCliqueScalingGroups[name=prefill].scaleConfig.maxReplicas")
    assert "HorizontalPodAutoscaler inf-0-prefill (and one per other PodCliqueSet replica, to inf-1-prefill)" in f["message"]
    assert "minReplicas 4 (defaulted to the group's replicas) and maxReplicas 2" in f["message"]
    assert "must be greater than or equal to `minReplicas`" in f["message"]


def test_lint_passes_bounds_the_api_server_accepts_and_a_pcs_without_replicas(cli, tmp_path):
    """An explicit minimum at or below maxReplicas passes; with ``replicas: 0`` Grove builds no HPA."""
    ok = tmp_path / "ok.yaml"
    ok.write_text(pcs(TWO, groups=_group("{minReplicas: 2, maxReplicas: 2}")))
    none = tmp_path / "none.yaml"
    none.write_text(pcs(TWO, replicas=0, groups=_group("{maxReplicas: 2}")))
    for p in (ok, none):
        r = cli("lint", str(p), "-o", "json")
        assert [f for f in json.loads(r.stdout)["findings"] if f["rule"] == "GV302"] == [], r.stdout


def test_plan_stops_and_says_who_refuses(cli, tmp_path):
    from tests.hardening.helpers import assert_input_error

    p = tmp_path / "pcs.yaml"
    p.write_text(pcs(TWO, groups=_group("{minReplicas: 3, maxReplicas: 2}")))
    r = cli("plan", str(p))
    lines = assert_input_error(r, str(p), "GV302: ", REFUSED)
    assert [int(m["line"]) for m in lines] == [p.read_text().splitlines().index(
        next(ln for ln in p.read_text().splitlines() if "scaleConfig" in ln)) + 1]


def test_diff_marks_lowering_max_replicas_rejected(cli, tmp_path):
    live = tmp_path / "live.yaml"
    live.write_text(pcs(TWO, groups=_group("{minReplicas: 3, maxReplicas: 6}")))
    want = tmp_path / "want.yaml"
    want.write_text(pcs(TWO, groups=_group("{minReplicas: 3, maxReplicas: 2}")))
    r = cli("diff", str(want), "--live", str(live), "-o", "json")
    impacts = [i for d in json.loads(r.stdout)["objects"] for i in d["impact"]]
    assert [i["effect"] for i in impacts] == ["rejected"], impacts
    assert impacts[0]["message"].startswith("GV302: ") and impacts[0]["message"].endswith(f"({REFUSED})")


def test_max_replicas_left_out_is_stored_as_zero_and_refused_by_who_refuses_zero(cli, tmp_path):
    """``AutoScalingConfig.MaxReplicas`` has no omitempty: the defaulting webhook's patch stores 0,
    so the CRD's required check passes. A scaling group's HPA is then refused by the API server
    (GV302); a clique's own autoScalingConfig by the webhook (GV014). Neither is SC002."""
    group = tmp_path / "group.yaml"
    group.write_text(pcs(TWO, groups=_group("{minReplicas: 1}")))
    r = cli("lint", str(group), "-o", "json")
    found = [(f["rule"], f["message"]) for f in json.loads(r.stdout)["findings"]]
    assert [rule for rule, _ in found] == ["GV302"], found
    assert "maxReplicas 0 (left out: stored as 0)" in found[0][1]
    assert "must be greater than 0, must be greater than or equal to `minReplicas`" in found[0][1]
    from .cases import clique

    own = tmp_path / "clique.yaml"
    own.write_text(pcs(clique("worker", replicas=1, spec="autoScalingConfig: {minReplicas: 1}")))
    r = cli("lint", str(own), "-o", "json")
    rules = {f["rule"] for f in json.loads(r.stdout)["findings"]}
    assert rules == {"GV014"}, r.stdout
