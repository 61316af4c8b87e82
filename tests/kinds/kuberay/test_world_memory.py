"""How a reconcile pass ends (controller-runtime's requeue, with what it waits for) is kept
in the world, not in the model: one model instance plans any number of RayServices, in any
interleaving, and each step says what its own pass waits for."""

from __future__ import annotations

from rolloutctl.core.environment import Environment
from rolloutctl.kinds.kuberay.model import RayServiceModel

from .helpers import base, edit, obj


def _other(d: dict) -> None:
    d["metadata"]["name"] = "other"


def _after_pass(m: RayServiceModel, d, w):
    """The world after one pass, as the planner leaves it: the pass's actions applied and
    how it ends in the world's memory (``reconcile_pass``)."""
    acts, memory = m.reconcile_pass(d, w)
    return w.with_memory(**memory).apply(acts)


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
        w_other = m.advance(other, _after_pass(m, other, w_other), env).world
    w_good = m.observe(good, [], env)

    after_good = _after_pass(m, good, w_good)
    after_other = _after_pass(m, other, w_other)
    waits = m.advance(good, after_good, env).waits
    other_waits = m.advance(other, after_other, env).waits

    alone = RayServiceModel()
    assert waits == alone.advance(good, _after_pass(alone, good, w_good), env).waits
    assert not any("head Pod" in w for w in waits)
    assert any("waits for the head Pod of RayCluster other-<random>" in w for w in other_waits)


def test_a_model_keeps_nothing_of_the_plans_it_made():
    env = Environment()
    m = RayServiceModel()
    before = dict(vars(m))
    d = obj(base())
    w = m.observe(d, [], env)
    for _ in range(5):
        w = m.advance(d, _after_pass(m, d, w), env).world
    assert vars(m) == before


def test_each_world_is_reconciled_once(monkeypatch):
    """A plan runs the RayService controller's pass once per world it reconciles: how a
    pass ends is written by that pass, and a pass the interval between passes had to run
    (to know whether time skips to a timer) is handed to the planner, not run again."""
    from rolloutctl.core.simulate import simulate

    from .helpers import new_image

    seen: list = []  # the worlds themselves, so that no id is reused
    run_pass = RayServiceModel.run_pass

    def counting(self, desired, world):
        seen.append(world)
        return run_pass(self, desired, world)

    env = Environment()
    m = RayServiceModel()
    world = m.observe(obj(new_image(base())), [obj(base())], env)
    monkeypatch.setattr(RayServiceModel, "run_pass", counting)
    plan = simulate(m, obj(new_image(base())), world, env)
    assert plan.outcome == "converged" and len(plan.steps) >= 5
    assert len(seen) == len({id(w) for w in seen}), "a world was reconciled twice"
