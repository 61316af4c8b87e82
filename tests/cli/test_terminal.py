"""Terminal conventions: colour flags and variables, shell completion, output to a
stdout that cannot take it, help examples that stay copyable, known KubeRay versions."""

from __future__ import annotations

import os
import subprocess

import pytest
import typer.main
from typer.testing import CliRunner

from rolloutctl import cli as C
from tests.conftest import REPO, SAMPLES, rolloutctl_argv, rolloutctl_env

PCS = str(SAMPLES / "disaggregated-inference.yaml")
RS = str(SAMPLES / "rayservice-text-ml.yaml")
ESC = "\x1b["


def _run(*args: str, timeout: float = 300, **env: str) -> subprocess.CompletedProcess:
    e = rolloutctl_env(**env)
    for k in ("NO_COLOR", "FORCE_COLOR", "ROLLOUTCTL_DEBUG"):
        if k not in env:
            e.pop(k, None)
    return subprocess.run([*rolloutctl_argv(), *args], capture_output=True, text=True, env=e, cwd=REPO,
                          timeout=timeout)


# ----------------------------------------------------------------------------- colour

@pytest.mark.parametrize("env, flags, colored", [
    ({}, [], False),  # not a terminal
    ({}, ["--color", "always"], True),
    ({"FORCE_COLOR": "1"}, [], True),
    ({"FORCE_COLOR": "0"}, [], False),
    ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, [], False),  # NO_COLOR wins over FORCE_COLOR
    ({"NO_COLOR": "1"}, ["--color", "always"], True),  # an explicit flag wins over the environment
    ({"FORCE_COLOR": "1"}, ["--color", "never"], False),
    ({"FORCE_COLOR": "1"}, ["--no-color"], False),
    ({"TERM": "dumb"}, ["--color", "always"], True),
])
@pytest.mark.parametrize("command", [["plan", PCS], ["lint", PCS, str(SAMPLES / "rayservice-text-ml.yaml")]])
def test_colour_flags_and_environment(command, env, flags, colored):
    r = CliRunner().invoke(C.app, [*command, *flags], env={"NO_COLOR": None, "FORCE_COLOR": None, **env})
    assert r.exit_code == 0, r.output
    assert (ESC in r.stdout) is colored, r.stdout[:200]


def test_term_dumb_and_no_color_on_a_terminal(monkeypatch):
    monkeypatch.setattr(C.sys.stdout, "isatty", lambda: True, raising=False)
    for k in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(k, raising=False)
    assert C.use_color(False, "auto") is True
    monkeypatch.setenv("TERM", "dumb")
    assert C.use_color(False, "auto") is False
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("NO_COLOR", "1")
    assert C.use_color(False, "auto") is False


def test_unknown_colour_mode_is_a_usage_error():
    r = CliRunner().invoke(C.app, ["plan", PCS, "--color", "sometimes"])
    assert r.exit_code == 2


# ----------------------------------------------------------------------------- output that cannot be written

def test_a_stdout_that_is_not_utf8_is_one_clear_line():
    p = _run("plan", PCS, PYTHONIOENCODING="latin-1")
    assert p.returncode == 3 and p.stdout == ""
    [line] = p.stderr.splitlines()
    assert line.startswith("rolloutctl: standard output is") and "UTF-8" in line and "internal error" not in line


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
@pytest.mark.parametrize("args", [["plan", PCS], ["plan", PCS, "-o", "json"], ["lint", PCS], ["rules"], ["--help"],
                                  ["plan", "--help"], ["completion", "bash"]])
def test_a_full_stdout_is_one_clear_line(args):
    with open("/dev/full", "w") as full:
        e = rolloutctl_env()
        p = subprocess.run([*rolloutctl_argv(), *args], stdout=full, stderr=subprocess.PIPE, text=True, env=e,
                           cwd=REPO, timeout=300)
    assert p.returncode == 3, p.stderr
    assert p.stderr.splitlines() == ["rolloutctl: cannot write to standard output: No space left on device"]


# ----------------------------------------------------------------------------- --kuberay-version

@pytest.mark.parametrize("command", [["plan", RS], ["next", RS], ["diff", RS, "--live", RS]])
def test_unknown_kuberay_version_is_refused_with_the_known_ones(cli, command):
    r = cli(*command, "--kuberay-version", "1.3.0")
    assert r.exit_code == 2 and r.stdout == ""
    [line] = r.stderr.splitlines()
    assert "--kuberay-version '1.3.0' is not a KubeRay version" in line and "did you mean v1.3.0?" in line
    assert "nightly" in line and "v1.7.0" in line
    assert cli(*command, "--kuberay-version", "v1.3.0", "-o", "json").exit_code in (0, 1)


# ----------------------------------------------------------------------------- shell completion

@pytest.mark.parametrize("shell, marker", [("bash", "complete -o default -F _rolloutctl_completion rolloutctl"),
                                           ("zsh", "#compdef rolloutctl"),
                                           ("fish", "complete --command rolloutctl")])
def test_completion_script_for_each_shell(cli, shell, marker):
    r = cli("completion", shell)
    assert r.exit_code == 0 and marker in r.stdout and C.COMPLETE_VAR in r.stdout


def test_completion_of_an_unknown_shell_is_a_usage_error(cli):
    assert cli("completion", "tcsh").exit_code == 2


@pytest.mark.parametrize("env, expected", [
    ({"_ROLLOUTCTL_COMPLETE": "complete_bash", "COMP_WORDS": "rolloutctl pl", "COMP_CWORD": "1"}, ["plan"]),
    ({"_ROLLOUTCTL_COMPLETE": "complete_bash", "COMP_WORDS": "rolloutctl plan --kueue ", "COMP_CWORD": "3"},
     ["top-level", "nested", "legacy"]),
    ({"_ROLLOUTCTL_COMPLETE": "complete_fish", "_TYPER_COMPLETE_ARGS": "rolloutctl completion ",
      "_TYPER_COMPLETE_FISH_ACTION": "get-args"}, ["bash", "zsh", "fish"]),
])
def test_the_installed_script_answers_completions(env, expected):
    p = _run(**env)
    assert p.returncode == 0, p.stderr
    assert [ln.split("\t")[0] for ln in p.stdout.splitlines() if ln] == expected


def _imported(*args: str) -> set[str]:
    p = subprocess.run([*rolloutctl_argv("-X", "importtime"), *args], capture_output=True, text=True,
                       env=rolloutctl_env(), cwd=REPO, timeout=300)
    assert p.returncode == 0, p.stderr
    return {line.split("|")[-1].strip().split(".")[0] for line in p.stderr.splitlines() if "|" in line}


def test_completion_stays_lazy():
    heavy = {"rich", "jsonschema", "deepdiff", "yaml"}
    assert not _imported("completion", "bash") & heavy
    assert not _imported("--help") & heavy


# ----------------------------------------------------------------------------- help examples

def _example_blocks():
    group = typer.main.get_command(C.app)
    for name, cmd in sorted(group.commands.items()):
        help_text = cmd.help or ""
        if "Example" in help_text:
            yield name, help_text


@pytest.mark.parametrize("columns", ["60", "200"])
def test_help_examples_are_never_rewrapped(columns):
    """Every command's examples print one per line, whole, at any terminal width (write
    them with ``cli.examples(...)``: click re-wraps any other paragraph)."""
    runner = CliRunner()
    checked = 0
    for name, help_text in _example_blocks():
        assert "Examples:\n\n\b\n" in help_text, f"{name}: write its examples with cli.examples(...)"
        block = help_text.split("Examples:\n\n\b\n", 1)[1].split("\n\n", 1)[0]
        commands = [ln.strip() for ln in block.splitlines() if ln.strip()]
        r = runner.invoke(C.app, [name, "--help"], env={"COLUMNS": columns}, terminal_width=int(columns))
        assert r.exit_code == 0
        lines = [ln.strip() for ln in r.stdout.splitlines()]
        for c in commands:
            assert c in lines, (name, columns, c)
            checked += 1
    assert checked >= 10
