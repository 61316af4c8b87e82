"""The other observed RayServices of the planned one's ClusterQueue, settled one after the
other so that their Workloads hold their quota (``KueueRayServiceModel._neighbour_workloads``).

Not upstream code: Kueue's scheduler cache counts every admitted Workload of a ClusterQueue
(kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7,
``pkg/cache/scheduler/clusterqueue.go`` ``updateWorkloadUsage``), and a neighbour whose
Workload the input lacks is settled by planning its creation under the same Kueue model.
A settling reads the Workloads settled before it through the usage they hold in the
ClusterQueue (``clusterqueue.held_usage``, the cache's usage), except those its Kueue
controllers read one by one (``Held``): N neighbours cost N settlings of one.

A settled neighbour leaves its RayClusters running (KubeRay deletes only clusters that are
neither active nor pending, ``cleanUpRayClusterInstance``), so under ``legacy``, where
each RayCluster is the job its Workload is owned by, Kueue's job reconciler finds that job
(``loadJob`` in ``pkg/controller/jobframework/reconciler.go``) and never finalizes its
Workload (``finalizeWorkloads``, ``FinishOrphanedWorkload``): it keeps its reservation. The
worlds settled after it and the target's hold those RayClusters as world memory
(``MEM_KEPT_CLUSTERS``, read by ``reconciler.load_job``), not as objects: they are
another RayService's clusters, which the KubeRay model of the planned one does not read.

A Workload that a settling evicts (its scheduler preempts it: ``preemption.py``), given to
it from the input or an earlier settling, is carried as that settling left it (evicted, its
reservation released by ``_release_foreign``) to the settlings after it and the target's
world: the preemption happened before the target's plan starts.
"""

from __future__ import annotations

import copy
from typing import Any, Callable, Mapping, Sequence

from ...core.model import Obj
from ...core.records import record
from ...core.world import World, key_of
from ..kuberay.api import L_NAME, RC, RS
from .clusterqueue import quota_of, workload_usage
from .constants import QUEUE_LABEL, WL, WPC
from .context import as_map
from .evict import evicted
from .finish import finished
from .priority import priority_of
from .queue_manager import find_queue
from .workload import created_at, owner_of, quota_reserved

#: ``settle(rs, objects, held, clusters)``: the world a neighbour settles in, given the
#: queue objects and Workloads ``objects``, per ClusterQueue the usage ``held`` of the
#: others, and the settled neighbours' RayClusters ``clusters`` that own Workloads among
#: ``objects`` (``MEM_KEPT_CLUSTERS``); None when, with ``held``, the plan's loop guard
#: ended it (it stops by the world's size)
Settle = Callable[[Obj, list[Obj], "Mapping[str, Mapping[tuple[str, str], int]] | None", "frozenset[tuple[str, str]]"],
                  "World | None"]


@record(frozen=True)
class Neighbours:
    """What the settled neighbours leave (``neighbour_workloads``): their quota-holding
    Workloads and the Workloads their settlings preempted, in order, and (namespace, name)
    of the RayClusters that own some of them (``legacy``), which keep running."""

    workloads: tuple[Obj, ...]
    clusters: frozenset[tuple[str, str]]


def neighbour_workloads(desired: Obj, others: Sequence[Obj], qobs: Mapping[tuple, Obj], settle: Settle) -> Neighbours:
    """The Workloads of the other observed RayServices under Kueue that the input does not
    give: each is settled (``settle``) in input order against the queues and the Workloads
    before it, and its quota-holding Workloads count in the ClusterQueue's usage
    (``updateWorkloadUsage``, clusterqueue.go). Only those of the ClusterQueue of
    ``desired`` (another's quota is nothing it competes for); a suspended one (its
    Workload pending) holds none. The RayClusters that own them are kept
    (``Neighbours.clusters``): the settled neighbour keeps running them. A Workload a
    settling preempted is among them as that settling left it (evicted), in the place
    it had, or after them when the input gives it."""
    out: list[Obj] = []
    have = dict(qobs)
    queues = World(list(have.values()))
    _lq, mine = find_queue(queues, desired.namespace, str(desired.labels.get(QUEUE_LABEL) or ""))
    if mine is None:
        return Neighbours((), frozenset())
    # the owners of the Workloads in the input, and the RayClusters of each RayService
    owners: dict[str, set[str]] = {}
    for w in have.values():
        if w.kind == WL:
            owners.setdefault(w.namespace, set()).add((owner_of(w) or ("", ""))[1])
    clusters: dict[Any, list[str]] = {}
    for c in others:
        if c.kind == RC:
            clusters.setdefault(c.labels.get(L_NAME), []).append(c.name)
    given = [o for o in have.values() if o.kind != WL or quota_reserved(o)]
    # the highest priority a Workload pending in a settling can have: a
    # WorkloadPriorityClass's value (``ExtractPriority``) or the default 0 (the given
    # Workloads are never pending there: an evicted one keeps its Evicted condition)
    top = max([0, *(int(o.raw["value"]) for o in given if o.kind == WPC and isinstance(o.raw.get("value"), int))])
    held = Held(mine.name, quota_of(mine).preemption in ("LowerPriority", "LowerOrNewerEqualPriority"), top)
    for o in given:
        held.add(o)
    for rs in others:
        if rs.kind != RS or (rs.name == desired.name and rs.namespace == desired.namespace) \
                or not rs.labels.get(QUEUE_LABEL):
            continue
        _lq, theirs = find_queue(queues, rs.namespace, str(rs.labels.get(QUEUE_LABEL)))
        if theirs is None or theirs.name != mine.name:
            continue  # another ClusterQueue's quota: nothing the target competes for
        mine_owners = owners.get(rs.namespace, set())
        if any(n in mine_owners for n in (rs.name, *clusters.get(rs.name, ()))):
            continue  # its Workload is in the input
        if rs.status and (rs.spec.get("suspend") is True
                          or as_map(rs.spec.get("rayClusterConfig")).get("suspend") is True):
            continue
        one_by_one, usage, kept = held.for_settling(rs.namespace)
        settled = settle(rs, one_by_one, {mine.name: usage} if usage else None, kept)
        if settled is None:
            settled = settle(rs, list(held.every), None, frozenset(held.kept))
        assert settled is not None
        for w in settled.of_kind(WL):
            was = have.get(key_of(w))
            if was is not None:
                if evicted(w) and not evicted(was):
                    # evicted in the settling (preempted): so it is when the target's plan
                    # starts, with its reservation released, at the creation time it had
                    w = _with_creation(w, was)
                    have[key_of(w)] = w
                    held.replace(w)
                    at = next((n for n, o in enumerate(out) if key_of(o) == key_of(w)), None)
                    if at is None:
                        out.append(w)  # a Workload the input gives
                    else:
                        out[at] = w
                continue
            if quota_reserved(w) and not finished(w):
                have[key_of(w)] = w
                own = owner_of(w) or ("", "")
                owners.setdefault(w.namespace, set()).add(own[1])
                rc = settled.get(RC, w.namespace, own[1]) if own[0] == RC else None
                if rc is not None and not rc.terminating:
                    held.keep(w.namespace, own[1])
                held.add(w)
                out.append(w)
    return Neighbours(tuple(out), frozenset(held.kept))


def _with_creation(w: Obj, was: Obj) -> Obj:
    """Workload ``w`` with the creation time of ``was`` (a settling moves the creation times
    of the Workloads its world holds before its clock: ``_settled``)."""
    raw = copy.deepcopy(dict(w.raw))
    raw["metadata"]["creationTimestamp"] = was.metadata.get("creationTimestamp")
    return Obj(raw, was.file, was.line, was.lines)


class Held:
    """The queue objects and quota-holding Workloads a neighbour's settling starts from
    (``neighbour_workloads``), in input order: each is given to it as an object, or
    counted only in the usage it holds in ClusterQueue ``cq`` (``clusterqueue.held_usage``).
    A Workload is given when the settling's Kueue controllers read more of it than its
    usage (``clusterqueue.usage``):

    - it holds nothing in ``cq`` (``workload_usage`` is empty), or is evicted
      (``_release_foreign`` releases it);
    - it was not created before the settling's clock starts (a live creation time always
      is, ``created_at``; a settled one's is moved before it): the settling's own
      Workloads' moved creation times count the Workloads that sort after them;
    - where ``cq`` preempts within itself (``preempts``), its priority is below ``top``,
      the highest a Workload pending in the settling may have: a candidate
      (``preemption.py``; being older than the settling's own, an equal priority is never
      a newer one).

    The RayClusters of settled neighbours that own given Workloads go with them
    (``kept``, world memory ``MEM_KEPT_CLUSTERS``), so the settling's Kueue finds those
    jobs (``reconciler.load_job``). Otherwise one owned by a RayCluster that is not kept
    (the input gives the Workload and not its RayCluster), to a settling in its
    namespace, is neither given nor counted: its first Kueue pass deletes that Workload
    (``finalizeWorkloads``) before its scheduler runs, and nothing reads it before
    (``_ours`` takes it for the settling's own, which ``_release_foreign`` skips). A
    settling's own Workload names carry its job's name, so no other Workload's name
    collides with them (``workload_name``).

    A settling that its plan's loop guard ends (NoProgress) is settled again with all of
    them given (``every``) and every kept RayCluster: the guard stops a plan by the
    number of objects its world held."""

    def __init__(self, cq: str, preempts: bool, top: int) -> None:
        self.cq, self.preempts, self.top = cq, preempts, top
        #: given to every settling, and all of them, in input order
        self.given: list[Obj] = []
        self.every: list[Obj] = []
        #: the settled neighbours' RayClusters, and those that own given Workloads
        self.kept: set[tuple[str, str]] = set()
        self.kept_given: set[tuple[str, str]] = set()
        #: the usage of the Workloads counted, and of those owned by a RayCluster that is
        #: not kept, per namespace
        self.usage: dict[tuple[str, str], int] = {}
        self.usage_by_cluster: dict[str, dict[tuple[str, str], int]] = {}

    def keep(self, ns: str, rc: str) -> None:
        """RayCluster ``rc`` of namespace ``ns`` is a settled neighbour's: it keeps running."""
        self.kept.add((ns, rc))

    def add(self, o: Obj) -> None:
        self.every.append(o)
        used = workload_usage(o, self.cq) if o.kind == WL else {}
        own = (owner_of(o) or ("", "")) if o.kind == WL else ("", "")
        if not used or evicted(o) or created_at(o)[0] >= 0 or (self.preempts and priority_of(o) < self.top):
            self.given.append(o)
            if own[0] == RC and (o.namespace, own[1]) in self.kept:
                self.kept_given.add((o.namespace, own[1]))
            return
        for k, v in used.items():
            self.usage[k] = self.usage.get(k, 0) + v
        if own[0] == RC and (o.namespace, own[1]) not in self.kept:
            ns_usage = self.usage_by_cluster.setdefault(o.namespace, {})
            for k, v in used.items():
                ns_usage[k] = ns_usage.get(k, 0) + v

    def replace(self, new: Obj) -> None:
        """A Workload added before, as ``new`` after a later settling preempted it: given
        from now on (it is evicted), its usage no longer counted."""
        k = key_of(new)
        i = next(n for n, o in enumerate(self.every) if key_of(o) == k)
        old, self.every[i] = self.every[i], new
        at = next((n for n, o in enumerate(self.given) if key_of(o) == k), None)
        if at is None:
            for k2, v in workload_usage(old, self.cq).items():
                self.usage[k2] -= v
            own = owner_of(old) or ("", "")
            if own[0] == RC and (old.namespace, own[1]) not in self.kept:
                for k2, v in workload_usage(old, self.cq).items():
                    self.usage_by_cluster[old.namespace][k2] -= v
            later = {key_of(o) for o in self.every[i + 1:]}
            at = next((n for n, o in enumerate(self.given) if key_of(o) in later), len(self.given))
            self.given.insert(at, new)
        else:
            self.given[at] = new
        own = owner_of(new) or ("", "")
        if own[0] == RC and (new.namespace, own[1]) in self.kept:
            self.kept_given.add((new.namespace, own[1]))

    def for_settling(self, ns: str) -> tuple[list[Obj], dict[tuple[str, str], int], frozenset[tuple[str, str]]]:
        """What a settling in namespace ``ns`` is given: the objects, in input order, the
        usage the others hold in the ClusterQueue, and the kept RayClusters of the
        objects."""
        usage = dict(self.usage)
        for k, v in self.usage_by_cluster.get(ns, {}).items():
            usage[k] -= v
        return list(self.given), usage, frozenset(self.kept_given)
