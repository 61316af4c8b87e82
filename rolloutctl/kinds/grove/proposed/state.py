"""What a proposed-strategy controller reads from the world: which objects carry an
outdated pod template, which are available, which are surge, and the update
bookkeeping in the PodCliqueSet status.

Availability follows the upstream status rules the design builds on:
a PodClique is available with ``readyReplicas >= minAvailable``, a scaling-group
replica when every member PodClique is, a PodCliqueSet replica when every
standalone PodClique is and every scaling group has ``minAvailable`` available
replicas (``podcliqueset/reconcilestatus.go`` ``computeAvailableAndUpdatedReplicas``,
``podcliquescalinggroup/reconcilestatus.go``). Outdated = the
``grove.io/pod-template-hash`` label differs from the desired clique template
(``componentutils.ComputePCLQPodTemplateHash``).
"""

from __future__ import annotations

from bisect import bisect_left, insort
from functools import partial
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ....core.model import Action, Obj
from ....core.overlay import Overlay
from ....core.world import World
from ..controller import common as C
from .. import names as N
from .. import objects as O
from .. import update_common as U
from .. import replica_index as RI
from ....core.records import record
from ..policy import Policy
from ..spec import PCS, Clique
from .rollout import Unit, deletion_key

DESIGN = "grove-design:docs/designs/update-strategy.md"  # ai-dynamo/grove PR #262


def _int(v: Any, default: int = 0) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else default


def clique_of(pcs: PCS, pclq: Obj) -> Clique | None:
    return U.clique_of(pcs, pclq)


def target_hash(pcs: PCS, pclq: Obj) -> str | None:
    return U.expected_pod_template_hash(pcs, pclq) or None


def min_available(pclq: Obj) -> int:
    return _int(pclq.spec.get("minAvailable"), 1)


def spec_replicas(o: Obj, default: int = 0) -> int:
    return _int(o.spec.get("replicas"), default)


class View:
    """One pass's read model of a PodCliqueSet's children (built once per pass)."""

    def __init__(self, pcs: PCS, world: World) -> None:
        self.pcs = pcs
        self.world = world
        self._pods_index = world.index("Pod", N.L_PCLQ)
        self.pods_by_pclq: dict[str, list[Obj]] = {}  # filled lazily
        # Groupings of the PodCliqueSet's PodCliques and scaling groups, answered per
        # key from the world's label indexes (a pass reads a few replicas, not all);
        # iterating one builds it whole.
        # (the groupings' functions take the PodCliqueSet and the world, not the view:
        # a view in a reference cycle would keep its world alive until the cyclic
        # garbage collector runs)
        self.members = _Lazy(partial(_members_of, pcs, world), partial(_all_members, pcs, world))
        self.standalone = _Lazy(partial(_by_replica, pcs, world, "PodClique"), partial(_all_standalone, pcs, world))
        self.pcsg_by_replica = _Lazy(partial(_by_replica, pcs, world, "PodCliqueScalingGroup"),
                                     partial(_all_pcsgs, pcs, world))
        self._hash: dict[str, str | None] = {}

    @property
    def pclqs(self) -> list[Obj]:
        return C.owned(self.world, "PodClique", self.pcs)

    @property
    def pcsgs(self) -> list[Obj]:
        return C.owned(self.world, "PodCliqueScalingGroup", self.pcs)

    # PodCliques ---------------------------------------------------------------
    def target(self, pclq: Obj) -> str | None:
        h = self._hash.get(pclq.name, "?")
        if h == "?":
            h = target_hash(self.pcs, pclq)
            self._hash[pclq.name] = h
        return h

    def pods(self, pclq: Obj) -> list[Obj]:
        """Active pods of ``pclq`` (computed once per view)."""
        got = self.pods_by_pclq.get(pclq.name)
        if got is None:
            got = [p for p in self._pods_index.get(pclq.name, ()) if p.namespace == pclq.namespace and O.pod_active(p)]
            self.pods_by_pclq[pclq.name] = got
        return got

    def ready(self, pclq: Obj) -> int:
        return sum(1 for p in self.pods(pclq) if O.pod_ready(p))

    def pclq_available(self, pclq: Obj) -> bool:
        return not pclq.terminating and self.ready(pclq) >= min_available(pclq)

    def pclq_outdated(self, pclq: Obj) -> bool:
        """The PodClique's template or any of its pods is not the desired one."""
        t = self.target(pclq)
        if pclq.labels.get(N.L_TEMPLATE_HASH) != t:
            return True
        return any(p.labels.get(N.L_TEMPLATE_HASH) != t for p in self.pods(pclq))

    # scaling-group replicas ----------------------------------------------------
    def group_of(self, pcsg: Obj):
        i = C.replica_of(pcsg)
        return next((g for g in self.pcs.groups if self.pcs.pcsg_fqn(i, g) == pcsg.name), None)

    def pcsg_units(self, pcsg: Obj) -> dict[int, list[Obj]]:
        return self.members.get(pcsg.name, {})

    def pcsg_replica_available(self, pcsg: Obj, j: int) -> bool:
        g = self.group_of(pcsg)
        members = [q for q in self.pcsg_units(pcsg).get(j, []) if not q.terminating]
        if g is None or len(members) < len(g.clique_names):
            return False
        return all(self.pclq_available(q) for q in members)

    def pcsg_available_replicas(self, pcsg: Obj) -> int:
        return sum(1 for j in self.pcsg_units(pcsg) if self.pcsg_replica_available(pcsg, j))

    # PodCliqueSet replicas -----------------------------------------------------
    def replica_pclqs(self, i: int) -> list[Obj]:
        out = list(self.standalone.get(i, []))
        for g in self.pcsg_by_replica.get(i, []):
            for qs in self.pcsg_units(g).values():
                out.extend(qs)
        return out

    def replica_outdated(self, i: int) -> bool:
        return any(self.pclq_outdated(q) for q in self.replica_pclqs(i) if not q.terminating)

    def replica_present(self, i: int) -> bool:
        """Some non-terminating child of replica ``i`` exists."""
        return any(not q.terminating for q in self.standalone.get(i, [])) or \
            any(not g.terminating for g in self.pcsg_by_replica.get(i, []))

    def replica_terminating(self, i: int) -> bool:
        return any(q.terminating for q in self.standalone.get(i, [])) or \
            any(g.terminating for g in self.pcsg_by_replica.get(i, []))

    def replica_available(self, i: int) -> bool:
        """``availableReplicas`` rule: every standalone PodClique and every scaling group
        of replica ``i`` exists and meets its minimum."""
        cliques, groups = self._expected_children(i)
        if any(q is None or not self.pclq_available(q) for q in cliques):
            return False
        return all(live is not None and self.pcsg_available_replicas(live) >= _int(live.spec.get("minAvailable"),
                                                                                  g.min_available)
                   for g, live in groups)

    def _expected_children(self, i: int) -> tuple[list[Obj | None], list[tuple[Any, Obj | None]]]:
        """Replica ``i``'s expected standalone PodCliques and scaling groups (the desired
        cliques and groups), each with its live non-terminating object or None."""
        pcs = self.pcs
        names = {q.name: q for q in self.standalone.get(i, []) if not q.terminating}
        groups = {g.name: g for g in self.pcsg_by_replica.get(i, []) if not g.terminating}
        return ([names.get(pcs.standalone_pclq_fqn(i, c.name)) for c in pcs.standalone],
                [(g, groups.get(pcs.pcsg_fqn(i, g))) for g in pcs.groups])

    def pclq_complete(self, pclq: Obj) -> bool:
        """The PodClique holds its ``spec.replicas`` pods of the desired template, all Ready:
        its update has ended (upstream's ``isPCLQUpdateComplete`` needs the PodClique's
        ``currentPodTemplateHash``, written when its update ends, which waits for the last
        replacement to be Ready: ``pod/rollingupdate.go`` ``isCurrentPodUpdateComplete``)."""
        t = self.target(pclq)
        done = sum(1 for p in self.pods(pclq) if p.labels.get(N.L_TEMPLATE_HASH) == t and O.pod_ready(p))
        return not pclq.terminating and done >= spec_replicas(pclq)

    def replica_complete(self, i: int) -> bool:
        """Replica ``i``'s update has ended: every standalone PodClique is complete
        (``pclq_complete``), and every scaling group holds its ``spec.replicas`` replicas,
        each with all its member PodCliques complete. A unit deleted and not yet
        recreated leaves the replica incomplete, though nothing left in it is outdated."""
        cliques, groups = self._expected_children(i)
        if any(q is None or not self.pclq_complete(q) for q in cliques):
            return False
        for g, live in groups:
            if live is None:
                return False
            units = self.pcsg_units(live)
            for j in range(spec_replicas(live, g.replicas)):
                members = [q for q in units.get(j, []) if not q.terminating]
                if len(members) < len(g.clique_names) or not all(self.pclq_complete(q) for q in members):
                    return False
        return True

    def replica_scheduled_pods(self, i: int) -> int:
        return sum(1 for q in self.replica_pclqs(i) for p in self.pods(q) if O.pod_scheduled(p))

    def replica_pods(self, i: int) -> list[Obj]:
        return [p for q in self.replica_pclqs(i) for p in self.pods(q)]


def _all_members(pcs: PCS, world: World) -> dict[str, dict[int, list[Obj]]]:
    out: dict[str, dict[int, list[Obj]]] = {}
    for q in C.owned(world, "PodClique", pcs):
        if N.L_PCSG in q.labels:
            j = _int(_to_int(q.labels.get(N.L_PCSG_REPLICA)), -1)
            out.setdefault(q.labels[N.L_PCSG], {}).setdefault(j, []).append(q)
    return out


def _members_of(pcs: PCS, world: World, pcsg_name: str) -> dict[int, list[Obj]] | None:
    out: dict[int, list[Obj]] = {}
    ns, part_of = pcs.namespace, pcs.name
    for q in world.index("PodClique", N.L_PCSG).get(pcsg_name, ()):
        if q.namespace == ns and q.labels.get(N.L_PART_OF) == part_of:
            j = _int(_to_int(q.labels.get(N.L_PCSG_REPLICA)), -1)
            out.setdefault(j, []).append(q)
    return out or None


def _all_standalone(pcs: PCS, world: World) -> dict[int, list[Obj]]:
    out: dict[int, list[Obj]] = {}
    for q in C.owned(world, "PodClique", pcs):
        if N.L_PCSG not in q.labels:
            out.setdefault(C.replica_of(q), []).append(q)
    return out


def _all_pcsgs(pcs: PCS, world: World) -> dict[int, list[Obj]]:
    out: dict[int, list[Obj]] = {}
    for g in C.owned(world, "PodCliqueScalingGroup", pcs):
        out.setdefault(C.replica_of(g), []).append(g)
    return out


def _by_replica(pcs: PCS, world: World, kind: str, i: Any) -> list[Obj] | None:
    if not isinstance(i, int) or i < 0:
        raise LookupError  # objects without a valid replica label: the whole grouping answers
    return RI.by_replica(world, kind, pcs, kind == "PodClique").get(i)


def present_replicas(pcs: PCS, world: World) -> tuple[int, ...]:
    """PodCliqueSet replicas ``i >= 0`` that have children (standalone PodCliques or
    scaling groups), in order (the world view's own tuple)."""
    return world.derived(PresentReplicas(pcs))  # type: ignore[no-any-return]


@record(frozen=True)
class PresentReplicas:
    """``World.derived`` description of ``present_replicas`` (a sorted tuple): patched
    for the replicas whose PodCliques or scaling groups changed, instead of going
    over every replica's groups on each round."""

    pcs: PCS  # compared by identity: the model's parsed desired PodCliqueSet

    def build(self, world: World) -> tuple[int, ...]:
        pcs = self.pcs
        return tuple(sorted(i for i in set(RI.by_replica(world, "PodClique", pcs, True))
                            | set(RI.by_replica(world, "PodCliqueScalingGroup", pcs, False)) if i >= 0))

    def patch(self, prev: tuple[int, ...], changes: Mapping[Any, tuple[Obj | None, Obj | None]],
              world: World) -> tuple[int, ...]:
        touched = RI.touched_replicas(changes, ("PodClique", "PodCliqueScalingGroup"))
        if touched is None:
            return self.build(world)
        pclqs = RI.by_replica(world, "PodClique", self.pcs, True)
        pcsgs = RI.by_replica(world, "PodCliqueScalingGroup", self.pcs, False)
        moved = {}
        for i in touched:
            now = i >= 0 and (i in pclqs or i in pcsgs)
            at = bisect_left(prev, i)
            if now != (at < len(prev) and prev[at] == i):
                moved[i] = now
        if not moved:
            return prev
        out = prev  # each move one slice of the tuple (a set sorted again costs every replica)
        for i, now in moved.items():
            at = bisect_left(out, i)
            out = out[:at] + (i,) + out[at:] if now else out[:at] + out[at + 1:]
        return out


def dirty_replicas(changes: Mapping[Any, tuple[Obj | None, Obj | None]], world: World) -> set[int] | None:
    """PodCliqueSet replicas whose objects (as ``View`` groups them) changed: the
    replica of a changed PodClique or scaling group, of a member PodClique's scaling
    group, of a changed pod's PodClique; None when an object has no valid replica
    label."""
    out: set[int] = set()

    def owner(o: Obj | None) -> None:
        if o is None:
            return
        out.add(C.replica_of(o))
        g = o.labels.get(N.L_PCSG) if o.kind == "PodClique" else None
        if g is not None:
            pcsg = world.get("PodCliqueScalingGroup", o.namespace, g)
            if pcsg is not None:
                out.add(C.replica_of(pcsg))

    for k, (old, new) in changes.items():
        for o in (old, new):
            if o is None:
                continue
            if k[0] in ("PodClique", "PodCliqueScalingGroup"):
                owner(o)
            elif k[0] == "Pod" and N.L_PCLQ in o.labels:
                owner(world.get("PodClique", o.namespace, o.labels[N.L_PCLQ]))
    return None if any(i < 0 for i in out) else out


@record(frozen=True)
class RolloutUnits:
    """The rollout units of a PodCliqueSet's present replicas (``present_replicas``),
    sorted the ways ``rollout.decide_ordered`` reads them."""

    rows: Mapping[int, Unit]  # the present replicas that are units now, by index
    old: tuple[tuple, ...]  # the old units' ``rollout.deletion_key``, sorted
    available: int  # available units

    def units(self) -> list[Unit]:
        """Every unit, by index."""
        return [u for _i, u in sorted(self.rows.items())]

    def old_in_order(self) -> Iterator[Unit]:
        """The old units in deletion order."""
        rows = self.rows
        return (rows[k[-1]] for k in self.old)

    def surge(self, present: Sequence[int], replicas: int) -> list[Unit]:
        """The units at or above ``replicas`` (``present``: ``present_replicas``), by index."""
        rows = self.rows
        return [u for u in (rows.get(i) for i in present[bisect_left(present, replicas):]) if u is not None]


@record(frozen=True)
class ReplicaUnits:
    """``World.derived`` description of ``RolloutUnits``: ``unit(View, i)`` of every
    present replica, recomputed only for the replicas whose objects changed
    (``dirty_replicas``), with the sorted old units and the counts patched to match.
    ``unit`` must read only replica ``i``'s objects."""

    pcs: PCS  # compared by identity: the model's parsed desired PodCliqueSet
    unit: Callable[[View, int], Unit | None]

    def build(self, world: World) -> RolloutUnits:
        view = View(self.pcs, world)
        rows = {i: u for i, u in ((i, self.unit(view, i)) for i in present_replicas(self.pcs, world))
                if u is not None}
        return RolloutUnits(rows, tuple(sorted(deletion_key(u) for u in rows.values() if u.old)),
                            sum(1 for u in rows.values() if u.available))

    def patch(self, prev: RolloutUnits, changes: Mapping[Any, tuple[Obj | None, Obj | None]],
              world: World) -> RolloutUnits:
        # A replica's presence changes only with its own PodCliques or scaling groups,
        # whose replicas ``dirty_replicas`` names.
        dirty = dirty_replicas(changes, world)
        if dirty is None:
            return self.build(world)
        present = present_replicas(self.pcs, world)
        view = None
        rows = Overlay.over(prev.rows)  # the other replicas' units shared
        old = list(prev.old)
        available, edited = prev.available, False
        for i in sorted(dirty):
            at = bisect_left(present, i)
            was = prev.rows.get(i)
            if at < len(present) and present[at] == i:
                if view is None:
                    view = View(self.pcs, world)
                now = self.unit(view, i)
            else:
                now = None
            if now == was:
                continue
            edited = True
            for u, d in ((was, -1), (now, 1)):
                if u is None:
                    continue
                available += d if u.available else 0
                if u.old:
                    k = deletion_key(u)
                    if d < 0:
                        del old[bisect_left(old, k)]
                    else:
                        insort(old, k)
            if now is not None:
                rows.put(i, now)
            else:
                rows.drop(i)
        if not edited:
            return prev
        return RolloutUnits(rows.settled(), tuple(old), available)


class _Lazy(Mapping):
    """A read-only grouping answered per key by ``one(key)`` (None: absent; raising
    LookupError: ask the whole grouping), built whole by ``whole()`` when iterated."""

    def __init__(self, one: Any, whole: Any) -> None:
        self._one, self._whole = one, whole
        self._full: dict | None = None
        self._got: dict = {}

    def _all(self) -> dict:
        if self._full is None:
            self._full = self._whole()
        return self._full

    def __getitem__(self, k: Any) -> Any:
        if self._full is not None:
            return self._full[k]
        if k not in self._got:
            try:
                self._got[k] = self._one(k)
            except LookupError:
                return self._all()[k]
        v = self._got[k]
        if v is None:
            raise KeyError(k)
        return v

    def __iter__(self):
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


def _to_int(v: Any) -> int | None:
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


# ----------------------------------------------------------------------------- status


def update_active(status: Mapping[str, Any]) -> bool:
    prog = status.get("updateProgress")
    return isinstance(prog, Mapping) and prog.get("updateEndedAt") is None


def updating_replicas(status: Mapping[str, Any]) -> list[int]:
    prog = status.get("updateProgress")
    if not isinstance(prog, Mapping):
        return []
    return [i for i in prog.get("updatingReplicas") or [] if isinstance(i, int)]


def progress_write(pcs: PCS, status: Mapping[str, Any], reason: str, rule: str, **changes: Any) -> tuple[Action, dict[str, Any]]:
    st = dict(status)
    prog = dict(st.get("updateProgress") or {})
    prog.update(changes)
    st["updateProgress"] = prog
    return Action(verb="status", kind="PodCliqueSet", name=pcs.name, namespace=pcs.namespace, reason=reason,
                  rule=rule, fields={"updateProgress": prog}), st


class ViewPolicy(Policy):
    """What both proposed policies share: one ``View`` per world, and the live
    PodCliqueSet status."""

    def __init__(self) -> None:
        # A policy lives for one reconcile round (``strategies.policy_for``): the read
        # models of the worlds its passes look at, by world, for that round only.
        self._views: dict[World, View] = {}

    def view(self, pcs: PCS, world: World) -> View:
        """The read model of ``world``'s children of ``pcs`` (built lazily)."""
        got = self._views.get(world)
        if got is None:
            got = self._views[world] = View(pcs, world)
        return got

    status = staticmethod(U.live_pcs_status)

    def gang_termination_suppressed(self, pcs: PCS, world: World) -> bool:
        """The designs suppress gang termination while an update runs (GREP-393:
        "same as today"); their components do not report ``UpdateInProgress``."""
        return U.pcs_update_in_progress(pcs, U.live_pcs_status(pcs, world))
