"""OnDelete scenarios mirroring ``operator/e2e/tests/update/ondelete_test.go`` (OD-1 …
OD-9) on the upstream sample ``samples/workload-ondelete.yaml``."""

from __future__ import annotations

import copy


from rolloutctl.core.environment import Environment
from rolloutctl.core.model import Obj
from rolloutctl.core.simulate import run
from rolloutctl.core.world import mark_terminating
from rolloutctl.kinds.grove.model import GroveModel

from tests.kinds.grove.upstream_samples import upstream_sample


def sample() -> dict:
    return upstream_sample("workload-ondelete.yaml")


def with_images(pcs: dict, image: str) -> dict:
    out = copy.deepcopy(pcs)
    for c in out["spec"]["template"]["cliques"]:
        c["spec"]["podSpec"]["containers"][0]["image"] = image
    return out


def planned(new: dict, old: dict):
    model = GroveModel()
    world = model.observe(Obj(new), [Obj(old)], Environment())
    return run(model, Obj(new), world, Environment())


def test_ondelete_patches_specs_and_deletes_nothing():
    """OD-1/OD-4/OD-6: a template change patches every PodClique in place (standalone
    and scaling-group members) and no pod or PodClique is deleted; the plan says which
    pods stay outdated."""
    old = sample()
    p, final = planned(with_images(old, "busybox:v2"), old)
    assert p.strategy == "OnDelete"
    assert p.outcome == "converged"
    assert p.summary["deletes"] == 0 and p.summary["creates"] == 0
    updated = sorted(a.name for s in p.steps for a in s.actions if a.verb == "update")
    assert len([n for n in updated if n.startswith("workload-ondelete-0-")]) == 5
    w = [w for w in p.warnings if w.code == "OnDeletePodsOutdated"]
    assert w and w[0].message.startswith("10 pods keep the old template")
    assert p.steps[-1].after["old"] == 10
    assert p.summary["minReadyPods"] == 10


def test_ondelete_deleted_pod_comes_back_with_the_new_template():
    """OD-2/OD-5: after the specs are patched, a pod the user deletes (here one of a
    scaling-group member) is recreated alone, with the new template."""
    old = sample()
    new = with_images(old, "busybox:v2")
    p, final = planned(new, old)
    victim = next(o for o in final if o.kind == "Pod" and o.name.startswith("workload-ondelete-0-sg-x-1-pc-c-"))
    world = final.replace(put=[mark_terminating(victim)])
    p2, final2 = run(GroveModel(), Obj(new), world, Environment())
    creates = [a for s in p2.steps for a in s.actions if a.verb == "create"]
    assert [(a.kind, a.index) for a in creates] == [("Pod", int(victim.labels["grove.io/podclique-pod-index"]))]
    assert not [a for s in p2.steps for a in s.actions if a.verb == "delete"]
    assert p2.steps[-1].after["old"] == 9


def test_ondelete_scale_in_prefers_outdated_pods():
    """OD-3: scaling a PodClique in deletes an old-template pod before a new one."""
    old = sample()
    new = with_images(old, "busybox:v2")
    _p, final = planned(new, old)
    pclq = final.get("PodClique", "default", "workload-ondelete-0-pc-a")
    # one pod replaced by hand → one new, one old
    victim = sorted((o for o in final if o.kind == "Pod" and o.labels.get("grove.io/podclique") == pclq.name),
                    key=lambda o: o.name)[0]
    _p2, w = run(GroveModel(), Obj(new), final.replace(put=[mark_terminating(victim)]), Environment())
    pclq = w.get("PodClique", "default", "workload-ondelete-0-pc-a")
    raw = copy.deepcopy(dict(pclq.raw))
    raw["spec"]["replicas"] = 1
    p3, w3 = run(GroveModel(), Obj(new), w.replace(put=[Obj(raw)]), Environment())
    dels = [a for s in p3.steps for a in s.actions if a.verb == "delete"]
    assert len(dels) == 1
    left = [o for o in w3 if o.kind == "Pod" and o.labels.get("grove.io/podclique") == pclq.name]
    assert len(left) == 1
    assert left[0].labels["grove.io/pod-template-hash"] == pclq.labels["grove.io/pod-template-hash"]


def test_switch_to_rolling_recreate_replaces_pods_ondelete_left_behind():
    """OD-9: switching the strategy alone rolls nothing; the next template change under
    RollingRecreate replaces every pod OnDelete left outdated."""
    old = sample()
    v2 = with_images(old, "busybox:v2")
    _p, final = planned(v2, old)
    switched = copy.deepcopy(v2)
    switched["spec"]["updateStrategy"] = {"type": "RollingRecreate"}
    p_switch, w_switch = run(GroveModel(), Obj(switched), final.replace(put=[Obj({**switched, "status": dict(
        final.get("PodCliqueSet", "default", "workload-ondelete").status)})]), Environment())
    assert not [a for s in p_switch.steps for a in s.actions if a.verb in ("delete", "create")]
    v3 = with_images(switched, "busybox:v3")
    world = w_switch.replace(put=[Obj({**v3, "status": dict(w_switch.get("PodCliqueSet", "default", "workload-ondelete").status)})])
    p3, w3 = run(GroveModel(), Obj(v3), world, Environment())
    assert p3.outcome == "converged"
    assert p3.steps[-1].after["old"] == 0 and p3.steps[-1].after["updated"] == 10
