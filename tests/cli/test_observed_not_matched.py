"""An observed object of the desired one's kind that is not it (kind, namespace and name
differ) makes the plan a creation; the plan says so when that looks like a mistake: the
same name in another namespace (a namespace-less manifest goes to default), or the one
object of the kind the observed input holds."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "samples" / "rayservice-text-ml.yaml"
NEW = REPO / "samples" / "rayservice-text-ml-new-image.yaml"


def _variant(tmp_path: Path, file: str, **meta) -> str:
    doc = yaml.safe_load(NEW.read_text())
    doc["metadata"] = {k: v for k, v in {**doc["metadata"], **meta}.items() if v is not None}
    p = tmp_path / file
    p.write_text(yaml.safe_dump(doc))
    return str(p)


def _warnings(r) -> dict:
    return {w["code"]: w for w in json.loads(r.stdout)["warnings"]}


def test_a_namespace_less_manifest_against_a_live_object_elsewhere_says_which_namespace(cli, tmp_path):
    new = _variant(tmp_path, "new.yaml", namespace=None)
    r = cli("plan", new, "--observed", str(SAMPLE), "-o", "json")
    w = _warnings(r)["ObservedNotMatched"]
    assert "ml-serving/text-ml" in w["message"] and "default/text-ml" in w["message"]
    assert "-n ml-serving" in w["message"]
    assert json.loads(r.stdout)["summary"]["creates"] >= 1  # planned as new, as the warning says
    # with the namespace given, it is the upgrade of the live service, and nothing to warn of
    r = cli("plan", new, "--observed", str(SAMPLE), "-n", "ml-serving", "-o", "json")
    assert "ObservedNotMatched" not in _warnings(r)


def test_a_mistyped_name_is_said(cli, tmp_path):
    r = cli("plan", _variant(tmp_path, "new.yaml", name="text-ml2"), "--observed", str(SAMPLE), "-o", "json")
    w = _warnings(r)["ObservedNotMatched"]
    assert "ml-serving/text-ml " in w["message"] and "ml-serving/text-ml2" in w["message"]
    assert "-n " not in w["message"]


def test_the_matching_object_and_several_neighbours_are_not_warned_of(cli, tmp_path):
    assert "ObservedNotMatched" not in _warnings(cli("plan", str(NEW), "--observed", str(SAMPLE), "-o", "json"))
    # two other services observed: neighbours (e.g. sharing a queue), not a mistyped name
    other = yaml.safe_load(SAMPLE.read_text())
    docs = [{**other, "metadata": {**other["metadata"], "name": n}} for n in ("a", "b")]
    (tmp_path / "live.yaml").write_text(yaml.safe_dump_all(docs))
    r = cli("plan", str(NEW), "--observed", str(tmp_path / "live.yaml"), "-o", "json")
    assert "ObservedNotMatched" not in _warnings(r)
