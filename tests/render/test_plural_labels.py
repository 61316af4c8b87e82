"""The plan summary counts its creates, deletes and updates in the singular for one."""

from __future__ import annotations

from tests.conftest import SAMPLES


def test_one_create_and_one_delete_read_in_the_singular(cli):
    args = ["plan", str(SAMPLES / "rayservice-text-ml-new-image.yaml"), "--observed",
            str(SAMPLES / "rayservice-text-ml.yaml")]
    for fmt in ("table", "markdown"):
        r = cli(*args, "-o", fmt, env={"NO_COLOR": "1"})
        assert r.exit_code == 0, r.stderr
        assert "1 create · 1 delete · 3 updates ·" in r.stdout, r.stdout
        assert "1 creates" not in r.stdout and "1 deletes" not in r.stdout
    r = cli("next", *args[1:], env={"NO_COLOR": "1"})
    assert "1 create · 1 delete · 3 updates ·" in r.stdout
    # the JSON summary keeps its keys
    s = cli(*args, "-o", "json").json()["summary"]
    assert (s["creates"], s["deletes"], s["updates"]) == (1, 1, 3)


def test_the_disaggregated_sample_keeps_its_plurals(cli):
    r = cli("plan", str(SAMPLES / "disaggregated-inference.yaml"), env={"NO_COLOR": "1", "COLUMNS": "100"})
    assert "31 creates · 0 deletes · 3 updates ·" in r.stdout
