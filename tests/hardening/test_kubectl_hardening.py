"""`diff --from-cluster` against a kubectl that misbehaves, and proof that
rolloutctl only ever runs `kubectl get`, as an argument list, with nothing from a
manifest that kubectl could read as an option."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st
from typer.testing import CliRunner

from rolloutctl.cli import app
from rolloutctl.load import kubectl as K
from rolloutctl.load.limits import Limits
from tests.diff_cases import RS, live_copy

runner = CliRunner()
ALLOWED_FLAGS = {"-n", "-o", "--ignore-not-found", "--context"}


def fake_kubectl(tmp_path: Path, body: str) -> Path:
    """A kubectl on PATH that logs its argv and then runs ``body`` (Python)."""
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    script = bindir / "kubectl"
    script.write_text(f"#!{sys.executable}\nimport json, os, sys, time\n"
                      f"open({str(tmp_path / 'calls.log')!r}, 'a').write(json.dumps(sys.argv[1:]) + '\\n')\n"
                      + body + "\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return bindir


def calls(tmp_path: Path) -> list[list[str]]:
    log = tmp_path / "calls.log"
    return [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []


def diff(tmp_path: Path, bindir: Path, desired_text: str, *args: str):
    p = tmp_path / "svc.yaml"
    p.write_text(desired_text)
    return runner.invoke(app, ["diff", str(p), "--from-cluster", "-o", "json", *args],
                         env={"PATH": str(bindir), "NO_COLOR": "1"}), str(p)


def _write(data: bytes) -> str:
    return f"sys.stdout.buffer.write({data!r}); sys.stdout.flush()"


def _bomb() -> bytes:
    lines = ["apiVersion: v1", "kind: List", "a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for i, name in enumerate("bcdefg"):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{'abcdefg'[i]}"] * 10) + "]")
    return ("\n".join(lines) + "\nitems: []\n").encode()


FAILURES = [
    ("absent", None, ["kubectl not found on PATH"]),
    ("non-zero-exit", "sys.stderr.write('error: You must be logged in to the server (Unauthorized)\\n'); sys.exit(1)",
     ["failed (exit code 1)", "Unauthorized"]),
    ("forbidden", "sys.stderr.write('Error from server (Forbidden): rayservices.ray.io \"my-svc\" is forbidden: '"
                  "'User \"dev\" cannot get resource\\n'); sys.exit(1)", ["refused by the cluster's RBAC"]),
    ("timeout", "time.sleep(30)", ["did not finish within 1 second "]),
    ("killed-by-a-signal", "import signal; os.kill(os.getpid(), signal.SIGKILL)", ["failed (exit code -9)"]),
    ("unparsable", _write(b"apiVersion: v1\nkind: [\n"), ["could not read the output", "YAML syntax error"]),
    ("not-an-object", _write(b"- just\n- a list\n"), ["could not read the output", "document is a list"]),
    ("not-utf8", _write(b"apiVersion: v1\nkind: List\nitems: []\nx: \xff\xfe\n"), ["is not UTF-8 text"]),
    ("alias-bomb", _write(_bomb()), ["could not read the output", "aliases expand to more than"]),
    ("multi-line-noise", "sys.stderr.write('E1130 memcache.go:265] \\x1b[31mboom\\x1b[0m\\nsecond\\nthird\\n'); sys.exit(1)",
     ["third"]),
    ("klog-lines-only", "sys.stderr.write('E1130 10:00:01.5   42 memcache.go:265] \\x1b[31mboom\\x1b[0m\\n'); sys.exit(1)",
     ["failed (exit code 1): boom"]),
    # what kubectl prints when no cluster answers: five klog lines, then the sentence for a person
    ("unreachable", "sys.stderr.write(('E1207 11:40:12.002864   20192 memcache.go:265] \"Unhandled Error\" '"
                    "'err=\"couldn\\'t get current server API group list\"\\n') * 5 + 'The connection to the server '"
                    "'localhost:8080 was refused - did you specify the right host or port?\\n'); sys.exit(1)",
     ["failed (exit code 1): The connection to the server localhost:8080 was refused"]),
]


@pytest.mark.parametrize("case, body, fragments", FAILURES, ids=[f[0] for f in FAILURES])
def test_kubectl_failure_is_one_line_exit_3_and_no_stdout(tmp_path, case, body, fragments):
    if body is None:
        bindir = tmp_path / "empty-bin"
        bindir.mkdir()
    else:
        bindir = fake_kubectl(tmp_path, body)
    r, _ = diff(tmp_path, bindir, RS, "--kubectl-timeout", "1")
    assert r.exit_code == 3, (r.exit_code, r.stdout, r.stderr)
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("rolloutctl: "), lines
    assert "Traceback" not in r.stderr and "\x1b" not in r.stderr
    for f in fragments:
        assert f in lines[0], (f, lines[0])


def test_kubectl_output_larger_than_the_input_limit_is_refused(tmp_path):
    bindir = fake_kubectl(tmp_path, _write(live_copy(RS).encode() + b"#" * 5000 + b"\n"))
    r, _ = diff(tmp_path, bindir, RS, "--max-input-bytes", "4000")
    assert r.exit_code == 3 and r.stdout == ""
    assert "is larger than 4000 bytes" in r.stderr and "--max-input-bytes" in r.stderr


def test_a_live_object_of_the_wrong_shape_is_an_input_error_not_a_crash(tmp_path):
    bad = live_copy(RS, mutate=lambda o: o["spec"].__setitem__("rayClusterConfig", "oops"))
    bindir = fake_kubectl(tmp_path, _write(bad.encode()))
    r, _ = diff(tmp_path, bindir, RS)
    assert r.exit_code == 2 and r.stdout == ""
    [line] = r.stderr.splitlines()
    assert line.startswith("kubectl get rayservices.ray.io my-svc") and "SC003: spec.rayClusterConfig" in line


@pytest.mark.parametrize("field, value", [("name", "--server=http://127.0.0.1:9"), ("name", "-oyaml"),
                                          ("namespace", "--kubeconfig=/tmp/evil"), ("name", "My_Svc")])
def test_manifest_names_never_reach_kubectl_as_options(tmp_path, field, value):
    """A pull request that names its RayService "--server=https://attacker" must not
    make CI's kubectl talk to (and authenticate against) another server."""
    bindir = fake_kubectl(tmp_path, _write(b""))
    text = RS.replace("name: my-svc", f"name: {json.dumps(value)}", 1) if field == "name" else \
        RS.replace("metadata:\n", f"metadata:\n  namespace: {json.dumps(value)}\n", 1)
    r, path = diff(tmp_path, bindir, text)
    assert calls(tmp_path) == []
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.startswith(f"{path}:") and f"metadata.{field}:" in r.stderr


names = st.one_of(
    st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=0, max_size=30),
    st.sampled_from(["--server=https://attacker.example", "-n", "-oyaml", "--kubeconfig=/tmp/x", "--", "-", ""]),
    st.text(alphabet="-=a.", min_size=1, max_size=8))
dns = st.from_regex(r"\A[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?\Z")


@settings(max_examples=80, deadline=None)
@given(targets=st.lists(st.tuples(st.sampled_from([("ray.io", "RayService"), ("grove.io", "PodCliqueSet")]),
                                  st.one_of(names, dns), st.one_of(names, dns)), max_size=4),
       prune=st.booleans(), context=st.one_of(st.none(), names, dns))
def test_only_get_and_no_option_from_a_manifest_for_any_names(targets, prune, context):
    ts = [K.Target(g, k, ns, n) for (g, k), ns, n in targets]
    try:
        cmds = K.commands(ts, prune=prune, context=context)
    except K.KubectlError:
        return
    for args in cmds:
        assert args[:2] == ["kubectl", "get"]
        flags = [a for a in args[3:] if a.startswith("-")]
        assert set(flags) <= ALLOWED_FLAGS, flags
        # every flag that takes a value is followed by one that is not a flag
        for i, a in enumerate(args):
            if a in ("-n", "-o", "--context"):
                assert not args[i + 1].startswith("-")


@settings(max_examples=40, deadline=None)
@given(targets=st.lists(st.tuples(st.sampled_from([("ray.io", "RayService"), ("grove.io", "PodCliqueSet")]),
                                  dns, dns), min_size=1, max_size=4),
       prune=st.booleans(), context=st.one_of(st.none(), dns), code=st.sampled_from([0, 1]))
def test_fetch_runs_get_as_an_argument_list_without_a_shell(targets, prune, context, code):
    seen = []

    def spy(args, **kw):
        seen.append((args, kw))
        return subprocess.CompletedProcess(args, code, stdout="", stderr="" if code == 0 else "boom")

    ts = [K.Target(g, k, ns, n) for (g, k), ns, n in targets]
    try:
        K.fetch(ts, prune=prune, context=context, limits=Limits(), run=spy)
    except K.KubectlError:
        assert code == 1
    assert seen
    for args, kw in seen:
        assert isinstance(args, list) and all(isinstance(a, str) for a in args)
        assert args[1] == "get" and kw.get("shell") is False
        assert kw.get("stdin") == subprocess.DEVNULL and kw.get("timeout")


@pytest.mark.parametrize("given, seconds", [("2", "2 seconds"), ("1.5", "1.5 seconds"), ("2s", "2 seconds"),
                                            ("1500ms", "1.5 seconds")])
def test_kubectl_timeout_takes_seconds_or_a_duration_as_kubectl_does(tmp_path, given, seconds):
    bindir = fake_kubectl(tmp_path, "time.sleep(30)")
    r, _ = diff(tmp_path, bindir, RS, "--kubectl-timeout", given)
    assert r.exit_code == 3, (r.exit_code, r.stdout, r.stderr)
    assert f"did not finish within {seconds} " in r.stderr, r.stderr


@pytest.mark.parametrize("given, message", [("5x", "is neither seconds (e.g. 30) nor a duration"),
                                            ("0.5", "is less than 1 second"), ("900ms", "is less than 1 second"),
                                            ("nan", "is not a number of seconds")])
def test_a_kubectl_timeout_that_is_no_duration_is_a_usage_error(tmp_path, given, message):
    bindir = fake_kubectl(tmp_path, "sys.exit(0)")
    r, _ = diff(tmp_path, bindir, RS, "--kubectl-timeout", given)
    assert r.exit_code == 2, (r.exit_code, r.stdout, r.stderr)
    assert "--kubectl-timeout" in r.stderr and message in r.stderr, r.stderr
