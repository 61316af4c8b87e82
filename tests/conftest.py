from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
UPSTREAM = SHARED / "upstream"
SAMPLES = REPO / "samples"


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
