"""A changed multi-line value (serveConfigV2, a script) reads as a line diff of the
changed lines in table and markdown; JSON keeps old and new whole."""

from __future__ import annotations

from tests.conftest import SAMPLES, write

LIVE = SAMPLES / "rayservice-text-ml.yaml"


def _desired(tmp_path):
    text = LIVE.read_text()
    assert text.count("num_replicas: 2") == 1
    return write(tmp_path, "new.yaml", text.replace("num_replicas: 2", "num_replicas: 3"))


def test_table_shows_the_changed_lines(cli, tmp_path):
    r = cli("diff", _desired(tmp_path), "--live", str(LIVE), "--no-color")
    assert r.exit_code == 1
    lines = [x.strip() for x in r.stdout.splitlines()]
    assert "-        num_replicas: 2".strip() in lines and "+        num_replicas: 3".strip() in lines
    assert "- name: Summarizer" in lines  # one line of context
    assert not any("Classifier" in x for x in lines)  # unchanged lines far away are not repeated


def test_markdown_has_a_diff_block(cli, tmp_path):
    r = cli("diff", _desired(tmp_path), "--live", str(LIVE), "-o", "markdown")
    md = r.stdout
    assert "```diff\n" in md and "\n-        num_replicas: 2\n+        num_replicas: 3\n" in md


def test_json_keeps_old_and_new_whole(cli, tmp_path):
    r = cli("diff", _desired(tmp_path), "--live", str(LIVE), "-o", "json")
    (c,) = r.json()["objects"][0]["changes"]
    assert c["path"] == "spec.serveConfigV2" and "Classifier" in c["old"] and "num_replicas: 3" in c["new"]
