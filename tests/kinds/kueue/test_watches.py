"""Kueue's controllers declare their watches as data (``controllers.CONTROLLERS``, each
next to its rules, as upstream's ``SetupWithManager`` declares it): every kind a Kueue
controller reads while it runs, over the bundled Kueue samples in the three integration
models, is either watched by that controller or listed in its ``NOT_WATCHED`` with the
reason; and the event handlers map events to the keys upstream's handlers enqueue
(controller owner references, the queue manager's queues, the chain's active slice)."""

from __future__ import annotations

import pytest

from rolloutctl.core.model import Obj
from rolloutctl.core.world import World
from rolloutctl.kinds.kuberay.api import RC, RS
from rolloutctl.kinds.kueue import controllers, elastic_job_ungater, model, raycluster_webhook
from rolloutctl.kinds.kueue import rayservice_controller as kueue_rs
from rolloutctl.kinds.kueue import reconciler, scheduler
from rolloutctl.kinds.kueue.constants import CQ, LQ, RF, WL, WPC
from rolloutctl.kinds.kueue.context import MODELS
from rolloutctl.kinds.kueue.controllers import CONTROLLERS, JOB_CONTROLLERS, NOT_WATCHED

from .helpers import edit, not_elastic, obj, plan, queues, queues_two, rs, rs_new_image

RS_JOBS, RC_JOBS = kueue_rs.CONTROLLER.name, reconciler.CONTROLLER.name
SCHED, UNGATER = scheduler.SCHEDULER.name, elastic_job_ungater.CONTROLLER.name
GLUE, WEBHOOK = "run_pass", "webhook"


# --------------------------------------------------------------------------- what each controller reads


def _record_reads(monkeypatch, runs) -> dict[str, set[str]]:
    """Plan ``runs`` (mode, desired, observed, desired queues) while recording the kinds
    each Kueue controller reads from the world: a read belongs to the innermost
    controller function running (the job reconciler by the job's kind)."""
    stack: list[str] = []
    reads: dict[str, set[str]] = {}

    def wrap_read(name):
        orig = getattr(World, name)

        def method(self, kind, *args, **kwargs):
            if stack:
                reads.setdefault(stack[-1], set()).add(kind)
            return orig(self, kind, *args, **kwargs)

        monkeypatch.setattr(World, name, method)

    for name in ("get", "of_kind", "index", "select"):
        wrap_read(name)

    def attribute(module, fname, who):
        orig = getattr(module, fname)

        def fn(*args, **kwargs):
            stack.append(who(*args))
            try:
                return orig(*args, **kwargs)
            finally:
                stack.pop()

        monkeypatch.setattr(module, fname, fn)

    attribute(controllers, "reconcile_generic_job", lambda p, job: JOB_CONTROLLERS[job.kind].name)
    attribute(controllers, "finalize_workloads", lambda p: RC_JOBS)
    attribute(controllers, "suspend_children", lambda p: RC_JOBS)
    attribute(controllers, "schedule", lambda p: SCHED)
    attribute(controllers, "unsuspend_admitted_children", lambda p: RS_JOBS)
    attribute(raycluster_webhook, "default", lambda p, rc: WEBHOOK)
    attribute(model, "ungate", lambda mode, world, rs_: UNGATER)
    attribute(model, "run_pass", lambda *a: GLUE)
    for mode, desired, observed, desired_queues in runs:
        plan(mode, desired, observed=observed, desired_queues=desired_queues)
    return reads


def _with_priority_class(raw: dict) -> dict:
    return edit(raw, lambda d: d["metadata"]["labels"].__setitem__("kueue.x-k8s.io/priority-class", "serving"))


WPC_OBJ = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": WPC, "metadata": {"name": "serving"}, "value": 1000}


def _runs():
    """The bundled samples in every model: creation, the upgrade that fits (two-cluster
    quota), the one that does not, the same without the elastic-job annotation, and a
    RayService with a WorkloadPriorityClass."""
    out = []
    for m in MODELS:
        out += [
            (m, rs(), queues(), None),
            (m, rs_new_image(), [rs()] + queues(), queues_two()),
            (m, rs_new_image(), [rs()] + queues(), None),
            (m, not_elastic(rs_new_image()), [not_elastic(rs())] + queues(), queues_two()),
            (m, _with_priority_class(rs()), queues() + [WPC_OBJ], None),
        ]
    return out


@pytest.fixture(scope="module")
def reads():
    mp = pytest.MonkeyPatch()
    try:
        yield _record_reads(mp, _runs())
    finally:
        mp.undo()


@pytest.mark.parametrize("ctl", CONTROLLERS, ids=lambda c: c.name)
def test_every_kind_a_controller_reads_is_watched_or_said_why_not(reads, ctl):
    watched = {w.kind for w in ctl.watches}
    not_watched = set(NOT_WATCHED[ctl.name])
    assert ctl.kind in watched
    assert not watched & not_watched
    assert reads.get(ctl.name, set()) == watched | not_watched, (ctl.name, reads.get(ctl.name), watched, not_watched)
    assert all(".go#" in w.upstream for w in ctl.watches) and ".go#" in ctl.upstream
    assert all(reason for reason in NOT_WATCHED[ctl.name].values())


def test_the_pass_lists_only_the_jobs_and_the_webhooks_read_nothing(reads):
    """Outside the controllers, the pass reads only the jobs (the RayService, its
    RayClusters: the job reconcilers' ``For`` kinds); the RayCluster webhook reads
    nothing but the request and whether the default WorkloadPriorityClass exists
    (``ApplyDefaultWorkloadPriorityClass`` -> ``DefaultWorkloadPriorityClassExist``, a
    client Get inside the request)."""
    assert reads.get(GLUE, set()) <= {c.kind for c in JOB_CONTROLLERS.values()}
    assert reads.get(WEBHOOK, set()) <= {"WorkloadPriorityClass"}


def test_every_controller_is_declared_once():
    assert len({c.name for c in CONTROLLERS}) == len(CONTROLLERS) == len(NOT_WATCHED)
    assert set(NOT_WATCHED) == {c.name for c in CONTROLLERS}
    assert {k: c.kind for k, c in JOB_CONTROLLERS.items()} == {RS: RS, RC: RC}


# --------------------------------------------------------------------------- the job reconcilers


def _owned(kind: str, refs: list[dict], **extra) -> Obj:
    return Obj({"apiVersion": "v1", "kind": kind, "metadata": {"name": "x", "namespace": "default",
                                                              "ownerReferences": refs, **extra}})


def _handler(ctl, kind):
    (w,) = [w for w in ctl.watches if w.kind == kind]
    return w.enqueue


def test_the_job_reconciler_watches_its_job_without_predicates():
    """``For(newJob().Object())`` has no predicate: unlike KubeRay's controller, a
    status-only update of the RayService (KubeRay writing its status) enqueues it."""
    old = obj(rs())
    new = Obj(edit(rs(), lambda d: d.__setitem__("status", {"serviceStatus": "Running"})))
    on_rs = _handler(kueue_rs.CONTROLLER, RS)
    assert on_rs(old, new, World([new])) == ["test-rayservice"]
    assert on_rs(None, new, World()) == ["test-rayservice"] and on_rs(old, None, World()) == ["test-rayservice"]


def test_owned_workloads_and_clusters_enqueue_their_controller_owner():
    ctrl = {"apiVersion": "ray.io/v1", "kind": RS, "name": "test-rayservice", "controller": True}
    plain = {"apiVersion": "ray.io/v1", "kind": RS, "name": "other"}
    rc_owner = {"apiVersion": "ray.io/v1", "kind": RC, "name": "rc-1", "controller": True}
    w = World()
    assert _handler(kueue_rs.CONTROLLER, WL)(None, _owned(WL, [ctrl, plain]), w) == ["test-rayservice"]
    assert _handler(kueue_rs.CONTROLLER, RC)(_owned(RC, [plain]), None, w) == []
    assert _handler(kueue_rs.CONTROLLER, WL)(None, _owned(WL, [rc_owner]), w) == []
    assert _handler(reconciler.CONTROLLER, WL)(_owned(WL, [rc_owner]), None, w) == ["rc-1"]
    moved = dict(ctrl, name="new-owner")
    assert _handler(kueue_rs.CONTROLLER, RC)(_owned(RC, [ctrl]), _owned(RC, [moved]), w) == \
        ["test-rayservice", "new-owner"]


@pytest.mark.parametrize("mode", MODELS)
def test_planned_objects_map_to_the_job_that_reconciles_them(mode):
    """On the objects a plan leaves (KubeRay's RayClusters, Kueue's Workloads), each
    Workload enqueues the job it was created for and each RayCluster its RayService."""
    run = plan(mode, rs_new_image(), observed=[rs()] + queues(), desired_queues=queues_two())
    w = run.world
    kids = [c for c in w.of_kind(RC)]
    wls = [x for x in w.of_kind(WL) if x.name.startswith(("rayservice-", "raycluster-"))]
    assert kids and wls
    for c in kids:
        assert _handler(kueue_rs.CONTROLLER, RC)(None, c, w) == ["test-rayservice"]
        assert _handler(reconciler.CONTROLLER, RC)(None, c, w) == [c.name]
    job_kind = RC if mode == "legacy" else RS
    for x in wls:
        (ref,) = x.owner_references
        assert ref["kind"] == job_kind and ref["controller"] is True
        assert _handler(JOB_CONTROLLERS[job_kind], WL)(None, x, w) == [ref["name"]]
        other = JOB_CONTROLLERS[RS if job_kind == RC else RC]
        assert _handler(other, WL)(None, x, w) == []
    if mode != "legacy":
        assert {x.owner_references[0]["name"] for x in wls} == {"test-rayservice"}


# --------------------------------------------------------------------------- the scheduler's queues


def _wl(name: str, queue: str = "user-queue", ns: str = "default", reserved_in: str | None = None,
        finished: bool = False) -> Obj:
    conds = []
    st: dict = {}
    if reserved_in:
        st["admission"] = {"clusterQueue": reserved_in, "podSetAssignments": []}
        conds += [{"type": "QuotaReserved", "status": "True"}, {"type": "Admitted", "status": "True"}]
    if finished:
        conds.append({"type": "Finished", "status": "True"})
    st["conditions"] = conds
    return Obj({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": WL, "metadata": {"name": name, "namespace": ns},
                "spec": {"queueName": queue, "podSets": []}, "status": st})


def _queues_world(*wls: Obj) -> World:
    extra = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": LQ,
             "metadata": {"name": "other-queue", "namespace": "default"}, "spec": {"clusterQueue": "other-cq"}}
    return World([obj(q) for q in queues()] + [obj(extra)] + list(wls))


def test_a_pending_workload_enters_the_queue_and_leaves_it_when_admitted():
    on_wl = _handler(scheduler.SCHEDULER, WL)
    p = _wl("a")
    w = _queues_world(p)
    assert on_wl(None, p, w) == ["a"]
    assert on_wl(p, p, w) == ["a"]  # pending -> pending: AddOrUpdateWorkload
    admitted = _wl("a", reserved_in="cluster-queue")
    assert on_wl(p, admitted, _queues_world(admitted)) == []
    assert on_wl(None, _wl("f", finished=True), w) == []


def test_a_released_reservation_requeues_the_pending_workloads_of_its_cluster_queue():
    on_wl = _handler(scheduler.SCHEDULER, WL)
    held = _wl("held", reserved_in="cluster-queue")
    mine, theirs = _wl("mine"), _wl("theirs", queue="other-queue")
    w = _queues_world(mine, theirs)
    assert on_wl(held, None, w) == ["mine"]  # deleted
    assert on_wl(held, _wl("held", reserved_in="cluster-queue", finished=True), w) == ["mine"]
    assert on_wl(held, _wl("held"), _queues_world(_wl("held"), mine, theirs)) == ["held", "mine"]  # evicted, requeued


def test_queue_and_flavor_events_retry_the_workloads_they_concern():
    mine, theirs = _wl("mine"), _wl("theirs", queue="other-queue")
    w = _queues_world(mine, theirs, _wl("done", reserved_in="cluster-queue"))
    cq, lq, rf = (obj(q) for q in sorted(queues(), key=lambda d: [CQ, LQ, RF].index(d["kind"])))
    assert _handler(scheduler.SCHEDULER, CQ)(cq, cq, w) == ["mine"]
    assert _handler(scheduler.SCHEDULER, LQ)(None, lq, w) == ["mine"]
    assert _handler(scheduler.SCHEDULER, RF)(rf, None, w) == ["mine"]
    other = Obj({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": RF, "metadata": {"name": "spot"}})
    assert _handler(scheduler.SCHEDULER, RF)(None, other, w) == []


# --------------------------------------------------------------------------- the elastic-job ungater


def test_the_ungater_keys_by_the_chain_s_active_slice():
    run = plan("top-level", rs(), observed=queues())
    w = run.world
    (active,) = [x for x in w.of_kind(WL) if x.name.startswith("rayservice-")]
    on_wl = _handler(elastic_job_ungater.CONTROLLER, WL)
    assert elastic_job_ungater.should_ungate(active)
    assert on_wl(None, active, w) == [active.name]
    assert on_wl(active, None, w) == []  # Delete: the predicate is false
    pending = Obj(edit(dict(active.raw), lambda d: d.__setitem__("status", {})))
    assert on_wl(active, pending, w) == []  # not admitted: shouldUngate is false
    plain = Obj(edit(dict(active.raw), lambda d: d["metadata"].pop("annotations")))
    assert on_wl(None, plain, w) == []  # not an elastic Workload
    (rc,) = [c for c in w.of_kind(RC)]
    on_rc = _handler(elastic_job_ungater.CONTROLLER, RC)
    assert on_rc(None, rc, w) == [active.name]
    stranger = Obj(edit(dict(rc.raw), lambda d: d["metadata"]["labels"].__setitem__("ray.io/originated-from-cr-name",
                                                                                      "someone-else")))
    assert on_rc(None, stranger, w) == []


# --------------------------------------------------------------------------- the watches suffice


def _events(before: World, after: World):
    """The changes from ``before`` to ``after``, as (old, new) per key."""
    out = []
    for k in sorted(set(before.keys()) | set(after.keys())):
        a, b = before.get(*k), after.get(*k)
        if (a.raw if a is not None else None) != (b.raw if b is not None else None):
            out.append((k, a, b))
    return out


def _enqueued(ctl, before: World, after: World) -> set[str]:
    out: set[str] = set()
    for k, old, new in _events(before, after):
        for w in ctl.watches:
            if w.kind == k[0]:
                got = w.enqueue(old, new, after)
                assert got is not None
                out.update(got)
    return out


@pytest.mark.parametrize("mode", MODELS)
def test_a_controller_writes_only_on_a_key_its_watches_enqueued(monkeypatch, mode):
    """Replaying the worlds each controller saw: whenever the job reconciler writes for a
    job, or the scheduler admits or requeues a Workload, that key was enqueued by the
    events since the controller last ran (its first run lists every key, as an
    informer's initial list does). So a work queue fed by these watches would reconcile
    every key on which the model's pass acts."""
    seen: dict[tuple[str, str], World] = {}
    checked: list[str] = []

    def job_pass(p, job):
        ctl = JOB_CONTROLLERS[job.kind]
        before, n = seen.get((ctl.name, job.name)), len(p.actions)
        now = p.w
        seen[(ctl.name, job.name)] = now
        orig_rgj(p, job)
        if before is not None and len(p.actions) > n:
            assert job.name in _enqueued(ctl, before, now), (ctl.name, job.name, [a.rule for a in p.actions[n:]])
            checked.append(ctl.name)

    def sched_pass(p):
        ctl = scheduler.SCHEDULER
        before, n = seen.get((ctl.name, "")), len(p.actions)
        now = p.w
        seen[(ctl.name, "")] = now
        orig_schedule(p)
        if before is not None:
            keys = {a.uid or a.name for a in p.actions[n:] if a.rule.endswith(("#admit", "#requeueAndUpdate"))}
            enq = _enqueued(ctl, before, now)
            assert keys <= enq, (keys, enq)
            checked.extend(ctl.name for _ in keys)

    orig_rgj, orig_schedule = controllers.reconcile_generic_job, controllers.schedule
    monkeypatch.setattr(controllers, "reconcile_generic_job", job_pass)
    monkeypatch.setattr(controllers, "schedule", sched_pass)
    for _m, desired, observed, desired_queues in [r for r in _runs() if r[0] == mode]:
        seen.clear()
        plan(mode, desired, observed=observed, desired_queues=desired_queues)
    assert JOB_CONTROLLERS[RC if mode == "legacy" else RS].name in checked
