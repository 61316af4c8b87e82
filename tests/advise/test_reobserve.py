"""``advise`` derives each candidate's starting world from the first one
(``GroveModel.reobserve``): the plans must be exactly those ``observe`` gives."""

from __future__ import annotations

import pytest

from rolloutctl import app
from rolloutctl.core.simulate import run
from tests.advise.helpers import PCS_NEW, PCS_OLD

VALUES = [
    ("RollingUpdate", {"cliques[frontend].updateStrategy.maxUnavailable": 0, "cliques[frontend].updateStrategy.maxSurge": 1,
                       "podCliqueScalingGroups[prefill].updateStrategy.maxUnavailable": 1,
                       "podCliqueScalingGroups[prefill].updateStrategy.maxSurge": 1,
                       "podCliqueScalingGroups[decode].updateStrategy.maxUnavailable": 2,
                       "podCliqueScalingGroups[decode].updateStrategy.maxSurge": 0}),
    ("ReplicaRecreate", {"spec.updateStrategy.rollingUpdate.maxUnavailable": 0,
                         "spec.updateStrategy.rollingUpdate.maxSurge": 1}),
    ("RollingRecreate", {"cliques[frontend].rollingUpdate.maxUnavailable": 2,
                         "podCliqueScalingGroups[prefill].rollingUpdate.maxUnavailable": None,
                         "podCliqueScalingGroups[decode].rollingUpdate.maxUnavailable": 1}),
]


@pytest.mark.parametrize("capacity", [(), ("nvidia.com/gpu=44",)])
@pytest.mark.parametrize("strategy,values", VALUES, ids=[v[0] for v in VALUES])
def test_reobserved_world_plans_like_observe(strategy, values, capacity):
    opts = app.PlanOptions(observed=(PCS_OLD,), capacity=capacity)
    env = app.environment(opts)
    desired, observed = app.checked_inputs([PCS_NEW], opts)
    obj = app.targets(desired, [PCS_NEW])[0]
    related = app._related(obj, observed)
    model = app._plan_model(obj, opts, desired, observed)
    base = model.observe(obj, related, env)
    old = app._previous(obj, observed)
    [space] = [s for s in model.advice_spaces(obj, old) if s.strategy == strategy]
    cand = space.build(values).manifest
    fresh = app._plan_model(obj, opts, desired, observed)
    a, _ = run(fresh, cand, fresh.observe(cand, related, env), env)
    b, _ = run(model, cand, model.reobserve(base, cand, related, env), env)
    assert a.to_dict() == b.to_dict()
    assert a.strategy == strategy
