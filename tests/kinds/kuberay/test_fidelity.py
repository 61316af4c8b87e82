"""KubeRay behaviours held against upstream (ray-project/kuberay @ feeaf72f), one table per
upstream test or function; each case names the upstream test it ports.

Equality helpers: ``utils/util_test.go`` TestIsGatewayEqual, TestIsHTTPRouteEqual,
TestGetWeightsFromHTTPRoute. Controller: ``rayservice_controller_unit_test.go``
TestRayServiceFinalizer, Test_RayServiceReconcileManagedBy, TestReconcileGateway,
TestReconcileHTTPRoute, TestReconcileServices_UpdateService, TestIsZeroDowntimeUpgradeEnabled,
and the drift repairs of ``reconcileGateway`` / ``reconcileHTTPRoute`` / ``reconcileServices`` /
``reconcileRayCluster``.
"""

from __future__ import annotations

import copy

import pytest

from rolloutctl.core.model import Obj
from rolloutctl.kinds.kuberay import utils as ku
from rolloutctl.kinds.kuberay.model import RayServiceModel
from rolloutctl.kinds.kuberay.operator import OperatorConfig

from .helpers import base, clusters, cond, edit, incremental, new_image, plan, rs_status, settled

NS = "ml-serving"

# --------------------------------------------------------------------------- utils.IsGatewayEqual


def _gw(cls="istio", listeners=None):
    return {"gatewayClassName": cls,
            "listeners": listeners if listeners is not None else [{"name": "http", "protocol": "HTTP", "port": 80}]}


GATEWAY_CASES = [
    # (TestIsGatewayEqual case name, existing, desired, equal)
    ("Both nil", None, None, True),
    ("Existing nil", None, _gw(), False),
    ("Desired nil", _gw(), None, False),
    ("Exactly equal Gateways", _gw(), _gw(), True),
    ("Different GatewayClassName", _gw("other"), _gw(), False),
    ("Different number of Listeners", _gw(listeners=[{"name": "http", "protocol": "HTTP", "port": 80}] * 2), _gw(), False),
    ("Different Listener Name", _gw(listeners=[{"name": "web", "protocol": "HTTP", "port": 80}]), _gw(), False),
    ("Different Listener Protocol", _gw(listeners=[{"name": "http", "protocol": "HTTPS", "port": 80}]), _gw(), False),
    ("Different Listener Port", _gw(listeners=[{"name": "http", "protocol": "HTTP", "port": 8080}]), _gw(), False),
    ("Equal Gateways ignoring defaulted AllowedRoutes",
     _gw(listeners=[{"name": "http", "protocol": "HTTP", "port": 80, "allowedRoutes": {"namespaces": {"from": "Same"}}}]),
     _gw(), True),
]


@pytest.mark.parametrize("name, existing, desired, equal", GATEWAY_CASES, ids=[c[0] for c in GATEWAY_CASES])
def test_is_gateway_equal(name, existing, desired, equal):
    assert ku.is_gateway_equal(existing, desired) is equal


# --------------------------------------------------------------------------- utils.IsHTTPRouteEqual


def _route(backends=None, parents=None, matches=None, hostnames=None, filters=None, rules=None):
    backends = backends if backends is not None else [{"name": "a-serve-svc", "namespace": "ns", "port": 8000, "weight": 80},
                                                      {"name": "b-serve-svc", "namespace": "ns", "port": 8000, "weight": 20}]
    rule = {"matches": matches if matches is not None else [{"path": {"type": "PathPrefix", "value": "/"}}],
            "backendRefs": backends}
    if filters is not None:
        rule["filters"] = filters
    spec = {"parentRefs": parents if parents is not None else [{"name": "gw", "namespace": "ns"}],
            "rules": rules if rules is not None else [rule]}
    if hostnames is not None:
        spec["hostnames"] = hostnames
    return spec


_B = {"name": "a-serve-svc", "namespace": "ns", "port": 8000, "weight": 80}
HTTPROUTE_CASES = [
    # (TestIsHTTPRouteEqual case name, existing, desired, equal)
    ("Exactly equal HTTPRoutes", _route(), _route(), True),
    ("Hostnames nil vs empty slice - equal", _route(hostnames=[]), _route(), True),
    ("Different number of rules", _route(rules=[]), _route(), False),
    ("Different number of backends", _route(backends=[_B]), _route(), False),
    ("Different backend weights", _route(backends=[{**_B, "weight": 50}, {**_B, "name": "b-serve-svc", "weight": 50}]),
     _route(backends=[_B, {**_B, "name": "b-serve-svc", "weight": 20}]), False),
    ("Different backend names", _route(backends=[{**_B, "name": "c-serve-svc"}]), _route(backends=[_B]), False),
    ("Different ParentRefs", _route(parents=[{"name": "other", "namespace": "ns"}]), _route(), False),
    ("Different Hostnames", _route(hostnames=["a.example.com"]), _route(), False),
    ("Different Matches", _route(matches=[{"path": {"type": "PathPrefix", "value": "/x"}}]), _route(), False),
    ("Different Filters", _route(filters=[{"type": "RequestHeaderModifier"}]), _route(), False),
    ("Filters nil vs empty slice, should be equal for our check.", _route(filters=[]), _route(), True),
    ("Different Backend Namespace", _route(backends=[{**_B, "namespace": "other"}]), _route(backends=[_B]), False),
    ("Different Backend Port", _route(backends=[{**_B, "port": 9000}]), _route(backends=[_B]), False),
    # what IsHTTPRouteEqual leaves out: fields the API server defaults
    ("(model) API-server defaults on backend and parent are ignored",
     _route(backends=[{**_B, "group": "", "kind": "Service"}], parents=[{"group": "gateway.networking.k8s.io",
                                                                          "kind": "Gateway", "name": "gw", "namespace": "ns"}]),
     _route(backends=[_B]), True),
    ("(model) unset weight is 1", _route(backends=[{k: v for k, v in _B.items() if k != "weight"}]),
     _route(backends=[{**_B, "weight": 1}]), True),
]


@pytest.mark.parametrize("name, existing, desired, equal", HTTPROUTE_CASES, ids=[c[0] for c in HTTPROUTE_CASES])
def test_is_http_route_equal(name, existing, desired, equal):
    assert ku.is_http_route_equal(existing, desired) is equal


WEIGHT_CASES = [
    # (TestGetWeightsFromHTTPRoute case name, route spec, active, pending, expected)
    ("nil HTTPRoute", None, "a", "b", (-1, -1)),
    ("no rules", {"rules": []}, "a", "b", (-1, -1)),
    ("active only", {"rules": [{"backendRefs": [{"name": "a-serve-svc", "weight": 100}]}]}, "a", "", (100, -1)),
    ("active and pending", {"rules": [{"backendRefs": [{"name": "a-serve-svc", "weight": 70},
                                                       {"name": "b-serve-svc", "weight": 30}]}]}, "a", "b", (70, 30)),
]


@pytest.mark.parametrize("name, route, active, pending, expected", WEIGHT_CASES, ids=[c[0] for c in WEIGHT_CASES])
def test_get_weights_from_http_route(name, route, active, pending, expected):
    assert ku.get_weights_from_http_route(route, active, pending) == expected


# --------------------------------------------------------------------------- drift repair


def _put(world, kind, name, f):
    o = world.get(kind, NS, name)
    raw = copy.deepcopy(dict(o.raw))
    f(raw)
    return world.replace(put=[Obj(raw)])


def _acts(run):
    return [(a.verb, a.kind, a.name) for a in run.actions if a.verb != "status"]


def test_settled_incremental_service_plans_noop():
    old = incremental(base())
    run = plan(old, settled(old))
    assert run.plan.outcome == "noop" and _acts(run) == []


@pytest.mark.parametrize("drift, fields", [
    # TestReconcileGateway "updates Gateway if spec differs": class and every listener field
    (lambda r: r["spec"].update(gatewayClassName="nginx"), {"gatewayClassName": "istio"}),
    (lambda r: r["spec"]["listeners"][0].update(port=8080), {"listeners": ["http/HTTP/80"]}),
    (lambda r: r["spec"]["listeners"].append({"name": "https", "protocol": "HTTPS", "port": 443}),
     {"listeners": ["http/HTTP/80"]}),
], ids=["class", "listener-port", "extra-listener"])
def test_gateway_edited_out_of_band_is_restored(drift, fields):
    old = incremental(base())
    w = _put(settled(old), "Gateway", "text-ml-gateway", drift)
    run = plan(old, w)
    assert _acts(run) == [("update", "Gateway", "text-ml-gateway")]
    upd = next(a for a in run.actions if a.kind == "Gateway")
    assert all(upd.fields[k] == v for k, v in fields.items())
    assert run.world.get("Gateway", NS, "text-ml-gateway").spec["gatewayClassName"] == "istio"


def test_gateway_fields_the_controller_does_not_manage_are_left_alone():
    old = incremental(base())
    w = _put(settled(old), "Gateway", "text-ml-gateway",
             lambda r: r["spec"]["listeners"][0].update(allowedRoutes={"namespaces": {"from": "All"}}, hostname="x.io"))
    assert plan(old, w).plan.outcome == "noop"


def test_http_route_weight_edited_out_of_band_is_restored():
    # TestReconcileHTTPRoute: an existing route whose backends differ is updated to the computed weights
    old = incremental(base())
    def drift(r):
        r["spec"]["rules"][0]["backendRefs"][0]["weight"] = 40
    w = _put(settled(old), "HTTPRoute", "text-ml-httproute", drift)
    run = plan(old, w)
    assert _acts(run) == [("update", "HTTPRoute", "text-ml-httproute")]
    route = run.world.get("HTTPRoute", NS, "text-ml-httproute")
    assert [b["weight"] for b in route.spec["rules"][0]["backendRefs"]] == [100]


def test_http_route_built_as_create_http_route():
    # TestCreateHTTPRoute: parentRef and backends carry the Gateway's namespace; backends the serve port
    old = incremental(base())
    route = settled(old).get("HTTPRoute", NS, "text-ml-httproute")
    assert route.spec["parentRefs"] == [{"name": "text-ml-gateway", "namespace": NS}]
    (b,) = route.spec["rules"][0]["backendRefs"]
    assert b["namespace"] == NS and b["port"] == 8000 and b["weight"] == 100 and b["name"].endswith("-serve-svc")
    assert route.spec["rules"][0]["matches"] == [{"path": {"type": "PathPrefix", "value": "/"}}]


def test_service_selector_edited_by_hand_is_rebuilt():
    # TestReconcileServices_UpdateService: a Service selecting another cluster gets the built spec, ClusterIP kept
    old = base()
    w0 = settled(old)
    def drift(r):
        r["spec"]["selector"]["ray.io/cluster"] = "someone-else"
        r["spec"]["clusterIP"] = "10.0.0.7"
        r["spec"]["ports"] = [{"name": "hand", "port": 1}]
    w = _put(w0, "Service", "text-ml-serve-svc", drift)
    run = plan(old, w)
    assert _acts(run) == [("update", "Service", "text-ml-serve-svc")]
    svc = run.world.get("Service", NS, "text-ml-serve-svc")
    assert svc.spec["clusterIP"] == "10.0.0.7"
    assert svc.spec["selector"]["ray.io/cluster"] == clusters(w0)[0]
    assert [p["name"] for p in svc.spec["ports"]] == ["serve"]


def test_service_ports_edited_by_hand_are_kept():
    # reconcileServices compares only the ray.io/cluster selector
    old = base()
    w = _put(settled(old), "Service", "text-ml-serve-svc", lambda r: r["spec"].update(ports=[{"name": "x", "port": 1}]))
    assert plan(old, w).plan.outcome == "noop"


def test_service_deleted_out_of_band_is_recreated():
    old = base()
    w = settled(old).replace(remove=[("Service", NS, "text-ml-head-svc")])
    run = plan(old, w)
    assert _acts(run) == [("create", "Service", "text-ml-head-svc")]


def test_active_cluster_deleted_out_of_band_is_replaced():
    # reconcileRayCluster finds neither cluster; shouldPrepareNewCluster: a new pending cluster
    old = base()
    w0 = settled(old)
    (name,) = clusters(w0)
    w = w0.replace(remove=[("RayCluster", NS, name), ("ServeApplications", NS, name)])
    run = plan(old, w)
    acts = _acts(run)
    assert acts[0] == ("create", "RayCluster", "text-ml-<random>")
    assert ("update", "Service", "text-ml-head-svc") in acts and run.plan.outcome == "converged"
    assert cond(run.world, "Ready") == ("True", "NonZeroServeEndpoints")


# --------------------------------------------------------------------------- deletion (TestRayServiceFinalizer)


def _deleting(world, finalizers=("ray.io/rayservice-finalizer",)):
    def f(r):
        r["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
        r["metadata"]["finalizers"] = list(finalizers)
    return _put(world, "RayService", "text-ml", f)


def test_finalizer_delete_with_clusters():
    # "Delete with clusters": every associated RayCluster deleted at once, the finalizer stays, no status write
    old = base()
    w0 = settled(old)
    w = _deleting(w0)
    m = RayServiceModel()
    acts = m.reconcile(Obj(copy.deepcopy(old)), w)
    assert [(a.verb, a.kind) for a in acts] == [("delete", "RayCluster")]
    assert acts[0].rule.endswith("#cleanUpRayClusterInstance")


def test_finalizer_delete_during_upgrade_deletes_both_clusters_without_delay():
    old = base()
    w = settled(old)
    run = plan(new_image(old), w)
    # stop mid-upgrade: the first world with a pending cluster
    from .helpers import steps
    mid = steps(new_image(old), w, 3)
    assert len(clusters(mid)) == 2
    acts = RayServiceModel().reconcile(Obj(new_image(old)), _deleting(mid))
    assert sorted(a.verb for a in acts) == ["delete", "delete"] and all(a.kind == "RayCluster" for a in acts)
    assert run.plan.outcome == "converged"


def test_finalizer_delete_without_clusters_removes_finalizer():
    # "Delete without clusters": the finalizer is removed (the API server then deletes the RayService)
    old = base()
    w0 = settled(old)
    w = _deleting(w0).replace(remove=[("RayCluster", NS, n) for n in clusters(w0)])
    acts = RayServiceModel().reconcile(Obj(copy.deepcopy(old)), w)
    assert [(a.verb, a.kind) for a in acts] == [("update", "RayService")]
    assert "ray.io/rayservice-finalizer" not in acts[0].payload["metadata"]["finalizers"]


def test_deletion_plan_ends_with_the_finalizer_removed():
    old = base()
    run = plan(old, _deleting(settled(old)))
    verbs = _acts(run)
    assert verbs[0][:2] == ("delete", "RayCluster") and verbs[-1] == ("update", "RayService", "text-ml")
    assert not [a for a in run.actions if a.verb == "status"]
    # the deletion is the plan's goal: it converges (exit 0), and says what happened
    assert run.plan.outcome == "converged" and run.plan.stuck is None
    assert run.plan.steps[-1].title == "Remove finalizer ray.io/rayservice-finalizer: the RayService is deleted"
    assert run.plan.phases[0].title.startswith("RayService deleted: RayCluster")


# --------------------------------------------------------------------------- managedBy (Test_RayServiceReconcileManagedBy)


@pytest.mark.parametrize("name, managed_by, reconciles", [
    ("ManagedBy field not set", "<absent>", True),
    ("(API server) a null managedBy is pruned", None, True),
    ("ManagedBy field to RayOperator", "ray.io/kuberay-operator", True),
    ("ManagedBy field empty", "", False),
    ("ManagedBy field to external allowed controller", "kueue.x-k8s.io/multikueue", False),
])
def test_managed_by(name, managed_by, reconciles):
    d = base()
    if managed_by != "<absent>":
        d["spec"]["managedBy"] = managed_by
    run = plan(d)
    if reconciles:
        assert run.plan.outcome == "converged" and _acts(run)[0] == ("update", "RayService", "text-ml")
    else:
        assert run.plan.outcome == "noop" and run.actions == []
        assert any(w.code == "ManagedByExternalController" for w in run.plan.warnings)


# --------------------------------------------------------------------------- operator configuration


def test_incremental_gate_off_behaves_as_none():
    # isZeroDowntimeUpgradeEnabled with RayServiceIncrementalUpgrade off: the type is not NewCluster
    m = RayServiceModel(feature_gates=["RayServiceIncrementalUpgrade=false"])
    old = incremental(base())
    w = m.observe(Obj(old), [Obj(old)], __import__("rolloutctl.core.environment", fromlist=["Environment"]).Environment())
    assert w.get("Gateway", NS, "text-ml-gateway") is None  # no Gateway without the gate
    run = plan(new_image(old), w, model=m)
    assert run.plan.strategy == "None"
    assert not [a for a in run.actions if a.kind in ("RayCluster", "Gateway", "HTTPRoute") and a.verb == "create"]


@pytest.mark.parametrize("upgrade_type, env, gate, enabled", [
    # TestIsZeroDowntimeUpgradeEnabled
    (None, None, True, True),
    (None, "false", True, False),
    (None, "FALSE", True, False),
    (None, "true", True, True),
    ("NewCluster", "false", True, True),
    ("None", None, True, False),
    ("NewClusterWithIncrementalUpgrade", None, True, True),
    ("NewClusterWithIncrementalUpgrade", None, False, False),
])
def test_is_zero_downtime_upgrade_enabled(upgrade_type, env, gate, enabled):
    from rolloutctl.kinds.kuberay.decisions import is_zero_downtime_upgrade_enabled

    d = base()
    d["spec"].pop("upgradeStrategy", None)
    if upgrade_type:
        d["spec"]["upgradeStrategy"] = {"type": upgrade_type}
    cfg = OperatorConfig.from_options(None, [f"RayServiceIncrementalUpgrade={str(gate).lower()}"],
                                      [f"ENABLE_ZERO_DOWNTIME={env}"] if env else [])
    assert is_zero_downtime_upgrade_enabled(Obj(d), cfg) is enabled


def test_enable_zero_downtime_false_never_creates_a_second_cluster():
    m = RayServiceModel(kuberay_env=["ENABLE_ZERO_DOWNTIME=false"])
    old = edit(base(), lambda d: d["spec"].pop("upgradeStrategy", None))
    run = plan(new_image(old), settled(old), model=m)
    assert run.plan.strategy == "None" and run.plan.outcome == "noop"
    assert any(w.code == "UpgradeStrategyNone" for w in run.plan.warnings)


def test_provenance_names_version_commit_and_gates():
    p = RayServiceModel(feature_gates=["RayServiceIncrementalUpgrade=false"]).provenance()
    assert p["commit"] == "feeaf72facab4881ba2b179248bb67315634e229" and p["version"] == "nightly"
    assert p["featureGates"]["RayServiceIncrementalUpgrade"] is False
    assert p["featureGates"]["RayClusterStatusConditions"] is True
    assert p["env"]["ENABLE_ZERO_DOWNTIME"] == "true (unset)" and p["admissionWebhook"] is False
    assert RayServiceModel(kuberay_version="v1.4.0").provenance()["version"] == "v1.4.0"


@pytest.mark.parametrize("args, message", [
    (["--feature-gate", "NoSuchGate=true"], "no such feature gate"),
    (["--feature-gate", "RayServiceIncrementalUpgrade=maybe"], "must be true or false"),
    (["--feature-gate", "RayServiceIncrementalUpgrade"], "expected NAME=true|false"),
    (["--kuberay-env", "ENABLE_EVERYTHING=true"], "not an operator setting"),
])
def test_bad_operator_options_are_input_errors(cli, args, message):
    from tests.conftest import SAMPLES

    r = cli("plan", str(SAMPLES / "rayservice-text-ml.yaml"), *args)
    assert r.exit_code == 2 and message in r.stderr and "Traceback" not in r.stderr


def test_feature_gate_flag_changes_the_plan(cli, tmp_path):
    import yaml

    from tests.conftest import write

    old = incremental(base())
    p_old = write(tmp_path, "old.yaml", yaml.safe_dump(old))
    p_new = write(tmp_path, "new.yaml", yaml.safe_dump(new_image(old)))
    on = cli("plan", p_new, "--observed", p_old, "-o", "json").json()
    off = cli("plan", p_new, "--observed", p_old, "--feature-gate", "RayServiceIncrementalUpgrade=false", "-o", "json").json()
    assert on["strategy"] == "NewClusterWithIncrementalUpgrade" and on["outcome"] == "converged"
    assert off["strategy"] == "None" and off["outcome"] == "noop"


# --------------------------------------------------------------------------- controller-side validation, end to end


def _bad_rs():
    return edit(base(), lambda d: d["spec"].update(upgradeStrategy={"type": "BlueGreen"}))


def test_validation_failure_is_planned_as_the_controller_reacts(cli, tmp_path):
    import yaml

    from tests.conftest import write

    p = write(tmp_path, "bad.yaml", yaml.safe_dump(_bad_rs()))
    for cmd in ("plan", "next"):
        r = cli(cmd, p, "-o", "json")
        assert r.exit_code == 1, r.stderr
        doc = r.json()
        assert doc["outcome"] == "stuck" and doc["stuck"]["reason"] == "ValidationFailed"
        assert doc["stuck"]["message"].startswith("The RayService spec is invalid: spec.upgradeStrategy.type value BlueGreen")
    run = plan(_bad_rs())
    assert [(a.verb, a.kind) for a in run.actions] == [("update", "RayService"), ("status", "RayService")]
    assert run.actions[1].fields["conditions"] == {"Ready": "False/ValidationFailed"}
    assert cond(run.world, "Ready") == ("False", "ValidationFailed")
    assert rs_status(run.world)["conditions"][0]["message"].startswith("The RayService spec is invalid:")
    assert not clusters(run.world)


def test_validation_failure_in_lint_names_the_controller(cli, tmp_path):
    import yaml

    from tests.conftest import write

    p = write(tmp_path, "bad.yaml", yaml.safe_dump(_bad_rs()))
    r = cli("lint", p, "-o", "json")
    assert r.exit_code == 1
    (f,) = [f for f in r.json()["findings"] if f["rule"] == "RS026"]
    assert f["severity"] == "error" and "KubeRay RayService controller" in f["message"]
    assert "ValidationFailed" in f["message"]


def test_validation_failure_in_diff_is_rejected(cli, tmp_path):
    import yaml

    from tests.conftest import write

    p = write(tmp_path, "bad.yaml", yaml.safe_dump(_bad_rs()))
    live = write(tmp_path, "live.yaml", yaml.safe_dump(base()))
    r = cli("diff", p, "--live", live, "-o", "json")
    assert r.exit_code == 1
    effects = [i["effect"] for o in r.json()["objects"] for i in o["impact"]]
    assert "rejected" in effects


def test_crd_rules_still_stop_planning(cli, tmp_path):
    import yaml

    from tests.conftest import write

    live = write(tmp_path, "live.yaml", yaml.safe_dump(base()))
    new = write(tmp_path, "new.yaml", yaml.safe_dump(edit(base(), lambda d: d["spec"].update(
        managedBy="kueue.x-k8s.io/multikueue"))))
    r = cli("plan", new, "--observed", live)
    assert r.exit_code == 2 and "RS029" in r.stderr and "immutable" in r.stderr


def test_cluster_level_upgrade_strategy_is_refused_by_the_raycluster_controller():
    run = plan(edit(base(), lambda d: d["spec"]["rayClusterConfig"].update(upgradeStrategy={"type": "Recreate"})))
    assert run.plan.outcome == "stuck" and run.plan.stuck.reason == "InvalidRayClusterSpec"
    assert ("create", "RayCluster", "text-ml-<random>") in _acts(run)
    assert "upgradeStrategy cannot be set when RayCluster is created by RayService" in run.plan.stuck.message


def test_missing_serve_port_stops_at_the_serve_service():
    def f(d):
        d["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]["ports"] = [
            {"containerPort": 6379, "name": "gcs"}]
    run = plan(edit(base(), f))
    assert run.plan.outcome == "stuck" and run.plan.stuck.reason == "ServeServiceNotBuilt"
    # BuildHeadServiceForRayService succeeds first (reconcileServicesToReadyCluster), then the serve Service fails
    assert ("create", "Service", "text-ml-head-svc") in _acts(run)
    assert ("create", "Service", "text-ml-serve-svc") not in _acts(run)


# --------------------------------------------------------------------------- next: the immediate pass, as upstream requeues it


def _upgrading_live(head_condition):
    """A live RayService mid-upgrade: the pending RayCluster exists, its head Pod as given."""
    old = base()
    rs = copy.deepcopy(new_image(old))
    rs["metadata"].update(generation=2, finalizers=["ray.io/rayservice-finalizer"])
    t = "2026-01-01T00:00:00Z"
    rs["status"] = {"observedGeneration": 2, "numServeEndpoints": 4, "serviceStatus": "Running",
                    # during a NewCluster upgrade the active's applications are not reconciled (left empty)
                    "activeServiceStatus": {"rayClusterName": "text-ml-aaaaa"},
                    "pendingServiceStatus": {"rayClusterName": "text-ml-bbbbb"},
                    "conditions": [{"type": "Ready", "status": "True", "reason": "NonZeroServeEndpoints",
                                    "message": "Number of serve endpoints is greater than 0", "observedGeneration": 2,
                                    "lastTransitionTime": t},
                                   {"type": "UpgradeInProgress", "status": "True",
                                    "reason": "BothActivePendingClustersExist",
                                    "message": "Both active and pending Ray clusters exist", "observedGeneration": 2,
                                    "lastTransitionTime": t}]}
    assoc = {"ray.io/originated-from-cr-name": "text-ml", "ray.io/originated-from-crd": "RayService"}

    def rc(name, spec, cond):
        return {"apiVersion": "ray.io/v1", "kind": "RayCluster",
                "metadata": {"name": name, "namespace": NS, "labels": assoc,
                             "annotations": {"ray.io/kuberay-version": "nightly", "ray.io/num-worker-groups": "1"}},
                "spec": copy.deepcopy(spec["spec"]["rayClusterConfig"]),
                "status": {"conditions": [cond], "readyWorkerReplicas": 3 if cond["status"] == "True" else 0}}
    ready = {"type": "HeadPodReady", "status": "True", "reason": "HeadPodRunningAndReady"}
    svc = [{"apiVersion": "v1", "kind": "Service", "metadata": {"name": n, "namespace": NS, "labels": assoc},
            "spec": {"selector": {"ray.io/cluster": "text-ml-aaaaa"}}} for n in ("text-ml-head-svc", "text-ml-serve-svc")]
    return rs, [rs, rc("text-ml-aaaaa", old, ready), rc("text-ml-bbbbb", rs, head_condition), *svc]


@pytest.mark.parametrize("head, title", [
    ({"type": "HeadPodReady", "status": "False", "reason": "ContainersNotReady"},
     "No change in this pass: waits for the head Pod of RayCluster text-ml-bbbbb to become ready; requeue in 2 s"),
    ({"type": "HeadPodReady", "status": "False", "reason": "HeadPodNotFound"},
     "No change in this pass: no head Pod of RayCluster text-ml-bbbbb yet (updateHeadPodServeLabel: found 0 head); "
     "requeue with controller-runtime's backoff (the pass returns an error)"),
])
def test_next_that_only_requeues_says_so(cli, tmp_path, head, title):
    import yaml

    from tests.conftest import write

    rs, live = _upgrading_live(head)
    desired = write(tmp_path, "new.yaml", yaml.safe_dump(new_image(base())))
    observed = write(tmp_path, "live.yaml", yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": live}))
    nxt = cli("next", desired, "--observed", observed, "-o", "json")
    assert nxt.exit_code == 0, nxt.stderr
    doc = nxt.json()
    (step,) = doc["steps"]
    assert step["actions"] == [] and step["title"] == title
    # outcome and summary describe the whole plan, which goes on to switch traffic and delete the old cluster
    full = cli("plan", desired, "--observed", observed, "-o", "json").json()
    assert doc["outcome"] == full["outcome"] == "converged" and doc["summary"] == full["summary"]
    assert ("delete", "RayCluster", "text-ml-aaaaa") in [(a["verb"], a["kind"], a["name"]) for s in full["steps"]
                                                          for a in s["actions"]]


def _with_zero_values(raw: dict) -> dict:
    """The manifest with fields written at their Go zero value: a read-write volume mount
    (readOnly: false) and a probe with initialDelaySeconds: 0."""
    def f(d: dict) -> None:
        head = d["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]
        head["volumes"] = [{"name": "cache", "emptyDir": {}}]
        c = head["containers"][0]
        c["volumeMounts"] = [{"name": "cache", "mountPath": "/cache", "readOnly": False}]
        c["readinessProbe"] = {"exec": {"command": ["true"]}, "initialDelaySeconds": 0, "periodSeconds": 5}
        c["stdin"] = False
        head["hostNetwork"] = False
    return edit(raw, f)


def _as_kuberay_wrote_it(cluster_spec: dict) -> dict:
    """A RayCluster spec as the operator creates it: json.Marshal of the Go types drops the
    zero values of non-pointer omitempty fields."""
    spec = copy.deepcopy(cluster_spec)
    head = spec["headGroupSpec"]["template"]["spec"]
    c = head["containers"][0]
    del c["volumeMounts"][0]["readOnly"], c["readinessProbe"]["initialDelaySeconds"], c["stdin"], head["hostNetwork"]
    return spec


def test_a_live_cluster_without_the_go_zero_values_matches_its_manifest(cli, tmp_path):
    """GenerateJsonHash hashes json.Marshal of the Go spec, where readOnly: false,
    initialDelaySeconds: 0, stdin: false and hostNetwork: false are omitted (omitempty), and
    the RayCluster KubeRay created is stored without them: the unchanged manifest against
    the live objects is no change at all, not a new RayCluster."""
    import yaml

    from tests.conftest import write

    raw = _with_zero_values(base())
    rs = copy.deepcopy(raw)
    rs["metadata"].update(generation=1, finalizers=["ray.io/rayservice-finalizer"])
    rs["status"] = {"observedGeneration": 1, "numServeEndpoints": 4, "serviceStatus": "Running",
                    "activeServiceStatus": {"rayClusterName": "text-ml-aaaaa",
                                            "applicationStatuses": {"summarize": {"status": "RUNNING"},
                                                                    "classify": {"status": "RUNNING"}}},
                    "conditions": [{"type": "Ready", "status": "True", "reason": "NonZeroServeEndpoints",
                                    "message": "Number of serve endpoints is greater than 0", "observedGeneration": 1},
                                   {"type": "UpgradeInProgress", "status": "False", "reason": "NoPendingCluster",
                                    "message": "Active Ray cluster exists and no pending Ray cluster",
                                    "observedGeneration": 1}]}
    assoc = {"ray.io/originated-from-cr-name": "text-ml", "ray.io/originated-from-crd": "RayService"}
    rc = {"apiVersion": "ray.io/v1", "kind": "RayCluster",
          "metadata": {"name": "text-ml-aaaaa", "namespace": NS, "labels": assoc,
                       "annotations": {"ray.io/kuberay-version": "nightly", "ray.io/num-worker-groups": "1"}},
          "spec": _as_kuberay_wrote_it(raw["spec"]["rayClusterConfig"]),
          "status": {"conditions": [{"type": "HeadPodReady", "status": "True", "reason": "HeadPodRunningAndReady"}],
                     "readyWorkerReplicas": 3, "state": "ready"}}
    svc = [{"apiVersion": "v1", "kind": "Service", "metadata": {"name": n, "namespace": NS, "labels": assoc},
            "spec": {"selector": {"ray.io/cluster": "text-ml-aaaaa"}}} for n in ("text-ml-head-svc", "text-ml-serve-svc")]
    desired = write(tmp_path, "rs.yaml", yaml.safe_dump(raw))
    live = write(tmp_path, "live.yaml", yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [rs, rc, *svc]}))
    doc = cli("plan", desired, "--observed", live, "-o", "json").json()
    assert doc["outcome"] == "noop", [s["title"] for s in doc["steps"]]
    # a real change to one of those fields still counts
    ro = edit(raw, lambda d: d["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]
              ["volumeMounts"][0].__setitem__("readOnly", True))
    changed = cli("plan", write(tmp_path, "ro.yaml", yaml.safe_dump(ro)), "--observed", live, "-o", "json").json()
    assert any(a["verb"] == "create" and a["kind"] == "RayCluster" for s in changed["steps"] for a in s["actions"])


# --------------------------------------------------------------------------- calculateNumServeEndpointsFromSlices


def _status_steps(run):
    return [(s.time, dict(a.fields)) for s in run.plan.steps for a in s.actions
            if a.kind == "RayService" and a.verb == "status"]


def test_ready_comes_one_pass_after_the_serve_service_is_created():
    """``calculateNumServeEndpointsFromSlices`` counts EndpointSlices, which the
    EndpointSlice controller writes only after it has seen the Service: the pass that
    creates ``<rs>-serve-svc`` promotes the cluster and counts 0 endpoints (Ready stays
    False/Initializing); the next pass, 2 s later, counts them and sets Ready=True."""
    from rolloutctl.core.environment import Environment
    from rolloutctl.core.simulate import simulate
    from rolloutctl.core.world import World

    m = RayServiceModel()
    d = Obj(base())
    run = simulate(m, d, m.observe(d, [], Environment()), Environment())
    steps = run.steps
    svc = next(s for s in steps if any(a.verb == "create" and a.name.endswith("-serve-svc") for a in s.actions))
    st = next(a for a in svc.actions if a.kind == "RayService" and a.verb == "status")
    assert "activeServiceStatus.rayClusterName" in st.fields and "numServeEndpoints" not in st.fields
    assert svc.after["ready"] is False and svc.after["numServeEndpoints"] == 0
    nxt = steps[steps.index(svc) + 1]
    (ready,) = [a for a in nxt.actions if a.kind == "RayService"]
    assert nxt.time == svc.time + 2
    assert ready.fields["conditions"] == {"Ready": "True/NonZeroServeEndpoints"} and ready.fields["numServeEndpoints"] > 0
    assert run.outcome == "converged" and nxt is steps[-1]
