"""The Serve config's application names (``getAndCheckServeStatus``) come out the same
whichever PyYAML parser reads the config: the libyaml one the model uses and the pure
Python one behind ``yaml.safe_load``, for every bundled and upstream serveConfigV2 and
for configs that do not parse."""

from __future__ import annotations

import pytest
import yaml

from rolloutctl.kinds.kuberay.spec import serve_app_names
from tests.conftest import SAMPLES, UPSTREAM


def _python_parser_names(config: str) -> list[str]:
    try:
        doc = yaml.safe_load(config)
    except yaml.YAMLError:
        return []
    apps = doc.get("applications") if isinstance(doc, dict) else None
    names = [str(a.get("name")) if isinstance(a, dict) and a.get("name") else "default"
             for a in (apps if isinstance(apps, list) else [])]
    return sorted(set(names))


def _configs() -> list[str]:
    files = sorted(SAMPLES.glob("*.yaml")) + sorted((UPSTREAM / "kuberay" / "samples").glob("*.yaml"))
    out = []
    for f in files:
        for doc in yaml.safe_load_all(f.read_text()):
            cfg = ((doc or {}).get("spec") or {}).get("serveConfigV2") if isinstance(doc, dict) else None
            if isinstance(cfg, str):
                out.append(cfg)
    return out


MALFORMED = ["applications: [", "applications:\n  - name: a\n   bad: indent", "\tapplications: []", "- a\n- b",
             "applications:\n  - name: ''\n  - import_path: x", "applications: {name: a}", "\x00", "a: b: c"]


@pytest.mark.parametrize("config", _configs() + MALFORMED)
def test_both_parsers_name_the_same_applications(config):
    assert serve_app_names(config) == _python_parser_names(config)


def test_the_bundled_sample_names_its_two_applications():
    cfg = yaml.safe_load((SAMPLES / "rayservice-text-ml.yaml").read_text())["spec"]["serveConfigV2"]
    assert serve_app_names(cfg) == ["classify", "summarize"]
