"""``checkIfNeedTargetCapacityUpdate`` moves traffic and target capacity only while the
Gateway is ready (``utils.IsGatewayReady``: Accepted and Programmed) and the HTTPRoute is
accepted by it with resolved references (``utils.IsHTTPRouteReady``). A live Gateway whose
implementation has not programmed it yet holds an incremental upgrade until it is (the
Gateway API implementation is assumed to program it after an interval, CONTRACT.md); one
with no status at all (created in the plan, or a hand-written snapshot) counts as ready."""

from __future__ import annotations

import copy

from rolloutctl.core.model import Obj
from rolloutctl.kinds.kuberay import utils as ku

from .helpers import base, incremental, new_image, plan, settled


def _conds(**status: str) -> list[dict]:
    return [{"type": t, "status": s, "reason": t} for t, s in status.items()]


def _with_status(world, kind: str, status: dict):
    o = world.of_kind(kind)[0]
    raw = copy.deepcopy(dict(o.raw))
    raw["status"] = status
    return world.replace(put=[Obj(raw, o.file, o.line)])


def _route_status(gateway: str, **conds: str) -> dict:
    return {"parents": [{"parentRef": {"name": gateway}, "controllerName": "istio.io/gateway-controller",
                         "conditions": _conds(**conds)}]}


def _traffic_moves(run) -> bool:
    return any(a.kind == "HTTPRoute" and (a.fields.get("weights") or {}).get("pending", 0) > 0 for a in run.actions)


def _capacity_moves(run) -> bool:
    return any(a.kind == "RayService" and a.verb == "status" and "targetCapacity" in str(a.fields) for a in run.actions)


def _first_traffic_step(run) -> int:
    return next(st.step for st in run.plan.steps if any(
        a.kind == "HTTPRoute" and (a.fields.get("weights") or {}).get("pending", 0) > 0 for a in st.actions))


def test_a_gateway_not_programmed_holds_the_upgrade_until_it_is_and_says_why():
    old = incremental(base())
    world = settled(old)
    gw = world.of_kind("Gateway")[0].name
    held = plan(new_image(old), _with_status(world, "Gateway",
                                             {"conditions": _conds(Accepted="True", Programmed="False")}))
    free = plan(new_image(old), world)
    assert held.plan.outcome == free.plan.outcome == "converged"
    ready_at = next(st.step for st in held.plan.steps
                    if any(f"Gateway {gw} becomes Accepted and Programmed" in w for w in st.wait_for))
    assert ready_at < _first_traffic_step(held)  # no traffic moves before the implementation programs it
    # it is programmed while the new cluster starts, so the rollout is the same as with a ready Gateway
    assert [st.title for st in held.plan.steps] == [st.title for st in free.plan.steps]
    assert not any("becomes Accepted" in w for st in free.plan.steps for w in st.wait_for)


def test_while_the_gateway_is_not_ready_target_capacity_is_held():
    """The pass itself: checkIfNeedTargetCapacityUpdate is False and says why."""
    from rolloutctl.kinds.kuberay.reconciler import Reconciler
    from rolloutctl.kinds.kuberay.incremental_upgrade import check_if_need_target_capacity_update
    from rolloutctl.kinds.kuberay.operator import DEFAULT_CONFIG

    old = incremental(base())
    world = settled(old)
    gw = world.of_kind("Gateway")[0].name
    rs = world.of_kind("RayService")[0]
    raw = copy.deepcopy(dict(rs.raw))
    raw["status"]["pendingServiceStatus"] = {"rayClusterName": "text-ml-pending", "targetCapacity": 0,
                                             "trafficRoutedPercent": 0}
    world = world.replace(put=[Obj(raw)])
    not_programmed = _with_status(world, "Gateway", {"conditions": _conds(Programmed="False")})
    not_accepted = _with_status(world, "HTTPRoute", _route_status(gw, Accepted="False", ResolvedRefs="True"))
    for w, ready, why in ((world, True, ""), (not_programmed, False, "IsGatewayReady"),
                          (not_accepted, False, "IsHTTPRouteReady")):
        r = Reconciler(Obj(new_image(old)), w, DEFAULT_CONFIG, "v1")
        assert check_if_need_target_capacity_update(r) is ready
        assert why in r.why and (ready or why)


def test_a_route_not_accepted_holds_the_upgrade_until_it_is():
    old = incremental(base())
    world = settled(old)
    gw = world.of_kind("Gateway")[0].name
    for status in (_route_status(gw, Accepted="False", ResolvedRefs="True"),
                   _route_status("another-gateway", Accepted="True", ResolvedRefs="True")):
        held = plan(new_image(old), _with_status(world, "HTTPRoute", status))
        waits = [w for st in held.plan.steps for w in st.wait_for]
        assert held.plan.outcome == "converged" and _traffic_moves(held)
        at = next(st.step for st in held.plan.steps if any("becomes Accepted with ResolvedRefs" in w for w in st.wait_for))
        assert at < _first_traffic_step(held)


def test_ready_gateway_and_route_upgrade_as_without_status():
    old = incremental(base())
    world = settled(old)
    gw = world.of_kind("Gateway")[0].name
    ready = _with_status(_with_status(world, "Gateway", {"conditions": _conds(Accepted="True", Programmed="True")}),
                         "HTTPRoute", _route_status(gw, Accepted="True", ResolvedRefs="True"))
    with_status, without = plan(new_image(old), ready), plan(new_image(old), world)
    assert _traffic_moves(with_status) and with_status.plan.outcome == "converged"
    assert [s.title for s in with_status.plan.steps] == [s.title for s in without.plan.steps]


def test_upstream_readiness_helpers():
    gw = {"metadata": {"name": "g", "namespace": "ns"},
          "status": {"conditions": _conds(Accepted="True", Programmed="True")}}
    assert ku.is_gateway_ready(gw)
    assert not ku.is_gateway_ready({"metadata": {"name": "g"}, "status": {"conditions": _conds(Accepted="True")}})
    assert not ku.is_gateway_ready(None)
    ok = _conds(Accepted="True", ResolvedRefs="True")
    assert ku.is_http_route_ready(gw, {"status": {"parents": [{"parentRef": {"name": "g"}, "conditions": ok}]}})
    # a parent entry for another Gateway, or another namespace, does not count
    assert not ku.is_http_route_ready(gw, {"status": {"parents": [{"parentRef": {"name": "h"}, "conditions": ok}]}})
    assert not ku.is_http_route_ready(gw, {"status": {"parents": [
        {"parentRef": {"name": "g", "namespace": "other"}, "conditions": ok}]}})
    assert ku.is_http_route_ready(gw, {"status": {"parents": [
        {"parentRef": {"name": "g", "namespace": "ns"}, "conditions": ok}]}})
    assert not ku.is_http_route_ready(gw, None)


def _with_target_capacity(raw: dict, value) -> dict:
    d = copy.deepcopy(raw)
    d["spec"]["serveConfigV2"] = f"target_capacity: {value}\n" + d["spec"]["serveConfigV2"]
    return d


def test_an_integer_target_capacity_in_the_serve_config_does_not_stop_an_incremental_upgrade():
    """applyServeTargetCapacity returns early only when the cached config's own
    target_capacity is a float64 that truncates to the goal. It unmarshals the config with
    k8s.io/apimachinery/pkg/util/yaml.Unmarshal into map[string]any, which turns every
    integral number into int64 (pkg/util/json convertNumber), so a user's
    `target_capacity: 100` (or 50, or 50.0) never matches: the upgrade runs as without it."""
    old = _with_target_capacity(incremental(base(), surge=50), 100)
    run = plan(new_image(old), settled(old))
    assert run.plan.outcome == "converged"
    half = _with_target_capacity(incremental(base(), surge=50), 50)
    assert plan(new_image(half), settled(half)).plan.outcome == "converged"


def test_a_fractional_target_capacity_in_the_serve_config_stops_an_incremental_upgrade():
    """A non-integral float stays float64 and is truncated to int32: 50.5 equals the goal
    50, so applyServeTargetCapacity returns early there and the upgrade stops."""
    from rolloutctl.kinds.kuberay.spec import serve_config_target_capacity

    old = _with_target_capacity(incremental(base(), surge=50), 50.5)
    run = plan(new_image(old), settled(old))
    assert run.plan.outcome == "stuck" and run.plan.stuck.reason == "TargetCapacityInServeConfig"
    assert "truncates to 50" in run.plan.stuck.message and run.plan.stuck.remedies
    assert [serve_config_target_capacity(c) for c in ("target_capacity: 50.9\n", "target_capacity: 50\n",
                                                     "target_capacity: 50.0\n", "target_capacity: '50'\n",
                                                     "target_capacity: true\n", "applications: []\n", ": bad")] == \
        [50, None, None, None, None, None, None]


def test_incremental_upgrade_ignores_serve_service_so_the_head_needs_a_serve_port(cli, tmp_path):
    """BuildServeService skips a custom serveService in incremental mode and builds each
    cluster's Service from the head's serve ports: with none, every pass fails upstream."""
    import yaml

    from tests.conftest import write

    raw = incremental(base())
    raw["spec"]["serveService"] = {"metadata": {"name": "custom-serve"}, "spec": {"ports": [{"name": "serve", "port": 8000}]}}
    head = raw["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    head["ports"] = [p for p in head["ports"] if not str(p.get("name", "")).startswith("serve")]
    path = write(tmp_path, "rs.yaml", yaml.safe_dump(raw))
    run = plan(raw)
    assert run.plan.outcome == "stuck" and run.plan.stuck.reason == "ServeServiceNotBuilt"
    assert "spec.serveService" not in " ".join(run.plan.stuck.remedies)
    lint = cli("lint", path, "-o", "json")
    assert "RS032" in lint.stdout
    blue_green = copy.deepcopy(raw)
    del blue_green["spec"]["upgradeStrategy"]
    assert plan(blue_green).plan.outcome == "converged"  # there the custom Service stands in


def test_a_live_traffic_move_counts_from_the_snapshots_time():
    """``calculateTrafficRoutedPercent`` moves traffic once ``time.Since(lastTrafficMigratedTime)
    >= intervalSeconds``. A live RFC 3339 stamp is read on the plan's clock, which starts at
    the snapshot's newest time: 20 s before it, with a 30 s interval, the next move is 10 s
    in; a stamp that is the newest time itself, 30 s in; no stamp at all, at once."""
    from rolloutctl.core.model import Warning
    from rolloutctl.kinds.kuberay.observe import _with_traffic_times

    def rs(last: str | None) -> Obj:
        pending = {"rayClusterName": "svc-b", "trafficRoutedPercent": 40}
        if last is not None:
            pending["lastTrafficMigratedTime"] = last
        return Obj({"apiVersion": "ray.io/v1", "kind": "RayService", "metadata": {"name": "svc"},
                    "status": {"pendingServiceStatus": pending, "lastUpdateTime": "2026-03-01T10:00:20Z"}})

    notes: list[Warning] = []
    from rolloutctl.core.timestamps import snapshot_time
    got = _with_traffic_times(rs("2026-03-01T10:00:00Z"), snapshot_time([rs("2026-03-01T10:00:00Z")]), notes)
    assert got.status["pendingServiceStatus"]["lastTrafficMigratedTime"] == -20
    assert [n.code for n in notes] == ["ObservedTrafficTime"] and "20s before" in notes[0].message
    same = _with_traffic_times(rs("2026-03-01T10:00:20Z"), snapshot_time([rs("2026-03-01T10:00:20Z")]), [])
    assert same.status["pendingServiceStatus"]["lastTrafficMigratedTime"] == 0
    none = rs(None)
    assert _with_traffic_times(none, snapshot_time([none]), []) is none


def test_phase_titles_of_an_incremental_upgrade_read_as_the_traffic_moves():
    """The step that first lists the new cluster in the HTTPRoute, at weight 0, is named
    for that, not as traffic moving from 0 % to 0 %; the steps that move weight name
    both ends."""
    old = incremental(base())
    run = plan(new_image(old), settled(old))
    titles = [ph.title for ph in run.plan.phases]
    assert "the new cluster added to the HTTPRoute, at 0 % of the traffic" in titles, titles
    assert not any("0 % → 0 %" in t for t in titles)
    moves = [t for t in titles if t.startswith("traffic to the new cluster ") and "→" in t]
    assert moves and moves[-1].endswith("→ 100 %"), titles


def test_a_cluster_counts_serve_endpoints_only_after_the_pass_that_first_submits_its_serve_config():
    """calculateNumServeEndpointsFromSlices: in the pass that first submits a cluster's Serve
    config no proxy runs there yet (the workers' readiness probe hits the proxy, the head keeps
    ray.io/serve=false), so that pass counts no endpoint from it and Ready is not True yet."""
    run = plan(incremental(base()))
    steps = run.plan.steps
    first = next(i for i, s in enumerate(steps) if any(a.kind == "ServeApplications" for a in s.actions))
    statuses = [a for a in steps[first].actions if a.kind == "RayService" and a.verb == "status"]
    assert all(not (a.fields or {}).get("numServeEndpoints") for a in statuses), statuses
    later = [a for s in steps[first + 1:] for a in s.actions if a.kind == "RayService" and a.verb == "status"
             and (a.fields or {}).get("numServeEndpoints")]
    assert later, "the endpoints are counted in a later pass"
