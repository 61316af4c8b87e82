"""The Kubernetes-aware structural diff (``rolloutctl.core.diff``), kind-independent."""

from __future__ import annotations

import json

import pytest

from rolloutctl.core.diff import DiffHooks, diff_objects, render_path, split_path
from rolloutctl.core.masking import MASK, MASK_AFTER, MASK_BEFORE
from rolloutctl.core.paths import Key
from rolloutctl.core.model import Obj
from rolloutctl.load.documents import parse_documents

LAST = "kubectl.kubernetes.io/last-applied-configuration"


def obj(raw: dict, file: str = "desired.yaml") -> Obj:
    return Obj(raw, file, 1)


def pod(containers: list, **md) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default", **md},
            "spec": {"containers": containers}}


def paths(changes) -> list[str]:
    return [c.path for c in changes]


# --------------------------------------------------------------------------- list matching by key


def test_list_items_are_matched_by_their_key_and_paths_select_by_key():
    live = pod([{"name": "a", "image": "a:1"}, {"name": "b", "image": "b:1"}])
    desired = pod([{"name": "b", "image": "b:2"}, {"name": "a", "image": "a:1"}])  # reordered and edited
    changes = diff_objects(obj(desired), obj(live))
    assert [(c.path, c.op, c.old, c.new) for c in changes] == [("spec.containers[name=b].image", "replace", "b:1", "b:2")]


def test_env_ports_volumes_and_mounts_are_keyed():
    c1 = {"name": "c", "env": [{"name": "X", "value": "1"}, {"name": "Y", "value": "2"}],
          "ports": [{"name": "http", "containerPort": 80}], "volumeMounts": [{"name": "v", "mountPath": "/a"}]}
    c2 = {"name": "c", "env": [{"name": "Y", "value": "2"}, {"name": "X", "value": "9"}],
          "ports": [{"name": "http", "containerPort": 8080}], "volumeMounts": [{"name": "v", "mountPath": "/b"}]}
    live, desired = pod([c1]), pod([c2])
    live["spec"]["volumes"] = [{"name": "v", "emptyDir": {}}, {"name": "w", "emptyDir": {}}]
    desired["spec"]["volumes"] = [{"name": "w", "emptyDir": {}}, {"name": "v", "configMap": {"name": "cm"}}]
    assert paths(diff_objects(obj(desired), obj(live))) == [
        "spec.containers[name=c].env[name=X].value",
        "spec.containers[name=c].ports[name=http].containerPort",
        "spec.containers[name=c].volumeMounts[name=v].mountPath",
        "spec.volumes[name=v].configMap",
    ]


def test_added_and_removed_keyed_items():
    live = pod([{"name": "a", "image": "a"}, {"name": "gone", "image": "g"}],
               annotations={LAST: json.dumps(pod([{"name": "a", "image": "a"}, {"name": "gone", "image": "g"}]))})
    desired = pod([{"name": "a", "image": "a"}, {"name": "new", "image": "n"}])
    got = [(c.path, c.op) for c in diff_objects(obj(desired), obj(live))]
    assert got == [("spec.containers[name=gone]", "remove"), ("spec.containers[name=new]", "add")]


def test_reordering_a_keyed_list_is_not_a_change():
    live = pod([{"name": "a", "image": "a"}, {"name": "b", "image": "b"}])
    desired = pod([{"name": "b", "image": "b"}, {"name": "a", "image": "a"}])
    assert diff_objects(obj(desired), obj(live)) == ()


def test_reordering_is_reported_once_where_the_kind_says_order_matters():
    live = pod([{"name": "a", "image": "a"}, {"name": "b", "image": "b"}])
    desired = pod([{"name": "b", "image": "b"}, {"name": "a", "image": "a"}])
    hooks = DiffHooks(order_matters=lambda p: p == ("spec", "containers"))
    [c] = diff_objects(obj(desired), obj(live), hooks)
    assert (c.path, c.op, c.old, c.new) == ("spec.containers", "replace", ["a", "b"], ["b", "a"])


def test_lists_of_plain_values_are_compared_whole():
    live = pod([{"name": "a", "args": ["--x", "1"]}])
    desired = pod([{"name": "a", "args": ["--x", "2", "--y"]}])
    [c] = diff_objects(obj(desired), obj(live))
    assert (c.path, c.old, c.new) == ("spec.containers[name=a].args", ["--x", "1"], ["--x", "2", "--y"])


def test_list_without_key_is_compared_by_index():
    live = pod([{"name": "a"}])
    desired = pod([{"name": "a"}])
    live["spec"]["tolerations"] = [{"key": "k", "operator": "Exists"}]
    desired["spec"]["tolerations"] = [{"key": "k", "operator": "Equal", "value": "v"}]
    assert paths(diff_objects(obj(desired), obj(live))) == ["spec.tolerations[0].operator", "spec.tolerations[0].value"]


def test_duplicate_keys_fall_back_to_index_matching():
    live = pod([{"name": "a", "env": [{"name": "X", "value": "1"}, {"name": "X", "value": "2"}]}])
    desired = pod([{"name": "a", "env": [{"name": "X", "value": "1"}, {"name": "X", "value": "3"}]}])
    assert paths(diff_objects(obj(desired), obj(live))) == ["spec.containers[name=a].env[1].value"]


# --------------------------------------------------------------------------- what is not a change


def test_server_managed_fields_and_status_are_ignored():
    desired = pod([{"name": "a", "image": "a"}])
    live = pod([{"name": "a", "image": "a"}], uid="u-1", resourceVersion="7", generation=3,
               creationTimestamp="2026-01-01T00:00:00Z", managedFields=[{"manager": "kubectl"}],
               annotations={LAST: json.dumps(desired)})
    live["status"] = {"phase": "Running"}
    assert diff_objects(obj(desired), obj(live)) == ()


def test_a_field_only_the_live_copy_has_is_not_a_change_without_last_applied():
    desired = pod([{"name": "a", "image": "a"}])
    live = pod([{"name": "a", "image": "a", "imagePullPolicy": "IfNotPresent"}], labels={"injected": "yes"},
               uid="u-1", resourceVersion="7")
    assert diff_objects(obj(desired), obj(live)) == ()


def test_a_previous_manifest_given_as_live_is_its_own_last_applied_configuration():
    """No status and no server metadata: the file is the manifest applied before (as plan's
    --observed reads it), so a field the new manifest leaves out is removed, as plan has it."""
    desired = pod([{"name": "a", "image": "a"}])
    before = pod([{"name": "a", "image": "a", "imagePullPolicy": "Always"}], labels={"team": "x"})
    assert sorted((c.path, c.op) for c in diff_objects(obj(desired), obj(before))) == [
        ("metadata.labels", "remove"), ("spec.containers[name=a].imagePullPolicy", "remove")]


def test_a_field_the_user_had_set_is_a_removal():
    before = pod([{"name": "a", "image": "a", "env": [{"name": "DEBUG", "value": "1"}]}])
    live = pod([{"name": "a", "image": "a", "imagePullPolicy": "Always",
                 "env": [{"name": "DEBUG", "value": "1"}, {"name": "INJECTED", "value": "x"}]}],
               annotations={LAST: json.dumps(before)})
    desired = pod([{"name": "a", "image": "a"}])
    [c] = diff_objects(obj(desired), obj(live))
    assert (c.path, c.op, c.old, c.new) == ("spec.containers[name=a].env", "remove",
                                            [{"name": "DEBUG", "value": "1"}, {"name": "INJECTED", "value": "x"}], None)


def test_dropping_every_annotation_removes_only_the_last_applied_ones():
    # kubectl apply writes its own annotation into the manifest it patches with, so the
    # patch never drops metadata.annotations whole: `kubectl annotate`'s stays
    before = pod([{"name": "a", "image": "a"}], annotations={"team": "ml"})
    live = pod([{"name": "a", "image": "a"}], annotations={"team": "ml", "owner": "sre", LAST: json.dumps(before)})
    desired = pod([{"name": "a", "image": "a"}])
    [c] = diff_objects(obj(desired), obj(live))
    assert (c.path, c.op, c.old, c.new) == ("metadata.annotations.team", "remove", "ml", None)


def test_dropping_every_label_removes_the_whole_map_as_the_merge_patch_does():
    # labels get no such annotation: the deletion patch is `labels: null`
    before = pod([{"name": "a", "image": "a"}], labels={"team": "ml"})
    live = pod([{"name": "a", "image": "a"}], labels={"team": "ml", "owner": "sre"}, annotations={LAST: json.dumps(before)})
    desired = pod([{"name": "a", "image": "a"}])
    [c] = diff_objects(obj(desired), obj(live))
    assert (c.path, c.op, c.old) == ("metadata.labels", "remove", {"owner": "sre", "team": "ml"})


def test_defaults_applied_to_both_sides_make_a_defaulted_field_no_change():
    # The user had written the default explicitly and now leaves it out: kubectl apply
    # removes it and the API server defaults it again.
    before = pod([{"name": "a", "image": "a", "terminationMessagePath": "/dev/termination-log"}])
    live = pod([{"name": "a", "image": "a", "terminationMessagePath": "/dev/termination-log"}],
               annotations={LAST: json.dumps(before)})
    desired = pod([{"name": "a", "image": "a"}])
    assert paths(diff_objects(obj(desired), obj(live))) == ["spec.containers[name=a].terminationMessagePath"]

    def defaults(raw: dict) -> dict:
        out = json.loads(json.dumps(raw))
        for c in out["spec"]["containers"]:
            c.setdefault("terminationMessagePath", "/dev/termination-log")
        return out

    assert diff_objects(obj(desired), obj(live), DiffHooks(defaults=defaults)) == ()


def test_empty_values_and_integral_floats_are_not_changes():
    live = pod([{"name": "a", "resources": {"requests": {"cpu": 1}}}])
    desired = pod([{"name": "a", "resources": {"requests": {"cpu": 1.0}}, "env": [], "args": None}])
    desired["metadata"]["labels"] = {}
    assert diff_objects(obj(desired), obj(live)) == ()


# --------------------------------------------------------------------------- masking


def secret(data: dict, **extra) -> dict:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "default"},
            "data": data, **extra}


def test_secret_data_is_masked_but_a_change_is_shown():
    live = secret({"password": "b2xk", "same": "eA=="})
    desired = secret({"password": "bmV3", "same": "eA==", "token": "dA=="})
    changes = {c.path: c for c in diff_objects(obj(desired), obj(live))}
    assert set(changes) == {"data.password", "data.token"}
    assert (changes["data.password"].old, changes["data.password"].new) == (MASK_BEFORE, MASK_AFTER)
    assert (changes["data.token"].old, changes["data.token"].new) == (None, MASK)
    assert "bmV3" not in json.dumps([c.to_dict() for c in changes.values()])


def test_a_whole_added_secret_data_map_is_masked():
    live = secret({})
    desired = secret({}, stringData={"a": "plain", "b": "text"})
    [c] = diff_objects(obj(desired), obj(live))
    assert (c.path, c.new) == ("stringData", {"a": MASK, "b": MASK})


def test_credential_like_env_values_are_masked_others_are_not():
    live = pod([{"name": "a", "env": [{"name": "RAY_AUTH_TOKEN", "value": "old-secret"},
                                      {"name": "LEVEL", "value": "info"}]}])
    desired = pod([{"name": "a", "env": [{"name": "RAY_AUTH_TOKEN", "value": "new-secret"},
                                         {"name": "LEVEL", "value": "debug"},
                                         {"name": "DB_PASSWORD", "value": "hunter2"}]}])
    got = {c.path: (c.old, c.new) for c in diff_objects(obj(desired), obj(live))}
    assert got == {
        "spec.containers[name=a].env[name=RAY_AUTH_TOKEN].value": (MASK_BEFORE, MASK_AFTER),
        "spec.containers[name=a].env[name=LEVEL].value": ("info", "debug"),
        "spec.containers[name=a].env[name=DB_PASSWORD]": (None, {"name": "DB_PASSWORD", "value": MASK}),
    }


def test_env_inside_an_added_container_is_masked():
    live = pod([{"name": "a"}])
    desired = pod([{"name": "a"}, {"name": "b", "env": [{"name": "API_KEY", "value": "k"}]}])
    [c] = diff_objects(obj(desired), obj(live))
    assert c.new == {"name": "b", "env": [{"name": "API_KEY", "value": MASK}]}


# --------------------------------------------------------------------------- paths and lines


@pytest.mark.parametrize("path", [
    "spec.rayClusterConfig.workerGroupSpecs[groupName=gpu].replicas",
    "spec.template.spec.containers[name=ray-head].image",
    "metadata.annotations[ray.io/initializing-timeout]",
    'data["a b"]',
    "spec.tolerations[0].key",
])
def test_paths_round_trip(path):
    assert render_path(split_path(path)) == path


def test_split_path_segments():
    assert split_path("a.b[name=x][2].c[app.kubernetes.io/name]") == ["a", "b", Key("name", "x"), 2, "c",
                                                                       "app.kubernetes.io/name"]


def test_every_change_carries_the_desired_file_and_line():
    text = """\
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: other
      image: o
    - name: a
      image: a:2
      env:
        - name: NEW
          value: x
"""
    [desired], errors, _ = parse_documents(text, "pod.yaml")
    assert not errors
    live = pod([{"name": "a", "image": "a:1"}, {"name": "other", "image": "o"}], uid="u-1")
    got = {c.path: (c.file, c.line) for c in diff_objects(desired, obj(live))}
    assert got == {"spec.containers[name=a].image": ("pod.yaml", 10),
                   "spec.containers[name=a].env": ("pod.yaml", 11)}


def test_output_is_deterministic():
    live = pod([{"name": n, "image": "x"} for n in "abcdef"])
    desired = pod([{"name": n, "image": "y"} for n in "fedcba"])
    a = [c.to_dict() for c in diff_objects(obj(desired), obj(live))]
    b = [c.to_dict() for c in diff_objects(obj(desired), obj(live))]
    assert json.dumps(a) == json.dumps(b)
    assert [c["path"] for c in a] == sorted(c["path"] for c in a)
