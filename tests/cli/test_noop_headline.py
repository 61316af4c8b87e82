"""A plan with nothing to roll out that still writes status says so in its headline: the
table lists that step, and "nothing to do" above it read as a contradiction."""

from __future__ import annotations

from tests.conftest import SAMPLES

RS = SAMPLES / "rayservice-text-ml.yaml"


def test_a_status_only_plan_says_status_only(cli, tmp_path):
    text = RS.read_text()
    assert "        replicas: 3\n" in text
    new = tmp_path / "scaled.yaml"
    new.write_text(text.replace("        replicas: 3\n", "        replicas: 4\n", 1))  # replicas are not hashed: no rollout
    doc = cli("plan", str(new), "--observed", str(RS), "-o", "json").json()
    assert doc["outcome"] == "noop" and doc["summary"]["steps"] == 1
    assert all(a["verb"] == "status" for s in doc["steps"] for a in s["actions"])
    r = cli("plan", str(new), "--observed", str(RS), env={"NO_COLOR": "1"})
    assert r.exit_code == 0
    assert r.stdout.splitlines()[0].endswith("· nothing to roll out: status only (1 step)"), r.stdout
    assert "nothing to do" not in r.stdout
    nxt = cli("next", str(new), "--observed", str(RS), env={"NO_COLOR": "1"})
    assert "next pass of a plan that has nothing to roll out: status only (1 step)" in " ".join(nxt.stdout.split())


def test_a_settled_plan_has_nothing_to_do(cli):
    r = cli("plan", str(RS), "--observed", str(RS), env={"NO_COLOR": "1"})
    assert r.stdout.splitlines()[0].endswith("· nothing to do"), r.stdout
