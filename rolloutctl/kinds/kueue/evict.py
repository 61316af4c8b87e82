"""Whether a Workload is evicted.

Upstream: kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7, ``pkg/workload/evict/evict.go`` (``IsEvicted``).
"""

from __future__ import annotations

from ...core.model import Obj
from .workload import cond_true


def evicted(w: Obj) -> bool:
    """``IsEvicted`` (evict.go): the ``Evicted`` condition is True."""
    return cond_true(w, "Evicted")
