"""The PodGangs of a PodCliqueSet: the expected gangs (a base gang per replica, a
scaled gang per scaling-group replica at or above ``minAvailable``), then delete the
excess ones and create or update the rest. Upstream (ai-dynamo/grove @ fcc3b3bb):
``operator/internal/controller/podcliqueset/components/podgang/syncflow.go``
(``computeExpectedPodGangs``, ``runSyncFlow``, ``deleteExcessPodGangs``,
``createOrUpdatePodGangs``) and ``podgang.go`` (``Sync``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Callable

from ......core.model import Action, Obj
from ......core.queue import EVERY_KEY, Round
from ......core.world import World
from .... import names as N
from .... import objects as O
from ....spec import PCS
from .... import register as R
from .... import summary as SUM
from ......core.records import record
from ...common import Expected, R_PCS, by_names, create_action, delete_action, owned, replica_of, update_action
from .serviceaccount_rbac import _role


#: given the live replicas of every (PodCliqueSet replica, scaling group) in order,
#: the scaling groups (by name) that keep surge replicas above them, and how many
PcsgSurges = Callable[[Sequence[int]], Mapping[str, int]]


def expected_podgangs(pcs: PCS, world: World, n: int | None = None,
                      pcsg_surge: PcsgSurges | None = None) -> list[tuple[str, int, list[tuple[str, int]]]]:
    """(name, pcs replica, [(PodClique FQN, minReplicas)]) of every expected PodGang: a base
    gang per replica with the standalone cliques and the scaling-group replicas below
    minAvailable; a scaled gang per scaling-group replica at or above minAvailable.
    The scaling-group replica count is the live PCSG's when it exists, plus the
    surge replicas ``pcsg_surge`` names for it.
    Upstream: ``podcliqueset/components/podgang/syncflow.go`` ``computeExpectedPodGangs``,
    ``determinePCSGReplicas``."""
    n = pcs.replicas if n is None else n
    return pcs.derived(_expected_podgangs, n, _gang_replicas(pcs, world, n, pcsg_surge)).items


def expected_replica_podgangs(pcs: PCS, world: World, n: int, i: int) -> list[tuple[str, int, list[tuple[str, int]]]]:
    """The entries of ``expected_podgangs(pcs, world, n)`` of PodCliqueSet replica ``i``
    (its gangs depend only on its own scaling groups' replicas)."""
    g = len(pcs.groups)
    reps = _gang_replicas(pcs, world, n, None)
    return pcs.derived(_replica_podgangs, i, reps[i * g:(i + 1) * g])  # type: ignore[no-any-return]


def _gang_replicas(pcs: PCS, world: World, n: int, pcsg_surge: PcsgSurges | None) -> tuple[int, ...]:
    """The replicas of every (replica < n, scaling group) the expected PodGangs count:
    the live scaling group's, plus the surge replicas ``pcsg_surge`` names for it."""
    live_reps = live_pcsg_replicas(pcs, world, n)
    surges = pcsg_surge(live_reps) if pcsg_surge is not None else None
    if not surges:
        return live_reps
    reps_of = list(live_reps)
    for name, extra in surges.items():
        if extra and world.get("PodCliqueScalingGroup", pcs.namespace, name) is not None:
            for pos in _pcsg_positions(pcs, name, n):
                reps_of[pos] += extra
    return tuple(reps_of)


def _pcsg_positions(pcs: PCS, name: str, n: int) -> list[int]:
    """Where the scaling group ``name`` stands in ``live_pcsg_replicas``' order: every
    (replica < n, group) whose generated name it is."""
    out = []
    prefix = pcs.name + "-"
    for gi, g in enumerate(pcs.groups):
        suffix = "-" + g.name
        if name.startswith(prefix) and name.endswith(suffix) and len(name) > len(prefix) + len(suffix):
            r = name[len(prefix):len(name) - len(suffix)]
            if r.isdecimal() and int(r) < n and pcs.pcsg_fqn(int(r), g) == name:
                out.append(int(r) * len(pcs.groups) + gi)
    return out


def live_pcsg_replicas(pcs: PCS, world: World, n: int) -> tuple[int, ...]:
    """``spec.replicas`` of the live scaling group of every (replica < n, group), the
    template's when there is none (a world view, patched for the scaling groups that
    changed)."""
    return world.derived(LivePcsgReplicas(pcs, n))  # type: ignore[no-any-return]


def _live_replicas(pcs: PCS, world: World, i: int, g: Any) -> int:
    live = world.get("PodCliqueScalingGroup", pcs.namespace, pcs.pcsg_fqn(i, g))
    r = live.spec.get("replicas") if live is not None else g.replicas
    return r if isinstance(r, int) else g.replicas


@record(frozen=True)
class LivePcsgReplicas:
    """``World.derived`` description of ``live_pcsg_replicas``."""

    pcs: PCS  # compared by identity: the model's parsed desired PodCliqueSet
    n: int

    kinds = ("PodCliqueScalingGroup",)  # what the view reads (``World.derived``)

    def build(self, world: World) -> tuple[int, ...]:
        pcs = self.pcs
        return tuple(_live_replicas(pcs, world, i, g) for i in range(self.n) for g in pcs.groups)

    def patch(self, prev: tuple[int, ...], changes: Mapping[Any, tuple[Obj | None, Obj | None]],
              world: World) -> tuple[int, ...]:
        pcs = self.pcs
        out: list[int] | None = None
        for k, (old, new) in changes.items():
            if k[0] != "PodCliqueScalingGroup" or k[1] != pcs.namespace:
                continue
            if old is not None and new is not None and old.spec.get("replicas") == new.spec.get("replicas"):
                continue
            for pos in _pcsg_positions(pcs, k[2], self.n):
                if out is None:
                    out = list(prev)
                i, gi = divmod(pos, len(pcs.groups))
                out[pos] = _live_replicas(pcs, world, i, pcs.groups[gi])
        return prev if out is None else tuple(out)


def _expected_podgangs(pcs: PCS, n: int, reps: tuple[int, ...]) -> Expected:
    out: list = []
    g = len(pcs.groups)
    for i in range(n):
        out.extend(pcs.derived(_replica_podgangs, i, reps[i * g:(i + 1) * g]))
    return Expected(out, [name for name, _i, _g in out], [i for _name, i, _g in out])


def _replica_podgangs(pcs: PCS, i: int, reps: tuple[int, ...]) -> list:
    """The expected PodGangs of replica ``i`` when its scaling groups have ``reps``
    replicas (in ``pcs.groups`` order): the base gang, then the scaled gangs. A
    replica's gangs depend only on its own groups' replicas, so a move of one
    replica's scaling groups builds only that replica's gangs again."""
    base = N.base_podgang_name(pcs.name, i)
    groups = [(pcs.standalone_pclq_fqn(i, c.name), c.min_available) for c in pcs.standalone]
    scaled = []
    for g, reps_g in zip(pcs.groups, reps):
        fqn = pcs.pcsg_fqn(i, g)
        for j in range(g.min_available):  # always 0..minAvailable-1, whatever the live replicas
            for cn in g.clique_names:
                c = pcs.clique_by_name.get(cn)
                groups.append((pcs.member_pclq_fqn(i, g, j, cn), c.min_available if c else 1))
        for j in range(g.min_available, reps_g):
            members = []
            for cn in g.clique_names:
                c = pcs.clique_by_name.get(cn)
                members.append((pcs.member_pclq_fqn(i, g, j, cn), c.min_available if c else 1))
            scaled.append((N.scaled_podgang_name(fqn, j, g.min_available), i, members))
    return [(base, i, groups)] + scaled


def podgang_refs(world: World, gang: str) -> Mapping[str, list[str]]:
    """Non-terminating pods carrying a PodGang's label, by PodClique, names sorted:
    the PodGang's ``podReferences``. Upstream: ``syncflow.go``
    ``getExistingPodsByPCLQForPCS`` / ``initializeAssignedAndUnassignedPodsForPCS``,
    ``podgang.go`` ``createPodGroupsForPodGang``."""
    return SUM.pod_summary(world, N.L_PODGANG, gang).refs


def pods_pending_creation_or_association(world: World, ns: str, gang: str, groups: Sequence[tuple[str, int]],
                                         pods_by_pclq: Mapping[str, Sequence[Obj]]) -> int:
    """Pods a PodGang still waits for: every pod of a constituent PodClique that does
    not exist, the shortfall of an existing one against its ``spec.replicas``, and its
    pods not (or not yet) labelled with this PodGang.
    Upstream: ``syncflow.go`` ``getPodsPendingCreationOrAssociation``,
    ``getPodsForPodCliquesPendingCreation``."""
    pending = 0
    for pclq_name, _m in groups:
        pclq = world.get("PodClique", ns, pclq_name)
        if pclq is None:
            pending += 1  # its pods (template replicas, at least one) are all pending
            continue
        pods = [p for p in pods_by_pclq.get(pclq_name, ()) if p.namespace == ns and not p.terminating]
        want = pclq.spec.get("replicas") or 0
        pending += max(0, want - len(pods))
        pending += sum(1 for p in pods if p.labels.get(N.L_PODGANG) != gang)
    return pending


def sync_podgangs(pcs: PCS, world: World, n: int | None = None,
                  pcsg_surge: Callable[[Obj], int] | None = None, queue: Round = EVERY_KEY) -> list[Action]:
    """Delete PodGangs no longer expected, then create-or-patch every expected one:
    created with the pods already labelled for it (none, in a creation) and
    ``Initialized=False`` unless none is pending; its ``podReferences`` follow the
    non-terminating pods labelled for it on every sync; ``Initialized=True`` once no pod is pending
    creation or association (never set back to False).
    Upstream: ``podgang/syncflow.go`` ``runSyncFlow`` (``deleteExcessPodGangs`` first,
    then ``createOrUpdatePodGangs``), ``verifyAllPodsCreated``."""
    n = pcs.replicas if n is None else n
    reps = _gang_replicas(pcs, world, n, pcsg_surge)
    exp = pcs.derived(_expected_podgangs, n, reps)
    ctl = R.pcs_component("PodGang", "podgang")
    look = queue.keys(ctl, world, (n,))
    # the expected gangs follow the scaling groups' replicas: where those moved, the
    # gangs of that PodCliqueSet replica, before and after, are synced too
    prev = queue.inputs(ctl, reps, (n,))
    if look is not None and prev != reps:
        if prev is None or len(prev) != len(reps):
            look = None
        else:
            g = max(1, len(pcs.groups))
            moved = {p // g for p in range(len(reps)) if prev[p] != reps[p]}
            look = look | pcs.derived(_expected_podgangs, n, prev).of_replicas(moved) | exp.of_replicas(moved)
    acts = delete_excess_podgangs(pcs, world, exp, look)
    again = {a.name for a in acts}
    more = create_or_update_podgangs(pcs, world, exp, look)
    again |= {name for name, _i, _g in exp.looked(look)}
    synced = {a.name for a in more}
    again -= {name for name in again if name in exp.names and _settled_podgang(world, pcs, name, synced)}
    queue.done(ctl, sorted(again), (n,))
    return acts + more


def _settled_podgang(world: World, pcs: PCS, name: str, synced: set[str]) -> bool:
    """An existing PodGang the sync did not touch (``synced``: the names it created or
    patched) needs nothing until an event."""
    cur = world.get("PodGang", pcs.namespace, name)
    return cur is not None and not cur.terminating and name not in synced


def delete_excess_podgangs(pcs: PCS, world: World, exp: Expected, look: set[str] | None) -> list[Action]:
    """PodGangs of the PodCliqueSet that are no longer expected are deleted.
    Upstream: ``podgang/syncflow.go`` ``deleteExcessPodGangs``."""
    acts = []
    for pg in owned(world, "PodGang", pcs) if look is None else by_names(world, "PodGang", pcs, look):
        if pg.name not in exp.names and not pg.terminating:
            acts.append(delete_action(pg, "no longer expected",
                                      f"{R_PCS}/components/podgang/syncflow.go#deleteExcessPodGangs",
                                      index=replica_of(pg) if replica_of(pg) >= 0 else None))
    return acts


_LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"  # not mirrored by the model (objects.build_podgang)


def mirror_pcs_metadata(cur: Obj, built: dict[str, Any]) -> bool:
    """``buildResource``'s ``mirrorPCSMetadata`` on a live PodGang: its ``grove.io/``
    labels and annotations are kept, every other entry comes from the PodCliqueSet (and
    the operator's own labels), so additions and removals on the PodCliqueSet propagate.
    Sets the result on ``built`` (changed in place) and says whether it differs from
    ``cur``. Upstream: ``podcliqueset/components/podgang/podgang.go`` ``mirrorPCSMetadata``."""
    md = built["metadata"]
    labels = {k: v for k, v in cur.labels.items() if k.startswith("grove.io/")}
    labels.update(md.get("labels") or {})
    annotations = {k: v for k, v in cur.annotations.items() if k.startswith("grove.io/")}
    annotations.update(md.get("annotations") or {})
    md["labels"] = labels
    if annotations:
        md["annotations"] = annotations
    else:
        md.pop("annotations", None)
    live = {k: v for k, v in cur.annotations.items() if k != _LAST_APPLIED}
    return dict(cur.labels) != labels or live != annotations


def create_or_update_podgangs(pcs: PCS, world: World, exp: Expected, look: set[str] | None) -> list[Action]:
    """Every expected PodGang created, or patched when its pod groups, references,
    priority class or ``Initialized`` differ.
    Upstream: ``podgang/syncflow.go`` ``createOrUpdatePodGangs``, ``verifyAllPodsCreated``."""
    acts = []
    ns = pcs.namespace
    pods_by_pclq = world.index("Pod", N.L_PCLQ)
    for name, i, groups in exp.looked(look):
        cur = world.get("PodGang", ns, name)
        role = _role(pcs, i, "base-gang" if name == N.base_podgang_name(pcs.name, i) else "scaled-gang")
        if cur is None:
            # created listing the pods already labelled for it; Initialized=True in the same
            # sync when none is pending (``createOrUpdatePodGang``, then ``verifyAllPodsCreated``)
            refs = podgang_refs(world, name)
            initialized = pods_pending_creation_or_association(world, ns, name, groups, pods_by_pclq) == 0
            n_refs = sum(len(refs.get(q, ())) for q, _m in groups)
            acts.append(create_action(O.build_podgang(pcs, name, groups, refs, initialized),
                                      f"{role} with {len(groups)} pod groups" + (
                                          f", listing its {n_refs} existing pods" if n_refs else "")
                                      + ("; Initialized=True" if initialized else ""),
                                      f"{R_PCS}/components/podgang/syncflow.go#createOrUpdatePodGangs",
                                      index=i, role=role, revision=None))
            continue
        if cur.terminating:
            continue
        refs = podgang_refs(world, name)
        was_init = O.podgang_initialized(cur)
        initialized = was_init or pods_pending_creation_or_association(world, ns, name, groups, pods_by_pclq) == 0
        raw = O.build_podgang(pcs, name, groups, refs, initialized)
        if initialized == was_init and isinstance(cur.raw.get("status"), Mapping):
            raw["status"] = cur.raw["status"]  # CreateOrPatch leaves the status subresource alone
        metadata_moved = mirror_pcs_metadata(cur, raw)
        if cur.spec.get("podgroups") != raw["spec"]["podgroups"] or initialized != was_init or \
                cur.spec.get("priorityClassName") != raw["spec"].get("priorityClassName") or metadata_moved:
            n_refs = sum(len(refs.get(q, ())) for q, _m in groups)
            acts.append(update_action(cur, raw,
                                      f"lists its {n_refs} pods; Initialized=True" if initialized and not was_init
                                      else "labels and annotations mirrored from the PodCliqueSet"
                                      if metadata_moved and cur.spec.get("podgroups") == raw["spec"]["podgroups"]
                                      else f"pod references now {n_refs} pods",
                                      f"{R_PCS}/components/podgang/syncflow.go#createOrUpdatePodGangs",
                                      fields={"podReferences": n_refs, "Initialized": initialized}, index=i, role=role))
    return acts
