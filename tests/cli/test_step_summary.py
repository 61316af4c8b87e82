"""Under GitHub Actions, plan and diff append their Markdown to the job summary."""

from __future__ import annotations

from rolloutctl.cli_common import append_step_summary
from rolloutctl.render import step_summary
from tests.conftest import SAMPLES

PCS, PCS2 = str(SAMPLES / "disaggregated-inference.yaml"), str(SAMPLES / "disaggregated-inference-v2.yaml")


def test_plan_appends_markdown_under_github_actions(cli, tmp_path):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    r = cli("plan", PCS2, "--observed", PCS, "-o", "json", env=env)
    assert r.exit_code == 0
    assert r.stdout.startswith("{")  # stdout keeps the format asked for
    text = summary.read_text()
    assert text.startswith("earlier step\n")  # appended, never overwritten
    assert "### PodCliqueSet" in text and "converges in" in text


def test_diff_appends_markdown_under_github_actions(cli, tmp_path):
    summary = tmp_path / "summary.md"
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    r = cli("diff", PCS2, "--live", PCS, env=env)
    assert r.exit_code == 1
    assert "PodCliqueSet" in summary.read_text()


def test_nothing_is_written_outside_github_actions(cli, tmp_path):
    summary = tmp_path / "summary.md"
    r = cli("plan", PCS, env={"GITHUB_ACTIONS": "", "GITHUB_STEP_SUMMARY": str(summary)})
    assert r.exit_code == 0 and not summary.exists()


def test_an_unwritable_summary_does_not_fail_the_command(cli, tmp_path):
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(tmp_path / "missing-dir" / "s.md")}
    r = cli("plan", PCS, env=env)
    assert r.exit_code == 0 and "GITHUB_STEP_SUMMARY" in r.stderr


def test_append_renders_lazily_and_only_when_active(tmp_path):
    calls = []

    def render():
        calls.append(1)
        return "# hi"

    assert append_step_summary(render, {}) is False and calls == []
    assert append_step_summary(render, {"GITHUB_ACTIONS": "true"}) is False and calls == []
    f = tmp_path / "s.md"
    assert append_step_summary(render, {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(f)}) is True
    assert f.read_text() == "# hi\n\n" and calls == [1]


def test_summary_is_cut_below_githubs_limit():
    """The renderer's bytes stay under GitHub's 1 MiB per step, with a note, and are
    whole UTF-8."""
    data = step_summary.summary_bytes("é" * step_summary.MAX_BYTES)
    assert len(data) <= step_summary.MAX_BYTES + 1
    text = data.decode("utf-8")
    assert "summary cut at GitHub's 1 MiB limit" in text and text.endswith("\n\n")
    assert step_summary.summary_bytes("# hi") == b"# hi\n\n"
