"""Phases of a RayService plan, as a person follows a KubeRay upgrade: the new
(pending) RayCluster prepared and its Serve applications deployed, traffic moved
(``traffic 30 % -> 40 %`` in incremental upgrades, a Service switch otherwise), the
old cluster deleted. Display names only: nothing here decides what the operator does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...core.model import Obj, Step, describe_actions


def phase_of(desired: Obj, step: Step) -> Any:
    """What the step is part of: ``cleanup`` (a RayCluster deleted), ``traffic``
    (HTTPRoute weights), ``switch`` (Services pointed at another cluster), ``pending``
    (the new cluster and its applications), else ``None`` (joins the phase before)."""
    acts = step.actions
    if any(a.verb == "delete" and a.kind == "RayCluster" for a in acts):
        return "cleanup"
    if any(a.kind == "HTTPRoute" and "weights" in a.fields for a in acts):
        return "traffic"
    if any(a.verb == "update" and a.kind == "Service" and "selector" in a.fields for a in acts):
        return "switch"
    if any(a.role == "pending" for a in acts):
        return "pending"
    return None


def phase_title(desired: Obj, label: Any, steps: Sequence[Step]) -> str | None:
    acts = [a for s in steps for a in s.actions]
    clusters = [a.name for a in acts if a.kind == "RayCluster" and a.verb in ("create", "delete")]
    if label == "cleanup":
        gone = [a.name for a in acts if a.kind == "RayCluster" and a.verb == "delete"]
        if any(a.kind == "RayService" and "remove finalizer" in a.reason for a in acts):
            return (f"RayService deleted: RayCluster{'s' if len(gone) > 1 else ''} {', '.join(gone)} deleted, then "
                    "its finalizer removed")
        return f"old RayCluster{'s' if len(gone) > 1 else ''} {', '.join(gone)} deleted"
    if label == "traffic":
        w = [a.fields["weights"].get("pending") for a in acts if a.kind == "HTTPRoute" and "weights" in a.fields]
        w = [x for x in w if isinstance(x, int)]
        if w and w[0] != w[-1]:
            return f"traffic to the new cluster {w[0]} % → {w[-1]} %"
        if w and w[0] == 0:
            # the HTTPRoute first lists the new cluster's serve Service with no weight
            return "the new cluster added to the HTTPRoute, at 0 % of the traffic"
        if w:
            return f"traffic to the new cluster at {w[0]} %"
        return "traffic weights updated"
    if label == "switch":
        return "traffic switched to the new cluster (" + describe_actions(a for a in acts if a.kind == "Service") + ")"
    if label == "pending":
        made = [n for n in clusters if any(a.verb == "create" and a.name == n for a in acts)]
        apps = any(a.kind == "ServeApplications" for a in acts)
        what = f"new RayCluster {made[0]} created" if made else "new RayCluster prepared"
        return what + (" and its Serve applications deployed" if apps else "")
    return None
