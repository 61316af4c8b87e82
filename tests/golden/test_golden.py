"""Golden files for the human-facing renderers (table, markdown, lint text/github).

Regenerate with ``python -m pytest tests/golden --update-golden`` and review the diff
by eye before committing: these files are what users read.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REPO

GOLDEN = Path(__file__).resolve().parent

CASES = {
    "plan-create-table": ["plan", "samples/disaggregated-inference.yaml", "--no-color"],
    "plan-stuck-table": ["plan", "samples/disaggregated-inference.yaml", "--capacity", "nvidia.com/gpu=16", "--no-color"],
    "plan-update-markdown": ["plan", "samples/disaggregated-inference-v2.yaml", "--observed",
                             "samples/disaggregated-inference.yaml", "-o", "markdown"],
    "plan-rayservice-table": ["plan", "samples/rayservice-text-ml-new-image.yaml", "--observed",
                              "samples/rayservice-text-ml.yaml", "--no-color"],
    "next-rayservice-table": ["next", "samples/rayservice-text-ml-new-image.yaml", "--observed",
                              "samples/rayservice-text-ml.yaml", "--no-color"],
    "compare-table": ["plan", "samples/disaggregated-inference-v2.yaml", "--observed",
                      "samples/disaggregated-inference.yaml", "--compare", "--no-color"],
    "compare-markdown": ["plan", "samples/disaggregated-inference-v2.yaml", "--observed",
                         "samples/disaggregated-inference.yaml", "--compare", "-o", "markdown"],
    "diff-table": ["diff", "samples/rayservice-text-ml-new-image.yaml", "--live", "samples/rayservice-text-ml.yaml",
                   "--no-color"],
    "diff-markdown": ["diff", "samples/disaggregated-inference-v2.yaml", "--live",
                      "samples/disaggregated-inference.yaml", "-o", "markdown"],
    "lint-text": ["lint", "tests/golden/inputs/lint-findings.yaml", "-o", "text"],
    "lint-github": ["lint", "tests/golden/inputs/lint-findings.yaml", "-o", "github"],
    "lint-markdown": ["lint", "tests/golden/inputs/lint-findings.yaml", "-o", "markdown"],
    "rules-list": ["rules"],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name, cli, monkeypatch, request):
    monkeypatch.chdir(REPO)
    r = cli(*CASES[name], env={"NO_COLOR": "1", "GITHUB_ACTIONS": "", "COLUMNS": "100"})
    assert r.stderr == "", r.stderr
    out = f"$ rolloutctl {' '.join(CASES[name])}\n# exit {r.exit_code}\n{r.stdout}"
    path = GOLDEN / f"{name}.txt"
    if request.config.getoption("--update-golden"):
        path.write_text(out)
    assert path.exists(), f"missing golden file {path.name}: run with --update-golden"
    assert out == path.read_text(), f"{path.name} differs: review, then run with --update-golden"


#: the same renderers at 80 columns (a narrow terminal; table_width() gives the
#: renderers the terminal's width, so these are what such a user reads)
NARROW = {
    "plan-fleet-80": ["plan", "tests/golden/inputs/fleet-new.json", "--observed", "tests/golden/inputs/fleet-old.json"],
    "plan-rayservice-steps-80": ["plan", "samples/rayservice-text-ml-new-image.yaml", "--observed",
                                 "samples/rayservice-text-ml.yaml", "--steps"],
    "compare-80": ["plan", "samples/disaggregated-inference-v2.yaml", "--observed",
                   "samples/disaggregated-inference.yaml", "--capacity", "nvidia.com/gpu=16", "--compare"],
}


@pytest.mark.parametrize("name", sorted(NARROW))
def test_golden_80_columns(name, cli, monkeypatch, request):
    import rolloutctl.cli as C

    monkeypatch.chdir(REPO)
    monkeypatch.setattr(C, "table_width", lambda: 80)
    r = cli(*NARROW[name], "--no-color", env={"NO_COLOR": "1", "GITHUB_ACTIONS": ""})
    assert r.stderr == "", r.stderr
    assert max(len(line) for line in r.stdout.splitlines()) <= 80
    out = f"$ COLUMNS=80 rolloutctl {' '.join(NARROW[name])} --no-color   # on an 80-column terminal\n# exit {r.exit_code}\n{r.stdout}"
    path = GOLDEN / f"{name}.txt"
    if request.config.getoption("--update-golden"):
        path.write_text(out)
    assert path.exists(), f"missing golden file {path.name}: run with --update-golden"
    assert out == path.read_text(), f"{path.name} differs: review, then run with --update-golden"
