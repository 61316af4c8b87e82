"""``--from-cluster``: the user's kubectl, read-only, argument lists only.

A fake ``kubectl`` script on PATH records its arguments and answers like kubectl;
a monkeypatched ``subprocess.run`` proves that only ``get`` is ever run, as an
argument list, without a shell."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rolloutctl.cli import app
from rolloutctl.load import kubectl as K

import diff_cases as C

runner = CliRunner()


def fake_kubectl(tmp_path: Path, *, stdout: str = "", stderr: str = "", code: int = 0, sleep: float = 0) -> Path:
    """A kubectl on PATH that logs its argv (JSON, one line per call) and answers."""
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    (tmp_path / "out.txt").write_text(stdout)
    (tmp_path / "err.txt").write_text(stderr)
    script = bindir / "kubectl"
    script.write_text(f"""#!{sys.executable}
import json, sys, time
with open({str(tmp_path / 'calls.log')!r}, 'a') as f:
    f.write(json.dumps(sys.argv[1:]) + "\\n")
time.sleep({sleep})
sys.stdout.write(open({str(tmp_path / 'out.txt')!r}).read())
sys.stderr.write(open({str(tmp_path / 'err.txt')!r}).read())
sys.exit({code})
""")
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return bindir


def calls(tmp_path: Path) -> list[list[str]]:
    log = tmp_path / "calls.log"
    return [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []


def run(tmp_path: Path, bindir: Path | None, *args: str):
    path = str(bindir) if bindir else str(tmp_path / "empty")
    return runner.invoke(app, ["diff", *args], env={"PATH": path, "NO_COLOR": "1"})


def desired(tmp_path: Path, text: str = C.RS) -> str:
    p = tmp_path / "svc.yaml"
    p.write_text(text)
    return str(p)


# --------------------------------------------------------------------------- what is run


def test_one_get_per_resource_and_namespace_naming_the_objects():
    targets = [K.Target("ray.io", "RayService", "b", "svc2"), K.Target("ray.io", "RayService", "a", "svc1"),
               K.Target("ray.io", "RayService", "a", "svc0"), K.Target("grove.io", "PodCliqueSet", "a", "llm")]
    assert K.commands(targets, context="prod") == [
        ["kubectl", "get", "podcliquesets.grove.io", "llm", "-n", "a", "-o", "yaml", "--ignore-not-found",
         "--context", "prod"],
        ["kubectl", "get", "rayservices.ray.io", "svc0", "svc1", "-n", "a", "-o", "yaml", "--ignore-not-found",
         "--context", "prod"],
        ["kubectl", "get", "rayservices.ray.io", "svc2", "-n", "b", "-o", "yaml", "--ignore-not-found",
         "--context", "prod"],
    ]


def test_prune_lists_every_object_of_the_kind_in_the_namespace():
    [cmd] = K.commands([K.Target("ray.io", "RayService", "a", "svc")], prune=True)
    assert cmd == ["kubectl", "get", "rayservices.ray.io", "-n", "a", "-o", "yaml", "--ignore-not-found"]


def test_subprocess_gets_an_argument_list_no_shell_and_only_get(tmp_path, monkeypatch):
    """kubectl is started with ``subprocess.Popen`` (its output is read as it streams);
    the spy records what would run and starts a stand-in that prints the live object."""
    seen = []
    real_popen = subprocess.Popen
    (tmp_path / "live.yaml").write_text(C.live_copy(C.RS))

    def spy(args, **kw):
        seen.append((args, kw))
        return real_popen([sys.executable, "-c", f"import sys; sys.stdout.write(open({str(tmp_path / 'live.yaml')!r}).read())"],
                          **kw)

    monkeypatch.setattr(subprocess, "Popen", spy)
    r = run(tmp_path, None, desired(tmp_path), "--from-cluster", "--context", "ctx", "-n", "default")
    assert r.exit_code == 0, r.output
    assert seen
    for args, kw in seen:
        assert isinstance(args, list) and all(isinstance(a, str) for a in args)
        assert kw.get("shell") is False and kw.get("stdin") == subprocess.DEVNULL
        verbs = {a for a in args[1:2]}
        assert verbs <= {"get"}
        assert "--context" in args and args[args.index("--context") + 1] == "ctx"


def test_run_get_refuses_any_other_verb():
    with pytest.raises(K.KubectlError):
        K.run_get(["kubectl", "delete", "rayservice", "x"], run=lambda *a, **k: pytest.fail("must not run"))


# --------------------------------------------------------------------------- through a fake kubectl on PATH


def test_from_cluster_reads_the_live_objects_and_diffs_clean(tmp_path):
    bindir = fake_kubectl(tmp_path, stdout=C.live_copy(C.RS, as_list=True))
    r = run(tmp_path, bindir, desired(tmp_path), "--from-cluster", "-n", "default", "-o", "json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["summary"]["unchanged"] == 1
    assert calls(tmp_path) == [["get", "rayservices.ray.io", "my-svc", "-n", "default", "-o", "yaml",
                                "--ignore-not-found"]]


def test_from_cluster_reports_differences(tmp_path):
    bindir = fake_kubectl(tmp_path, stdout=C.live_copy(C.RS))
    new = C.edit(C.RS, lambda r: r["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]
                 ["containers"][0].update(image="rayproject/ray:2.53.0"))
    r = run(tmp_path, bindir, desired(tmp_path, new), "--from-cluster", "--context", "prod")
    assert r.exit_code == 1, r.output
    assert "[rollout]" in r.stdout
    assert calls(tmp_path)[0][-2:] == ["--context", "prod"]


def test_object_missing_in_the_cluster_is_added(tmp_path):
    bindir = fake_kubectl(tmp_path, stdout="")
    r = run(tmp_path, bindir, desired(tmp_path), "--from-cluster", "-o", "json")
    assert r.exit_code == 1, r.output
    assert json.loads(r.stdout)["objects"][0]["status"] == "added"


def test_kubectl_missing_exits_3_with_a_clear_message(tmp_path):
    (tmp_path / "empty").mkdir()
    r = run(tmp_path, None, desired(tmp_path), "--from-cluster")
    assert r.exit_code == 3
    assert "kubectl not found on PATH" in r.stderr and "--live" in r.stderr
    assert "Traceback" not in r.output


def test_kubectl_missing_for_the_capacity_names_the_capacity_option(tmp_path):
    (tmp_path / "empty").mkdir()
    r = runner.invoke(app, ["plan", desired(tmp_path), "--capacity", "from-cluster"],
                      env={"PATH": str(tmp_path / "empty"), "NO_COLOR": "1"})
    assert r.exit_code == 3
    assert "kubectl not found on PATH" in r.stderr and "--capacity RESOURCE=QUANTITY" in r.stderr
    assert "--live" not in r.stderr


def test_a_file_named_twice_is_read_once(tmp_path):
    """A path given twice (or a file and the directory holding it) is one file, not a
    duplicate object."""
    p = desired(tmp_path)
    for args in ([p, p], [p, str(tmp_path)]):
        r = runner.invoke(app, ["plan", *args, "-o", "json"], env={"NO_COLOR": "1"})
        assert r.exit_code == 0, r.stderr
        assert json.loads(r.stdout)["kind"] == "Plan"


def test_kubectl_failure_exits_3_with_its_message(tmp_path):
    bindir = fake_kubectl(tmp_path, stderr="error: context \"nope\" does not exist\n", code=1)
    r = run(tmp_path, bindir, desired(tmp_path), "--from-cluster", "--context", "nope")
    assert r.exit_code == 3
    assert 'context "nope" does not exist' in r.stderr and "exit code 1" in r.stderr


def test_rbac_forbidden_exits_3_and_says_so(tmp_path):
    msg = ('Error from server (Forbidden): rayservices.ray.io "my-svc" is forbidden: User "dev" cannot get '
           'resource "rayservices" in API group "ray.io" in the namespace "default"\n')
    bindir = fake_kubectl(tmp_path, stderr=msg, code=1)
    r = run(tmp_path, bindir, desired(tmp_path), "--from-cluster")
    assert r.exit_code == 3
    assert "RBAC" in r.stderr and "kubectl auth can-i get rayservices.ray.io" in r.stderr


def test_kubectl_timeout_exits_3(tmp_path):
    bindir = fake_kubectl(tmp_path, sleep=5)
    r = run(tmp_path, bindir, desired(tmp_path), "--from-cluster", "--kubectl-timeout", "1")
    assert r.exit_code == 3
    assert "did not finish within 1 second " in r.stderr


def test_unparsable_kubectl_output_exits_3(tmp_path):
    bindir = fake_kubectl(tmp_path, stdout="apiVersion: v1\nkind: [unclosed\n")
    r = run(tmp_path, bindir, desired(tmp_path), "--from-cluster")
    assert r.exit_code == 3
    assert "could not read the output" in r.stderr
