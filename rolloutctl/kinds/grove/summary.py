"""Counts over pods, kept as world views (``World.reduced``, ``World.derived``).

A PodClique's (or PodGang's) pod summary is a view of the world's pods grouped by
label: a derived world recomputes only the groups whose pods changed, so a planning
round costs what changed, not what exists. ``PodGroups`` adds running totals over a
PodCliqueSet's pods, patched from the changes between worlds. Summaries only count:
every rule that reads them is still the one function named after its upstream
counterpart (``status.pclq_status``, ``cluster.schedule``, ...).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ...core.environment import add, pod_requests
from ...core.model import Obj
from ...core.overlay import Overlay
from ...core.world import World
from . import names as N
from . import objects as O
from ...core.records import record


class PodSummary:
    """Counts over the pods of one group."""

    __slots__ = ("pods", "active", "n_active", "act_ready", "act_sched", "act_gated", "nt", "nt_ready", "nt_sched",
                 "nt_gated", "all_ready", "all_sched", "all_gated", "hash_all", "hash_active", "_res", "any_ready",
                 "act_pending", "act_unready_sched", "scopes", "_refs")

    def __init__(self, pods: Sequence[Obj]) -> None:
        self.pods = pods
        active = []
        nt = nt_ready = nt_sched = nt_gated = act_ready = act_sched = act_gated = 0
        all_ready = all_sched = all_gated = 0
        hash_all: dict[Any, int] = {}
        hash_active: dict[Any, int] = {}
        any_ready = False
        act_pending = act_unready_sched = 0
        scopes = set()
        for p in pods:
            sched, ready, act, gated, term, h, scope, ready_cond = p.derived(pod_row)
            scopes.add(scope)
            all_ready += ready_cond
            if sched:
                all_sched += 1
            elif gated:
                all_gated += 1
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
        #: every pod, terminating ones included: Ready condition, scheduled, gated and not
        #: scheduled (``k8sutils.CategorizePodsByConditionType``'s categories)
        self.all_ready, self.all_sched, self.all_gated = all_ready, all_sched, all_gated
        self.hash_all, self.hash_active = hash_all, hash_active
        self.any_ready = any_ready
        self.act_pending = act_pending  # active, not scheduled, not gated
        self.act_unready_sched = act_unready_sched  # active, scheduled, not Ready
        #: (namespace, part-of label) of the pods
        self.scopes = frozenset(scopes)
        self._res: dict[str, int] | None = None
        self._refs: dict[str, list[str]] | None = None

    @property
    def refs(self) -> Mapping[str, list[str]]:
        """Names of the non-terminating pods by PodClique, sorted (a PodGang's
        ``podReferences``; counted when first asked: only PodGang groups need it)."""
        if self._refs is None:
            refs: dict[str, list[str]] = {}
            for p in self.pods:
                if not p.terminating:
                    refs.setdefault(p.labels.get(N.L_PCLQ, ""), []).append(p.name)
            for v in refs.values():
                v.sort()
            self._refs = refs
        return self._refs

    def scheduled_resources(self) -> Mapping[str, int]:
        """Requests of the active, scheduled pods (counted when first asked)."""
        if self._res is None:
            # the pods of a group are built from one template (two during an update):
            # their requests are counted once per distinct value of what the requests
            # are computed from (the first few seen) and multiplied, not once per pod
            res: dict[str, int] = {}
            seen: list[tuple[tuple, dict[str, int], int]] = []
            for p in self.active:
                if not O.pod_scheduled(p):
                    continue
                spec = p.spec
                key = tuple(spec.get(f) for f in REQUEST_FIELDS)
                for i, (k, _r, n) in enumerate(seen):
                    if k == key:
                        seen[i] = (k, _r, n + 1)
                        break
                else:
                    if len(seen) < 4:
                        seen.append((key, requests_of(p), 1))
                    else:
                        add(res, requests_of(p))
            for _k, r, n in seen:
                add(res, r, n)
            self._res = res
        return self._res


#: the pod spec fields ``core.environment.pod_requests`` reads (pods equal in them
#: request the same; ``tests/kinds/grove/test_pod_summary.py`` has pods differing in each)
REQUEST_FIELDS = ("containers", "initContainers", "resources", "overhead")


#: (scheduled, ready, active, gated, terminating, template hash, (namespace, part-of
#: label)) of a pod, once per pod object
pod_row = O.pod_row


EMPTY = PodSummary(())


def pod_summary(world: World, label: str, value: str | None, namespace: str | None = None,
                part_of: str | None = None) -> PodSummary:
    """The summary of the pods whose ``label`` is ``value`` (``grove.io/podclique`` or
    ``grove.io/podgang``), only those in ``namespace`` and part of ``part_of`` when
    given."""
    s = world.reduced("Pod", label, PodSummary).get(value) if value is not None else None
    if s is None:
        return EMPTY
    if all((namespace is None or ns == namespace) and (part_of is None or po == part_of) for ns, po in s.scopes):
        return s
    return PodSummary([p for p in s.pods if (namespace is None or p.namespace == namespace)
                       and (part_of is None or p.labels.get(N.L_PART_OF) == part_of)])


def pod_summaries(world: World, label: str) -> Mapping[str, PodSummary]:
    """The summaries of the pods by the value of ``label`` (what ``pod_summary`` reads)."""
    return world.reduced("Pod", label, PodSummary)


def pod_requests_of(pod: Obj) -> dict[str, int]:
    """``pod_requests`` of the pod's spec."""
    return pod_requests(pod.spec)


def requests_of(pod: Obj) -> dict[str, int]:
    return pod.derived(pod_requests_of)  # type: ignore[no-any-return]


@record(frozen=True)
class PodGroups:
    """The pods of a PodCliqueSet (or of the whole world) by PodClique, with running
    totals and the PodCliques that have pods in each interesting state: a world view
    (``pod_groups``). ``tests/kinds/grove/test_incremental.py`` checks the patched
    view against a fresh build."""

    namespace: str | None
    part_of: str | None
    groups: Mapping[str | None, PodSummary]
    n_active: int
    act_ready: int
    act_sched: int
    #: every pod counted, in any state (``pods`` of every group)
    n_pods: int
    res: Mapping[str, int]
    terminating: frozenset
    gated: frozenset
    pending: frozenset
    unready_sched: frozenset


@record(frozen=True)
class PodGroupsView:
    """``World.derived`` description of ``PodGroups`` (pods in ``namespace`` and part of
    ``part_of``; None: any)."""

    namespace: str | None
    part_of: str | None

    def _owned(self, p: Obj) -> bool:
        return (self.namespace is None or p.namespace == self.namespace) and \
            (self.part_of is None or p.labels.get(N.L_PART_OF) == self.part_of)

    def _summary(self, world: World, name: str | None) -> PodSummary | None:
        if name is None:
            if self.part_of is not None:
                cands = world.index("Pod", N.L_PART_OF).get(self.part_of, ())
            else:
                cands = world.of_kind("Pod")
            strays = [p for p in cands if N.L_PCLQ not in p.labels and self._owned(p)]
            return PodSummary(strays) if strays else None
        s = pod_summary(world, N.L_PCLQ, name, self.namespace, self.part_of)
        return s if s.pods else None

    def build(self, world: World) -> PodGroups:
        names: list[str | None] = list(world.index("Pod", N.L_PCLQ))
        return self._patched(None, names + [None], world)

    def patch(self, prev: PodGroups, changes: Mapping[Any, tuple[Obj | None, Obj | None]], world: World) -> PodGroups:
        dirty: set[str | None] = set()
        for k, (old, new) in changes.items():
            if k[0] != "Pod":
                continue
            for o in (old, new):
                if o is not None:
                    dirty.add(o.labels.get(N.L_PCLQ))
        if not dirty:
            return prev
        return self._patched(prev, sorted(dirty, key=lambda v: (v is None, v or "")), world)

    def _patched(self, prev: PodGroups | None, names: Sequence[str | None], world: World) -> PodGroups:
        # the groups of ``prev`` shared, plus this world's edits (``core.overlay.Overlay``)
        groups = Overlay.over(prev.groups) if prev is not None else Overlay.over({})
        n_active, act_ready, act_sched, n_pods = (prev.n_active, prev.act_ready, prev.act_sched, prev.n_pods) \
            if prev is not None else (0, 0, 0, 0)
        res: dict[str, int] = dict(prev.res) if prev is not None else {}
        buckets = [set(b) for b in (prev.terminating, prev.gated, prev.pending, prev.unready_sched)] \
            if prev is not None else [set(), set(), set(), set()]

        def account(name: str | None, s: PodSummary, sign: int) -> None:
            nonlocal n_active, act_ready, act_sched, n_pods
            n_active += sign * s.n_active
            n_pods += sign * len(s.pods)
            act_ready += sign * s.act_ready
            act_sched += sign * s.act_sched
            if s.act_sched:
                add(res, s.scheduled_resources(), sign)
            for flag, bucket in zip((s.nt < len(s.pods), s.act_gated, s.act_pending, s.act_unready_sched), buckets):
                if flag:
                    if sign > 0:
                        bucket.add(name)
                    else:
                        bucket.discard(name)

        for name in names:
            old = groups.get(name)
            if old is not None:
                account(name, old, -1)
            s = self._summary(world, name)
            if s is not None:
                groups.put(name, s)
                account(name, s, +1)
            elif old is not None:
                groups.drop(name)
        for k in [k for k, v in res.items() if v == 0]:
            del res[k]
        return PodGroups(self.namespace, self.part_of, groups.settled(), n_active, act_ready, act_sched, n_pods, res,
                         *(frozenset(b) for b in buckets))


def pod_groups(world: World, namespace: str | None, part_of: str | None) -> PodGroups:
    """The ``PodGroups`` of ``world`` (pods in ``namespace`` and part of ``part_of``;
    None: any)."""
    return world.derived(PodGroupsView(namespace, part_of))  # type: ignore[no-any-return]


def owned_pod_groups(world: World, namespace: str, part_of: str) -> list[tuple[str | None, PodSummary]]:
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


_GC_KINDS = ("PodCliqueScalingGroup", "PodClique", "PodGang", "Service", "HorizontalPodAutoscaler")


@record(frozen=True)
class TerminatingView:
    """``World.derived`` description of the keys of a PodCliqueSet's terminating
    objects of the kinds garbage collection removes (pods aside: ``PodGroups``)."""

    namespace: str
    part_of: str

    kinds = _GC_KINDS  # what the view reads (``World.derived``)

    def _owned_terminating(self, o: Obj | None) -> bool:
        return o is not None and o.terminating and o.namespace == self.namespace and \
            o.labels.get(N.L_PART_OF) == self.part_of

    def build(self, world: World) -> frozenset:
        return frozenset((kind, o.namespace, o.name) for kind in _GC_KINDS
                         for o in world.index(kind, N.L_PART_OF).get(self.part_of, ()) if self._owned_terminating(o))

    def patch(self, prev: frozenset, changes: Mapping[Any, tuple[Obj | None, Obj | None]], world: World) -> frozenset:
        add_, drop = set(), set()
        for k, (_old, new) in changes.items():
            if k[0] in _GC_KINDS:
                (add_ if self._owned_terminating(new) else drop).add(k)
        return (prev - drop) | add_ if add_ or drop & prev else prev


def terminating(world: World, namespace: str, part_of: str) -> frozenset:
    """Keys of the PodCliqueSet's terminating PodCliqueScalingGroups, PodCliques,
    PodGangs, Services and HPAs."""
    return world.derived(TerminatingView(namespace, part_of))  # type: ignore[no-any-return]
