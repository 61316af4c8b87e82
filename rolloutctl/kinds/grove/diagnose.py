"""Why a Grove plan cannot move, whatever the update strategy: a gang that does not
fit the capacity, pods that never turn Ready, a scaled gang gated on its base gang.

A leaf below the model and the strategies: the model asks it when no strategy has a
more specific reason, and the strategies build their own reasons on top of it. It
models no Go function (the operator does not explain itself); it reads the gang
semantics of ``operator/internal/controller/podcliqueset/components/podgang`` and the
scheduler's all-or-nothing placement of a PodGang's ``minReplicas``.
"""

from __future__ import annotations

from ...core.environment import Environment, add
from ...core.model import STUCK_GANG_GATED, STUCK_INSUFFICIENT_CAPACITY, STUCK_NEVER_READY, Obj, ObjectRef, Stuck
from ...core.quantity import format_quantity
from ...core.world import World
from . import cluster
from .controller.common import owned
from . import names as N
from . import objects as O
from .spec import PCS

#: a PodClique short of Ready pods because a Failed or Succeeded pod still counts
#: toward its replicas (documented in docs/grove-updates.md, "Stuck reasons")
STUCK_FINISHED_POD = "FinishedPodNotReplaced"


def finished_pods(pcs: PCS, world: World) -> list[Obj]:
    """The PodCliqueSet's non-terminating pods in a final phase (Failed, Succeeded),
    by name. Upstream counts them toward their PodClique's ``spec.replicas``
    (``podclique/components/pod/syncflow.go`` ``syncExpectationsAndComputeDifference``
    over ``pod.go`` ``GetPCLQPods``, which does not filter on phase), so the operator
    never replaces them: only deleting them frees the place."""
    return sorted((p for p in owned(world, "Pod", pcs)
                   if not p.terminating and O.pod_phase(p) in ("Failed", "Succeeded")), key=lambda p: p.name)


def describe_finished_pod(pod: Obj) -> str:
    """``pod NAME is Failed (Evicted: message)``: the phase, with the kubelet's reason."""
    reason = str(pod.status.get("reason") or "")
    why = f" ({reason})" if reason else ""
    return f"pod {pod.name} is {O.pod_phase(pod)}{why}"


def diagnose_finished_pods(pcs: PCS, world: World) -> Stuck | None:
    """PodCliques that stay short of Ready pods because a Failed or Succeeded pod holds
    one of their replicas (see ``finished_pods``)."""
    held = finished_pods(pcs, world)
    if not held:
        return None
    by_pclq: dict[str, list[Obj]] = {}
    for p in held:
        by_pclq.setdefault(p.labels.get(N.L_PCLQ, ""), []).append(p)
    parts = [f"PodClique {name} stays short of Ready pods: {', '.join(describe_finished_pod(p) for p in pods)} and "
             "still counts toward its replicas, so the operator never replaces it" for name, pods in sorted(by_pclq.items())]
    remedy = "delete the finished pod" + ("s" if len(held) > 1 else "") + ", then Grove creates a replacement: kubectl delete pod -n " \
        + pcs.namespace + " " + " ".join(p.name for p in held)
    return Stuck(STUCK_FINISHED_POD,
                 "; ".join(parts) + " (upstream podclique/components/pod/syncflow.go syncExpectationsAndComputeDifference)",
                 tuple(ObjectRef("PodClique", pcs.namespace, n, N.API_CORE) for n in sorted(by_pclq)), (remedy,))


def diagnose(pcs: PCS, world: World, env: Environment) -> Stuck:
    """Why nothing moves: a gang that does not fit (InsufficientCapacity), pods that
    never turn Ready (NeverReady), or a scaled gang gated on a base gang that is
    itself waiting (GangGated). A Failed or Succeeded pod that holds a PodClique's
    replica comes first (FinishedPodNotReplaced): nothing else can make up for it."""
    held = diagnose_finished_pods(pcs, world)
    if held is not None:
        return held
    pods = [p for p in owned(world, "Pod", pcs) if O.pod_active(p)]
    cache: dict = {}
    used = cluster.used_resources(pods, cache)
    by_gang: dict[str, list[Obj]] = {}
    for p in pods:
        by_gang.setdefault(p.labels.get(N.L_PODGANG, ""), []).append(p)
    # 1. gangs that cannot be placed
    short_msgs: list[str] = []
    blocked: list[ObjectRef] = []
    gated_on: list[str] = []
    gangs_at_once = cluster.places_gangs(pcs)
    for pg in sorted(owned(world, "PodGang", pcs), key=lambda g: g.name):
        members = [p for p in by_gang.get(pg.name, []) if not O.pod_scheduled(p)]
        if not members:
            continue
        if all(O.pod_gated(p) for p in members):
            base = members[0].labels.get(N.L_BASE_PODGANG)
            if base:
                gated_on.append(f"PodGang {pg.name} is gated until its base gang {base} is scheduled")
                blocked.append(pg.ref)
            continue
        waiting = cluster.gang_shortfall(pg, by_gang.get(pg.name, [])) if gangs_at_once else []
        what = "its gang minimum of"
        if not waiting:  # the gang is placed (or kube-scheduler places pods one by one)
            waiting = [p for p in members if not O.pod_gated(p)][:1]
            what = "one more pod of" if any(O.pod_scheduled(p) for p in by_gang.get(pg.name, [])) else "a pod of"
        req: dict[str, int] = {}
        for p in waiting:
            add(req, cluster.requests_of(p, cache))
        short = env.short(used, req)
        if waiting and short:
            need = ", ".join(f"{r}={format_quantity(req.get(r, 0), r)}" for r in short)
            free = ", ".join(f"{r}={format_quantity(max(0, env.capacity[r] - used.get(r, 0)), r)}" for r in short)
            if what == "its gang minimum of":
                which = f"{what} {len(waiting)} pod{'s: they need' if len(waiting) > 1 else ': it needs'}"
            else:
                which = f"{what.removesuffix(' of')}: it needs"
            short_msgs.append(f"PodGang {pg.name} cannot place {which} {need}, only {free} of the capacity is free")
            blocked.append(pg.ref)
    if short_msgs:
        msg = "; ".join(short_msgs + gated_on)
        return Stuck(STUCK_INSUFFICIENT_CAPACITY, msg, tuple(sorted(set(blocked))),
                     ("free capacity or raise --capacity", "lower replicas or minAvailable"))
    # 2. pods that never become ready
    nr = [p for p in pods if O.pod_scheduled(p) and not O.pod_ready(p) and cluster.never_ready(env, p)]
    if nr:
        pclqs = sorted({p.labels.get(N.L_PCLQ, "") for p in nr})
        looping = sorted(p.name for p in nr if O.crash_looping(p))
        why = f" ({', '.join(looping)} in CrashLoopBackOff in the snapshot)" if looping else ""
        return Stuck(STUCK_NEVER_READY, (f"1 pod of {', '.join(pclqs)} never becomes Ready{why}" if len(nr) == 1 else
                     f"{len(nr)} pods of {', '.join(pclqs)} never become Ready{why}"),
                     tuple(ObjectRef("PodClique", pcs.namespace, n, N.API_CORE) for n in pclqs),
                     ("fix the image or probes of the failing clique",))
    if gated_on:
        return Stuck(STUCK_GANG_GATED, "; ".join(gated_on), tuple(sorted(set(blocked))))
    waiting = [p for p in pods if not O.pod_ready(p)]
    if waiting:
        pclqs = sorted({p.labels.get(N.L_PCLQ, "") for p in waiting})
        who = f"1 pod of {', '.join(pclqs)} waits" if len(waiting) == 1 else \
            f"{len(waiting)} pods of {', '.join(pclqs)} wait"
        return Stuck(STUCK_NEVER_READY, f"{who} for startup dependencies that never become Ready",
                     tuple(ObjectRef("PodClique", pcs.namespace, n, N.API_CORE) for n in pclqs))
    return Stuck(STUCK_NEVER_READY, "the rollout waits for a condition the model cannot satisfy", ())
