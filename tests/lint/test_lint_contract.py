"""``rolloutctl lint`` end to end: the issue's acceptance cases, upstream samples,
output formats, suppression, exit codes, docs freshness."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rolloutctl.cli import app
from rolloutctl.lint.docs import render_rules_markdown
from rolloutctl.lint.registry import all_rules
from rolloutctl.schemas_access import schema

from .cases import EXPLICIT, clique, pcs, rs
from tests.conftest import UPSTREAM as SHARED_UPSTREAM

REPO = Path(__file__).resolve().parents[2]
UPSTREAM = SHARED_UPSTREAM
runner = CliRunner()


def run(*args: str, env: dict | None = None):
    return runner.invoke(app, list(args), env={"GITHUB_ACTIONS": "", "NO_COLOR": "1", **(env or {})})


def write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def line_of(text: str, needle: str) -> int:
    return next(i for i, ln in enumerate(text.splitlines(), 1) if needle in ln)


def findings(out: str) -> list[dict]:
    return json.loads(out)["findings"]


# --------------------------------------------------------------------------- acceptance (issue 7 "Done when")

def test_rayservice_name_of_48_characters_is_reported_with_file_and_line(tmp_path):
    text = rs(name="a" * 48)
    f = write(tmp_path, "svc.yaml", text)
    r = run("lint", "-o", "json", f)
    assert r.exit_code == 1
    hit = [x for x in findings(r.stdout) if x["rule"] == "RS001"]
    assert hit and hit[0]["file"] == f and hit[0]["line"] == line_of(text, "name: " + "a" * 48)
    assert hit[0]["path"] == "metadata.name"


def test_grove_name_over_45_character_budget(tmp_path):
    text = pcs(clique("prefill-worker-abcdefgh"), name="inference-service-abcde")
    f = write(tmp_path, "pcs.yaml", text)
    r = run("lint", f)
    assert r.exit_code == 1
    assert f"{f}:{line_of(text, '- name: prefill-worker-abcdefgh')}: GV005 [error]" in r.stdout
    assert f"{f}:{line_of(text, 'name: inference-service-abcde')}: GV005 [error] metadata.name:" in r.stdout


def test_starts_after_cycle(tmp_path):
    text = pcs(clique("a", spec="startsAfter: [c]") + clique("b", spec="startsAfter: [a]")
               + clique("c", spec="startsAfter: [b]"), template=EXPLICIT)
    f = write(tmp_path, "pcs.yaml", text)
    r = run("lint", "-o", "json", f)
    assert r.exit_code == 1
    hit = [x for x in findings(r.stdout) if x["rule"] == "GV013"]
    assert len(hit) == 1 and "a -> b -> c -> a" in hit[0]["message"]
    assert hit[0]["line"] == line_of(text, "startsAfter: [c]")


def test_rolling_update_with_pcs_level_max_surge(tmp_path):
    text = pcs(spec="updateStrategy:\n  type: RollingUpdate\n  rollingUpdate:\n    maxSurge: 1")
    f = write(tmp_path, "pcs.yaml", text)
    r = run("lint", "-o", "json", f)
    assert r.exit_code == 1
    hit = [x for x in findings(r.stdout) if x["rule"] == "GV205"]
    assert hit and hit[0]["line"] == line_of(text, "maxSurge: 1")
    assert hit[0]["path"] == "spec.updateStrategy.rollingUpdate.maxSurge"
    # the design fields are also flagged as not implemented upstream (warning)
    assert any(x["rule"] == "GV201" and x["severity"] == "warning" for x in findings(r.stdout))


def test_max_surge_zero_with_max_unavailable_zero(tmp_path):
    text = pcs(clique("frontend", replicas=3, top="updateStrategy:\n  maxUnavailable: 0\n  maxSurge: 0"),
               spec="updateStrategy: {type: RollingUpdate}")
    f = write(tmp_path, "pcs.yaml", text)
    r = run("lint", "-o", "json", f)
    assert r.exit_code == 1
    hit = [x for x in findings(r.stdout) if x["rule"] == "GV203"]
    assert hit and hit[0]["line"] == line_of(text, "maxUnavailable: 0")


# --------------------------------------------------------------------------- upstream samples

def _samples(op: str) -> list[Path]:
    d = UPSTREAM / op / "samples"
    if not d.is_dir():
        pytest.skip("../shared/upstream is not available")
    return sorted(d.glob("*.yaml"))


def test_every_kuberay_sample_lints_clean():
    files = _samples("kuberay")
    r = run("lint", "-o", "json", *map(str, files))
    assert r.exit_code == 0, r.stdout
    # the samples are variants of one another: several name `rayservice-sample`. Linted
    # together that is a warning at each later copy (SC013), never an error; alone, each is clean
    found = findings(r.stdout)
    assert {(f["rule"], f["severity"]) for f in found} <= {("SC013", "warning")}
    assert all(f["object"]["name"] == "rayservice-sample" for f in found)
    for f in files:
        alone = run("lint", "-o", "json", str(f))
        assert alone.exit_code == 0 and findings(alone.stdout) == [], (f, alone.stdout)


def test_every_grove_sample_lints_clean_the_one_without_a_role_name_included():
    """``multinode-disaggregated-with-frontend.yaml`` leaves a clique's ``roleName`` out:
    the defaulting webhook's patch (request to re-marshalled object) adds ``roleName: ""``
    (no ``omitempty``) before the CRD's required check runs, so the API server stores it."""
    files = _samples("grove")
    r = run("lint", "-o", "json", *map(str, files))
    assert r.exit_code == 0, r.stdout
    assert [x for x in findings(r.stdout) if x["severity"] == "error"] == []


# --------------------------------------------------------------------------- input errors, kinds, strict

def test_unparsable_file_is_a_finding_and_exit_2_while_other_files_are_checked(tmp_path):
    bad = write(tmp_path, "bad.yaml", "a: [1,\n")
    good = write(tmp_path, "good.yaml", pcs(name="Bad_Name"))
    r = run("lint", "-o", "json", bad, good)
    assert r.exit_code == 2
    rules = {x["rule"] for x in findings(r.stdout)}
    assert {"IN001", "SC010"} <= rules and "GV001" not in rules  # the API server refuses the name first


def test_unmodelled_kinds_are_counted_and_skipped_unless_strict(tmp_path):
    f = write(tmp_path, "mix.yaml", pcs() + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n")
    r = run("lint", "-o", "json", f)
    doc = json.loads(r.stdout)
    assert r.exit_code == 0 and doc["objects"] == 2 and doc["findings"] == []
    r = run("lint", "--strict", "-o", "json", f)
    assert r.exit_code == 1 and [x["rule"] for x in findings(r.stdout)] == ["IN002"]
    # the text summary says what was not checked (a RayCluster on its own reads as clean otherwise)
    r = run("lint", f)
    assert r.exit_code == 0 and r.stdout.strip().endswith("not checked: ConfigMap (--strict reports them)")


def test_unknown_field_suggests_the_known_name(tmp_path):
    f = write(tmp_path, "svc.yaml", rs().replace("    workerGroupSpecs:", "    workerGroupSpec:"))
    r = run("lint", f)
    assert r.exit_code == 1
    assert "SC001 [error] spec.rayClusterConfig.workerGroupSpec: unknown field 'workerGroupSpec' (did you mean 'workerGroupSpecs'?)" in r.stdout


def test_stdin(tmp_path):
    r = runner.invoke(app, ["lint", "-"], input=pcs(name="Bad_Name"), env={"GITHUB_ACTIONS": ""})
    assert r.exit_code == 1 and "<stdin>:4: SC010" in r.stdout


def test_update_rules_need_live_object(tmp_path):
    live = write(tmp_path, "live.yaml", pcs(clique("worker", replicas=4, spec="minAvailable: 2")))
    new = write(tmp_path, "new.yaml", pcs(clique("worker", replicas=4, spec="minAvailable: 3")))
    assert run("lint", new).exit_code == 0
    r = run("lint", "-o", "json", new, "--live", live)
    assert r.exit_code == 1 and [x["rule"] for x in findings(r.stdout)] == ["GV102"]


# --------------------------------------------------------------------------- suppression

def test_suppression_with_reason_silences_the_rule(tmp_path):
    body = clique("worker") + clique("pworker")
    f = write(tmp_path, "pcs.yaml", pcs(body))
    assert [x["rule"] for x in findings(run("lint", "-o", "json", f).stdout)] == ["GV301"]
    f = write(tmp_path, "pcs2.yaml", pcs(body, meta="annotations:\n  rolloutctl.dev/ignore: 'GV301: same template on purpose'"))
    r = run("lint", "-o", "json", f)
    assert r.exit_code == 0 and findings(r.stdout) == []


def test_suppression_without_reason_is_an_error_and_suppresses_nothing(tmp_path):
    f = write(tmp_path, "pcs.yaml", pcs(clique("worker") + clique("pworker"),
                                        meta="annotations:\n  rolloutctl.dev/ignore: GV301"))
    r = run("lint", "-o", "json", f)
    assert r.exit_code == 1 and sorted(x["rule"] for x in findings(r.stdout)) == ["GV301", "SP001"]


# --------------------------------------------------------------------------- output formats

@pytest.fixture
def mixed(tmp_path):
    a = write(tmp_path, "a.yaml", pcs(clique("worker") + clique("pworker"), name="Bad_Name"))
    b = write(tmp_path, "b.yaml", pcs(name="fine"))
    return a, b


def test_text_groups_by_file_and_ends_with_summary(mixed):
    a, _ = mixed
    r = run("lint", *mixed)
    lines = r.stdout.splitlines()
    assert lines[0].startswith(f"{a}:4: SC010 [error] metadata.name:")
    # the bad name once: the API server's ObjectMeta check (SC010) refuses it before Grove's
    # webhook, whose own name check (GV001) would say the same again
    assert lines[-1] == "1 error, 1 warning in 2 objects (2 files)"
    assert "GV001" not in r.stdout


def test_json_validates_against_the_lint_schema_and_is_deterministic(mixed):
    from jsonschema import Draft202012Validator

    out1, out2 = run("lint", "-o", "json", *mixed).stdout, run("lint", "-o", "json", *reversed(mixed)).stdout
    assert out1 == out2
    Draft202012Validator(schema("lint")).validate(json.loads(out1))


def test_sarif_is_structurally_valid(mixed):
    doc = json.loads(run("lint", "-o", "sarif", *mixed).stdout)
    assert doc["version"] == "2.1.0" and "sarif-2.1.0" in doc["$schema"]
    run0 = doc["runs"][0]
    rules = run0["tool"]["driver"]["rules"]
    assert {r["id"] for r in rules} == {"GV301", "SC010"}
    assert all(r["help"]["text"] and r["shortDescription"]["text"] for r in rules)
    for res in run0["results"]:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        region = res["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and res["level"] in ("error", "warning")


def test_github_annotations_are_default_under_github_actions(mixed):
    a, _ = mixed
    r = run("lint", *mixed, env={"GITHUB_ACTIONS": "true"})
    assert r.exit_code == 1
    assert f"::error file={a},line=4,col=3,title=SC010::SC010 metadata.name: " in r.stdout
    assert "::warning file=" in r.stdout and r.stdout.splitlines()[0] == f"::group::{a}"


def test_junit_has_one_testcase_per_object(mixed):
    root = ET.fromstring(run("lint", "-o", "junit", *mixed).stdout)
    cases = root.findall(".//testcase")
    assert len(cases) == 2 and root.get("tests") == "2" and root.get("failures") == "1"
    failed = [c for c in cases if c.find("failure") is not None]
    assert [c.get("name") for c in failed] == ["PodCliqueSet/default/Bad_Name"]


# --------------------------------------------------------------------------- rules command and docs

def test_rules_lists_and_explains():
    r = run("rules")
    assert r.exit_code == 0 and all(rule.id in r.stdout for rule in all_rules())
    r = run("rules", "gv005")
    assert r.exit_code == 0 and "validatePodNameConstraints" in r.stdout and "Bad:" in r.stdout
    r = run("rules", "ZZ999")
    assert r.exit_code == 2 and "unknown rule" in r.stderr


def test_docs_rules_md_is_current():
    committed = (REPO / "docs" / "rules.md").read_text()
    assert committed == render_rules_markdown(all_rules()), \
        "docs/rules.md is stale: run `python -m rolloutctl.lint.docs > docs/rules.md`"


def test_a_non_object_document_is_passed_over_only_in_a_file_of_no_manifest(tmp_path):
    """lint reads whatever YAML a repository has: a file with no Kubernetes object (Helm
    values, a workflow, a bare string) is passed over; in a file of manifests a document
    that is no object is what kubectl apply refuses: IN001 (exit 2), as plan reports it."""
    values = write(tmp_path, "values.yaml", "--- foo\n---\n- a\n- b\n")
    assert run("lint", values).exit_code == 0
    mixed = write(tmp_path, "mixed.yaml", pcs() + "---\nfoo\n")
    r = run("lint", "-o", "json", mixed)
    assert r.exit_code == 2 and [x["rule"] for x in findings(r.stdout)] == ["IN001"]
