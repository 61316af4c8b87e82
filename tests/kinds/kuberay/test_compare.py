"""``plan --compare`` for a RayService (kinds/kuberay/compare.py): the same change under
each upgrade strategy the RayService controller has, side by side; the manifest's own
strategy's row is exactly ``plan``'s."""

from __future__ import annotations

import yaml

from tests.conftest import SAMPLES

NEW, OLD = str(SAMPLES / "rayservice-text-ml-new-image.yaml"), str(SAMPLES / "rayservice-text-ml.yaml")
STRATEGIES = ["NewCluster", "NewClusterWithIncrementalUpgrade", "None"]


def _row(p: dict) -> dict:
    return {"outcome": p["outcome"], "steps": len(p["steps"]), "minReadyPods": p["summary"]["minReadyPods"],
            "peakPods": p["summary"]["peakPods"], "peak": p["summary"]["peak"]}


def test_every_upgrade_strategy_has_a_row_and_the_manifests_own_is_plans(cli):
    r = cli("plan", NEW, "--observed", OLD, "--compare", "-o", "json")
    assert r.exit_code == 0, r.stderr
    doc = r.json()
    assert doc["kind"] == "Comparison" and [x["strategy"] for x in doc["rows"]] == STRATEGIES
    rows = {x["strategy"]: x for x in doc["rows"]}
    plan = cli("plan", NEW, "--observed", OLD, "-o", "json").json()
    assert {k: rows["NewCluster"][k] for k in _row(plan)} == _row(plan)
    # the sample has no in-tree autoscaling: the incremental upgrade cannot be used (ValidateClusterUpgradeOptions)
    assert rows["NewClusterWithIncrementalUpgrade"]["stuck"]["reason"] == "AutoscalingRequired"
    # None: the running cluster keeps the old spec, nothing rolls out
    assert rows["None"]["outcome"] == "noop" and rows["None"]["peakPods"] == plan["summary"]["minReadyPods"]


def _autoscaling(src: str, dst, strategy: dict) -> str:
    d = yaml.safe_load(open(src))
    d["spec"]["rayClusterConfig"]["enableInTreeAutoscaling"] = True
    for g in d["spec"]["rayClusterConfig"]["workerGroupSpecs"]:
        g.setdefault("minReplicas", 1)
        g.setdefault("maxReplicas", max(4, g.get("replicas", 1)))
    d["spec"]["upgradeStrategy"] = strategy
    dst.write_text(yaml.safe_dump(d))
    return str(dst)


def test_the_incremental_row_plans_the_manifests_budgets(cli, tmp_path):
    strategy = {"type": "NewCluster", "clusterUpgradeOptions": {
        "gatewayClassName": "istio", "stepSizePercent": 50, "maxSurgePercent": 50, "intervalSeconds": 10}}
    new = _autoscaling(NEW, tmp_path / "new.yaml", strategy)
    old = _autoscaling(OLD, tmp_path / "old.yaml", strategy)
    doc = cli("plan", new, "--observed", old, "--compare", "-o", "json").json()
    rows = {x["strategy"]: x for x in doc["rows"]}
    inc = rows["NewClusterWithIncrementalUpgrade"]
    assert inc["outcome"] == "converged" and inc["stuck"] is None
    # the same plan as the manifest with that type written into it
    strategy["type"] = "NewClusterWithIncrementalUpgrade"
    own = cli("plan", _autoscaling(NEW, tmp_path / "inc.yaml", strategy), "--observed", old, "-o", "json").json()
    assert {k: inc[k] for k in _row(own)} == _row(own)
    assert [w["code"] for w in doc["warnings"]] == ["CompareBudgets"]
    # traffic moves in steps: fewer pods at the peak than a whole second cluster
    assert inc["peakPods"] < rows["NewCluster"]["peakPods"]
