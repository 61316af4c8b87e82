"""``advise`` on a PodCliqueSet of many replicas (shaped like Grove's e2e scale tests:
operator/e2e/yaml/scale-up.yaml): the default floor watched over every world is the
floor computed afresh, and the default budget still finds the surge that rebuilds every
replica at once."""

from __future__ import annotations

import copy
from pathlib import Path

import yaml

from rolloutctl.core.environment import Environment
from rolloutctl.core.model import Obj
from rolloutctl.core.simulate import run
from rolloutctl.kinds.grove.advise import FloorView, available_replicas
from rolloutctl.kinds.grove.model import GroveModel
from rolloutctl.kinds.grove.spec import PCS
from tests.advise.helpers import advise

REPLICAS = 40

SCALE = {
    "apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet",
    "metadata": {"name": "scale", "namespace": "default"},
    "spec": {"replicas": REPLICAS, "template": {"cliques": [
        {"name": "expert", "spec": {"roleName": "expert", "replicas": 2, "minAvailable": 2, "podSpec": {
            "containers": [{"name": "c", "image": "img:1", "resources": {"requests": {"memory": "1Mi"}}}]}}}]}},
}


def _pair(tmp: Path) -> tuple[str, str]:
    new = copy.deepcopy(SCALE)
    new["spec"]["template"]["cliques"][0]["spec"]["podSpec"]["containers"][0]["image"] = "img:2"
    (tmp / "old.yaml").write_text(yaml.safe_dump(SCALE, sort_keys=False))
    (tmp / "new.yaml").write_text(yaml.safe_dump(new, sort_keys=False))
    return str(tmp / "new.yaml"), str(tmp / "old.yaml")


class _Worlds:
    """The model, keeping every world the plan passes through."""

    def __init__(self, model, desired):
        self._m, self.worlds = model, []
        self.api_version, self.kind, self.timed = model.api_version, model.kind, model.timed

    def __getattr__(self, name):
        return getattr(self._m, name)

    def metrics(self, world):
        self.worlds.append(world)
        return self._m.metrics(world)


def test_the_floor_patched_world_by_world_is_the_floor_built_afresh():
    """Under the proposed ReplicaRecreate with a surge (whole replicas rebuilt, surge
    replicas counted), every world's available replicas as the view patches them from
    the world before equal the count over every replica of that world."""
    old, new = copy.deepcopy(SCALE), copy.deepcopy(SCALE)
    new["spec"]["template"]["cliques"][0]["spec"]["podSpec"]["containers"][0]["image"] = "img:2"
    new["spec"]["updateStrategy"] = {"type": "ReplicaRecreate", "rollingUpdate": {"maxUnavailable": 3, "maxSurge": 5}}
    model = GroveModel()
    watch = _Worlds(model, Obj(new))
    plan, _ = run(watch, Obj(new), model.observe(Obj(new), [Obj(old)], Environment()), Environment())
    assert plan.outcome == "converged" and len(watch.worlds) > 10
    pcs = PCS(Obj(new))
    view = FloorView.of(pcs)
    patched = [available_replicas(pcs, w) for w in watch.worlds]
    fresh = [len(view.build(w).ok) for w in watch.worlds]
    assert patched == fresh
    assert min(fresh) < REPLICAS <= max(fresh)  # replicas go down and surge replicas come up


def test_the_default_budget_finds_the_surge_that_rebuilds_every_replica_at_once(tmp_path):
    """Unlimited capacity, many replicas: the fewest steps come from ReplicaRecreate with
    maxSurge at the replica count and nothing unavailable, at the far end of a grid the
    default budget cannot plan whole."""
    new, old = _pair(tmp_path)
    a = advise(new, old)
    r = a.recommendation
    assert r is not None and r.strategy == "ReplicaRecreate"
    assert dict(r.values) == {"spec.updateStrategy.rollingUpdate.maxUnavailable": 0,
                              "spec.updateStrategy.rollingUpdate.maxSurge": REPLICAS}
    assert not a.optimal and a.searched < 200
    assert r.min_ready_pods == 2 * REPLICAS and r.steps < a.current.steps
