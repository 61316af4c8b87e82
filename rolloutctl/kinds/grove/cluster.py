"""Everything between two Grove reconcile rounds that is not the operator:
garbage collection, the PodClique controller's gate removal, the gang scheduler,
and the kubelet (readiness, startup order through the ``grove-initc`` init container).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Mapping, Sequence

from ...core.environment import Environment, add
from ...core.kind import Progress
from ...core.model import Obj
from ...core.world import Key, World, key_of
from . import gang_terminate as GT
from . import names as N
from . import objects as O
from .admission.util import DEFAULT_SCHEDULER_NAME, clique_scheduler_name
from .controller.podcliqueset.components.serviceaccount_rbac import has_service_account_token
from .spec import PCS
from . import summary as SUM


def requests_of(pod: Obj, cache: dict | None = None) -> dict[str, int]:
    """The pod's effective requests (``pod_requests``), cached per container list."""
    return SUM.requests_of(pod)


def finish_terminations(pcs: PCS, world: World) -> tuple[World, int]:
    """Terminating objects go away (finalizers done, grace period over), with what
    they own: a PodClique's pods, a PodCliqueScalingGroup's PodCliques and pods."""
    remove = []
    gone_pclqs: set[str] = set()
    term = SUM.terminating(world, pcs.namespace, pcs.name)
    for kind in ("PodCliqueScalingGroup", "PodClique", "PodGang", "Service", "HorizontalPodAutoscaler"):
        for o in sorted((world.get(*k) for k in term if k[0] == kind), key=key_of):
            if o.terminating:
                remove.append(key_of(o))
                if kind == "PodCliqueScalingGroup":
                    for m in world.index("PodClique", N.L_PCSG).get(o.name, ()):
                        remove.append(key_of(m))
                        gone_pclqs.add(m.name)
                if kind == "PodClique":
                    gone_pclqs.add(o.name)
    t = SUM.pod_groups(world, pcs.namespace, pcs.name)
    for name in t.terminating:
        remove.extend(key_of(p) for p in t.groups[name].pods if p.terminating)
    by_pclq = world.index("Pod", N.L_PCLQ)
    for name in gone_pclqs:
        for p in by_pclq.get(name, ()):
            remove.append(key_of(p))
    if not remove:
        return world, 0
    return world.replace(remove=remove), len(set(k for k in remove if k[0] == "Pod" or k[0] == "PodClique"))


def write_service_account_token(pcs: PCS, world: World) -> tuple[World, list[str]]:
    """Kubernetes' token controller writes the ServiceAccount token into the
    PodCliqueSet's token Secret (type ``kubernetes.io/service-account-token``), once its
    ServiceAccount exists. Upstream: kubernetes ``pkg/controller/serviceaccount/
    tokens_controller.go`` (``syncSecret``); Grove waits for it (``satokensecret.go``
    ``hasServiceAccountToken``)."""
    name = N.token_secret_name(pcs.name)
    secret = world.get("Secret", pcs.namespace, name)
    if secret is None or secret.terminating or secret.raw.get("type") != N.SA_TOKEN_SECRET_TYPE \
            or has_service_account_token(secret):
        return world, []
    data = secret.raw.get("data")
    sa = str(secret.annotations.get("kubernetes.io/service-account.name") or "")
    if world.get("ServiceAccount", pcs.namespace, sa) is None:
        return world, []
    raw = dict(secret.raw)
    raw["data"] = {**(data if isinstance(data, Mapping) else {}), "token": TOKEN}
    return world.replace(put=[Obj(raw, secret.file, secret.line, secret.lines)]), [
        f"the token controller writes ServiceAccount {sa}'s token into Secret {name}"]


#: what the model writes for a ServiceAccount token (the real one is a signed JWT)
TOKEN = "<token>"


def base_podgang_scheduled(world: World, base: Obj | None) -> bool:
    """Every PodGroup of the base PodGang has at least ``minReplicas`` scheduled pods.
    Upstream: ``operator/internal/controller/podclique/components/pod/syncflow.go``
    ``isBasePodGangScheduled``, which reads each base PodClique's
    ``status.scheduledReplicas``; that status can lag the pods (docs/grove-fidelity.md,
    "Not modelled"), the pods do not. The count is the status's (``reconcilestatus.go``
    ``mutateReplicas``: every pod of the PodClique whose PodScheduled condition is True,
    ``CategorizePodsByConditionType``), so a Failed or terminating pod still counts."""
    if base is None:
        return False
    for g in base.spec.get("podgroups") or []:
        need = g.get("minReplicas") or 0
        have = SUM.pod_summary(world, N.L_PCLQ, g.get("name")).all_sched
        if have < need:
            return False
    return True


def listed_pods(pg: Obj) -> frozenset[str]:
    """Names in a PodGang's podReferences."""
    return frozenset(r.get("name") for g in pg.spec.get("podgroups") or [] for r in g.get("podReferences") or [])


def _listed_pods(pg: Obj) -> frozenset[str]:
    return pg.derived(listed_pods)  # type: ignore[no-any-return]


def remove_scheduling_gates(pcs: PCS, world: World) -> list[Obj]:
    """Lift ``grove.io/podgang-pending-creation`` from pods their PodGang lists; a
    pod of a scaled gang also waits until the base gang is scheduled. Returns those
    pods as they are once their gate is lifted (``advance`` writes them, with what the
    scheduler and the kubelet do to them next: one write).
    Upstream: ``podclique/components/pod/syncflow.go`` ``checkAndRemovePodSchedulingGates``."""
    put = []
    listed: dict[str, set[str]] | None = None
    base_ok: dict[str, bool] = {}
    t = SUM.pod_groups(world, pcs.namespace, pcs.name)
    for name in t.gated:
        s = t.groups[name]
        if listed is None:
            listed = {}
        for p in s.active:
            if not O.pod_gated(p):
                continue
            gang = p.labels.get(N.L_PODGANG, "")
            names = listed.get(gang)
            if names is None:
                # the PodCliqueSet's non-terminating PodGang of that name lists it
                pg = world.get("PodGang", pcs.namespace, gang)
                names = listed[gang] = _listed_pods(pg) if pg is not None and not pg.terminating and \
                    pg.labels.get(N.L_PART_OF) == pcs.name else set()
            if p.name not in names:
                continue
            base = p.labels.get(N.L_BASE_PODGANG)
            if base:
                if base not in base_ok:
                    base_ok[base] = base_podgang_scheduled(world, world.get("PodGang", pcs.namespace, base))
                if not base_ok[base]:
                    continue
            put.append(O.with_pod_state(p, gated=False))
    return put


_NONE_LIFTED: Mapping[Key, Obj] = MappingProxyType({})


def _now(pods: Sequence[Obj], lifted: Mapping[Key, Obj]) -> list[Obj] | Sequence[Obj]:
    """``pods`` with those in ``lifted`` replaced by their version there."""
    if not lifted:
        return pods
    return [lifted.get((p.kind, p.namespace, p.name), p) for p in pods]


def used_resources(pods: list[Obj], cache: dict | None = None) -> dict[str, int]:
    used: dict[str, int] = {}
    for p in pods:
        if O.pod_active(p) and O.pod_scheduled(p):
            add(used, requests_of(p))
    return used


def owned_used_resources(pcs: PCS, world: World) -> dict[str, int]:
    """``used_resources`` of every pod of the PodCliqueSet, from the per-PodClique summaries."""
    return dict(SUM.pod_groups(world, pcs.namespace, pcs.name).res)


def gang_shortfall(pg: Obj, members: list[Obj]) -> list[Obj]:
    """The pending, ungated pods that would bring every PodGroup of ``pg`` to its
    ``minReplicas`` (empty when the gang is placed or cannot be completed yet)."""
    by_group: dict[str, list[Obj]] = {}
    for p in members:
        if O.pod_active(p):
            by_group.setdefault(p.labels.get(N.L_PCLQ, ""), []).append(p)
    need: list[Obj] = []
    for g in pg.spec.get("podgroups") or []:
        gp = by_group.get(g.get("name"), [])
        mn = int(g.get("minReplicas") or 0)
        sched = sum(1 for p in gp if O.pod_scheduled(p))
        if sched >= mn:
            continue
        cand = sorted((p for p in gp if not O.pod_scheduled(p) and not O.pod_gated(p)),
                      key=lambda p: (O.pod_index(p) or 0, p.name))
        if len(cand) < mn - sched:
            return []
        need.extend(cand[: mn - sched])
    return need


def places_gangs(pcs: PCS) -> bool:
    """Whether the scheduler the PodCliqueSet's pods go to places a PodGang's minimum all
    at once: every backend but the kube one. A PodCliqueSet on ``default-scheduler``
    (the default profile: an empty ``schedulerName``) has its pods placed one by one by
    kube-scheduler: the kube backend creates nothing for a PodGang (``SyncPodGang``,
    ``operator/internal/scheduler/kube/backend.go``) and only names the scheduler in
    each pod (``PreparePod``); Grove's scheduling gates still hold a scaled gang until
    its base gang is scheduled. The backend is the first clique's (``handler.go``
    ``validatePodCliqueSetWithBackend``; every clique names the same one, GV009)."""
    cliques = pcs.template.get("cliques")
    first = cliques[0] if isinstance(cliques, list) and cliques else {}
    return clique_scheduler_name(first) != DEFAULT_SCHEDULER_NAME


def _gang_order_key(g: Obj) -> tuple:
    return (g.labels.get(N.L_BASE_PODGANG) is not None, len(g.name), g.name)


def schedule(pcs: PCS, world: World, env: Environment,
             lifted: Mapping[Key, Obj] = _NONE_LIFTED) -> tuple[list[Obj], list[str]]:
    """The scheduler: a PodGang that has not reached every PodGroup's ``minReplicas`` is
    placed all-or-nothing (a gang scheduler; ``places_gangs``); once it has, or under
    kube-scheduler, pods are placed one by one while capacity allows. Gated pods are never placed. Returns the pods it
    places (``advance`` writes them) and what happened.

    ``lifted``: the pods of ``world`` whose scheduling gates have just been lifted, by
    key, as they are now (``remove_scheduling_gates``): the scheduler sees ``world``
    with those pods replaced. Lifting a gate changes no pod's labels, requests,
    scheduling or readiness, so ``world``'s pod views answer everything else."""
    used: dict[str, int] | None = None
    placed: list[Obj] = []
    events: list[str] = []
    t = SUM.pod_groups(world, pcs.namespace, pcs.name)
    # the lifted pods now pending (their PodCliques join ``t.pending``, and the other
    # pods of a PodClique are as in ``world``)
    lifted_pending = [p for p in lifted.values() if O.pod_active(p) and not O.pod_scheduled(p) and not O.pod_gated(p)]
    if not t.pending and not lifted_pending:
        return [], []
    # only gangs with a pod to place can change anything
    candidates = {p.labels.get(N.L_PODGANG, "") for name in t.pending for p in t.groups[name].active
                  if not O.pod_scheduled(p) and not O.pod_gated(p)}
    candidates.update(p.labels.get(N.L_PODGANG, "") for p in lifted_pending)
    lifted_gangs = {p.labels.get(N.L_PODGANG, "") for p in lifted.values()}
    # the gangs in scheduling order (base gangs first, then by name length and name);
    # only candidates, the others have nothing to place
    gangs = [g for g in (world.get("PodGang", pcs.namespace, name) for name in candidates)
             if g is not None and g.labels.get(N.L_PART_OF) == pcs.name]
    gangs_at_once = places_gangs(pcs)
    for pg in sorted(gangs, key=_gang_order_key):
        if pg.terminating:
            continue
        gs = SUM.pod_summary(world, N.L_PODGANG, pg.name, pcs.namespace, pcs.name)
        if pg.name in lifted_gangs:
            gs = SUM.PodSummary(_now(gs.pods, lifted))
        if not gs.act_pending:
            continue  # no pod to place: neither the gang minimum nor one by one
        members = gs.active
        # what the scheduled pods request matters only against a capacity
        # (``Environment.fits``); unlimited, every placement fits
        if used is None and env.capacity:
            used = owned_used_resources(pcs, world)
        by_group: dict[str, list[Obj]] = {}
        for p in members:
            by_group.setdefault(p.labels.get(N.L_PCLQ, ""), []).append(p)
        satisfied = not gangs_at_once or all(
            sum(1 for p in by_group.get(g.get("name"), []) if O.pod_scheduled(p)) >= int(g.get("minReplicas") or 0)
            for g in pg.spec.get("podgroups") or [])
        need = [] if satisfied else gang_shortfall(pg, members)
        if not satisfied and not need:
            continue
        if need:
            if used is not None:
                req: dict[str, int] = {}
                for p in need:
                    add(req, requests_of(p))
                if not env.fits(used, req):
                    continue
                add(used, req)
            placed.extend(need)
            events.append(f"PodGang {pg.name} scheduled ({len(need)} pods, gang minimum)")
        need_names = {p.name for p in need}
        extra = sorted((p for p in members if not O.pod_scheduled(p) and not O.pod_gated(p) and p.name not in need_names),
                       key=lambda p: (p.labels.get(N.L_PCLQ, ""), O.pod_index(p) or 0, p.name))
        n = 0
        for p in extra:
            if used is not None:
                r = requests_of(p)
                if not env.fits(used, r):
                    continue
                add(used, r)
            placed.append(p)
            n += 1
        if n:
            more = " more" if need or any(O.pod_scheduled(p) for p in members) else ""
            events.append(f"{n}{more} pod{'s' if n != 1 else ''} of PodGang {pg.name} scheduled")
    return placed, events


def startup_blocked(world: World, pod: Obj, ready_by_pclq: Mapping[str, list[Obj]]) -> list[str]:
    """Parents whose ``minAvailable`` pods in the same PodGang are not Ready yet: the
    ``grove-initc`` init container blocks until they are.
    Upstream: ``operator/initc/internal/wait.go``."""
    pclq = world.get("PodClique", pod.namespace, pod.labels.get(N.L_PCLQ, ""))
    if pclq is None:
        return []
    blocked = []
    gang = pod.labels.get(N.L_PODGANG)
    for parent in pclq.spec.get("startsAfter") or []:
        pp = world.get("PodClique", pod.namespace, parent)
        need = (pp.spec.get("minAvailable") or 0) if pp is not None else 1
        have = sum(1 for q in ready_by_pclq.get(parent, ()) if q.labels.get(N.L_PODGANG) == gang)
        if pp is None or have < need:
            blocked.append(parent)
    return blocked


def never_ready(env: Environment, pod: Obj) -> bool:
    """The pod never turns Ready: ``--never-ready`` matches it (its name, its PodClique's,
    or its hostname), or the snapshot shows it crash looping (``objects.crash_looping``:
    the plan does not assume a failing container recovers; its replacement starts
    afresh)."""
    if O.crash_looping(pod):
        return True
    if not env.never_ready:
        return False
    pclq = pod.labels.get(N.L_PCLQ, "")
    idx = O.pod_index(pod)
    names = [pod.name, pclq]
    if idx is not None:
        names.append(N.pod_hostname(pclq, idx))
    return any(env.is_never_ready(n) for n in names)


def become_ready(pcs: PCS, world: World, env: Environment, placed: list[Obj] = (),  # type: ignore[assignment]
                 lifted: Mapping[Key, Obj] = _NONE_LIFTED) -> list[Obj]:
    """Scheduled pods start and turn Ready, unless ``--never-ready`` matches them or
    their startup dependencies are not Ready yet (one wave per call). ``placed``: the
    pods the scheduler has just placed on ``world`` (scheduled from now on; placing a
    pod changes no pod's readiness, so ``world`` answers the startup dependencies).
    ``lifted``: as for ``schedule`` (``world`` with those pods replaced).
    Returns the pods that turn Ready (``advance`` writes them)."""
    t = SUM.pod_groups(world, pcs.namespace, pcs.name)
    ready_by_pclq = _ReadyByPclq(t)
    out = []
    for name in t.unready_sched:
        for p in _now(t.groups[name].active, lifted):
            if not O.pod_scheduled(p) or O.pod_ready(p):
                continue
            if never_ready(env, p) or startup_blocked(world, p, ready_by_pclq):
                continue
            out.append(p)
    for p in placed:
        if O.pod_ready(p) or never_ready(env, p) or startup_blocked(world, p, ready_by_pclq):
            continue
        out.append(p)
    return out


def _placed_and_started(placed: list[Obj], started: list[Obj]) -> list[Obj]:
    """The pods the scheduler placed (scheduled; Ready too when they start) and the
    other pods that start (Ready), as the kubelet and the scheduler write them."""
    starting = {key_of(p) for p in started}
    out = []
    for p in placed:
        if key_of(p) not in starting:
            out.append(O.with_pod_state(p, scheduled=True))
        elif "phase" in p.status:
            out.append(O.with_pod_state(p, scheduled=True, ready=True))
        else:  # the same fields in the order two separate writes leave them
            out.append(O.with_pod_state(O.with_pod_state(p, scheduled=True), ready=True))
    done = {key_of(p) for p in placed}
    out.extend(O.with_pod_state(p, ready=True) for p in started if key_of(p) not in done)
    return out


class _ReadyByPclq:
    """Ready pods of the PodCliqueSet by PodClique label (``get`` only), on demand."""

    def __init__(self, t: "SUM.PodGroups") -> None:
        self._t = t
        self._d: dict[str, list[Obj]] = {}

    def get(self, k: str, default: Any = ()) -> Any:
        got = self._d.get(k)
        if got is None:
            s = self._t.groups.get(k) if k else None
            got = self._d[k] = [p for p in s.pods if O.pod_ready(p)] if s is not None and s.any_ready else []
        return got or default


def advance(pcs: PCS, world: World, env: Environment, quiet: bool = False) -> Progress:
    """The cluster moves on its own: terminations finish, gates lift, pods schedule and
    turn Ready. ``quiet``: the operator had nothing to do on this world; when the
    cluster has nothing to do either, time passes: the ``terminationDelay`` of armed
    breaches runs out (``gang_terminate.expire_breaches``)."""
    waits: list[str] = []
    world = GT.prune_expired(pcs, world)
    world, gone = finish_terminations(pcs, world)
    if gone:
        waits.append(f"{gone} terminating object{'' if gone == 1 else 's'} removed")
    world, token = write_service_account_token(pcs, world)
    waits.extend(token)
    # the gates lift, the scheduler places pods, then the kubelet starts the scheduled
    # ones: one write, read before it as the world with the lifted pods replaced
    ungated = remove_scheduling_gates(pcs, world)
    if ungated:
        waits.append(f"scheduling gates lifted on {len(ungated)} pod{'' if len(ungated) == 1 else 's'}")
    lifted = {key_of(p): p for p in ungated}
    placed, events = schedule(pcs, world, env, lifted)
    waits.extend(events)
    started = become_ready(pcs, world, env, placed, lifted)
    ready = len(started)
    if ungated or placed or started:
        world = world.replace(put=ungated + _placed_and_started(placed, started))
    if ready:
        waits.append(f"{ready} pod becomes Ready" if ready == 1 else f"{ready} pods become Ready")
    progressed = bool(gone or token or ungated or events or ready)
    if not progressed and quiet:
        world, expired = GT.expire_breaches(pcs, world)
        waits.extend(expired)
        progressed = bool(expired)
    if progressed:
        world = world.with_memory(tick=int(world.memory.get("tick", 0)) + 1)
    return Progress(world, tuple(waits), progressed)
