"""Which excess Pods of a PodClique go first. Upstream (ai-dynamo/grove @ fcc3b3bb):
``operator/internal/controller/podclique/components/pod/deletionsort.go``
(``DeletionSorter.Less``).
"""

from __future__ import annotations

from .......core.model import Obj
from ..... import names as N
from ..... import objects as O


def deletion_sort_key(pod: Obj, target_hash: str | None) -> tuple:
    """Scale-in victims first: terminating; unscheduled; phase Pending < Unknown <
    Running; not Ready; old template hash; newest first.
    Upstream: ``operator/internal/controller/podclique/components/pod/deletionsort.go``."""
    phase_rank = {"Pending": 0, "Unknown": 1, "Running": 2}.get(O.pod_phase(pod), 3)
    ts = str(pod.metadata.get("creationTimestamp") or "")
    return (not pod.terminating, O.pod_scheduled(pod), phase_rank, O.pod_ready(pod),
            pod.labels.get(N.L_TEMPLATE_HASH) == target_hash, _neg(ts), pod.name)


def _neg(s: str) -> tuple:
    return tuple(-ord(ch) for ch in s)
