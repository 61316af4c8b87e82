"""``plan --compare`` marks the row of the manifest's own strategy in tables and
markdown; the JSON rows stay as the contract has them (no such field)."""

from __future__ import annotations

from tests.conftest import SAMPLES


def _args(new: str, old: str) -> list[str]:
    return ["plan", str(SAMPLES / new), "--observed", str(SAMPLES / old), "--compare"]


def test_the_manifests_strategy_is_marked_in_the_table_and_markdown(cli):
    pcs = _args("disaggregated-inference-v2.yaml", "disaggregated-inference.yaml")
    r = cli(*pcs, "-o", "markdown")
    assert r.exit_code == 0, r.stderr
    rows = [line for line in r.stdout.splitlines() if line.startswith("| ") and "converged" in line]
    assert rows[0].startswith("| RollingRecreate (manifest) |")
    assert sum("(manifest)" in line for line in rows) == 1
    r = cli(*pcs, env={"NO_COLOR": "1"})
    assert r.exit_code == 0, r.stderr
    assert r.stdout.count("(manifest)") == 1
    lines = r.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if "RollingRecreate" in line)
    assert "(manifest)" in lines[at] + lines[at + 1]  # the cell may wrap between its words
    rs = cli(*_args("rayservice-text-ml-new-image.yaml", "rayservice-text-ml.yaml"), "-o", "markdown")
    assert "| NewCluster (manifest) |" in rs.stdout and rs.stdout.count("(manifest)") == 1


def test_the_json_rows_are_unchanged(cli):
    doc = cli(*_args("disaggregated-inference-v2.yaml", "disaggregated-inference.yaml"), "-o", "json").json()
    assert [row["strategy"] for row in doc["rows"]] == ["RollingRecreate", "RollingUpdate", "ReplicaRecreate",
                                                        "ScaleThenRoll"]
    assert set(doc) == {"apiVersion", "kind", "target", "rows", "warnings"}
    assert "manifest" not in str(doc["rows"])
