"""Which excess Pods of a PodClique go first. Upstream (ai-dynamo/grove @ fcc3b3bb):
``operator/internal/controller/podclique/components/pod/deletionsort.go``
(``DeletionSorter.Less``).
"""

from __future__ import annotations

from .......core.model import Obj
from ..... import names as N
from ..... import objects as O


#: ``podPhaseToOrdinal``; a phase it does not list (Failed, Succeeded) ranks 0, with Pending
_PHASE_ORDINAL = (("Pending", 0), ("Unknown", 1), ("Running", 2))


def deletion_sort_key(pod: Obj, target_hash: str | None) -> tuple:
    """Scale-in victims first: terminating; no ``spec.nodeName``; phase Pending (and
    Failed, Succeeded: upstream's phase map has no entry for them, so they rank 0) <
    Unknown < Running; not Ready; a template hash other than ``target_hash``; newest
    first (no creation time first of all).
    Upstream: ``operator/internal/controller/podclique/components/pod/deletionsort.go``
    (``DeletionSorter.Less``, ``podPhaseToOrdinal``)."""
    phase = O.pod_phase(pod)
    phase_rank = next((r for p, r in _PHASE_ORDINAL if p == phase), 0)
    ts = str(pod.metadata.get("creationTimestamp") or "")
    return (not pod.terminating, bool(pod.spec.get("nodeName")), phase_rank, O.pod_ready(pod),
            pod.labels.get(N.L_TEMPLATE_HASH) == target_hash, _neg(ts), pod.name)


def _neg(s: str) -> tuple:
    return tuple(-ord(ch) for ch in s)
