"""What the RayService model starts from: nothing (a new RayService), a settled world
derived from the previously applied manifest, or the live objects as given; and the
warnings about that starting state.

Upstream (ray-project/kuberay @ feeaf72f): the objects the RayService controller owns
(``common/association.go`` ``RayServiceRayClustersAssociationOptions``), the
``ray.io/kuberay-version`` annotation ``shouldUpdateCluster`` compares, and the spec
comparison of ``rayClusterSpecForHashing`` (``decisions.py``) behind the warnings.
Each function takes the model (its operator configuration and version) first.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ...core.environment import Environment
from ...core.model import Obj, Stuck, Warning
from ...core.simulate import run
from ...core.timestamps import parse_time, snapshot_time
from ...core.world import World
from ...core.trees import copy_tree
from .api import (GW, HEAD_NONE, HEAD_READY, L_CRD, L_NAME, MEM_NOTES, MEM_WORKER_PODS, RC, ROUTE, RS, SVC, desired_workers, display,
                  gateway_name, head_phase, recorded_worker_pods, route_name, with_deletion_timers)
from .builders import sa_object
from .conditions import find_condition, is_true
from .decisions import (HASH_ANNOTATION, HASHED_SPEC_ANNOTATION, KUBERAY_VERSION_ANNOTATION, cluster_kuberay_version,
                        ignored_differences, is_cluster_spec_hash_equal, is_zero_downtime_upgrade_enabled,
                        ray_cluster_spec_for_hashing, strategy_name)
from .spec import deletion_delay, incremental, managed_by_external_controller, serve_app_names
from .validation.util import INITIALIZING_TIMEOUT_ANNOTATION
from .world import dangling_clusters, without_outcome


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, dict) or isinstance(v, Mapping) else {}  # dict first: the common case, cheaper


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


#: observation warnings that come from the live objects (kept when a world built
#: elsewhere gets the warnings of another desired spec)
_LIVE_NOTES = ("ObservedFromManifest", "KubeRayVersionAssumed", "KubeRayVersionMissing", "KubeRayVersionMismatch",
               "SpecComparedWithLiveCluster", "ObservedTrafficTime")


def observe(model: Any, desired: Obj | None, observed: Sequence[Obj], env: Environment) -> World:
    """Build the world: nothing (a new RayService), a settled world derived from the
    previously applied manifest, or the live objects as given."""
    observed = list(observed)
    target = desired
    rs_obs = None
    for o in observed:
        if o.kind == RS and (target is None or (o.name == target.name and o.namespace == target.namespace)):
            rs_obs = o
            break
    if target is None:
        target = rs_obs
    assert target is not None
    notes: list[Warning] = []
    if rs_obs is None:
        raw = copy_tree(dict(target.raw))
        md = dict(raw.get("metadata") or {})
        md["generation"] = 1
        md.pop("finalizers", None)
        raw["metadata"] = md
        raw.pop("status", None)
        world = World([Obj(raw, target.file, target.line, target.lines)])
    else:
        # only what the operator made counts as a child: an unrelated Service in the same
        # file (a Redis for GCS fault tolerance) is neither a child nor a sign of a live world
        children = [o for o in observed if o.kind in (RC, SVC, GW, ROUTE)
                    and (o.labels.get(L_CRD) == RS
                         or any(r.get("kind") in (RS, RC) for r in o.owner_references))]
        if not rs_obs.status and not children:
            world, settled = _settled(model, rs_obs)
            notes.append(Warning("ObservedFromManifest", _settled_note(rs_obs, world, settled), ""))
        else:
            world = _live(model, rs_obs, children, notes)
        world = _retarget(model, world, rs_obs, target)
    rs = world.get(RS, target.namespace, target.name)
    timers = {}
    if rs is not None:
        for rc in dangling_clusters(rs, world):
            timers[rc.name] = deletion_delay(target)
            if not rc.terminating:
                notes.append(Warning(
                    "ObservedDanglingCluster", f"RayCluster {rc.name} is neither the active nor the pending cluster: "
                    f"the controller deletes it {deletion_delay(target)} s after it first found it so, a time it "
                    "keeps in memory (cleanUpRayClusterInstance), not in the cluster; the plan counts the delay from "
                    "its start, so the deletion may come up to that much earlier than planned",
                    f"RayCluster/{rc.name}"))
    world = with_deletion_timers(World({k: world.get(*k) for k in world.keys()}, 0, world.memory), timers)
    notes.extend(observe_warnings(model, target, world))
    return world.replace(memory={**without_outcome(world.memory), MEM_NOTES: tuple(notes),
                                 MEM_WORKER_PODS: recorded_worker_pods(world)})


def _settled(model: Any, prev: Obj) -> tuple[World, Any]:
    """Simulate the previous manifest from scratch until it settles."""
    raw = copy_tree(dict(prev.raw))
    raw.pop("status", None)
    md = dict(raw.get("metadata") or {})
    md.pop("finalizers", None)
    md["generation"] = int(md.get("generation") or 1)
    raw["metadata"] = md
    base = Obj(raw, prev.file, prev.line, prev.lines)
    world = World([Obj(raw, prev.file, prev.line, prev.lines)])
    env = Environment(max_steps=200)
    box: list[World] = []
    probe = _Recorder(model, box)
    plan, _end = run(probe, base, world, env, record=False)  # only the settled world and the outcome count
    final = box[-1] if box else world
    return World({k: final.get(*k) for k in final.keys()}, 0, {}), plan


def _settled_note(prev: Obj, world: World, plan: Any) -> str:
    """What ``ObservedFromManifest`` says of the world derived from the previous manifest:
    a serving service, or, when its creation gets stuck (a Serve port missing, an empty
    Serve config), where it stops."""
    head = "only the RayService manifest was observed: "
    rs = world.get(RS, prev.namespace, prev.name)
    active = _m(_m(rs.status if rs is not None else {}).get("activeServiceStatus")).get("rayClusterName")
    if plan.outcome != "stuck" and active:
        return (head + f"assuming a settled service with one ready active RayCluster ({prev.name}-<random>), its "
                "Services and Serve applications RUNNING")
    clusters = sorted(o.name for o in world.of_kind(RC))
    why = f"stuck: {plan.stuck.reason}" if plan.stuck is not None else "it settles without one"
    return (head + f"its creation does not reach a serving service ({why}): planning from where that "
            f"creation stops: {'RayCluster ' + ', '.join(clusters) if clusters else 'no RayCluster'}, "
            f"{'active RayCluster ' + active if active else 'no active RayCluster'}")


def _live(model: Any, rs: Obj, children: list[Obj], notes: list[Warning]) -> World:
    """Live objects. In a snapshot without statuses (hand-written: the RayService has no
    status) a RayCluster is taken as running and its Serve applications as RUNNING. When
    the RayService has a status, the statuses are the evidence, as upstream reads them: a
    RayCluster without a ``HeadPodReady`` condition (and not ``state: ready``, what
    operators without RayClusterStatusConditions write) has no ready head yet, and the
    pending cluster with a ready head and no application recorded has nothing deployed yet
    (upstream records, in the pass that submits the config, the applications it read before
    submitting, so this is also the snapshot of a pass that just submitted: the plan's
    resubmission of the same config then changes nothing; the active cluster's are not
    refreshed during an upgrade, so an empty list there says nothing).
    Each other live cluster with a ready head gets the RayService's current serveConfigV2
    in the serve cache (CONTRACT: the operator has been running)."""
    rs = _with_traffic_times(rs, snapshot_time([rs, *children]), notes if incremental(rs, model.config) else [])
    objs = [rs]
    st = rs.status
    config = str(rs.spec.get("serveConfigV2") or "")
    names = {_m(st.get(k)).get("rayClusterName"): k for k in ("activeServiceStatus", "pendingServiceStatus")}
    for o in children:
        if o.namespace != rs.namespace:
            continue
        if o.kind == RC:
            if o.labels.get(L_NAME) != rs.name or o.labels.get(L_CRD) != "RayService":
                continue
            o = _live_cluster(model, o, notes, bool(st))
            o = _hashed_from_the_service(model, rs, o, names.get(o.name), notes)
            objs.append(o)
            if head_phase(o) == HEAD_READY:
                sub = _m(st.get(names.get(o.name, ""))) if o.name in names else {}
                apps = {k: {"status": _m(v).get("status") or "RUNNING",
                            **({"message": _m(v)["message"]} if _m(v).get("message") else {})}
                        for k, v in _m(sub.get("applicationStatuses")).items()}
                if not apps and st and names.get(o.name) == "pendingServiceStatus":
                    notes.append(Warning("ServeNotDeployedYet", f"pending RayCluster {o.name} has a ready head and no "
                                         "Serve application recorded: taken as not deployed yet (the controller "
                                         "submits serveConfigV2 on its next pass and waits for RUNNING)",
                                         f"RayService/{rs.name}.status.{names[o.name]}.applicationStatuses"))
                    continue
                if not apps:
                    apps = {n: {"status": "RUNNING"} for n in serve_app_names(config)}
                objs.append(Obj(sa_object(rs.namespace, o.name, config, sub.get("targetCapacity"), apps)))
        else:
            objs.append(o)
    present = {o.name for o in objs if o.kind == RC}
    for name, key in sorted((n, k) for n, k in names.items() if n):
        if name not in present:
            notes.append(Warning("ObservedClusterMissing", f"the RayService status names RayCluster {name} "
                                 f"({key}), which is not in the observed input: planned as if it did not exist (the "
                                 "controller finds no such cluster and prepares a new one); observe it too, or "
                                 "use --from-cluster, if it is running", f"RayService/{rs.name}.status.{key}.rayClusterName"))
    return World(objs)


def _hashed_from_the_service(model: Any, rs: Obj, rc: Obj, role: str | None, notes: list[Warning]) -> Obj:
    """A RayCluster whose hash annotation must be the hash of the live RayService's
    ``rayClusterConfig``, but whose spec no longer reduces to it, was edited after the
    controller last wrote it (Kueue injects ``nodeSelector`` and pod labels at admission; a
    ``kubectl edit``); ``isClusterSpecHashEqual`` and ``reconcileRollbackState`` compare the
    annotation, never the cluster's spec, so the cluster is compared by the RayService's
    spec (``decisions.HASHED_SPEC_ANNOTATION``). Two clusters are such, both with the status
    of the current generation and a zero-downtime strategy:

    - the active cluster of a settled service (no pending cluster): otherwise the
      controller would have prepared a new cluster;
    - the pending cluster, without ``RollbackInProgress``: a goal that differed from its
      hash would have made the controller name another pending cluster (NewCluster,
      ``shouldPrepareNewCluster``) or start a rollback (the incremental upgrade)."""
    st = rs.status
    gen, seen = rs.metadata.get("generation"), st.get("observedGeneration")
    pending = _m(st.get("pendingServiceStatus")).get("rayClusterName") if st else None
    if role == "activeServiceStatus":
        usable = bool(st) and not pending
    elif role == "pendingServiceStatus":
        usable = bool(pending) and not is_true(st, "RollbackInProgress")
    else:
        usable = False
    if (not usable or (gen is not None and seen is not None and gen != seen)
            or not is_zero_downtime_upgrade_enabled(rs, model.config)):
        return rc
    rcc = _m(rs.spec.get("rayClusterConfig"))
    if ray_cluster_spec_for_hashing(rcc) == ray_cluster_spec_for_hashing(rc.spec):
        return rc
    raw = copy_tree(dict(rc.raw))
    md = dict(raw.get("metadata") or {})
    md["annotations"] = {**_m(md.get("annotations")), HASHED_SPEC_ANNOTATION: json.dumps(rcc, sort_keys=True)}
    raw["metadata"] = md
    which = "the settled RayService's" if role == "activeServiceStatus" else \
        "the RayService's (which names it as its pending cluster, at the current generation)"
    notes.append(Warning("LiveClusterEdited", f"RayCluster {rc.name}'s spec differs from what {which} "
                         "rayClusterConfig makes of it (edited since: Kueue's admission, a kubectl edit): its hash "
                         "annotation is still the RayService's, which the controller compares, so the plan compares "
                         "the desired spec with the live RayService's, not with the edited cluster "
                         "(rayservice_controller.go#isClusterSpecHashEqual)",
                         f"RayCluster/{rc.name}.spec"))
    return Obj(raw, rc.file, rc.line, rc.lines)


def _with_traffic_times(rs: Obj, since: float | None, notes: list[Warning]) -> Obj:
    """The live RayService with its ``lastTrafficMigratedTime`` stamps on the plan's clock,
    which starts at the snapshot's newest time (``core.timestamps.snapshot_time``): a stamp
    N seconds older is ``-N``, so ``calculateTrafficRoutedPercent``'s
    ``time.Since(lastTrafficMigratedTime) >= intervalSeconds`` counts from it."""
    if since is None:
        return rs
    raw, changed = None, False
    for which in ("activeServiceStatus", "pendingServiceStatus"):
        t = parse_time(_m(rs.status.get(which)).get("lastTrafficMigratedTime"))
        if t is None:
            continue
        if raw is None:
            raw = copy_tree(dict(rs.raw))
        ago = max(0, int(since - t))
        raw["status"][which]["lastTrafficMigratedTime"] = -ago
        changed = True
        notes.append(Warning("ObservedTrafficTime", f"traffic last moved {ago}s before the snapshot's newest time "
                             f"({rs.status[which]['lastTrafficMigratedTime']}), which the plan takes as its start: the "
                             "next step comes intervalSeconds after that move "
                             "(rayservice_controller.go#calculateTrafficRoutedPercent)",
                             f"status.{which}.lastTrafficMigratedTime"))
    return Obj(raw, rs.file, rs.line, rs.lines) if changed and raw is not None else rs


def _live_cluster(model: Any, rc: Obj, notes: list[Warning], evidence: bool) -> Obj:
    """A live RayCluster as the model reads it (``evidence``: the snapshot has statuses,
    see ``_live``)."""
    raw = copy_tree(dict(rc.raw))
    st = dict(raw.get("status") or {})
    if find_condition(st, "HeadPodReady") is None:
        suspended = rc.spec.get("suspend") is True or str(st.get("state")) == "suspended"
        n = desired_workers(rc.spec)
        conds = [dict(c) for c in _l(st.get("conditions"))]
        if evidence and not suspended and str(st.get("state")).lower() != "ready":
            conds.append({"type": "HeadPodReady", "status": "False", "reason": HEAD_NONE})
            st.update(desiredWorkerReplicas=n, readyWorkerReplicas=0)
            notes.append(Warning("HeadNotReadyYet", f"RayCluster {rc.name} has no HeadPodReady condition and is not "
                                 "state: ready: taken as starting (no ready head Pod yet)",
                                 f"RayCluster/{rc.name}.status.conditions"))
        elif suspended:
            conds.append({"type": "HeadPodReady", "status": "False", "reason": HEAD_NONE})
            if not any(c.get("type") == "RayClusterSuspended" for c in conds):
                conds.append({"type": "RayClusterSuspended", "status": "True", "reason": "RayClusterSuspended"})
            st.update(desiredWorkerReplicas=n, readyWorkerReplicas=0)
        else:
            conds.append({"type": "HeadPodReady", "status": "True", "reason": HEAD_READY})
            st.setdefault("readyWorkerReplicas", n)
            st.setdefault("desiredWorkerReplicas", n)
        st["conditions"] = conds
        raw["status"] = st
    if KUBERAY_VERSION_ANNOTATION not in rc.annotations and evidence:
        # a real operator wrote the statuses: one older than v1.2.0, which set no version
        # annotation; shouldUpdateCluster reads the missing key as ""
        md = dict(raw.get("metadata") or {})
        md["annotations"] = {**dict(rc.annotations), KUBERAY_VERSION_ANNOTATION: ""}
        raw["metadata"] = md
        notes.append(Warning("KubeRayVersionMissing", f"RayCluster {rc.name} has no ray.io/kuberay-version "
                             "annotation, so a KubeRay older than v1.2.0 created it (the RayService has a status a "
                             f"real operator wrote); KubeRay {model.version} reads the version as \"\" and "
                             "re-applies the whole rayClusterConfig to the active cluster in place "
                             "(rayservice_controller.go#shouldUpdateCluster)",
                             f"RayCluster/{rc.name}.metadata.annotations"))
    elif KUBERAY_VERSION_ANNOTATION not in rc.annotations:
        notes.append(Warning("KubeRayVersionAssumed", f"RayCluster {rc.name} has no ray.io/kuberay-version "
                             f"annotation: taken as created by KubeRay {model.version} (no in-place re-apply; a "
                             "hand-written snapshot, the RayService having no status)",
                             f"RayCluster/{rc.name}.metadata.annotations"))
    elif rc.annotations.get(KUBERAY_VERSION_ANNOTATION) != model.version:
        notes.append(Warning("KubeRayVersionMismatch", f"RayCluster {rc.name} was created by KubeRay "
                             f"{rc.annotations.get(KUBERAY_VERSION_ANNOTATION)}; KubeRay {model.version} re-applies "
                             "the whole rayClusterConfig to the active cluster in place "
                             "(rayservice_controller.go#shouldUpdateCluster)",
                             f"RayCluster/{rc.name}.metadata.annotations[{KUBERAY_VERSION_ANNOTATION}]"))
    if HASH_ANNOTATION not in rc.annotations and evidence:
        notes.append(Warning("LiveClusterUnhashed", f"RayCluster {rc.name} has no {HASH_ANNOTATION} annotation "
                             "although the RayService has a status a real operator wrote: every KubeRay sets it when "
                             "it creates a cluster, so the plan takes it as left out of the snapshot and compares the "
                             "specs; on a cluster that really lacks it, KubeRay compares the goal's hash with an empty "
                             "one (rayservice_controller.go#isClusterSpecHashEqual) and a zero-downtime strategy "
                             "prepares a new cluster whatever the spec",
                             f"RayCluster/{rc.name}.metadata.annotations"))
    elif HASH_ANNOTATION in rc.annotations:
        notes.append(Warning("SpecComparedWithLiveCluster", f"RayCluster {rc.name}: the upstream hash annotation "
                             "cannot be recomputed; the model compares the live RayCluster spec with the desired "
                             "rayClusterConfig instead (same answer unless someone edited the RayCluster)",
                             f"RayCluster/{rc.name}.metadata.annotations[{HASH_ANNOTATION}]"))
    return Obj(raw, rc.file, rc.line, rc.lines)


def _retarget(model: Any, world: World, observed_rs: Obj, desired: Obj) -> World:
    """The world's RayService carries the desired spec (what is about to be applied),
    the observed status and metadata; generation bumps when the spec changes."""
    cur = world.get(RS, observed_rs.namespace, observed_rs.name)
    base = cur if cur is not None else observed_rs
    raw = copy_tree(dict(base.raw))
    md = dict(raw.get("metadata") or {})
    gen = int(md.get("generation") or 1)
    if _m(observed_rs.raw.get("spec")) != _m(desired.raw.get("spec")):
        gen += 1
    md["generation"] = gen
    for k in ("labels", "annotations"):
        if k in desired.metadata:
            md[k] = copy_tree(desired.metadata[k])
    raw["metadata"] = md
    raw["spec"] = copy_tree(dict(desired.spec))
    return world.replace(put=[Obj(raw, desired.file, desired.line, desired.lines)])


def with_notes(model: Any, desired: Obj, world: World) -> World:
    """``world`` with the observation warnings of ``desired`` (for a world built elsewhere)."""
    keep = tuple(w for w in world.memory.get(MEM_NOTES, ()) if w.code in _LIVE_NOTES)
    notes = keep + tuple(observe_warnings(model, desired, world))
    return world.replace(memory={**without_outcome(world.memory), MEM_NOTES: notes})


def _times_not_read(desired: Obj, st: Mapping[str, Any], cfg: Any) -> list[Warning]:
    """The live timestamps a timer of this plan would count from, which the model does
    not read (docs/kuberay.md): the initializing timeout from ``Ready``'s
    ``lastTransitionTime`` (``markFailedOnInitializingTimeout``). (``lastTrafficMigratedTime``
    is read: ``_with_traffic_times``.)"""
    out = []
    ready = find_condition(st, "Ready")
    if (desired.annotations.get(INITIALIZING_TIMEOUT_ANNOTATION) and ready is not None
            and ready.get("reason") == "Initializing" and isinstance(ready.get("lastTransitionTime"), str)):
        out.append(Warning("ObservedTimeNotRead", "the RayService has been initializing since "
                           f"{ready['lastTransitionTime']}; the plan counts the initializing timeout "
                           f"({desired.annotations[INITIALIZING_TIMEOUT_ANNOTATION]}) from its own start, so the "
                           "operator may fail it (InitializingTimeout) sooner than shown "
                           "(rayservice_controller.go#markFailedOnInitializingTimeout)",
                           "status.conditions[type=Ready].lastTransitionTime"))
    return out


def observe_warnings(model: Any, desired: Obj, world: World) -> list[Warning]:
    """Warnings about what the desired spec does to the starting world (fields KubeRay
    ignores, an upgrade strategy that never reaches the cluster, a revert mid-upgrade)."""
    out: list[Warning] = []
    rs = world.get(RS, desired.namespace, desired.name)
    if managed_by_external_controller(desired) is not None:
        out.append(Warning("ManagedByExternalController",
                           f"spec.managedBy is {desired.spec.get('managedBy')!r}: this KubeRay operator ignores the "
                           "RayService entirely (rayservice_controller.go#Reconcile, utils.ManagedByExternalController)",
                           "spec.managedBy"))
        return out
    if rs is None:
        return out
    if desired.spec.get("suspend") is True and not incremental(desired, model.config) and (
            world.get(GW, desired.namespace, gateway_name(desired.name)) is not None
            or world.get(ROUTE, desired.namespace, route_name(desired.name)) is not None):
        out.append(Warning("GatewayLeftBySuspend",
                           "suspend deletes the Gateway and HTTPRoute only while upgradeStrategy.type is "
                           "NewClusterWithIncrementalUpgrade; with the current strategy they stay "
                           "(rayservice_controller.go#deleteRayServiceOwnedResources)", "spec.upgradeStrategy.type"))
    st = rs.status
    out.extend(_times_not_read(desired, st, model.config))
    a = world.get(RC, desired.namespace, _m(st.get("activeServiceStatus")).get("rayClusterName") or "")
    p = world.get(RC, desired.namespace, _m(st.get("pendingServiceStatus")).get("rayClusterName") or "")
    cluster = p if p is not None else a
    if cluster is None:
        return out
    goal = _m(desired.spec.get("rayClusterConfig"))
    # another KubeRay version made the active cluster: shouldUpdateCluster re-applies the whole
    # spec to it in place before any hash comparison, so nothing is left out (decisions.should_update_cluster)
    reapplied = p is None and a is not None and not is_true(st, "UpgradeInProgress") \
        and cluster_kuberay_version(a, model.version) != model.version
    full = is_cluster_spec_hash_equal(desired, cluster, False) and not reapplied
    partial = not full and is_cluster_spec_hash_equal(desired, cluster, True)
    ref = "rayservice_controller.go#rayClusterSpecForHashing, utils/util.go#GenerateHashWithoutReplicasAndWorkersToDelete"
    for kind, path in ignored_differences(goal, cluster.spec):
        if kind == "suspend":
            out.append(Warning("NestedSuspendIgnored",
                               f"rayClusterConfig.suspend differs from RayCluster {display(cluster.name)}'s "
                               "spec.suspend but is copied only when a cluster is created and never propagated "
                               "afterwards; the live cluster keeps its value "
                               "(rayservice_controller.go#modifyRayCluster, #rayClusterSpecForHashing). "
                               "Use spec.suspend to suspend the whole RayService", path))
        elif full and kind == "replicas":
            out.append(Warning("WorkerReplicasIgnored",
                               f"{path} is left out of the cluster comparison ({ref}); RayCluster "
                               f"{display(cluster.name)} keeps its current value and nothing is rolled out. Edit "
                               "the RayCluster (or let the autoscaler) to scale, or combine with a change that "
                               "creates a new cluster", path))
        elif full and kind == "scheduling":
            out.append(Warning("SchedulingFieldsIgnored",
                               f"{path} is left out of the cluster comparison ({ref}) so that Kueue-injected "
                               "values are neutral; the live RayCluster is not changed", path))
        elif full and kind == "upgradeStrategy":
            out.append(Warning("ClusterUpgradeStrategyIgnored",
                               f"{path} is left out of the cluster comparison ({ref})", path))
    if not full and not partial:
        if not is_zero_downtime_upgrade_enabled(desired, model.config):
            out.append(Warning("UpgradeStrategyNone",
                               f"rayClusterConfig differs from RayCluster {display(cluster.name)} but "
                               f"spec.upgradeStrategy.type is {strategy_name(desired, model.config)}: no new cluster is created "
                               "and the change never reaches the running cluster "
                               "(rayservice_controller.go#isZeroDowntimeUpgradeEnabled)", "spec.upgradeStrategy.type"))
        elif p is not None and a is not None and not incremental(desired, model.config) and is_cluster_spec_hash_equal(desired, a, False):
            out.append(Warning("RevertCreatesNewCluster",
                               "the desired rayClusterConfig matches the active cluster but an upgrade is in "
                               "progress: NewCluster compares only with the pending cluster, so a third cluster "
                               "is created rather than cancelling (rayservice_controller.go#shouldPrepareNewCluster)",
                               "spec.rayClusterConfig"))
        elif goal.get("suspend") is True:
            out.append(Warning("ClusterBornSuspended",
                               "rayClusterConfig.suspend is true: the new RayCluster is created suspended and "
                               "KubeRay never unsuspends it (rayservice_controller.go#constructRayClusterForRayService)",
                               "spec.rayClusterConfig.suspend"))
    return out


class _Recorder:
    """Wraps the model to keep the last world of a simulation (for a settled world)."""

    def __init__(self, model: Any, box: list[World]) -> None:
        self._m = model
        self._box = box
        self.api_version, self.kind, self.timed = model.api_version, model.kind, model.timed

    def __getattr__(self, name: str) -> Any:
        return getattr(self._m, name)

    def converged(self, desired: Obj, world: World) -> bool:
        self._box.append(world)
        return self._m.converged(desired, world)

    def diagnose(self, desired: Obj, world: World, env: Environment) -> Stuck:
        self._box.append(world)
        return self._m.diagnose(desired, world, env)

    def warnings(self, desired: Obj, world: World) -> list[Warning]:
        return []
