"""The upstream Grove e2e workloads (``../shared/upstream/grove/samples``), shared by
the update tests; a test that needs one skips when ``../shared`` is absent."""

from __future__ import annotations

import copy

import pytest
import yaml

from tests.conftest import UPSTREAM

SAMPLES = UPSTREAM / "grove" / "samples"


def upstream_sample(name: str) -> dict:
    p = SAMPLES / name
    if not p.exists():
        pytest.skip("upstream samples not available")
    return yaml.safe_load(p.read_text())


def workload1() -> dict:
    return upstream_sample("workload1.yaml")


def with_image(pcs: dict, clique: str, image: str) -> dict:
    """``pcs`` with the first container of ``clique`` on ``image``."""
    out = copy.deepcopy(pcs)
    for c in out["spec"]["template"]["cliques"]:
        if c["name"] == clique:
            c["spec"]["podSpec"]["containers"][0]["image"] = image
    return out
