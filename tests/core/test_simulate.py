"""The fixpoint driver without an operator: no default step cap, guaranteed
termination (loops end stuck ``NoProgress``), ``next`` as the immediate pass, and
phases that cover every step once."""

from __future__ import annotations

import gc
from typing import Any, Mapping, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rolloutctl.core import process
from rolloutctl.core import simulate as S
from rolloutctl.core.environment import Environment
from rolloutctl.core.kind import Progress
from rolloutctl.core.model import Action, Obj, Stuck, describe_actions
from rolloutctl.core.world import World


def _state(v: int, ready: bool = True) -> Obj:
    return Obj({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "s", "namespace": "default"},
                "data": {"v": str(v)}, "status": {"ready": ready}})


class Walk:
    """A controller that moves one object's value ``v`` along ``table`` until it
    reaches ``goal``; after each move the world needs one quiet pass (the object
    becomes ready) before the controller acts again."""

    api_version, kind, timed = "v1", "ConfigMap", False

    def __init__(self, table: Sequence[int], goal: int) -> None:
        self.table, self.goal = list(table), goal

    @staticmethod
    def value(world: World) -> int:
        return int(world.get("ConfigMap", "default", "s").raw["data"]["v"])

    def strategy(self, desired: Obj) -> str:
        return "Walk"

    def reconcile(self, desired: Obj, world: World) -> list[Action]:
        o = world.get("ConfigMap", "default", "s")
        v = self.value(world)
        if v == self.goal or not o.raw["status"]["ready"]:
            return []
        nxt = self.table[v]
        return [Action("update", "ConfigMap", "s", "default", f"move to {nxt}", "toy#walk", index=nxt,
                       payload=_state(nxt, ready=False).raw)]

    def advance(self, desired: Obj, world: World, env: Environment) -> Progress:
        o = world.get("ConfigMap", "default", "s")
        if o.raw["status"]["ready"]:
            return Progress(world)
        return Progress(world.replace([_state(self.value(world))]), (f"value {self.value(world)} ready",), True)

    def converged(self, desired: Obj, world: World) -> bool:
        return self.value(world) == self.goal

    def diagnose(self, desired: Obj, world: World, env: Environment) -> Stuck:
        return Stuck("Toy", "cannot move")

    def metrics(self, world: World) -> Mapping[str, Any]:
        return {"pods": 1, "readyPods": 1, "resources": {}}

    def counts(self, desired: Obj, world: World) -> Mapping[str, Any]:
        return {"value": self.value(world)}

    def title(self, actions: Sequence[Action], world: World) -> str:
        return describe_actions(actions)

    def warnings(self, desired: Obj, world: World) -> list:
        return []


DESIRED = Obj({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "s", "namespace": "default"}})


def plan(model: Walk, start: int, **env: Any):
    return S.simulate(model, DESIRED, World([_state(start)]), Environment(**env))


def test_a_long_plan_is_not_capped_by_default():
    n = 3000  # more steps than any fixed default cap the tool ever had
    p = plan(Walk([i + 1 for i in range(n)] + [n], n), 0)
    assert p.outcome == "converged" and p.stuck is None
    assert len(p.steps) == n and p.summary["steps"] == n


def test_max_steps_is_an_explicit_cap_only():
    p = plan(Walk([1, 2, 3, 4, 5, 5], 5), 0, max_steps=3)
    assert p.outcome == "stuck" and p.stuck.reason == "MaxStepsExceeded" and len(p.steps) == 3
    assert plan(Walk([1, 2, 3, 4, 5, 5], 5), 0).outcome == "converged"


def test_a_controller_that_loops_ends_stuck_no_progress():
    p = plan(Walk([1, 2, 0], goal=3), 0)  # 0 -> 1 -> 2 -> 0 -> ... never 3
    assert p.outcome == "stuck" and p.stuck.reason == "NoProgress"
    assert "loops without progress" in p.stuck.message


def test_a_controller_that_never_repeats_ends_stuck_no_progress(monkeypatch):
    monkeypatch.setattr(S._Guard, "SOFT_BASE", 50)

    class Forever(Walk):
        def reconcile(self, desired, world):  # a new value on every pass: nothing ever repeats
            v = self.value(world)
            return [Action("update", "ConfigMap", "s", "default", "grow", "toy#grow", payload=_state(v + 1).raw)]

    p = plan(Forever([], goal=-1), 0)
    assert p.outcome == "stuck" and p.stuck.reason == "NoProgress"
    assert "without the world settling" in p.stuck.message


@settings(max_examples=40, deadline=None)
@given(data=st.data(), size=st.integers(1, 8))
def test_plan_terminates_and_reaches_the_goal_exactly_when_the_walk_does(data, size):
    """Every plan ends: converged when the walk from 0 reaches the goal (in exactly
    that many steps), stuck ``NoProgress`` when it cycles first."""
    table = data.draw(st.lists(st.integers(0, size - 1), min_size=size, max_size=size))
    goal = data.draw(st.integers(0, size - 1))
    seen, v = [], 0
    while v != goal and v not in seen:
        seen.append(v)
        v = table[v]
    p = plan(Walk(table, goal), 0)
    if v == goal:
        assert p.outcome == ("noop" if goal == 0 else "converged") and len(p.steps) == len(seen)
    else:
        assert p.outcome == "stuck" and p.stuck.reason == "NoProgress"
    assert_phases_cover(p)


def assert_phases_cover(p) -> None:
    covered = [n for ph in p.phases for n in range(ph.first_step, ph.last_step + 1)]
    assert covered == [s.step for s in p.steps]
    assert all(ph.counts["steps"] == ph.last_step - ph.first_step + 1 for ph in p.phases)


def test_next_is_the_immediate_pass_even_when_it_only_waits():
    """The object is not ready yet: the controller's next pass does nothing but wait;
    ``next`` shows that pass (no actions, what it waits for), while outcome and
    summary describe the whole plan."""
    p = S.simulate(Walk([1, 2, 2], 2), DESIRED, World([_state(0, ready=False)]), Environment())
    assert [s.actions[0].index for s in p.steps] == [1, 2]
    n = S.first_step(p)
    assert len(n.steps) == 1
    step = n.steps[0]
    assert step.actions == () and step.wait_for == ("value 0 ready",)
    assert "waits" in step.title
    assert n.outcome == "converged" and n.summary["steps"] == 2 and n.immediate
    assert [(ph.first_step, ph.last_step) for ph in n.phases] == [(1, 1)]


def test_next_shows_the_first_step_when_the_pass_acts():
    p = plan(Walk([1, 2, 2], 2), 0)
    n = S.first_step(p)
    assert n.steps == p.steps[:1] and n.steps[0].actions


def test_next_of_a_settled_world_has_no_step():
    n = S.first_step(plan(Walk([0], 0), 0))
    assert n.outcome == "noop" and n.steps == () and n.phases == ()


def test_next_of_a_plan_stuck_from_the_start_shows_the_pass_waiting_for_what_blocks_it():
    class Blocked(Walk):
        def advance(self, desired, world, env):
            return Progress(world)  # the object never becomes ready

    p = S.simulate(Blocked([1], 1), DESIRED, World([_state(0, ready=False)]), Environment())
    assert p.outcome == "stuck" and p.steps == ()
    n = S.first_step(p)
    (step,) = n.steps
    assert step.actions == () and step.wait_for == ("cannot move",) and n.stuck.reason == "Toy"


@pytest.fixture
def collector_on():
    was = gc.isenabled()
    gc.enable()
    gc.unfreeze()
    yield
    gc.unfreeze()
    if not was:
        gc.disable()


def test_a_command_plan_hands_what_it_made_to_the_permanent_generation(collector_on, monkeypatch):
    # given a console command's process (rolloutctl.launch marks it)
    monkeypatch.setitem(process._state, "command", True)
    # when a plan ends
    p = plan(Walk([1, 2, 3, 3], 3), 0)
    # then the collector is on again and the plan's objects are out of its young
    # generations (the next young collection does not traverse them)
    assert p.outcome == "converged"
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0
    assert gc.get_count()[0] < 1000


def test_a_library_plan_keeps_the_collector_as_it_was(collector_on):
    # given code that imports the package (not marked as a command)
    assert not process.is_command()
    # when a plan ends, nothing was frozen and the collector is on as before
    p = plan(Walk([1, 2, 3, 3], 3), 0)
    assert p.outcome == "converged"
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_a_plan_with_the_collector_off_leaves_it_off(monkeypatch):
    monkeypatch.setitem(process._state, "command", True)
    was = gc.isenabled()
    gc.disable()
    gc.unfreeze()
    try:
        plan(Walk([1, 2, 3, 3], 3), 0)
        assert not gc.isenabled()
        assert gc.get_freeze_count() == 0
    finally:
        gc.unfreeze()
        if was:
            gc.enable()


class DeleteTwice(Walk):
    """A controller whose two components both find the same object excess in one pass
    (Grove: a scaled-in scaling-group replica whose breach has also expired): it sends
    two deletes of it, the second of an object already being deleted."""

    def reconcile(self, desired: Obj, world: World) -> list[Action]:
        if world.get("ConfigMap", "default", "extra") is None or world.get("ConfigMap", "default", "extra").terminating:
            return []
        return [Action("delete", "ConfigMap", "extra", "default", "scaled in", "toy#scaleIn"),
                Action("delete", "ConfigMap", "extra", "default", "gang terminated", "toy#gangTerminate")]


def test_an_object_deleted_twice_in_one_pass_is_shown_and_counted_once():
    extra = Obj({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "extra", "namespace": "default"}})
    p = S.simulate(DeleteTwice([0], 0), DESIRED, World([_state(0), extra]), Environment())
    assert [[(a.verb, a.name, a.reason) for a in s.actions] for s in p.steps] == [[("delete", "extra", "scaled in")]]
    assert p.summary["deletes"] == 1
    assert p.steps[0].title == "delete 1 ConfigMap"
