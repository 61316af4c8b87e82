"""Upstream unit tests of the Grove components, ported as table tests (each names the
Go test it mirrors; ``ai-dynamo/grove`` at the modelled snapshot), and the behaviours
they pin seen through a plan."""

from __future__ import annotations

import copy

import pytest

from rolloutctl.core.environment import Environment
from rolloutctl.core.model import Obj
from rolloutctl.core.simulate import simulate
from rolloutctl.kinds.grove.controller.podcliqueset.components.hpa import default_hpa_metrics, hpa_patch
from rolloutctl.kinds.grove.controller.podcliqueset.components.podgang import (_expected_podgangs, expected_podgangs,
                                                                          pods_pending_creation_or_association)
from rolloutctl.kinds.grove import gang_terminate as GT
from rolloutctl.kinds.grove import objects as O
from rolloutctl.kinds.grove import status as ST
from rolloutctl.kinds.grove import update_common as U
from rolloutctl.kinds.grove.model import GroveModel
from rolloutctl.kinds.grove.spec import PCS

from tests.kinds.grove.operator_world import settled_world

CREATED = "2026-09-01T10:00:00Z"
WITHIN_GRACE = "2026-09-01T10:00:02Z"
WELL_AFTER = "2026-09-01T11:00:00Z"


def _obj(kind: str, conditions: list[dict], **status) -> Obj:
    return Obj({"apiVersion": "grove.io/v1alpha1", "kind": kind,
                "metadata": {"name": "x", "namespace": "default", "creationTimestamp": CREATED},
                "spec": {"minAvailable": 2, "replicas": 3}, "status": {"conditions": conditions, **status}})


def _cond(ctype: str, status: str, ltt: str | None = None, reason: str = "r") -> dict:
    c = {"type": ctype, "status": status, "reason": reason}
    if ltt:
        c["lastTransitionTime"] = ltt
    return c


# ----------------------------------------------------------------------------- utils/podclique_test.go


@pytest.mark.parametrize("name,conditions,want", [
    ("no PodCliqueScheduled condition (fresh) — never scheduled", [], False),
    ("PodCliqueScheduled=False set near creation — never scheduled",
     [_cond("PodCliqueScheduled", "False", WITHIN_GRACE)], False),
    ("PodCliqueScheduled=True now — currently scheduled", [_cond("PodCliqueScheduled", "True", WELL_AFTER)], True),
    ("PodCliqueScheduled=False but flipped well after create — was scheduled, regressed",
     [_cond("PodCliqueScheduled", "False", WELL_AFTER)], True),
    ("PodCliqueScheduled=False flipped by a modelled transition", [_cond("PodCliqueScheduled", "False", "~sim-00000003")],
     True),
])
def test_was_pclq_ever_scheduled(name, conditions, want):
    """Mirrors ``TestWasPCLQEverScheduled``."""
    assert GT.was_pclq_ever_scheduled(_obj("PodClique", conditions)) is want


@pytest.mark.parametrize("name,conditions,want", [
    ("no MinAvailableBreached condition (fresh) — never healthy", [], False),
    ("MinAvailableBreached=True set near creation — never healthy",
     [_cond("MinAvailableBreached", "True", WITHIN_GRACE)], False),
    ("MinAvailableBreached=False now — currently healthy", [_cond("MinAvailableBreached", "False", WELL_AFTER)], True),
    ("MinAvailableBreached=True but flipped well after create — was healthy, regressed",
     [_cond("MinAvailableBreached", "True", WELL_AFTER)], True),
])
def test_was_pcsg_ever_healthy(name, conditions, want):
    """Mirrors ``TestWasPCSGEverHealthy``."""
    assert GT.was_pcsg_ever_healthy(_obj("PodCliqueScalingGroup", conditions)) is want


def test_min_available_breached_pclq_info_filters_never_scheduled():
    """Mirrors ``TestGetMinAvailableBreachedPCLQInfoFiltersNeverScheduled``: both are
    breached, only the one that was scheduled once arms gang termination."""
    never = _obj("PodClique", [_cond("PodCliqueScheduled", "False", WITHIN_GRACE),
                               _cond("MinAvailableBreached", "True", WITHIN_GRACE)])
    regressed = _obj("PodClique", [_cond("PodCliqueScheduled", "False", WELL_AFTER),
                                   _cond("MinAvailableBreached", "True", WELL_AFTER)])
    assert (GT.is_armed_pclq_breach(never), GT.is_armed_pclq_breach(regressed)) == (False, True)


# ----------------------------------------------------------------------------- gangterminate_test.go


@pytest.mark.parametrize("name,conditions,want", [
    ("breached, no in-progress flag — candidate for fire", [_cond("MinAvailableBreached", "True", WELL_AFTER)], True),
    ("breached AND in-progress flag set — skipped (recycle in flight)",
     [_cond("MinAvailableBreached", "True", WELL_AFTER), _cond("GangTerminationInProgress", "True")], False),
    ("not breached, in-progress flag still set — skipped",
     [_cond("MinAvailableBreached", "False", WELL_AFTER), _cond("GangTerminationInProgress", "True")], False),
    ("no MinAvailableBreached condition at all — skipped", [], False),
    ("breached but never healthy (initial startup) — skipped", [_cond("MinAvailableBreached", "True", WITHIN_GRACE)],
     False),
])
def test_min_available_breached_pcsg_info_gang_termination_gate(name, conditions, want):
    """Mirrors ``TestGetMinAvailableBreachedPCSGInfoGangTerminationGate``."""
    assert GT.is_armed_pcsg_breach(_obj("PodCliqueScalingGroup", conditions)) is want


# ----------------------------------------------------------------------------- utils/kubernetes/pod_test.go


def _pod(init: list[dict] | None = None, main: list[dict] | None = None, phase: str = "Running",
         ready: bool = False) -> Obj:
    st: dict = {"phase": phase, "conditions": [{"type": "PodScheduled", "status": "True"},
                                               {"type": "Ready", "status": "True" if ready else "False"}]}
    if init is not None:
        st["initContainerStatuses"] = init
    if main is not None:
        st["containerStatuses"] = main
    return Obj({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
                "spec": {"nodeName": "n"}, "status": st})


def _exited(code: int) -> dict:
    return {"name": "c", "lastState": {"terminated": {"exitCode": code}}}


@pytest.mark.parametrize("name,pod,want", [
    ("no container statuses", _pod(), False),
    ("init container exited with a non-zero code", _pod(init=[_exited(1)], main=[{"name": "c"}]), True),
    ("main container exited with a non-zero code", _pod(main=[{"name": "a"}, _exited(137)]), True),
    ("containers exited with zero", _pod(init=[_exited(0)], main=[_exited(0)]), False),
])
def test_has_any_container_exited_erroneously(name, pod, want):
    """Mirrors ``TestHasAnyContainerExitedErroneously`` (init containers are read first)."""
    assert U.has_any_container_exited_erroneously(pod) is want


@pytest.mark.parametrize("name,statuses,started_not_ready,not_started", [
    ("started and ready", [{"started": True, "ready": True}], False, False),
    ("started, not ready", [{"started": True, "ready": False}], True, False),
    ("started, ready unset", [{"started": True}], True, False),
    ("started unset (startup probe)", [{"ready": False}], False, True),
    ("started false", [{"started": False, "ready": False}], False, True),
    ("no statuses", [], False, False),
])
def test_container_start_helpers(name, statuses, started_not_ready, not_started):
    """Mirrors ``TestHasAnyStartedButNotReadyContainer`` and ``TestHasAnyContainerNotStarted``."""
    pod = _pod(main=[{"name": "c", **s} for s in statuses])
    assert (U.started_not_ready(pod), U.not_started(pod)) == (started_not_ready, not_started)


# ----------------------------------------------------------------------------- pod/rollingupdate_test.go


@pytest.mark.parametrize("name,pod,want", [
    ("pending pod", _pod(phase="Pending"), U.PENDING_POD),
    ("started but not ready", _pod(main=[{"name": "c", "started": True, "ready": False}]), U.UNHEALTHY_POD),
    ("ready but an init container crashed once", _pod(init=[_exited(1)], main=[{"name": "c", "started": True,
                                                                                 "ready": True}], ready=True),
     U.UNHEALTHY_POD),
    ("ready", _pod(main=[{"name": "c", "started": True, "ready": True}], ready=True), U.READY_POD),
    ("starting (startup probe)", _pod(main=[{"name": "c", "ready": False}]), U.STARTING_POD),
    ("uncategorized", _pod(), U.OTHER_POD),
])
def test_compute_update_work_classes(name, pod, want):
    """Mirrors ``TestComputeUpdateWork``: the class of an old-hash pod."""
    assert U.classify_old_pod(pod) == want


# ----------------------------------------------------------------------------- podclique/reconcilestatus_test.go


def _pods(n_ready: int, n_err: int = 0, n_starting: int = 0, n_snr: int = 0) -> list[Obj]:
    out = [_pod(main=[{"name": "c", "started": True, "ready": True}], ready=True) for _ in range(n_ready)]
    out += [_pod(main=[{"name": "c", "started": False, **_exited(1)}]) for _ in range(n_err)]
    out += [_pod() for _ in range(n_starting)]
    out += [_pod(main=[{"name": "c", "started": True, "ready": False}]) for _ in range(n_snr)]
    return out


@pytest.mark.parametrize("name,scheduled,pods,status,reason", [
    ("0 < scheduled < MinAvailable breaches", 1, _pods(1), "True", "ScheduledReplicasBelowMinAvailable"),
    ("previously-healthy PCLQ loses all scheduled pods — breaches", 0, [], "True",
     "ScheduledReplicasBelowMinAvailable"),
    ("scheduled, one Ready and two still starting — not breached", 3, _pods(1, n_starting=2), "False",
     "SufficientReadyPods"),
    ("scheduled, two pods crashed — breached", 3, _pods(1, n_err=2), "True", "InsufficientReadyPods"),
    ("scheduled, two started but not Ready — breached", 3, _pods(1, n_snr=2), "True", "InsufficientReadyPods"),
])
def test_compute_min_available_breached_condition(name, scheduled, pods, status, reason):
    """Mirrors ``TestComputeMinAvailableBreachedConditionPartialScheduleRegression``
    (minAvailable 2), with the erroring / started-not-Ready pod categories."""
    pclq = _obj("PodClique", [])
    ready = sum(1 for p in pods if O.pod_ready(p))
    c = ST.compute_min_available_breached_condition(pclq, scheduled, ready, pods)
    assert (c["status"], c["reason"]) == (status, reason)


# ----------------------------------------------------------------------------- builders


def _pcs(raw: dict) -> PCS:
    return PCS(Obj(raw))


def _manifest(cliques: list[dict], groups: list[dict] | None = None, replicas: int = 1, **tmpl) -> dict:
    t = {"cliques": cliques, **tmpl}
    if groups:
        t["podCliqueScalingGroups"] = groups
    return {"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet", "metadata": {"name": "demo"},
            "spec": {"replicas": replicas, "template": t}}


def _clique(name: str, replicas: int = 2, **spec) -> dict:
    return {"name": name, "spec": {"roleName": name, "replicas": replicas,
                                   "podSpec": {"containers": [{"name": name, "image": f"img/{name}:1"}]}, **spec}}


def test_build_resource_strips_topology_annotation():
    """Mirrors ``TestBuildResource_StripsTopologyAnnotation`` (both builders): the
    annotation is not on the PodClique, but the hash label is the template's (which
    includes it)."""
    a = _clique("a")
    a["annotations"] = {"grove.io/topology-name": "zones", "keep": "1"}
    b = _clique("b")
    b["annotations"] = {"grove.io/topology-name": "zones"}
    pcs = _pcs(_manifest([a, b], groups=[{"name": "sg", "cliqueNames": ["b"]}]))
    standalone = O.build_standalone_pclq(pcs, 0, pcs.clique_by_name["a"])
    member = O.build_member_pclq(pcs, 0, pcs.groups[0], 0, pcs.clique_by_name["b"])
    assert standalone["metadata"]["annotations"] == {"keep": "1"}
    assert member["metadata"]["annotations"] == {}
    assert standalone["metadata"]["labels"]["grove.io/pod-template-hash"] == pcs.clique_by_name["a"].template_hash
    plain = _pcs(_manifest([_clique("a"), _clique("b")]))
    assert pcs.clique_by_name["a"].template_hash != plain.clique_by_name["a"].template_hash


def test_clique_template_found_by_name_suffix():
    """``buildResource`` finds the template with ``strings.HasSuffix``: with ``worker``
    listed before ``leader-worker``, the ``leader-worker`` PodCliques are built from
    ``worker``'s template (what the plan creates), and the hazard is warned about."""
    pcs = _pcs(_manifest([_clique("worker", 3), _clique("leader-worker", 1)]))
    raw = O.build_standalone_pclq(pcs, 0, pcs.clique_by_name["leader-worker"])
    assert raw["metadata"]["name"] == "demo-0-leader-worker"
    assert raw["spec"]["roleName"] == "worker" and raw["spec"]["replicas"] == 3
    assert raw["metadata"]["labels"]["grove.io/pod-template-hash"] == pcs.clique_by_name["worker"].template_hash
    m = GroveModel()
    desired = Obj(_manifest([_clique("worker", 3), _clique("leader-worker", 1)]))
    p = simulate(m, desired, m.observe(desired, [], Environment()), Environment())
    pods = [a for s in p.steps for a in s.actions if a.verb == "create" and a.kind == "Pod"
            and "leader-worker" in a.name]
    assert len(pods) == 3  # worker's replicas, not leader-worker's 1
    assert "CliqueNameSuffixHazard" in {w.code for w in p.warnings}


# ----------------------------------------------------------------------------- hpa_test.go


@pytest.mark.parametrize("name,live_spec,want", [
    ("as built", {"minReplicas": 2, "maxReplicas": 5}, []),
    ("maxReplicas follows the template", {"minReplicas": 2, "maxReplicas": 4}, ["maxReplicas"]),
    ("minReplicas follows the template", {"minReplicas": 1, "maxReplicas": 5}, ["minReplicas"]),
    ("metrics read back with the API server default are unchanged",
     {"minReplicas": 2, "maxReplicas": 5, "metrics": default_hpa_metrics()}, []),
])
def test_hpa_build_resource_and_patch(name, live_spec, want):
    """Mirrors ``TestComputeExpectedHPAs`` / ``TestBuildResource``: one HPA per autoscaled
    standalone clique and replica, named after its target; a live HPA is patched to it."""
    pcs = _pcs(_manifest([_clique("a", autoScalingConfig={"minReplicas": 2, "maxReplicas": 5})], replicas=2))
    raw = O.build_hpa(pcs, "PodClique", "demo-1-a", {"minReplicas": 2, "maxReplicas": 5})
    assert raw["metadata"]["labels"]["app.kubernetes.io/component"] == "pcs-hpa"
    assert raw["spec"]["scaleTargetRef"] == {"apiVersion": "grove.io/v1alpha1", "kind": "PodClique",
                                             "name": "demo-1-a"}
    live = Obj({**raw, "spec": {"scaleTargetRef": raw["spec"]["scaleTargetRef"], **live_spec}})
    assert hpa_patch(live, raw) == want


# ----------------------------------------------------------------------------- podgang syncflow_test.go


def test_compute_expected_podgangs_base_gang_always_holds_min_available_replicas():
    """Mirrors ``TestComputeExpectedPodGangs``: the base gang lists scaling-group
    replicas ``0..minAvailable-1`` even when the live scaling group has fewer."""
    pcs = _pcs(_manifest([_clique("a"), _clique("b")], groups=[{"name": "sg", "cliqueNames": ["b"], "replicas": 3,
                                                                 "minAvailable": 2}]))
    gangs = _expected_podgangs(pcs, 1, (1,)).items
    assert [(g, [q for q, _m in groups]) for g, _i, groups in gangs] == [
        ("demo-0", ["demo-0-a", "demo-0-sg-0-b", "demo-0-sg-1-b"])]
    gangs = _expected_podgangs(pcs, 1, (3,)).items
    assert [g for g, _i, _groups in gangs] == ["demo-0", "demo-0-sg-0"]


def _pclq_obj(name: str, replicas: int) -> Obj:
    return Obj({"apiVersion": "grove.io/v1alpha1", "kind": "PodClique", "metadata": {"name": name,
               "namespace": "default"}, "spec": {"replicas": replicas}})


def _gang_pod(pclq: str, gang: str | None, k: int) -> Obj:
    labels = {"grove.io/podclique": pclq}
    if gang:
        labels["grove.io/podgang"] = gang
    return Obj({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"{pclq}-{k}", "namespace": "default",
                                                               "labels": labels}, "spec": {}, "status": {}})


@pytest.mark.parametrize("name,pclqs,pods,want", [
    ("all pods created and labelled", {"q": 2}, [("q", "g"), ("q", "g")], 0),
    ("a PodClique does not exist yet", {}, [], 1),
    ("one pod not created yet", {"q": 2}, [("q", "g")], 1),
    ("a pod not labelled with the PodGang yet", {"q": 2}, [("q", "g"), ("q", None)], 1),
    ("more pods than replicas, one unlabelled", {"q": 2}, [("q", "g"), ("q", "g"), ("q", None)], 1),
    ("a pod labelled for another PodGang", {"q": 1}, [("q", "other")], 1),
])
def test_get_pods_pending_creation_or_association(name, pclqs, pods, want):
    """Mirrors ``TestGetPodsPendingCreation`` / ``TestVerifyAllPodsCreated``."""
    from rolloutctl.core.world import World
    objs = [_pclq_obj(q, r) for q, r in pclqs.items()] + [_gang_pod(q, g, k) for k, (q, g) in enumerate(pods)]
    world = World(objs)
    by_pclq: dict = {}
    for p in objs:
        if p.kind == "Pod":
            by_pclq.setdefault(p.labels["grove.io/podclique"], []).append(p)
    assert pods_pending_creation_or_association(world, "default", "g", [("q", 1)], by_pclq) == want


# ----------------------------------------------------------------------------- plans on settled live worlds


def _plan(manifest: dict, observed: list[dict], **env):
    m = GroveModel()
    e = Environment(**env)
    desired = Obj(manifest)
    return simulate(m, desired, m.observe(desired, [Obj(o) for o in observed], e), e)


def _acts(plan, verb=None, kind=None):
    return [a for s in plan.steps for a in s.actions if (verb is None or a.verb == verb)
            and (kind is None or a.kind == kind)]


def test_hpa_follows_autoscaling_config_and_goes_with_it():
    """An HPA's ``maxReplicas`` follows ``autoScalingConfig`` (create-or-patch); removing
    the config deletes the HPA (``deleteExcessHPATasks``); no pod rolls either way."""
    old = _manifest([_clique("a", autoScalingConfig={"maxReplicas": 4}), _clique("b")])
    live = settled_world(old)
    new = copy.deepcopy(old)
    new["spec"]["template"]["cliques"][0]["spec"]["autoScalingConfig"]["maxReplicas"] = 6
    p = _plan(new, live)
    hpa = _acts(p, "update", "HorizontalPodAutoscaler")
    assert [a.name for a in hpa] == ["demo-0-a"] and "maxReplicas" in hpa[0].fields["changed"]
    assert hpa[0].payload["spec"]["maxReplicas"] == 6
    assert not _acts(p, "delete", "Pod")
    gone = copy.deepcopy(old)
    del gone["spec"]["template"]["cliques"][0]["spec"]["autoScalingConfig"]
    p = _plan(gone, live)
    assert [a.name for a in _acts(p, "delete", "HorizontalPodAutoscaler")] == ["demo-0-a"]


def test_headless_service_follows_config_and_stays_after_scale_in():
    """``publishNotReadyAddresses`` is patched into the live Services; scaling in keeps
    the removed replica's Service (upstream never deletes it) and warns, while its HPA
    goes."""
    old = _manifest([_clique("a", autoScalingConfig={"maxReplicas": 4})], replicas=2)
    live = settled_world(old)
    new = copy.deepcopy(old)
    new["spec"]["template"]["headlessServiceConfig"] = {"publishNotReadyAddresses": False}
    p = _plan(new, live)
    assert sorted(a.name for a in _acts(p, "update", "Service")) == ["demo-0", "demo-1"]
    down = copy.deepcopy(old)
    down["spec"]["replicas"] = 1
    p = _plan(down, live)
    assert not _acts(p, "delete", "Service")
    assert [a.name for a in _acts(p, "delete", "HorizontalPodAutoscaler")] == ["demo-1-a"]
    assert {a.name for a in _acts(p, "delete", "PodClique")} == {"demo-1-a"}
    w = [w for w in p.warnings if w.code == "HeadlessServiceLeftBehind"]
    assert w and "demo-1" in w[0].message


def _crash(world: list[dict], pclq: str, n: int, init: bool = False) -> list[dict]:
    """``n`` pods of ``pclq`` crash-loop (not Ready, last exit 1) and the PodClique's
    status says so, as its status reconcile writes it after it had been healthy."""
    out = copy.deepcopy(world)
    k = 0
    for o in out:
        if o["kind"] == "Pod" and o["metadata"]["labels"].get("grove.io/podclique") == pclq and k < n:
            k += 1
            st = o["status"]
            key = "initContainerStatuses" if init else "containerStatuses"
            st[key] = [{"name": "c", "ready": False, "started": False, "restartCount": 3,
                        "lastState": {"terminated": {"exitCode": 1}}}]
            st["conditions"] = [c if c["type"] != "Ready" else {**c, "status": "False"} for c in st["conditions"]]
    for o in out:
        if o["kind"] == "PodClique" and o["metadata"]["name"] == pclq:
            st = o["status"]
            st["readyReplicas"] -= n
            st["conditions"] = [c if c["type"] != "MinAvailableBreached" else
                                {**c, "status": "True", "reason": "InsufficientReadyPods",
                                 "lastTransitionTime": WELL_AFTER} for c in st["conditions"]]
    return out


def test_gang_termination_of_a_breached_replica_is_planned_as_steps():
    """Given a settled replica whose standalone clique crash-loops below minAvailable
    (init container exits 1; its pods never turn Ready), when the same manifest is
    planned, then the plan waits out terminationDelay and deletes every PodClique of
    that replica, which the operator recreates; the other replica is left alone."""
    old = _manifest([_clique("a", 2), _clique("b", 2)], groups=[{"name": "sg", "cliqueNames": ["b"]}], replicas=2)
    live = _crash(settled_world(old), "demo-1-a", 2, init=True)
    p = _plan(old, live, never_ready=("demo-1-a",))
    dels = _acts(p, "delete", "PodClique")
    assert {a.name for a in dels} == {"demo-1-a", "demo-1-sg-0-b"}
    assert all("terminationDelay (4h0m0s)" in a.reason for a in dels)
    assert dels[0] in p.steps[0].actions  # the breach is already there: the delay runs out first
    assert p.steps[0].title.startswith("gang termination of replica 1: delete 2 PodCliques")
    assert {a.name for a in _acts(p, "create", "PodClique")} == {"demo-1-a", "demo-1-sg-0-b"}
    # the recreated pods never turn Ready either, but without a crash they count as
    # starting: no second termination
    assert len({a.name for a in dels}) == len(dels)


def test_breach_that_never_was_scheduled_does_not_gang_terminate():
    """A PodClique that never reached PodCliqueScheduled=True (its pods have waited
    for a GPU since creation) is left alone (``WasPCLQEverScheduled``): the plan is
    stuck on capacity, no gang termination."""
    a = _clique("a", 2)
    a["spec"]["podSpec"]["containers"][0]["resources"] = {"requests": {"nvidia.com/gpu": "1"}}
    old = _manifest([a])
    live = settled_world(old)
    for o in live:
        if o["kind"] == "Pod":
            o["spec"].pop("nodeName")
            o["status"] = {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False"}]}
        if o["kind"] == "PodClique":
            o["status"].update(readyReplicas=0, scheduledReplicas=0)
            o["status"]["conditions"] = [
                {"type": "PodCliqueScheduled", "status": "False", "reason": "InsufficientScheduledPods",
                 "lastTransitionTime": WITHIN_GRACE},
                {"type": "MinAvailableBreached", "status": "True", "reason": "ScheduledReplicasBelowMinAvailable",
                 "lastTransitionTime": WITHIN_GRACE}]
    p = _plan(old, live, capacity={"nvidia.com/gpu": 0})
    assert not _acts(p, "delete", "PodClique")
    assert p.outcome == "stuck" and p.stuck.reason == "InsufficientCapacity"


def test_replica_with_a_missing_standalone_podclique_is_not_gang_terminated():
    """``getMinAvailableBreachedPCLQsNotInPCSG`` skips a replica whose standalone
    PodCliques are not all there: only the missing one is created."""
    old = _manifest([_clique("a", 2), _clique("c", 1)])
    live = [o for o in _crash(settled_world(old), "demo-0-a", 2)
            if not (o["kind"] == "PodClique" and o["metadata"]["name"] == "demo-0-c")]
    gang = GT.get_pcs_replica_deletion_work(PCS(Obj(old)), GroveModel().observe(Obj(old), [Obj(o) for o in live],
                                                                                 Environment()), None)
    assert gang.to_terminate == [] and gang.breached == {}


def test_scaling_group_replica_breach_recreates_only_that_replica():
    """A member breach in a scaling group that still meets its minAvailable is handled
    by the scaling-group controller: only that scaling-group replica's PodCliques are
    deleted (``processMinAvailableBreachedPCSGReplicas``)."""
    old = _manifest([_clique("a", 1), _clique("b", 2)],
                    groups=[{"name": "sg", "cliqueNames": ["b"], "replicas": 3, "minAvailable": 1}])
    live = _crash(settled_world(old), "demo-0-sg-2-b", 2)
    p = _plan(old, live, never_ready=("demo-0-sg-2-b",))
    assert {a.name for a in _acts(p, "delete", "PodClique")} == {"demo-0-sg-2-b"}
    assert all("scaling-group replica demo-0-sg/2" in a.reason for a in _acts(p, "delete", "PodClique"))


def test_breach_during_the_plan_is_a_step_then_the_termination():
    """Given a settled replica whose pods lost their node and cannot be placed again
    (no free GPU), when the plan runs, then step 1 records the breach
    (MinAvailableBreached=True, naming terminationDelay), terminationDelay passes as
    the plan would otherwise stand still, and the next step gang-terminates the
    replica; the recreated PodCliques were never scheduled, so no second termination."""
    a = _clique("a", 2)
    a["spec"]["podSpec"]["containers"][0]["resources"] = {"requests": {"nvidia.com/gpu": "1"}}
    old = _manifest([a], replicas=2)
    live = settled_world(old)
    for o in live:
        if o["kind"] == "Pod" and o["metadata"]["labels"].get("grove.io/podclique") == "demo-1-a":
            o["spec"].pop("nodeName")
            o["status"] = {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
                                                               "reason": "Unschedulable"}]}
    p = _plan(old, live, capacity={"nvidia.com/gpu": 2000})
    first = p.steps[0]
    breach = [a for a in first.actions if a.verb == "status" and a.kind == "PodClique"]
    assert [a.name for a in breach] == ["demo-1-a"] and "terminationDelay (4h0m0s)" in breach[0].reason
    assert any("terminationDelay (4h0m0s) passes" in w for w in first.wait_for)
    second = p.steps[1]
    assert [(a.verb, a.name) for a in second.actions if a.kind == "PodClique"] == [("delete", "demo-1-a")]
    assert len(_acts(p, "delete", "PodClique")) == 1
    assert p.outcome == "stuck" and p.stuck.reason == "InsufficientCapacity"


# ----------------------------------------------------------------------------- more ports


def test_mutate_min_available_breached_condition_clears_gang_termination_in_progress():
    """Mirrors ``TestMutateMinAvailableBreachedConditionClearsGangTerminationInProgress``:
    once the scaling group's breach clears, the flag goes (the next breach can fire)."""
    pcs = _pcs(_manifest([_clique("a", 1)], groups=[{"name": "sg", "cliqueNames": ["a"], "replicas": 1}]))
    pcsg = Obj({"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueScalingGroup",
                "metadata": {"name": "demo-0-sg", "namespace": "default",
                             "labels": {"grove.io/podcliqueset-replica-index": "0"}},
                "spec": {"replicas": 1, "minAvailable": 1, "cliqueNames": ["a"]},
                "status": {"conditions": [_cond("MinAvailableBreached", "True", WELL_AFTER),
                                          _cond("GangTerminationInProgress", "True")]}})
    member = Obj({"apiVersion": "grove.io/v1alpha1", "kind": "PodClique",
                  "metadata": {"name": "demo-0-sg-0-a", "namespace": "default",
                               "labels": {"grove.io/podcliquescalinggroup": "demo-0-sg",
                                          "grove.io/podcliquescalinggroup-replica-index": "0"}},
                  "spec": {"replicas": 1, "minAvailable": 1},
                  "status": {"readyReplicas": 1, "conditions": [_cond("PodCliqueScheduled", "True"),
                                                                _cond("MinAvailableBreached", "False")]}})
    types = {c["type"]: c["status"] for c in ST.pcsg_status(pcs, pcsg, [member], None)["conditions"]}
    assert types == {"MinAvailableBreached": "False"}
    still = Obj({**member.raw, "status": {"readyReplicas": 0, "conditions": [
        _cond("PodCliqueScheduled", "True"), _cond("MinAvailableBreached", "True")]}})
    types = {c["type"]: c["status"] for c in ST.pcsg_status(pcs, pcsg, [still], None)["conditions"]}
    assert types == {"MinAvailableBreached": "True", "GangTerminationInProgress": "True"}


@pytest.mark.parametrize("name,live_replicas,want", [
    ("no live scaling group: the template's replicas", None, ["demo-0", "demo-0-sg-0"]),
    ("a live scaling group scaled out by its HPA", 4, ["demo-0", "demo-0-sg-0", "demo-0-sg-1", "demo-0-sg-2"]),
    ("a live scaling group scaled in to minAvailable", 1, ["demo-0"]),
])
def test_determine_pcsg_replicas(name, live_replicas, want):
    """Mirrors ``TestDeterminePCSGReplicas``: scaled PodGangs follow the live scaling
    group's ``spec.replicas``, the template's when there is none."""
    from rolloutctl.core.world import World
    pcs = _pcs(_manifest([_clique("a")], groups=[{"name": "sg", "cliqueNames": ["a"], "replicas": 2,
                                                  "minAvailable": 1}]))
    objs = []
    if live_replicas is not None:
        objs.append(Obj({"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueScalingGroup",
                         "metadata": {"name": "demo-0-sg", "namespace": "default"},
                         "spec": {"replicas": live_replicas}}))
    assert [g for g, _i, _groups in expected_podgangs(pcs, World(objs))] == want


@pytest.mark.parametrize("name,startup,j,clique,want", [
    ("in order, first clique", "CliqueStartupTypeInOrder", 0, "a", []),
    ("in order, base-gang replica depends on the previous clique's base PodCliques", "CliqueStartupTypeInOrder", 0,
     "c", ["demo-0-sg-0-b", "demo-0-sg-1-b"]),
    ("in order, scaled replica depends only inside its own scaling-group replica", "CliqueStartupTypeInOrder", 2,
     "c", ["demo-0-sg-2-b"]),
    ("in order, scaled replica whose parent is outside the group", "CliqueStartupTypeInOrder", 2, "b", []),
    ("in order, base-gang replica whose parent is standalone", "CliqueStartupTypeInOrder", 1, "b", ["demo-0-a"]),
    ("explicit, base-gang replica", "CliqueStartupTypeExplicit", 1, "c", ["demo-0-a"]),
    ("explicit, scaled replica drops a parent outside the group", "CliqueStartupTypeExplicit", 2, "c", []),
    ("any order", "CliqueStartupTypeAnyOrder", 0, "c", []),
])
def test_identify_fully_qualified_startup_dependency_names(name, startup, j, clique, want):
    """Mirrors ``TestIdentifyFullyQualifiedStartupDependencyNames`` (scaling-group
    member PodCliques; minAvailable 2)."""
    c = _clique("c", 1)
    if startup == "CliqueStartupTypeExplicit":
        c["spec"]["startsAfter"] = ["a"]
    pcs = _pcs(_manifest([_clique("a", 1), _clique("b", 1), c], cliqueStartupType=startup,
                         groups=[{"name": "sg", "cliqueNames": ["b", "c"], "replicas": 3, "minAvailable": 2}]))
    got = pcs.member_starts_after(0, pcs.groups[0], j, pcs.clique_by_name[clique])
    assert got == want


@pytest.mark.parametrize("name,members,scheduled,available", [
    ("every member scheduled and ready", [("True", 1), ("True", 1)], 1, 1),
    ("a member not scheduled", [("True", 1), ("False", 0)], 0, 0),
    ("scheduled, a member below minAvailable ready", [("True", 1), ("True", 0)], 1, 0),
    ("a member missing", [("True", 1)], 0, 0),
])
def test_compute_replica_status(name, members, scheduled, available):
    """Mirrors ``TestComputeReplicaStatus``: a scaling-group replica is scheduled when
    all its members are PodCliqueScheduled, available when each also has minAvailable
    Ready pods; an incomplete replica counts as neither."""
    pcs = _pcs(_manifest([_clique("a", 1), _clique("b", 1)],
                         groups=[{"name": "sg", "cliqueNames": ["a", "b"], "replicas": 1}]))
    pcsg = Obj({"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueScalingGroup",
                "metadata": {"name": "demo-0-sg", "namespace": "default",
                             "labels": {"grove.io/podcliqueset-replica-index": "0"}},
                "spec": {"replicas": 1, "minAvailable": 1, "cliqueNames": ["a", "b"]}, "status": {}})
    objs = [Obj({"apiVersion": "grove.io/v1alpha1", "kind": "PodClique",
                 "metadata": {"name": f"demo-0-sg-0-{cn}", "namespace": "default",
                              "labels": {"grove.io/podcliquescalinggroup": "demo-0-sg",
                                         "grove.io/podcliquescalinggroup-replica-index": "0"}},
                 "spec": {"replicas": 1, "minAvailable": 1},
                 "status": {"readyReplicas": ready, "conditions": [_cond("PodCliqueScheduled", sched)]}})
            for cn, (sched, ready) in zip("ab", members)]
    st = ST.pcsg_status(pcs, pcsg, objs, None)
    assert (st["scheduledReplicas"], st["availableReplicas"]) == (scheduled, available)
