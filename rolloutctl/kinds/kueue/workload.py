"""A Workload's state as Kueue reads it: its pod sets, conditions, queue order and owner.

Upstream: kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7, ``pkg/workload/workload.go`` (``HasQuotaReservation``, ``IsAdmitted``,
``SetConditionAndUpdate``, ``Ordering.GetQueueOrderTimestamp``) and the owner
reference ``jobframework`` sets. Whether a Workload is finished or evicted is
``finish.py`` and ``evict.py``, its priority ``priority.py``, as upstream has them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.model import Obj
from ...core.timestamps import parse_time
from .podset import PodSet, pod_set_from_raw


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def wl_pod_sets(w: Obj) -> list[PodSet]:
    """The Workload's ``spec.podSets``."""
    return [pod_set_from_raw(_m(p)) for p in _l(w.spec.get("podSets"))]


def condition(w: Obj, t: str) -> Mapping[str, Any] | None:
    """The Workload condition of type ``t`` (``apimeta.FindStatusCondition``), or None."""
    for c in _l(w.status.get("conditions")):
        if _m(c).get("type") == t:
            return c
    return None


def cond_true(w: Obj, t: str) -> bool:
    """``apimeta.IsStatusConditionTrue`` on the Workload's conditions."""
    c = condition(w, t)
    return c is not None and c.get("status") == "True"


def quota_reserved(w: Obj) -> bool:
    """``HasQuotaReservation`` (workload.go): ``QuotaReserved`` is True; the model also
    requires ``status.admission``, which Kueue writes with it."""
    return cond_true(w, "QuotaReserved") and bool(w.status.get("admission"))


def admitted(w: Obj) -> bool:
    """``IsAdmitted`` (workload.go): ``Admitted`` is True, on a Workload that holds its
    quota reservation."""
    return cond_true(w, "Admitted") and quota_reserved(w)


def with_conditions(raw: dict, conds: Mapping[str, tuple[str, str, str]]) -> dict:
    """Set Workload conditions ``type -> (status, reason, message)``."""
    st = dict(raw.get("status") or {})
    cur = [dict(c) for c in _l(st.get("conditions")) if isinstance(c, Mapping)]
    for t, (s, r, msg) in conds.items():
        for c in cur:
            if c.get("type") == t:
                c.update(status=s, reason=r, message=msg)
                break
        else:
            cur.append({"type": t, "status": s, "reason": r, "message": msg})
    st["conditions"] = cur
    raw["status"] = st
    return raw


def created_at(w: Obj) -> tuple:
    """The scheduler's queue order (``Ordering.GetQueueOrderTimestamp``, workload.go)
    without PodsReady or admission-check evictions: the creation timestamp, then the name."""
    t = w.metadata.get("creationTimestamp")
    if not isinstance(t, (int, float)) or isinstance(t, bool):
        # a live RFC 3339 stamp: before everything on the plan's clock (the Workloads the plan
        # creates count up from 0, those of a settled previous manifest down from -1), in
        # the order of its time
        t = parse_time(t)
        t = t - LIVE_EPOCH_OFFSET if t is not None else None
    return (t if t is not None else -1, w.name)


#: how far before the plan's clock the live creation times are put (``created_at``)
LIVE_EPOCH_OFFSET = 1e12


def quota_reserved_at(w: Obj) -> float:
    """When the Workload got its quota (``quotaReservationTime``, preemption/common/ordering.go:
    the ``QuotaReserved`` condition's ``lastTransitionTime``); one the plan admitted, whose
    condition carries no time, is the newest."""
    for c in _l(w.status.get("conditions")):
        if isinstance(c, Mapping) and c.get("type") == "QuotaReserved":
            t = parse_time(c.get("lastTransitionTime"))
            return t if t is not None else float("inf")
    return float("inf")


def owner_of(w: Obj) -> tuple[str, str] | None:
    """The Workload's controller owner reference (``metav1.GetControllerOf``) as (kind,
    name): the job ``jobframework`` created it for."""
    for o in w.owner_references:
        if o.get("controller"):
            return str(o.get("kind") or ""), str(o.get("name") or "")
    return None
