"""The fixpoint driver: controller pass, then the world, until nothing moves.

``simulate`` alternates ``model.reconcile`` (one reconcile pass of the operator)
and ``model.advance`` (scheduler, kubelet, timers). A pass with actions is a
``Step``. When a pass has nothing to do and the world cannot move, the plan has
either converged or is stuck, and the model says why.
"""

from __future__ import annotations

from typing import Any, Mapping

from .environment import Environment
from .kind import KindModel
from .model import STUCK_MAX_STEPS, Action, Obj, Plan, Step, Stuck, Warning
from .quantity import format_quantity
from .world import World


class _Tracker:
    def __init__(self) -> None:
        self.min_ready: int | None = None
        self.peak_pods = 0
        self.peak: dict[str, int] = {}

    def see(self, m: Mapping[str, Any]) -> None:
        ready = int(m.get("readyPods", 0))
        self.min_ready = ready if self.min_ready is None else min(self.min_ready, ready)
        self.peak_pods = max(self.peak_pods, int(m.get("pods", 0)))
        for r, q in (m.get("resources") or {}).items():
            if q > self.peak.get(r, 0):
                self.peak[r] = q


def simulate(model: KindModel, desired: Obj, world: World, env: Environment, *,
             extra_warnings: tuple[Warning, ...] = ()) -> Plan:
    """Plan ``desired`` from ``world`` until it converges or gets stuck."""
    return run(model, desired, world, env, extra_warnings=extra_warnings)[0]


def run(
    model: KindModel,
    desired: Obj,
    world: World,
    env: Environment,
    *,
    extra_warnings: tuple[Warning, ...] = (),
) -> tuple[Plan, World]:
    """``simulate``, also returning the final world (used to derive a settled
    cluster from a previously applied manifest)."""
    steps: list[Step] = []
    tracker = _Tracker()
    tracker.see(model.metrics(world))
    verbs = {"create": 0, "delete": 0, "update": 0, "status": 0}
    stuck: Stuck | None = None
    # Passes without actions only advance the world; bound them as well.
    budget = env.max_steps * 4 + 100
    while True:
        budget -= 1
        actions = model.reconcile(desired, world)
        if actions and all(a.hidden for a in actions):
            if budget < 0:
                stuck = Stuck(STUCK_MAX_STEPS, f"the plan did not settle within {env.max_steps} steps", ())
                break
            world = world.apply(actions)
            continue
        if actions:
            if len(steps) >= env.max_steps or budget < 0:
                stuck = Stuck(STUCK_MAX_STEPS, f"the plan did not settle within {env.max_steps} steps "
                              "(raise --max-steps if the workload is large)", (), ("rolloutctl plan --max-steps N",))
                break
            world = world.apply(actions)
            tracker.see(model.metrics(world))
            actions = [a for a in actions if not a.hidden]
            for a in actions:
                verbs[a.verb] = verbs.get(a.verb, 0) + 1
            prog = model.advance(desired, world, env)
            steps.append(
                Step(
                    step=len(steps) + 1,
                    title=model.title(actions, world),
                    actions=tuple(actions),
                    wait_for=prog.waits,
                    after=model.counts(desired, prog.world),
                    time=world.now if model.timed else None,
                )
            )
            world = prog.world
            tracker.see(model.metrics(world))
            continue
        prog = model.advance(desired, world, env)
        if prog.progressed and budget >= 0:
            world = prog.world
            tracker.see(model.metrics(world))
            if steps and prog.waits:
                # The world moved on its own: what the last step waited for grows.
                last = steps[-1]
                steps[-1] = Step(last.step, last.title, last.actions, last.wait_for + prog.waits,
                                 model.counts(desired, world), last.time)
            continue
        if model.converged(desired, world):
            pass
        elif budget < 0:
            stuck = Stuck(STUCK_MAX_STEPS, f"the plan did not settle within {env.max_steps} steps", ())
        else:
            stuck = model.diagnose(desired, world, env)
        break

    if stuck is not None:
        outcome = "stuck"
    elif not steps or all(a.verb == "status" for s in steps for a in s.actions):
        outcome = "noop"
    else:
        outcome = "converged"
    summary: dict[str, Any] = {
        "steps": len(steps),
        "creates": verbs["create"],
        "deletes": verbs["delete"],
        "updates": verbs["update"],
        "minReadyPods": tracker.min_ready or 0,
        "peakPods": tracker.peak_pods,
        "peak": {r: format_quantity(q, r) for r, q in sorted(tracker.peak.items())},
    }
    warnings = tuple(sorted(set(extra_warnings) | set(model.warnings(desired, world)),
                            key=lambda w: (w.code, w.path, w.message)))
    return Plan(
        target=desired.ref,
        strategy=model.strategy(desired),
        outcome=outcome,
        steps=tuple(steps),
        summary=summary,
        stuck=stuck,
        warnings=warnings,
    ), world


def first_step(plan: Plan) -> Plan:
    """``rolloutctl next``: the first step of ``plan``; outcome, stuck and summary
    still describe the whole plan that step starts."""
    return Plan(plan.target, plan.strategy, plan.outcome, plan.steps[:1], plan.summary, plan.stuck, plan.warnings)
