"""The PodClique controller's Pods: create the missing ones, delete the excess.
Upstream (ai-dynamo/grove @ fcc3b3bb): ``operator/internal/controller/podclique/components/pod/syncflow.go``
(``runSyncFlow``, ``createPods``, ``deleteExcessPods``, ``selectExcessPodsToDelete``).
"""

from __future__ import annotations

from collections.abc import Mapping

from .......core.model import Action, Obj
from .......core.world import World
from ..... import names as N
from ..... import objects as O
from ..... import summary as SUM
from ....common import R_PCLQ, create_action, delete_action, pod_display_name
from .deletionsort import arbitrary_pairs, deletion_sort_key


def _created_stamp(world: World) -> str:
    return f"~sim-{world.memory.get('tick', 0):08d}"


def internal_pod_name(world: World, ns: str, pclq: str, index: int, taken: set[str]) -> str:
    """A name unique over the whole plan (the real one has a random suffix): a
    replacement never takes the name of the pod it replaces, which upstream's
    ``readyPodsSelectedToUpdate`` bookkeeping relies on."""
    k = 1
    tick = int(world.memory.get("tick", 0))
    while True:
        name = f"{pclq}-{index}.{k}" if tick == 0 else f"{pclq}-{index}.{tick}.{k}"
        if name not in taken and world.get("Pod", ns, name) is None:
            return name
        k += 1


def sync_pods(pclq: Obj, world: World) -> list[Action]:
    """Create pods up to ``spec.replicas`` on the lowest free indices (gated on the
    PodGang), or delete the excess with the deletion sorter. Non-terminating pods of
    any phase count toward ``spec.replicas``: a Failed or Succeeded pod is not replaced.
    Upstream: ``operator/internal/controller/podclique/components/pod/syncflow.go``
    ``runSyncFlow``; ``operator/internal/index/tracker.go`` ``GetAvailableIndices``."""
    ns = pclq.namespace
    summary = SUM.pod_summary(world, N.L_PCLQ, pclq.name, ns)
    active = summary.active
    want = pclq.spec.get("replicas")
    want = want if isinstance(want, int) and want >= 0 else 0
    acts: list[Action] = []
    # Every non-terminating pod counts toward spec.replicas, a Failed or Succeeded one
    # too (syncExpectationsAndComputeDifference over GetPCLQPods, which does not filter
    # on phase): such a pod is never replaced until someone deletes it. Only the free
    # hostname indices (GetAvailableIndices) are computed from the active pods.
    diff = summary.nt - want
    if diff < 0:
        used = {O.pod_index(p) for p in active}
        free = (k for k in range(10**9) if k not in used)
        # nor a name the PodClique's update bookkeeping holds (the selected pod, gone now)
        taken: set[str] = _selected_names(pclq)
        stamp = _created_stamp(world)
        target = pclq.labels.get(N.L_TEMPLATE_HASH)
        for _ in range(-diff):
            k = next(free)
            name = internal_pod_name(world, ns, pclq.name, k, taken)
            taken.add(name)
            raw = O.build_pod(pclq, k, name, stamp)
            raw["metadata"]["namespace"] = ns
            acts.append(create_action(raw, f"pod {k} of {pclq.name}", f"{R_PCLQ}/components/pod/syncflow.go#createPods",
                                      index=k, revision="new" if target else None, name=N.pod_display_name(pclq.name)))
    elif diff > 0:
        target = get_expected_pod_template_hash(pclq, world)
        candidates = [p for p in summary.pods if not p.terminating]
        ordered = sorted(candidates, key=lambda p: deletion_sort_key(p, target))
        victims, survivors = ordered[:diff], ordered[diff:]
        unsure: dict[str, list[str]] = {}
        for v, s, why in arbitrary_pairs(victims, survivors, target):
            unsure.setdefault(v.name, []).append(f"pod {O.pod_index(s)} ({why})")
        for p in victims:
            reason = f"{pclq.name} scaled in to {want}"
            if p.name in unsure:
                reason += ("; upstream's DeletionSorter does not order it before " + ", ".join(unsure[p.name])
                           + ": which of them the operator deletes is the informer cache's list order, arbitrary")
            acts.append(delete_action(p, reason, f"{R_PCLQ}/components/pod/deletionsort.go#DeletionSorter",
                                      index=O.pod_index(p), name=pod_display_name(p)))
    return acts


def _selected_names(pclq: Obj) -> set[str]:
    """The pod names ``updateProgress.readyPodsSelectedToUpdate`` records (``current``,
    ``completed``): a new pod must not take one (the model's names are unique only
    within a plan; a live pod's name from the cluster has a random suffix)."""
    up = pclq.status.get("updateProgress")
    sel = up.get("readyPodsSelectedToUpdate") if isinstance(up, Mapping) else None
    if not isinstance(sel, Mapping):
        return set()
    done = sel.get("completed")
    return {str(n) for n in ([sel.get("current")] + (list(done) if isinstance(done, list) else [])) if n}


def get_expected_pod_template_hash(pclq: Obj, world: World) -> str | None:
    """The template hash scale-in treats as current: the update's target while the
    PodClique's ``updateProgress`` belongs to the PodCliqueSet's current generation,
    else the PodClique's own hash label.
    Upstream: ``operator/internal/controller/podclique/components/pod/syncflow.go``
    ``getExpectedPodTemplateHash``."""
    up = pclq.status.get("updateProgress")
    pcs = world.get("PodCliqueSet", pclq.namespace, pclq.labels.get(N.L_PART_OF, ""))
    gen = pcs.status.get("currentGenerationHash") if pcs is not None else None
    if isinstance(up, Mapping) and gen is not None and up.get("podCliqueSetGenerationHash") == gen:
        return up.get("podTemplateHash")
    return pclq.labels.get(N.L_TEMPLATE_HASH)
