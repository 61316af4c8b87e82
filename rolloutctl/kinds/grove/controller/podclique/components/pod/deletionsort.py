"""Which excess Pods of a PodClique go first. Upstream (ai-dynamo/grove @ fcc3b3bb):
``operator/internal/controller/podclique/components/pod/deletionsort.go``
(``DeletionSorter.Less``).

``deletion_sort_key`` is the order the plan takes; ``less`` is upstream's comparator as
written, which leaves some pairs unordered (a phase it does not list against Pending, two
old template hashes, equal creation times): ``sort.Sort`` then keeps the informer cache's
list order, which is arbitrary. ``arbitrary_pairs`` names the victims whose choice over a
survivor upstream does not make, where the two pods differ.
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
    phase_rank = _ordinal(phase)
    ts = str(pod.metadata.get("creationTimestamp") or "")
    return (not pod.terminating, bool(pod.spec.get("nodeName")), phase_rank, O.pod_ready(pod),
            pod.labels.get(N.L_TEMPLATE_HASH) == target_hash, _neg(ts), pod.name)


def less(a: Obj, b: Obj, target_hash: str | None) -> bool:
    """Upstream's ``DeletionSorter.Less(a, b)``: criteria in order, each deciding only
    where the two pods differ in it. Upstream: ``deletionsort.go`` (``DeletionSorter.Less``,
    ``podPhaseToOrdinal``, ``isPodReady``)."""
    if a.terminating != b.terminating:
        return a.terminating
    na, nb = str(a.spec.get("nodeName") or ""), str(b.spec.get("nodeName") or "")
    if na != nb and (not na or not nb):
        return not na
    pa, pb = str(a.status.get("phase") or ""), str(b.status.get("phase") or "")
    if pa != pb:
        return _ordinal(pa) < _ordinal(pb)
    ra, rb = O.pod_ready(a), O.pod_ready(b)
    if ra != rb:
        return not ra
    ha, hb = a.labels.get(N.L_TEMPLATE_HASH), b.labels.get(N.L_TEMPLATE_HASH)
    if ha != hb:
        return ha != target_hash
    ta, tb = str(a.metadata.get("creationTimestamp") or ""), str(b.metadata.get("creationTimestamp") or "")
    if not ta or not tb:
        return not ta
    return ta > tb


def arbitrary_pairs(victims: list[Obj], survivors: list[Obj], target_hash: str | None) -> list[tuple[Obj, Obj, str]]:
    """(victim, survivor, why) where upstream's comparator does not put the victim first
    and the two pods differ in a criterion it skips: phases of the same rank (Failed or
    Succeeded against Pending), or two template hashes other than the target (``Less`` is
    true both ways). Which of them upstream deletes is the cache's list order."""
    out = []
    for v in victims:
        for s in survivors:
            if less(v, s, target_hash) and not less(s, v, target_hash):
                continue  # strictly first, as upstream orders them
            why = _skipped(v, s, target_hash)
            if why:
                out.append((v, s, why))
    return out


def _skipped(a: Obj, b: Obj, target_hash: str | None) -> str | None:
    pa, pb = O.pod_phase(a), O.pod_phase(b)
    if pa != pb and _ordinal(pa) == _ordinal(pb):
        return f"phases {pa} and {pb} rank the same in podPhaseToOrdinal"
    ha, hb = a.labels.get(N.L_TEMPLATE_HASH), b.labels.get(N.L_TEMPLATE_HASH)
    if ha != hb and ha != target_hash and hb != target_hash:
        return "both carry an old template hash (Less is true both ways)"
    return None


def _ordinal(phase: str) -> int:
    return next((r for p, r in _PHASE_ORDINAL if p == phase), 0)


def _neg(s: str) -> tuple:
    return tuple(-ord(ch) for ch in s)
