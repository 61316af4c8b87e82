"""A field the operator's API removed is reported with what replaces it, not as a
misspelling: a RayService's ``serveConfig`` (the Ray Serve V1 API, removed in KubeRay
1.1) is not "did you mean 'serveConfigV2'?", because its content must be rewritten."""

from __future__ import annotations

from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]


def test_serve_config_v1_says_what_to_write_instead(cli, tmp_path):
    doc = yaml.safe_load((REPO / "samples" / "rayservice-text-ml.yaml").read_text())
    doc["spec"]["serveConfig"] = {"importPath": "fruit.deployment_graph", "deployments": [{"name": "MangoStand"}]}
    p = tmp_path / "v1-serve.yaml"
    p.write_text(yaml.safe_dump(doc, sort_keys=False))
    r = cli("lint", str(p))
    assert r.exit_code == 1
    line = next(ln for ln in r.stdout.splitlines() if "SC001" in ln)
    assert "spec.serveConfig: unknown field 'serveConfig': the Ray Serve V1 API" in line
    assert "serveConfigV2" in line and "did you mean" not in line
    r = cli("plan", str(p))
    assert r.exit_code == 2 and "the Ray Serve V1 API" in r.stderr and "did you mean" not in r.stderr


def test_other_unknown_fields_keep_their_spelling_hint(cli, tmp_path):
    doc = yaml.safe_load((REPO / "samples" / "rayservice-text-ml.yaml").read_text())
    doc["spec"]["serveConfigV3"] = "x"
    p = tmp_path / "typo.yaml"
    p.write_text(yaml.safe_dump(doc, sort_keys=False))
    assert "did you mean 'serveConfigV2'?" in cli("lint", str(p)).stdout
