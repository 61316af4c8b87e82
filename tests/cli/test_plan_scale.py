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


def _outside_code_spans(md: str) -> str:
    import re

    return re.sub(r"`[^`\n]*`", "", md)


def test_forty_replicas_markdown_fits_a_github_comment(cli, fleet):
    r = cli("plan", str(fleet / "new.json"), "--observed", str(fleet / "old.json"), "-o", "markdown")
    assert r.exit_code == 0
    md = r.stdout
    assert len(md) < 60_000
    assert "<random>" not in _outside_code_spans(md)  # GitHub would drop it as an HTML tag
    assert "<details><summary>All 1201 steps</summary>" in md and md.count("</details>") == 1
    assert "are folded to keep this under GitHub's comment limit" in md  # says what was left out
    assert md.startswith("### PodCliqueSet default/bench") and "converges in 1201 steps**" in md.splitlines()[-1]


def test_forty_replicas_table_fits_a_screen_and_repeats_the_headline(cli, fleet):
    r = cli("plan", str(fleet / "new.json"), "--observed", str(fleet / "old.json"), "--no-color")
    lines = r.stdout.splitlines()
    assert len(lines) <= 60
    head = "PodCliqueSet default/bench · strategy RollingRecreate · converges in 1201 steps"
    assert lines[0] == head and head in lines[-4:]
    assert "replicas 1–38, each:" in r.stdout
