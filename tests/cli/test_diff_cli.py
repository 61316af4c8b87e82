"""``rolloutctl diff`` end to end: inputs, output formats, exit codes, --fail-on, --prune."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from rolloutctl.cli import app
from rolloutctl.schemas_access import schema

import diff_cases as C
from tests.conftest import rolloutctl_argv, rolloutctl_env

runner = CliRunner()
REPO = Path(__file__).resolve().parents[2]


def run(*args: str, input: str | None = None):
    return runner.invoke(app, ["diff", *args], input=input, env={"NO_COLOR": "1"})


def write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def head_image(text: str = C.RS, image: str = "rayproject/ray:2.53.0") -> str:
    return C.edit(text, lambda r: r["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]
                  ["containers"][0].update(image=image))


def worker_replicas(text: str = C.RS) -> str:
    return C.edit(text, lambda r: r["spec"]["rayClusterConfig"]["workerGroupSpecs"][0].update(replicas=3))


# --------------------------------------------------------------------------- the everyday form


def test_everyday_form_live_from_stdin(tmp_path):
    """kubectl get rayservice my-svc -o yaml | rolloutctl diff svc.yaml --live -"""
    svc = write(tmp_path, "svc.yaml", head_image())
    r = run(svc, "--live", "-", input=C.live_copy(C.RS))
    assert r.exit_code == 1, r.output
    out = r.stdout
    assert "~ RayService default/my-svc (changed)" in out
    assert "~ spec.rayClusterConfig.headGroupSpec.template.spec.containers[name=ray-head].image  [rollout]" in out
    assert f'"rayproject/ray:2.52.0" → "rayproject/ray:2.53.0"   {svc}:{C.line_of(C.dump(C.load(head_image())), "2.53.0")}' in out
    assert "Diff: 0 to add, 1 to change, 0 to remove, 0 unchanged. Effects: 1 rollout." in out


def test_no_differences_exit_0(tmp_path):
    svc = write(tmp_path, "svc.yaml", C.RS)
    r = run(svc, "--live", "-", input=C.live_copy(C.RS, as_list=True))
    assert r.exit_code == 0, r.output
    assert "Diff: 0 to add, 0 to change, 0 to remove, 1 unchanged." in r.stdout


def test_desired_from_stdin_and_live_from_a_directory(tmp_path):
    livedir = tmp_path / "live"
    livedir.mkdir()
    (livedir / "rs.yaml").write_text(C.live_copy(C.RS))
    (livedir / "pcs.yaml").write_text(C.live_copy(C.PCS))
    r = run("-", "--live", str(livedir), "-o", "json", input=C.RS + "---\n" + C.PCS)
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["summary"] == {"added": 0, "removed": 0, "changed": 0, "unchanged": 2}


# --------------------------------------------------------------------------- exit codes and --fail-on


@pytest.mark.parametrize("fail_on, text, code", [
    ("rollout,recreate,teardown,rejected", head_image(), 1),
    ("rollout,recreate,teardown,rejected", worker_replicas(), 0),   # ignored only
    ("ignored", worker_replicas(), 1),
    ("teardown", head_image(), 0),
])
def test_fail_on_exits_1_only_for_the_listed_effects(tmp_path, fail_on, text, code):
    svc = write(tmp_path, "svc.yaml", text)
    live = write(tmp_path, "live.yaml", C.live_copy(C.RS))
    r = run(svc, "--live", live, "--fail-on", fail_on)
    assert r.exit_code == code, r.output


def test_fail_on_with_no_differences_exits_0(tmp_path):
    r = run(write(tmp_path, "svc.yaml", C.RS), "--live", write(tmp_path, "l.yaml", C.live_copy(C.RS)),
            "--fail-on", "rollout")
    assert r.exit_code == 0


@pytest.mark.parametrize("args, message", [
    (["--fail-on", "explode"], "unknown effect explode"),
    (["--fail-on", ","], "unknown effect (none given)"),
    (["--from-cluster"], "either --live PATH or --from-cluster"),
])
def test_bad_usage_exits_2(tmp_path, args, message):
    svc = write(tmp_path, "svc.yaml", C.RS)
    live = write(tmp_path, "live.yaml", C.live_copy(C.RS))
    r = run(svc, "--live", live, *args)
    assert r.exit_code == 2
    assert message in r.stderr


def test_missing_live_state_exits_2(tmp_path):
    r = run(write(tmp_path, "svc.yaml", C.RS))
    assert r.exit_code == 2
    assert "--live PATH" in r.stderr and "--from-cluster" in r.stderr


def test_stdin_twice_exits_2(tmp_path):
    r = run("-", "--live", "-", input=C.RS)
    assert r.exit_code == 2
    assert "only once" in r.stderr


def test_unparsable_manifest_exits_2_with_path_and_line(tmp_path):
    svc = write(tmp_path, "svc.yaml", "apiVersion: ray.io/v1\nkind: RayService\nmetadata:\n  name: [x\n")
    r = run(svc, "--live", write(tmp_path, "live.yaml", C.live_copy(C.RS)))
    assert r.exit_code == 2
    assert r.stderr.startswith(f"{svc}:")
    assert "Traceback" not in r.output


def test_manifest_without_a_modelled_kind_exits_2(tmp_path):
    cm = write(tmp_path, "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
    r = run(cm, "--live", write(tmp_path, "live.yaml", C.live_copy(C.RS)))
    assert r.exit_code == 2
    assert "no RayService" in r.stderr


# --------------------------------------------------------------------------- matching, added, removed


def test_added_object_is_reported_and_other_kinds_are_skipped(tmp_path):
    svc = write(tmp_path, "svc.yaml", C.RS + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
    live = write(tmp_path, "live.yaml", C.live_copy(C.PCS))
    doc = json.loads(run(svc, "--live", live, "-o", "json").stdout)
    assert [(o["target"]["kind"], o["status"]) for o in doc["objects"]] == [("RayService", "added")]


def test_live_only_objects_need_prune_and_owned_ones_never_show(tmp_path):
    svc = write(tmp_path, "svc.yaml", C.RS)
    owned = C.live_copy(C.RS, mutate=lambda r: (r["metadata"].update(
        name="child", ownerReferences=[{"apiVersion": "v1", "kind": "X", "name": "p", "uid": "1"}])))
    live = write(tmp_path, "live.yaml", C.live_copy(C.RS) + "---\n" + C.live_copy(C.PCS) + "---\n" + owned)
    doc = json.loads(run(svc, "--live", live, "-o", "json").stdout)
    assert [o["status"] for o in doc["objects"]] == ["unchanged"]
    r = run(svc, "--live", live, "-o", "json", "--prune")
    assert r.exit_code == 1
    doc = json.loads(r.stdout)
    assert [(o["target"]["kind"], o["target"]["name"], o["status"]) for o in doc["objects"]] == [
        ("PodCliqueSet", "llm", "removed"), ("RayService", "my-svc", "unchanged")]
    assert doc["objects"][0]["impact"][0]["effect"] == "teardown"


def test_objects_match_by_namespace(tmp_path):
    svc = write(tmp_path, "svc.yaml", C.RS)
    live = write(tmp_path, "live.yaml", C.live_copy(C.RS, mutate=lambda r: r["metadata"].update(namespace="prod")))
    assert json.loads(run(svc, "--live", live, "-o", "json").stdout)["objects"][0]["status"] == "added"
    r = run(svc, "--live", live, "-o", "json", "-n", "prod")
    assert r.exit_code == 0
    assert json.loads(r.stdout)["objects"][0]["status"] == "unchanged"


# --------------------------------------------------------------------------- output formats


def test_json_validates_against_the_bundled_schema_and_is_byte_identical(tmp_path):
    svc = write(tmp_path, "svc.yaml", head_image() + "---\n" + C.edit(C.PCS, lambda r: r["spec"].update(replicas=2)))
    live = write(tmp_path, "live.yaml", C.live_copy(C.RS) + "---\n" + C.live_copy(C.PCS))
    a = run(svc, "--live", live, "-o", "json")
    b = run(svc, "--live", live, "-o", "json")
    assert a.stdout == b.stdout
    doc = json.loads(a.stdout)
    jsonschema.validate(doc, schema("diff"))
    assert doc["kind"] == "Diff" and doc["apiVersion"] == "rolloutctl.dev/v1alpha1"
    pcs = doc["objects"][0]
    assert pcs["changes"] == [{"path": "spec.replicas", "op": "replace", "old": 1, "new": 2,
                               "file": svc, "line": pcs["changes"][0]["line"]}]
    assert pcs["impact"][0]["effect"] == "scale"


def test_schema_command_prints_the_diff_schema():
    r = runner.invoke(app, ["schema", "diff"])
    assert r.exit_code == 0
    assert json.loads(r.stdout)["title"] == "rolloutctl Diff"


def test_yaml_output(tmp_path):
    import yaml

    svc = write(tmp_path, "svc.yaml", worker_replicas())
    r = run(svc, "--live", write(tmp_path, "l.yaml", C.live_copy(C.RS)), "-o", "yaml")
    doc = yaml.safe_load(r.stdout)
    assert doc["objects"][0]["impact"][0]["effect"] == "ignored"


def test_markdown_for_pull_requests(tmp_path):
    svc = write(tmp_path, "svc.yaml", head_image())
    r = run(svc, "--live", write(tmp_path, "l.yaml", C.live_copy(C.RS)), "-o", "markdown")
    md = r.stdout
    assert md.startswith("**Diff: 0 to add, 1 to change, 0 to remove, 0 unchanged. Effects: 1 rollout.**")
    assert "| `~` | `spec.rayClusterConfig.headGroupSpec.template.spec.containers[name=ray-head].image` |" in md
    assert "| rollout |" in md
    assert "- **rollout** `RayService default/my-svc`:" in md


def test_table_lists_disruptive_effects_after_the_summary(tmp_path):
    new = C.edit(C.PCS, lambda r: r["spec"]["template"]["cliques"][0]["spec"].update(minAvailable=1))
    svc = write(tmp_path, "pcs.yaml", new)
    r = run(svc, "--live", write(tmp_path, "l.yaml", C.live_copy(C.PCS)))
    assert r.exit_code == 1
    tail = r.stdout.split("Diff: ", 1)[1]
    assert "rejected  PodCliqueSet inference/llm: GV102" in tail


def test_secret_like_env_is_masked_in_every_format(tmp_path):
    new = C.edit(C.RS, lambda r: r["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]
                 ["env"].append({"name": "HF_TOKEN", "value": "hf_verysecret"}))
    svc = write(tmp_path, "svc.yaml", new)
    live = write(tmp_path, "l.yaml", C.live_copy(C.RS))
    for fmt in ("table", "json", "yaml", "markdown"):
        r = run(svc, "--live", live, "-o", fmt)
        assert r.exit_code == 1
        assert "hf_verysecret" not in r.stdout
        assert "HF_TOKEN" in r.stdout


def test_console_script_subprocess(tmp_path):
    svc = write(tmp_path, "svc.yaml", head_image())
    live = C.live_copy(C.RS)
    p = subprocess.run([*rolloutctl_argv(), "diff", svc, "--live", "-", "-o", "json"],
                       input=live, capture_output=True, text=True, cwd=REPO, env=rolloutctl_env({"PATH": ""}))
    assert p.returncode == 1, p.stderr
    assert json.loads(p.stdout)["objects"][0]["status"] == "changed"


def _without_last_applied(raw: dict) -> None:
    raw["metadata"]["annotations"].pop("kubectl.kubernetes.io/last-applied-configuration")


def test_an_explicitly_emptied_list_replaces_the_live_one(tmp_path):
    """``env: []`` in the manifest: an apply replaces a list whole, so the live ``env``
    is emptied, with or without a last-applied annotation (and the cluster hash changes)."""
    emptied = C.edit(C.RS, lambda r: r["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]
                     ["containers"][0].update(env=[]))
    svc = write(tmp_path, "svc.yaml", emptied)
    for live in (C.live_copy(C.RS), C.live_copy(C.RS, mutate=_without_last_applied)):
        r = run(svc, "--live", "-", "-o", "json", input=live)
        assert r.exit_code == 1, r.output
        (obj,) = json.loads(r.stdout)["objects"]
        (change,) = obj["changes"]
        assert change["path"] == "spec.rayClusterConfig.headGroupSpec.template.spec.containers[name=ray-head].env"
        assert change["new"] == [] and change["old"] == [{"name": "RAY_LOG_LEVEL", "value": "info"}]
        assert [i["effect"] for i in obj["impact"]] == ["rollout"]


def test_an_empty_mapping_merges_into_the_live_one_and_changes_nothing(tmp_path):
    """``nodeSelector: {}`` against a live one with entries and no last-applied
    annotation: a merge patch of an empty object leaves the live entries."""
    live = C.live_copy(C.edit(C.RS, lambda r: r["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]
                              .update(nodeSelector={"pool": "cpu"})), mutate=_without_last_applied)
    svc = write(tmp_path, "svc.yaml", C.edit(C.RS, lambda r: r["spec"]["rayClusterConfig"]["headGroupSpec"]
                                             ["template"]["spec"].update(nodeSelector={})))
    r = run(svc, "--live", "-", "-o", "json", input=live)
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["objects"][0]["changes"] == []


def test_inside_a_list_a_field_only_the_live_copy_has_is_removed_by_the_apply(tmp_path):
    """Client-side ``kubectl apply`` of a custom resource sends a JSON merge patch, which
    replaces a list that differs whole: a field only a live list item has goes, with or
    without a last-applied annotation. Outside lists, such a field stays unless the
    last-applied configuration has it (it was set by someone else)."""
    def extra(r: dict) -> None:
        r["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["template"]["spec"]["nodeSelector"] = {"pool": "cpu"}
        r["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["nodeSelector"] = {"pool": "head"}
        _without_last_applied(r)
    svc = write(tmp_path, "svc.yaml", C.RS)
    r = run(svc, "--live", "-", "-o", "json", input=C.live_copy(C.RS, mutate=extra))
    assert r.exit_code == 1, r.output
    (obj,) = json.loads(r.stdout)["objects"]
    assert [(c["path"], c["op"]) for c in obj["changes"]] == [
        ("spec.rayClusterConfig.workerGroupSpecs[groupName=cpu].template.spec.nodeSelector", "remove")]
    assert [i["effect"] for i in obj["impact"]] == ["rollout"]


def test_observed_and_live_name_the_same_input_in_every_command(tmp_path):
    """``--observed`` / ``--live`` give what is in the cluster now (CONTRACT.md): every
    command that reads it takes both names, with the same result."""
    new, old = str(REPO / "samples/disaggregated-inference-v2.yaml"), str(REPO / "samples/disaggregated-inference.yaml")
    for command in ("diff", "plan", "next", "lint"):
        got = [runner.invoke(app, [command, new, flag, old, "-o", "json"], env={"NO_COLOR": "1"}) for flag in ("--live", "--observed")]
        assert got[0].exit_code == got[1].exit_code and got[0].exit_code in (0, 1), (command, got[0].output)
        assert got[0].stdout == got[1].stdout and got[0].stdout.strip(), command
