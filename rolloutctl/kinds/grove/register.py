"""What the Grove controllers watch, and which keys an event enqueues: the
``RegisterWithManager`` of each controller, as data.

Upstream (ai-dynamo/grove at fcc3b3bb):
``operator/internal/controller/podclique/register.go``,
``operator/internal/controller/podcliquescalinggroup/register.go``,
``operator/internal/controller/podcliqueset/register.go``.

The model's round runs each controller's work as passes (``model.GroveModel.reconcile``:
status bookkeeping bottom-up, then the PodCliqueSet, PodCliqueScalingGroup and
PodClique controllers); each pass is one ``core.queue.Controller`` here and takes its
keys from the plan's work queue. An update strategy adds the watches its own work
needs (``Policy.*_selection``): the PodCliqueSet status it reads, mapped to the keys of
the replicas that enter or leave its selection, as upstream's ``mapPCSToPCSG`` maps a
PodCliqueSet to the scaling groups of the replica being updated.

Predicates upstream applies and the model does not: ``GenerationChangedPredicate``
on a controller's own kind (the model's status bookkeeping of a PodClique and its
spec pass are separate passes here, so a status write must wake the spec pass),
``podPredicate``'s "no create events" (the model's pod sync reads the pods it just
created) and ``podCliqueSetPredicate``'s narrowing to ``currentlyUpdating`` changes for
the status passes. Each would drop events a pass of the model reads; an extra key
costs one plain reconcile that finds nothing to do, a missing one a wrong plan.

Whether the PodCliqueSet controller reconciles at all after an update that leaves the
spec as it is: ``pcs_update_reconciles`` (its predicate), ``pcs_requeues`` (its own
requeue) and ``only_mirrors_metadata`` (a round whose only work is that reconcile's).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

from ...core.model import Obj
from ...core.queue import Controller, Watch, by_label, own_name
from ...core.world import World
from . import names as N
from . import objects as O
from . import update_common as U
from . import replica_index as RI
from .defaults import as_stored, default_pcs
from .spec import PCS

G = "grove:operator/internal/controller"

#: selection: the PodCliqueSet status -> (a value a pass reads, the replicas it treats specially)
Selection = Callable[[Mapping[str, Any]], tuple[Any, frozenset]]


def _label_values(label: str, old: Obj | None, new: Obj | None) -> list[str]:
    """``by_label(label)``'s keys of an event: the label's value before and after."""
    vo = old.labels.get(label) if old is not None else None
    vn = new.labels.get(label) if new is not None else None
    if vo is None:
        return [] if vn is None else [vn]
    return [vo] if vn is None or vn == vo else [vo, vn]


def member_pcsgs(old: Obj | None, new: Obj | None, world: World) -> list[str]:
    """A PodClique event enqueues its scaling group (``grove.io/podcliquescalinggroup``
    label, ``mapPCLQToPCSG``) and, for a PodClique without that label, every name
    prefix at a ``-`` (the scaling-group controller also finds members by name)."""
    out = _label_values(N.L_PCSG, old, new)
    if not any(o is not None and N.L_PCSG in o.labels for o in (old, new)):
        o = new if new is not None else old
        if o is not None:
            i = o.name.find("-")
            while i > 0:
                out.append(o.name[:i])
                i = o.name.find("-", i + 1)
    return out


def pcs_update_reconciles(old: Obj, new: Obj) -> bool:
    """Whether the update of the PodCliqueSet ``old`` to ``new`` passes
    ``podCliqueSetPredicate`` (``podcliqueset/register.go``) and so makes the PodCliqueSet
    controller reconcile it: ``hasSpecChanged`` compares the generations, which the API
    server bumps when the spec as stored (defaults included, quantities as
    ``defaults.as_stored`` has them) changes and not for labels
    or annotations; ``hasAnnotationChanged`` the ``grove.io/reconcile-trigger``
    annotation (added, removed or changed)."""
    if default_pcs(dict(as_stored(old))).get("spec") != default_pcs(dict(as_stored(new))).get("spec"):
        return True
    return old.annotations.get(N.A_RECONCILE_TRIGGER) != new.annotations.get(N.A_RECONCILE_TRIGGER)


def pcs_requeues(pcs: PCS, world: World) -> bool:
    """Whether the PodCliqueSet controller requeues itself on ``world`` (every
    ``constants.ComponentSyncRetryInterval``), so it reconciles without any event: an
    automatic rolling update in progress (``podcliquesetreplica/rollingupdate.go``
    ``orchestrateRollingUpdate``), a PodClique or scaling group of it with
    ``MinAvailableBreached`` True (``gangterminate.go``: waiting out ``terminationDelay``),
    or a PodGang not yet initialized (``podgang/syncflow.go`` ``verifyAllPodsCreated``)."""
    if U.pcs_update_in_progress(pcs, U.live_pcs_status(pcs, world)):
        return True
    for kind in ("PodClique", "PodCliqueScalingGroup"):
        for o in world.index(kind, N.L_PART_OF).get(pcs.name, ()):
            if o.namespace == pcs.namespace and not o.terminating and \
                    U.condition_status(o, "MinAvailableBreached") == "True":
                return True
    return any(pg.namespace == pcs.namespace and not pg.terminating and not O.podgang_initialized(pg)
               for pg in world.index("PodGang", N.L_PART_OF).get(pcs.name, ()))


def only_mirrors_metadata(actions: Sequence[Any], world: World) -> bool:
    """Whether a round's ``actions`` on ``world`` do nothing but mirror the PodCliqueSet's
    labels and annotations onto PodGangs (their pod groups, priority class and
    ``Initialized`` as they are): work only a reconcile of the PodCliqueSet does
    (``podgang.go`` ``buildResource``, ``mirrorPCSMetadata``), with no other change in the
    world that would make upstream reconcile it (a status write of a PodClique or scaling
    group is an action of the round too)."""
    if not actions:
        return False
    for a in actions:
        if a.verb != "update" or a.kind != "PodGang" or a.hidden or a.payload is None:
            return False
        cur = world.get("PodGang", a.namespace, a.name)
        if cur is None or a.payload.get("spec") != cur.spec or a.fields.get("Initialized") != O.podgang_initialized(cur):
            return False
    return True


def generation_hash_changed(pcs: PCS) -> Watch:
    """The PodCliqueSet's ``currentGenerationHash`` changed: every PodClique and scaling
    group recomputes the hashes in its status. Upstream: ``podclique/register.go``
    ``mapPodCliqueSetToPCLQs`` ("keep CurrentPodCliqueSetGenerationHash in sync")."""

    def enqueue(old: Obj | None, new: Obj | None, world: World) -> Iterable[str] | None:
        if not _is(pcs, old, new):
            return ()
        if _status(old).get("currentGenerationHash") != _status(new).get("currentGenerationHash"):
            return None
        return ()

    return Watch("PodCliqueSet", enqueue, f"{G}/podclique/register.go#mapPodCliqueSetToPCLQs")


def selection_changed(pcs: PCS, kind: str, selection: Selection, upstream: str) -> Watch:
    """A PodCliqueSet status change that changes what ``selection`` reads enqueues every
    ``kind`` object (the value changed) or those of the replicas that entered or left
    the selection."""

    def enqueue(old: Obj | None, new: Obj | None, world: World) -> Iterable[str] | None:
        if not _is(pcs, old, new):
            return ()
        v0, r0 = selection(_status(old))
        v1, r1 = selection(_status(new))
        if v0 != v1:
            return None
        moved = r0 ^ r1
        if not moved:
            return ()
        if not RI.replica_labels_canonical(world, kind, pcs):
            return None
        idx = world.index(kind, N.L_PCS_REPLICA)
        return [o.name for r in moved for o in idx.get(str(r), ())]

    return Watch("PodCliqueSet", enqueue, upstream)


def _is(pcs: PCS, old: Obj | None, new: Obj | None) -> bool:
    o = new if new is not None else old
    return o is not None and o.name == pcs.name and o.namespace == pcs.namespace


def _status(o: Obj | None) -> Mapping[str, Any]:
    return o.status if o is not None else {}


def gang_of(old: Obj | None, new: Obj | None, world: World) -> Iterable[str] | None:
    """A pod or PodClique event enqueues the PodGang its ``grove.io/podgang`` label
    names; a PodClique without that label enqueues every PodGang (the sync finds a
    gang's PodCliques by name)."""
    out = _label_values(N.L_PODGANG, old, new)
    if not out and any(o is not None and o.kind == "PodClique" for o in (old, new)):
        return None
    return out


# ----------------------------------------------------------------------------- the passes


def pcs_component(kind: str, what: str) -> Controller:
    """One component sync of the PodCliqueSet controller (``syncPodCliqueSetResources``):
    the expected objects of ``kind``. Upstream reconciles the PodCliqueSet on events of
    the PodCliques and scaling groups it owns (``podcliqueset/register.go``
    ``RegisterWithManager``: For(PodCliqueSet), Watches(PodClique) ``mapPodCliqueToPodCliqueSet``,
    Watches(PodCliqueScalingGroup) ``mapPodCliqueScaleGroupToPodCliqueSet``) and then
    syncs every component object; an object's sync reads only that object (and, for a
    PodGang, its pods and PodCliques), so the model hands each component only the
    objects those events touch. The queue's scope holds what the expected objects
    depend on (the replica count, for PodGangs the scaling groups' replicas): when
    that changes, every object is synced."""
    watches = [Watch(kind, own_name, f"{G}/podcliqueset/register.go#RegisterWithManager")]
    if kind == "PodGang":
        watches += [Watch("Pod", gang_of, f"{G}/podcliqueset/components/podgang/syncflow.go#getExistingPodsByPCLQForPCS"),
                    Watch("PodClique", gang_of, f"{G}/podcliqueset/register.go#mapPodCliqueToPodCliqueSet")]
    return Controller(f"podcliqueset-controller/{what}", kind, tuple(watches),
                      f"{G}/podcliqueset/reconcilespec.go#syncPodCliqueSetResources")



def pclq_status(pcs: PCS) -> Controller:
    """The PodClique controller's ``reconcileStatus``: a PodClique, its pods, the hash."""
    return Controller("podclique-controller/status", "PodClique", (
        Watch("PodClique", own_name, f"{G}/podclique/register.go#RegisterWithManager For(PodClique)"),
        Watch("Pod", by_label(N.L_PCLQ), f"{G}/podclique/register.go#RegisterWithManager Owns(Pod)"),
        generation_hash_changed(pcs)), f"{G}/podclique/reconcilestatus.go#reconcileStatus")


def pcsg_status(pcs: PCS) -> Controller:
    """The scaling-group controller's ``reconcileStatus``: a group and its members."""
    return Controller("podcliquescalinggroup-controller/status", "PodCliqueScalingGroup", (
        Watch("PodCliqueScalingGroup", own_name,
              f"{G}/podcliquescalinggroup/register.go#RegisterWithManager For(PodCliqueScalingGroup)"),
        Watch("PodClique", by_label(N.L_PCSG), f"{G}/podcliquescalinggroup/register.go#mapPCLQToPCSG"),
        generation_hash_changed(pcs)), f"{G}/podcliquescalinggroup/reconcilestatus.go#reconcileStatus")


def _pcsg_spec(name: str, pcs: PCS, selection: Selection, upstream: str) -> Controller:
    return Controller(name, "PodCliqueScalingGroup", (
        Watch("PodCliqueScalingGroup", own_name,
              f"{G}/podcliquescalinggroup/register.go#RegisterWithManager For(PodCliqueScalingGroup)"),
        Watch("PodClique", member_pcsgs, f"{G}/podcliquescalinggroup/register.go#mapPCLQToPCSG"),
        selection_changed(pcs, "PodCliqueScalingGroup", selection,
                          f"{G}/podcliquescalinggroup/register.go#mapPCSToPCSG")), upstream)


def pcsg_components(pcs: PCS, selection: Selection) -> Controller:
    """The scaling-group controller's component sync (its member PodCliques)."""
    return _pcsg_spec("podcliquescalinggroup-controller/components", pcs, selection,
                      f"{G}/podcliquescalinggroup/reconcilespec.go#syncPodCliqueScalingGroupResources")


def pcsg_update(pcs: PCS, selection: Selection) -> Controller:
    """The scaling-group controller's update processing (the strategy's ``pcsg_pass``)."""
    return _pcsg_spec("podcliquescalinggroup-controller/update", pcs, selection,
                      f"{G}/podcliquescalinggroup/reconcilespec.go#processUpdate")


def pclq_spec(pcs: PCS, selection: Selection) -> Controller:
    """The PodClique controller's ``reconcileSpec``: update processing and pod sync."""
    return Controller("podclique-controller/spec", "PodClique", (
        Watch("PodClique", own_name, f"{G}/podclique/register.go#RegisterWithManager For(PodClique)"),
        Watch("Pod", by_label(N.L_PCLQ), f"{G}/podclique/register.go#RegisterWithManager Owns(Pod) podPredicate"),
        selection_changed(pcs, "PodClique", selection, f"{G}/podclique/register.go#mapPodCliqueSetToPCLQs")),
        f"{G}/podclique/reconcilespec.go#reconcileSpec")
