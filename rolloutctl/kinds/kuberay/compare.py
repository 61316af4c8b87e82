"""``plan --compare`` for a RayService: the same change under each upgrade strategy the
RayService controller has (``spec.upgradeStrategy.type``: ``NewCluster``,
``NewClusterWithIncrementalUpgrade``, ``None``; rayservice_controller.go
``shouldPrepareNewCluster`` / ``isZeroDowntimeUpgradeEnabled``), side by side.

The variants are the advise module's strategy spaces (``advise.advice_spaces``), each at
its starting budgets, which are the manifest's own where it sets them: one place derives
a strategy's manifest from the user's. The row of the strategy the manifest is in force
with is the manifest itself, so it is exactly ``plan``'s. A strategy the change cannot use
(the incremental upgrade without in-tree autoscaling or a Gateway class) is a stuck row
naming why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...core.environment import Environment
from ...core.model import Obj, Plan, Stuck, Warning
from ...core.results import Comparison, ComparisonRow
from ...core.simulate import simulate
from .advise import advice_spaces
from .decisions import INCREMENTAL


def _row(strategy: str, p: Plan) -> ComparisonRow:
    return ComparisonRow(strategy=strategy, outcome=p.outcome, stuck=p.stuck, steps=len(p.steps),
                         min_ready_pods=int(p.summary.get("minReadyPods", 0)),
                         peak_pods=int(p.summary.get("peakPods", 0)), peak=dict(p.summary.get("peak") or {}),
                         plans=(p,))


def compare(model: Any, desired: Obj, observed: Sequence[Obj], env: Environment, old: Obj | None,
            own: str) -> Comparison:
    """The Comparison of ``desired`` (whose strategy in force is ``own``) against the
    observed cluster, planned with ``model`` as ``plan`` plans it."""
    rows = []
    for space in advice_spaces(desired, old):
        if space.strategy == own:
            manifest = desired
        elif space.unusable is not None:
            code, message = space.unusable
            rows.append(ComparisonRow(space.strategy, "stuck", Stuck(code, message, (desired.ref,)), 0, 0, 0, {}))
            continue
        else:
            values: Mapping[str, Any] = {d.key: d.start if d.start in d.values else d.values[0]
                                         for d in space.dimensions}
            manifest = space.build(values).manifest
        world = model.observe(manifest, list(observed), env)
        rows.append(_row(space.strategy, simulate(model, manifest, world, env)))
    warnings = []
    if any(r.strategy == INCREMENTAL and r.plans for r in rows) and own != INCREMENTAL:
        warnings.append(Warning("CompareBudgets", f"the {INCREMENTAL} row uses the manifest's clusterUpgradeOptions "
                                "where it sets them, else stepSizePercent 100, maxSurgePercent 100, intervalSeconds "
                                "30; `rolloutctl advise` searches the budgets", "spec.upgradeStrategy"))
    return Comparison(desired.ref, tuple(rows), tuple(warnings))
