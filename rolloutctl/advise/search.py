"""The search behind ``rolloutctl advise``: plan candidate strategies and budgets with
the kind's own model (``core.simulate.run``, the function ``plan`` uses) and pick the
best that meets the constraints.

- **Candidates** come from the kind (``model.advice_spaces``): per strategy, a grid of
  budget fields (``core.advice.StrategySpace``). This module names no operator.
- **Constraints**: the plan converges (or has nothing to do) in the user's
  environment (``--capacity``, ``--never-ready``); ready pods never drop below
  ``--min-ready`` (default: the kind's floor, ``model.floor_deficit``, never worse
  than at the start); the change is rolled out (``model.rolls_out``).
- **Objective**: ``steps`` (default), ``peak`` (the first ``--capacity`` resource,
  GPUs if none) or ``time`` (timed models only); ties broken by the other two, then
  by the operator's own strategies before proposed ones, then by the fewest fields
  set, then by the patch's text (so the answer is deterministic).
- **Search**: exact over the grid when its planning work fits the budget; otherwise a
  best-first local search from the defaults, then the rest of the grid in order,
  until the budget is spent. Candidates are pruned only by two monotonicity rules
  that ``tests/advise/test_monotonicity.py`` verifies on the models with hypothesis:
  (U) a candidate that breaks the floor makes every candidate with more
  unavailability (and the same other fields) fail too; (S) a candidate stuck on
  ``InsufficientCapacity`` makes every candidate with more surge fail too.
  ``optimal`` is true when every candidate of the grid was planned or pruned.
- **Budget**: planning work is counted deterministically (the worlds each plan passes
  through and its actions); the default allows about 20 times the work of one
  ``rolloutctl plan`` of the manifest as given, start-up included (``STARTUP_WORK``,
  bench/README.md). ``exhaustive`` lifts it.
"""

from __future__ import annotations

import heapq
import itertools
import json
import math
from types import MappingProxyType
from typing import Any, Callable, Iterator, Mapping, Sequence

from ..core.advice import (SURGE, UNAVAILABLE, Advice, Built, Candidate, Dimension, GridInfo, Rejection, Trace,
                           StrategySpace)
from ..core.environment import Environment
from ..core.model import Obj, Stuck, Warning
from ..core.quantity import format_quantity, parse_quantity
from ..core.records import record, replace
from ..core.simulate import run

OBJECTIVES = ("steps", "peak", "time")
DEFAULT_PEAK_RESOURCE = "nvidia.com/gpu"
#: planning work of one candidate: PASS_WORK per world its plan passes through, one unit
#: per action of the plan (each is applied to the world and patches its views), and
#: POD_WORK per pod (the first world of a candidate builds its views from every object).
#: Fitted on advise runs of the small test PodCliqueSet, the bundled samples and Grove's e2e
#: scale-up test (1,500-step rolling plans; 10-step ReplicaRecreate plans of 4,000 actions):
#: a world costs about 0.36 ms, an action about 0.07 ms and a pod 0.03 ms per candidate on
#: the bench machine (the work queue reconciles only what changed, so later worlds do not
#: depend on the number of pods). Counting worlds weighted by pods instead undercounted a
#: surge-heavy candidate some 6 times, and the default search of the e2e scale-up test ran
#: for minutes.
PASS_WORK = 5
POD_WORK = 0.4
#: start-up, loading and admission of one ``rolloutctl plan`` in the same units (about 0.1 s)
STARTUP_WORK = 1000
BUDGET_FACTOR = 20
FRONTIER_SIZE = 8

V_REJECTED = "Rejected"
#: a candidate the API server stores and the controller refuses (its plan: stuck ValidationFailed)
V_INVALID = "ValidationFailed"
V_FLOOR = "MinReadyBreached"
V_PRUNED_FLOOR = "MinReadyBreached"


@record(frozen=True)
class Floor:
    """``--min-ready``: ``pods`` ready pods at least, or (None) the kind's own floor."""

    spelled: int | str
    pods: int | None


@record
class _Eval:
    cand: Candidate
    values: tuple
    breached: bool
    stuck_reason: str | None
    work: int
    #: ready pods in the plan's starting world (None: not planned)
    start_ready: int | None = None


class _Watched:
    """The model, watching every world the plan passes through for the kind's floor."""

    def __init__(self, model: Any, desired: Obj) -> None:
        self._m = model
        self._d = desired
        self.api_version, self.kind, self.timed = model.api_version, model.kind, model.timed
        self.first: int | None = None
        self.worst = 0
        self.passes = 0
        self.start_ready: int | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._m, name)

    def metrics(self, world: Any) -> Mapping[str, Any]:
        self.passes += 1
        d = self._m.floor_deficit(self._d, world)
        if self.first is None:
            self.first = d
        self.worst = max(self.worst, d)
        m = self._m.metrics(world)
        if self.start_ready is None:
            self.start_ready = int(m.get("readyPods", 0))
        return m


def peak_resource(capacity: Mapping[str, int], peak: Mapping[str, str] = MappingProxyType({})) -> str:
    """The resource ``--minimize peak`` minimizes and the answer shows: the first
    ``--capacity`` resource; else, of the resources the manifest as given peaks at
    (``peak``), nvidia.com/gpu, then another extended resource (a name with a ``/``,
    the first by name: a TPU or another vendor's GPU), then cpu, then memory, then any
    other (the first by name); nvidia.com/gpu when it requests nothing."""
    if capacity:
        return next(iter(capacity))
    used = sorted(r for r, q in peak.items() if q and parse_quantity(q) > 0)
    if DEFAULT_PEAK_RESOURCE in used:
        return DEFAULT_PEAK_RESOURCE
    ranked = [r for r in used if "/" in r] + [r for r in ("cpu", "memory") if r in used] + used
    return ranked[0] if ranked else DEFAULT_PEAK_RESOURCE


class Search:
    """One ``advise`` run for one target."""

    def __init__(self, make_model: Callable[[], Any], desired: Obj, observed: Sequence[Obj], old: Obj | None,
                 env: Environment, floor: Floor, objective: str, *, exhaustive: bool = False,
                 capacity_order: Sequence[str] = (), proposed: bool = True,
                 warnings: Sequence[Warning] = (), on_candidate: Callable[[int, float | None], None] | None = None) -> None:
        self.make_model = make_model
        #: called after each candidate's plan with the count planned and the share of the
        #: budget used (None with ``exhaustive``: no budget)
        self.on_candidate = on_candidate
        self.desired = desired
        self.observed = list(observed)
        self.old = old
        self.env = env
        self.floor = floor
        self.objective = objective
        self.exhaustive = exhaustive
        self.include_proposed = proposed
        self.input_warnings = tuple(warnings)
        #: the resource weighed (``peak_resource``): given by ``--capacity``, or chosen once
        #: the manifest as given is planned
        self.resource_given = bool(capacity_order or env.capacity)
        self.resource = capacity_order[0] if capacity_order else peak_resource(env.capacity)
        self.done: dict[tuple[str, tuple], _Eval] = {}
        self.pruned: set[tuple[str, tuple]] = set()
        self.work = 0
        self.budget: float = math.inf
        #: the starting world of the first candidate planned (the manifest as given);
        #: a kind with ``reobserve`` derives the others' from it
        self.base_world: Any = None

    # -- one candidate -------------------------------------------------------------------
    def plan(self, space: StrategySpace, values: Mapping[str, Any], built: Built) -> _Eval:
        model = self.make_model()
        vals = tuple(values[d.key] for d in space.dimensions)
        # A candidate the API server refuses is not planned. One it stores is planned as
        # ``plan`` plans it, whatever its lint errors say: the plan shows what the operator
        # does with it (stuck ValidationFailed when the controller's own validation refuses
        # it; the pending cluster it creates before a Service cannot be built, ...).
        at_admission = getattr(model, "rejected_at_admission", None)
        problems = [f for f in model.validate(built.manifest, self.old)
                    if f.severity == "error" and (at_admission is None or at_admission(f))]
        if problems:
            f = problems[0]
            where = f"{f.path}: " if f.path and not f.message.startswith(f.path) else ""  # messages may name it
            msg = f"{f.rule}: {where}{f.message}"
            cand = self._candidate(space, values, built, "stuck", Stuck(V_REJECTED, msg), {}, None, (V_REJECTED, msg))
            return _Eval(cand, vals, False, V_REJECTED, 1)
        watched = _Watched(model, built.manifest)
        if self.base_world is not None and hasattr(model, "reobserve"):
            world = model.reobserve(self.base_world, built.manifest, self.observed, self.env)
        else:
            world = model.observe(built.manifest, self.observed, self.env)
            if self.base_world is None:
                self.base_world = world
        plan, final = run(watched, built.manifest, world, self.env)
        breached = watched.worst > (watched.first or 0)
        summary = dict(plan.summary)
        time = plan.steps[-1].time if plan.steps and model.timed else (0 if model.timed else None)
        violation: tuple[str, str] | None = None
        if plan.outcome == "stuck" and plan.stuck is not None:
            violation = (plan.stuck.reason, plan.stuck.message)
        elif self.floor.pods is not None and int(summary.get("minReadyPods", 0)) < self.floor.pods:
            violation = (V_FLOOR, f"ready pods drop to {summary.get('minReadyPods', 0)}, below --min-ready "
                         f"{self.floor.spelled} ({self.floor.pods} pods)")
        elif self.floor.pods is None and breached:
            violation = (V_FLOOR, self._floor_message(model))
        else:
            not_out = model.rolls_out(built.manifest, final)
            if not_out is not None:
                violation = not_out
        if self.floor.pods is not None:
            breached = int(summary.get("minReadyPods", 0)) < self.floor.pods
        cand = self._candidate(space, values, built, plan.outcome, plan.stuck, summary, time, violation, plan)
        work = (PASS_WORK * watched.passes + sum(len(step.actions) for step in plan.steps)
                + math.ceil(POD_WORK * int(summary.get("peakPods", 0))))
        return _Eval(cand, vals, breached, plan.stuck.reason if plan.stuck else None, work, watched.start_ready)

    @staticmethod
    def _floor_message(model: Any) -> str:
        return "the default floor is broken: " + str(getattr(model, "floor_text", "availability drops"))

    def _candidate(self, space: StrategySpace, values: Mapping[str, Any], built: Built, outcome: str,
                   stuck: Stuck | None, summary: Mapping[str, Any], time: int | None,
                   violation: tuple[str, str] | None, plan: Any = None) -> Candidate:
        return Candidate(
            strategy=space.strategy, proposed=space.proposed, patch=built.patch,
            values={d.key: values[d.key] for d in space.dimensions}, outcome=outcome, stuck=stuck,
            steps=int(summary.get("steps", 0)), min_ready_pods=int(summary.get("minReadyPods", 0)),
            peak_pods=int(summary.get("peakPods", 0)), peak=dict(summary.get("peak") or {}), time=time,
            complexity=built.complexity, violation=violation,
            plan=Trace.of(plan) if plan is not None else None)

    # -- ranking ---------------------------------------------------------------------------
    def peak_of(self, c: Candidate) -> int:
        q = c.peak.get(self.resource)
        return parse_quantity(q) if q else 0

    def key(self, c: Candidate) -> tuple:
        metrics = {"steps": c.steps, "peak": self.peak_of(c), "time": c.time or 0}
        order = [self.objective] + [o for o in OBJECTIVES if o != self.objective]
        # (the manifest as given, whose patch is empty, wins a tie: no change beats one that
        # sets the operator's default)
        return (*(metrics[o] for o in order), c.proposed, bool(c.patch), c.complexity,
                json.dumps(c.patch, sort_keys=True, default=str))

    # -- the search --------------------------------------------------------------------------
    def evaluate(self, space: StrategySpace, values: Mapping[str, Any]) -> _Eval | None:
        """Plan ``values`` unless planned already or pruned; None when pruned or over budget."""
        vals = tuple(values[d.key] for d in space.dimensions)
        k = (space.strategy, vals)
        if k in self.done:
            return self.done[k]
        if k in self.pruned or self._prunable(space, vals):
            self.pruned.add(k)
            return None
        if self.work >= self.budget:
            return None
        e = self.plan(space, values, space.build(values))
        self.work += e.work
        self.done[k] = e
        if self.on_candidate is not None:
            self.on_candidate(len(self.done), min(1.0, self.work / self.budget) if self.budget < math.inf else None)
        return e

    def _prunable(self, space: StrategySpace, vals: tuple) -> bool:
        for (strategy, other), e in self.done.items():
            if strategy != space.strategy or e.cand.violation is None:
                continue
            if e.breached and _dominates(space.dimensions, vals, other, UNAVAILABLE):
                return True
            if e.stuck_reason == "InsufficientCapacity" and _dominates(space.dimensions, vals, other, SURGE):
                return True
        return False

    def run(self) -> Advice:
        spaces = [s for s in self.make_model().advice_spaces(self.desired, self.old)
                  if self.include_proposed or not s.proposed]
        current = self._current()
        if not self.resource_given:
            self.resource = peak_resource(self.env.capacity, current.cand.peak)
        if current.cand.outcome == "noop" and current.cand.feasible:
            return self._nothing_to_roll_out(current.cand)
        teardown = getattr(self.make_model(), "teardown", None)
        why = teardown(self.desired) if teardown is not None else None
        if why:
            return self._as_is(current.cand, Warning(
                "Teardown", f"{why}; no strategy or budget changes it, none is searched, and the floor of ready "
                "pods does not apply", ""))
        if self.floor.pods is not None and current.start_ready is not None and current.start_ready < self.floor.pods:
            return self._floor_above_start(spaces, current, current.start_ready)
        if not self.exhaustive:
            self.budget = BUDGET_FACTOR * (STARTUP_WORK + current.work) - current.work
        rejected: list[Rejection] = []
        usable = []
        for s in spaces:
            if s.unusable is not None:
                rejected.append(Rejection(s.strategy, s.proposed, s.unusable[0], s.unusable[1]))
            else:
                usable.append(s)
        by_name = {s.strategy: s for s in usable}
        starts = {s.strategy: self._start(s) for s in usable}
        # 1. each strategy's defaults, then whole grids, smallest first, while they fit
        for s in usable:
            self.evaluate(s, starts[s.strategy])
        unit = max(1, current.work)
        for s in sorted(usable, key=_size):
            if self.work + _size(s) * unit > self.budget:
                break
            for values in _grid(s):
                self.evaluate(s, values)
        # 2. best-first local search from the defaults of the strategies left
        heap: list[tuple] = []
        seq = itertools.count()
        for s in usable:
            heapq.heappush(heap, ((0,), next(seq), s.strategy, tuple(starts[s.strategy][d.key] for d in s.dimensions)))
        seen: set[tuple[str, tuple]] = set()
        while heap and self.work < self.budget:
            _, _, strategy, vals = heapq.heappop(heap)
            s = by_name[strategy]
            if (strategy, vals) in seen:
                continue
            seen.add((strategy, vals))
            values = dict(zip((d.key for d in s.dimensions), vals))
            e = self.evaluate(s, values)
            if e is None:
                continue
            prio = (0 if e.cand.feasible else 1, *self.key(e.cand)[:3])
            for nb in _neighbours(s, values):
                nv = tuple(nb[d.key] for d in s.dimensions)
                if (strategy, nv) not in seen:
                    heapq.heappush(heap, (prio, next(seq), strategy, nv))
        # 2. the rest of the grid, in order (smaller budgets first: they prune the larger)
        grid_info = []
        complete = True
        for s in usable:
            size = 0
            for values in _grid(s):
                if self.work >= self.budget:
                    complete = False
                    size = _size(s)
                    break
                size += 1
                self.evaluate(s, values)
            planned = sum(1 for (strategy, _v) in self.done if strategy == s.strategy)
            pruned = sum(1 for k in self.pruned if k[0] == s.strategy and k not in self.done)
            grid_info.append(GridInfo(s.strategy, tuple((d.label, d.values) for d in s.dimensions), size, planned,
                                      pruned, size - planned - pruned))
        evals = list(self.done.values())
        feasible = sorted([e.cand for e in evals if e.cand.feasible] + ([current.cand] if current.cand.feasible else []),
                          key=self.key)
        for s in usable:
            mine = [e.cand for e in evals if e.cand.strategy == s.strategy]
            if mine and not any(c.feasible for c in mine):
                best = min(mine, key=lambda c: (_violation_rank(c), self.key(c)))
                assert best.violation is not None
                rejected.append(Rejection(s.strategy, s.proposed, best.violation[0], best.violation[1], best))
            elif not mine:
                rejected.append(Rejection(s.strategy, s.proposed, "NotPlanned",
                                          "no candidate of this strategy was planned within the budget "
                                          "(use --exhaustive)"))
        order = {s.strategy: i for i, s in enumerate(spaces)}
        rejected.sort(key=lambda r: order.get(r.strategy, 99))
        warnings = list(self.input_warnings)
        if any(c.proposed for c in feasible[:1]):
            warnings.append(Warning("ProposedStrategy", f"{feasible[0].strategy} is proposed in a design discussion "
                                    "and not implemented by the operator: the patch needs an operator that has it",
                                    "spec.updateStrategy"))
        if not complete:
            warnings.append(Warning("SearchBudget", "the grid is larger than the default budget allows: the answer is "
                                    "the best of the candidates planned (use --exhaustive for the whole grid)", ""))
        return self._advice(
            searched=len(self.done), optimal=complete,
            recommendation=feasible[0] if feasible else None, frontier=tuple(self.frontier(feasible)),
            rejected=tuple(rejected), grid=tuple(grid_info), warnings=tuple(warnings), current=current.cand)

    def _advice(self, **result: Any) -> Advice:
        """The Advice of this search's target and constraints with ``result`` (what was
        searched and found)."""
        return Advice(
            target=self.desired.ref,
            capacity={r: format_quantity(q, r) for r, q in self.env.capacity.items()},
            min_ready=self.floor.spelled, min_ready_pods=self.floor.pods, objective=self.objective,
            peak_resource=self.resource,
            floor=str(getattr(self.make_model(), "floor_goal", "")) if self.floor.pods is None else "", **result)

    def _floor_above_start(self, spaces: Sequence[StrategySpace], current: _Eval, ready: int) -> Advice:
        """``--min-ready`` asks for more ready pods than the rollout starts with. A plan's
        least ready count includes its starting world, which every candidate shares (the
        observed cluster), so none can meet it: nothing is searched, and every strategy is
        rejected with that reason (the note ``MinReadyAboveStart``)."""
        pods = f"{ready} pod{'' if ready == 1 else 's'}"
        rejected = [Rejection(s.strategy, s.proposed, *(s.unusable or (
            V_FLOOR, f"ready pods start at {ready}, below --min-ready {self.floor.spelled} ({self.floor.pods} pods)")))
            for s in spaces]
        note = Warning("MinReadyAboveStart", f"--min-ready {self.floor.spelled} ({self.floor.pods} pods) is more than "
                       f"the {pods} ready when the rollout starts: a plan's least ready count includes its start, so no "
                       "strategy or budget can meet it and none is searched", "")
        return self._advice(searched=1, optimal=True, recommendation=None, frontier=(), rejected=tuple(rejected),
                            grid=(), warnings=(*self.input_warnings, note), current=current.cand)

    def _nothing_to_roll_out(self, current: Candidate) -> Advice:
        """The manifest as given changes nothing the controllers act on (its plan has no
        step): no strategy or budget can do better than no rollout, and none is searched."""
        return self._as_is(current, Warning("NothingToRollOut", "the change rolls nothing out (plan has nothing to "
                                            "do), so no strategy or budget is searched", ""))

    def _as_is(self, current: Candidate, why: Warning) -> Advice:
        """The manifest as given is the answer, and no candidate is searched (``why``: the
        change rolls nothing out, or tears the workload down whatever the strategy, which
        the kind's ``teardown`` says); the recommendation is the plan as given."""
        if why.code == "Teardown" and current.violation is not None and current.violation[0] == "MinReadyBreached":
            current = replace(current, violation=None)  # the floor is the workload's, which the change removes
        warnings = [*self.input_warnings, why]
        return self._advice(searched=1, optimal=True, recommendation=current, frontier=(current,), rejected=(),
                            grid=(), warnings=tuple(warnings), current=current)

    @staticmethod
    def _start(s: StrategySpace) -> dict[str, Any]:
        start = {d.key: d.start if d.start in d.values else d.values[0] for d in s.dimensions}
        return start if s.allowed(start) else next(iter(_grid(s)), start)

    def _current(self) -> _Eval:
        """The manifest as given (the reference, and the unit of the budget)."""
        own = StrategySpace(str(self.make_model().strategy(self.desired)), False, (),
                            lambda values: Built(self.desired, {}, 0))
        e = self.plan(own, {}, Built(self.desired, {}, 0))
        return e

    def frontier(self, feasible: Sequence[Candidate]) -> list[Candidate]:
        """The best candidates that no other beats on steps, min-ready and peak at once
        (one per distinct triple, the best ranked, at most ``FRONTIER_SIZE``), and the
        best of every other strategy that has a feasible candidate; best first."""
        out: list[Candidate] = []
        seen: set[tuple] = set()
        for c in feasible:  # already in rank order
            trip = (c.steps, c.min_ready_pods, self.peak_of(c))
            if trip in seen:
                continue
            if any(o.steps <= c.steps and o.min_ready_pods >= c.min_ready_pods and self.peak_of(o) <= self.peak_of(c)
                   for o in out):
                continue
            seen.add(trip)
            out.append(c)
            if len(out) >= FRONTIER_SIZE:
                break
        for c in feasible:
            if all(o.strategy != c.strategy for o in out):
                out.append(c)
        return sorted(out, key=self.key)


def _violation_rank(c: Candidate) -> int:
    """Which failing candidate explains a strategy best: a real plan before a rejected manifest."""
    return 1 if c.violation and c.violation[0] in (V_REJECTED, V_INVALID) else 0


def _ge(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return a >= b


def _dominates(dims: Sequence[Dimension], vals: tuple, other: tuple, role: str) -> bool:
    """``vals`` has at least ``other``'s budget in every ``role`` dimension and the same
    value everywhere else (and differs somewhere)."""
    if vals == other:
        return False
    for d, a, b in zip(dims, vals, other):
        if d.role == role:
            if not _ge(a, b):
                return False
        elif a != b:
            return False
    return True


def _grid(space: StrategySpace) -> Iterator[dict[str, Any]]:
    keys = [d.key for d in space.dimensions]
    for combo in itertools.product(*(d.values for d in space.dimensions)):
        values = dict(zip(keys, combo))
        if space.allowed(values):
            yield values


def _size(space: StrategySpace, limit: int = 200_000) -> int:
    """Candidates in the grid (counted up to ``limit`` combinations; beyond, the
    product of the dimensions, an upper bound)."""
    total = math.prod(len(d.values) for d in space.dimensions)
    return sum(1 for _ in _grid(space)) if total <= limit else total


def _neighbours(space: StrategySpace, values: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """The largest budget, the budget doubled, one up, one down and halved (by position in
    its values; expanded in that order among equals): a budget that runs to hundreds of
    replicas is reached in a few expansions, not hundreds."""
    for d in space.dimensions:
        i = d.values.index(values[d.key])
        n = len(d.values)
        for j in dict.fromkeys((n - 1, min(2 * i + 1, n - 1), i + 1, i - 1, i // 2)):
            if 0 <= j < n and j != i:
                nb = {**values, d.key: d.values[j]}
                if space.allowed(nb):
                    yield nb


def parse_min_ready(text: str | None, desired_pods: int) -> Floor:
    """``--min-ready N`` or ``P%`` (a share of the desired pods, rounded up); None:
    the kind's floor. Raises ValueError with a message for bad spellings."""
    if text is None:
        return Floor("default", None)
    t = text.strip()
    if t.endswith("%"):
        num = t[:-1].strip()
        if not num.isdigit() or int(num) > 100:
            raise ValueError(f"--min-ready {text!r}: expected a count (e.g. 10) or a percentage 0%..100% (e.g. 75%)")
        return Floor(t, math.ceil(int(num) * desired_pods / 100))
    if not t.isdigit():
        raise ValueError(f"--min-ready {text!r}: expected a count (e.g. 10) or a percentage 0%..100% (e.g. 75%)")
    return Floor(int(t), int(t))


__all__ = ["Floor", "OBJECTIVES", "Search", "parse_min_ready", "peak_resource"]
