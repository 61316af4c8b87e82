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
the earlier neighbours' Workloads through the usage they hold, and were reviewed; the
legacy ones were written again when the settled neighbours' RayClusters were kept, and
those that preempt, with looping-nested.json, when a settling's preemptions were carried
to the target's world; the nested ones again when the quota diagnosis named the target's
RayCluster born suspended, which admission alone does not start):

- every settling releases the evicted Job's Workload (``_release_foreign``) and deletes
  the orphaned RayCluster's Workload of its namespace (``finalizeWorkloads``);
- svc-0000 fits (batch 200m + svc-0004 100m + team-b orphan 100m + 100m = 500m); then
  the quota is spent: svc-0001 (team-b: the default orphan still holds), svc-0005,
  svc-0006 and svc-0007 stay pending and hold nothing; svc-0002/-0008 (another
  ClusterQueue), svc-0003 (suspended) and svc-0004 (its Workload given) are not settled;
- where the ClusterQueue preempts (LowerPriority), svc-0005 (priority 100) preempts
  svc-0000's Workload, the most recently admitted candidate, in its own settling, and
  holds its quota; svc-0000's is evicted in the plan's world, its reservation released,
  as the settling left it (before, it kept its reservation there: 600m used of 500m);
- legacy: a neighbour's Workloads are owned by its RayCluster, which keeps running
  (``MEM_KEPT_CLUSTERS``): they hold their quota as under the other models, and the
  outcomes are theirs (before, a later settling in svc-0000's namespace and the target's
  plan deleted its Workload, finalizeWorkloads, and svc-0005, svc-0006 and the target fit).
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
from rolloutctl.kinds.kueue.evict import evicted
from rolloutctl.kinds.kueue.model import KueueRayServiceModel
from rolloutctl.kinds.kueue.neighbours import Held, neighbour_workloads
from rolloutctl.kinds.kueue.workload import owner_of, quota_reserved

DATA = Path(__file__).parent / "data" / "neighbours"
MODELS = ("top-level", "nested", "legacy")
PREEMPTION = {"never": None, "preempting": "LowerPriority"}

#: (ClusterQueue preemption, model) -> (the neighbours whose settled Workloads hold quota
#: in the target's world, those whose Workloads a later settling preempted, the plan's
#: outcome, the stuck reason)
EXPECTED = {
    ("never", "top-level"): ({"svc-0000"}, set(), "stuck", "InsufficientQuota"),
    ("never", "nested"): ({"svc-0000"}, set(), "stuck", "InsufficientQuota"),
    ("never", "legacy"): ({"svc-0000"}, set(), "stuck", "InsufficientQuota"),
    ("preempting", "top-level"): ({"svc-0005"}, {"svc-0000"}, "stuck", "InsufficientQuota"),
    ("preempting", "nested"): ({"svc-0005"}, {"svc-0000"}, "stuck", "InsufficientQuota"),
    ("preempting", "legacy"): ({"svc-0005"}, {"svc-0000"}, "stuck", "InsufficientQuota"),
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
    earlier neighbours through their usage (data/neighbours/, from caeebd4; written again
    where the module docstring says)."""
    pre, model = case
    t, q, n = _files(tmp_path, PREEMPTION[pre])
    r = cli("plan", "--kueue", model, t, "--observed", q, "--observed", n, "-o", "json")
    assert r.stdout == (DATA / f"{pre}-{model}.json").read_text()
    _holding, _preempted, outcome, reason = EXPECTED[case]
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
    theirs = [w for w in world.of_kind("Workload") if w.file != "q.yaml"]

    def services(ws):
        # legacy Workloads are owned by the RayCluster: <service>-<random>
        names = {(owner_of(w) or ("", ""))[1] for w in ws}
        return {h if h.startswith("svc-") and h.count("-") == 1 else h.rsplit("-", 1)[0] for h in names}

    assert services(w for w in theirs if quota_reserved(w)) == EXPECTED[case][0]
    # a Workload preempted in a later settling is evicted, its reservation released
    assert services(w for w in theirs if not quota_reserved(w)) == EXPECTED[case][1]
    assert all(evicted(w) for w in theirs if not quota_reserved(w))


@pytest.mark.parametrize("model", MODELS)
def test_a_settling_is_given_only_what_it_reads_one_by_one(model):
    """The settlings of N neighbours of one namespace under a ClusterQueue that does not
    preempt are given the same objects whatever N (the queues), and the earlier
    neighbours' quota as usage: N settlings of one, not of up to N. Under legacy their
    Workloads are owned by the neighbours' RayClusters, which keep running: they count
    the same (a settling is given none of those RayClusters, being given none of their
    Workloads), and the target's world keeps them all."""
    for n in (1, 4, 8):
        target, queues, neighbours = kueue_neighbours(n)
        qobs = {(o.kind, o.namespace, o.name): o for o in (Obj(d, "q.yaml", 1) for d in queues)}
        m = KueueRayServiceModel(model, observed_queues=list(qobs.values()))
        sizes, helds, kept = [], [], []

        def settle(rs, given, held, clusters):
            sizes.append(len(given))
            helds.append(dict((held or {}).get("cluster-queue", {})))
            kept.append(clusters)
            return m._settled(rs, given, Environment(), held, clusters)

        got = neighbour_workloads(Obj(target, "t.yaml", 1), [Obj(d, "n.yaml", 1) for d in neighbours], qobs, settle)
        assert len(got.workloads) == n and sizes == [len(queues)] * n and kept == [frozenset()] * n
        assert helds == [{("default-flavor", "cpu"): 100 * i, ("default-flavor", "memory"): 128 * 2 ** 20 * 1000 * i}
                         if i else {} for i in range(n)]
        assert {(ns, c.rsplit("-", 1)[0]) for ns, c in got.clusters} == (
            {("default", f"svc-{i:04d}") for i in range(n)} if model == "legacy" else set())


def test_a_settling_the_loop_guard_ends_is_settled_again_with_every_workload(cli, tmp_path, monkeypatch):
    """Thirty neighbours under a ClusterQueue that preempts (bench/bench_kueue.py
    ``preempting``): the settling of svc-0029 (priority 100) keeps preempting until the
    plan's loop guard ends it (NoProgress), and where the guard stops depends on how many
    objects the world holds, so it is settled again with every Workload given. The JSON
    plan is the one the model wrote at caeebd4 (data/neighbours/looping-nested.json) but
    for the usage the Workloads preempted in the settlings no longer hold (1600m used of
    1600m, not 1700m)."""
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


def _one_neighbour(tmp_path: Path, fit: int, upgrade: bool = False) -> list[str]:
    """``plan`` arguments for the target next to one neighbour in its namespace, the
    ClusterQueue's quota fitting ``fit + 1`` of them (``kueue_neighbours(1, fit)``);
    ``upgrade``: the target is observed as its previous manifest and changes its image."""
    target, queues, neighbours = kueue_neighbours(1, fit)
    (tmp_path / "q.yaml").write_text(yaml.safe_dump_all(queues + neighbours))
    (tmp_path / "t.yaml").write_text(yaml.safe_dump(target))
    if not upgrade:
        return [str(tmp_path / "t.yaml"), "--observed", str(tmp_path / "q.yaml")]
    new = copy.deepcopy(target)
    new["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]["image"] = "rayproject/ray:2.53.0"
    (tmp_path / "new.yaml").write_text(yaml.safe_dump(new))
    return [str(tmp_path / "new.yaml"), "--observed", str(tmp_path / "t.yaml"), "--observed", str(tmp_path / "q.yaml")]


@pytest.mark.parametrize("model", MODELS)
def test_a_settled_neighbour_keeps_its_quota_in_its_namespace(cli, tmp_path, model):
    """A neighbour in the target's namespace, settled first, holds the quota that fits one
    of them: the target's Workload is never admitted (InsufficientQuota), under legacy too,
    where the Workload is its RayCluster's: KubeRay keeps that active cluster
    (``cleanUpRayClusterInstance``), so Kueue's job reconciler finds the job (``loadJob``)
    and never finalizes its Workload. Nothing deletes a Workload."""
    r = cli("plan", "--kueue", model, *_one_neighbour(tmp_path, 0), "-o", "json")
    p = json.loads(r.stdout)
    assert r.exit_code == 1 and (p["outcome"], p["stuck"]["reason"]) == ("stuck", "InsufficientQuota")
    assert p["stuck"]["message"].startswith("never admitted: Workload ")
    assert "nominalQuota 100m, used by other Workloads 100m, this Workload needs 100m" in p["stuck"]["message"]
    assert not [a for s in p["steps"] for a in s["actions"] if a["kind"] == "Workload" and a["verb"] == "delete"]
    assert [s["after"]["workloads"] for s in p["steps"]][-1] == 1  # the target's own; the neighbour's is not


@pytest.mark.parametrize("model", MODELS)
def test_a_settled_neighbour_next_to_a_target_that_fits(cli, tmp_path, model):
    """With quota for both, the target is admitted next to the neighbour, whose Workload
    stays (no finalizeWorkloads action) and is not counted as the target's."""
    r = cli("plan", "--kueue", model, *_one_neighbour(tmp_path, 1), "-o", "json")
    p = json.loads(r.stdout)
    assert r.exit_code == 0 and p["outcome"] == "converged"
    acts = [a for s in p["steps"] for a in s["actions"] if a["kind"] == "Workload"]
    assert [a["rule"] for a in acts if a["verb"] == "delete"] == []
    assert any(a["rule"] == "kueue:scheduler/scheduler.go#admit" for a in acts)
    assert (p["steps"][-1]["after"]["workloads"], p["steps"][-1]["after"]["admittedWorkloads"]) == (1, 1)


def test_a_settled_neighbour_holds_its_quota_in_the_targets_own_settling(cli, tmp_path):
    """legacy, the target observed as its previous manifest (settled from creation next to
    the neighbour's Workload): quota for the neighbour and the target's old cluster only,
    so the upgrade's new cluster, which needs its full request next to the old one, waits
    (the neighbour's Workload was not finalized in the target's settling)."""
    r = cli("plan", "--kueue", "legacy", *_one_neighbour(tmp_path, 1, upgrade=True), "-o", "json")
    p = json.loads(r.stdout)
    assert r.exit_code == 1 and p["stuck"]["reason"] == "InsufficientQuota"
    assert p["stuck"]["message"].startswith("admitted for the old size but not the upgrade size: ")
    r = cli("plan", "--kueue", "legacy", *_one_neighbour(tmp_path, 2, upgrade=True), "-o", "json")
    assert r.exit_code == 0 and json.loads(r.stdout)["outcome"] == "converged"


def test_a_kept_cluster_goes_with_its_workload_when_it_is_given():
    """legacy, a ClusterQueue that preempts (LowerPriority) and quota for one: svc-0001 of
    WorkloadPriorityClass high settles after svc-0000, whose Workload is then a preemption
    candidate, given one by one with its RayCluster (``MEM_KEPT_CLUSTERS``): svc-0001's
    scheduler preempts it (Evicted, its reservation released) instead of its first pass
    deleting it as orphaned."""
    target, queues, neighbours = kueue_neighbours(2, fit=0, preemption="LowerPriority")
    queues.append({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass",
                   "metadata": {"name": "high"}, "value": 100})
    neighbours[1]["metadata"]["labels"]["kueue.x-k8s.io/priority-class"] = "high"
    qobs = {(o.kind, o.namespace, o.name): o for o in (Obj(d, "q.yaml", 1) for d in queues)}
    m = KueueRayServiceModel("legacy", observed_queues=list(qobs.values()))
    kept, worlds = [], []

    def settle(rs, given, held, clusters):
        kept.append(clusters)
        worlds.append(m._settled(rs, given, Environment(), held, clusters))
        return worlds[-1]

    got = neighbour_workloads(Obj(target, "t.yaml", 1), [Obj(d, "n.yaml", 1) for d in neighbours], qobs, settle)
    first = [w for w in worlds[0].of_kind("Workload")]
    assert len(first) == 1 and quota_reserved(first[0])
    rc = owner_of(first[0])[1]
    assert kept == [frozenset(), frozenset({("default", rc)})] and got.clusters >= {("default", rc)}
    again = worlds[1].get("Workload", "default", first[0].name)
    assert again is not None and not quota_reserved(again)
    assert {c["type"]: c["reason"] for c in again.status["conditions"]}["Evicted"] == "Preempted"


def _preempting_pair(live_job: bool) -> tuple[dict, list[dict], list[dict]]:
    """A ClusterQueue that preempts (LowerPriority) with quota for one 100m Workload, held
    by svc-0000 (settled first) or, ``live_job``, by a batch Job's Workload in the input;
    then svc-0001 of WorkloadPriorityClass high (100), which preempts it."""
    target, queues, neighbours = kueue_neighbours(2, fit=0, preemption="LowerPriority")
    queues.append({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass",
                   "metadata": {"name": "high"}, "value": 100})
    neighbours[1]["metadata"]["labels"]["kueue.x-k8s.io/priority-class"] = "high"
    if live_job:
        queues.append(_admitted_workload("job-batch-abcde", "default", ("Job", "batch"), "user-queue",
                                         "cluster-queue", "100m", "128Mi"))
        neighbours = neighbours[1:]
    return target, queues, neighbours


@pytest.mark.parametrize("live_job", [False, True], ids=["neighbour", "live-job"])
@pytest.mark.parametrize("model", MODELS)
def test_a_preemption_in_a_settling_is_carried_to_the_target(cli, tmp_path, model, live_job):
    """svc-0001's settling preempts the Workload holding the quota (Evicted, reservation
    released); the target's plan starts from there: that Workload is evicted and holds
    nothing, so the quota is used by svc-0001's alone (100m of 100m; before, the
    preempted one still held it there: 200m of 100m) and the target waits."""
    target, queues, neighbours = _preempting_pair(live_job)
    (tmp_path / "t.yaml").write_text(yaml.safe_dump(target))
    (tmp_path / "q.yaml").write_text(yaml.safe_dump_all(queues + neighbours))
    r = cli("plan", "--kueue", model, str(tmp_path / "t.yaml"), "--observed", str(tmp_path / "q.yaml"), "-o", "json")
    p = json.loads(r.stdout)
    assert r.exit_code == 1 and p["stuck"]["reason"] == "InsufficientQuota"
    assert "cpu in flavor default-flavor: nominalQuota 100m, used by other Workloads 100m, this Workload needs 100m" \
        in p["stuck"]["message"]
    assert p["stuck"]["remedies"][0].endswith("nominalQuota to at least 200m (or free the quota the other Workloads hold)")
    m = KueueRayServiceModel(model, observed_queues=[Obj(d, "q.yaml", 1) for d in queues],
                             neighbours=[Obj(d, "n.yaml", 1) for d in neighbours])
    world = m.observe(Obj(target, "t.yaml", 1), [], Environment())
    held = sorted((owner_of(w)[1].startswith("batch") or owner_of(w)[1].startswith("svc-0000"), quota_reserved(w),
                   evicted(w)) for w in world.of_kind("Workload"))
    assert held == [(False, True, False), (True, False, True)]


def test_a_counted_workload_preempted_in_a_settling_is_given_and_no_longer_counted():
    """``Held.replace``: a Workload counted only in the usage (a settling given every
    Workload, after the loop guard, may preempt it) leaves the usage and is given, evicted,
    in input order among the given ones."""
    wls = [Obj(_admitted_workload(f"job-{n}-abcde", "default", ("Job", n), "user-queue", "cluster-queue", "100m",
                                  "128Mi"), "q.yaml", 1) for n in ("a", "b")]
    wls.insert(1, Obj(_evicted(_admitted_workload("job-ev-abcde", "default", ("Job", "ev"), "user-queue",
                                                  "cluster-queue", "300m", "128Mi")), "q.yaml", 1))
    held = Held("cluster-queue", False, 0)
    for w in wls:
        held.add(w)
    assert [w.name for w in held.given] == ["job-ev-abcde"]
    assert held.usage[("default-flavor", "cpu")] == 200
    held.replace(Obj(_evicted(wls[2].raw), "q.yaml", 1))
    held.replace(Obj(_evicted(wls[0].raw), "q.yaml", 1))
    assert [(w.name, evicted(w)) for w in held.given] == [("job-a-abcde", True), ("job-ev-abcde", True),
                                                          ("job-b-abcde", True)]
    assert held.usage[("default-flavor", "cpu")] == 0
    assert [w.name for w in held.every] == ["job-a-abcde", "job-ev-abcde", "job-b-abcde"] and all(map(evicted, held.every))
