"""Plan invariants of Grove updates over generated PodCliqueSets (hypothesis)."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rolloutctl.core.environment import Environment
from rolloutctl.core.model import Obj
from rolloutctl.core.simulate import run
from rolloutctl.kinds.grove import names as N
from rolloutctl.kinds.grove import update_common as U
from rolloutctl.kinds.grove.model import GroveModel
from rolloutctl.kinds.grove.spec import PCS


def _clique(name: str, replicas: int, min_av: int) -> dict[str, Any]:
    return {"name": name, "spec": {"roleName": name, "replicas": replicas, "minAvailable": min_av,
                                   "podSpec": {"containers": [{"name": "main", "image": "app:v1",
                                                               "resources": {"requests": {"cpu": "1"}}}]}}}


@st.composite
def pcs_and_change(draw):
    n_stand = draw(st.integers(1, 2))
    n_groups = draw(st.integers(0, 2))
    cliques, groups = [], []
    for i in range(n_stand):
        r = draw(st.integers(1, 4))
        c = _clique(f"s{i}", r, draw(st.integers(1, r)))
        if draw(st.booleans()):
            c["rollingUpdate"] = {"maxUnavailable": draw(st.integers(1, 2))}
        cliques.append(c)
    for g in range(n_groups):
        members = []
        for m in range(draw(st.integers(1, 2))):
            r = draw(st.integers(1, 3))
            cliques.append(_clique(f"g{g}m{m}", r, draw(st.integers(1, r))))
            members.append(f"g{g}m{m}")
        reps = draw(st.integers(1, 3))
        grp = {"name": f"g{g}", "cliqueNames": members, "replicas": reps, "minAvailable": draw(st.integers(1, reps))}
        if draw(st.booleans()):
            grp["rollingUpdate"] = {"maxUnavailable": draw(st.integers(1, 2))}
        groups.append(grp)
    old = {"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"replicas": draw(st.integers(1, 3)), "template": {"cliques": cliques, "podCliqueScalingGroups": groups}}}
    new = copy.deepcopy(old)
    changed = draw(st.lists(st.sampled_from([c["name"] for c in cliques]), unique=True))
    for c in new["spec"]["template"]["cliques"]:
        if c["name"] in changed:
            c["spec"]["podSpec"]["containers"][0]["image"] = "app:v2"
    return old, new, changed


class Watching(GroveModel):
    """GroveModel that checks the budget invariant on every world the plan visits."""

    def __init__(self, pcs: PCS) -> None:
        super().__init__()
        self.watch = pcs
        self.violations: list[str] = []

    def metrics(self, world):
        check_budget(self.watch, world, self.violations)
        return super().metrics(world)


def check_budget(pcs: PCS, world, out: list[str]) -> None:
    by_replica: set[int] = set()
    for pclq in world.index("PodClique", N.L_PART_OF).get("p", ()):
        c = U.clique_of(pcs, pclq)
        if c is None or not U.is_standalone_pclq(pclq):
            continue
        pods = [p for p in U.pods_of(world, pclq) if not p.terminating]
        missing = U.int_field(pclq.spec.get("replicas"), 0) - sum(1 for p in pods if _ready(p))
        budget = (c.rolling_update or {}).get("maxUnavailable", 1)
        if missing > budget:
            out.append(f"{pclq.name}: {missing} pods unavailable > {budget}")
        if missing > 0:
            by_replica.add(U.pcs_replica_of(pclq))
    for pcsg in world.index("PodCliqueScalingGroup", N.L_PART_OF).get("p", ()):
        g = U.group_of_pcsg(pcs, pcsg)
        members = {}
        for m in U.pclqs_of_pcsg(world, pcsg):
            members.setdefault(U.pcsg_replica_of(m), []).append(m)
        down = 0
        for j in range(U.int_field(pcsg.spec.get("replicas"), 0)):
            ms = [m for m in members.get(j, []) if not m.terminating]
            ok = len(ms) == len(g.clique_names) and all(
                sum(1 for p in U.pods_of(world, m) if _ready(p)) >= U.min_available(m) for m in ms)
            down += not ok
        budget = (g.rolling_update or {}).get("maxUnavailable", 1)
        if down > budget:
            out.append(f"{pcsg.name}: {down} replicas unavailable > {budget}")
        if down:
            by_replica.add(U.pcs_replica_of(pcsg))
    if len(by_replica) > 1:
        out.append(f"PodCliqueSet replicas {sorted(by_replica)} disrupted at the same time")


def _ready(p) -> bool:
    from rolloutctl.kinds.grove import objects as O
    return O.pod_ready(p)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pcs_and_change())
def test_rolling_recreate_invariants(case):
    old, new, changed = case
    env = Environment()
    pcs = PCS(Obj(new))
    model = Watching(pcs)
    world = model.observe(Obj(new), [Obj(old)], env)
    start_pods = {o.name: o for o in world if o.kind == "Pod"}
    start_pclqs = {o.name: o for o in world if o.kind == "PodClique"}
    plan, final = run(model, Obj(new), world, env)
    # the plan terminates and converges
    assert plan.outcome in ("converged", "noop"), plan.stuck
    assert not model.violations, model.violations[:3]
    # every old pod is replaced exactly once; no new pod is deleted
    deleted_pods = [a.uid or a.name for s in plan.steps for a in s.actions if a.verb == "delete" and a.kind == "Pod"]
    deleted_pclqs = [a.name for s in plan.steps for a in s.actions if a.verb == "delete" and a.kind == "PodClique"]
    assert len(deleted_pods) == len(set(deleted_pods))
    assert len(deleted_pclqs) == len(set(deleted_pclqs))
    target = {c.name: c.template_hash for c in pcs.cliques}
    for name, pod in start_pods.items():
        outdated = pod.labels[N.L_TEMPLATE_HASH] != target[U.clique_of(pcs, pod.labels[N.L_PCLQ]).name]
        gone_with_pclq = pod.labels[N.L_PCLQ] in deleted_pclqs
        if outdated:
            assert final.get("Pod", "default", name) is None
            assert (name in deleted_pods) != gone_with_pclq
        else:
            assert name not in deleted_pods
    for name, pclq in start_pclqs.items():
        c = U.clique_of(pcs, pclq)
        member = not U.is_standalone_pclq(pclq)
        group_changed = member and any(cn in changed for cn in pcs.group_of_clique[c.name].clique_names)
        assert (name in deleted_pclqs) == group_changed
    # indices end at 0..n-1, every pod on the new template and Ready
    for pclq in final.of_kind("PodClique"):
        pods = [p for p in U.pods_of(final, pclq)]
        assert sorted(int(p.labels[N.L_POD_INDEX]) for p in pods) == list(range(pclq.spec["replicas"]))
        assert all(p.labels[N.L_TEMPLATE_HASH] == U.expected_pod_template_hash(pcs, pclq) for p in pods)
        assert all(_ready(p) for p in pods)
    # nothing left to do
    assert model.reconcile(Obj(new), final) == []
    if not changed:
        assert plan.outcome == "noop"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pcs_and_change())
def test_ondelete_deletes_nothing(case):
    old, new, changed = case
    for doc in (old, new):
        doc["spec"]["updateStrategy"] = {"type": "OnDelete"}
        for c in doc["spec"]["template"]["cliques"]:
            c.pop("rollingUpdate", None)
        for g in doc["spec"]["template"]["podCliqueScalingGroups"]:
            g.pop("rollingUpdate", None)
    env = Environment()
    model = GroveModel()
    world = model.observe(Obj(new), [Obj(old)], env)
    plan, final = run(model, Obj(new), world, env)
    assert plan.outcome in ("converged", "noop")
    assert plan.summary["deletes"] == 0 and plan.summary["creates"] == 0
    outdated = plan.steps[-1].after["old"] if plan.steps else 0
    assert bool(outdated) == bool(changed)
    assert bool([w for w in plan.warnings if w.code == "OnDeletePodsOutdated"]) == bool(changed)
    assert model.reconcile(Obj(new), final) == []
