"""SC006: container resources Kubernetes refuses, in every pod template we check."""

from __future__ import annotations

import pytest

from rolloutctl.lint.pods import check_pod_resources, is_extended_resource
from rolloutctl.load.documents import parse_documents

from .cases import clique, pcs, rs


def findings(text: str) -> list[str]:
    objs, errs, _ = parse_documents(text, "t.yaml")
    assert not errs
    return [f"{f.path}: {f.message}" for f in check_pod_resources(objs[0])]


@pytest.mark.parametrize("resources, expected", [
    ("{requests: {cpu: '-1'}}", "requests.cpu: must be greater than or equal to 0"),
    ("{requests: {nvidia.com/gpu: '2'}}", "nvidia.com/gpu: a limit must be set"),
    ("{requests: {nvidia.com/gpu: '1'}, limits: {nvidia.com/gpu: '2'}}", "request must equal the limit"),
    ("{requests: {nvidia.com/gpu: 1500m}, limits: {nvidia.com/gpu: 1500m}}", "must be a whole number"),
    ("{requests: {memory: 2Gi}, limits: {memory: 1Gi}}", "memory: the request must be less than or equal to the limit"),
])
def test_refused_resources_are_reported_on_their_field(resources, expected):
    out = findings(rs(worker_ctr=f"resources: {resources}"))
    assert out and all(expected in f for f in out), out
    assert out[0].startswith("spec.rayClusterConfig.workerGroupSpecs[groupName=small].template.spec.containers[name=ray-worker].resources")


def test_podcliqueset_templates_are_checked_and_good_requests_pass():
    bad = pcs().replace("            image: busybox\n",
                        "            image: busybox\n            resources: {requests: {cpu: '-2'}}\n")
    assert findings(bad) == ["spec.template.cliques[name=worker].spec.podSpec.containers[name=main].resources"
                             ".requests.cpu: must be greater than or equal to 0"]
    good = rs(head_ctr="resources: {requests: {cpu: 500m, nvidia.com/gpu: '1'}, limits: {nvidia.com/gpu: '1'}}")
    assert findings(good) == []


def test_extended_resource_names():
    assert is_extended_resource("nvidia.com/gpu")
    assert not is_extended_resource("cpu") and not is_extended_resource("kubernetes.io/batch")


def test_plan_stops_on_refused_pod_resources_and_says_who_refuses(cli, tmp_path):
    """The RayService is stored; the pods the operator makes from it are what the API
    server refuses, so plan (exit 2) says that, on the field's line."""
    from tests.hardening.helpers import assert_input_error

    text = rs(head_ctr="resources: {requests: {nvidia.com/gpu: '0.5'}, limits: {nvidia.com/gpu: '0.5'}}")
    p = tmp_path / "rs.yaml"
    p.write_text(text)
    r = cli("plan", str(p))
    assert_input_error(r, str(p), "SC006: ", "the API server would reject the pods the operator creates from "
                                            "this manifest")


def test_a_quantity_too_large_to_compute_is_reported_and_a_tiny_one_passes():
    """``1e999999999`` (beyond what the tool computes) is a finding on its field, not a
    hang; ``1e-999999999`` is one nano-unit, a valid request."""
    out = findings(rs(worker_ctr="resources: {requests: {cpu: '1e999999999'}}"))
    assert out and "requests.cpu: a quantity of 10**4000 or more is out of range" in out[0], out
    assert findings(rs(worker_ctr="resources: {requests: {cpu: '1e-999999999'}}")) == []


def test_a_container_without_an_image_or_with_padded_one_is_refused_in_every_pod_template():
    """SC015: ``validateContainerCommon`` requires an image and ``validateContainersOnlyForPod``
    refuses leading or trailing whitespace in a Pod: absent, null (pruned at admission)
    and empty images, in a RayService and a PodCliqueSet, as lint reports them and plan
    refuses them (exit 2)."""
    from rolloutctl.lint.pods import check_pod_images
    from rolloutctl.core.model import Obj

    def rs(image_line: str) -> Obj:
        return Obj({"apiVersion": "ray.io/v1", "kind": "RayService", "metadata": {"name": "s"}, "spec": {
            "rayClusterConfig": {"headGroupSpec": {"template": {"spec": {"containers": [
                {"name": "ray-head", **image_line}]}}}}}})

    for image in ({}, {"image": ""}, {"image": None}):
        (f,) = check_pod_images(rs(image))
        assert f.rule == "SC015" and "has no image" in f.message
        assert f.path == "spec.rayClusterConfig.headGroupSpec.template.spec.containers[name=ray-head].image"
    (f,) = check_pod_images(rs({"image": " ray:2 "}))
    assert "leading or trailing whitespace" in f.message
    assert check_pod_images(rs({"image": "ray:2"})) == []
    pcs = Obj({"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet", "metadata": {"name": "p"}, "spec": {
        "template": {"cliques": [{"name": "w", "spec": {"podSpec": {"initContainers": [{"name": "init"}],
                                                                    "containers": [{"name": "c", "image": "x"}]}}}]}}})
    (f,) = check_pod_images(pcs)
    assert f.path == "spec.template.cliques[name=w].spec.podSpec.initContainers[name=init].image"


HOSTILE = __import__("pathlib").Path(__file__).resolve().parent / "data"


def _pod_findings(text: str) -> list[tuple[str, str, str]]:
    from rolloutctl.lint.pods import check_pod_templates

    objs, errs, _ = parse_documents(text, "t.yaml")
    assert not errs
    return [(f.rule, f.path, f.message) for f in check_pod_templates(objs[0])]


def test_a_pod_template_without_containers_is_refused_by_validate_containers():
    """SC016: ``validateContainers`` requires a container; Grove's CRD and webhook store
    ``containers: []``, so the PodClique's pods are refused."""
    text = pcs().replace("          containers:\n          - name: main\n            image: busybox\n",
                         "          containers: []\n")
    assert _pod_findings(text) == [("SC016", "spec.template.cliques[name=worker].spec.podSpec.containers",
                                    "the pod template has no containers: the API server refuses its Pods "
                                    "(containers: Required value)")]


def test_kuberay_refuses_a_group_without_containers_itself_so_sc016_stays_quiet():
    """ValidateRayClusterSpec refuses it first (RS008): one finding, not two."""
    text = rs().replace("          containers:\n          - name: ray-worker\n            image: rayproject/ray:2.46.0\n",
                        "          containers: []\n")
    assert _pod_findings(text) == []


@pytest.mark.parametrize("name, expected", [
    ("Model_Leader", "not a DNS-1123 label (a lowercase RFC 1123 label must consist of lower case alphanumeric"),
    ("-lead", "not a DNS-1123 label"),
    ("a" * 64, "must be no more than 63 characters"),
    ("", "a container has no name: the API server refuses its Pods (name: Required value)"),
])
def test_a_container_name_that_is_no_dns1123_label_is_refused(name, expected):
    """SC017: ``validateContainerCommon`` (``ValidateDNS1123Label``), for init containers too."""
    out = _pod_findings(rs(worker_ctr="").replace("- name: ray-worker\n", f"- name: '{name}'\n"))
    assert [(r, m) for r, _, m in out if expected in m] == [("SC017", out[0][2])], out
    assert out[0][1].endswith(".template.spec.containers[name=" + name + "].name") or name == ""
    assert _pod_findings(rs()) == []
    init = pcs(clique("worker", pod="initContainers:\n- name: Setup\n  image: busybox"))
    assert [(r, p) for r, p, _ in _pod_findings(init)] == [
        ("SC017", "spec.template.cliques[name=worker].spec.podSpec.initContainers[name=Setup].name")]


def test_container_names_are_unique_across_containers_and_init_containers():
    """SC018: ``validateContainers`` (within containers) and ``validateInitContainers``
    (an init container against init and regular containers), on the later use."""
    across = pcs(clique("worker", pod="initContainers:\n- name: main\n  image: busybox"))
    assert _pod_findings(across) == [
        ("SC018", "spec.template.cliques[name=worker].spec.podSpec.initContainers[name=main].name",
         "container name 'main' is used in both containers and initContainers: the API server refuses its Pods "
         "(name: Duplicate value)")]
    twice = rs(worker_ctr="").replace("            image: rayproject/ray:2.46.0\n",
                                      "            image: rayproject/ray:2.46.0\n          - name: ray-worker\n"
                                      "            image: rayproject/ray:2.46.0\n", 2)
    (f,) = [x for x in _pod_findings(twice)]
    assert f[0] == "SC018" and "'ray-worker' is used twice" in f[2]


_INITC = "initContainers:\n- name: grove-initc\n  image: busybox"
_INFO_VOL = "volumes:\n- {name: pod-info-vol, emptyDir: {}}"


@pytest.mark.parametrize("template, starts_after_others", [
    ("cliqueStartupType: CliqueStartupTypeInOrder", ["worker"]),  # every clique but the first
    ("cliqueStartupType: CliqueStartupTypeExplicit", []),  # no clique names another
    ("", []),  # AnyOrder (the default): no startup dependency, no init container
])
def test_names_grove_adds_to_pods_that_start_after_others(template, starts_after_others):
    """configurePodInitContainer (grove initcontainer.go) appends the grove-initc init
    container and the sa-token-secret-vol and pod-info-vol volumes to the Pods of a
    clique with a startup dependency: a user's entry of the same name makes the Pod
    hold it twice, and the API server refuses it (validateInitContainers, ValidateVolumes)."""
    doc = pcs(clique("leader", pod=_INITC + "\n" + _INFO_VOL) + clique("worker", pod=_INITC + "\n" + _INFO_VOL),
              template=template)
    found = _pod_findings(doc)
    assert sorted((r, p.split(".spec.podSpec.")[0].split("name=")[1].rstrip("]")) for r, p, _ in found) == sorted(
        [("SC018", c) for c in starts_after_others] + [("SC019", c) for c in starts_after_others])
    if starts_after_others:
        msgs = {r: m for r, _, m in found}
        assert msgs["SC018"] == ("container name 'grove-initc' is also the name of Grove's startup-order init container, "
                                 "which the operator adds to these Pods: the API server refuses them (name: Duplicate value)")
        assert "volume name 'pod-info-vol' is also the name of the pod information volume" in msgs["SC019"]


def test_explicit_starts_after_gets_the_init_container():
    doc = pcs(clique("leader") + clique("worker", spec="startsAfter: [leader]", pod=_INITC),
              template="cliqueStartupType: CliqueStartupTypeExplicit")
    assert [(r, p) for r, p, _ in _pod_findings(doc)] == [
        ("SC018", "spec.template.cliques[name=worker].spec.podSpec.initContainers[name=grove-initc].name")]


def test_the_autoscaler_sidecar_kuberay_adds_to_the_head_pod():
    """DefaultHeadPodTemplate (kuberay common/pod.go) appends the "autoscaler" container
    to the head Pod with enableInTreeAutoscaling."""
    named = rs().replace("- name: ray-head\n", "- name: autoscaler\n", 1)
    assert "- name: autoscaler\n" in named
    assert _pod_findings(named) == []
    (f,) = _pod_findings(named.replace("rayVersion: '2.46.0'\n", "rayVersion: '2.46.0'\n    enableInTreeAutoscaling: true\n"))
    assert f[0] == "SC018" and f[1].startswith("spec.rayClusterConfig.headGroupSpec.template.spec.containers[")
    assert "the autoscaler sidecar KubeRay adds to the head Pod" in f[2]


_WAIT = "initContainers:\n- name: wait-gcs-ready\n  image: busybox"


def test_the_wait_gcs_ready_init_container_kuberay_adds_to_worker_pods(cli, tmp_path):
    """DefaultWorkerPodTemplate (kuberay common/pod.go) appends wait-gcs-ready to every
    worker Pod's init containers unless the operator runs with
    ENABLE_INIT_CONTAINER_INJECTION=false (getEnableInitContainerInjection: only "false",
    any case, turns it off); the head Pod gets none."""
    from rolloutctl.lint.pods import check_pod_templates

    doc = rs().replace("          containers:\n          - name: ray-worker\n",
                       "          initContainers:\n          - name: wait-gcs-ready\n            image: busybox\n"
                       "          containers:\n          - name: ray-worker\n")
    assert "- name: wait-gcs-ready" in doc
    objs, errs, _ = parse_documents(doc, "svc.yaml")
    (f,) = check_pod_templates(objs[0])
    assert f.rule == "SC018" and f.path.startswith("spec.rayClusterConfig.workerGroupSpecs[groupName=small]")
    assert "ENABLE_INIT_CONTAINER_INJECTION=false" in f.message
    for off in ("false", "FALSE"):
        assert check_pod_templates(objs[0], {"kuberay_env": (f"ENABLE_INIT_CONTAINER_INJECTION={off}",)}) == []
    assert len(check_pod_templates(objs[0], {"kuberay_env": ("ENABLE_INIT_CONTAINER_INJECTION=no",)})) == 1
    head = rs().replace("          containers:\n          - name: ray-head\n",
                        "          initContainers:\n          - name: wait-gcs-ready\n            image: busybox\n"
                        "          containers:\n          - name: ray-head\n")
    assert "- name: wait-gcs-ready" in head
    assert check_pod_templates(parse_documents(head, "svc.yaml")[0][0]) == []
    # every command, with the operator's setting from --kuberay-env
    path = tmp_path / "svc.yaml"
    path.write_text(doc)
    assert cli("lint", str(path)).exit_code == 1
    assert cli("lint", str(path), "--kuberay-env", "ENABLE_INIT_CONTAINER_INJECTION=false").exit_code == 0
    r = cli("plan", str(path))
    assert r.exit_code == 2 and ": SC018: " in r.stderr and "wait-gcs-ready" in r.stderr
    r = cli("plan", str(path), "--kuberay-env", "ENABLE_INIT_CONTAINER_INJECTION=false", "-o", "json")
    assert r.exit_code in (0, 1) and r.json()["steps"], r.stderr  # planned (the fixture has no Serve config)
    r = cli("diff", str(path), "--live", str(path), "-o", "json")
    assert r.exit_code == 1 and "rejected" in r.stdout
    assert cli("diff", str(path), "--live", str(path), "--kuberay-env",
               "ENABLE_INIT_CONTAINER_INJECTION=false").exit_code == 0


def test_a_templates_own_duplicate_volumes_are_the_schemas():
    """volumes is a list keyed by name in the CRDs: the manifest is refused (SC014), not its Pods."""
    doc = pcs(clique("worker", pod="volumes:\n- {name: cache, emptyDir: {}}\n- {name: cache, emptyDir: {}}"))
    assert _pod_findings(doc) == []


@pytest.mark.parametrize("fname, rule, line", [
    ("pcs-no-containers.yaml", "SC016", 20),
    ("pcs-bad-container-name.yaml", "SC017", 21),
    ("rs-bad-container-name.yaml", "SC017", 50),
])
def test_lint_plan_and_diff_say_the_pods_are_refused(cli, fname, rule, line):
    """The swept manifests: lint reports the error on its line; plan stops (exit 2)
    as for SC006/SC015, naming who refuses."""
    from tests.hardening.helpers import assert_input_error

    p = str(HOSTILE / fname)
    r = cli("lint", p)
    assert r.exit_code == 1 and f"{p}:{line}: {rule} [error]" in r.stdout, (r.stdout, r.stderr)
    r = cli("plan", p)
    assert_input_error(r, p, f"{rule}: ", "the API server would reject the pods the operator creates from "
                                          "this manifest")


def test_diff_marks_a_rename_to_a_bad_container_name_rejected(cli, tmp_path):
    """diff reads the same rules (``commands.diff._refusals``): the change is rejected, and the
    reason names the pods, not the manifest, as plan's does."""
    bad = HOSTILE / "pcs-bad-container-name.yaml"
    live = tmp_path / "live.yaml"
    live.write_text(bad.read_text().replace("Model_Leader", "model-leader"))
    r = cli("diff", str(bad), "--live", str(live), "-o", "json")
    impacts = [i for d in __import__("json").loads(r.stdout)["objects"] for i in d["impact"]]
    assert [i["effect"] for i in impacts] == ["rejected"], impacts
    assert impacts[0]["message"].startswith("SC017: container name 'Model_Leader' is not a DNS-1123 label")
    assert impacts[0]["message"].endswith("(the API server would reject the pods the operator creates from this manifest)")


def _worker_and_head_with(name: str, key: str) -> str:
    """The fixture RayService with a ``key`` entry named ``name`` in the head's and the
    worker's pod templates."""
    doc = rs()
    for ctr in ("ray-head", "ray-worker"):
        entry = f"          - name: {name}\n            image: busybox\n"
        if key == "initContainers":
            doc = doc.replace(f"          containers:\n          - name: {ctr}\n",
                              f"          initContainers:\n{entry}          containers:\n          - name: {ctr}\n")
        else:
            doc = doc.replace(f"          containers:\n          - name: {ctr}\n",
                              f"          containers:\n{entry}          - name: {ctr}\n")
    assert doc.count(f"- name: {name}\n") == 2
    return doc


def _with_cluster_field(doc: str, text: str) -> str:
    out = doc.replace("rayVersion: '2.46.0'\n", "rayVersion: '2.46.0'\n" + text, 1)
    assert out != doc
    return out


def test_the_tls_init_container_kuberay_prepends_clashes_only_with_a_regular_container():
    """configureTLS (kuberay common/pod.go), with utils.IsTLSEnabled (the RayClusterMTLS
    gate and tlsOptions.enabled), prepends wait-for-tls-ip-san to the head's and every
    worker's init containers unless one of that name is there: a regular container of
    that name is then in the Pod twice; an init container of that name is kept instead."""
    from rolloutctl.lint.pods import check_pod_templates

    gate = {"feature_gates": ("RayClusterMTLS=true",)}
    regular = _with_cluster_field(_worker_and_head_with("wait-for-tls-ip-san", "containers"),
                                  "    tlsOptions: {enabled: true}\n")
    obj = parse_documents(regular, "svc.yaml")[0][0]
    found = check_pod_templates(obj, gate)
    assert [(f.rule, f.path.split(".template.")[0]) for f in found] == [
        ("SC018", "spec.rayClusterConfig.headGroupSpec"),
        ("SC018", "spec.rayClusterConfig.workerGroupSpecs[groupName=small]")]
    assert all("the init container KubeRay adds to every Pod with mTLS" in f.message for f in found)
    assert check_pod_templates(obj) == []  # the gate off: no TLS (and RS024 refuses tlsOptions)
    off = parse_documents(regular.replace("tlsOptions: {enabled: true}", "tlsOptions: {enabled: false}"), "s.yaml")
    assert check_pod_templates(off[0][0], gate) == []
    init = _with_cluster_field(_worker_and_head_with("wait-for-tls-ip-san", "initContainers"),
                               "    tlsOptions: {enabled: true}\n")
    assert check_pod_templates(parse_documents(init, "svc.yaml")[0][0], gate) == []


def test_the_history_collector_kuberay_adds_clashes_with_an_init_container():
    """With the RayClusterHistoryServer gate and historyServerOptions.collectorOptions,
    DefaultHeadPodTemplate and DefaultWorkerPodTemplate append ray-history-collector to
    every Pod's containers: an init container of that name is then a duplicate. A
    regular container of that name is refused by ValidateRayClusterSpec first (RS039),
    so SC018 does not report it again."""
    from rolloutctl.lint.pods import check_pod_templates

    gate = {"feature_gates": ("RayClusterHistoryServer=true",)}
    hso = "    historyServerOptions: {collectorOptions: {image: collector:1}}\n"
    init = _with_cluster_field(_worker_and_head_with("ray-history-collector", "initContainers"), hso)
    obj = parse_documents(init, "svc.yaml")[0][0]
    found = check_pod_templates(obj, gate)
    assert [(f.rule, f.path.split(".template.")[0]) for f in found] == [
        ("SC018", "spec.rayClusterConfig.headGroupSpec"),
        ("SC018", "spec.rayClusterConfig.workerGroupSpecs[groupName=small]")]
    assert all("the history server collector KubeRay adds to every Pod" in f.message for f in found)
    assert check_pod_templates(obj) == []  # the gate off: no collector (RS021 refuses the field)
    regular = _with_cluster_field(_worker_and_head_with("ray-history-collector", "containers"), hso)
    assert check_pod_templates(parse_documents(regular, "svc.yaml")[0][0], gate) == []
