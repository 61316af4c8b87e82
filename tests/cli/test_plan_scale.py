"""A realistic fleet plans with the defaults: no step cap a real workload hits."""

from __future__ import annotations

import json

import pytest

from bench.workloads import large_pcs, with_image


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    """A PodCliqueSet of 40 replicas (50 pods each) moving to a new engine image."""
    d = tmp_path_factory.mktemp("fleet")
    old = large_pcs(2000)
    assert old["spec"]["replicas"] == 40
    (d / "old.json").write_text(json.dumps(old))
    (d / "new.json").write_text(json.dumps(with_image(old, "engine:2")))
    return d


@pytest.fixture(scope="module")
def fleet_plan(fleet):
    from typer.testing import CliRunner

    from rolloutctl.cli import app

    r = CliRunner().invoke(app, ["plan", str(fleet / "new.json"), "--observed", str(fleet / "old.json"), "-o", "json"])
    return r


def test_forty_replicas_converge_with_the_defaults(fleet_plan):
    assert fleet_plan.exit_code == 0, fleet_plan.stdout[-2000:]
    p = json.loads(fleet_plan.stdout)
    assert p["outcome"] == "converged" and p["stuck"] is None
    assert p["summary"]["steps"] == len(p["steps"]) > 500  # beyond the old fixed cap
    assert p["steps"][-1]["after"]["updated"] == p["steps"][-1]["after"]["desired"] == 2000


def test_max_steps_is_the_users_explicit_cap(cli, fleet):
    r = cli("plan", str(fleet / "new.json"), "--observed", str(fleet / "old.json"), "-o", "json", "--max-steps", "10")
    assert r.exit_code == 1
    p = r.json()
    assert p["stuck"]["reason"] == "MaxStepsExceeded" and len(p["steps"]) == 10
    assert "--max-steps" in p["stuck"]["message"]
