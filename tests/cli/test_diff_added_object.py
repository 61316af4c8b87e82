"""``diff`` reads an object only the manifests have as a creation (``→ create``), not as
a change of replica counts; its effect stays ``scale`` (CONTRACT.md), which the line names
beside it and the summary and ``--fail-on`` count."""

from __future__ import annotations

from tests.conftest import SAMPLES


def _two(tmp_path, sample: str, name: str) -> tuple[str, str]:
    text = (SAMPLES / sample).read_text()
    assert f"  name: {name}\n" in text
    both = tmp_path / "both.yaml"
    both.write_text(text + "---\n" + text.replace(f"  name: {name}\n", f"  name: {name}-2\n", 1))
    return str(both), str(SAMPLES / sample)


def test_an_added_object_reads_as_a_creation(cli, tmp_path):
    for sample, name in (("disaggregated-inference.yaml", "llm"), ("rayservice-text-ml.yaml", "text-ml")):
        new, old = _two(tmp_path, sample, name)
        r = cli("diff", new, "--live", old, env={"NO_COLOR": "1"})
        assert r.exit_code == 1, r.stderr
        lines = r.stdout.splitlines()
        at = next(i for i, line in enumerate(lines) if line.endswith(f"/{name}-2 (added)"))
        assert lines[at + 1].startswith("  → create (scale): new "), r.stdout
        assert "→ scale" not in r.stdout
        assert "Effects: 1 scale." in r.stdout
        md = cli("diff", new, "--live", old, "-o", "markdown").stdout
        assert "- **create** (scale): new " in md and "- **scale**" not in md
        doc = cli("diff", new, "--live", old, "-o", "json").json()
        added = [o for o in doc["objects"] if o["status"] == "added"]
        assert [i["effect"] for o in added for i in o["impact"]] == ["scale"]


def test_a_changed_replica_count_still_reads_as_scale(cli, tmp_path):
    text = (SAMPLES / "disaggregated-inference.yaml").read_text()
    new = tmp_path / "new.yaml"
    new.write_text(text.replace("  replicas: 1\n", "  replicas: 2\n", 1))
    r = cli("diff", str(new), "--live", str(SAMPLES / "disaggregated-inference.yaml"), env={"NO_COLOR": "1"})
    assert "  → scale: " in r.stdout and "create (scale)" not in r.stdout
