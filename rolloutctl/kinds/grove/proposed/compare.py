"""``rolloutctl plan --compare`` for PodCliqueSets: the same change planned under
each update strategy, side by side.

Each variant is derived from the user's manifest (docs/grove-proposed.md):

- ``RollingRecreate``: today's strategy; the proposed fields are removed.
- ``RollingUpdate``: the manifest's clique and scaling-group ``updateStrategy``
  budgets, or the design defaults (maxUnavailable 1, maxSurge 0) where unset; no
  PodCliqueSet-level budgets (the design rejects them under RollingUpdate).
- ``ReplicaRecreate``: the manifest's ``spec.updateStrategy.rollingUpdate`` when the
  manifest itself is ReplicaRecreate, else the defaults; no component budgets.
- ``ScaleThenRoll``: an alternative raised in the design review and never specified
  (unverified): raise ``spec.replicas`` by one with the old template, roll with
  today's RollingRecreate, then scale back. Planned as those three changes in a row.
- ``OnDelete``: only when the manifest itself is OnDelete, the manifest as written, so
  the comparison holds the plan of what the user would apply (as ``plan`` shows it:
  no pod replaced until deleted; the ``OnDeletePodsOutdated`` warning says which pods
  keep the old template) and the exit code follows it, as for any own strategy.

Every variant starts from the same observed cluster and runs in the same
environment (capacity, never-ready globs, max steps).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ....core.environment import Environment
from ....core.model import Comparison, ComparisonRow, Obj, Plan, Stuck, Warning
from ....core.quantity import format_quantity, parse_quantity
from ....core.records import record, replace
from ....core.simulate import run
from ....core.trees import copy_tree
from ....core.world import World

ROLLING_RECREATE = "RollingRecreate"
ROLLING_UPDATE = "RollingUpdate"
REPLICA_RECREATE = "ReplicaRecreate"
SCALE_THEN_ROLL = "ScaleThenRoll"
ON_DELETE = "OnDelete"
STRATEGIES = (ROLLING_RECREATE, ROLLING_UPDATE, REPLICA_RECREATE, SCALE_THEN_ROLL)
STUCK_REJECTED = "Rejected"


@record(frozen=True)
class Variant:
    strategy: str
    phases: tuple[Obj, ...]  # desired objects applied one after another
    first_observed: Obj | None = None  # replaces the user's previous manifest for the first phase


def _spec(raw: dict) -> dict:
    spec = raw.get("spec")
    if not isinstance(spec, dict):
        spec = raw["spec"] = {}
    return spec


def _template_items(raw: dict, key: str) -> list[dict]:
    tmpl = _spec(raw).get("template")
    items = tmpl.get(key) if isinstance(tmpl, dict) else None
    return [x for x in items if isinstance(x, dict)] if isinstance(items, list) else []


def with_strategy(raw: Mapping[str, Any], strategy: str, *, keep_pcs_budget: bool = False,
                  keep_component_budgets: bool = False) -> dict:
    """A copy of the manifest with ``spec.updateStrategy.type`` set and the proposed
    budget fields kept or removed."""
    m = copy_tree(dict(raw))
    spec = _spec(m)
    us = spec.get("updateStrategy") if isinstance(spec.get("updateStrategy"), dict) else {}
    new_us: dict[str, Any] = {"type": strategy}
    if keep_pcs_budget and isinstance(us.get("rollingUpdate"), dict):
        new_us["rollingUpdate"] = us["rollingUpdate"]
    spec["updateStrategy"] = new_us
    if not keep_component_budgets:
        for item in _template_items(m, "cliques") + _template_items(m, "podCliqueScalingGroups"):
            item.pop("updateStrategy", None)
    return m


def with_replicas(raw: Mapping[str, Any], replicas: int) -> dict:
    m = copy_tree(dict(raw))
    _spec(m)["replicas"] = replicas
    return m


def _obj(raw: dict, like: Obj) -> Obj:
    return Obj(raw, like.file, like.line, like.lines)


def _replicas(o: Obj) -> int:
    r = o.spec.get("replicas")
    return r if isinstance(r, int) and not isinstance(r, bool) else 0


def variants(desired: Obj, old: Obj | None) -> list[Variant]:
    """The four variants of ``desired`` (see the module docstring); ``old`` is the
    previously applied PodCliqueSet when known."""
    own = desired.spec.get("updateStrategy") if isinstance(desired.spec.get("updateStrategy"), Mapping) else {}
    own_type = own.get("type") or ROLLING_RECREATE
    rr = _obj(with_strategy(desired.raw, ROLLING_RECREATE), desired)
    ru = _obj(with_strategy(desired.raw, ROLLING_UPDATE, keep_component_budgets=True), desired)
    rc = _obj(with_strategy(desired.raw, REPLICA_RECREATE, keep_pcs_budget=own_type == REPLICA_RECREATE), desired)
    out = [Variant(ROLLING_RECREATE, (rr,)), Variant(ROLLING_UPDATE, (ru,)), Variant(REPLICA_RECREATE, (rc,))]
    if old is None:
        out.append(Variant(SCALE_THEN_ROLL, (rr,)))
    else:
        n_old, n_new = _replicas(old), _replicas(desired)
        up = _obj(with_strategy(with_replicas(old.raw, n_old + 1), ROLLING_RECREATE), old)
        roll = _obj(with_replicas(rr.raw, n_new + 1), desired)
        out.append(Variant(SCALE_THEN_ROLL, (up, roll, rr)))
    if own_type == ON_DELETE:
        out.append(Variant(ON_DELETE, (desired,)))
    return out


def _with_status(raw: Mapping[str, Any], status: Mapping[str, Any], like: Obj) -> Obj:
    r = dict(raw)
    r["status"] = dict(status)
    return Obj(r, like.file, like.line, like.lines)


def next_phase(world: World, desired: Obj) -> World:
    """The cluster after one phase, with the next manifest applied: the PodCliqueSet
    object takes the new spec and keeps its status."""
    cur = world.get("PodCliqueSet", desired.namespace, desired.name)
    status = cur.status if cur is not None else {}
    return world.replace(put=[_with_status(desired.raw, status, desired)])


def run_variant(model: Any, variant: Variant, observed: Sequence[Obj], env: Environment,
                old: Obj | None) -> tuple[ComparisonRow, list[Plan]]:
    """Plan every phase of ``variant`` from the observed cluster; one row."""
    plans: list[Plan] = []
    world: World | None = None
    for k, phase in enumerate(variant.phases):
        problems = [f for f in model.validate(phase, old if k == 0 else None) if f.severity == "error"]
        if problems:
            f = problems[0]
            stuck = Stuck(STUCK_REJECTED, f"the {variant.strategy} variant of the manifest is rejected: {f.rule}: "
                          f"{f.path + ': ' if f.path else ''}{f.message}", (phase.ref,))
            return ComparisonRow(variant.strategy, "stuck", stuck, sum(len(p.steps) for p in plans),
                                 0, 0, {}), plans
        if world is None:
            world = model.observe(phase, list(observed), env)
        else:
            world = next_phase(world, phase)
        plan, world = run(model, phase, world, env)
        plans.append(plan)
        if plan.outcome == "stuck":
            break
    return combine(variant.strategy, plans), plans


def combine(strategy: str, plans: Sequence[Plan]) -> ComparisonRow:
    """One row from the plans of consecutive phases: steps add up, the minimum of
    ready pods and the peaks are taken over all of them; the first stuck phase
    decides the outcome."""
    stuck = next((p.stuck for p in plans if p.outcome == "stuck"), None)
    if stuck is not None:
        outcome = "stuck"
    elif all(p.outcome == "noop" for p in plans):
        outcome = "noop"
    else:
        outcome = "converged"
    peak: dict[str, int] = {}
    for p in plans:
        for r, q in (p.summary.get("peak") or {}).items():
            peak[r] = max(peak.get(r, 0), parse_quantity(q))
    return ComparisonRow(
        strategy=strategy, outcome=outcome, stuck=stuck,
        steps=sum(len(p.steps) for p in plans),
        min_ready_pods=min((int(p.summary.get("minReadyPods", 0)) for p in plans), default=0),
        peak_pods=max((int(p.summary.get("peakPods", 0)) for p in plans), default=0),
        peak={r: format_quantity(q, r) for r, q in sorted(peak.items())})


def compare(model: Any, desired: Obj, observed: Sequence[Obj], env: Environment) -> Comparison:
    """The Comparison of ``desired`` against the observed cluster."""
    old = next((o for o in observed if o.kind == desired.kind and o.name == desired.name
                and o.namespace == desired.namespace), None)
    rows = []
    outdated: list[Warning] = []
    for v in variants(desired, old):
        row, plans = run_variant(model, v, observed, env, old)
        rows.append(replace(row, plans=tuple(plans)))  # the plans, for charts
        if v.strategy == ON_DELETE:  # what the row's steps leave undone
            outdated = [w for p in plans for w in p.warnings if w.code == "OnDeletePodsOutdated"]
    warnings = [Warning("ScaleThenRollUnverified",
                        "ScaleThenRoll is an alternative raised in the design review, not a specified strategy: "
                        "modelled as spec.replicas + 1 with the old template, a RollingRecreate roll, then scale back",
                        "spec.replicas"),
                Warning("ProposedStrategy",
                        "RollingUpdate budgets and ReplicaRecreate are proposed in the design discussion "
                        "(ai-dynamo/grove PR #262) and not implemented by the Grove operator",
                        "spec.updateStrategy"), *outdated]
    return Comparison(desired.ref, tuple(rows), tuple(sorted(warnings, key=lambda w: (w.code, w.path))))


def own_strategy(desired: Obj) -> str:
    us = desired.spec.get("updateStrategy") if isinstance(desired.spec.get("updateStrategy"), Mapping) else {}
    return str(us.get("type") or ROLLING_RECREATE)
