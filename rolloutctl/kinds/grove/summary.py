"""Per-PodClique pod summaries, memoized by the identity of the pod group.

``World.index("Pod", "grove.io/podclique")`` keeps a group's list object while none
of its pods changes, so a summary computed once for that list stays valid; a
planning round then costs what changed, not what exists. Summaries only count:
every rule that reads them is still the one function named after its upstream
counterpart (``status.pclq_status``, ``cluster.schedule``, ...).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ...core.environment import add, pod_requests
from ...core.model import Obj
from . import names as N
from . import objects as O

_MAX = 50_000


class PodSummary:
    """Counts over the pods of one group (optionally only those in ``namespace``
    and part of ``part_of``)."""

    __slots__ = ("pods", "active", "n_active", "act_ready", "act_sched", "act_gated", "nt", "nt_ready", "nt_sched",
                 "nt_gated", "hash_all", "hash_active", "_res", "any_ready", "act_pending", "act_unready_sched", "memo")

    def __init__(self, pods: Sequence[Obj]) -> None:
        self.pods = pods
        active = []
        nt = nt_ready = nt_sched = nt_gated = act_ready = act_sched = act_gated = 0
        hash_all: dict[Any, int] = {}
        hash_active: dict[Any, int] = {}
        any_ready = False
        act_pending = act_unready_sched = 0
        for p in pods:
            sched, ready, act, gated = O._pod_state(p)
            h = p.labels.get(N.L_TEMPLATE_HASH)
            hash_all[h] = hash_all.get(h, 0) + 1
            any_ready = any_ready or ready
            if not p.terminating:
                nt += 1
                nt_ready += ready
                nt_sched += sched
                nt_gated += gated
            if act:
                active.append(p)
                act_ready += ready
                act_sched += sched
                act_gated += gated
                if not sched:
                    act_pending += not gated
                elif not ready:
                    act_unready_sched += 1
                hash_active[h] = hash_active.get(h, 0) + 1
        self.active = active
        self.n_active = len(active)
        self.act_ready, self.act_sched, self.act_gated = act_ready, act_sched, act_gated
        self.nt, self.nt_ready, self.nt_sched, self.nt_gated = nt, nt_ready, nt_sched, nt_gated
        self.hash_all, self.hash_active = hash_all, hash_active
        self.any_ready = any_ready
        self.act_pending = act_pending  # active, not scheduled, not gated
        self.act_unready_sched = act_unready_sched  # active, scheduled, not Ready
        self._res: dict[str, int] | None = None
        self.memo: dict[str, Any] = {}  # further values derived from these pods

    def scheduled_resources(self) -> Mapping[str, int]:
        """Requests of the active, scheduled pods."""
        if self._res is None:
            res: dict[str, int] = {}
            for p in self.active:
                if O.pod_scheduled(p):
                    add(res, requests_of(p))
            self._res = res
        return self._res


_memo: dict[int, tuple[Sequence[Obj], dict[tuple, PodSummary]]] = {}


def summary(group: Sequence[Obj], namespace: str | None = None, part_of: str | None = None) -> PodSummary:
    """The summary of ``group`` (a list from ``World.index``), filtered to pods in
    ``namespace`` and with ``app.kubernetes.io/part-of: part_of`` when given."""
    ent = _memo.get(id(group))
    if ent is None or ent[0] is not group:
        if len(_memo) > _MAX:
            _memo.clear()
        ent = (group, {})
        _memo[id(group)] = ent
    k = (namespace, part_of)
    s = ent[1].get(k)
    if s is None:
        pods = group
        if namespace is not None or part_of is not None:
            pods = [p for p in group if (namespace is None or p.namespace == namespace)
                    and (part_of is None or p.labels.get(N.L_PART_OF) == part_of)]
            if len(pods) == len(group):
                pods = group
        s = ent[1][k] = PodSummary(pods)
    return s


EMPTY = PodSummary(())

_requests: dict[int, tuple[Any, dict[str, int], Any]] = {}


def requests_of(pod: Obj) -> dict[str, int]:
    """``pod_requests`` of the pod's spec, cached per containers list (pods of one
    PodClique share their template's list)."""
    spec = pod.spec
    ctrs = spec.get("containers")
    ent = _requests.get(id(ctrs))
    if ent is not None and ent[0] is ctrs and ent[2] is spec.get("initContainers"):
        return ent[1]
    r = pod_requests(spec)
    if len(_requests) > _MAX:
        _requests.clear()
    _requests[id(ctrs)] = (ctrs, r, spec.get("initContainers"))
    return r


_groups_memo: dict[int, tuple[Any, str, str, list[tuple[str | None, PodSummary]]]] = {}


def owned_pod_groups(world: Any, namespace: str, part_of: str) -> list[tuple[str | None, PodSummary]]:
    """The pods of a PodCliqueSet (``part_of`` in ``namespace``) as (PodClique name,
    summary) per PodClique, plus (None, summary) of owned pods without a PodClique
    label when there are any. Memoized per world."""
    idx = world.index("Pod", N.L_PCLQ)
    ent = _groups_memo.get(id(idx))
    if ent is not None and ent[0] is idx and ent[1] == namespace and ent[2] == part_of:
        return ent[3]
    out: list[tuple[str | None, PodSummary]] = []
    n_any_ns = 0
    for name, g in idx.items():
        s = summary(g, namespace, part_of)
        if s.pods:
            out.append((name, s))
        n_any_ns += len(summary(g, None, part_of).pods)
    owned_all = world.index("Pod", N.L_PART_OF).get(part_of, ())
    if n_any_ns != len(owned_all):
        strays = [p for p in owned_all if p.namespace == namespace and N.L_PCLQ not in p.labels]
        if strays:
            out.append((None, PodSummary(strays)))
    if len(_groups_memo) > 64:
        _groups_memo.clear()
    _groups_memo[id(idx)] = (idx, namespace, part_of, out)
    return out
