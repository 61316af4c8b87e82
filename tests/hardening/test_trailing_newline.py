"""Values whose only fault is a trailing newline: Kubernetes validates names, label
keys and quantities with Go regexps, whose ``$`` is the end of the text, so the API server
rejects ``"llm\\n"``. plan refuses such a manifest with the usual one-line input error;
lint reports it as an error finding."""

from __future__ import annotations

import json

import pytest
import yaml

from tests.conftest import SAMPLES, write
from tests.hardening.helpers import assert_input_error, mutated

RAY_SAMPLE = SAMPLES / "rayservice-text-ml.yaml"


def _rename(doc):
    doc["metadata"]["name"] += "\n"


def _label_key(doc):
    doc["metadata"].setdefault("labels", {})["team\n"] = "a"


def _quantity(doc):
    doc["spec"]["template"]["cliques"][0]["spec"]["podSpec"]["containers"][0]["resources"]["requests"]["cpu"] = "2\n"


CASES = [("name", _rename, "Invalid value: 'llm\\n'"),
         ("label-key", _label_key, "metadata.labels"),
         ("quantity", _quantity, "cpu")]


@pytest.mark.parametrize("case, fn, fragment", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("command", ["plan", "next"])
def test_plan_refuses_a_trailing_newline(cli, tmp_path, command, case, fn, fragment):
    p = write(tmp_path, "pcs.yaml", mutated(fn))
    assert_input_error(cli(command, p, "-o", "json"), p, fragment)


def test_lint_reports_a_name_with_a_trailing_newline(cli, tmp_path):
    p = write(tmp_path, "pcs.yaml", mutated(_rename))
    r = cli("lint", p, "-o", "json")
    assert r.exit_code == 1, r.stderr
    errors = [f for f in json.loads(r.stdout)["findings"] if f["severity"] == "error"]
    assert errors and all(f["line"] == 4 for f in errors), errors
    assert any("'llm\\n'" in f["message"] for f in errors)


def test_a_rayservice_name_with_a_trailing_newline_is_refused(cli, tmp_path):
    doc = yaml.safe_load(RAY_SAMPLE.read_text())
    doc["metadata"]["name"] += "\n"
    p = write(tmp_path, "rs.yaml", yaml.safe_dump(doc, sort_keys=False))
    r = cli("plan", p, "-o", "json")
    assert_input_error(r, p, "text-ml\\n")


def test_the_same_names_without_the_newline_plan(cli, tmp_path):
    p = write(tmp_path, "pcs.yaml", mutated(lambda d: None))
    assert cli("plan", p, "-o", "json").exit_code in (0, 1)
