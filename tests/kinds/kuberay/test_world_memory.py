"""How a reconcile pass ends (controller-runtime's requeue, with what it waits for) is kept
in the world, not in the model: one model instance plans any number of RayServices, in any
interleaving, and each step says what its own pass waits for."""

from __future__ import annotations

from rolloutctl.core.environment import Environment
from rolloutctl.kinds.kuberay.model import RayServiceModel

from .helpers import base, edit, obj


def _other(d: dict) -> None:
    d["metadata"]["name"] = "other"


def test_interleaved_passes_keep_their_own_waits():
    env = Environment()
    m = RayServiceModel()
    good = obj(base())
    other = obj(edit(base(), _other))
    # the other service, planned until a pass waits for its new cluster's head Pod
    w_other = m.observe(other, [], env)
    for _ in range(10):
        if "waits for the head Pod" in m.pass_outcome(other, w_other):
            break
        w_other = m.advance(other, w_other.apply(m.reconcile(other, w_other)), env).world
    w_good = m.observe(good, [], env)

    acts = m.reconcile(good, w_good)
    other_acts = m.reconcile(other, w_other)
    waits = m.advance(good, w_good.apply(acts), env).waits
    other_waits = m.advance(other, w_other.apply(other_acts), env).waits

    alone = RayServiceModel()
    assert waits == alone.advance(good, w_good.apply(alone.reconcile(good, w_good)), env).waits
    assert not any("head Pod" in w for w in waits)
    assert any("waits for the head Pod of RayCluster other-<random>" in w for w in other_waits)


def test_a_model_keeps_nothing_of_the_plans_it_made():
    env = Environment()
    m = RayServiceModel()
    before = dict(vars(m))
    d = obj(base())
    w = m.observe(d, [], env)
    for _ in range(5):
        w = m.advance(d, w.apply(m.reconcile(d, w)), env).world
    assert vars(m) == before
