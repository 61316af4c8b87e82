"""Whether a Workload is finished.

Upstream: kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7, ``pkg/workload/finish/finish.go`` (``IsFinished``).
"""

from __future__ import annotations

from ...core.model import Obj
from .workload import cond_true


def finished(w: Obj) -> bool:
    """``IsFinished`` (finish.go): the ``Finished`` condition is True."""
    return cond_true(w, "Finished")
