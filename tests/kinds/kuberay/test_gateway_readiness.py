"""``checkIfNeedTargetCapacityUpdate`` moves traffic and target capacity only while the
Gateway is ready (``utils.IsGatewayReady``: Accepted and Programmed) and the HTTPRoute is
accepted by it with resolved references (``utils.IsHTTPRouteReady``). A live Gateway whose
implementation has not programmed it holds an incremental upgrade where it is; one with no
status at all (created in the plan, or a hand-written snapshot) counts as ready, since no
Gateway API implementation is modelled."""

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


def test_a_gateway_not_programmed_holds_the_upgrade_and_says_why():
    old = incremental(base())
    world = settled(old)
    gw = world.of_kind("Gateway")[0].name
    world = _with_status(world, "Gateway", {"conditions": _conds(Accepted="True", Programmed="False")})
    run = plan(new_image(old), world)
    assert not _traffic_moves(run)
    assert run.plan.outcome == "stuck" and run.plan.stuck.reason == "GatewayNotReady"
    assert [(r.kind, r.name) for r in run.plan.stuck.blocked_on] == [("Gateway", gw)]
    waits = " ".join(w for s in run.plan.steps for w in s.wait_for)
    assert f"Gateway {gw}" in waits and "IsGatewayReady" in waits


def test_a_route_not_accepted_holds_the_upgrade():
    old = incremental(base())
    world = settled(old)
    gw = world.of_kind("Gateway")[0].name
    world = _with_status(world, "HTTPRoute", _route_status(gw, Accepted="False", ResolvedRefs="True"))
    run = plan(new_image(old), world)
    assert not _traffic_moves(run) and run.plan.stuck.reason == "GatewayNotReady"
    assert [r.kind for r in run.plan.stuck.blocked_on] == ["HTTPRoute"]


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
