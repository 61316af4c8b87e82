"""Determinism across runs, input order and PYTHONHASHSEED (real subprocesses), and
how the process behaves at its edges: a closed output pipe, no partial output."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO, rolloutctl_argv, rolloutctl_env, write
from tests.hardening.helpers import PCS_SAMPLE, mutated

SEEDS = ("0", "1", "31337")


def _rolloutctl(*args: str, seed: str = "0") -> subprocess.CompletedProcess:
    env = rolloutctl_env(PYTHONHASHSEED=seed)
    env.pop("ROLLOUTCTL_DEBUG", None)
    return subprocess.run([*rolloutctl_argv(), *args], cwd=REPO, capture_output=True, env=env,
                          timeout=300)


@pytest.fixture
def scenario(tmp_path):
    """Two PodCliqueSets in a directory (a PlanList), one of them already running."""
    a = write(tmp_path, "desired/a.yaml", PCS_SAMPLE.read_text())
    b = write(tmp_path, "desired/sub/b.yaml", mutated(lambda d: (d["metadata"].__setitem__("name", "beta"),
                                                                 d["spec"].__setitem__("replicas", 2))))
    return tmp_path, a, b


@pytest.mark.parametrize("args", [
    ["plan", "{dir}/desired", "--observed", "{a}", "-o", "json"],
    ["next", "{dir}/desired", "--capacity", "nvidia.com/gpu=30", "-o", "json"],
    ["plan", "{dir}/desired", "--capacity", "nvidia.com/gpu=30", "-o", "table", "--no-color"],
], ids=["plan-json", "next-json-stuck", "plan-table"])
def test_byte_identical_across_hash_seeds(scenario, args):
    d, a, _b = scenario
    argv = [x.format(dir=d, a=a) for x in args]
    runs = [_rolloutctl(*argv, seed=s) for s in SEEDS]
    assert all(r.returncode in (0, 1) for r in runs), [r.stderr for r in runs]
    assert len({r.stdout for r in runs}) == 1
    assert len(runs[0].stdout) > 1000


def test_the_order_of_inputs_does_not_change_the_output(cli, scenario):
    _d, a, b = scenario
    one = cli("plan", a, b, "-o", "json", "--capacity", "nvidia.com/gpu=50")
    two = cli("plan", b, a, "-o", "json", "--capacity", "nvidia.com/gpu=50")
    assert one.exit_code in (0, 1) and one.stdout == two.stdout
    assert '"kind": "PlanList"' in one.stdout


def test_a_closed_output_pipe_ends_quietly(cli, monkeypatch):
    """`rolloutctl plan … | head -c 10`: the reader went away; no traceback, no
    complaint on stderr, a non-zero code. (Simulated: some sandboxes never raise
    EPIPE on a real pipe.)"""
    from rolloutctl import cli as cli_module

    def closed(_text):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(cli_module, "emit", closed)
    r = cli("plan", str(PCS_SAMPLE), "-o", "json")
    assert r.exit_code == 3 and r.stderr == ""


def test_an_internal_error_is_one_line_and_leaves_stdout_empty(cli, monkeypatch):
    """Whatever breaks inside, a script reading stdout sees nothing, and the user one line."""
    from rolloutctl import render

    def broken(*_a, **_k):
        raise ValueError("renderer broke\nsecond line")

    monkeypatch.setattr(render, "render_plans", broken)
    r = cli("plan", str(PCS_SAMPLE), "-o", "json")
    assert r.exit_code == 3 and r.stdout == ""
    assert r.stderr.splitlines() == [
        "rolloutctl: internal error: ValueError: renderer broke\\nsecond line (set ROLLOUTCTL_DEBUG=1 for a traceback)"]


def test_a_recursion_error_inside_is_reported_not_dumped(cli, monkeypatch):
    from rolloutctl.commands import plan as usecases

    def deep(*_a, **_k):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(usecases, "plan", deep)
    r = cli("plan", str(PCS_SAMPLE))
    assert r.exit_code == 3 and r.stdout == "" and len(r.stderr.splitlines()) == 1


@pytest.mark.parametrize("args", [
    ["lint", "{dir}/desired", "{bad}", "-o", "json"],
    ["lint", "{dir}/desired", "-o", "sarif"],
    ["diff", "{dir}/desired", "--live", "{a}", "--prune", "-o", "json"],
    ["plan", "{b}", "--observed", "{a}", "--compare", "-o", "json"],
], ids=["lint-json", "lint-sarif", "diff-json", "plan-compare"])
def test_lint_diff_and_compare_are_byte_identical_across_hash_seeds(scenario, args):
    d, a, b = scenario
    bad = write(d, "bad.yaml", mutated(lambda x: (x["spec"].__setitem__("replicas", "2"),
                                                  x["spec"]["template"].__setitem__("cliqueStartupType", "Nope"))))
    old_b = write(d, "old-b.yaml", open(b).read().replace("frontend:1.4.0", "frontend:1.3.0"))
    argv = [x.format(dir=d, a=a, b=b, bad=bad) for x in args]
    if args[0] == "plan":
        argv[argv.index(a)] = old_b
    runs = [_rolloutctl(*argv, seed=s) for s in SEEDS[:2]]
    assert all(r.returncode in (0, 1) for r in runs), [r.stderr for r in runs]
    assert runs[0].stdout == runs[1].stdout and len(runs[0].stdout) > 200


def _templated(doc: dict) -> None:
    """Every container's requests left as envsubst placeholders."""
    for c in doc["spec"]["template"]["cliques"]:
        for k in c["spec"]["podSpec"]["containers"]:
            k.setdefault("resources", {})["requests"] = {"cpu": "${CPU}", "memory": "${MEMORY}"}


def test_lint_with_the_manifest_as_its_own_live_state_is_byte_identical_across_hash_seeds(tmp_path):
    """`lint --live x.yaml x.yaml`: each schema error is found in the desired object (with
    its column) and in the live one (without): pairs of findings that tie on file, line,
    rule, path and message, which came out in the hash seed's order."""
    f = write(tmp_path, "pcs.yaml", mutated(_templated))
    runs = [_rolloutctl("lint", "--live", str(f), "-o", "json", str(f), seed=s) for s in SEEDS]
    assert all(r.returncode == 1 for r in runs), [r.stderr for r in runs]
    assert len({r.stdout for r in runs}) == 1
    assert runs[0].stdout.count(b'"SC003"') >= 8
