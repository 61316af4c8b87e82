"""The layout of the Kueue kind (``kinds/kueue/``): one module per Kueue Go file, each
naming the file it models and the commit its function names were checked at, and no
module over ~600 lines. (That they are plain functions is tests/test_rule_modules.py's
check; the pass state lives in ``context.KueuePass``.)"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import rolloutctl.kinds.kueue as kueue

PKG = Path(kueue.__file__).parent
KUEUE_COMMIT = "ff69552e79ad21652c36caa97038382e55625cf7"
#: module -> the Kueue Go file it models
CONTROLLERS = {
    "reconciler": "pkg/controller/jobframework/reconciler.go",
    "workloadslicing": "pkg/workloadslicing/workloadslicing.go",
    "scheduler": "pkg/scheduler/scheduler.go",
    "preemption": "pkg/scheduler/preemption/preemption.go",
    "rayservice_webhook": "pkg/controller/jobs/rayservice/rayservice_webhook.go",
    "raycluster_webhook": "pkg/controller/jobs/raycluster/raycluster_webhook.go",
    "rayservice_controller": "pkg/controller/jobs/rayservice/rayservice_controller.go",
    "elastic_job_ungater": "pkg/controller/elasticjobs/elastic_job_ungater.go",
}


@pytest.mark.parametrize("name", sorted(CONTROLLERS))
def test_controller_module_names_its_go_file_and_commit(name):
    doc = ast.get_docstring(ast.parse((PKG / f"{name}.py").read_text())) or ""
    assert CONTROLLERS[name] in doc and KUEUE_COMMIT in doc


@pytest.mark.parametrize("path", sorted(PKG.glob("*.py")), ids=lambda p: p.name)
def test_no_module_over_600_lines(path):
    assert len(path.read_text().splitlines()) <= 600
