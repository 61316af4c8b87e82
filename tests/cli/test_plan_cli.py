"""`rolloutctl plan` / `next` as a user runs them: formats, exit codes, errors."""

from __future__ import annotations

import json
import subprocess
import sys

import jsonschema
import pytest

from rolloutctl.schemas_access import schema
from tests.conftest import REPO, SAMPLES, rolloutctl_argv, rolloutctl_env, write

SAMPLE = str(SAMPLES / "disaggregated-inference.yaml")


def validate_plan(doc):
    jsonschema.Draft202012Validator(schema("plan")).validate(doc)


def test_plan_json_validates_and_lists_upstream_names(cli):
    r = cli("plan", SAMPLE, "-o", "json")
    assert r.exit_code == 0, r.stderr
    doc = r.json()
    validate_plan(doc)
    assert doc["outcome"] == "converged" and doc["strategy"] == "RollingRecreate"
    names = {(a["kind"], a["name"]) for s in doc["steps"] for a in s["actions"]}
    assert ("PodGang", "llm-0") in names and ("PodGang", "llm-0-prefill-0") in names
    assert ("PodClique", "llm-0-decode-1-dworker") in names
    assert doc["summary"]["peak"]["nvidia.com/gpu"] == "40"


def test_json_is_byte_identical_across_runs(cli):
    a = cli("plan", SAMPLE, "-o", "json").stdout
    b = cli("plan", SAMPLE, "-o", "json").stdout
    assert a == b


def test_determinism_across_hash_seeds(tmp_path):
    outs = set()
    for seed in ("0", "1", "4242"):
        env = rolloutctl_env(PYTHONHASHSEED=seed)
        p = subprocess.run([*rolloutctl_argv(), "plan", SAMPLE, "-o", "json"], cwd=REPO,
                           capture_output=True, env=env)
        assert p.returncode == 0, p.stderr
        outs.add(p.stdout)
    assert len(outs) == 1


def test_stuck_exits_1_and_says_why(cli):
    r = cli("plan", SAMPLE, "--capacity", "nvidia.com/gpu=16", "-o", "json")
    assert r.exit_code == 1
    doc = r.json()
    validate_plan(doc)
    assert doc["outcome"] == "stuck" and doc["stuck"]["reason"] == "InsufficientCapacity"
    assert {"kind": "PodGang", "name": "llm-0", "namespace": "inference",
            "apiVersion": "scheduler.grove.io/v1alpha1"} in doc["stuck"]["blockedOn"]


def test_noop_with_previous_manifest(cli):
    r = cli("plan", SAMPLE, "--observed", SAMPLE, "-o", "json")
    assert r.exit_code == 0
    doc = r.json()
    assert doc["outcome"] == "noop" and doc["steps"] == []


def test_next_shows_one_step_and_the_whole_plans_outcome(cli):
    r = cli("next", SAMPLE, "-o", "json")
    doc = r.json()
    validate_plan(doc)
    assert len(doc["steps"]) == 1 and doc["outcome"] == "converged"
    assert doc["steps"][0]["actions"][0]["verb"] == "create"


def test_stdin_and_yaml_and_markdown(cli):
    text = open(SAMPLE).read()
    r = cli("plan", "-", "-o", "yaml", input=text)
    assert r.exit_code == 0 and "kind: Plan" in r.stdout
    md = cli("plan", SAMPLE, "-o", "markdown").stdout
    assert md.startswith("### PodCliqueSet inference/llm") and "| Step |" in md


def test_table_is_plain_without_colour_and_fits_100_columns(cli):
    r = cli("plan", SAMPLE, "--no-color")
    assert r.exit_code == 0
    assert "\x1b[" not in r.stdout
    assert "PodCliqueSet inference/llm · strategy RollingRecreate · converges in" in r.stdout
    assert max(len(line) for line in r.stdout.splitlines()) <= 100


def test_no_color_environment_variable(cli):
    r = cli("plan", SAMPLE, env={"NO_COLOR": "1"})
    assert "\x1b[" not in r.stdout


@pytest.mark.parametrize("args, message", [
    (["plan", "missing.yaml"], "missing.yaml:0: no such file or directory"),
    (["plan", SAMPLE, "--capacity", "gpu"], "--capacity 'gpu': expected RESOURCE=QUANTITY"),
    (["plan", SAMPLE, "--capacity", "gpu=lots"], "not a Kubernetes quantity"),
])
def test_bad_input_exits_2_with_one_line_and_no_stdout(cli, args, message):
    r = cli(*args)
    assert r.exit_code == 2
    assert r.stdout == ""
    assert message in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("fmt", ["json", "sarif", "github"])
def test_lint_input_errors_are_also_lines_on_standard_error(cli, tmp_path, fmt):
    """A machine-format lint report carries the input error as a finding (IN001, exit 2);
    standard error has it too, one line, so a CI log that keeps the report in a file shows it."""
    bad = write(tmp_path, "bad.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [\n")
    r = cli("lint", bad, "missing.yaml", "-o", fmt)
    assert r.exit_code == 2
    lines = r.stderr.strip().splitlines()
    assert "missing.yaml:0: no such file or directory" in lines, lines
    assert any(line.startswith(f"{bad}:") and "YAML syntax error" in line for line in lines), lines
    assert "IN001" in r.stdout
    assert cli("lint", "missing.yaml").stderr == ""  # text: the report on standard output says it once


def test_a_live_object_given_as_the_manifest_is_named(cli, tmp_path):
    """kubectl get output given as the desired manifest, with nothing observed: planned as
    new, and the plan says what it looks like and how to plan against it instead."""
    import yaml

    doc = next(d for d in yaml.safe_load_all(open(SAMPLE)) if d and d.get("kind") == "PodCliqueSet")
    doc["metadata"].update(uid="1234", resourceVersion="77")
    doc["status"] = {"replicas": 1}
    live = write(tmp_path, "live.yaml", yaml.safe_dump(doc))
    r = cli("plan", live, "-o", "json")
    (w,) = [w for w in r.json()["warnings"] if w["code"] == "DesiredIsLiveObject"]
    assert "status, metadata.uid, metadata.resourceVersion" in w["message"] and "--observed" in w["message"]
    assert "DesiredIsLiveObject" not in cli("plan", SAMPLE, "-o", "json").stdout
    assert "DesiredIsLiveObject" not in cli("plan", SAMPLE, "--observed", live, "-o", "json").stdout


def test_file_without_modelled_objects(cli, tmp_path):
    p = write(tmp_path, "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    r = cli("plan", p)
    assert r.exit_code == 2 and "no RayService (ray.io/v1, ray.io/v1alpha1) or PodCliqueSet (grove.io/v1alpha1) found" in r.stderr


def test_duplicate_desired_objects(cli, tmp_path):
    text = open(SAMPLE).read()
    p = write(tmp_path, "dup.yaml", text + "\n---\n" + text)
    r = cli("plan", p)
    assert r.exit_code == 2 and "duplicate PodCliqueSet inference/llm" in r.stderr


def test_yaml_error_names_file_and_line(cli, tmp_path):
    p = write(tmp_path, "bad.yaml", "apiVersion: grove.io/v1alpha1\nkind: PodCliqueSet\nmetadata:\n  name: [\n")
    r = cli("plan", p)
    assert r.exit_code == 2 and r.stderr.startswith(f"{p}:") and "YAML syntax error" in r.stderr


def test_schema_command(cli):
    r = cli("schema", "plan")
    assert r.exit_code == 0 and json.loads(r.stdout)["title"].startswith("rolloutctl Plan")
    assert cli("schema", "nope").exit_code == 2


def test_installed_console_script_help_is_fast_to_import():
    """`rolloutctl --help` imports nothing heavy (rich, jsonschema, deepdiff, yaml)."""
    p = subprocess.run([*rolloutctl_argv("-X", "importtime"), "--help"], cwd=REPO,
                       capture_output=True, text=True, env=rolloutctl_env())
    assert p.returncode == 0 and "Usage" in p.stdout
    imported = {line.split("|")[-1].strip().split(".")[0] for line in p.stderr.splitlines() if "|" in line}
    assert not imported & {"rich", "jsonschema", "deepdiff", "yaml"}


def test_a_rayservice_plan_imports_only_what_it_uses():
    """The bundled RayService rollout (whose manifests set no field a CRD's CEL rule sits
    on) plans without importing the CEL evaluators, the table renderer, the reference
    validator, the diff library or the glob module."""
    p = subprocess.run([*rolloutctl_argv("-X", "importtime"), "plan", "samples/rayservice-text-ml-new-image.yaml",
                        "--observed", "samples/rayservice-text-ml.yaml", "-o", "json"], cwd=REPO,
                       capture_output=True, text=True, env=rolloutctl_env())
    assert p.returncode == 0 and json.loads(p.stdout)["kind"] == "Plan"
    imported = {line.split("|")[-1].strip() for line in p.stderr.splitlines() if "|" in line}
    tops = {m.split(".")[0] for m in imported}
    assert "rolloutctl.admit.cel" in imported and "yaml" in tops  # (it did import, and read YAML)
    assert not imported & {"rolloutctl.admit.cel_core", "glob"}
    assert not tops & {"celpy", "rich", "jsonschema", "deepdiff"}


def test_the_process_leaves_with_every_byte_written_and_its_exit_code(tmp_path):
    """The CLI process ends without the interpreter's teardown: what it wrote to a pipe
    still arrives whole, and the exit code is the command's (0 converged, 2 bad input
    with its one-line message, 0 for --help)."""
    argv, env = rolloutctl_argv(), rolloutctl_env()
    ok = subprocess.run([*argv, "plan", "samples/rayservice-text-ml-new-image.yaml", "--observed",
                         "samples/rayservice-text-ml.yaml", "-o", "json"], cwd=REPO, capture_output=True, env=env)
    assert ok.returncode == 0 and json.loads(ok.stdout)["outcome"] == "converged" and ok.stdout.endswith(b"}\n")
    bad = write(tmp_path, "bad.yaml", "apiVersion: ray.io/v1\nkind: RayService\nmetadata: {name: x}\nspec: [\n")
    refused = subprocess.run([*argv, "plan", str(bad)], cwd=REPO, capture_output=True, text=True, env=env)
    assert refused.returncode == 2 and refused.stderr.startswith(f"{bad}:") and refused.stdout == ""
    helped = subprocess.run([*argv, "--help"], cwd=REPO, capture_output=True, text=True, env=env)
    assert helped.returncode == 0 and helped.stdout.startswith("Usage") and helped.stdout.endswith("\n")


def test_a_command_process_compiles_pyyaml_and_json_patterns_only_when_used():
    """PyYAML and json compile patterns at import that a command never uses (PyYAML's
    pure-Python reader, about 9 ms, its implicit resolvers and timestamp constructor, json's
    pure-Python decoder and scanner: manifests and Serve configs are read as Go reads them); a
    command's process (``launch._command_process``) compiles them at first use, and
    they still do what they did: the pure reader refuses what it refused, the resolvers
    resolve, json reads and writes."""
    code = (
        "import re, yaml, sys\n"
        "assert isinstance(yaml.reader.Reader.NON_PRINTABLE, re.Pattern)\n"
    )
    plain = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert plain.returncode == 0, plain.stderr  # imported as a library: PyYAML's own patterns
    code = (
        "from rolloutctl.launch import _command_process\n"
        "_command_process()\n"
        "_command_process()\n"  # (twice: still one layer)
        "import re, yaml, json\n"
        "from rolloutctl.load.files import load_paths\n"
        "r = yaml.reader.Reader\n"
        "resolvers = [rx for rs in yaml.resolver.Resolver.yaml_implicit_resolvers.values() for _t, rx in rs]\n"
        "deferred = [r.NON_PRINTABLE, yaml.constructor.SafeConstructor.timestamp_regexp,\n"
        "            json.scanner.NUMBER_RE, json.encoder.ESCAPE, json.encoder.HAS_UTF8, json.decoder.STRINGCHUNK,\n"
        "            *resolvers]\n"
        "assert type(json.decoder.WHITESPACE).__name__ == 'DeferredPattern'\n"  # (bound at import: compiled at use)
        "assert all(type(p).__name__ == 'DeferredPattern' for p in deferred), [type(p) for p in deferred]\n"
        "assert isinstance(re.compile('a+'), re.Pattern)\n"  # elsewhere: compiled as ever
        "objs = load_paths(['samples/rayservice-text-ml.yaml']).objects\n"
        "from rolloutctl.kinds.kuberay.spec import serve_app_names\n"  # a Serve config is read as Go reads it
        "assert serve_app_names(objs[0].spec['serveConfigV2']) == ['classify', 'summarize']\n"
        "assert json.loads('[1.5e3, \"\\\\u00e9\"]') == [1500.0, '\\u00e9'] and json.dumps('\\n') == '\"\\\\n\"'\n"
        "assert all(p._compiled is None for p in deferred), [p._source for p in deferred if p._compiled]\n"
        "assert yaml.safe_load('a: [yes, 1_0, 2001-12-14, x]') == {'a': [True, 10, __import__('datetime').date(2001, 12, 14), 'x']}\n"
        "try:\n"
        "    yaml.load('a: \\x07', Loader=yaml.SafeLoader)\n"
        "    raise SystemExit('accepted')\n"
        "except yaml.reader.ReaderError as e:\n"
        "    assert '#x0007' in str(e)\n"
        "assert yaml.load('a: \\u00e9', Loader=yaml.SafeLoader) == {'a': '\\u00e9'}\n"
    )
    deferred = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert deferred.returncode == 0, deferred.stderr


def test_next_names_what_the_whole_plan_does_in_a_sentence(cli):
    """``next``'s headline: the next pass of a plan that converges, has nothing to do, or
    gets stuck."""
    settled = cli("next", str(SAMPLES / "rayservice-text-ml.yaml"), "--observed", str(SAMPLES / "rayservice-text-ml.yaml"))
    assert "next pass of a plan that has nothing to do" in settled.stdout, settled.stdout
    stuck = cli("next", str(SAMPLES / "rayservice-text-ml-new-image.yaml"), "--observed",
                str(SAMPLES / "rayservice-text-ml.yaml"), "--never-ready", "*")
    assert "next pass of a plan that gets STUCK after" in stuck.stdout, stuck.stdout
