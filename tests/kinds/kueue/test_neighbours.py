"""Observed RayServices of the planned one's ClusterQueue whose Workloads the input lacks
(neighbours, ``neighbours.neighbour_workloads``): each is settled in input order and its
admitted Workloads hold their quota (clusterqueue.go ``updateWorkloadUsage``).

The scenario (``_scenario``): a ClusterQueue of 500m and 640Mi; nine neighbours of 100m
and 128Mi (bench/workloads.py ``kueue_neighbours(9, 4, mixed=True)``): svc-0000, -0006
in namespace default, svc-0001, -0007 in namespace team-b (another LocalQueue of the same
ClusterQueue), svc-0002, -0008 under another ClusterQueue, svc-0003 suspended, svc-0004
with its Workload in the input, svc-0005 of WorkloadPriorityClass high (100); live
Workloads holding quota: a batch Job's (200m), svc-0004's (100m), an evicted Job's
(300m) and two of RayClusters the input does not have (100m each, in default and
team-b). The target asks for 100m.

What the model does with it (``EXPECTED``; reasoned from the rules, and the same as the
JSON plans in data/neighbours/, which the model wrote at caeebd4, before a settling read
the earlier neighbours' Workloads through the usage they hold, and were reviewed):

- every settling releases the evicted Job's Workload (``_release_foreign``) and deletes
  the orphaned RayCluster's Workload of its namespace (``finalizeWorkloads``);
- svc-0000 fits (batch 200m + svc-0004 100m + team-b orphan 100m + 100m = 500m); then
  the quota is spent: svc-0001 (team-b: the default orphan still holds), svc-0005,
  svc-0006 and svc-0007 stay pending and hold nothing; svc-0002/-0008 (another
  ClusterQueue), svc-0003 (suspended) and svc-0004 (its Workload given) are not settled;
- where the ClusterQueue preempts (LowerPriority), svc-0005 (priority 100) preempts
  svc-0000's Workload, the most recently admitted candidate, in its own settling, and
  holds its quota; svc-0000's keeps its reservation in the plan's world (a settling's
  preemptions stay in it);
- legacy: a neighbour's Workloads are owned by its RayCluster, which the settled world
  does not keep, so a later settling in its namespace, and the target's plan, delete
  them (finalizeWorkloads): svc-0005 and svc-0006 fit after svc-0000, and the target fits.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from bench.workloads import _admitted_workload, kueue_neighbours
from rolloutctl.core.environment import Environment
from rolloutctl.core.model import Obj
from rolloutctl.core.world import World
from rolloutctl.kinds.kueue.clusterqueue import usage
from rolloutctl.kinds.kueue.context import MEM_HELD_USAGE
from rolloutctl.kinds.kueue.model import KueueRayServiceModel
from rolloutctl.kinds.kueue.neighbours import neighbour_workloads
from rolloutctl.kinds.kueue.workload import owner_of, quota_reserved

DATA = Path(__file__).parent / "data" / "neighbours"
MODELS = ("top-level", "nested", "legacy")
PREEMPTION = {"never": None, "preempting": "LowerPriority"}

#: (ClusterQueue preemption, model) -> (the neighbours whose settled Workloads hold quota
#: in the target's world, the plan's outcome, the stuck reason)
EXPECTED = {
    ("never", "top-level"): ({"svc-0000"}, "stuck", "InsufficientQuota"),
    ("never", "nested"): ({"svc-0000"}, "stuck", "InsufficientQuota"),
    ("never", "legacy"): ({"svc-0000", "svc-0005", "svc-0006"}, "converged", None),
    ("preempting", "top-level"): ({"svc-0000", "svc-0005"}, "stuck", "InsufficientQuota"),
    ("preempting", "nested"): ({"svc-0000", "svc-0005"}, "stuck", "InsufficientQuota"),
    ("preempting", "legacy"): ({"svc-0000", "svc-0005", "svc-0006"}, "converged", None),
}


def _evicted(w: dict) -> dict:
    w = copy.deepcopy(w)
    w["status"]["conditions"].append({"type": "Evicted", "status": "True", "reason": "Preempted", "message": "x",
                                      "lastTransitionTime": "2025-01-01T00:00:00Z"})
    return w


def _scenario(preemption: str | None) -> tuple[dict, list[dict], list[dict]]:
    target, queues, neighbours = kueue_neighbours(9, 4, mixed=True, preemption=preemption)
    queues += [
        _evicted(_admitted_workload("job-ev-xyz", "default", ("Job", "ev"), "user-queue", "cluster-queue", "300m",
                                    "128Mi")),
        _admitted_workload("raycluster-orphan-abc-xyz", "default", ("RayCluster", "orphan-abc"), "user-queue",
                           "cluster-queue", "100m", "128Mi"),
        _admitted_workload("raycluster-orphan2-abc-xyz", "team-b", ("RayCluster", "orphan2-abc"), "team-queue",
                           "cluster-queue", "100m", "128Mi")]
    return target, queues, neighbours


def _files(tmp_path: Path, preemption: str | None) -> tuple[str, str, str]:
    target, queues, neighbours = _scenario(preemption)
    paths = (tmp_path / "t.yaml", tmp_path / "q.yaml", tmp_path / "n.yaml")
    paths[0].write_text(yaml.safe_dump(target))
    paths[1].write_text(yaml.safe_dump_all(queues))
    paths[2].write_text(yaml.safe_dump_all(neighbours))
    return str(paths[0]), str(paths[1]), str(paths[2])


@pytest.mark.parametrize("case", sorted(EXPECTED), ids=lambda c: f"{c[0]}-{c[1]}")
def test_a_plan_with_neighbours_is_the_plan_the_model_made_before(cli, tmp_path, case):
    """The JSON plan, byte for byte, as the model wrote it before the settlings read the
    earlier neighbours through their usage (data/neighbours/, from caeebd4)."""
    pre, model = case
    t, q, n = _files(tmp_path, PREEMPTION[pre])
    r = cli("plan", "--kueue", model, t, "--observed", q, "--observed", n, "-o", "json")
    assert r.stdout == (DATA / f"{pre}-{model}.json").read_text()
    _holding, outcome, reason = EXPECTED[case]
    p = json.loads(r.stdout)
    assert (p["outcome"], (p.get("stuck") or {}).get("reason")) == (outcome, reason)


@pytest.mark.parametrize("case", sorted(EXPECTED), ids=lambda c: f"{c[0]}-{c[1]}")
def test_the_neighbours_that_hold_quota(case):
    """Which settled neighbours' Workloads the target's world holds (reasoned in the
    module docstring)."""
    pre, model = case
    target, queues, neighbours = _scenario(PREEMPTION[pre])
    objs = [Obj(d, "q.yaml", 1) for d in queues]
    m = KueueRayServiceModel(model, observed_queues=objs, neighbours=[Obj(d, "n.yaml", 1) for d in neighbours])
    world = m.observe(Obj(target, "t.yaml", 1), [], Environment())
    held = {(owner_of(w) or ("", ""))[1] for w in world.of_kind("Workload") if w.file != "q.yaml"}
    # legacy Workloads are owned by the RayCluster: <service>-<random>
    assert {h if h.startswith("svc-") and h.count("-") == 1 else h.rsplit("-", 1)[0] for h in held} == EXPECTED[case][0]
    assert all(quota_reserved(w) for w in world.of_kind("Workload") if w.file != "q.yaml")


@pytest.mark.parametrize("model", MODELS)
def test_a_settling_is_given_only_what_it_reads_one_by_one(model):
    """The settlings of N neighbours of one namespace under a ClusterQueue that does not
    preempt are given the same objects whatever N (the queues), and the earlier
    neighbours' quota as usage: N settlings of one, not of up to N. Under legacy their
    Workloads are owned by RayClusters the settling's world lacks, which its first pass
    deletes (finalizeWorkloads): they count for nothing there."""
    for n in (1, 4, 8):
        target, queues, neighbours = kueue_neighbours(n)
        qobs = {(o.kind, o.namespace, o.name): o for o in (Obj(d, "q.yaml", 1) for d in queues)}
        m = KueueRayServiceModel(model, observed_queues=list(qobs.values()))
        sizes, helds = [], []

        def settle(rs, given, held):
            sizes.append(len(given))
            helds.append(dict((held or {}).get("cluster-queue", {})))
            return m._settled(rs, given, Environment(), held)

        got = neighbour_workloads(Obj(target, "t.yaml", 1), [Obj(d, "n.yaml", 1) for d in neighbours], qobs, settle)
        assert len(got) == n and sizes == [len(queues)] * n
        k = 0 if model == "legacy" else 1
        assert helds == [{("default-flavor", "cpu"): 100 * i * k, ("default-flavor", "memory"): 128 * 2 ** 20 * 1000 * i * k}
                         if i else {} for i in range(n)]


def test_a_settling_the_loop_guard_ends_is_settled_again_with_every_workload(cli, tmp_path, monkeypatch):
    """Thirty neighbours under a ClusterQueue that preempts (bench/bench_kueue.py
    ``preempting``): the settling of svc-0029 (priority 100) keeps preempting until the
    plan's loop guard ends it (NoProgress), and where the guard stops depends on how many
    objects the world holds, so it is settled again with every Workload given. The JSON
    plan is the one the model wrote at caeebd4 (data/neighbours/looping-nested.json)."""
    import rolloutctl.kinds.kueue.model as kueue_model

    from bench.bench_kueue import write_cell

    ended = []
    simulate = kueue_model.simulate

    def recording(model, desired, world, env, **kw):
        plan = simulate(model, desired, world, env, **kw)
        ended.append((desired.name, plan.stuck.reason if plan.stuck else None, MEM_HELD_USAGE in world.memory))
        return plan

    monkeypatch.setattr(kueue_model, "simulate", recording)
    t, q, n = write_cell(tmp_path, 30, "preempting")
    r = cli("plan", "--kueue", "nested", t, "--observed", q, "--observed", n, "-o", "json")
    assert r.stdout == (DATA / "looping-nested.json").read_text()
    assert [e for e in ended if e[1] == "NoProgress"] == [("svc-0029", "NoProgress", True),
                                                          ("svc-0029", "NoProgress", False)]


def test_usage_counts_what_the_cache_holds_for_workloads_the_world_does_not_list():
    """``clusterqueue.usage``: the Workloads of the world plus ``held_usage`` (world memory
    ``MEM_HELD_USAGE``, per ClusterQueue), and only for that ClusterQueue."""
    w = Obj(_admitted_workload("wl-a", "default", ("Job", "a"), "user-queue", "cq", "200m", "1Gi"), "w.yaml", 1)
    world = World([w]).with_memory(**{MEM_HELD_USAGE: {"cq": {("default-flavor", "cpu"): 300}}})
    assert usage(world, "cq") == {("default-flavor", "cpu"): 500, ("default-flavor", "memory"): 2 ** 30 * 1000}
    assert usage(world, "other") == {}
    assert usage(world, "cq", exclude=["wl-a"]) == {("default-flavor", "cpu"): 300}


def test_a_settling_waits_when_the_held_usage_fills_the_queue():
    """A neighbour settled against a ClusterQueue whose quota the others hold only as
    usage (no Workload objects) stays pending: its Workload holds nothing."""
    target, queues, neighbours = kueue_neighbours(1, fit=0)
    m = KueueRayServiceModel("nested", observed_queues=[Obj(d, "q.yaml", 1) for d in queues])
    rs = Obj(neighbours[0], "n.yaml", 1)
    free = m._settled(rs, [Obj(d, "q.yaml", 1) for d in queues], Environment())
    assert [quota_reserved(w) for w in free.of_kind("Workload")] == [True]
    full = m._settled(rs, [Obj(d, "q.yaml", 1) for d in queues], Environment(),
                      {"cluster-queue": {("default-flavor", "cpu"): 100}})
    assert [quota_reserved(w) for w in full.of_kind("Workload")] == [False]
