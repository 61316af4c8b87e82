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
        row = _row
        for p in pods:
            sched, ready, act, gated, term, h = row(p)
            hash_all[h] = hash_all.get(h, 0) + 1
            if ready:
                any_ready = True
            if not term:
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


def _row(p: Obj) -> tuple[bool, bool, bool, bool, bool, Any]:
    """(scheduled, ready, active, gated, terminating, template hash) of a pod, derived
    once per pod object."""
    m = p.memo
    r = m.get("grove.row")
    if r is None:
        sched, ready, act, gated = O._pod_state(p)
        r = m["grove.row"] = (sched, ready, act, gated, p.terminating, p.labels.get(N.L_TEMPLATE_HASH))
    return r


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
        if pods is group:
            # a summary depends only on its pods: the unfiltered one serves any
            # filter that keeps every pod
            s = ent[1].get((None, None))
            if s is None:
                s = ent[1][(None, None)] = PodSummary(group)
            ent[1][k] = s
        else:
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


class PodGroups:
    """The pods of a PodCliqueSet (or of the whole world) by PodClique, with running
    totals and the PodCliques that have pods in each interesting state. Kept up to
    date from ``World.changes_since``: a round touches only the PodCliques whose pods
    changed. ``tests/kinds/grove/test_summary.py`` checks it against a fresh build."""

    def __init__(self, namespace: str | None, part_of: str | None) -> None:
        self.namespace, self.part_of = namespace, part_of
        self.token: object = None
        self.groups: dict[str | None, PodSummary] = {}
        self.n_active = self.act_ready = self.act_sched = 0
        self.res: dict[str, int] = {}
        self.terminating: set[str | None] = set()
        self.gated: set[str | None] = set()
        self.pending: set[str | None] = set()
        self.unready_sched: set[str | None] = set()

    def _account(self, name: str | None, s: PodSummary, sign: int) -> None:
        self.n_active += sign * s.n_active
        self.act_ready += sign * s.act_ready
        self.act_sched += sign * s.act_sched
        if s.act_sched:
            add(self.res, s.scheduled_resources(), sign)
        for flag, bucket in ((s.nt < len(s.pods), self.terminating), (s.act_gated, self.gated),
                             (s.act_pending, self.pending), (s.act_unready_sched, self.unready_sched)):
            if flag:
                if sign > 0:
                    bucket.add(name)
                else:
                    bucket.discard(name)

    def _set(self, name: str | None, s: PodSummary | None) -> None:
        old = self.groups.pop(name, None)
        if old is not None:
            self._account(name, old, -1)
        if s is not None and s.pods:
            self.groups[name] = s
            self._account(name, s, +1)

    def _owned(self, p: Obj) -> bool:
        return (self.namespace is None or p.namespace == self.namespace) and \
            (self.part_of is None or p.labels.get(N.L_PART_OF) == self.part_of)

    def _strays(self, world: Any) -> PodSummary | None:
        if self.part_of is not None:
            cands = world.index("Pod", N.L_PART_OF).get(self.part_of, ())
        else:
            cands = world.of_kind("Pod")
        strays = [p for p in cands if N.L_PCLQ not in p.labels and self._owned(p)]
        return PodSummary(strays) if strays else None

    def update(self, world: Any) -> "PodGroups":
        idx = world.index("Pod", N.L_PCLQ)
        changes = world.changes_since(self.token) if self.token is not None else None
        if changes is None:
            self.groups = {}
            self.n_active = self.act_ready = self.act_sched = 0
            self.res = {}
            for b in (self.terminating, self.gated, self.pending, self.unready_sched):
                b.clear()
            for name, g in idx.items():
                self._set(name, summary(g, self.namespace, self.part_of))
            self._set(None, self._strays(world))
        else:
            dirty: set[str | None] = set()
            for k, (old, new) in changes.items():
                if k[0] != "Pod":
                    continue
                for o in (old, new):
                    if o is not None:
                        dirty.add(o.labels.get(N.L_PCLQ))
            for name in dirty:
                if name is None:
                    self._set(None, self._strays(world))
                else:
                    g = idx.get(name)
                    self._set(name, summary(g, self.namespace, self.part_of) if g else None)
        for k in [k for k, v in self.res.items() if v == 0]:
            del self.res[k]
        self.token = world.token
        return self


_trackers: dict[tuple, PodGroups] = {}


def pod_groups(world: Any, namespace: str | None, part_of: str | None) -> PodGroups:
    """The ``PodGroups`` of ``world`` (pods in ``namespace`` and part of ``part_of``;
    None: any)."""
    key = (namespace, part_of)
    t = _trackers.get(key)
    if t is None:
        if len(_trackers) > 64:
            _trackers.clear()
        t = _trackers[key] = PodGroups(namespace, part_of)
    if t.token is not world.token:
        t.update(world)
    return t


def owned_pod_groups(world: Any, namespace: str, part_of: str) -> list[tuple[str | None, PodSummary]]:
    """The pods of a PodCliqueSet as (PodClique name, summary) pairs (None: owned pods
    without a PodClique label)."""
    return list(pod_groups(world, namespace, part_of).groups.items())


def changed_pclq_names(changes: Mapping[Any, tuple[Obj | None, Obj | None]]) -> set[str]:
    """PodCliques touched by ``changes``: changed PodCliques and the PodCliques of
    changed pods."""
    out: set[str] = set()
    for k, (old, new) in changes.items():
        if k[0] == "PodClique":
            out.add(k[2])
        elif k[0] == "Pod":
            for o in (old, new):
                if o is not None:
                    v = o.labels.get(N.L_PCLQ)
                    if v is not None:
                        out.add(v)
    return out


class Dirty:
    """Names touched between the world a pass saw last round and the one it sees
    now. The pass runs on ``world``, derived (by earlier passes of the round) from
    the round's input world ``base``; consecutive input worlds descend from each
    other, the passes' scratch worlds do not, so the names come from three change
    sets: since the last input world, by this round's earlier passes, and by the last
    round's. None when unknown (then the pass looks at everything)."""

    def __init__(self, names: Any) -> None:
        self.names = names
        self.token: object = None
        self.prev_local: set[str] = set()

    def since(self, base: Any, world: Any) -> set[str] | None:
        main = base.changes_since(self.token) if self.token is not None else None
        local = world.changes_since(base.token)
        self.token = base.token
        if local is None:
            self.prev_local = set()
            return None
        local_names = self.names(local)
        if local_names is None:
            self.prev_local = set()
            return None
        main_names = self.names(main) if main is not None else None
        out = None if main_names is None or self.prev_local is None else main_names | local_names | self.prev_local
        self.prev_local = local_names
        return out


class CountsMemo:
    """``GroveModel.counts`` bookkeeping: desired and updated pods per PodClique with
    running totals, refreshed for the PodCliques that changed."""

    def __init__(self) -> None:
        self.dirty = Dirty(changed_pclq_names)
        self.names: Any = None
        self.name_set: set[str] = set()
        self.want_of: dict[str, int] = {}
        self.updated_of: dict[str | None, int] = {}
        self.want = self.updated = 0

    def reset(self, names: Any) -> None:
        self.names, self.name_set = names, set(names)
        self.mult: dict[str, int] = {}
        for n in names:  # a name can repeat when clique and group names collide
            self.mult[n] = self.mult.get(n, 0) + 1
        self.want_of, self.updated_of = {}, {}
        self.want = self.updated = 0

    def set_want(self, name: str, v: int) -> None:
        v *= self.mult.get(name, 1)
        self.want += v - self.want_of.get(name, 0)
        self.want_of[name] = v

    def set_updated(self, name: str | None, v: int) -> None:
        self.updated += v - self.updated_of.get(name, 0)
        self.updated_of[name] = v


def changed_gang_names(changes: Mapping[Any, tuple[Obj | None, Obj | None]]) -> set[str] | None:
    """PodGangs touched by ``changes``: changed PodGangs and the gangs (``grove.io/podgang``
    label) of changed pods and PodCliques; None when a changed PodClique has no gang
    label (the PodGang sync looks PodCliques up by name)."""
    out: set[str] = set()
    for k, (old, new) in changes.items():
        kind = k[0]
        if kind == "PodGang":
            out.add(k[2])
        elif kind == "Pod" or kind == "PodClique":
            for o in (old, new):
                if o is not None:
                    v = o.labels.get(N.L_PODGANG)
                    if v is not None:
                        out.add(v)
                    elif kind == "PodClique":
                        return None
    return out


_GC_KINDS = ("PodCliqueScalingGroup", "PodClique", "PodGang", "Service", "HorizontalPodAutoscaler")


class Terminating:
    """Keys of a PodCliqueSet's terminating objects of the kinds garbage collection
    removes (pods aside: ``PodGroups``), kept up to date from ``World.changes_since``."""

    def __init__(self, namespace: str, part_of: str) -> None:
        self.namespace, self.part_of = namespace, part_of
        self.token: object = None
        self.keys: set[tuple[str, str, str]] = set()

    def _owned_terminating(self, o: Obj | None) -> bool:
        return o is not None and o.terminating and o.namespace == self.namespace and \
            o.labels.get(N.L_PART_OF) == self.part_of

    def update(self, world: Any) -> set[tuple[str, str, str]]:
        changes = world.changes_since(self.token) if self.token is not None else None
        if changes is None:
            self.keys = set()
            for kind in _GC_KINDS:
                for o in world.index(kind, N.L_PART_OF).get(self.part_of, ()):
                    if self._owned_terminating(o):
                        self.keys.add((kind, o.namespace, o.name))
        else:
            for k, (_old, new) in changes.items():
                if k[0] in _GC_KINDS:
                    if self._owned_terminating(new):
                        self.keys.add(k)
                    else:
                        self.keys.discard(k)
        self.token = world.token
        return self.keys
