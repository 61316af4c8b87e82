"""Grove's pod template hash sees the template as Go decodes it.

``ComputeHash`` (``operator/internal/utils/kubernetes/pod.go``, ai-dynamo/grove @ fcc3b3bb)
prints the decoded ``corev1.PodTemplateSpec`` with ``dump.ForHash``: a plain field's zero
value is the same as leaving the field out, while a pointer that is set, and a map or
slice that is set (even empty), differ from absent. ``plan`` and ``diff`` both follow it."""

from __future__ import annotations

import copy

import pytest

from rolloutctl.core.go_values import JSON, SPEW, go_form, keeps_empty_at
from rolloutctl.core.k8s_go_types import K8S_GO_TYPES
from tests.kinds.grove import sample_edits as E


def _sample() -> dict:
    """The bundled sample, its frontend container with a readiness probe and a
    security context."""
    d = E.sample()
    c = _frontend(d)["spec"]["podSpec"]["containers"][0]
    c["readinessProbe"] = {"tcpSocket": {"port": 8000}}
    c["securityContext"] = {"readOnlyRootFilesystem": True}
    return d


def _frontend(d: dict) -> dict:
    return E.clique(d, "frontend")


def _plan(cli, new: dict, old: dict, tmp_path) -> dict:
    return E.plan(cli, new, old, tmp_path)


def _diff_effects(cli, new: dict, old: dict, tmp_path) -> list[str]:
    return [i["effect"] for o in E.diff(cli, new, old, tmp_path)["objects"] for i in o.get("impact") or ()]


_pod_deletes = E.pod_deletes


def _container(clique: dict) -> dict:
    return clique["spec"]["podSpec"]["containers"][0]


ZERO_VALUES = {
    "stdin: false": lambda c: _container(c).update(stdin=False),
    "tty: false": lambda c: _container(c).update(tty=False),
    "workingDir: \"\"": lambda c: _container(c).update(workingDir=""),
    "hostNetwork: false": lambda c: c["spec"]["podSpec"].update(hostNetwork=False),
    "probe initialDelaySeconds: 0": lambda c: _container(c)["readinessProbe"].update(initialDelaySeconds=0),
}

SET_VALUES = {
    "clique labels: {}": lambda c: c.update(labels={}),
    "clique annotations: {}": lambda c: c.update(annotations={}),
    "tolerations: []": lambda c: c["spec"]["podSpec"].update(tolerations=[]),
    "nodeSelector: {}": lambda c: c["spec"]["podSpec"].update(nodeSelector={}),
    "securityContext: {}": lambda c: c["spec"]["podSpec"].update(securityContext={}),
    "enableServiceLinks: false": lambda c: c["spec"]["podSpec"].update(enableServiceLinks=False),
    "env: []": lambda c: _container(c).update(env=[]),
    "privileged: false": lambda c: _container(c)["securityContext"].update(privileged=False),
}


@pytest.mark.parametrize("edit", sorted(ZERO_VALUES))
def test_a_plain_fields_zero_value_is_the_same_as_absent(cli, tmp_path, edit):
    old = _sample()
    new = copy.deepcopy(old)
    ZERO_VALUES[edit](_frontend(new))
    p = _plan(cli, new, old, tmp_path)
    assert p["outcome"] == "noop", edit
    assert _pod_deletes(p) == 0
    (impact,) = E.diff(cli, new, old, tmp_path)["objects"][0]["impact"]
    assert impact["effect"] == "none" and "the same once Go decodes it" in impact["message"], impact


@pytest.mark.parametrize("edit", sorted(SET_VALUES))
def test_a_set_pointer_map_or_slice_differs_from_absent(cli, tmp_path, edit):
    old = _sample()
    new = copy.deepcopy(old)
    SET_VALUES[edit](_frontend(new))
    p = _plan(cli, new, old, tmp_path)
    assert p["outcome"] == "converged", edit
    assert _pod_deletes(p) == 2  # the frontend clique's two pods are replaced
    assert _diff_effects(cli, new, old, tmp_path) == ["rollout"], edit


def test_an_empty_container_resources_is_the_same_as_none(cli, tmp_path):
    old = _sample()
    del _container(_frontend(old))["resources"]
    new = copy.deepcopy(old)
    _container(_frontend(new))["resources"] = {}
    assert _plan(cli, new, old, tmp_path)["outcome"] == "noop"


def test_removing_a_zero_value_someone_wrote_replaces_no_pod(cli, tmp_path):
    old = _sample()
    _container(_frontend(old)).update(stdin=False)
    old["spec"]["template"]["cliques"][0]["spec"]["podSpec"]["containers"][0]["volumeMounts"] = [
        {"name": "cache", "mountPath": "/cache", "readOnly": False}]
    _frontend(old)["spec"]["podSpec"]["volumes"] = [{"name": "cache", "emptyDir": {}}]
    new = copy.deepcopy(old)
    del _container(_frontend(new))["stdin"]
    del _container(_frontend(new))["volumeMounts"][0]["readOnly"]
    assert _plan(cli, new, old, tmp_path)["outcome"] == "noop"


def test_go_form_of_the_two_encoders():
    pod = {"containers": [{"name": "a", "stdin": False, "env": [], "resources": {}}],
           "tolerations": [], "securityContext": {}, "hostNetwork": False, "nodeSelector": {}}
    t = (K8S_GO_TYPES,)
    assert go_form(pod, "corev1.PodSpec", t, SPEW) == {
        "containers": [{"name": "a", "env": []}], "tolerations": [], "securityContext": {}, "nodeSelector": {}}
    # json.Marshal leaves empty omitempty slices and maps out, but writes a set pointer
    assert go_form(pod, "corev1.PodSpec", t, JSON) == {"containers": [{"name": "a"}], "securityContext": {}}
    # containers has no omitempty: an empty list is written ``[]``, unlike nil
    assert go_form({"containers": []}, "corev1.PodSpec", t, JSON) == {"containers": []}
    assert go_form({}, "corev1.PodSpec", t, JSON) == {}
    # a field the tables do not know is kept as written
    assert go_form({"futureField": False}, "corev1.PodSpec", t, SPEW) == {"futureField": False}


@pytest.mark.parametrize("path,spew,json_", [
    (("tolerations",), True, False),
    (("containers", 0, "resources"), False, False),  # a plain struct
    (("resources",), True, True),  # the pod-level one is a pointer
    (("volumes", 0, "projected", "sources"), True, True),  # no omitempty
    (("hostNetwork",), False, False),
    (("noSuchField",), False, False),
])
def test_keeps_empty_at_follows_the_go_types(path, spew, json_):
    t = (K8S_GO_TYPES,)
    assert keeps_empty_at(path, "corev1.PodSpec", t, SPEW) is spew
    assert keeps_empty_at(path, "corev1.PodSpec", t, JSON) is json_


def test_diff_and_plan_agree_on_an_empty_map_only_the_live_clique_has(cli, tmp_path):
    """The live clique has ``labels: {}``, the manifest none: the apply (a JSON merge patch
    sends the changed ``cliques`` list whole) leaves the labels nil, and the hash changes."""
    desired = _sample()
    live = copy.deepcopy(desired)
    _frontend(live)["labels"] = {}
    assert _plan(cli, desired, live, tmp_path)["outcome"] == "converged"
    assert _diff_effects(cli, desired, live, tmp_path) == ["rollout"]
    _frontend(live).pop("labels")
    _frontend(live)["spec"]["podSpec"]["nodeSelector"] = {"pool": "cpu"}
    _frontend(desired)["spec"]["podSpec"]["nodeSelector"] = {}
    assert _diff_effects(cli, desired, live, tmp_path) == ["rollout"]
