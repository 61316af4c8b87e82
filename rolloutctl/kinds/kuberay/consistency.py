"""When the RayService controller writes its status.

Upstream: ``ray-operator/controllers/ray/utils/consistency.go`` of ray-project/kuberay
@ feeaf72f ``InconsistentRayServiceStatuses`` (and ``inconsistentRayServiceStatus``
for the active and pending cluster statuses).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, dict) or isinstance(v, Mapping) else {}  # dict first: the common case, cheaper


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _project(sub: Mapping[str, Any]) -> tuple:
    apps = _m(sub.get("applicationStatuses"))
    return (sub.get("rayClusterName") or "",
            tuple(sorted((k, _m(v).get("status"), _m(v).get("message")) for k, v in apps.items())),
            sub.get("targetCapacity"), sub.get("trafficRoutedPercent"), sub.get("lastTrafficMigratedTime"))


def inconsistent_ray_service_statuses(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """``utils.InconsistentRayServiceStatuses`` (utils/consistency.go); values, not pointers."""
    if (old.get("serviceStatus") or "") != (new.get("serviceStatus") or ""):
        return True
    if (old.get("numServeEndpoints") or 0) != (new.get("numServeEndpoints") or 0):
        return True
    if _l(old.get("conditions")) != _l(new.get("conditions")):
        return True
    for k in ("activeServiceStatus", "pendingServiceStatus"):
        if _project(_m(old.get(k))) != _project(_m(new.get(k))):
            return True
    return False
