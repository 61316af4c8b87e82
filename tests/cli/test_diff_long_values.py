"""``diff`` shows where a long replaced value changed: an image tag bumped after a long
registry path reads as two different texts, not as the same cut prefix twice. JSON keeps
both values whole."""

from __future__ import annotations

from tests.conftest import SAMPLES

LONG = "us-docker.pkg.dev/my-project/inference-images/ray-ml-vllm"


def _pair(tmp_path) -> tuple[str, str]:
    text = (SAMPLES / "rayservice-text-ml.yaml").read_text()
    old_image = "registry.example.com/text-ml:1.4.0"
    assert old_image in text
    old = tmp_path / "live.yaml"
    new = tmp_path / "new.yaml"
    old.write_text(text.replace(old_image, f"{LONG}:2.53.0-py311-gpu"))
    new.write_text(text.replace(old_image, f"{LONG}:2.53.1-py311-gpu"))
    return str(new), str(old)


def test_a_long_value_is_shown_from_where_it_changed(cli, tmp_path):
    new, old = _pair(tmp_path)
    table = cli("diff", new, "--live", old, env={"NO_COLOR": "1"})
    assert table.exit_code == 1, table.stderr
    shown = [line.strip() for line in table.stdout.splitlines() if "2.53.0-py311-gpu" in line]
    assert shown, table.stdout
    for line in shown:
        old_text, _, new_text = line.partition(" → ")
        assert old_text.startswith('"…') and old_text.endswith(':2.53.0-py311-gpu"'), line
        assert new_text.startswith('"…') and ':2.53.1-py311-gpu"' in new_text, line
    md = cli("diff", new, "--live", old, "-o", "markdown").stdout
    assert ':2.53.0-py311-gpu" → "…' in md and ':2.53.1-py311-gpu"' in md
    doc = cli("diff", new, "--live", old, "-o", "json").json()
    values = {(c["old"], c["new"]) for o in doc["objects"] for c in o["changes"]}
    assert (f"{LONG}:2.53.0-py311-gpu", f"{LONG}:2.53.1-py311-gpu") in values


def test_a_short_value_is_shown_whole(cli):
    r = cli("diff", str(SAMPLES / "rayservice-text-ml-new-image.yaml"), "--live", str(SAMPLES / "rayservice-text-ml.yaml"),
            env={"NO_COLOR": "1"})
    assert '"registry.example.com/text-ml:1.4.0" → "registry.example.com/text-ml:1.5.0"' in r.stdout
