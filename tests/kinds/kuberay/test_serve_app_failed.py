"""A Serve application a live snapshot records as failed stays failed: Ray Serve deploys a
config when it is submitted, and the controller resubmits only a config that differs from
its cache (``rayservice_controller.go#checkIfNeedSubmitServeApplications``), so a pending
cluster whose application is DEPLOY_FAILED is never ready and the Services never switch."""

from __future__ import annotations

from rolloutctl.core.model import Obj

from .helpers import base, new_image, plan, settled, steps


def _mid_upgrade_with_a_failed_app():
    old, new = base(), new_image(base())
    world = settled(old)
    for n in range(1, 12):
        w = steps(new, world, n)
        pending = [o for o in w.of_kind("ServeApplications")
                   if o.name == (w.get("RayService", "ml-serving", "text-ml").status.get("pendingServiceStatus")
                                 or {}).get("rayClusterName")]
        if pending and pending[0].status.get("applications"):
            sa = pending[0]
            raw = dict(sa.raw)
            raw["status"] = {"applications": {**sa.status["applications"],
                                              "summarize": {"status": "DEPLOY_FAILED", "message": "import error"}}}
            return new, w.replace(put=[Obj(raw)]), sa.name
    raise AssertionError("the pending cluster never got its Serve applications")


def test_a_failed_application_on_the_pending_cluster_holds_the_switch():
    new, world, pending = _mid_upgrade_with_a_failed_app()
    run = plan(new, world)
    assert run.plan.outcome == "stuck"
    assert run.plan.stuck.reason == "ServeApplicationFailed"
    assert "summarize DEPLOY_FAILED (import error)" in run.plan.stuck.message
    assert "pending" in run.plan.stuck.message
    switched = [a for a in run.actions if a.kind == "Service" and a.verb == "update"]
    deleted = [a for a in run.actions if a.kind == "RayCluster" and a.verb == "delete"]
    assert switched == [] and deleted == []
    sa = run.world.get("ServeApplications", "ml-serving", pending)
    assert sa.status["applications"]["summarize"]["status"] == "DEPLOY_FAILED"


def test_a_new_config_is_submitted_and_deploys():
    """Changing serveConfigV2 resubmits it (the cache differs): the applications deploy again."""
    new, world, pending = _mid_upgrade_with_a_failed_app()
    fixed = dict(new)
    fixed["spec"] = {**new["spec"], "serveConfigV2": new["spec"]["serveConfigV2"].replace(
        "text_ml.summarize:app", "text_ml.summarize_v2:app")}
    run = plan(fixed, world)
    assert run.plan.outcome == "converged", run.plan.stuck
    first = run.plan.steps[0]
    assert [(a.verb, a.kind) for a in first.actions if not a.hidden][0] == ("update", "ServeApplications")
    assert "(pending)" in first.title  # resubmitted to the pending cluster, which then takes the traffic
    assert any(a.kind == "Service" and a.verb == "update" for a in run.actions)


def _serve_service_impact(cli, tmp_path, new: dict, old: dict) -> dict:
    import json

    import yaml

    from tests.conftest import write

    n, o = write(tmp_path, "new.yaml", yaml.safe_dump(new)), write(tmp_path, "old.yaml", yaml.safe_dump(old))
    doc = json.loads(cli("diff", n, "--live", o, "-o", "json").stdout)
    (impact,) = [i for ob in doc["objects"] for i in ob["impact"] if "spec.serveService" in i["paths"]]
    return impact


def test_a_serve_service_edit_travels_with_a_rollout_and_waits_otherwise(cli, tmp_path):
    """``reconcileServices`` rebuilds the serve Service's spec from ``serveService`` when it
    re-points it at another cluster: the edit lands at this change's switch, or the next one."""
    from .helpers import edit, incremental

    def node_port(d: dict) -> None:
        d["spec"]["serveService"] = {"spec": {"type": "NodePort"}}

    old = base()
    with_image = _serve_service_impact(cli, tmp_path, edit(new_image(old), node_port), old)
    assert with_image["effect"] == "rollout" and "switches to the new cluster" in with_image["message"]
    alone = _serve_service_impact(cli, tmp_path, edit(old, node_port), old)
    assert alone["effect"] == "ignored" and alone["message"].startswith("deferred:")
    inc = incremental(old)
    per_cluster = _serve_service_impact(cli, tmp_path, edit(new_image(inc), node_port), inc)
    assert per_cluster["effect"] == "ignored" and "serveService is not read" in per_cluster["message"]


def test_no_requeue_schedules_no_timer():
    """A pass that fails validation returns without a requeue (rayservice_controller.go
    Reconcile): the old cluster's deletion deadline, which the controller keeps only in
    memory, brings no pass, so the dangling cluster stays until some event."""
    from rolloutctl.kinds.kuberay.api import deletion_timers

    from .helpers import edit

    old, new = base(), new_image(base())
    world = settled(old)
    for n in range(1, 20):
        w = steps(new, world, n)
        timers = deletion_timers(w)
        if timers:
            break
    else:
        raise AssertionError("no dangling cluster")
    (dangling, deadline), = timers.items()
    w = w.replace(now=deadline - 30)  # the switch is done, the deletion deadline 30 s ahead

    def invalid(d: dict) -> None:  # idleTimeoutSeconds needs autoscaler v2 (validateRayService)
        d["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["idleTimeoutSeconds"] = 60

    run = plan(edit(new, invalid), w)
    assert run.plan.stuck is not None and run.plan.stuck.reason == "ValidationFailed"
    assert not [a for a in run.actions if a.kind == "RayCluster" and a.verb == "delete"]
    assert dangling in [o.name for o in run.world.of_kind("RayCluster") if not o.terminating]
    assert run.plan.outcome == "stuck" and run.plan.steps[-1].time < deadline
