"""The bad-input matrix for every command: `plan`, `next`, `diff` and `lint`.

Wrong types and values inside a PodCliqueSet or RayService are caught by the same
checks everywhere (lint's schema check and the kinds' `validate`): `plan`, `next`
and `diff` stop with `PATH:LINE: RULE: field: message` and exit 2, nothing on
stdout; `lint` reports the same rule at the same line as a finding and exits 1.
Unreadable files: exit 2 everywhere (`lint` also lists them as IN001 findings)."""

from __future__ import annotations

import copy
import json
from typing import Any, Callable

import jsonschema
import pytest
import yaml

from rolloutctl.schemas_access import schema
from tests.conftest import SAMPLES, write
from tests.hardening.helpers import ERROR_LINE, assert_input_error
from tests.hardening.test_bad_input_cli import FILE_CASES, NOT_FOUND

PCS = yaml.safe_load((SAMPLES / "disaggregated-inference.yaml").read_text())
RS = yaml.safe_load((SAMPLES / "rayservice-text-ml.yaml").read_text())


def _set(path: str, value: Any) -> Callable[[dict], None]:
    """A mutation: set the field at a dotted path (list indices as numbers)."""
    keys = [int(k) if k.isdigit() else k for k in path.split(".")]

    def fn(doc: dict) -> None:
        cur: Any = doc
        for k in keys[:-1]:
            cur = cur[k]
        cur[keys[-1]] = value

    return fn


def _drop(path: str) -> Callable[[dict], None]:
    keys = [int(k) if k.isdigit() else k for k in path.split(".")]

    def fn(doc: dict) -> None:
        cur: Any = doc
        for k in keys[:-1]:
            cur = cur[k]
        del cur[keys[-1]]

    return fn


CLIQUE0 = "spec.template.cliques.0"
GROUP0 = "spec.template.podCliqueScalingGroups.0"
WG0 = "spec.rayClusterConfig.workerGroupSpecs.0"
HEAD = "spec.rayClusterConfig.headGroupSpec"

# (id, base, mutation, rule, field path as reported)
TYPE_CASES = [
    ("pcs-replicas-string", PCS, _set("spec.replicas", "3"), "SC003", "spec.replicas"),
    ("pcs-replicas-negative", PCS, _set("spec.replicas", -1), "GV002", "spec.replicas"),
    ("pcs-replicas-fraction", PCS, _set("spec.replicas", 1.5), "SC003", "spec.replicas"),
    ("pcs-replicas-boolean", PCS, _set("spec.replicas", True), "SC003", "spec.replicas"),
    ("pcs-replicas-percent", PCS, _set("spec.replicas", "25%"), "SC003", "spec.replicas"),
    ("pcs-spec-list", PCS, _set("spec", []), "SC003", "spec"),
    ("pcs-cliques-mapping", PCS, _set("spec.template.cliques", {}), "SC003", "spec.template.cliques"),
    ("pcs-cliques-scalar", PCS, _set("spec.template.cliques", "frontend"), "SC003", "spec.template.cliques"),
    ("pcs-clique-replicas-percent", PCS, _set(CLIQUE0 + ".spec.replicas", "25%"), "SC003",
     "spec.template.cliques[name=frontend].spec.replicas"),
    ("pcs-clique-min-available-too-big", PCS, _set(CLIQUE0 + ".spec.minAvailable", 99), "GV010",
     "spec.template.cliques[name=frontend].spec.minAvailable"),
    ("pcs-clique-without-name", PCS, _drop(CLIQUE0 + ".name"), "SC002", "spec.template.cliques[0].name"),
    ("pcs-group-replicas-string", PCS, _set(GROUP0 + ".replicas", "2"), "SC003",
     "spec.template.podCliqueScalingGroups[name=prefill].replicas"),
    ("pcs-group-min-available-percent", PCS, _set(GROUP0 + ".minAvailable", "50%"), "SC003",
     "spec.template.podCliqueScalingGroups[name=prefill].minAvailable"),
    ("pcs-max-unavailable-not-int-or-percent", PCS, _set(CLIQUE0 + ".rollingUpdate", {"maxUnavailable": "abc"}),
     "SC003", "spec.template.cliques[name=frontend].rollingUpdate.maxUnavailable"),
    ("pcs-starts-after-cycle", PCS, _set("spec.template.cliques.1.spec.startsAfter", ["pworker"]), "GV013",
     "spec.template.cliques[name=pleader].spec.startsAfter"),
    ("pcs-group-names-unknown-clique", PCS, _set(GROUP0 + ".cliqueNames", ["nope"]), "GV019",
     "spec.template.podCliqueScalingGroups[name=prefill].cliqueNames[0]"),
    ("pcs-requests-not-a-quantity", PCS,
     _set(CLIQUE0 + ".spec.podSpec.containers.0.resources.requests", {"cpu": "lots"}), "SC003",
     "spec.template.cliques[name=frontend].spec.podSpec.containers[name=frontend].resources.requests.cpu"),
    ("pcs-unknown-strategy", PCS, _set("spec.updateStrategy", {"type": "Sideways"}), "SC004",
     "spec.updateStrategy.type"),
    ("pcs-unknown-field", PCS, _set("spec.replicaz", 2), "SC001", "spec.replicaz"),
    ("pcs-unserved-api-version", PCS, _set("apiVersion", "grove.io/v9"), "SC005", "apiVersion"),
    ("pcs-labels-list", PCS, _set("metadata.labels", ["a"]), "SC003", "metadata.labels"),
    # the API server's ObjectMeta check (SC010) refuses it before Grove's webhook (GV001) sees it
    ("pcs-very-long-name", PCS, _set("metadata.name", "x" * 5000), "SC010", "metadata.name"),
    ("rs-worker-replicas-string", RS, _set(WG0 + ".replicas", "3"), "SC003",
     "spec.rayClusterConfig.workerGroupSpecs[groupName=cpu].replicas"),
    ("rs-min-replicas-negative", RS, _set(WG0 + ".minReplicas", -1), "RS",
     "spec.rayClusterConfig.workerGroupSpecs[groupName=cpu].minReplicas"),
    ("rs-min-above-max", RS, _set(WG0 + ".minReplicas", 9), "RS",
     "spec.rayClusterConfig.workerGroupSpecs[groupName=cpu]"),
    ("rs-worker-groups-mapping", RS, _set("spec.rayClusterConfig.workerGroupSpecs", {}), "SC003",
     "spec.rayClusterConfig.workerGroupSpecs"),
    ("rs-head-template-string", RS, _set(HEAD + ".template", "pod"), "SC003",
     "spec.rayClusterConfig.headGroupSpec.template"),
    ("rs-serve-config-mapping", RS, _set("spec.serveConfigV2", {"applications": []}), "SC003", "spec.serveConfigV2"),
    ("rs-deletion-delay-string", RS, _set("spec.rayClusterDeletionDelaySeconds", "60s"), "SC003",
     "spec.rayClusterDeletionDelaySeconds"),
    ("rs-cluster-config-missing", RS, _drop("spec.rayClusterConfig"), "SC002", "spec.rayClusterConfig"),
    ("rs-upgrade-type-unknown", RS, _set("spec.upgradeStrategy.type", "Sideways"), "RS026",
     "spec.upgradeStrategy.type"),
    ("rs-unserved-api-version", RS, _set("apiVersion", "ray.io/v2"), "SC005", "apiVersion"),
]


def _text(base: dict, fn: Callable[[dict], None]) -> str:
    doc = copy.deepcopy(base)
    fn(doc)
    return yaml.safe_dump(doc, sort_keys=False, width=10_000)


def _run(cli, command: str, path: str, base: dict, tmp_path) -> Any:
    if command == "compare":
        return cli("plan", path, "--compare", "-o", "json")
    if command == "diff":
        live = write(tmp_path, "live.yaml", yaml.safe_dump(base, sort_keys=False))
        return cli("diff", path, "--live", live, "-o", "json")
    return cli(command, path, "-o", "json")


def _lint_findings(r) -> list[dict]:
    doc = json.loads(r.stdout)
    jsonschema.Draft202012Validator(schema("lint")).validate(doc)
    return doc["findings"]


SCHEMA_CASES = [c for c in TYPE_CASES if c[3].startswith("SC")]
WEBHOOK_CASES = [c for c in TYPE_CASES if not c[3].startswith("SC")]
#: Grove's webhook refuses at admission; KubeRay's RS rules are the controller's (no webhook by default)
ADMISSION_CASES = [c for c in WEBHOOK_CASES if not c[3].startswith("RS")]
CONTROLLER_CASES = [c for c in WEBHOOK_CASES if c[3].startswith("RS")]


def _ids(cases):
    return [c[0] for c in cases]


def _check_stopped(cli, tmp_path, command, base, fn, rule, field):
    p = write(tmp_path, "in.yaml", _text(base, fn))
    r = _run(cli, command, p, base, tmp_path)
    lines = assert_input_error(r, p, f": {field}")
    assert any(m["message"].startswith(rule) and f": {field}" in m["message"] for m in lines), r.stderr
    assert all(len(m.group(0)) <= 1100 for m in lines)


@pytest.mark.parametrize("command", ["plan", "next", "compare"])
@pytest.mark.parametrize("case, base, fn, rule, field", SCHEMA_CASES, ids=_ids(SCHEMA_CASES))
def test_schema_errors_stop_planning(cli, tmp_path, command, case, base, fn, rule, field):
    _check_stopped(cli, tmp_path, command, base, fn, rule, field)


@pytest.mark.parametrize("case, base, fn, rule, field", SCHEMA_CASES, ids=_ids(SCHEMA_CASES))
def test_diff_reports_api_server_refusals_as_rejected(cli, tmp_path, case, base, fn, rule, field):
    """What the API server refuses (schema, ObjectMeta: admission) is a `rejected` change in
    diff, exit 1, naming the rule and the field (CONTRACT.md exit codes; issue 12)."""
    p = write(tmp_path, "in.yaml", _text(base, fn))
    r = _run(cli, "diff", p, base, tmp_path)
    assert r.exit_code == 1, (r.exit_code, r.stderr)
    doc = json.loads(r.stdout)
    jsonschema.Draft202012Validator(schema("diff")).validate(doc)
    rejected = [i for o in doc["objects"] for i in o["impact"] if i["effect"] == "rejected"]
    assert any(i["message"].startswith(rule) and any(p.startswith(field) for p in i["paths"]) for i in rejected), rejected


@pytest.mark.parametrize("command", ["plan", "next", "compare"])
@pytest.mark.parametrize("case, base, fn, rule, field", ADMISSION_CASES, ids=_ids(ADMISSION_CASES))
def test_webhook_rejections_stop_planning(cli, tmp_path, command, case, base, fn, rule, field):
    _check_stopped(cli, tmp_path, command, base, fn, rule, field)


@pytest.mark.parametrize("command", ["plan", "next"])
@pytest.mark.parametrize("case, base, fn, rule, field", CONTROLLER_CASES, ids=_ids(CONTROLLER_CASES))
def test_controller_rejections_are_planned(cli, tmp_path, command, case, base, fn, rule, field):
    """What only the KubeRay controller refuses is planned as its reaction (CONTRACT.md): stuck ValidationFailed, exit 1."""
    p = write(tmp_path, "in.yaml", _text(base, fn))
    r = _run(cli, command, p, base, tmp_path)
    assert r.exit_code == 1, (r.exit_code, r.stderr)
    doc = json.loads(r.stdout)
    assert doc["outcome"] == "stuck" and doc["stuck"]["reason"] == "ValidationFailed"


@pytest.mark.parametrize("case, base, fn, rule, field", [
    c for c in WEBHOOK_CASES], ids=_ids(WEBHOOK_CASES))
def test_diff_reports_webhook_rejections_as_rejected(cli, tmp_path, case, base, fn, rule, field):
    """diff shows a change the operator would refuse as effect `rejected` (CONTRACT.md), exit 1."""
    p = write(tmp_path, "in.yaml", _text(base, fn))
    r = _run(cli, "diff", p, base, tmp_path)
    assert r.exit_code == 1, (r.exit_code, r.stderr)
    doc = json.loads(r.stdout)
    jsonschema.Draft202012Validator(schema("diff")).validate(doc)
    assert any(i["effect"] == "rejected" for o in doc["objects"] for i in o["impact"]), doc["objects"]


@pytest.mark.parametrize("case, base, fn, rule, field", TYPE_CASES, ids=[c[0] for c in TYPE_CASES])
def test_lint_reports_the_same_rule_at_the_same_line(cli, tmp_path, case, base, fn, rule, field):
    p = write(tmp_path, "in.yaml", _text(base, fn))
    planned = cli("plan", p)
    lint = cli("lint", p, "-o", "json")
    assert lint.exit_code == 1, (lint.exit_code, lint.stderr)
    findings = _lint_findings(lint)
    plan_lines = {(int(m["line"]), m["message"].split(":")[0]) for m in map(ERROR_LINE.match, planned.stderr.splitlines())}
    lint_lines = {(f["line"], f["rule"]) for f in findings if f["severity"] == "error"}
    assert plan_lines <= lint_lines, (plan_lines, lint_lines)
    assert any(f["rule"].startswith(rule) and f["path"].startswith(field) for f in findings), findings


@pytest.mark.parametrize("case, content, fragments", FILE_CASES, ids=[c[0] for c in FILE_CASES])
def test_bad_files_through_diff(cli, tmp_path, case, content, fragments):
    p = tmp_path / "in.yaml"
    p.write_bytes(content)
    live = write(tmp_path, "live.yaml", yaml.safe_dump(PCS))
    assert_input_error(cli("diff", str(p), "--live", live, "-o", "json"), str(p), *fragments)


@pytest.mark.parametrize("case, content, fragments", FILE_CASES, ids=[c[0] for c in FILE_CASES])
def test_bad_live_files_through_diff(cli, tmp_path, case, content, fragments):
    p = tmp_path / "live.yaml"
    p.write_bytes(content)
    desired = write(tmp_path, "in.yaml", yaml.safe_dump(PCS))
    r = cli("diff", desired, "--live", str(p), "-o", "json")
    if NOT_FOUND in fragments and case == "unmodelled-kinds-only":  # other objects live: this one is added
        assert r.exit_code == 1 and json.loads(r.stdout)["objects"][0]["status"] == "added"
    elif NOT_FOUND in fragments:
        # no object at all: a kubectl get that failed and left the file empty, unless --allow-empty says so
        assert r.exit_code == 2 and "no object in it" in r.stderr and "--allow-empty" in r.stderr, r.stderr
        r = cli("diff", desired, "--live", str(p), "--allow-empty", "-o", "json")
        assert r.exit_code == 1 and json.loads(r.stdout)["objects"][0]["status"] == "added"
    else:
        assert_input_error(r, str(p), *fragments)


@pytest.mark.parametrize("case, content, fragments", FILE_CASES, ids=[c[0] for c in FILE_CASES])
def test_bad_files_through_lint(cli, tmp_path, case, content, fragments):
    """lint lists an unreadable file as an IN001 finding with its line and exits 2;
    a file with nothing to check is clean, and so is a document that is no Kubernetes
    object at all (a list or a scalar: pre-commit passes every YAML file of a repository)."""
    p = tmp_path / "in.yaml"
    p.write_bytes(content)
    for fmt in ("json", "text"):
        r = cli("lint", str(p), "-o", fmt)
        assert "Traceback" not in r.stderr + r.stdout
        if NOT_FOUND in fragments or case in ("scalar-document", "list-document"):
            assert r.exit_code == 0, r.stdout
            continue
        assert r.exit_code == 2, (r.exit_code, r.stdout, r.stderr)
        if fmt == "json":
            findings = _lint_findings(r)
            assert findings and all(f["rule"] == "IN001" and f["file"] == str(p) for f in findings)
            frag = [f for f in fragments if not f.startswith(":")]
            expected_line = [int(f.split(":")[1]) for f in fragments if f.startswith(":") and f[1:2].isdigit()]
            if expected_line:
                assert findings[0]["line"] == expected_line[0]
            for f in frag:
                assert any(f in x["message"] for x in findings), (f, findings)


@pytest.mark.parametrize("fn", [_set("metadata.name", "x" * 5000), _set("spec.updateStrategy", {"type": "y" * 5000}),
                                _set("spec.template.cliques.0.spec.roleName", ["z" * 5000])],
                         ids=["long-name", "long-enum-value", "long-value-of-wrong-type"])
def test_very_long_values_are_not_repeated_in_findings(cli, tmp_path, fn):
    p = write(tmp_path, "in.yaml", _text(PCS, fn))
    findings = _lint_findings(cli("lint", p, "-o", "json"))
    assert findings and all(len(f["message"]) < 300 for f in findings), [len(f["message"]) for f in findings]
    r = cli("plan", p)
    assert r.exit_code == 2 and all(len(line) < 500 for line in r.stderr.splitlines())


def test_a_null_where_an_object_belongs_is_said_once(cli, tmp_path):
    # the API server prunes the non-nullable null (structuraldefaulting.PruneNonNullableNullsWithoutDefaults),
    # then the required field is missing
    p = write(tmp_path, "in.yaml", _text(PCS, _set("spec.template", None)))
    r = cli("plan", p)
    assert r.exit_code == 2 and r.stderr.count("missing required field 'template'") == 1, r.stderr
