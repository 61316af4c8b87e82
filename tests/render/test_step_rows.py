"""``plan --steps`` shows two status writes of the PodCliqueSet in one pass as one row
with their count, not as two rows that read the same; JSON keeps both actions."""

from __future__ import annotations

from tests.conftest import SAMPLES


def _args() -> list[str]:
    return ["plan", str(SAMPLES / "disaggregated-inference-v2.yaml"), "--observed",
            str(SAMPLES / "disaggregated-inference.yaml")]


def _cells(stdout: str) -> list[str]:
    """The Objects cell of each table line (the third column)."""
    return [line.split("│")[3].strip() for line in stdout.splitlines() if line.count("│") == 5]


def test_two_status_writes_in_one_step_are_one_row_with_their_count(cli):
    r = cli(*_args(), "--steps", env={"NO_COLOR": "1", "COLUMNS": "100"})
    assert r.exit_code == 0, r.stderr
    cells = _cells(r.stdout)
    assert cells.count("• PodCliqueSet llm ×2") == 2  # steps 1 and 7
    assert "• PodCliqueSet llm" not in cells
    md = cli(*_args(), "-o", "markdown").stdout
    assert md.count("`• PodCliqueSet llm ×2`") == 2
    assert "`• PodCliqueSet llm`<br>`• PodCliqueSet llm`" not in md
    steps = cli(*_args(), "-o", "json").json()["steps"]
    for n in (0, 6):
        assert [a["verb"] for a in steps[n]["actions"]].count("status") == 2


def test_a_single_status_write_has_no_count(cli):
    r = cli("plan", str(SAMPLES / "rayservice-text-ml-new-image.yaml"), "--observed",
            str(SAMPLES / "rayservice-text-ml.yaml"), "--steps", env={"NO_COLOR": "1", "COLUMNS": "100"})
    assert "• RayService text-ml" in r.stdout and "×" not in r.stdout
