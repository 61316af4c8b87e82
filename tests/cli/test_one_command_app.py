"""``rolloutctl NAME ...`` runs an app holding only command NAME (start-up: typer builds
every registered command on each run). What a user sees must be the same as with the
whole app: a command's help, its usage errors, a mistyped command's suggestion, the
root options."""

from __future__ import annotations

import subprocess

import pytest
from typer.testing import CliRunner

from rolloutctl import cli
from tests.conftest import REPO, SAMPLES, rolloutctl_argv, rolloutctl_env

NAMES = [c.name for c in cli.app.registered_commands]


def _both(args: list[str]):
    runner = CliRunner()
    whole = runner.invoke(cli.app, args, prog_name="rolloutctl")
    one = runner.invoke(cli._app_for(args), args, prog_name="rolloutctl")
    return whole, one


@pytest.mark.parametrize("name", NAMES)
def test_a_commands_help_and_usage_errors_are_the_same(name):
    for args in ([name, "--help"], [name, "--no-such-option"]):
        whole, one = _both(args)
        assert (one.exit_code, one.output) == (whole.exit_code, whole.output), args


def test_only_an_exact_command_name_takes_the_short_path():
    assert cli._app_for(["plan", "x.yaml"]) is not cli.app
    assert [c.name for c in cli._app_for(["plan"]).registered_commands] == ["plan"]
    for args in ([], ["--help"], ["--version"], ["plam"], ["Plan"]):
        assert cli._app_for(args) is cli.app, args
    assert len(cli.app.registered_commands) == len(NAMES)  # the whole app is left as it was


def test_as_users_run_it():
    """Through the installed entry point: a plan runs, a mistyped command is suggested."""
    env = rolloutctl_env()
    ok = subprocess.run([*rolloutctl_argv(), "plan", str(SAMPLES / "rayservice-text-ml.yaml"), "-o", "json"],
                        cwd=REPO, env=env, capture_output=True, text=True)
    assert ok.returncode == 0 and '"kind": "Plan"' in ok.stdout
    typo = subprocess.run([*rolloutctl_argv(), "plam"], cwd=REPO, env=env, capture_output=True, text=True)
    assert typo.returncode == 2 and "No such command 'plam'" in typo.stderr
