"""Validation rules (utils/validation.go) and diff classification."""

from __future__ import annotations

from pathlib import Path

import pytest

from rolloutctl.core.model import Change
from rolloutctl.kinds.kuberay.model import RayServiceModel
from rolloutctl.kinds.kuberay.validation import RULES, first_error, validate
from rolloutctl.load.files import load_paths

from .helpers import base, edit, incremental, obj, plan, settled
from tests.conftest import UPSTREAM as SHARED_UPSTREAM

UPSTREAM = SHARED_UPSTREAM / "kuberay" / "samples"


def rules_of(raw: dict) -> set[str]:
    return {f.rule for f in validate(obj(raw))}


def test_sample_is_clean():
    assert rules_of(base()) == set()


def test_upstream_samples_are_clean():
    if not UPSTREAM.is_dir():
        pytest.skip("../shared/upstream is not present")
    loaded = load_paths([str(p) for p in sorted(UPSTREAM.glob("*.yaml"))])
    for o in loaded.objects:
        if o.kind == "RayService":
            assert [f for f in validate(o) if f.severity == "error"] == [], o.file


@pytest.mark.parametrize("rule,change", [
    ("RS001", lambda d: d["metadata"].__setitem__("name", "a" * 48)),
    ("RS002", lambda d: d["metadata"].__setitem__("name", "1svc")),
    ("RS003", lambda d: d["metadata"].__setitem__("annotations", {"ray.io/initializing-timeout": "-5m"})),
    ("RS006", lambda d: d["spec"]["rayClusterConfig"]["headGroupSpec"].__setitem__("resources", {"CPU": "1"})),
    ("RS010", lambda d: d["spec"]["rayClusterConfig"]["workerGroupSpecs"][0].update(minReplicas=7, maxReplicas=2)),
    ("RS025", lambda d: d["spec"]["rayClusterConfig"]["headGroupSpec"].__setitem__("headService", {"metadata": {"name": "x"}})),
    ("RS026", lambda d: d["spec"].__setitem__("upgradeStrategy", {"type": "BlueGreen"})),
    ("RS027", lambda d: d["spec"].__setitem__("rayClusterDeletionDelaySeconds", -1)),
    ("RS029", lambda d: d["spec"].__setitem__("managedBy", "someone")),
    ("RS030", lambda d: d["spec"]["rayClusterConfig"].__setitem__("upgradeStrategy", {"type": "Recreate"})),
    ("RS033", lambda d: d["spec"]["rayClusterConfig"].__setitem__("suspend", True)),
])
def test_rule_fires(rule, change):
    assert rule in RULES
    assert rule in rules_of(edit(base(), change))


def test_incremental_options_rule():
    bad = edit(incremental(base()), lambda d: d["spec"]["upgradeStrategy"]["clusterUpgradeOptions"].update(
        stepSizePercent=80, maxSurgePercent=50))
    fs = [f for f in validate(obj(bad)) if f.rule == "RS028"]
    assert fs and "less than or equal to maxSurgePercent" in fs[0].message
    no_autoscaler = edit(incremental(base()), lambda d: d["spec"]["rayClusterConfig"].pop("enableInTreeAutoscaling"))
    assert "Ray Autoscaler is required" in first_error(obj(no_autoscaler))


def test_findings_carry_file_and_line(tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text("apiVersion: ray.io/v1\nkind: RayService\nmetadata:\n  name: svc\nspec:\n"
                 "  rayClusterDeletionDelaySeconds: -3\n  rayClusterConfig:\n    headGroupSpec:\n"
                 "      template:\n        spec:\n          containers: [{name: h, image: x}]\n")
    (o,) = load_paths([str(p)]).objects
    (f,) = [f for f in validate(o) if f.rule == "RS027"]
    assert f.file == str(p) and f.line == 6
    assert first_error(o).startswith("The RayService spec is invalid:")


def test_managed_by_is_immutable():
    old = obj(base())
    new = obj(edit(base(), lambda d: d["spec"].__setitem__("managedBy", "kueue.x-k8s.io/multikueue")))
    assert any(f.rule == "RS029" and "immutable" in f.message for f in validate(new, old))


# --------------------------------------------------------------------------- classify

def effects(changes, desired):
    return {i.effect: i for i in RayServiceModel().classify(changes, obj(desired), obj(base()))}


def test_classify_replicas_ignored_and_image_rollout():
    d = edit(base(), lambda d: d["spec"]["rayClusterConfig"]["workerGroupSpecs"][0].__setitem__("replicas", 5))
    e = effects([Change("spec.rayClusterConfig.workerGroupSpecs[groupName=cpu].replicas", "replace", 3, 5)], d)
    assert set(e) == {"ignored"}
    path = "spec.rayClusterConfig.headGroupSpec.template.spec.containers[name=ray-head].image"
    d2 = edit(d, lambda d: d["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]
              .__setitem__("image", "x:2"))
    e2 = effects([Change(path, "replace", "a", "x:2"),
                  Change("spec.rayClusterConfig.workerGroupSpecs[groupName=cpu].replicas", "replace", 3, 5)], d2)
    assert e2["rollout"].paths == (path, "spec.rayClusterConfig.workerGroupSpecs[groupName=cpu].replicas")


def test_classify_a_serve_config_edit_with_a_rollout_goes_to_the_new_cluster():
    """While a new cluster is prepared ``reconcileServe`` skips the active one: a Serve config
    changed with the image reaches only the new cluster (rollout); alone it is submitted to
    the serving cluster (in-place)."""
    serve = Change("spec.serveConfigV2", "replace", "a", "b")
    new_config = edit(base(), lambda d: d["spec"].__setitem__(
        "serveConfigV2", d["spec"]["serveConfigV2"].replace("num_replicas: 2", "num_replicas: 3")))
    assert set(effects([serve], new_config)) == {"in-place"}
    path = "spec.rayClusterConfig.headGroupSpec.template.spec.containers[name=ray-head].image"
    both = edit(new_config, lambda d: d["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]
                .__setitem__("image", "x:2"))
    e = effects([Change(path, "replace", "a", "x:2"), serve], both)
    assert set(e) == {"rollout"}
    assert any("keeps its config" in i.message for i in RayServiceModel().classify(
        [Change(path, "replace", "a", "x:2"), serve], obj(both), obj(base())) if "spec.serveConfigV2" in i.paths)


def test_classify_suspend_and_nested_suspend():
    d = edit(base(), lambda d: d["spec"].__setitem__("suspend", True))
    assert set(effects([Change("spec.suspend", "add", None, True)], d)) == {"teardown"}
    n = edit(base(), lambda d: d["spec"]["rayClusterConfig"].__setitem__("suspend", True))
    assert set(effects([Change("spec.rayClusterConfig.suspend", "add", None, True)], n)) == {"ignored"}


def test_classify_serve_config_in_place_and_none_strategy_ignored():
    d = edit(base(), lambda d: d["spec"].__setitem__("serveConfigV2", "applications: []"))
    assert set(effects([Change("spec.serveConfigV2", "replace", "a", "b")], d)) == {"in-place"}
    none = edit(base(), lambda d: (d["spec"].__setitem__("upgradeStrategy", {"type": "None"}),
                                   d["spec"]["rayClusterConfig"].__setitem__("rayVersion", "2.53.0")))
    e = effects([Change("spec.rayClusterConfig.rayVersion", "replace", "2.52.0", "2.53.0")], none)
    assert "ignored" in e


def test_classify_appended_group_in_place():
    import copy

    def f(d):
        g = copy.deepcopy(d["spec"]["rayClusterConfig"]["workerGroupSpecs"][0])
        g["groupName"] = "more"
        d["spec"]["rayClusterConfig"]["workerGroupSpecs"].append(g)
    e = effects([Change("spec.rayClusterConfig.workerGroupSpecs[groupName=more]", "add", None, {})], edit(base(), f))
    assert set(e) == {"in-place"}


def test_live_cluster_defaulted_by_the_api_server_matches_its_manifest():
    """A RayCluster read back from the API server carries CRD defaults the manifest
    never wrote (priority 0, numOfHosts 1, port protocol TCP, min/max replicas); the
    cluster decision must not mistake them for a spec change (no new pending cluster)."""
    import copy

    from rolloutctl.core.model import Obj
    from rolloutctl.kinds.kuberay.decisions import is_cluster_spec_hash_equal

    cfg = {"headGroupSpec": {"rayStartParams": {}, "template": {"spec": {"containers": [
               {"name": "ray-head", "image": "rayproject/ray:2.46.0", "ports": [{"containerPort": 8265, "name": "dashboard"}]}]}}},
           "workerGroupSpecs": [{"groupName": "gpu", "replicas": 2, "rayStartParams": {},
                                 "template": {"spec": {"containers": [{"name": "ray-worker", "image": "rayproject/ray:2.46.0"}]}}}]}
    desired = Obj({"apiVersion": "ray.io/v1", "kind": "RayService", "metadata": {"name": "s"},
                   "spec": {"rayClusterConfig": cfg}})
    live_spec = copy.deepcopy(cfg)
    live_spec["headGroupSpec"]["template"]["spec"]["containers"][0]["ports"][0]["protocol"] = "TCP"
    live_spec["workerGroupSpecs"][0].update({"priority": 0, "numOfHosts": 1, "minReplicas": 0, "maxReplicas": 2147483647})
    cluster = Obj({"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": "s-abcde"}, "spec": live_spec})
    assert is_cluster_spec_hash_equal(desired, cluster, partial=False)
    changed = copy.deepcopy(live_spec)
    changed["workerGroupSpecs"][0]["priority"] = 5
    assert not is_cluster_spec_hash_equal(desired, Obj({**cluster.raw, "spec": changed}), partial=False)


def _diff_impacts(cli, tmp_path, new: dict, live: dict) -> dict:
    import json

    import yaml

    from tests.conftest import write

    out = cli("diff", write(tmp_path, "new.yaml", yaml.safe_dump(new)), "--live",
              write(tmp_path, "live.yaml", yaml.safe_dump(live)), "-o", "json")
    return {i["effect"]: i for i in json.loads(out.stdout)["objects"][0]["impact"]}


def test_diff_of_a_switch_to_incremental_upgrade_names_the_objects_created_at_once(cli, tmp_path):
    """Reconcile reads utils.IsIncrementalUpgradeEnabled every pass: turning
    NewClusterWithIncrementalUpgrade on creates the per-cluster serve Service, the Gateway and
    the HTTPRoute on the next pass (the plan shows them), not only at the next upgrade."""
    old = edit(base(), lambda d: d["spec"]["rayClusterConfig"].__setitem__("enableInTreeAutoscaling", True))
    new = incremental(base())
    on = _diff_impacts(cli, tmp_path, new, old)
    assert "none" not in on and "spec.upgradeStrategy.type" in on["in-place"]["paths"]
    assert "Gateway text-ml-gateway" in on["in-place"]["message"]
    creates = {(a.kind, a.name) for a in plan(new, settled(old)).actions if a.verb == "create"}
    assert {("Gateway", "text-ml-gateway"), ("HTTPRoute", "text-ml-httproute")} <= creates
    off = _diff_impacts(cli, tmp_path, old, new)
    assert "none" not in off and "serve Service" in off["in-place"]["message"]
    envoy = edit(new, lambda d: d["spec"]["upgradeStrategy"]["clusterUpgradeOptions"].update(
        gatewayClassName="envoy", stepSizePercent=50))
    cls = _diff_impacts(cli, tmp_path, envoy, new)
    assert cls["in-place"]["paths"] == ["spec.upgradeStrategy.clusterUpgradeOptions.gatewayClassName"]
    assert cls["none"]["paths"] == ["spec.upgradeStrategy.clusterUpgradeOptions.stepSizePercent"]
    assert ("update", "Gateway") in {(a.verb, a.kind) for a in plan(envoy, settled(new)).actions}


def test_diff_of_a_renamed_serve_service_says_a_new_service_is_created(cli, tmp_path):
    """reconcileServices finds no Service under the new serveService name and creates it
    (the plan shows the create); the old one stays. Other serveService edits are ignored."""
    old = edit(base(), lambda d: d["spec"].__setitem__("serveService", {"metadata": {"name": "text-ml-public"}}))
    new = edit(old, lambda d: d["spec"]["serveService"]["metadata"].__setitem__("name", "text-ml-edge"))
    renamed = _diff_impacts(cli, tmp_path, new, old)
    assert "ignored" not in renamed and renamed["in-place"]["paths"] == ["spec.serveService.metadata.name"]
    assert "text-ml-edge" in renamed["in-place"]["message"] and "text-ml-public" in renamed["in-place"]["message"]
    assert [(a.verb, a.kind, a.name) for a in plan(new, settled(old)).actions if a.verb != "status"] == \
        [("create", "Service", "text-ml-edge")]
    typed = edit(old, lambda d: d["spec"]["serveService"].__setitem__("spec", {"type": "LoadBalancer"}))
    assert set(_diff_impacts(cli, tmp_path, typed, old)) == {"ignored"}


def test_the_controllers_first_error_is_upstreams_first():
    """ValidateRayClusterSpec (utils/validation.go) returns its first failure: the head
    group's resources and labels come before any worker group, a worker group's checks
    before GCS fault tolerance, and the suspended-group gate after those."""
    from rolloutctl.kinds.kuberay.validation import controller_errors
    from tests.kinds.kuberay.helpers import base, edit, obj

    def both(d):
        rc = d["spec"]["rayClusterConfig"]
        rc["headGroupSpec"]["rayStartParams"]["labels"] = "a=b"
        rc["workerGroupSpecs"][0].update(minReplicas=9, maxReplicas=5)
    errs = controller_errors(obj(edit(base(), both)))
    assert errs[0].message.startswith("rayStartParams['labels'] is not supported for Head group"), errs[0].message
    assert any("greater than maxReplicas" in e.message for e in errs)


@pytest.mark.parametrize("ft, head_env, message", [
    ({"backend": "rocksdb", "redisPassword": {}}, None, "cannot set gcsFaultToleranceOptions.redisPassword"),
    ({"backend": "rocksdb", "storage": {"claimName": "gcs", "size": "1Gi"}}, None, "gcsFaultToleranceOptions.storage.claimName is mutually exclusive"),
    ({"backend": "rocksdb"}, "RAY_gcs_storage", "cannot set RAY_gcs_storage env var"),
    ({"backend": "rocksdb"}, None, None),
])
def test_the_embedded_gcs_backend_keeps_what_kuberay_manages(ft, head_env, message):
    """validateGcsFaultToleranceBackend (utils/validation.go), the rocksdb backend with its
    gate on: no Redis fields (a credential set even to {} counts), claimName without size,
    class or access modes, and none of the env vars, volume and mount KubeRay manages."""
    from rolloutctl.kinds.kuberay.operator import OperatorConfig
    from rolloutctl.kinds.kuberay.validation import controller_errors
    from tests.kinds.kuberay.helpers import base, edit, obj

    def f(d):
        rc = d["spec"]["rayClusterConfig"]
        rc["gcsFaultToleranceOptions"] = ft
        if head_env:
            rc["headGroupSpec"]["template"]["spec"]["containers"][0].setdefault("env", []).append(
                {"name": head_env, "value": "x"})
    cfg = OperatorConfig.from_options(feature_gates=["GCSFaultToleranceEmbeddedStorage=true"])
    errs = [e.message for e in controller_errors(obj(edit(base(), f)), cfg) if e.rule == "RS016"]
    assert (errs[0].startswith(message) if message else errs == []), errs
