"""The PodClique controller's rolling update of its Pods: non-ready old pods at once,
Ready ones one by one guarded by ``minAvailable`` (or the PR #817 ``maxUnavailable``
budget), delete first. Upstream (ai-dynamo/grove @ fcc3b3bb):
``operator/internal/controller/podclique/components/pod/rollingupdate.go``
(``processPendingUpdates``, ``computeUpdateWork``, ``deleteOldNonReadyPods``,
``isCurrentPodUpdateComplete``, ``markRollingUpdateEnd``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .......core.model import Action, Obj
from .......core.world import World
from ....common import delete_action, pod_display_name, status_action
from ..... import objects as O
from ..... import update_common as U
from .....spec import PCS


def _pod_delete(pod: Obj, reason: str, rule: str) -> Action:
    return delete_action(pod, reason, rule, index=O.pod_index(pod), revision="old", name=pod_display_name(pod))


def process_pending_pod_updates(pcs: PCS, pclq: Obj, world: World, pods: Sequence[Obj] | None = None) -> list[Action]:
    """One reconcile of a standalone PodClique's rolling update: delete every old pod
    that is not Ready at once (pending, unhealthy, starting; a Ready pod with a past
    crash counts as unhealthy, issue #697); wait while the selected pod's replacement
    is not Ready; else, unless ``readyReplicas < minAvailable``, select the oldest
    Ready old pod and delete it (the replica sync recreates it on the lowest free
    index); with no old pod left, end the update even if replacements are not Ready
    yet (issue #786). With ``rollingUpdate`` set (PR #817) a budget decides instead.
    Upstream: ``operator/internal/controller/podclique/components/pod/rollingupdate.go``
    ``processPendingUpdates``, ``computeUpdateWork``, ``deleteOldNonReadyPods``,
    ``isCurrentPodUpdateComplete``, ``getNextPodToUpdate``, ``markRollingUpdateEnd``."""
    c = U.clique_of(pcs, pclq)
    pods = list(pods) if pods is not None else U.pods_of(world, pclq)
    if c is not None and U.rolling_update_config(pcs, c):
        return process_pod_updates_with_budget(pcs, pclq, world, U.rolling_update_config(pcs, c), pods)
    target = U.expected_pod_template_hash(pcs, pclq)
    old_by_class: dict[str, list[Obj]] = {}
    new_ready = 0
    for p in pods:
        if U.pod_outdated(p, target):
            if p.terminating:
                continue
            old_by_class.setdefault(U.classify_old_pod(p), []).append(p)
        elif O.pod_ready(p):
            new_ready += 1
    acts: list[Action] = []
    for cls in (U.PENDING_POD, U.UNHEALTHY_POD, U.STARTING_POD, U.OTHER_POD):
        for p in sorted(old_by_class.get(cls, []), key=U.created_key):
            why = {U.PENDING_POD: "is Pending", U.STARTING_POD: "has not started",
                   U.OTHER_POD: "is in no known state"}.get(cls)
            if cls == U.UNHEALTHY_POD:
                why = ("is Ready but once exited with a non-zero code (counted as unhealthy, upstream issue #697)"
                       if O.pod_ready(p) else "is started but not Ready")
            acts.append(_pod_delete(p, f"old-template pod {why}: deleted at once, without waiting",
                                    f"{U.R_PCLQ_RU}#deleteOldNonReadyPods"))
    up = dict(U.update_progress(pclq) or {})
    sel = up.get("readyPodsSelectedToUpdate")
    if isinstance(sel, Mapping) and sel.get("current"):
        selected = world.get("Pod", pclq.namespace, str(sel["current"]))
        complete = (selected is None or selected.terminating) and new_ready >= len(sel.get("completed") or []) + 1
        if not complete:
            return acts
    ready_old = sorted(old_by_class.get(U.READY_POD, []), key=U.created_key)
    if ready_old:
        if U.status_int(pclq, "readyReplicas") < U.min_available(pclq):
            return acts
        nxt = ready_old[0]
        if isinstance(sel, Mapping) and sel.get("current"):
            new_sel = {"current": nxt.name, "completed": list(sel.get("completed") or []) + [sel["current"]]}
        else:
            new_sel = {"current": nxt.name}
        up["readyPodsSelectedToUpdate"] = new_sel
        acts.append(status_action(pclq, {"updateProgress": dict(up)}, f"pod {nxt.name} selected for update",
                                  f"{U.R_PCLQ_RU}#updatePCLQStatusWithNextPodToUpdate"))
        left = len(ready_old) - 1
        acts.append(_pod_delete(nxt, f"oldest Ready pod on the old template, replaced one at a time "
                                     f"({left} more after it)", f"{U.R_PCLQ_RU}#processPendingUpdates"))
        return acts
    up["updateEndedAt"] = U.stamp(world)
    up.pop("readyPodsSelectedToUpdate", None)
    acts.append(status_action(pclq, {"updateProgress": up}, "no old pod left: PodClique update ended",
                              f"{U.R_PCLQ_RU}#markRollingUpdateEnd"))
    return acts


def process_pod_updates_with_budget(pcs: PCS, pclq: Obj, world: World, ru: Mapping[str, Any] | None,
                                    pods: Sequence[Obj]) -> list[Action]:
    """PR #817 (newer than the snapshot): old pods are deleted while fewer than
    ``maxUnavailable`` pods are unavailable (non-ready old pods first, then the oldest
    Ready ones); the update ends only when no old pod is left and ``spec.replicas``
    new pods are Ready. The budget formula is an assumption (PR #740), see
    ``update_common.pclq_unavailable``."""
    limit = U.max_unavailable(ru) or 1
    target = U.expected_pod_template_hash(pcs, pclq)
    old = [p for p in pods if U.pod_outdated(p, target)]
    candidates = sorted((p for p in old if not p.terminating), key=lambda p: (O.pod_ready(p), U.created_key(p)))
    new_ready = sum(1 for p in pods if not U.pod_outdated(p, target) and O.pod_ready(p))
    unavailable = U.pclq_unavailable(pclq, pods)
    rule = "grove:operator/internal/controller/podclique/components/pod/rollingupdate.go#processPendingUpdates (PR #817)"
    acts: list[Action] = []
    for p in candidates:
        if unavailable >= limit:
            break
        acts.append(_pod_delete(p, f"old-template pod replaced within maxUnavailable {limit} "
                                   f"({unavailable} unavailable before it)", rule))
        if O.pod_ready(p):
            unavailable += 1
    if not old and new_ready >= U.int_field(pclq.spec.get("replicas"), 0):
        up = dict(U.update_progress(pclq) or {})
        up["updateEndedAt"] = U.stamp(world)
        acts.append(status_action(pclq, {"updateProgress": up}, "no old pod left and every new pod Ready: update ended",
                                  rule))
    return acts
