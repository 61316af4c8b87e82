"""The fixpoint driver: controller pass, then the world, until nothing moves.

``simulate`` alternates ``model.reconcile`` (one reconcile pass of the operator)
and ``model.advance`` (scheduler, kubelet, timers). A pass with actions is a
``Step``. When a pass has nothing to do and the world cannot move, the plan has
either converged or is stuck, and the model says why.
"""

from __future__ import annotations

import gc
import json
from typing import Any, Callable, Mapping, Sequence

from .environment import Environment
from .kind import KindModel
from .model import STUCK_MAX_STEPS, STUCK_NO_PROGRESS, Action, Obj, Phase, Plan, Step, Stuck, Warning, describe_actions
from .process import is_command
from .quantity import format_quantity
from .queue import WorkQueue
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


def _capacity_warnings(env: Environment, at_start: Mapping[str, int], peak: Mapping[str, int] | None) -> list[Warning]:
    """What ``--capacity`` did not do: a resource the observed workload already requests
    beyond it (only what the plan adds waits for room; nothing running is evicted), and
    a resource the user named that no pod of a plan that ran to its end requests (the
    limit bounds nothing: a misspelt resource, or a workload without GPUs; ``peak``
    None: the plan is stuck, and pods that never ran requested what they did)."""
    out = []
    for r in env.short(at_start, {}):
        out.append(Warning("CapacityExceededAtStart",
                           f"the observed pods already request {r} {format_quantity(at_start[r], r)}, more than "
                           f"--capacity {r}={format_quantity(env.capacity[r], r)}: a new pod waits until there is room, "
                           "and nothing running is evicted", ""))
    for r in env.stated if peak is not None else ():  # a stuck plan's pending pods count nowhere
        if not peak.get(r):
            out.append(Warning("CapacityNotRequested", f"--capacity {r}={format_quantity(env.capacity[r], r)} limits "
                               f"nothing: no pod of this plan requests {r}", ""))
    return out


def simulate(model: KindModel, desired: Obj, world: World, env: Environment, *,
             extra_warnings: tuple[Warning, ...] = (), on_step: Callable[[int], None] | None = None,
             queue: WorkQueue | None = None) -> Plan:
    """Plan ``desired`` from ``world`` until it converges or gets stuck. ``on_step``
    (the shell's progress line) hears the number of steps so far now and then.
    ``queue``: the work queue of a model whose rounds take keys from one (default: a
    fresh one; ``WorkQueue(everything=True)`` reconciles every key every round)."""
    return run(model, desired, world, env, extra_warnings=extra_warnings, on_step=on_step, queue=queue)[0]


def run(
    model: KindModel,
    desired: Obj,
    world: World,
    env: Environment,
    *,
    extra_warnings: tuple[Warning, ...] = (),
    on_step: Callable[[int], None] | None = None,
    queue: WorkQueue | None = None,
    record: bool = True,
) -> tuple[Plan, World]:
    """``simulate``, also returning the final world (used to derive a settled
    cluster from a previously applied manifest). ``record=False``: only the final
    world and the outcome matter (a settled cluster): the reconcile passes and the
    cluster's progress are the same, but the steps carry no titles, counts or
    metrics, and the plan no summary figures, warnings or phases.

    There is no step cap unless ``env.max_steps`` sets one: the plan ends when a
    pass has nothing to do and the world cannot move (converged, or stuck with the
    model's diagnosis). A model that keeps acting without settling still ends:
    ``_Guard`` stops it, stuck with ``NoProgress``."""
    collector = _Collector()
    try:
        return _run(model, desired, world, env, extra_warnings, on_step, collector, queue, record)
    finally:
        collector.close()


class _Collector:
    """The cyclic garbage collector during a plan. Python's own traverses every live
    object each time the heap has grown by a quarter, and the young generations every
    few hundred allocations: a plan allocates steadily while its heap only grows, and
    collection was a third of planning and super-linear in pods. The planner's worlds
    and views form no reference cycles (their memory goes as soon as nothing holds
    them), so while a plan runs the collector is off and runs once every
    ``max(MIN_PASSES, len(world))`` reconcile passes, for whatever cycles other code
    makes: its cost per pass stays constant. A plan inside another one (or with
    collection switched off) leaves it alone.

    When the outermost plan of a console command ends, everything it made is moved to
    the collector's permanent generation (``gc.freeze``) before the collector is on
    again. The objects allocated while it was off are still counted as the youngest
    generation, so otherwise the first allocation after the plan traversed all of them
    (0.36 s of a 100,000-pod creation plan) to free nearly nothing: the command keeps
    its plans until it exits. Code that imports the package (``core.process``) keeps
    its collector as it was."""

    MIN_PASSES = 2000

    def __init__(self) -> None:
        self.on = gc.isenabled()
        self.passes = 0
        if self.on:
            gc.disable()

    def tick(self, world: World) -> None:
        if not self.on:
            return
        self.passes += 1
        if self.passes >= max(self.MIN_PASSES, len(world)):
            self.passes = 0
            gc.collect()

    def close(self) -> None:
        if self.on:
            if is_command():
                gc.freeze()
            gc.enable()


def _run(model: KindModel, desired: Obj, world: World, env: Environment, extra_warnings: tuple[Warning, ...],
         on_step: Callable[[int], None] | None, collector: _Collector,
         queue: WorkQueue | None = None, record: bool = True) -> tuple[Plan, World]:
    steps: list[Step] = []
    tracker = _Tracker()
    at_start = model.metrics(world) if record else {}
    if record:
        tracker.see(at_start)
    verbs = {"create": 0, "delete": 0, "update": 0, "status": 0}
    stuck: Stuck | None = None
    guard = _Guard()
    first_pass: Step | None = None
    first_open = True  # the immediate pass has not been seen yet
    ahead: tuple[list[Any], Mapping[str, Any]] | None = None  # the next pass, when advance ran it
    passes = getattr(model, "reconcile_pass", None)
    if not getattr(model, "work_queue", False):
        queue = None
    elif queue is None:
        queue = WorkQueue()
    reconcile: Callable[[Obj, World], list] = model.reconcile if queue is None else \
        (lambda d, w: model.reconcile(d, w, queue))  # type: ignore[call-arg]
    advance: Callable[[Obj, World, Environment], Any] = model.advance if queue is None else \
        (lambda d, w, e: model.advance(d, w, e, queue))  # type: ignore[call-arg]
    while True:
        collector.tick(world)
        stuck = guard.check(world)
        if stuck is not None:
            break
        if ahead is not None:
            actions, memory = ahead
            ahead = None
        elif passes is not None:
            actions, memory = passes(desired, world)
        else:
            actions, memory = reconcile(desired, world), None
        if memory:
            world = world.with_memory(**memory)
        if not actions and queue is not None:
            queue.idle(world)
        if actions and all(a.hidden for a in actions):
            world = world.apply(actions)
            continue
        if actions:
            if env.max_steps is not None and len(steps) >= env.max_steps:
                stuck = Stuck(STUCK_MAX_STEPS, f"the plan did not settle within {env.max_steps} steps "
                              "(the --max-steps cap; without it the plan runs until it settles)", (),
                              ("rolloutctl plan without --max-steps",))
                break
            world = world.apply(actions)
            if record:
                tracker.see(model.metrics(world))
            actions = _shown(actions)
            for a in actions:
                verbs[a.verb] = verbs.get(a.verb, 0) + 1
            prog = advance(desired, world, env)
            if record:
                metrics = model.metrics(prog.world)
                steps.append(
                    Step(
                        step=len(steps) + 1,
                        title=model.title(actions, world),
                        actions=tuple(actions),
                        wait_for=prog.waits,
                        after=_after(model, desired, prog.world, metrics),
                        time=world.now if model.timed else None,
                    )
                )
            else:
                steps.append(Step(len(steps) + 1, "", tuple(actions), prog.waits))
            if first_open:
                first_open = False
                first_pass = steps[-1]
            if on_step is not None and len(steps) % 50 == 0:
                on_step(len(steps))
            world, ahead = prog.world, prog.ahead
            if record:
                tracker.see(metrics)
            continue
        prog = advance(desired, world, env)
        if prog.progressed:
            if first_open:
                # The immediate pass changes nothing: it only waits (or requeues).
                first_open = False
                first_pass = Step(1, _idle_title(model, prog.waits), (), prog.waits,
                                  _after(model, desired, prog.world) if record else {},
                                  world.now if model.timed else None)
            world, ahead = prog.world, prog.ahead
            if record:
                tracker.see(model.metrics(world))
            if steps and prog.waits:
                # The world moved on its own: what the last step waited for grows.
                last = steps[-1]
                steps[-1] = Step(last.step, last.title, last.actions, last.wait_for + prog.waits,
                                 _after(model, desired, world) if record else {}, last.time)
                if first_pass is not None and first_pass.step == last.step and first_pass.actions:
                    first_pass = steps[-1]
            continue
        if not model.converged(desired, world):
            stuck = model.diagnose(desired, world, env)
            if first_open:
                # Stuck from the start: the next pass changes nothing and waits for
                # what blocks it (the controller keeps requeueing).
                first_open = False
                first_pass = Step(1, _idle_title(model, prog.waits), (), prog.waits or (stuck.message,),
                                  _after(model, desired, world) if record else {}, world.now if model.timed else None)
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
    if not record:
        return Plan(target=desired.ref, strategy=model.strategy(desired), outcome=outcome, steps=tuple(steps),
                    summary=summary, stuck=stuck, first_pass=first_pass), world
    not_modelled = getattr(model, "not_modelled", None)
    limits = list(not_modelled(desired, world)) if not_modelled is not None else []
    limits += _capacity_warnings(env, at_start.get("resources") or {}, tracker.peak if stuck is None else None)
    warnings = tuple(sorted({keyed_warning(w, desired) for w in (*extra_warnings, *model.warnings(desired, world), *limits)},
                            key=lambda w: (w.code, w.path, w.message)))
    operators = getattr(model, "operators", None)
    return Plan(
        target=desired.ref,
        strategy=model.strategy(desired),
        outcome=outcome,
        steps=tuple(steps),
        summary=summary,
        stuck=stuck,
        warnings=warnings,
        phases=compute_phases(model, desired, tuple(steps)),
        operators=tuple(operators(desired)) if operators is not None else (),
        first_pass=first_pass,
    ), world


def _shown(actions: Sequence[Action]) -> list[Action]:
    """A step's actions as the user sees them: without the hidden bookkeeping, and an
    object deleted once. A controller that deletes an object twice in one reconcile (two
    components both find it excess) sends the API server a second delete of an object
    already being deleted, which changes nothing; the step shows and counts the first."""
    out: list[Action] = []
    deleted: set[tuple[str, str, str]] = set()
    for a in actions:
        if a.hidden:
            continue
        if a.verb == "delete":
            if a.key in deleted:
                continue
            deleted.add(a.key)
        out.append(a)
    return out


def _after(model: KindModel, desired: Obj, world: World, metrics: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A step's ``after``: the kind's counts, then (where the kind has no key of that
    name) the target's non-terminating ``pods``, ``readyPods`` and container
    ``requests`` (the quantities ``--capacity`` limits), the same numbers the summary's
    ``minReadyPods``/``peakPods``/``peak`` are taken from."""
    out = dict(model.counts(desired, world))
    m = metrics if metrics is not None else model.metrics(world)
    out.setdefault("pods", int(m.get("pods", 0)))
    out.setdefault("readyPods", int(m.get("readyPods", 0)))
    out.setdefault("requests", {r: format_quantity(q, r) for r, q in sorted((m.get("resources") or {}).items())})
    return out


def _idle_title(model: KindModel, waits: tuple[str, ...]) -> str:
    """The title of a pass that changes nothing and waits: the model's own wording
    where it has one (``idle_title``), else a generic line."""
    hook = getattr(model, "idle_title", None)
    title = hook(waits) if hook is not None else None
    return title or "no change in this pass: the controller waits" + (" and requeues" if any(
        "requeue" in w for w in waits) else "")


class _Guard:
    """Ends a plan whose controller keeps acting without the world settling.

    Real rollouts take a number of reconcile passes that grows with the objects
    involved (a few per pod at most), so up to ``SOFT_BASE + SOFT_PER_OBJECT`` times
    the most objects the world held, the guard only counts. Past that it remembers
    each world's fingerprint: a world seen before proves a loop (stuck
    ``NoProgress``, with the pass it returned to). A world that keeps changing
    without repeating ends at ``HARD_FACTOR`` times that bound, also ``NoProgress``.
    Without ``--max-steps`` this is what guarantees that every plan terminates."""

    SOFT_BASE = 2000
    SOFT_PER_OBJECT = 20
    HARD_FACTOR = 4

    def __init__(self) -> None:
        self.passes = 0
        self.peak_objects = 0
        self.seen: dict[int, int] | None = None

    def bound(self) -> int:
        return self.SOFT_BASE + self.SOFT_PER_OBJECT * self.peak_objects

    def check(self, world: World) -> Stuck | None:
        self.passes += 1
        if len(world) > self.peak_objects:
            self.peak_objects = len(world)
        soft = self.bound()
        if self.passes <= soft:
            return None
        if self.passes > self.HARD_FACTOR * soft:
            return Stuck(STUCK_NO_PROGRESS, f"the controller kept acting for {self.passes - 1} reconcile passes "
                         f"without the world settling (far more than {self.peak_objects} objects need)", ())
        if self.seen is None:
            self.seen = {}
        fp = fingerprint(world)
        before = self.seen.get(fp)
        if before is not None:
            return Stuck(STUCK_NO_PROGRESS, f"the controller keeps acting but the world is back where it was at "
                         f"reconcile pass {before}: the rollout loops without progress", ())
        self.seen[fp] = self.passes
        return None


def fingerprint(world: World) -> int:
    """A hash of everything a reconcile pass can read: the objects' content, the
    clock and the controllers' memory (equal worlds, equal fingerprints)."""
    h = hash(world.now)
    for o in world:
        got = o.memo.get("_fingerprint")
        if got is None:
            got = o.memo["_fingerprint"] = hash(json.dumps(o.raw, sort_keys=True, default=repr))
        h ^= hash((o.kind, o.namespace, o.name, got))
    try:
        h ^= hash(frozenset(world.memory.items()))
    except TypeError:
        h ^= hash(repr(sorted(world.memory.items(), key=lambda kv: kv[0])))
    return h


def compute_phases(model: KindModel, desired: Obj, steps: tuple[Step, ...]) -> tuple[Phase, ...]:
    """Group ``steps`` into phases: consecutive, covering every step once.

    The kind names them (optional ``phase_of(desired, step)`` -> a hashable label or
    ``None``, and ``phase_title(desired, label, steps)``); consecutive steps with the
    same label form one phase, and a step labelled ``None`` joins the phase before
    it (the first phase, if it comes first). Without the hook, ``generic_phase_of``
    groups by the role the actions share."""
    if not steps:
        return ()
    hook = getattr(model, "phase_of", None)
    title_hook = getattr(model, "phase_title", None)

    def label_of(s: Step) -> Any:
        return hook(desired, s) if hook is not None else generic_phase_of(s)

    def title_of(label: Any, group: list[Step]) -> str:
        got = title_hook(desired, label, group) if title_hook is not None else None
        return got or generic_phase_title(label, group)

    labels = [label_of(s) for s in steps]
    known = next((lab for lab in labels if lab is not None), None)
    groups: list[tuple[Any, list[Step]]] = []
    current = known
    for s, lab in zip(steps, labels):
        if lab is not None:
            current = lab
        if groups and groups[-1][0] == current:
            groups[-1][1].append(s)
        else:
            groups.append((current, [s]))
    return tuple(Phase(title_of(lab, group) if lab is not None else generic_phase_title(None, group),
                       group[0].step, group[-1].step, phase_counts(group)) for lab, group in groups)


def phase_counts(steps: list[Step]) -> dict[str, int]:
    """``steps``, ``creates``, ``deletes``, ``updates`` and ``pods`` (pods created) of a phase."""
    out = {"steps": len(steps), "creates": 0, "deletes": 0, "updates": 0, "pods": 0}
    for s in steps:
        for a in s.actions:
            if a.verb in ("create", "delete", "update"):
                out[a.verb + "s"] += 1
            if a.verb == "create" and a.kind == "Pod":
                out["pods"] += 1
    return out


def generic_phase_of(step: Step) -> Any:
    """The fallback label: the role the step's actions share (e.g. the pending
    RayCluster), else ``None`` (the step joins the phase before it)."""
    roles = {a.role for a in step.actions if a.role}
    return f"role {roles.pop()}" if len(roles) == 1 else None


def generic_phase_title(label: Any, steps: list[Step]) -> str:
    """The label and what the steps do, counted (``create 2 PodCliques; delete 1 Pod``)."""
    what = steps[0].title if len(steps) == 1 else describe_actions(a for s in steps for a in s.actions)
    what = what or steps[0].title
    return f"{label}: {what}" if label is not None else what


def keyed_warning(w: Warning, desired: Obj) -> Warning:
    """A plan warning as it leaves the planner: its path keyed by the desired object's
    data (``cliques[name=x]``, not ``cliques[2]``; ``core.paths.keyed_path``)."""
    from .paths import keyed_path

    path = keyed_path(desired.raw, w.path) if w.path else w.path
    return w if path == w.path else Warning(w.code, w.message, path)


def first_step(plan: Plan) -> Plan:
    """``rolloutctl next``: the immediate reconcile pass of ``plan`` -- what the
    controller does now, even when that is only a wait or a requeue (a step with no
    actions and its ``waitFor``); outcome, stuck and summary still describe the
    whole plan that pass starts."""
    first = plan.first_pass
    steps = (first,) if first is not None else ()
    phases: tuple[Phase, ...] = ()
    if first is not None:
        # the pass belongs to the plan's first phase when it is the plan's first step
        title = plan.phases[0].title if first.actions and plan.phases else generic_phase_title(None, [first])
        phases = (Phase(title, first.step, first.step, phase_counts([first])),)
    return Plan(plan.target, plan.strategy, plan.outcome, steps, plan.summary, plan.stuck, plan.warnings,
                phases, plan.operators, first, immediate=True)
