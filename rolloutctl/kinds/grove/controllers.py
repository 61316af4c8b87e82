"""The Grove controllers' reconcile passes: PodCliqueSet, PodCliqueScalingGroup and
PodClique. One round runs them in that order, each seeing what the previous one
wrote (watch events trigger them right after one another).

Rolling-update orchestration is delegated to the strategy modules through
``UpdatePolicy`` hooks; this module creates, scales and garbage-collects.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from ...core.model import Action, Obj
from ...core.world import World
from . import gang_terminate as GT
from . import names as N
from . import objects as O
from .spec import PCS
from . import register as R
from . import summary as SUM

R_PCS = "grove:operator/internal/controller/podcliqueset"
R_PCSG = "grove:operator/internal/controller/podcliquescalinggroup"
R_PCLQ = "grove:operator/internal/controller/podclique"


def _create(obj: dict[str, Any], reason: str, rule: str, *, index: int | None = None, revision: str | None = "new",
            role: str | None = None, name: str | None = None) -> Action:
    md = obj["metadata"]
    return Action(verb="create", kind=obj["kind"], name=name or md["name"], namespace=md["namespace"],
                  reason=reason, rule=rule, index=index, revision=revision, role=role, payload=obj,
                  uid=md["name"] if name else None)


def _delete(o: Obj, reason: str, rule: str, *, index: int | None = None, revision: str | None = None,
            role: str | None = None, name: str | None = None) -> Action:
    return Action(verb="delete", kind=o.kind, name=name or o.name, namespace=o.namespace, reason=reason, rule=rule,
                  index=index, revision=revision, role=role, uid=o.name if name else None)


def _update(o: Obj, new: dict[str, Any], reason: str, rule: str, fields: dict[str, Any] | None = None,
            **kw: Any) -> Action:
    return Action(verb="update", kind=o.kind, name=o.name, namespace=o.namespace, reason=reason, rule=rule,
                  payload=new, fields=fields or {}, **kw)


def replica_of(o: Obj) -> int:
    try:
        return int(o.labels.get(N.L_PCS_REPLICA, "-1"))
    except ValueError:
        return -1


def owned(world: World, kind: str, pcs: PCS) -> list[Obj]:
    """Objects of ``kind`` that belong to this PodCliqueSet (part-of label), in key
    order. The result may be the world's own list: callers must not change it."""
    group = world.index(kind, N.L_PART_OF).get(pcs.name)
    if group is None:
        return []
    ns = pcs.namespace
    return group if all(o.namespace == ns for o in group) else [o for o in group if o.namespace == ns]


def pod_display_name(pod: Obj) -> str:
    """Pods the plan creates have a random suffix; observed pods keep their name."""
    if pod.metadata.get("generateName") and "." in pod.name:
        return N.pod_display_name(pod.labels.get(N.L_PCLQ, ""))
    return pod.name


# ----------------------------------------------------------------------------- PCS controller


def sync_podcliqueset(pcs: PCS, world: World, pcs_status: dict[str, Any], *, surge_replicas: int = 0,
                      pcsg_surge: "PcsgSurges | None" = None, queue: Any = None) -> list[Action]:
    """One PodCliqueSet reconcile: components in the upstream group order (SA, Role,
    RoleBinding, token Secret, headless Services, HPAs; then standalone PodCliques;
    then PodCliqueScalingGroups and PodGangs).
    Upstream: ``operator/internal/controller/podcliqueset/reconcilespec.go``
    ``getKindSyncGroups`` / ``syncPodCliqueSetResources``.

    ``surge_replicas`` (proposed strategies only) adds replicas at indices
    ``spec.replicas..`` that the components build like any other replica;
    ``pcsg_surge`` gives the scaling groups that keep surge replicas above their
    ``spec.replicas``, and how many (their scaled PodGangs are expected too).
    ``queue``: the round's work queue (``model._Passes``): each component syncs only
    the expected objects whose events it hands out (None: every one). A component
    object's sync reads only that object and the desired spec, so an object nothing
    happened to since it last needed nothing needs nothing now."""
    acts: list[Action] = []
    n = pcs.replicas + surge_replicas
    acts += sync_rbac(pcs, world)
    acts += sync_headless_services(pcs, world, n, queue=queue)
    acts += sync_hpas(pcs, world)
    acts += sync_standalone_podcliques(pcs, world, n, queue=queue)
    acts += sync_scaling_groups(pcs, world, n, queue=queue)
    acts += sync_podgangs(pcs, world, n, pcsg_surge, queue=queue)
    return acts


def _role(pcs: PCS, i: int, role: str | None = None) -> str | None:
    """Objects of replicas at or above ``spec.replicas`` exist only as surge."""
    return "surge" if i >= pcs.replicas else role


def sync_rbac(pcs: PCS, world: World) -> list[Action]:
    """ServiceAccount (create-or-patch: labels and ``automountServiceAccountToken``),
    Role, RoleBinding and token Secret (created when missing, never patched).
    Upstream: ``podcliqueset/components/serviceaccount/serviceaccount.go`` ``Sync``
    (``CreateOrPatch``); ``role/role.go``, ``rolebinding/rolebinding.go`` ``Sync``
    (``Create``, already-exists ignored); ``satokensecret/satokensecret.go`` ``Sync``."""
    acts: list[Action] = []
    for raw in pcs.derived(_rbac):
        kind = raw["kind"]
        cur = world.get(kind, pcs.namespace, raw["metadata"]["name"])
        if cur is None:
            acts.append(_create(raw, f"{kind} for the pods of {pcs.name}", f"{R_PCS}/components#Sync", revision=None))
        elif kind == "ServiceAccount" and not cur.terminating:
            changed = [f for f, same in (("labels", cur.labels == raw["metadata"]["labels"]),
                                         ("automountServiceAccountToken",
                                          cur.raw.get("automountServiceAccountToken") is True)) if not same]
            if changed:
                new = dict(cur.raw)
                new["metadata"] = dict(cur.metadata, labels=dict(raw["metadata"]["labels"]))
                new["automountServiceAccountToken"] = True
                acts.append(_update(cur, new, f"{' and '.join(changed)} patched",
                                    f"{R_PCS}/components/serviceaccount/serviceaccount.go#Sync",
                                    fields={"changed": changed}))
    return acts


def service_patch(cur: Obj, raw: Mapping[str, Any]) -> list[str]:
    """What the headless Service's create-or-patch changes on a live Service: its
    labels (replaced whole), selector, ``clusterIP`` or ``publishNotReadyAddresses``
    (fields the API server defaults are not touched).
    Upstream: ``service/service.go`` ``doCreateOrUpdate`` / ``buildResource``."""
    out = []
    if cur.labels != raw["metadata"]["labels"]:
        out.append("labels")
    for f in ("selector", "clusterIP", "publishNotReadyAddresses"):
        have = cur.spec.get(f)
        if f == "publishNotReadyAddresses":
            have = bool(have)
        if have != raw["spec"][f]:
            out.append(f)
    return out


def sync_headless_services(pcs: PCS, world: World, n: int | None = None, queue: Any = None) -> list[Action]:
    """One headless Service per replica, created or patched. Services of replicas
    scaled away are left in place: upstream's ``Sync`` never deletes them (only the
    PodCliqueSet's deletion does), see ``excess_headless_services``.
    Upstream: ``podcliqueset/components/service/service.go`` ``Sync``."""
    acts = []
    n = pcs.replicas if n is None else n
    exp = pcs.derived(_services, n)
    ctl = R.pcs_component("Service", "service")
    look = queue.keys(ctl, world, (n,)) if queue is not None else None
    unsettled: set[str] = set()
    rule = f"{R_PCS}/components/service/service.go#Sync"
    for i, raw in exp.looked(look):
        name = raw["metadata"]["name"]
        cur = world.get("Service", pcs.namespace, name)
        if cur is None:
            acts.append(_create(raw, f"headless Service of replica {i}", rule, index=i, revision=None,
                                role=_role(pcs, i)))
            unsettled.add(name)
            continue
        changed = service_patch(cur, raw) if not cur.terminating else []
        if changed:
            new = dict(cur.raw)
            new["metadata"] = dict(cur.metadata, labels=dict(raw["metadata"]["labels"]))
            new["spec"] = dict(cur.spec, **raw["spec"])
            acts.append(_update(cur, new, f"headless Service of replica {i}: {', '.join(changed)} patched", rule,
                                fields={"changed": changed}, index=i))
            unsettled.add(name)
    if queue is not None:
        queue.done(ctl, sorted(unsettled), (n,))
    return acts


def excess_headless_services(pcs: PCS, world: World) -> list[Obj]:
    """Headless Services of this PodCliqueSet at replica indices ``>= spec.replicas``:
    upstream lists them (``GetExistingResourceNames``) but its ``Sync`` only creates
    or patches the expected ones, so they stay until the PodCliqueSet is deleted."""
    return [s for s in owned(world, "Service", pcs)
            if s.labels.get(N.L_COMPONENT) == N.C_HEADLESS_SERVICE and replica_of(s) >= pcs.replicas
            and not s.terminating]


def by_names(world: World, kind: str, pcs: PCS, names: set[str]) -> list[Obj]:
    """The PodCliqueSet's objects of ``kind`` among ``names``, in key order."""
    out = []
    for name in sorted(names):
        o = world.get(kind, pcs.namespace, name)
        if o is not None and o.labels.get(N.L_PART_OF) == pcs.name:
            out.append(o)
    return out


def hpa_sources(pcs: PCS) -> tuple[list, list]:
    """Standalone cliques with ``autoScalingConfig`` and scaling groups with ``scaleConfig``."""
    return ([(c, (c.raw.get("spec") or {}).get("autoScalingConfig")) for c in pcs.standalone
             if isinstance((c.raw.get("spec") or {}).get("autoScalingConfig"), Mapping)],
            [(g, g.raw.get("scaleConfig")) for g in pcs.groups if isinstance(g.raw.get("scaleConfig"), Mapping)])


def default_hpa_metrics() -> list[dict[str, Any]]:
    """The metric the API server fills into an autoscaling/v2 HPA without metrics
    (``SetDefaults_HorizontalPodAutoscaler``: CPU at 80% utilization)."""
    return [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization",
                                                                        "averageUtilization": 80}}}]


def hpa_patch(cur: Obj, raw: Mapping[str, Any]) -> list[str]:
    """What the HPA create-or-patch changes on a live HPA: labels (replaced whole),
    ``minReplicas``, ``maxReplicas``, ``scaleTargetRef`` and ``metrics`` (an HPA written
    without metrics reads back with the API server's CPU default, which is the same).
    Upstream: ``hpa/hpa.go`` ``doCreateOrUpdateHPA`` / ``buildResource``."""
    out = []
    if cur.labels != raw["metadata"]["labels"]:
        out.append("labels")
    want = raw["spec"]
    if cur.spec.get("minReplicas", 1) != (want.get("minReplicas") if want.get("minReplicas") is not None else 1):
        out.append("minReplicas")
    if cur.spec.get("maxReplicas") != want.get("maxReplicas"):
        out.append("maxReplicas")
    ref = cur.spec.get("scaleTargetRef") if isinstance(cur.spec.get("scaleTargetRef"), Mapping) else {}
    if {k: ref.get(k) for k in ("apiVersion", "kind", "name")} != want["scaleTargetRef"]:
        out.append("scaleTargetRef")
    have_m = cur.spec.get("metrics") or default_hpa_metrics()
    if have_m != (want.get("metrics") or default_hpa_metrics()):
        out.append("metrics")
    return out


def sync_hpas(pcs: PCS, world: World) -> list[Action]:
    """HPAs for standalone cliques with ``autoScalingConfig`` and scaling groups with
    ``scaleConfig``, per replica: excess HPAs (replicas scaled away, a scale config
    removed) deleted first, then each expected one created or patched (``maxReplicas``
    and the rest follow the template).
    Upstream: ``podcliqueset/components/hpa/hpa.go`` ``Sync``, ``computeExpectedHPAs``,
    ``deleteExcessHPATasks``, ``createOrUpdateHPATasks``."""
    acts: list[Action] = []
    srcs = pcs.derived(hpa_sources)
    rule = f"{R_PCS}/components/hpa/hpa.go#Sync"
    existing = [h for h in owned(world, "HorizontalPodAutoscaler", pcs) if h.labels.get(N.L_COMPONENT) == N.C_HPA]
    if not srcs[0] and not srcs[1] and not existing:
        return acts
    expected: list[tuple[int, dict[str, Any], str]] = []
    for i in range(pcs.replicas):
        for c, sc in srcs[0]:
            expected.append((i, O.build_hpa(pcs, "PodClique", pcs.standalone_pclq_fqn(i, c.name), sc), "the clique"))
        for g, sc in srcs[1]:
            expected.append((i, O.build_hpa(pcs, "PodCliqueScalingGroup", pcs.pcsg_fqn(i, g), sc), "the scaling group"))
    names = {raw["metadata"]["name"] for _i, raw, _w in expected}
    for h in existing:
        if h.name not in names and not h.terminating:
            acts.append(_delete(h, "its replica or scale config is no longer in the spec",
                                f"{R_PCS}/components/hpa/hpa.go#deleteExcessHPATasks",
                                index=replica_of(h) if replica_of(h) >= 0 else None))
    for i, raw, what in expected:
        cur = world.get(raw["kind"], pcs.namespace, raw["metadata"]["name"])
        if cur is None:
            acts.append(_create(raw, f"autoscaler for {what}", rule, index=i, revision=None))
            continue
        changed = hpa_patch(cur, raw) if not cur.terminating else []
        if changed:
            new = dict(cur.raw)
            new["metadata"] = dict(cur.metadata, labels=dict(raw["metadata"]["labels"]))
            spec = dict(cur.spec, **raw["spec"])
            if "metrics" not in raw["spec"]:
                spec.pop("metrics", None)
            new["spec"] = spec
            acts.append(_update(cur, new, f"autoscaler for {what}: {', '.join(changed)} patched from the template",
                                f"{R_PCS}/components/hpa/hpa.go#doCreateOrUpdateHPA", fields={"changed": changed},
                                index=i))
    return acts


class Expected:
    """The objects a component expects for ``n`` replicas, in order, with their
    positions by name (``looked``: those among some names, in order)."""

    def __init__(self, items: list, names: list[str]) -> None:
        self.items = items
        self.names = set(names)
        self.pos: dict[str, list[int]] = {}
        for j, name in enumerate(names):
            self.pos.setdefault(name, []).append(j)

    def looked(self, look: set[str] | None) -> list:
        if look is None:
            return self.items
        return [self.items[j] for j in sorted(j for n in look for j in self.pos.get(n, ()))]


def _rbac(pcs: PCS) -> list[dict[str, Any]]:
    return O.build_rbac(pcs)


def _services(pcs: PCS, n: int) -> Expected:
    items = [(i, O.build_headless_service(pcs, i)) for i in range(n)]
    return Expected(items, [raw["metadata"]["name"] for _i, raw in items])


def _standalone_pclqs(pcs: PCS, n: int) -> Expected:
    items = [(i, c, O.build_standalone_pclq(pcs, i, c)) for i in range(n) for c in pcs.standalone]
    return Expected(items, [raw["metadata"]["name"] for _i, _c, raw in items])


def _pcsgs(pcs: PCS, n: int) -> Expected:
    items = [(i, g, O.build_pcsg(pcs, i, g)) for i in range(n) for g in pcs.groups]
    return Expected(items, [raw["metadata"]["name"] for _i, _g, raw in items])


def sync_standalone_podcliques(pcs: PCS, world: World, n: int | None = None, queue: Any = None) -> list[Action]:
    """Create missing standalone PodCliques for every replica and delete those of
    replicas scaled away. Existing PodCliques keep their ``replicas``.
    Upstream: ``podcliqueset/components/podclique/podclique.go`` ``Sync`` /
    ``getPodCliqueNamesToDelete``."""
    acts = []
    n = pcs.replicas if n is None else n
    exp = pcs.derived(_standalone_pclqs, n)
    expected = exp.names
    ctl = R.pcs_component("PodClique", "podclique")
    look = queue.keys(ctl, world, (n,)) if queue is not None else None
    unsettled: set[str] = set()
    for i, c, raw in exp.looked(look):
        name = raw["metadata"]["name"]
        cur = world.get("PodClique", pcs.namespace, name)
        if cur is None:
            acts.append(_create(raw, f"standalone clique {c.name} of replica {i}",
                                f"{R_PCS}/components/podclique/podclique.go#buildResource", index=i,
                                role=_role(pcs, i)))
            unsettled.add(name)
        elif not cur.terminating:
            a = patch_podclique(cur, raw, f"{R_PCS}/components/podclique/podclique.go#buildResource", index=i)
            if a is not None:
                acts.append(a)
                unsettled.add(name)
        else:
            unsettled.add(name)
    pclqs = owned(world, "PodClique", pcs) if look is None else by_names(world, "PodClique", pcs, look)
    for pclq in pclqs:
        if pclq.labels.get(N.L_COMPONENT) == "pcs-podclique" and pclq.name not in expected and not pclq.terminating:
            acts.append(_delete(pclq, "its replica or clique is no longer in the spec",
                                f"{R_PCS}/components/podclique/podclique.go#getPodCliqueNamesToDelete", index=replica_of(pclq)))
            unsettled.add(pclq.name)
    if queue is not None:
        queue.done(ctl, sorted(unsettled), (n,))
    return acts


def pclq_needs_patch(cur: Obj, raw: dict[str, Any]) -> list[str]:
    """What a create-or-patch of an existing PodClique would change: the template
    hash label (and with it the pod template), the clique's own template labels and
    annotations, or the autoscaler config. ``replicas`` is never patched (an HPA or
    the scale subresource owns it); live-only fields (finalizers, injected env) are
    not compared, since the hash label already says whether the template moved."""
    changed = []
    if cur.labels.get(N.L_TEMPLATE_HASH) != raw["metadata"]["labels"].get(N.L_TEMPLATE_HASH):
        changed.append("pod template")
    want_labels = {k: v for k, v in raw["metadata"]["labels"].items() if k != N.L_TEMPLATE_HASH}
    if not changed and any(cur.labels.get(k) != v for k, v in want_labels.items()):
        changed.append("labels")
    if cur.spec.get("autoScalingConfig") != raw["spec"].get("autoScalingConfig"):
        changed.append("autoScalingConfig")
    return changed


def patch_podclique(cur: Obj, raw: dict[str, Any], rule: str, *, index: int | None = None) -> Action | None:
    """Create-or-patch of an existing PodClique: spec and labels from the template,
    ``replicas`` and status kept. None when nothing would change."""
    changed = pclq_needs_patch(cur, raw)
    if not changed:
        return None
    new = dict(raw)
    md = dict(cur.metadata)
    md["labels"] = dict(raw["metadata"]["labels"])
    md["annotations"] = dict(raw["metadata"].get("annotations") or {})
    new["metadata"] = md
    spec = dict(raw["spec"])
    spec["replicas"] = cur.spec.get("replicas", spec.get("replicas"))
    new["spec"] = spec
    if cur.raw.get("status") is not None:
        new["status"] = cur.raw["status"]
    what = " and ".join(changed)
    return _update(cur, new, f"{what} patched in place from the clique template (replicas kept at {spec['replicas']})",
                   rule, fields={"changed": changed}, index=index, revision="new")


def sync_scaling_groups(pcs: PCS, world: World, n: int | None = None, queue: Any = None) -> list[Action]:
    """PodCliqueScalingGroups (``spec.replicas`` only on create), then the PodGangs
    that need them. Upstream: ``podcliqueset/components/podcliquescalinggroup/
    podcliquescalinggroup.go`` ``buildResource``."""
    acts = []
    n = pcs.replicas if n is None else n
    exp = pcs.derived(_pcsgs, n)
    expected = exp.names
    ctl = R.pcs_component("PodCliqueScalingGroup", "podcliquescalinggroup")
    look = queue.keys(ctl, world, (n,)) if queue is not None else None
    unsettled: set[str] = set()
    for i, g, raw in exp.looked(look):
        name = raw["metadata"]["name"]
        if world.get("PodCliqueScalingGroup", pcs.namespace, name) is None:
            acts.append(_create(raw, f"scaling group {g.name} of replica {i} ({g.replicas} replicas)",
                                f"{R_PCS}/components/podcliquescalinggroup/podcliquescalinggroup.go#buildResource", index=i,
                                role=_role(pcs, i)))
            unsettled.add(name)
    pcsgs = owned(world, "PodCliqueScalingGroup", pcs) if look is None else \
        by_names(world, "PodCliqueScalingGroup", pcs, look)
    for o in pcsgs:
        if o.name not in expected and not o.terminating:
            acts.append(_delete(o, "its replica or group is no longer in the spec",
                                f"{R_PCS}/components/podcliquescalinggroup/podcliquescalinggroup.go#Sync", index=replica_of(o)))
            unsettled.add(o.name)
    if queue is not None:
        queue.done(ctl, sorted(unsettled), (n,))
    return acts


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


@dataclass(frozen=True)
class LivePcsgReplicas:
    """``World.derived`` description of ``live_pcsg_replicas``."""

    pcs: PCS  # compared by identity: the model's parsed desired PodCliqueSet
    n: int

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
    out = []
    reps_of = iter(reps)
    for i in range(n):
        base = N.base_podgang_name(pcs.name, i)
        groups = [(pcs.standalone_pclq_fqn(i, c.name), c.min_available) for c in pcs.standalone]
        scaled = []
        for g in pcs.groups:
            fqn = pcs.pcsg_fqn(i, g)
            reps = next(reps_of)
            for j in range(g.min_available):  # always 0..minAvailable-1, whatever the live replicas
                for cn in g.clique_names:
                    c = pcs.clique_by_name.get(cn)
                    groups.append((pcs.member_pclq_fqn(i, g, j, cn), c.min_available if c else 1))
            for j in range(g.min_available, reps):
                members = []
                for cn in g.clique_names:
                    c = pcs.clique_by_name.get(cn)
                    members.append((pcs.member_pclq_fqn(i, g, j, cn), c.min_available if c else 1))
                scaled.append((N.scaled_podgang_name(fqn, j, g.min_available), i, members))
        out.append((base, i, groups))
        out.extend(scaled)
    return Expected(out, [name for name, _i, _g in out])


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
                  pcsg_surge: Callable[[Obj], int] | None = None, queue: Any = None) -> list[Action]:
    """Delete PodGangs no longer expected, then create-or-patch every expected one:
    created with ``Initialized=False``; its ``podReferences`` follow the non-terminating
    pods labelled for it on every sync; ``Initialized=True`` once no pod is pending
    creation or association (never set back to False).
    Upstream: ``podgang/syncflow.go`` ``runSyncFlow`` (``deleteExcessPodGangs`` first,
    then ``createOrUpdatePodGangs``), ``verifyAllPodsCreated``."""
    n = pcs.replicas if n is None else n
    reps = _gang_replicas(pcs, world, n, pcsg_surge)
    exp = pcs.derived(_expected_podgangs, n, reps)
    ctl = R.pcs_component("PodGang", "podgang")
    look = queue.keys(ctl, world, (n, reps)) if queue is not None else None
    acts = delete_excess_podgangs(pcs, world, exp, look)
    again = {a.name for a in acts}
    more = create_or_update_podgangs(pcs, world, exp, look)
    again |= {name for name, _i, _g in exp.looked(look)}
    again -= {name for name in again if name in exp.names and _settled_podgang(world, pcs, name, more)}
    if queue is not None:
        queue.done(ctl, sorted(again), (n, reps))
    return acts + more


def _settled_podgang(world: World, pcs: PCS, name: str, acts: list[Action]) -> bool:
    """An existing PodGang the sync did not touch needs nothing until an event."""
    cur = world.get("PodGang", pcs.namespace, name)
    return cur is not None and not cur.terminating and not any(a.name == name for a in acts)


def delete_excess_podgangs(pcs: PCS, world: World, exp: Expected, look: set[str] | None) -> list[Action]:
    """PodGangs of the PodCliqueSet that are no longer expected are deleted.
    Upstream: ``podgang/syncflow.go`` ``deleteExcessPodGangs``."""
    acts = []
    for pg in owned(world, "PodGang", pcs) if look is None else by_names(world, "PodGang", pcs, look):
        if pg.name not in exp.names and not pg.terminating:
            acts.append(_delete(pg, "no longer expected", f"{R_PCS}/components/podgang/syncflow.go#deleteExcessPodGangs",
                                index=replica_of(pg) if replica_of(pg) >= 0 else None))
    return acts


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
            acts.append(_create(O.build_podgang(pcs, name, groups), f"{role} with {len(groups)} pod groups",
                                f"{R_PCS}/components/podgang/syncflow.go#createOrUpdatePodGangs", index=i, role=role,
                                revision=None))
            continue
        if cur.terminating:
            continue
        refs = podgang_refs(world, name)
        was_init = O.podgang_initialized(cur)
        initialized = was_init or pods_pending_creation_or_association(world, ns, name, groups, pods_by_pclq) == 0
        raw = O.build_podgang(pcs, name, groups, refs, initialized)
        if initialized == was_init and isinstance(cur.raw.get("status"), Mapping):
            raw["status"] = cur.raw["status"]  # CreateOrPatch leaves the status subresource alone
        if cur.spec.get("podgroups") != raw["spec"]["podgroups"] or initialized != was_init or \
                cur.spec.get("priorityClassName") != raw["spec"].get("priorityClassName"):
            n_refs = sum(len(refs.get(q, ())) for q, _m in groups)
            acts.append(_update(cur, raw, f"lists its {n_refs} pods; Initialized=True" if initialized and not was_init
                                else f"pod references now {n_refs} pods",
                                f"{R_PCS}/components/podgang/syncflow.go#createOrUpdatePodGangs",
                                fields={"podReferences": n_refs, "Initialized": initialized}, index=i, role=role))
    return acts


# ----------------------------------------------------------------------------- PCSG controller


def sync_scaling_group_podcliques(pcs: PCS, world: World, may_create: Callable[[Obj, int], bool] | None = None,
                                  surge: Callable[[Obj], int] | None = None,
                                  only: Iterable[Obj] | None = None, gang: bool = True) -> list[Action]:
    """For each PodCliqueScalingGroup: create the member PodCliques of replicas
    ``0..spec.replicas-1`` that do not exist (waiting while an old one with the same
    name is still terminating) and delete those of replicas scaled in (highest
    indices). Upstream: ``operator/internal/controller/podcliquescalinggroup/components/
    podclique/sync.go`` ``runSyncFlow``, ``createExpectedPCLQs``, ``computePCSGReplicasToDelete``.
    Replicas that ``surge`` says the strategy keeps above ``spec.replicas`` are not scaled in.
    ``only``: these scaling groups instead of all of the PodCliqueSet's."""
    acts = []
    ns = pcs.namespace
    pclqs_by_pcsg = world.index("PodClique", N.L_PCSG)
    for pcsg in owned(world, "PodCliqueScalingGroup", pcs) if only is None else only:
        if pcsg.terminating:
            continue
        i = replica_of(pcsg)
        g = next((g for g in pcs.groups if pcs.pcsg_fqn(i, g) == pcsg.name), None)
        if g is None:
            continue
        reps = pcsg.spec.get("replicas")
        reps = reps if isinstance(reps, int) else g.replicas
        keep = reps + (surge(pcsg) if surge is not None else 0)
        for j in range(reps):
            if may_create is not None and not may_create(pcsg, j):
                continue
            for cn in g.clique_names:
                c = pcs.clique_by_name.get(cn)
                if c is None:
                    continue
                name = pcs.member_pclq_fqn(i, g, j, cn)
                if world.get("PodClique", ns, name) is None:
                    raw = O.build_member_pclq(pcs, i, g, j, c)
                    acts.append(_create(raw, f"member {cn} of {g.name} replica {j}",
                                        f"{R_PCSG}/components/podclique/sync.go#createExpectedPCLQs", index=j,
                                        role="base-gang" if j < g.min_available else "scaled-gang"))
        for pclq in pclqs_by_pcsg.get(pcsg.name, ()):
            try:
                j = int(pclq.labels.get(N.L_PCSG_REPLICA, "0"))
            except ValueError:
                continue
            if j >= keep and not pclq.terminating:
                acts.append(_delete(pclq, f"scaling-group replica {j} scaled in",
                                    f"{R_PCSG}/components/podclique/sync.go#computePCSGReplicasToDelete", index=j))
        if gang and keep == reps:
            members = [m for m in pclqs_by_pcsg.get(pcsg.name, ()) if m.namespace == ns]
            acts += GT.process_min_available_breached_pcsg_replicas(pcs, pcsg, members, world)
    return acts


# ----------------------------------------------------------------------------- PCLQ controller


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


def deletion_sort_key(pod: Obj, target_hash: str | None) -> tuple:
    """Scale-in victims first: terminating; unscheduled; phase Pending < Unknown <
    Running; not Ready; old template hash; newest first.
    Upstream: ``operator/internal/controller/podclique/components/pod/deletionsort.go``."""
    phase_rank = {"Pending": 0, "Unknown": 1, "Running": 2}.get(O.pod_phase(pod), 3)
    ts = str(pod.metadata.get("creationTimestamp") or "")
    return (not pod.terminating, O.pod_scheduled(pod), phase_rank, O.pod_ready(pod),
            pod.labels.get(N.L_TEMPLATE_HASH) == target_hash, _neg(ts), pod.name)


def _neg(s: str) -> tuple:
    return tuple(-ord(ch) for ch in s)


def sync_pods(pclq: Obj, world: World) -> list[Action]:
    """Create pods up to ``spec.replicas`` on the lowest free indices (gated on the
    PodGang), or delete the excess with the deletion sorter.
    Upstream: ``operator/internal/controller/podclique/components/pod/syncflow.go``
    ``runSyncFlow``; ``operator/internal/index/tracker.go`` ``GetAvailableIndices``."""
    ns = pclq.namespace
    active = SUM.pod_summary(world, N.L_PCLQ, pclq.name, ns).active
    want = pclq.spec.get("replicas")
    want = want if isinstance(want, int) and want >= 0 else 0
    acts: list[Action] = []
    diff = len(active) - want
    if diff < 0:
        used = {O.pod_index(p) for p in active}
        free = (k for k in range(10**9) if k not in used)
        taken: set[str] = set()
        stamp = _created_stamp(world)
        target = pclq.labels.get(N.L_TEMPLATE_HASH)
        for _ in range(-diff):
            k = next(free)
            name = internal_pod_name(world, ns, pclq.name, k, taken)
            taken.add(name)
            raw = O.build_pod(pclq, k, name, stamp)
            raw["metadata"]["namespace"] = ns
            acts.append(_create(raw, f"pod {k} of {pclq.name}", f"{R_PCLQ}/components/pod/syncflow.go#createPods",
                                index=k, revision="new" if target else None, name=N.pod_display_name(pclq.name)))
    elif diff > 0:
        target = pclq.labels.get(N.L_TEMPLATE_HASH)
        victims = sorted(active, key=lambda p: deletion_sort_key(p, target))[:diff]
        for p in victims:
            acts.append(_delete(p, f"{pclq.name} scaled in to {want}", f"{R_PCLQ}/components/pod/deletionsort.go#DeletionSorter",
                                index=O.pod_index(p), name=pod_display_name(p)))
    return acts


def pods_of(world: World, pclq: Obj) -> list[Obj]:
    return [p for p in world.index("Pod", N.L_PCLQ).get(pclq.name, ()) if p.namespace == pclq.namespace]


def iter_pclqs(world: World, pcs: PCS) -> Iterable[Obj]:
    return [p for p in owned(world, "PodClique", pcs) if not p.terminating]
