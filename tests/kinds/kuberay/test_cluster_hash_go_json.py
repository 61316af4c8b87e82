"""Which edits of ``rayClusterConfig`` change KubeRay's cluster hash: a SHA-1 of Go's
``json.Marshal`` of the ``RayClusterSpec`` (``utils.GenerateHashWithoutReplicasAndWorkersToDelete``,
ray-project/kuberay @ feeaf72f). ``json.Marshal`` writes a map without ``omitempty``
(``rayStartParams``) as ``{}`` when empty and ``null`` when nil, an empty struct behind a
pointer (``securityContext: {}``, ``autoscalerOptions: {}``) as ``{}`` and a nil one not at
all, a pointer scalar set to ``""``, ``false`` or ``0`` (``storageClassName: ""``) as that
value, an empty slice without ``omitempty`` (``projected.sources``) as ``[]`` and a nil one
as ``null``, and every entry of a map, an empty string value too. It writes the zero value
of a plain field (``readOnly: false`` on a PVC volume source, ``partition: 0``, a plain
string's ``""``), an empty non-pointer struct and an empty ``omitempty`` list as it writes
their absence. One name can be a different Go type in different structs (a pod's
``resources`` is a pointer, a container's a plain struct; a Service's ``selector`` is a
map, a claim template's a pointer). A hash change on an unchanged upgrade strategy means a
new pending RayCluster (``shouldPrepareNewCluster``); no change means nothing."""

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


def _plan(cli, tmp_path, new: dict, old: dict, *flags: str) -> dict:
    nf, of = tmp_path / "new.yaml", tmp_path / "old.yaml"
    nf.write_text(yaml.safe_dump(new))
    of.write_text(yaml.safe_dump(old))
    r = cli("plan", str(nf), "--observed", str(of), "-o", "json", *flags)
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


# -------------------------------------------------------------- Go JSON by field type
# Each case: (what it shows, what both sides have, the edit of the new side). The old side
# is the sample with ``base``; the new side also has ``edit``.

RCC = ("spec", "rayClusterConfig")
WORKER_POD = (*RCC, "workerGroupSpecs", 0, "template", "spec")
CONTAINER = (*WORKER_POD, "containers", 0)
VOLUME = (*WORKER_POD, "volumes", 0)
CLAIM_SPEC = (*VOLUME, "ephemeral", "volumeClaimTemplate", "spec")
HEAD_SERVICE_SPEC = (*RCC, "headGroupSpec", "headService", "spec")
#: the gates of the fields some cases set (networkPolicy, the RocksDB GCS backend); off, the
#: controller fails the RayService before any cluster decision
GATES = ("--feature-gate", "RayClusterNetworkPolicy=true", "--feature-gate", "GCSFaultToleranceEmbeddedStorage=true")


def _set(*path, value):
    """An edit setting ``path`` (keys and list positions) to ``value``, making the
    mappings on the way."""
    def edit(d):
        node = d
        for k in path[:-1]:
            node = node[k] if isinstance(k, int) else node.setdefault(k, {})
        node[path[-1]] = copy.deepcopy(value)
    return edit


def _nothing(d):
    pass


def _volume(**source):
    """Both sides have one worker volume ``data`` with ``source``."""
    return _set(*WORKER_POD, "volumes", value=[{"name": "data", **source}])


def _claim_template(**spec):
    return _volume(ephemeral={"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"],
                                                               "resources": {"requests": {"storage": "1Gi"}}, **spec}}})


def _makes_new_cluster(cli, tmp_path, base, edit) -> bool:
    """Whether ``rolloutctl plan`` of the edit against the observed old side creates a
    pending RayCluster; when it does not, the plan is no change at all."""
    old = _sample()
    base(old)
    new = copy.deepcopy(old)
    edit(new)
    p = _plan(cli, tmp_path, new, old, *GATES)
    if _pending_created(p):
        assert p["outcome"] == "converged"
        return True
    assert p["outcome"] == "noop", p["outcome"]
    return False


def _cases(rows):
    return pytest.mark.parametrize("name, base, edit", rows, ids=[r[0] for r in rows])


RESOURCES = [
    # PodSpec.Resources is *ResourceRequirements (core/v1 types.go)
    ("pod-level resources: {} (a pointer)", _nothing, _set(*WORKER_POD, "resources", value={})),
]
RESOURCES_SAME = [
    # Container.Resources and PersistentVolumeClaimSpec.Resources are plain structs (the
    # container case without resources on the old side: SAME_HASH above)
    ("claim template resources: {} (a plain struct)",
     _volume(ephemeral={"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"]}}}),
     _set(*CLAIM_SPEC, "resources", value={})),
]


@_cases(RESOURCES)
def test_pod_level_resources_is_a_pointer_unlike_a_containers(cli, tmp_path, name, base, edit):
    assert _makes_new_cluster(cli, tmp_path, base, edit), name


@_cases(RESOURCES_SAME)
def test_resources_that_are_plain_structs_hash_alike_empty_or_absent(cli, tmp_path, name, base, edit):
    assert not _makes_new_cluster(cli, tmp_path, base, edit), name


def test_diff_shows_an_empty_pod_level_resources_and_its_rollout(cli, tmp_path):
    old = _sample()
    new = copy.deepcopy(old)
    RESOURCES[0][2](new)
    nf, of = tmp_path / "new.yaml", tmp_path / "old.yaml"
    nf.write_text(yaml.safe_dump(new))
    of.write_text(yaml.safe_dump(old))
    obj = cli("diff", str(nf), "--live", str(of), "-o", "json").json()["objects"][0]
    assert [c["path"] for c in obj["changes"]] == \
        ["spec.rayClusterConfig.workerGroupSpecs[groupName=cpu].template.spec.resources"]
    assert [i["effect"] for i in obj["impact"]] == ["rollout"]


POINTER_STRUCTS = [
    # raycluster_types.go NetworkPolicyConfig.Head / .Worker: *NetworkPolicyRules
    ("networkPolicy.head: {}", _set(*RCC, "networkPolicy", value={}), _set(*RCC, "networkPolicy", "head", value={})),
    ("networkPolicy.worker: {}", _set(*RCC, "networkPolicy", value={}),
     _set(*RCC, "networkPolicy", "worker", value={})),
    # networking/v1 NetworkPolicyPeer.PodSelector / .IPBlock
    ("an ingress peer's podSelector: {}",
     _set(*RCC, "networkPolicy", value={"head": {"ingressRules": [{"from": [{}]}]}}),
     _set(*RCC, "networkPolicy", "head", "ingressRules", 0, "from", 0, "podSelector", value={})),
    # core/v1 ServiceSpec.SessionAffinityConfig, SessionAffinityConfig.ClientIP
    ("head service sessionAffinityConfig: {}", _set(*HEAD_SERVICE_SPEC, "type", value="ClusterIP"),
     _set(*HEAD_SERVICE_SPEC, "sessionAffinityConfig", value={})),
    ("head service sessionAffinityConfig.clientIP: {}", _set(*HEAD_SERVICE_SPEC, "sessionAffinityConfig", value={}),
     _set(*HEAD_SERVICE_SPEC, "sessionAffinityConfig", "clientIP", value={})),
    # core/v1 PersistentVolumeClaimSpec.Selector *metav1.LabelSelector (a Service's selector is a map)
    ("claim template selector: {}", _claim_template(), _set(*CLAIM_SPEC, "selector", value={})),
    # core/v1 PodSpec.SchedulingGroup *PodSchedulingGroup
    ("schedulingGroup: {}", _nothing, _set(*WORKER_POD, "schedulingGroup", value={})),
    # core/v1 VolumeSource.Cinder: a source with only a zero field is still written
    ('cinder: {volumeID: ""} on a volume without a source', _volume(),
     _set(*VOLUME, "cinder", value={"volumeID": ""})),
]


@_cases(POINTER_STRUCTS)
def test_an_empty_struct_behind_a_pointer_makes_a_new_cluster(cli, tmp_path, name, base, edit):
    assert _makes_new_cluster(cli, tmp_path, base, edit), name


POINTER_STRINGS = [
    # core/v1 PersistentVolumeClaimSpec.StorageClassName *string: "" asks for no class
    ('claim template storageClassName: ""', _claim_template(), _set(*CLAIM_SPEC, "storageClassName", value="")),
    # core/v1 HostPathVolumeSource.Type *HostPathType
    ('hostPath type: ""', _volume(hostPath={"path": "/data"}), _set(*VOLUME, "hostPath", "type", value="")),
    # raycluster_types.go GcsEmbeddedStorage.StorageClassName *string
    ('GCS storage storageClassName: ""',
     _set(*RCC, "gcsFaultToleranceOptions", value={"backend": "rocksdb", "storage": {}}),
     _set(*RCC, "gcsFaultToleranceOptions", "storage", "storageClassName", value="")),
    # core/v1 PodSpec.RuntimeClassName *string
    ('runtimeClassName: ""', _nothing, _set(*WORKER_POD, "runtimeClassName", value="")),
    # core/v1 SecurityContext.RunAsUser *int64, .Privileged *bool: zero is a value
    ("container securityContext runAsUser: 0", _set(*CONTAINER, "securityContext", value={"privileged": False}),
     _set(*CONTAINER, "securityContext", "runAsUser", value=0)),
]
PLAIN_STRINGS = [
    # core/v1 VolumeMount.SubPath string: "" is written as absent
    ('volume mount subPath: ""', _set(*CONTAINER, "volumeMounts", value=[{"name": "d", "mountPath": "/d"}]),
     _set(*CONTAINER, "volumeMounts", 0, "subPath", value="")),
    # core/v1 PodSpec.PriorityClassName string
    ('priorityClassName: ""', _nothing, _set(*WORKER_POD, "priorityClassName", value="")),
]


@_cases(POINTER_STRINGS)
def test_a_zero_value_in_a_pointer_field_makes_a_new_cluster(cli, tmp_path, name, base, edit):
    assert _makes_new_cluster(cli, tmp_path, base, edit), name


@_cases(PLAIN_STRINGS)
def test_an_empty_string_in_a_plain_field_changes_nothing(cli, tmp_path, name, base, edit):
    assert not _makes_new_cluster(cli, tmp_path, base, edit), name


MAPS = [
    # core/v1 ServiceSpec.Selector map[string]string: an entry with an empty value is written
    ('head service selector entry with value ""', _set(*HEAD_SERVICE_SPEC, "type", value="ClusterIP"),
     _set(*HEAD_SERVICE_SPEC, "selector", value={"app": ""})),
    # core/v1 PodCertificateProjection.UserAnnotations map[string]string
    ('podCertificate userAnnotations entry with value ""',
     _volume(projected={"sources": [{"podCertificate": {"signerName": "example.com/s", "keyType": "ED25519",
                                                        "credentialBundlePath": "b.pem"}}]}),
     _set(*VOLUME, "projected", "sources", 0, "podCertificate", "userAnnotations", value={"example.com/a": ""})),
]
MAPS_SAME = [
    # an empty omitempty map is left out, where the same name elsewhere is a pointer to a struct
    ("head service selector: {}", _set(*HEAD_SERVICE_SPEC, "type", value="ClusterIP"),
     _set(*HEAD_SERVICE_SPEC, "selector", value={})),
]


@_cases(MAPS)
def test_a_map_entry_go_writes_makes_a_new_cluster(cli, tmp_path, name, base, edit):
    assert _makes_new_cluster(cli, tmp_path, base, edit), name


@_cases(MAPS_SAME)
def test_an_empty_omitempty_map_changes_nothing(cli, tmp_path, name, base, edit):
    assert not _makes_new_cluster(cli, tmp_path, base, edit), name


LISTS = [
    # core/v1 ProjectedVolumeSource.Sources []VolumeProjection `json:"sources"` (no omitempty)
    ("projected sources: [] where absent is null", _volume(projected={"defaultMode": 420}),
     _set(*VOLUME, "projected", "sources", value=[])),
]


@_cases(LISTS)
def test_an_empty_list_without_omitempty_makes_a_new_cluster(cli, tmp_path, name, base, edit):
    assert _makes_new_cluster(cli, tmp_path, base, edit), name


PLAIN_ZEROS = [
    # core/v1: plain omitempty fields; their zero value is left out
    ("cinder readOnly: false", _volume(cinder={"volumeID": "v"}), _set(*VOLUME, "cinder", "readOnly", value=False)),
    ("awsElasticBlockStore partition: 0", _volume(awsElasticBlockStore={"volumeID": "v"}),
     _set(*VOLUME, "awsElasticBlockStore", "partition", value=0)),
    ("gcePersistentDisk partition: 0", _volume(gcePersistentDisk={"pdName": "p"}),
     _set(*VOLUME, "gcePersistentDisk", "partition", value=0)),
    ("iscsi chapAuthDiscovery: false", _volume(iscsi={"targetPortal": "t:3260", "iqn": "iqn.x", "lun": 0}),
     _set(*VOLUME, "iscsi", "chapAuthDiscovery", value=False)),
    ("iscsi chapAuthSession: false", _volume(iscsi={"targetPortal": "t:3260", "iqn": "iqn.x", "lun": 0}),
     _set(*VOLUME, "iscsi", "chapAuthSession", value=False)),
    ("scaleIO sslEnabled: false", _volume(scaleIO={"gateway": "g", "system": "s", "secretRef": {"name": "x"}}),
     _set(*VOLUME, "scaleIO", "sslEnabled", value=False)),
]
# the same fields at a non-zero value, and a pointer's zero (CSIVolumeSource.ReadOnly *bool)
PLAIN_ZEROS_SET = [
    ("cinder readOnly: true", PLAIN_ZEROS[0][1], _set(*VOLUME, "cinder", "readOnly", value=True)),
    ("awsElasticBlockStore partition: 1", PLAIN_ZEROS[1][1],
     _set(*VOLUME, "awsElasticBlockStore", "partition", value=1)),
    ("scaleIO sslEnabled: true", PLAIN_ZEROS[5][1], _set(*VOLUME, "scaleIO", "sslEnabled", value=True)),
    ("csi readOnly: false (a *bool)", _volume(csi={"driver": "d"}), _set(*VOLUME, "csi", "readOnly", value=False)),
]


@_cases(PLAIN_ZEROS)
def test_the_zero_value_of_a_plain_field_is_left_out_as_go_does(cli, tmp_path, name, base, edit):
    assert not _makes_new_cluster(cli, tmp_path, base, edit), name


@_cases(PLAIN_ZEROS_SET)
def test_a_set_value_or_a_pointers_zero_makes_a_new_cluster(cli, tmp_path, name, base, edit):
    assert _makes_new_cluster(cli, tmp_path, base, edit), name


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
