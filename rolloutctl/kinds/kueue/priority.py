"""A Workload's priority.

Upstream: kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7, ``pkg/util/priority/priority.go`` (``Priority``).
"""

from __future__ import annotations

from ...core.model import Obj


def priority_of(w: Obj) -> int:
    """``Priority`` (priority.go): ``spec.priority``, else ``constants.DefaultPriority`` (0)."""
    p = w.spec.get("priority")
    return p if isinstance(p, int) and not isinstance(p, bool) else 0
