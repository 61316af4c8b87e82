"""Which queues a Workload is in.

Upstream: kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7, ``pkg/cache/queue/manager.go`` (``Manager.ClusterQueueForWorkload``: the
LocalQueue named by ``spec.queueName`` in the Workload's namespace, and its ClusterQueue).
"""

from __future__ import annotations

from ...core.model import Obj
from ...core.world import World
from .constants import CQ, LQ


def find_queue(world: World, ns: str, queue: str) -> tuple[Obj | None, Obj | None]:
    """``Manager.ClusterQueueForWorkload`` (manager.go): the LocalQueue ``queue`` in ``ns``
    and the ClusterQueue it points to; None for what does not exist."""
    lq = world.get(LQ, ns, queue)
    if lq is None:
        return None, None
    cqn = str(lq.spec.get("clusterQueue") or "")
    cq = next((c for c in world.of_kind(CQ) if c.name == cqn), None)
    return lq, cq
