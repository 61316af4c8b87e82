"""Status conditions of the RayService and of the model's RayCluster status.

Upstream: ``ray-operator/controllers/ray/rayservice_controller.go`` of ray-project/kuberay
@ feeaf72f ``setCondition``, over apimachinery's ``meta.FindStatusCondition``,
``meta.IsStatusConditionTrue``, ``meta.SetStatusCondition`` and
``meta.RemoveStatusCondition`` (``k8s.io/apimachinery/pkg/api/meta/conditions.go``).
A status is a plain dict; times are model seconds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, dict) or isinstance(v, Mapping) else {}  # dict first: the common case, cheaper


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def find_condition(st: Mapping[str, Any], t: str) -> Mapping[str, Any] | None:
    """``meta.FindStatusCondition``: the condition of type ``t``, or None."""
    for c in _l(st.get("conditions")):
        if isinstance(c, Mapping) and c.get("type") == t:
            return c
    return None


def is_true(st: Mapping[str, Any], t: str) -> bool:
    """``meta.IsStatusConditionTrue``."""
    c = find_condition(st, t)
    return c is not None and c.get("status") == "True"


def set_condition(st: dict, t: str, status: str, reason: str, message: str, now: int) -> None:
    """``setCondition`` (rayservice_controller.go) over ``meta.SetStatusCondition``: the
    transition time changes only when the status does."""
    conds = [dict(c) for c in _l(st.get("conditions")) if isinstance(c, Mapping)]
    og = st.get("observedGeneration", 0)
    for c in conds:
        if c.get("type") == t:
            if c.get("status") != status:
                c["lastTransitionTime"] = now
            c.update(status=status, reason=reason, message=message, observedGeneration=og)
            break
    else:
        conds.append({"type": t, "status": status, "reason": reason, "message": message,
                      "observedGeneration": og, "lastTransitionTime": now})
    st["conditions"] = conds


def remove_condition(st: dict, t: str) -> None:
    """``meta.RemoveStatusCondition``."""
    st["conditions"] = [c for c in _l(st.get("conditions")) if _m(c).get("type") != t]
