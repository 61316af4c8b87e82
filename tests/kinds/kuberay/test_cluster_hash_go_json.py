"""Which edits of ``rayClusterConfig`` change KubeRay's cluster hash: a SHA-1 of Go's
``json.Marshal`` of the ``RayClusterSpec`` (``utils.GenerateHashWithoutReplicasAndWorkersToDelete``,
ray-project/kuberay @ feeaf72f). ``json.Marshal`` writes a map without ``omitempty``
(``rayStartParams``) as ``{}`` when empty and ``null`` when nil, an empty struct behind a
pointer (``securityContext: {}``, ``autoscalerOptions: {}``) as ``{}`` and a nil one not at
all, and every entry of a map, an empty string value too; it leaves out the zero value of
a plain ``omitempty`` field (``readOnly: false`` on a PVC volume source) and an empty
non-pointer struct or ``omitempty`` list. A hash change on an unchanged upgrade strategy
means a new pending RayCluster (``shouldPrepareNewCluster``); no change means nothing."""

from __future__ import annotations

import copy

import pytest
import yaml

from tests.conftest import SAMPLES


def _sample() -> dict:
    return yaml.safe_load((SAMPLES / "rayservice-text-ml.yaml").read_text())


def _rcc(d: dict) -> dict:
    return d["spec"]["rayClusterConfig"]


def _head_pod(d: dict) -> dict:
    return _rcc(d)["headGroupSpec"]["template"]["spec"]


def _worker_pod(d: dict) -> dict:
    return _rcc(d)["workerGroupSpecs"][0]["template"]["spec"]


def _drop_worker_params(d):
    del _rcc(d)["workerGroupSpecs"][0]["rayStartParams"]


def _pod_security_context(d):
    _head_pod(d)["securityContext"] = {}


def _autoscaler_options(d):
    _rcc(d)["autoscalerOptions"] = {}


def _empty_node_selector_value(d):
    _worker_pod(d)["nodeSelector"] = {"node-role.kubernetes.io/ray-worker": ""}


def _empty_container_resources(d):
    # (the old side of these cases has no resources on that container: see _without_resources)
    _head_pod(d)["containers"][0]["resources"] = {}


def _without_resources(d: dict) -> dict:
    _head_pod(d)["containers"][0].pop("resources", None)
    return d


def _empty_env_list(d):
    _head_pod(d)["containers"][0]["env"] = []


def _pvc(read_only):
    def f(d):
        vol = {"name": "data", "persistentVolumeClaim": {"claimName": "data"}}
        if read_only is not None:
            vol["persistentVolumeClaim"]["readOnly"] = read_only
        _worker_pod(d)["volumes"] = [vol]
    return f


NEW_CLUSTER = [
    ("rayStartParams {} removed: null instead of {}", _drop_worker_params),
    ("securityContext: {} added: a pointer to an empty struct", _pod_security_context),
    ("autoscalerOptions: {} added", _autoscaler_options),
    ("a nodeSelector entry with an empty value", _empty_node_selector_value),
]


def _plan(cli, tmp_path, new: dict, old: dict) -> dict:
    nf, of = tmp_path / "new.yaml", tmp_path / "old.yaml"
    nf.write_text(yaml.safe_dump(new))
    of.write_text(yaml.safe_dump(old))
    r = cli("plan", str(nf), "--observed", str(of), "-o", "json")
    assert r.exit_code == 0, r.stdout
    return r.json()


def _pending_created(plan: dict) -> bool:
    return any(a["verb"] == "create" and a["kind"] == "RayCluster" for s in plan["steps"] for a in s["actions"])


@pytest.mark.parametrize("name, edit", NEW_CLUSTER, ids=[n for n, _ in NEW_CLUSTER])
def test_an_edit_that_changes_the_go_json_makes_a_new_cluster(cli, tmp_path, name, edit):
    old = _sample()
    new = copy.deepcopy(old)
    edit(new)
    p = _plan(cli, tmp_path, new, old)
    assert p["outcome"] == "converged" and _pending_created(p), name


SAME_HASH = [
    ("resources: {} on a container: a plain struct, written whole either way", _empty_container_resources),
    ("env: [] on a container: an omitempty list", _empty_env_list),
]


@pytest.mark.parametrize("name, edit", SAME_HASH, ids=[n for n, _ in SAME_HASH])
def test_an_edit_go_json_does_not_see_changes_nothing(cli, tmp_path, name, edit):
    old = _without_resources(_sample())
    new = copy.deepcopy(old)
    edit(new)
    p = _plan(cli, tmp_path, new, old)
    assert p["outcome"] == "noop" and not _pending_created(p), name


def test_read_only_false_on_a_pvc_source_is_left_out_as_go_does(cli, tmp_path):
    old, new = _sample(), _sample()
    _pvc(None)(old)
    _pvc(False)(new)
    assert _plan(cli, tmp_path, new, old)["outcome"] == "noop"
    _pvc(True)(new)
    assert _pending_created(_plan(cli, tmp_path, new, old))


def test_diff_shows_an_empty_struct_the_hash_sees_and_its_rollout(cli, tmp_path):
    old = _sample()
    new = copy.deepcopy(old)
    _pod_security_context(new)
    nf, of = tmp_path / "new.yaml", tmp_path / "old.yaml"
    nf.write_text(yaml.safe_dump(new))
    of.write_text(yaml.safe_dump(old))
    obj = cli("diff", str(nf), "--live", str(of), "-o", "json").json()["objects"][0]
    assert [c["path"] for c in obj["changes"]] == ["spec.rayClusterConfig.headGroupSpec.template.spec.securityContext"]
    assert [i["effect"] for i in obj["impact"]] == ["rollout"]
    # an empty container resources block is no change in diff either
    old2 = _without_resources(copy.deepcopy(old))
    new2 = copy.deepcopy(old2)
    _empty_container_resources(new2)
    of.write_text(yaml.safe_dump(old2))
    nf.write_text(yaml.safe_dump(new2))
    assert cli("diff", str(nf), "--live", str(of), "-o", "json").json()["objects"][0]["status"] == "unchanged"


def test_gcs_fault_tolerance_with_redis_warns_that_the_cleanup_finalizer_is_not_modelled(cli, tmp_path):
    """rayClusterReconcile keeps a deleted RayCluster until a Redis cleanup Job finishes
    when GCS fault tolerance uses Redis; the plan says it does not model that, unless the
    operator runs with ENABLE_GCS_FT_REDIS_CLEANUP=false or the backend is embedded."""
    d = _sample()
    _rcc(d)["gcsFaultToleranceOptions"] = {"redisAddress": "redis://redis:6379"}
    f = tmp_path / "rs.yaml"
    f.write_text(yaml.safe_dump(d))
    codes = [w["code"] for w in cli("plan", str(f), "-o", "json").json()["warnings"]]
    assert "NotModelledRedisCleanup" in codes
    off = cli("plan", str(f), "--kuberay-env", "ENABLE_GCS_FT_REDIS_CLEANUP=false", "-o", "json").json()
    assert "NotModelledRedisCleanup" not in [w["code"] for w in off["warnings"]]
    plain = tmp_path / "plain.yaml"
    plain.write_text(yaml.safe_dump(_sample()))
    assert "NotModelledRedisCleanup" not in [w["code"] for w in cli("plan", str(plain), "-o", "json").json()["warnings"]]
