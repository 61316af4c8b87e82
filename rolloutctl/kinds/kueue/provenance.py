"""What a RayService plan under Kueue rests on besides KubeRay: the Kueue code it
models (per integration model) and what it leaves out."""

from __future__ import annotations

from ...core.model import Operator, Warning
from .context import TOP

#: the kubernetes-sigs/kueue commit the model's functions cite (merged code of the v0.20 line)
MODELLED_COMMIT = "ff69552e79ad21652c36caa97038382e55625cf7"


def operators(mode: str) -> list[Operator]:
    if mode == TOP:
        return [Operator("Kueue", "v0.20 line + PR #11264 (unmerged)", "1828096a (PR #11264)")]
    return [Operator("Kueue", "v0.20 line", MODELLED_COMMIT)]


def not_modelled(mode: str) -> list[Warning]:
    return [Warning("NotModelledQueueNeighbours", "Kueue sees only the Workloads, queues and flavors given: other "
                    "workloads competing for the same quota, cohort borrowing and fair sharing beyond them are not "
                    "modelled", "")]
