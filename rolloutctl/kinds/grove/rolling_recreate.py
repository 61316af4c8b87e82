"""RollingRecreate, Grove's default update strategy, as the operator performs it.

- PodCliqueSet controller: one PodCliqueSet replica at a time, chosen by
  ``orderPCSReplicaInfo`` (``orchestrate_rolling_update``).
- Inside the selected replica every standalone PodClique and every scaling group
  update at the same time:
  - a standalone PodClique replaces its old pods one by one (non-ready ones at once,
    Ready ones oldest first, guarded by ``minAvailable``), delete first, then the
    replica sync recreates the pod on the lowest free index
    (``process_pending_pod_updates``);
  - a scaling group deletes and recreates whole scaling-group replicas, lowest index
    first, guarded by ``availableReplicas`` (``process_pending_pcsg_updates``).
- Components that set ``rollingUpdate`` (PR #817, newer than the snapshot) follow a
  ``maxUnavailable`` budget instead, and their update ends only when the desired
  replacements are Ready.

This module is the strategy: the ``Policy`` that runs the three controllers' update
passes, its convergence, step titles and stuck diagnosis. The controllers' rules live
in the modules of their upstream Go files under ``controller/``:
``podcliqueset/components/podcliquesetreplica/rollingupdate.py``,
``podcliquescalinggroup/reconcilespec.py``,
``podcliquescalinggroup/components/podclique/rollingupdate.py``,
``podclique/reconcilespec.py`` and ``podclique/components/pod/rollingupdate.py``.
Paths are relative to ``ai-dynamo/grove`` at the snapshot in the reference digest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...core.environment import Environment
from ...core.model import STUCK_PROGRESS_DEADLINE, Action, Obj, Stuck, Warning, describe_actions
from ...core.world import World, mark_terminating
from .controller.podclique.components.pod.rollingupdate import process_pending_pod_updates
from .controller.podclique.components.pod.syncflow import sync_pods
from .controller.podclique.reconcilespec import process_pclq_update
from .controller.podcliquescalinggroup.components.podclique.rollingupdate import process_pending_pcsg_updates
from .controller.podcliquescalinggroup.reconcilespec import process_pcsg_update
from .controller.podcliqueset.components.podcliquesetreplica.rollingupdate import orchestrate_rolling_update
from . import names as N
from . import update_common as U
from .controller.podcliqueset.components.podcliquesetreplica import rollingupdate as PCSR
from .diagnose import diagnose as generic
from .policy import Policy
from .spec import PCS


class RollingRecreate(Policy):
    """``spec.updateStrategy.type: RollingRecreate`` (also the default)."""

    name = "RollingRecreate"

    def warm(self, pcs: PCS, world: World) -> None:
        status = U.live_pcs_status(pcs, world)
        if U.pcs_update_in_progress(pcs, status):
            # what ``orchestrate_rolling_update`` selects the next replica from
            world.derived(PCSR.pending_replicas(pcs, status.get("currentGenerationHash")))

    def pcs_pass(self, pcs: PCS, world: World, status: Mapping[str, Any], gang: Any = None) -> list[Action]:
        return orchestrate_rolling_update(pcs, world, status, gang)

    def pcsg_pass(self, pcs: PCS, pcsg: Obj, world: World) -> list[Action]:
        pcs_status = U.live_pcs_status(pcs, world)
        acts = process_pcsg_update(pcs, pcsg, world, pcs_status)
        if acts:
            world = world.apply(acts)
            pcsg = world.get(pcsg.kind, pcsg.namespace, pcsg.name) or pcsg
        if U.is_update_in_progress(pcsg):
            acts += process_pending_pcsg_updates(pcs, pcsg, world, pcs_status.get("currentGenerationHash"))
        return acts

    def pclq_pass(self, pcs: PCS, pclq: Obj, world: World) -> list[Action]:
        pcs_status = U.live_pcs_status(pcs, world)
        acts = process_pclq_update(pcs, pclq, world, pcs_status)
        if acts:
            world = world.apply(acts)
            pclq = world.get(pclq.kind, pclq.namespace, pclq.name) or pclq
        sync = sync_pods(pclq, world)
        acts += sync
        if U.is_update_in_progress(pclq):
            # the pods this pass deleted count as terminating (their delete expectations
            # are recorded); no need to rebuild the world for that
            gone = {a.uid or a.name for a in sync if a.verb == "delete"}
            pods = [mark_terminating(p) if p.name in gone else p for p in U.pods_of(world, pclq)]
            acts += process_pending_pod_updates(pcs, pclq, world, pods)
        return acts

    def pclq_selection(self, status: Mapping[str, Any]) -> tuple[Any, frozenset]:
        """``pclq_pass`` reads the PodCliqueSet status only through the generation
        hash, whether an update is recorded or ended, and whether its replica is the
        one being updated."""
        up = status.get("updateProgress")
        cur = U.currently_updating(status)
        return ((status.get("currentGenerationHash"), isinstance(up, Mapping),
                 bool(up.get("updateEndedAt")) if isinstance(up, Mapping) else None),
                frozenset(() if cur is None else (cur,)))

    def pcsg_selection(self, status: Mapping[str, Any]) -> tuple[Any, frozenset]:
        """``pcsg_pass`` reads the PodCliqueSet status through the generation hash and
        whether its replica is the one being updated (upstream ``mapPCSToPCSG``)."""
        cur = U.currently_updating(status)
        return ((status.get("currentGenerationHash"),), frozenset(() if cur is None else (cur,)))

    def pcsg_requeue(self, pcs: PCS, pcsg: Obj, world: World) -> bool:
        return U.is_update_in_progress(pcsg)

    def pclq_requeue(self, pcs: PCS, pclq: Obj, world: World) -> bool:
        # a rolling PodClique also reads the pod it selected: it runs every round
        return U.is_update_in_progress(pclq)

    def converged(self, pcs: PCS, world: World) -> bool:
        live = world.get("PodCliqueSet", pcs.namespace, pcs.name)
        if live is None:
            return True
        st = live.status
        if st.get("currentGenerationHash") != pcs.generation_hash:
            return False
        if U.pcs_update_in_progress(pcs, st):
            return False
        for kind in ("PodClique", "PodCliqueScalingGroup"):
            for o in world.index(kind, N.L_PART_OF).get(pcs.name, ()):
                if U.is_update_in_progress(o):
                    return False
        return True

    def diagnose(self, pcs: PCS, world: World, env: Environment) -> Stuck | None:
        return diagnose_update(pcs, world, env)

    def warnings(self, pcs: PCS, world: World) -> list[Warning]:
        return []

    def counts(self, pcs: PCS, world: World) -> Mapping[str, Any]:
        live = world.get("PodCliqueSet", pcs.namespace, pcs.name)
        if live is None:
            return {}
        cur = U.currently_updating(live.status)
        return {"updatingReplica": cur} if cur is not None else {}

    def title(self, actions: Sequence[Action], world: World) -> str | None:
        return update_title(actions)


def update_title(actions: Sequence[Action]) -> str | None:
    """A title a person reads for a step of a rolling update."""
    sel = [a for a in actions if a.verb == "status" and a.kind == "PodCliqueSet" and "selected" in a.reason]
    end = [a for a in actions if a.verb == "status" and a.kind == "PodCliqueSet" and "update ends" in a.reason]
    start = [a for a in actions if a.verb == "status" and a.kind == "PodCliqueSet" and "changed" in a.reason]
    rest = [a for a in actions if a.verb != "status" or a.kind != "PodCliqueSet"]
    if not (sel or end or start or any(a.revision == "old" and a.verb == "delete" for a in actions)):
        return None
    parts = []
    if start:
        parts.append("template change detected: " + ("update restarts" if "again" in start[0].reason
                                                      else "update starts"))
    if sel:
        parts.append(f"replica {sel[-1].index} selected for update")
    if end:
        parts.append("update complete")
    if rest:
        pod_dels = [a for a in rest if a.kind == "Pod" and a.verb == "delete" and a.revision == "old"]
        pclq_dels = [a for a in rest if a.kind == "PodClique" and a.verb == "delete" and a.revision == "old"]
        if pod_dels or pclq_dels:
            bits = []
            if pod_dels:
                bits.append(f"{len(pod_dels)} old pod{'s' if len(pod_dels) != 1 else ''}")
            if pclq_dels:
                reps = sorted({(str(a.fields.get("podCliqueScalingGroup", a.name)), a.index) for a in pclq_dels})
                bits.append(", ".join(f"scaling-group replica {g}/{j}" for g, j in reps))
            parts.append("replace " + " and ".join(bits))
            others = [a for a in rest if a not in pod_dels and a not in pclq_dels]
            if others:
                parts.append(describe_actions(others))
        else:
            parts.append(describe_actions(rest))
    return "; ".join(parts) if parts else None


def rolling_components(pcs: PCS, world: World) -> list[Obj]:
    """PodCliques and scaling groups whose update is active."""
    out = []
    for kind in ("PodCliqueScalingGroup", "PodClique"):
        for o in world.index(kind, N.L_PART_OF).get(pcs.name, ()):
            if U.is_update_in_progress(o) and not o.terminating:
                out.append(o)
    return out


#: a PodCliqueSet update that never completes: scaling-group members keep the ended update
#: of an older generation hash (docs/grove-updates.md, "Stuck reasons")
STUCK_STALE_MEMBER_PROGRESS = "StaleMemberUpdateProgress"


def stale_member_progress(pcs: PCS, world: World, generation_hash: str | None, replica: int) -> dict[str, list[str]]:
    """The scaling groups of PodCliqueSet replica ``replica`` that do not report
    ``generation_hash``, each with its member PodCliques on the current template whose
    ended ``updateProgress`` names another generation hash (every PodClique gets one
    under OnDelete, ``initOrResetUpdate``). An automatic update resets only standalone
    PodCliques' progress (``shouldCheckPendingUpdatesForPCLQ``), so such a member keeps
    its old ``currentPodCliqueSetGenerationHash`` (``mutateCurrentHashes``) and its scaling
    group never converges (``havePCSGPodCliquesConverged``).
    Upstream: ``podclique/reconcilespec.go``, ``podclique/reconcilestatus.go``,
    ``podcliquescalinggroup/reconcilestatus.go``."""
    out: dict[str, list[str]] = {}
    if not generation_hash:
        return out
    for g in world.index("PodCliqueScalingGroup", N.L_PCS_REPLICA).get(str(replica), ()):
        if g.terminating or g.labels.get(N.L_PART_OF) != pcs.name or U.is_pcsg_update_complete(g, generation_hash):
            continue
        stale = []
        for m in U.pclqs_of_pcsg(world, g):
            up = U.update_progress(m)
            if m.terminating or up is None or not up.get("updateEndedAt") or \
                    up.get("podCliqueSetGenerationHash") == generation_hash:
                continue
            if m.labels.get(N.L_TEMPLATE_HASH) == U.expected_pod_template_hash(pcs, m):
                stale.append(m.name)
        if stale:
            out[g.name] = sorted(stale)
    return out


def diagnose_stale_member_progress(pcs: PCS, world: World, status: Mapping[str, Any]) -> Stuck | None:
    """``StaleMemberUpdateProgress`` where ``stale_member_progress`` finds members of the
    replica being updated: upstream's update of that replica never completes."""
    cur = U.currently_updating(status)
    gen = status.get("currentGenerationHash")
    stale = stale_member_progress(pcs, world, gen, cur) if cur is not None else {}
    if not stale:
        return None
    names = [n for ms in stale.values() for n in ms]
    groups = "; ".join(f"PodCliqueScalingGroup {g} (members {', '.join(ms)})" for g, ms in sorted(stale.items()))
    msg = (f"rolling update of replica {cur} never completes: {groups} keep the ended update progress of an "
           "earlier generation hash (an OnDelete update gives every PodClique one), which an automatic update "
           "resets only for standalone PodCliques (podclique/reconcilespec.go shouldCheckPendingUpdatesForPCLQ); "
           "so they keep their old currentPodCliqueSetGenerationHash (reconcilestatus.go mutateCurrentHashes), the "
           "scaling group never reports the new one (podcliquescalinggroup/reconcilestatus.go "
           "havePCSGPodCliquesConverged) and the PodCliqueSet waits for it")
    refs = tuple(sorted({*(o.ref for n in names if (o := world.get("PodClique", pcs.namespace, n)) is not None),
                         *(o.ref for g in stale if (o := world.get("PodCliqueScalingGroup", pcs.namespace, g))
                           is not None)}))
    return Stuck(STUCK_STALE_MEMBER_PROGRESS, msg, refs, (
        "clear the members' update progress: kubectl patch podclique -n " + pcs.namespace + " " + " ".join(names)
        + " --subresource=status --type=merge -p '{\"status\":{\"updateProgress\":null}}', then restart the Grove "
        "operator: a status change alone starts no PodClique reconcile (podclique/register.go watches PodCliques with "
        "GenerationChangedPredicate)",
        "or change the members' pod template as well, so that their scaling group recreates them"))


def _component_config(pcs: PCS, o: Obj) -> Mapping[str, Any] | None:
    if o.kind == "PodCliqueScalingGroup":
        g = U.group_of_pcsg(pcs, o)
        return U.rolling_update_config(pcs, g) if g is not None else None
    c = U.clique_of(pcs, o)
    return U.rolling_update_config(pcs, c) if c is not None and U.is_standalone_pclq(o) else None


def diagnose_update(pcs: PCS, world: World, env: Environment) -> Stuck | None:
    """Why a rolling update cannot move, naming the component that waits. The
    underlying cause comes from the model's generic diagnosis (capacity, never-ready,
    gated gang). When a waiting component sets ``rollingUpdate.progressDeadline``
    (PR #817), its ``UpdateInProgress`` condition would turn Unknown with reason
    ``ProgressDeadlineExceeded``: the model is untimed, so it reports that only for a
    wait that can never end (whatever the deadline's length)."""
    live = world.get("PodCliqueSet", pcs.namespace, pcs.name)
    if live is None or not U.pcs_update_in_progress(pcs, live.status):
        return None
    base = generic(pcs, world, env)
    cur = U.currently_updating(live.status)
    waiting = [o for o in rolling_components(pcs, world) if cur is None or U.pcs_replica_of(o) == cur]
    if not waiting:
        return diagnose_stale_member_progress(pcs, world, live.status)
    descr = []
    for o in waiting:
        if o.kind == "PodClique":
            ready, ma = U.status_int(o, "readyReplicas"), U.min_available(o)
            guard = f" (readyReplicas {ready} < minAvailable {ma}, so no further pod is replaced)" if ready < ma else ""
            descr.append(f"PodClique {o.name} waits for its replacement pods to become Ready{guard}")
        else:
            avail, ma = U.status_int(o, "availableReplicas"), U.int_field(o.spec.get("minAvailable"), 1)
            guard = f" (availableReplicas {avail} < minAvailable {ma})" if avail < ma else ""
            descr.append(f"PodCliqueScalingGroup {o.name} waits for its recreated replica to become available{guard}")
    where = f"replica {cur}: " if cur is not None else ""
    msg = f"rolling update of {where}" + "; ".join(descr) + f" — {base.message}"
    blocked = tuple(sorted(set(base.blocked_on) | {o.ref for o in waiting}))
    with_deadline = [o for o in waiting if U.progress_deadline(_component_config(pcs, o))]
    if with_deadline:
        names = ", ".join(f"{o.kind} {o.name} (progressDeadline {U.progress_deadline(_component_config(pcs, o))})"
                          for o in with_deadline)
        return Stuck(STUCK_PROGRESS_DEADLINE,
                     f"{names}: no progress is possible, so the deadline passes and UpdateInProgress turns Unknown "
                     f"with reason ProgressDeadlineExceeded (PR #817) — {msg}", blocked, base.remedies)
    return Stuck(base.reason, msg, blocked, base.remedies + (
        "fix the new template and apply again (the update restarts)",))
