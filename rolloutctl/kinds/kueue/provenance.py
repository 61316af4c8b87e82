"""What a RayService plan under Kueue rests on besides KubeRay: the Kueue code it
models (per integration model) and what it leaves out."""

from __future__ import annotations

from ...core.model import Operator, Warning
from .context import TOP


def operators(mode: str) -> list[Operator]:
    if mode == TOP:
        return [Operator("Kueue", "v0.20 line + PR #11264 (unmerged)", "1828096a (PR #11264)")]
    return [Operator("Kueue", "v0.20 line", "kubernetes-sigs/kueue v0.20 release branch (merged code)")]


def not_modelled(mode: str) -> list[Warning]:
    return [Warning("NotModelledQueueNeighbours", "Kueue sees only the Workloads, queues and flavors given: other "
                    "workloads competing for the same quota, cohort borrowing and fair sharing beyond them are not "
                    "modelled", "")]
