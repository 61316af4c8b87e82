from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings
from typer.testing import CliRunner

#: no per-example time limit: Hypothesis's default deadline (200 ms) is a timing assertion, and
#: on a loaded 2-core machine a test fails with DeadlineExceeded for no fault of the code. The
#: benchmarks in bench/ measure speed; a test asserts behaviour only.
settings.register_profile("rolloutctl", deadline=None)
settings.load_profile("rolloutctl")

#: a CI service sets CI, which makes long commands write heartbeat lines on standard error
#: (render/progress.py); the tests that assert a command's standard error run without it
#: (tests/cli/test_progress.py sets it where it tests the heartbeat)
os.environ.pop("CI", None)

REPO = Path(__file__).resolve().parent.parent
#: ../shared beside the repository; ROLLOUTCTL_SHARED names another place (a worktree
#: whose parent holds no shared/); tests that need it skip when it is absent
SHARED = Path(os.environ.get("ROLLOUTCTL_SHARED") or REPO.parent / "shared")
UPSTREAM = SHARED / "upstream"
SAMPLES = REPO / "samples"

#: .ci/run sets this: the suite runs against the wheel installed (not editable) in a fresh
#: venv, started with ``python -P`` so the checkout is not on sys.path. The tests still read
#: their data from the checkout, and import each other as ``tests.…``: the checkout is
#: appended to sys.path, after site-packages, so ``import rolloutctl`` finds the installed
#: package first (tests/test_packaging.py checks that it does).
INSTALLED = os.environ.get("ROLLOUTCTL_TEST_INSTALLED") == "1"
if str(REPO) not in sys.path:
    sys.path.append(str(REPO))


def rolloutctl_argv(*python_options: str) -> list[str]:
    """``python -m rolloutctl`` for a subprocess, importing the same rolloutctl as this
    test run: the installed one under .ci/run (``-P``: not the current directory), the
    checkout otherwise. Use with ``rolloutctl_env``."""
    return [sys.executable, *python_options, *(["-P"] if INSTALLED else []), "-m", "rolloutctl"]


def rolloutctl_env(base: dict | None = None, **extra: str) -> dict:
    """The environment for ``rolloutctl_argv``: PYTHONPATH is the checkout, except under
    .ci/run, where the installed package must be the one imported."""
    env = dict(os.environ if base is None else base, **extra)
    if INSTALLED:
        env.pop("PYTHONPATH", None)
    else:
        env["PYTHONPATH"] = str(REPO)
    return env


@pytest.fixture(autouse=True)
def _no_step_summary(monkeypatch):
    """Tests never append to a real GitHub Actions job summary (tests that check the
    summary set their own file)."""
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


@pytest.fixture
def upstream() -> Path:
    if not UPSTREAM.is_dir():
        pytest.skip("../shared/upstream is not present")
    return UPSTREAM


class Result:
    def __init__(self, r) -> None:
        self.exit_code = r.exit_code
        self.stdout = r.stdout
        self.stderr = r.stderr
        self.exception = r.exception

    def json(self):
        return json.loads(self.stdout)


@pytest.fixture
def cli():
    """Run the CLI in-process: ``cli("plan", "x.yaml", input=...)``."""
    from rolloutctl.cli import app

    runner = CliRunner()

    def run(*args: str, input: str | None = None, env: dict | None = None) -> Result:
        r = runner.invoke(app, list(args), input=input, env=env, catch_exceptions=False)
        return Result(r)

    return run


def write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return str(p)


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden/*.txt from the current renderers (review the diff by eye)")
