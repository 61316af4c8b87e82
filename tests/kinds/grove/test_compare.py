"""``rolloutctl plan --compare`` (issue 4): the same change under RollingRecreate,
RollingUpdate, ReplicaRecreate and ScaleThenRoll, side by side."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from rolloutctl.cli import app
from rolloutctl.kinds.grove.proposed.compare import variants
from rolloutctl.core.model import Obj
from rolloutctl.schemas_access import schema

from proposed_fixtures import clique, group, pcs, with_image

runner = CliRunner()


def _write(tmp_path: Path, name: str, doc: dict) -> str:
    p = tmp_path / name
    p.write_text(yaml.safe_dump(doc))
    return str(p)


def _compare(tmp_path: Path, new: dict, old: dict, *args: str):
    res = runner.invoke(app, ["plan", _write(tmp_path, "new.yaml", new), "--observed", _write(tmp_path, "old.yaml", old),
                              "--compare", *args])
    return res


def _surge_manifest(strategy: str = "RollingUpdate") -> dict:
    return pcs([clique("fe", 3, update_strategy={"maxSurge": 1, "maxUnavailable": 0} if strategy == "RollingUpdate" else None)],
               strategy=strategy)


def test_surge_is_stuck_at_current_capacity_while_rolling_recreate_converges(tmp_path):
    old = _surge_manifest()
    res = _compare(tmp_path, with_image(old, "img:v2"), old, "--capacity", "nvidia.com/gpu=3", "-o", "json")
    doc = json.loads(res.stdout)
    rows = {r["strategy"]: r for r in doc["rows"]}
    assert [r["strategy"] for r in doc["rows"]] == ["RollingRecreate", "RollingUpdate", "ReplicaRecreate", "ScaleThenRoll"]
    assert rows["RollingRecreate"]["outcome"] == "converged"
    assert rows["RollingUpdate"]["outcome"] == "stuck"
    assert rows["RollingUpdate"]["stuck"]["reason"] == "InsufficientCapacity"
    assert rows["RollingUpdate"]["stuck"]["remedies"]
    assert rows["ScaleThenRoll"]["outcome"] == "stuck"  # the extra replica does not fit either
    # the manifest's own strategy (RollingUpdate) is stuck: exit 1
    assert res.exit_code == 1


def test_exit_zero_when_the_manifests_own_strategy_converges(tmp_path):
    old = _surge_manifest("RollingRecreate")
    res = _compare(tmp_path, with_image(old, "img:v2"), old, "--capacity", "nvidia.com/gpu=3", "-o", "json")
    assert res.exit_code == 0, res.stdout
    rows = {r["strategy"]: r for r in json.loads(res.stdout)["rows"]}
    assert rows["RollingRecreate"]["outcome"] == "converged"


def test_rows_report_steps_min_ready_pods_and_peaks(tmp_path):
    old = _surge_manifest()
    res = _compare(tmp_path, with_image(old, "img:v2"), old, "-o", "json")
    assert res.exit_code == 0
    rows = {r["strategy"]: r for r in json.loads(res.stdout)["rows"]}
    assert (rows["RollingUpdate"]["minReadyPods"], rows["RollingUpdate"]["peakPods"]) == (3, 4)
    assert rows["RollingUpdate"]["peak"] == {"nvidia.com/gpu": "4"}
    assert (rows["RollingRecreate"]["minReadyPods"], rows["RollingRecreate"]["peakPods"]) == (2, 3)
    # ScaleThenRoll: one more replica first (6 pods), never below 3 ready
    assert rows["ScaleThenRoll"]["peakPods"] == 6 and rows["ScaleThenRoll"]["minReadyPods"] >= 3
    assert all(r["steps"] > 0 for r in rows.values())


def test_json_validates_and_is_byte_identical(tmp_path):
    old = pcs([clique("fe", 2), clique("leader", 1), clique("worker", 1)],
              groups=[group("sg", ["leader", "worker"], 2, 1, {"maxSurge": 1, "maxUnavailable": 0})])
    a = _compare(tmp_path, with_image(old, "img:v2"), old, "-o", "json")
    b = _compare(tmp_path, with_image(old, "img:v2"), old, "-o", "json")
    assert a.stdout == b.stdout
    import jsonschema
    doc = json.loads(a.stdout)
    jsonschema.validate(doc, schema("comparison"))
    assert doc["kind"] == "Comparison" and doc["apiVersion"] == "rolloutctl.dev/v1alpha1"


@pytest.mark.parametrize("fmt,needle", [("table", "RollingUpdate"), ("markdown", "| Strategy |"), ("yaml", "kind: Comparison")])
def test_other_formats(tmp_path, fmt, needle):
    old = _surge_manifest()
    res = _compare(tmp_path, with_image(old, "img:v2"), old, "--capacity", "nvidia.com/gpu=3", "-o", fmt)
    assert res.exit_code == 1
    assert needle in res.stdout
    if fmt != "yaml":
        assert "InsufficientCapacity" in res.stdout and "remedy" in res.stdout


def test_rejected_manifest_exits_2_naming_the_rule(tmp_path):
    # PodCliqueSet-level budgets are not allowed with RollingUpdate (design validation rules)
    old = pcs([clique("fe", 2)], strategy="RollingUpdate", rolling_update={"maxSurge": 1})
    res = _compare(tmp_path, with_image(old, "img:v2"), old)
    assert res.exit_code == 2
    assert "GV205" in res.stderr


def test_plan_on_rejected_budget_combination_exits_2(tmp_path):
    bad = pcs([clique("fe", 2, update_strategy={"maxSurge": 0, "maxUnavailable": 0})])
    res = runner.invoke(app, ["plan", _write(tmp_path, "bad.yaml", bad)])
    assert res.exit_code == 2 and "GV203" in res.stderr


def test_next_does_not_take_compare(tmp_path):
    old = _surge_manifest()
    res = runner.invoke(app, ["next", _write(tmp_path, "n.yaml", old), "--compare"])
    assert res.exit_code == 2


def test_variants_derive_budgets_from_the_manifest():
    m = pcs([clique("fe", 3, update_strategy={"maxSurge": 2})], groups=None)
    vs = {v.strategy: v for v in variants(Obj(m), None)}
    assert vs["RollingRecreate"].phases[0].raw["spec"]["updateStrategy"] == {"type": "RollingRecreate"}
    assert "updateStrategy" not in vs["RollingRecreate"].phases[0].raw["spec"]["template"]["cliques"][0]
    assert vs["RollingUpdate"].phases[0].raw["spec"]["template"]["cliques"][0]["updateStrategy"] == {"maxSurge": 2}
    assert vs["ReplicaRecreate"].phases[0].raw["spec"]["updateStrategy"] == {"type": "ReplicaRecreate"}
    rc = pcs([clique("fe", 1)], replicas=2, strategy="ReplicaRecreate", rolling_update={"maxUnavailable": 2})
    old = pcs([clique("fe", 1)], replicas=2, strategy="ReplicaRecreate")
    vs = {v.strategy: v for v in variants(Obj(rc), Obj(old))}
    assert vs["ReplicaRecreate"].phases[0].raw["spec"]["updateStrategy"]["rollingUpdate"] == {"maxUnavailable": 2}
    stroll = vs["ScaleThenRoll"].phases
    assert [p.raw["spec"]["replicas"] for p in stroll] == [3, 3, 2]
    assert stroll[0].raw["spec"]["template"] == old["spec"]["template"]


def test_a_manifest_on_ondelete_has_its_own_row_as_plan_plans_it(tmp_path):
    old = pcs([clique("fe", 3)], strategy="OnDelete")
    new = with_image(old, "img:v2")
    res = _compare(tmp_path, new, old, "-o", "json")
    doc = json.loads(res.stdout)
    assert [r["strategy"] for r in doc["rows"]] == ["RollingRecreate", "RollingUpdate", "ReplicaRecreate",
                                                    "ScaleThenRoll", "OnDelete"]
    plan = json.loads(runner.invoke(app, ["plan", _write(tmp_path, "new.yaml", new), "--observed",
                                          _write(tmp_path, "old.yaml", old), "-o", "json"]).stdout)
    row = doc["rows"][-1]
    assert (row["outcome"], row["steps"], row["minReadyPods"], row["peakPods"]) == (
        plan["outcome"], len(plan["steps"]), plan["summary"]["minReadyPods"], plan["summary"]["peakPods"])
    # what the row's steps leave undone is said, as plan says it
    outdated = [w for w in doc["warnings"] if w["code"] == "OnDeletePodsOutdated"]
    assert outdated and outdated == [w for w in plan["warnings"] if w["code"] == "OnDeletePodsOutdated"]
    jsonschema_validate(doc)
    assert res.exit_code == 0


def test_the_exit_code_follows_the_ondelete_row(tmp_path):
    old = pcs([clique("fe", 2)], strategy="OnDelete")
    new = pcs([clique("fe", 2)], replicas=2, strategy="OnDelete")  # the second replica does not fit
    res = _compare(tmp_path, new, old, "--capacity", "nvidia.com/gpu=3", "-o", "json")
    rows = {r["strategy"]: r for r in json.loads(res.stdout)["rows"]}
    assert rows["OnDelete"]["outcome"] == "stuck"
    assert res.exit_code == 1


def test_other_strategies_have_no_ondelete_row(tmp_path):
    old = _surge_manifest("RollingRecreate")
    doc = json.loads(_compare(tmp_path, with_image(old, "img:v2"), old, "-o", "json").stdout)
    assert "OnDelete" not in [r["strategy"] for r in doc["rows"]]


def jsonschema_validate(doc):
    import jsonschema
    jsonschema.validate(doc, schema("comparison"))
