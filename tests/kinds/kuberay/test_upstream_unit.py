"""Table ports of ``ray-operator/controllers/ray/rayservice_controller_unit_test.go``
(ray-project/kuberay @ feeaf72f) for the functions the model has a counterpart of. Each
test names the upstream test it ports; docs/kuberay-fidelity.md lists every upstream test,
ported here or elsewhere, or not, with the reason."""

from __future__ import annotations

import copy

import pytest

from rolloutctl.core.model import Obj
from rolloutctl.kinds.kuberay.api import HEAD_READY, HEAD_STARTING
from rolloutctl.kinds.kuberay.builders import construct_ray_cluster_for_ray_service, create_gateway, create_http_route
from rolloutctl.kinds.kuberay.incremental_upgrade import should_complete_incremental_rollback
from rolloutctl.kinds.kuberay.model import RayServiceModel
from rolloutctl.kinds.kuberay.rayservice_controller import check_if_need_submit_serve_applications
from rolloutctl.kinds.kuberay.status import calculate_conditions, is_initializing_timeout
from rolloutctl.kinds.kuberay import service as ksvc
from rolloutctl.kinds.kuberay.decisions import should_prepare_new_cluster, should_update_cluster

from .helpers import base, edit, incremental, new_image, obj

NS = "ml-serving"


def _cluster(desired: dict, name: str = "text-ml-abcde", version: str = "nightly", head_ready: bool = True) -> Obj:
    raw = construct_ray_cluster_for_ray_service(obj(desired), name, {}, version)
    raw["status"] = {"conditions": [{"type": "HeadPodReady", "status": "True" if head_ready else "False",
                                     "reason": HEAD_READY if head_ready else HEAD_STARTING}]}
    return Obj(raw)


@pytest.mark.parametrize("name, cached, config, apps, submit", [
    # TestCheckIfNeedSubmitServeApplications, tests 1-5
    ("1: new cluster, nothing cached", "", "serve-config-1", {}, True),
    ("2: same config, applications running", "serve-config-1", "serve-config-1", {"myapp": {"status": "RUNNING"}}, False),
    ("3: config changed", "serve-config-1", "serve-config-2", {"myapp": {"status": "RUNNING"}}, True),
    ("4: same config, no application (head restarted without GCS FT)", "serve-config-1", "serve-config-1", {}, True),
    ("5: operator restarted (cache empty), applications running", "", "serve-config-1", {"myapp": {"status": "RUNNING"}},
     True),
    ("(model) nothing cached at all", None, "serve-config-1", {"myapp": {"status": "RUNNING"}}, True),
])
def test_check_if_need_submit_serve_applications(name, cached, config, apps, submit):
    assert check_if_need_submit_serve_applications(cached, config, apps) is submit


@pytest.mark.parametrize("name, atc, atr, ptc, ptr, pending, want", [
    # TestShouldCompleteIncrementalRollback
    ("healthy pending at zero capacity and traffic — complete", 100, 100, 0, 0, True, True),
    ("unhealthy pending with leftover capacity — bypass complete", 100, 100, 30, 0, False, True),
    ("no pending RayCluster — complete when active is full", 100, 100, 0, 0, None, True),
    ("healthy pending still holding target capacity — not complete", 100, 100, 50, 0, True, False),
])
def test_should_complete_incremental_rollback(name, atc, atr, ptc, ptr, pending, want):
    cluster = None if pending is None else _cluster(base(), "p", head_ready=pending)
    got = should_complete_incremental_rollback({"targetCapacity": atc, "trafficRoutedPercent": atr},
                                                  {"targetCapacity": ptc, "trafficRoutedPercent": ptr}, cluster)
    assert got is want


@pytest.mark.parametrize("name, conditions, expected", [
    # TestIsInitializingTimeout
    ("No conditions", [], False),
    ("Failed due to timeout - any generation",
     [{"type": "Ready", "status": "False", "reason": "InitializingTimeout", "observedGeneration": 1}], True),
    ("Failed for different reason",
     [{"type": "Ready", "status": "False", "reason": "ZeroServeEndpoints", "observedGeneration": 5}], False),
    ("Ready condition is True",
     [{"type": "Ready", "status": "True", "reason": "NonZeroServeEndpoints", "observedGeneration": 5}], False),
])
def test_is_initializing_timeout(name, conditions, expected):
    assert is_initializing_timeout({"conditions": conditions}) is expected


def test_should_prepare_new_cluster_prepare_new_cluster():
    # TestShouldPrepareNewCluster_PrepareNewCluster: neither cluster exists
    assert should_prepare_new_cluster(obj(base()), None, None, False, False)


def test_should_prepare_new_cluster_zero_downtime_upgrade():
    # TestShouldPrepareNewCluster_ZeroDowntimeUpgrade: the spec differs from the active cluster's
    active = _cluster(base())
    changed = edit(base(), lambda d: d["spec"]["rayClusterConfig"].update(rayVersion="2.47.0"))
    assert should_prepare_new_cluster(obj(changed), active, None, False, False)
    assert not should_prepare_new_cluster(obj(base()), active, None, False, False)


@pytest.mark.parametrize("serving, expected", [(False, True), (True, False)],
                         ids=["override the pending cluster if it is not serving",
                              "do not override the pending cluster if it is serving"])
def test_should_prepare_new_cluster_pending_cluster(serving, expected):
    # TestShouldPrepareNewCluster_PendingCluster
    pending = _cluster(base(), "text-ml-pend1")
    changed = edit(base(), lambda d: d["spec"]["rayClusterConfig"].update(rayVersion="2.47.0"))
    assert should_prepare_new_cluster(obj(changed), None, pending, serving, False) is expected


def test_reconcile_ray_cluster_update_active_cluster():
    # TestReconcileRayCluster_UpdateActiveCluster: a KubeRay version bump or an appended worker group
    # updates the active cluster in place; a hash change does not
    active = _cluster(base(), version="v1.3.0")
    assert should_update_cluster(obj(base()), active, True, False, "nightly")
    assert not should_update_cluster(obj(base()), active, True, True, "nightly")  # not during an upgrade
    same = _cluster(base())
    assert not should_update_cluster(obj(base()), same, True, False, "nightly")
    appended = edit(base(), lambda d: d["spec"]["rayClusterConfig"]["workerGroupSpecs"].append(
        dict(copy.deepcopy(d["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]), groupName="extra")))
    assert should_update_cluster(obj(appended), same, True, False, "nightly")
    assert not should_update_cluster(obj(new_image(base())), same, True, False, "nightly")


def test_reconcile_ray_cluster_update_pending_cluster():
    # TestReconcileRayCluster_UpdatePendingCluster: the pending cluster is updated for appended groups only
    pending = _cluster(base(), "text-ml-pend1", version="v1.3.0")
    assert not should_update_cluster(obj(base()), pending, False, True, "nightly")  # version alone: active only
    appended = edit(base(), lambda d: d["spec"]["rayClusterConfig"]["workerGroupSpecs"].append(
        dict(copy.deepcopy(d["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]), groupName="extra")))
    assert should_update_cluster(obj(appended), _cluster(base(), "text-ml-pend1"), False, True, "nightly")


def test_construct_ray_cluster_for_ray_service():
    # TestConstructRayClusterForRayService: RayService labels and annotations plus the association labels
    # and the KubeRay annotations; spec copied
    d = edit(base(), lambda d: d["metadata"].update(labels={"team": "ml"}, annotations={"a": "b"}))
    raw = construct_ray_cluster_for_ray_service(obj(d), "text-ml-abcde", {}, "nightly")
    md = raw["metadata"]
    assert md["labels"] == {"team": "ml", "ray.io/originated-from-cr-name": "text-ml",
                            "ray.io/originated-from-crd": "RayService"}
    assert md["annotations"]["a"] == "b" and md["annotations"]["ray.io/kuberay-version"] == "nightly"
    assert md["annotations"]["ray.io/num-worker-groups"] == "1"
    assert raw["spec"] == d["spec"]["rayClusterConfig"]


def test_create_gateway():
    # TestCreateGateway: <rs>-gateway, the options' class, one HTTP listener on 80
    gw = create_gateway(obj(incremental(base())), NS)
    assert gw["metadata"]["name"] == "text-ml-gateway"
    assert gw["spec"] == {"gatewayClassName": "istio", "listeners": [{"name": "http", "protocol": "HTTP", "port": 80}]}


def test_create_http_route():
    # TestCreateHTTPRoute: parentRef to the Gateway; active and pending backends with weights on the serve port
    d = obj(incremental(base()))
    route = create_http_route(d, NS, _cluster(base(), "a"), _cluster(base(), "b"), 70, 30)
    assert route["metadata"]["name"] == "text-ml-httproute"
    assert route["spec"]["parentRefs"] == [{"name": "text-ml-gateway", "namespace": NS}]
    assert route["spec"]["rules"][0]["backendRefs"] == [
        {"name": "a-serve-svc", "namespace": NS, "port": 8000, "weight": 70},
        {"name": "b-serve-svc", "namespace": NS, "port": 8000, "weight": 30}]


def test_reconcile_per_cluster_serve_service():
    # TestReconcilePerClusterServeService: <cluster>-serve-svc selecting the cluster's serving Pods, owned by it
    rs = incremental(base())
    svc = ksvc.build_serve_service({"metadata": {"name": "text-ml", "namespace": NS}, "spec": rs["spec"]},
                                   _cluster(rs, "text-ml-abcde").raw)
    assert svc["metadata"]["name"] == "text-ml-abcde-serve-svc"
    assert svc["spec"]["selector"] == {"ray.io/cluster": "text-ml-abcde", "ray.io/serve": "true"}
    assert [(o["kind"], o["name"]) for o in svc["metadata"]["ownerReferences"]] == [("RayCluster", "text-ml-abcde")]


def test_reconcile_services_update_service():
    # TestReconcileServices_UpdateService: the head Service follows the serving cluster; its ports are the head's
    rs = {"metadata": {"name": "text-ml", "namespace": NS}, "spec": base()["spec"]}
    svc = ksvc.build_head_service_for_ray_service(rs, _cluster(base(), "text-ml-new01").raw)
    assert svc["metadata"]["name"] == "text-ml-head-svc"
    assert svc["spec"]["selector"]["ray.io/cluster"] == "text-ml-new01"
    assert svc["spec"]["clusterIP"] == "None"
    names = [p["name"] for p in svc["spec"]["ports"]]
    assert names == sorted(names) and "metrics" in names


def test_build_serve_service_custom_serve_service():
    # BuildServeService with spec.serveService: the user's name and type, ports merged by name with the serve port
    def f(d):
        d["spec"]["serveService"] = {"metadata": {"name": "custom"},
                                     "spec": {"type": "LoadBalancer", "ports": [{"name": "serve", "port": 80}]}}
    rs = edit(base(), f)
    svc = ksvc.build_serve_service({"metadata": {"name": "text-ml", "namespace": NS}, "spec": rs["spec"]},
                                   _cluster(rs).raw)
    assert svc["metadata"]["name"] == "custom" and svc["spec"]["type"] == "LoadBalancer"
    assert svc["spec"]["ports"] == [{"name": "serve", "port": 80}]


def _rs_world(status: dict, generation: int, spec_edit=None):
    from rolloutctl.core.world import World

    d = base()
    if spec_edit:
        spec_edit(d)
    raw = copy.deepcopy(d)
    raw["metadata"].update(generation=generation, finalizers=["ray.io/rayservice-finalizer"])
    raw["status"] = status
    return d, World([Obj(raw)])


def test_handle_suspend_observed_generation():
    # TestHandleSuspendObservedGeneration: entering Suspending bumps observedGeneration (status and the
    # condition); an idle Suspended pass does not
    d, w = _rs_world({"observedGeneration": 2}, 5, lambda d: d["spec"].update(suspend=True))
    (act,) = RayServiceModel().reconcile(obj(d), w)
    st = act.payload["status"]
    assert st["observedGeneration"] == 5
    (suspending,) = [c for c in st["conditions"] if c["type"] == "Suspending"]
    assert suspending["status"] == "True" and suspending["observedGeneration"] == 5
    suspended = [{"type": "Suspended", "status": "True", "reason": "SuspendComplete", "message": "",
                  "observedGeneration": 4, "lastTransitionTime": 0}]
    d, w = _rs_world({"observedGeneration": 4, "conditions": suspended}, 9, lambda d: d["spec"].update(suspend=True))
    assert RayServiceModel().reconcile(obj(d), w) == []


@pytest.mark.parametrize("name, annotation, reason", [
    # TestMarkFailedIfInitializingTimedOut
    ("No timeout annotation - should not timeout", None, "Initializing"),
    ("Timeout exceeded - should mark as failed", "10s", "InitializingTimeout"),
    ("Timeout not reached - should not timeout", "1h", "Initializing"),
])
def test_mark_failed_if_initializing_timed_out(name, annotation, reason):
    conds = [{"type": "Ready", "status": "False", "reason": "Initializing", "message": "", "lastTransitionTime": 0}]
    st = {"conditions": copy.deepcopy(conds), "pendingServiceStatus": {"rayClusterName": "text-ml-abcde"}}
    d = base()
    if annotation:
        d["metadata"].setdefault("annotations", {})["ray.io/initializing-timeout"] = annotation
    calculate_conditions(st, obj(d), 60)
    (ready,) = [c for c in st["conditions"] if c["type"] == "Ready"]
    assert ready["reason"] == reason
    if reason == "InitializingTimeout":
        assert not st["pendingServiceStatus"].get("rayClusterName")
        assert ready["message"] == ("RayService failed to become ready within the configured timeout of 10s. "
                                    "Time spent initializing: 1m0s")  # Go durations, as upstream formats them


def test_fidelity_doc_names_only_tests_that_exist():
    """docs/kuberay-fidelity.md points at tests by file and name: each one exists."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    doc = (root / "docs" / "kuberay-fidelity.md").read_text()
    here = Path(__file__).resolve().parent
    refs = re.findall(r"`(test_\w+\.py)::(test_\w+?)(\*)?`", doc)
    assert len(refs) > 40
    for file, name, star in refs:
        text = (here / file).read_text()
        pattern = rf"^def {name}\w*\(" if star else rf"^def {name}\("
        assert re.search(pattern, text, re.M), f"{file}::{name}{star} named in docs/kuberay-fidelity.md does not exist"
