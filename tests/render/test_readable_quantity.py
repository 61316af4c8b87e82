"""A peak summed over pods whose requests mix units (64Gi and 100Mi) reads in its largest
unit in tables and markdown (``≈640.2Gi``, not ``655560Mi``); JSON keeps the exact value."""

from __future__ import annotations

from tests.conftest import SAMPLES

from rolloutctl.render.plan_common import shown_quantity


def test_a_long_quantity_with_a_unit_is_shown_in_its_largest_unit():
    assert shown_quantity("655560Mi") == "≈640.2Gi"
    assert shown_quantity("8100554Ki") == "≈7.73Gi"
    assert shown_quantity("1311120Mi") == "≈1.25Ti"
    assert shown_quantity("655360Mi") == "640Gi"      # whole in the larger unit: exact, no mark
    assert shown_quantity("57856Mi") == "56.5Gi"      # exact at two decimals: no mark either
    assert shown_quantity("14080000k") == "14.08G"
    assert shown_quantity("640100M") == "640.1G"      # decimal units stay decimal
    assert shown_quantity("640123M") == "≈640.12G"
    assert shown_quantity("1073741823Ki") == "≈1Ti"   # rounding up to the next unit
    # short or unit-less quantities as written
    for q in ("648Gi", "1296Gi", "1500Mi", "84", "84500m", "40", "0"):
        assert shown_quantity(q) == q


def _mixed(tmp_path):
    text = (SAMPLES / "disaggregated-inference.yaml").read_text()
    assert '{cpu: "2", memory: 4Gi}' in text
    old = tmp_path / "old.yaml"
    old.write_text(text.replace('{cpu: "2", memory: 4Gi}', '{cpu: "2", memory: 100Mi}'))
    new = tmp_path / "new.yaml"
    new.write_text(old.read_text().replace("engine:1.4.0", "engine:1.5.0"))
    return str(new), str(old)


def test_plan_and_compare_show_mixed_memory_readably_and_json_exactly(cli, tmp_path):
    new, old = _mixed(tmp_path)
    env = {"NO_COLOR": "1", "COLUMNS": "120"}
    r = cli("plan", old, env=env)
    assert r.exit_code == 0, r.stderr
    assert "peak memory ≈640.2Gi" in r.stdout and "655560Mi" not in r.stdout
    r = cli("plan", new, "--observed", old, "--compare", env=env)
    assert r.exit_code == 0, r.stderr
    assert "≈640.2Gi" in r.stdout and "≈1.25Ti" in r.stdout and "655560Mi" not in r.stdout
    r = cli("plan", new, "--observed", old, "--compare", "-o", "markdown")
    assert "| ≈640.2Gi |" in r.stdout and "655560Mi" not in r.stdout
    r = cli("advise", new, "--observed", old, "--capacity", "memory=1400Gi", "--no-proposed", env=env)
    assert "peak memory ≈640.2Gi" in r.stdout and "655560Mi" not in r.stdout
    # the contract's JSON is unchanged: the exact canonical quantity
    assert cli("plan", old, "-o", "json").json()["summary"]["peak"]["memory"] == "655560Mi"
    rows = cli("plan", new, "--observed", old, "--compare", "-o", "json").json()["rows"]
    assert [row["peak"]["memory"] for row in rows] == ["655560Mi"] * 3 + ["1311120Mi"]
