"""What ``rolloutctl advise`` may set on a RayService, and the floor it keeps by
default (the service keeps serving).

Candidate spaces (docs/advise.md), all upstream KubeRay (``spec.upgradeStrategy``):

- ``NewCluster``: a whole new RayCluster, traffic switched when it is ready
  (``rayservice_controller.go#shouldPrepareNewCluster``).
- ``NewClusterWithIncrementalUpgrade``: ``clusterUpgradeOptions.stepSizePercent``,
  ``maxSurgePercent`` and ``intervalSeconds`` (``reconcileServeTargetCapacity``,
  ``calculateTrafficRoutedPercent``). Percentages are taken where they give a
  distinct number of moves (ceil(100 / p) = 1..10: 100, 50, 34, 25, 20, 17, 15, 13,
  12, 10), with stepSizePercent <= maxSurgePercent (``ValidateClusterUpgradeOptions``);
  intervals 10, 30 and 60 s. The manifest's own values join the grid. Needs
  ``rayClusterConfig.enableInTreeAutoscaling`` and a ``gatewayClassName`` (taken from
  the manifest): without them the strategy is reported unusable, not guessed.
- ``None``: no new cluster (``isZeroDowntimeUpgradeEnabled``). Offered only where the
  change still reaches the running cluster (in place: appended worker groups, Serve
  config); a change that needs a new cluster is never rolled out under None, and the
  candidate fails with ``NotRolledOut``.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from typing import Any

from ...core.advice import OTHER, SURGE, Built, Dimension, StrategySpace
from ...core.model import Obj
from ...core.world import World
from .decisions import is_cluster_spec_hash_equal
from .validation.util import INCREMENTAL, is_autoscaling_enabled

NEW_CLUSTER = "NewCluster"
NONE = "None"
#: percentages with a distinct number of moves, ceil(100 / p) = 1..10
PERCENTS = tuple(sorted({math.ceil(100 / k) for k in range(1, 11)}))
INTERVALS = (10, 30, 60)
KEY_STEP = "spec.upgradeStrategy.clusterUpgradeOptions.stepSizePercent"
KEY_SURGE = "spec.upgradeStrategy.clusterUpgradeOptions.maxSurgePercent"
KEY_INTERVAL = "spec.upgradeStrategy.clusterUpgradeOptions.intervalSeconds"


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, dict) or isinstance(v, Mapping) else {}  # dict first: the common case, cheaper


def _obj(raw: dict, like: Obj) -> Obj:
    return Obj(raw, like.file, like.line, like.lines)


def _with_upgrade(desired: Obj, us: Mapping[str, Any]) -> Built:
    m = copy.deepcopy(dict(desired.raw))
    spec = m.setdefault("spec", {})
    spec["upgradeStrategy"] = copy.deepcopy(dict(us))
    complexity = 0 if us.get("type") == NEW_CLUSTER else 1
    complexity += len(_m(us.get("clusterUpgradeOptions")))
    return Built(_obj(m, desired), {"spec": {"upgradeStrategy": copy.deepcopy(dict(us))}}, complexity)


def _own_int(opts: Mapping[str, Any], key: str, lo: int, hi: int) -> tuple[int, ...]:
    v = opts.get(key)
    return (v,) if isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi else ()


def advice_spaces(desired: Obj, old: Obj | None) -> list[StrategySpace]:
    us = _m(desired.spec.get("upgradeStrategy"))
    opts = _m(us.get("clusterUpgradeOptions"))
    out = [StrategySpace(NEW_CLUSTER, False, (), lambda values: _with_upgrade(desired, {"type": NEW_CLUSTER}))]

    unusable = None
    gateway = opts.get("gatewayClassName")
    if not is_autoscaling_enabled(_m(desired.spec.get("rayClusterConfig"))):
        unusable = ("AutoscalingRequired", "NewClusterWithIncrementalUpgrade needs "
                    "spec.rayClusterConfig.enableInTreeAutoscaling: true (ValidateClusterUpgradeOptions); turning it "
                    "on changes the cluster spec, so set it in the manifest and ask again")
    elif not gateway:
        unusable = ("GatewayClassRequired", "NewClusterWithIncrementalUpgrade needs "
                    "spec.upgradeStrategy.clusterUpgradeOptions.gatewayClassName (a Gateway API class installed in the "
                    "cluster); set it in the manifest and ask again")
    pct = tuple(sorted(set(PERCENTS) | set(_own_int(opts, "stepSizePercent", 1, 100))))
    surge = tuple(sorted(set(PERCENTS) | set(_own_int(opts, "maxSurgePercent", 1, 100))))
    iv = tuple(sorted(set(INTERVALS) | set(_own_int(opts, "intervalSeconds", 1, 10**9))))
    start = {k: (_own_int(opts, f, 1, hi) or (d,))[0] for k, f, hi, d in (
        (KEY_STEP, "stepSizePercent", 100, 100), (KEY_SURGE, "maxSurgePercent", 100, 100),
        (KEY_INTERVAL, "intervalSeconds", 10**9, 30))}
    dims = (Dimension(KEY_STEP, KEY_STEP, OTHER, pct, group="clusterUpgradeOptions", start=start[KEY_STEP]),
            Dimension(KEY_SURGE, KEY_SURGE, SURGE, surge, group="clusterUpgradeOptions", start=start[KEY_SURGE]),
            Dimension(KEY_INTERVAL, KEY_INTERVAL, OTHER, iv, group="clusterUpgradeOptions", start=start[KEY_INTERVAL]))

    def build_incremental(values: Mapping[str, Any]) -> Built:
        return _with_upgrade(desired, {"type": INCREMENTAL, "clusterUpgradeOptions": {
            "gatewayClassName": gateway, "stepSizePercent": values[KEY_STEP],
            "maxSurgePercent": values[KEY_SURGE], "intervalSeconds": values[KEY_INTERVAL]}})

    out.append(StrategySpace(INCREMENTAL, False, () if unusable else dims, build_incremental,
                             allowed=lambda values: values[KEY_STEP] <= values[KEY_SURGE], unusable=unusable))
    out.append(StrategySpace(NONE, False, (), lambda values: _with_upgrade(desired, {"type": NONE})))
    return out


def teardown(desired: Obj) -> str | None:
    """Why the change takes the service down whatever its strategy and budgets, or None:
    ``spec.suspend: true`` makes ``handleSuspend`` (rayservice_controller.go) delete every
    RayCluster and Service the RayService owns (``deleteRayServiceOwnedResources``);
    ``upgradeStrategy`` is never read on that way."""
    if desired.spec.get("suspend") is True:
        return ("spec.suspend: true: KubeRay deletes every RayCluster and Service of the RayService "
                "(rayservice_controller.go handleSuspend, deleteRayServiceOwnedResources) whatever its "
                "upgradeStrategy, so the service stops serving by design")
    return None


def rolls_out(desired: Obj, world: World, active: Obj | None) -> tuple[str, str] | None:
    """None when the running (active) cluster carries the desired ``rayClusterConfig``
    at the end of the plan (``isClusterSpecHashEqual``); else why not."""
    if active is None:
        return ("NotRolledOut", "no active RayCluster at the end of the plan")
    if is_cluster_spec_hash_equal(desired, active, False):
        return None
    return ("NotRolledOut", f"upgradeStrategy {desired.spec.get('upgradeStrategy', {}).get('type')}: the running "
            f"RayCluster keeps the old rayClusterConfig (no new cluster is prepared, "
            "rayservice_controller.go#isZeroDowntimeUpgradeEnabled), so the change is not rolled out")
