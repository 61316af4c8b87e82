"""The monotonicity the advise search prunes with, verified on the models.

The issue's two properties, under unlimited capacity: more surge never lowers peak
use; more unavailability never raises min-ready. And the two pruning rules exactly as
``advise/search.py`` applies them, in capacity-limited environments too:

- (U) a candidate that breaks the floor (the kind's default floor, or --min-ready N)
  makes a candidate with one more unit of unavailability (same other fields) fail;
- (S) a candidate stuck on InsufficientCapacity makes a candidate with one more unit
  of surge (same other fields) fail.
"""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rolloutctl import app
from rolloutctl.advise.search import Floor, Search
from rolloutctl.core.advice import SURGE, UNAVAILABLE
from rolloutctl.core.quantity import parse_quantity


def _pod(image: str, gpu: bool) -> dict:
    res = {"requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "1"}} if gpu else {"requests": {"cpu": "1"}}
    return {"containers": [{"name": "c", "image": image, "resources": res}]}


@st.composite
def workloads(draw):
    reps = draw(st.integers(1, 2))
    c_reps = draw(st.integers(1, 3))
    cliques = [{"name": "front", "spec": {"roleName": "front", "replicas": c_reps,
                                          "minAvailable": draw(st.integers(1, c_reps)),
                                          "podSpec": _pod("img:1", draw(st.booleans()))}}]
    groups = []
    if draw(st.booleans()):
        g_reps = draw(st.integers(1, 2))
        cliques.append({"name": "lead", "spec": {"roleName": "lead", "replicas": 1, "podSpec": _pod("img:1", True)}})
        groups.append({"name": "model", "cliqueNames": ["lead"], "replicas": g_reps,
                       "minAvailable": draw(st.integers(1, g_reps))})
    old = {"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet", "metadata": {"name": "w", "namespace": "default"},
           "spec": {"replicas": reps, "template": {"cliques": cliques, **({"podCliqueScalingGroups": groups} if groups else {})}}}
    new = copy.deepcopy(old)
    for c in new["spec"]["template"]["cliques"]:
        c["spec"]["podSpec"]["containers"][0]["image"] = "img:2"
    return old, new


def _searches(tmp: Path, old: dict, new: dict, capacity: tuple[str, ...], floor: Floor) -> tuple[Search, object]:
    (tmp / "old.yaml").write_text(yaml.safe_dump(old))
    (tmp / "new.yaml").write_text(yaml.safe_dump(new))
    paths = [str(tmp / "new.yaml")]
    opts = app.PlanOptions(observed=(str(tmp / "old.yaml"),), capacity=capacity)
    env = app.environment(opts)
    desired, observed = app.checked_inputs(paths, opts)
    obj = app.targets(desired, paths)[0]
    search = Search(lambda: app._plan_model(obj, opts, desired, observed), obj, app._related(obj, observed),
                    app._previous(obj, observed), env, floor, "steps")
    return search, obj


def _pair(data, spaces, role):
    """A candidate of the grid and the same with one more unit of ``role`` in one
    dimension (both allowed), or None when the grid has no such pair."""
    from rolloutctl.advise.search import _grid

    pairs = []
    for space in spaces:
        for vals in _grid(space):
            for d in space.dimensions:
                v = vals[d.key]
                if d.role != role or v is None or v == d.values[-1]:
                    continue
                more = {**vals, d.key: d.values[d.values.index(v) + 1]}
                if space.allowed(more):
                    pairs.append((space, vals, more))
    return data.draw(st.sampled_from(pairs)) if pairs else None


def _plan(search, space, values):
    return search.plan(space, values, space.build(values))


def _gpu(c) -> int:
    return parse_quantity(c.peak.get("nvidia.com/gpu", "0"))


SETTINGS = settings(max_examples=30, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@SETTINGS
@given(w=workloads(), extra=st.integers(0, 3), data=st.data())
def test_more_surge_never_lowers_peak_and_capacity_pruning_holds(w, extra, data):
    old, new = w
    with tempfile.TemporaryDirectory() as d:
        free, obj = _searches(Path(d), old, new, (), Floor("default", None))
        pair = _pair(data, free.make_model().advice_spaces(obj, free.old), SURGE)
        if pair is None:
            return
        space, less, more = pair
        a, b = _plan(free, space, less).cand, _plan(free, space, more).cand
        assert _gpu(b) >= _gpu(a)
        assert b.peak_pods >= a.peak_pods
        used = _gpu(_plan(free, space, less).cand) // 1000
        cap = (f"nvidia.com/gpu={max(0, used - 2) + extra}",)
        tight, _ = _searches(Path(d), old, new, cap, Floor("default", None))
        ea = _plan(tight, space, less)
        if ea.stuck_reason == "InsufficientCapacity":
            assert not _plan(tight, space, more).cand.feasible


@SETTINGS
@given(w=workloads(), extra=st.integers(0, 3), n=st.integers(0, 6), data=st.data())
def test_more_unavailability_never_raises_min_ready_and_floor_pruning_holds(w, extra, n, data):
    old, new = w
    with tempfile.TemporaryDirectory() as d:
        free, obj = _searches(Path(d), old, new, (), Floor("default", None))
        pair = _pair(data, free.make_model().advice_spaces(obj, free.old), UNAVAILABLE)
        if pair is None:
            return
        space, less, more = pair
        ea, eb = _plan(free, space, less), _plan(free, space, more)
        assert eb.cand.min_ready_pods <= ea.cand.min_ready_pods
        if ea.breached:
            assert not eb.cand.feasible
        used = _gpu(ea.cand) // 1000
        for floor in (Floor("default", None), Floor(n, n)):
            tight, _ = _searches(Path(d), old, new, (f"nvidia.com/gpu={used + extra}",), floor)
            ta = _plan(tight, space, less)
            if ta.breached:
                assert not _plan(tight, space, more).cand.feasible


def _incremental_pair() -> tuple[dict, dict]:
    from tests.advise.helpers import RS_NEW, RS_OLD

    out = []
    for p in (RS_OLD, RS_NEW):
        raw = yaml.safe_load(Path(p).read_text())
        raw["spec"]["rayClusterConfig"]["enableInTreeAutoscaling"] = True
        raw["spec"]["upgradeStrategy"] = {"type": "NewClusterWithIncrementalUpgrade", "clusterUpgradeOptions": {
            "gatewayClassName": "istio", "stepSizePercent": 25, "maxSurgePercent": 50, "intervalSeconds": 30}}
        out.append(raw)
    return out[0], out[1]


@settings(max_examples=8, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(cpu=st.integers(14, 32), data=st.data())
def test_rayservice_more_surge_never_lowers_peak_and_capacity_pruning_holds(cpu, data):
    old, new = _incremental_pair()
    with tempfile.TemporaryDirectory() as d:
        free, obj = _searches(Path(d), old, new, (), Floor("default", None))
        pair = _pair(data, free.make_model().advice_spaces(obj, free.old), SURGE)
        assert pair is not None
        space, less, more = pair
        a, b = _plan(free, space, less).cand, _plan(free, space, more).cand
        assert parse_quantity(b.peak.get("cpu", "0")) >= parse_quantity(a.peak.get("cpu", "0"))
        tight, _ = _searches(Path(d), old, new, (f"cpu={cpu}",), Floor("default", None))
        if _plan(tight, space, less).stuck_reason == "InsufficientCapacity":
            assert not _plan(tight, space, more).cand.feasible
