"""On a small workload, plan every candidate of the grid the issue defines (each budget
0..replicas, both 0 excluded; RollingRecreate's maxUnavailable unset or 1..replicas)
independently of the search, and check that nothing better than the advice exists."""

from __future__ import annotations

import itertools

import pytest

from rolloutctl.core.quantity import parse_quantity
from tests.advise.helpers import advise, patched, replan
from tests.advise.small import small_pair


def _patches():
    """(strategy, proposed, fields set, patch) for the whole grid, built by hand."""
    for r, m in itertools.product([None, 1, 2], [None, 1, 2]):
        cl = [{"name": "router", "rollingUpdate": None if r is None else {"maxUnavailable": r}}]
        gr = [{"name": "model", "rollingUpdate": None if m is None else {"maxUnavailable": m}}]
        yield "RollingRecreate", False, (r is not None) + (m is not None), \
            {"spec": {"updateStrategy": {"type": "RollingRecreate"}, "template": {"cliques": cl, "podCliqueScalingGroups": gr}}}
    pairs = [(u, s) for u in range(3) for s in range(3) if (u, s) != (0, 0)]
    for (ru, rs), (mu, ms) in itertools.product(pairs, pairs):
        cl = [{"name": "router", "updateStrategy": {"maxUnavailable": ru, "maxSurge": rs}}]
        gr = [{"name": "model", "updateStrategy": {"maxUnavailable": mu, "maxSurge": ms}}]
        n = 1 + (ru != 1) + (rs != 0) + (mu != 1) + (ms != 0)
        yield "RollingUpdate", True, n, \
            {"spec": {"updateStrategy": {"type": "RollingUpdate"}, "template": {"cliques": cl, "podCliqueScalingGroups": gr}}}
    for u, s in [(0, 1), (1, 0), (1, 1)]:
        yield "ReplicaRecreate", True, 1 + (u != 1) + (s != 0), \
            {"spec": {"updateStrategy": {"type": "ReplicaRecreate", "rollingUpdate": {"maxUnavailable": u, "maxSurge": s}}}}


def _gpu(plan) -> int:
    return parse_quantity(plan.summary["peak"].get("nvidia.com/gpu", "0"))


@pytest.mark.parametrize("capacity,objective,min_ready", [
    ((), "steps", None),
    (("nvidia.com/gpu=5",), "steps", None),
    ((), "peak", "4"),
])
def test_nothing_in_the_full_grid_beats_the_advice(tmp_path, capacity, objective, min_ready):
    new, old = small_pair(tmp_path)
    a = advise(new, old, capacity=capacity, objective=objective, min_ready=min_ready)
    assert sum(g.size for g in a.grid) == 76
    assert a.optimal, "the small grid fits the default budget: the search is exact"
    assert all(g.planned + g.pruned == g.size for g in a.grid)
    best = None
    feasible = 0
    for i, (strategy, proposed, n, patch) in enumerate(_patches()):
        plan, watch, _ = replan(patched(new, patch, tmp_path, f"c{i}.yaml"), old, capacity, check=False)
        assert plan.strategy == strategy
        ok = plan.outcome in ("converged", "noop")
        ok = ok and (plan.summary["minReadyPods"] >= int(min_ready) if min_ready else not watch.breached)
        if not ok:
            continue
        feasible += 1
        m = {"steps": plan.summary["steps"], "peak": _gpu(plan)}
        key = (m[objective], *(v for k, v in m.items() if k != objective), proposed, n)
        best = key if best is None or key < best else best
    r = a.recommendation
    if best is None:
        assert r is None
        return
    assert r is not None and feasible > 0
    m = {"steps": r.steps, "peak": parse_quantity(r.peak.get("nvidia.com/gpu", "0"))}
    got = (m[objective], *(v for k, v in m.items() if k != objective), r.proposed, r.complexity)
    assert got == best
