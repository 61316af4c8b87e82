"""``ValidateRayClusterSpec``'s checks behind feature gates (ray-project/kuberay @ feeaf72f,
``ray-operator/controllers/ray/utils/validation.go``): with the gate off a gated field is one
error ("... requires the ... feature gate"); with it on, upstream checks what the field holds
(``validateNetworkPolicy``, ``validateTLSOptions``, the ``historyServerOptions`` block and
``validateCollectorOptions``). The tables port ``validation_test.go``'s ``TestValidateNetworkPolicy``,
``TestValidateTLSOptions``, ``TestValidateCollectorOptions`` and the ``...RequiresFeatureGate``
tests; each expected message is upstream's (``errorMsg``/``errorMessage``, matched as upstream
matches it: ``ErrorContains``/``Contains`` or ``EqualError``)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from rolloutctl.core.model import Obj
from rolloutctl.kinds.kuberay.operator import OperatorConfig
from rolloutctl.kinds.kuberay.validation import controller_errors, first_error, validate
from tests.conftest import write
from tests.lint.cases import rs

NETPOL = "RayClusterNetworkPolicy"
MTLS = "RayClusterMTLS"
HISTORY = "RayClusterHistoryServer"
PREFIX = "The RayService spec is invalid: "


def gates(*names: str) -> OperatorConfig:
    return OperatorConfig.from_options(feature_gates=[f"{n}=true" for n in names])


def service(cluster: dict[str, Any] | None = None, workers: list[dict[str, Any]] | None = None,
            head: dict[str, Any] | None = None) -> dict[str, Any]:
    """A valid RayService (``tests.lint.cases.rs``) with ``cluster`` merged into its
    ``rayClusterConfig``, its worker groups replaced by ``workers`` when given, and its head
    container updated with ``head``."""
    raw = yaml.safe_load(rs())
    rc = raw["spec"]["rayClusterConfig"]
    rc.update(copy.deepcopy(cluster or {}))
    if workers is not None:
        rc["workerGroupSpecs"] = [worker(**w) for w in workers]
    rc["headGroupSpec"]["template"]["spec"]["containers"][0].update(copy.deepcopy(head or {}))
    return raw


def worker(name: str, **container: Any) -> dict[str, Any]:
    ctr = {"name": "ray-worker", "image": "rayproject/ray:2.46.0", **copy.deepcopy(container)}
    return {"groupName": name, "minReplicas": 1, "maxReplicas": 1, "rayStartParams": {},
            "template": {"spec": {"containers": [ctr]}}}


def errors(raw: dict[str, Any], cfg: OperatorConfig) -> list[str]:
    return [f.message for f in controller_errors(Obj(raw, "svc.yaml", 1), cfg)]


# ----------------------------------------------------------------------------- validateNetworkPolicy

_IN, _EG = [{}], [{}]  # one (empty) NetworkPolicyIngressRule / NetworkPolicyEgressRule, as upstream's tests

NETWORK_POLICY = [
    ("DenyAllEgress with head IngressRules set returns error",
     {"mode": "DenyAllEgress", "head": {"ingressRules": _IN}}, None,
     'networkPolicy.head.ingressRules cannot be set when mode is "DenyAllEgress" (ingress is not restricted)'),
    ("DenyAllEgress with worker IngressRules set returns error",
     {"mode": "DenyAllEgress", "worker": {"ingressRules": _IN}}, None,
     'networkPolicy.worker.ingressRules cannot be set when mode is "DenyAllEgress" (ingress is not restricted)'),
    ("DenyAllIngress with head EgressRules set returns error",
     {"mode": "DenyAllIngress", "head": {"egressRules": _EG}}, None,
     'networkPolicy.head.egressRules cannot be set when mode is "DenyAllIngress" (egress is not restricted)'),
    ("DenyAllIngress with worker EgressRules set returns error",
     {"mode": "DenyAllIngress", "worker": {"egressRules": _EG}}, None,
     'networkPolicy.worker.egressRules cannot be set when mode is "DenyAllIngress" (egress is not restricted)'),
    ("DenyAll with both head and worker rules is valid",
     {"mode": "DenyAll", "head": {"ingressRules": _IN, "egressRules": _EG},
      "worker": {"ingressRules": _IN, "egressRules": _EG}}, None, None),
    ("DenyAllEgress with worker group IngressRules set returns error",
     {"mode": "DenyAllEgress", "workerGroups": [{"groupName": "small-group", "ingressRules": _IN}]}, ["small-group"],
     'networkPolicy.workerGroups["small-group"].ingressRules cannot be set when mode is "DenyAllEgress" '
     '(ingress is not restricted)'),
    ("DenyAllIngress with worker group EgressRules set returns error",
     {"mode": "DenyAllIngress", "workerGroups": [{"groupName": "small-group", "egressRules": _EG}]}, ["small-group"],
     'networkPolicy.workerGroups["small-group"].egressRules cannot be set when mode is "DenyAllIngress" '
     '(egress is not restricted)'),
    ("worker group entry not matching any workerGroupSpecs returns error",
     {"mode": "DenyAll", "workerGroups": [{"groupName": "samll-group", "ingressRules": _IN}]}, ["small-group"],
     'networkPolicy.workerGroups["samll-group"] does not match any group name in workerGroupSpecs'),
    ("worker group entry matching workerGroupSpecs is valid",
     {"mode": "DenyAll", "workerGroups": [{"groupName": "small-group", "ingressRules": _IN, "egressRules": _EG}]},
     ["small-group"], None),
    ("worker group name that is not a valid DNS1123 label returns error",
     {"mode": "DenyAll"}, ["GPU-Group"],
     'worker group name "GPU-Group" must be a valid DNS1123 label when networkPolicy is enabled'),
    ("nil NetworkPolicy is valid", None, None, None),
    ("mode only with no head or worker rules is valid", {"mode": "DenyAll"}, None, None),
    # (model) the CRD's default mode, DenyAll, when none is given: every rule is allowed
    ("(model) no mode: DenyAll", {"head": {"ingressRules": _IN, "egressRules": _EG}}, None, None),
]


@pytest.mark.parametrize("name, policy, groups, message", NETWORK_POLICY, ids=[c[0] for c in NETWORK_POLICY])
def test_validate_network_policy(name, policy, groups, message):
    # TestValidateNetworkPolicy (assert.ErrorContains)
    raw = service({"networkPolicy": policy} if policy is not None else {},
                  workers=[{"name": g} for g in groups] if groups else None)
    got = errors(raw, gates(NETPOL))
    if message is None:
        assert got == []
    else:
        assert got and message in got[0]


def test_network_policy_requires_feature_gate():
    # TestValidateRayClusterSpec_NetworkPolicyRequiresFeatureGate
    got = errors(service({"networkPolicy": {"mode": "DenyAll"}}, workers=[{"name": "worker-group"}]), OperatorConfig())
    assert got == ["spec.networkPolicy requires the RayClusterNetworkPolicy feature gate to be enabled"]


def test_network_policy_dns_error_lists_apimachinery_messages():
    """``%v`` of ``IsDNS1123Label``'s errors: a bracketed list (without the regex hints)."""
    (msg,) = errors(service({"networkPolicy": {}}, workers=[{"name": "g" * 64}]), gates(NETPOL))
    assert msg == (f'worker group name "{"g" * 64}" must be a valid DNS1123 label when networkPolicy is enabled (it is '
                   "embedded in the NetworkPolicy name): [must be no more than 63 characters]")


# ----------------------------------------------------------------------------- validateTLSOptions

ON = {"tlsOptions": {"enabled": True}}
TLS = [
    ("TLS disabled, no options - valid", {}, {}, None, None),
    ("TLS enabled, no options (auto-generate) - valid", ON, {}, None, None),
    ("tlsOptions set but enabled is false - valid (disables TLS)", {"tlsOptions": {"enabled": False}}, {}, None, None),
    ("RAY_USE_TLS in head container - error", ON, {"env": [{"name": "RAY_USE_TLS", "value": "1"}]}, None,
     "cannot set RAY_USE_TLS"),
    ("RAY_TLS_SERVER_CERT in head container - error", ON, {"env": [{"name": "RAY_TLS_SERVER_CERT", "value": "/x"}]},
     None, "cannot set RAY_TLS_SERVER_CERT"),
    ("RAY_TLS_SERVER_KEY in worker container - error", ON, {},
     {"env": [{"name": "RAY_TLS_SERVER_KEY", "value": "/x"}]}, "cannot set RAY_TLS_SERVER_KEY"),
    ("RAY_TLS_CA_CERT in worker container - error", ON, {}, {"env": [{"name": "RAY_TLS_CA_CERT", "value": "/x"}]},
     "cannot set RAY_TLS_CA_CERT"),
    ("conflicting TLS volume name in head container - error", ON,
     {"volumeMounts": [{"name": "ray-tls", "mountPath": "/some/path"}]}, None, "cannot use volume mount named"),
    ("conflicting TLS mount path in head container - error", ON,
     {"volumeMounts": [{"name": "custom-tls", "mountPath": "/etc/ray/tls"}]}, None, "cannot use volume mount at path"),
    ("conflicting TLS volume name in worker container - error", ON, {},
     {"volumeMounts": [{"name": "ray-tls", "mountPath": "/some/path"}]}, "cannot use volume mount named"),
    ("non-conflicting volume mount in head container - valid", ON,
     {"volumeMounts": [{"name": "user-volume", "mountPath": "/user/path"}]}, None, None),
    ("conflicting TLS volume name in autoscalerOptions - error",
     {**ON, "autoscalerOptions": {"volumeMounts": [{"name": "ray-tls", "mountPath": "/some/path"}]}}, {}, None,
     "cannot use volume mount named"),
    ("conflicting TLS mount path in autoscalerOptions - error",
     {**ON, "autoscalerOptions": {"volumeMounts": [{"name": "custom-tls", "mountPath": "/etc/ray/tls"}]}}, {}, None,
     "cannot use volume mount at path"),
]


@pytest.mark.parametrize("name, cluster, head, wg, message", TLS, ids=[c[0] for c in TLS])
def test_validate_tls_options(name, cluster, head, wg, message):
    # TestValidateTLSOptions (assert.Contains), with the RayClusterMTLS gate on
    raw = service(cluster, workers=[{"name": "wg", **wg}] if wg is not None else None, head=head)
    got = errors(raw, gates(MTLS))
    if message is None:
        assert got == []
    else:
        assert got and message in got[0]


def test_tls_messages_name_the_place():
    raw = service(ON, workers=[{"name": "wg", "env": [{"name": "RAY_USE_TLS", "value": "1"}]}],
                  head={"volumeMounts": [{"name": "ray-tls", "mountPath": "/etc/ray/tls"}]})
    raw["spec"]["rayClusterConfig"]["autoscalerOptions"] = {"env": [{"name": "RAY_TLS_CA_CERT", "value": "/x"}]}
    manages = "- the operator manages TLS configuration automatically"
    assert errors(raw, gates(MTLS)) == [
        f'cannot use volume mount named "ray-tls" in head Pod when tlsOptions is set {manages}',
        f'cannot set RAY_USE_TLS environment variable in worker group "wg" when tlsOptions is set {manages}',
        "cannot set RAY_TLS_CA_CERT environment variable in autoscalerOptions.env when tlsOptions is set - the "
        "operator manages TLS configuration for the autoscaler automatically",
    ]


def test_tls_options_requires_feature_gate():
    # TestValidateRayClusterSpec_TLSOptionsRequiresFeatureGate
    got = errors(service(ON), OperatorConfig())
    assert got == ["spec.tlsOptions requires the RayClusterMTLS feature gate to be enabled"]


# ----------------------------------------------------------------------------- historyServerOptions, validateCollectorOptions

IMAGE = "quay.io/kuberay/collector:latest"


def env(*pairs: str) -> list[dict[str, Any]]:
    return [dict(zip(("name", "value"), p.split("=", 1))) for p in pairs]


GCS = env("STORAGE_BACKEND=GCS", "GCS_BUCKET=my-bucket")
COLLECTOR = [
    ("nil collector options", None, None, None, "historyServerOptions.collectorOptions must be set"),
    ("missing image", {"env": GCS}, None, None, "historyServerOptions.collectorOptions.image must be set"),
    ("missing STORAGE_BACKEND", {"image": IMAGE}, None, None,
     "STORAGE_BACKEND environment variable must be set with a literal string value in "
     "historyServerOptions.collectorOptions.env"),
    ("valid GCS", {"image": IMAGE, "env": GCS}, None, None, None),
    ("valid GCS with ValueFrom secret",
     {"image": IMAGE, "env": env("STORAGE_BACKEND=GCS") + [
         {"name": "GCS_BUCKET", "valueFrom": {"secretKeyRef": {"name": "my-gcs-secret", "key": "bucket"}}}]},
     None, None, None),
    ("missing GCS_BUCKET", {"image": IMAGE, "env": env("STORAGE_BACKEND=GCS")}, None, None,
     "GCS_BUCKET environment variable must be set when STORAGE_BACKEND is GCS"),
    ("valid S3 with all fields",
     {"image": IMAGE, "env": env("STORAGE_BACKEND=S3", "S3_BUCKET=my-bucket", "S3_ENDPOINT=s3.us-west-2.amazonaws.com",
                                 "S3_REGION=us-west-2")}, None, None, None),
    ("missing S3_REGION",
     {"image": IMAGE, "env": env("STORAGE_BACKEND=S3", "S3_BUCKET=my-bucket", "S3_ENDPOINT=s3.us-west-2.amazonaws.com")},
     None, None, "S3_REGION environment variable must be set when STORAGE_BACKEND is S3"),
    ("valid AZUREBLOB with connection string mode",
     {"image": IMAGE, "env": env("STORAGE_BACKEND=AZUREBLOB", "AZURE_STORAGE_AUTH_MODE=connection_string",
                                 "AZURE_STORAGE_CONNECTION_STRING=connection-string")}, None, None, None),
    ("valid AZUREBLOB with workload identity mode",
     {"image": IMAGE, "env": env("STORAGE_BACKEND=AZUREBLOB", "AZURE_STORAGE_AUTH_MODE=workload_identity",
                                 "AZURE_STORAGE_ACCOUNT_URL=https://myaccount.blob.core.windows.net")}, None, None, None),
    ("missing connection string in connection_string auth mode",
     {"image": IMAGE, "env": env("STORAGE_BACKEND=AZUREBLOB", "AZURE_STORAGE_AUTH_MODE=connection_string")}, None, None,
     "AZURE_STORAGE_CONNECTION_STRING environment variable must be set when STORAGE_BACKEND is AZUREBLOB and "
     "AZURE_STORAGE_AUTH_MODE is connection_string"),
    ("missing credentials in auto-detect auth mode", {"image": IMAGE, "env": env("STORAGE_BACKEND=AZUREBLOB")}, None, None,
     "either AZURE_STORAGE_CONNECTION_STRING or AZURE_STORAGE_ACCOUNT_URL environment variable must be set when "
     "STORAGE_BACKEND is AZUREBLOB"),
    ("valid ALIYUNOSS",
     {"image": IMAGE, "env": env("STORAGE_BACKEND=ALIYUNOSS", "OSS_BUCKET=my-bucket",
                                 "OSS_ENDPOINT=oss-cn-hangzhou.aliyuncs.com", "OSS_REGION=cn-hangzhou")},
     None, None, None),
    ("missing OSS_REGION",
     {"image": IMAGE, "env": env("STORAGE_BACKEND=ALIYUNOSS", "OSS_BUCKET=my-bucket",
                                 "OSS_ENDPOINT=oss-cn-hangzhou.aliyuncs.com")},
     None, None, "OSS_REGION environment variable must be set when STORAGE_BACKEND is ALIYUNOSS"),
    ("unknown storage backend (skips validation)", {"image": IMAGE, "env": env("STORAGE_BACKEND=CUSTOM_BACKEND")},
     None, None, None),
    ("manually defined ray-history-collector container in head template", {"image": IMAGE, "env": GCS},
     "ray-history-collector", None,
     "head pod template must not define a container with name 'ray-history-collector' when history server collector "
     "options are enabled"),
    ("manually defined ray-history-collector container in worker template", {"image": IMAGE, "env": GCS}, None,
     "group-1",
     "worker group group-1 pod template must not define a container with name 'ray-history-collector' when history "
     "server collector options are enabled"),
    ("manually defined POD_IP in collector env", {"image": IMAGE, "env": GCS + env("POD_IP=10.244.0.5")}, None, None,
     "historyServerOptions.collectorOptions.env must not contain POD_IP: it is managed by KubeRay and injected "
     "automatically into the collector container"),
    ("manually defined EVENTS_PORT in collector env", {"image": IMAGE, "env": GCS + env("EVENTS_PORT=9000")}, None, None,
     "historyServerOptions.collectorOptions.env must not contain EVENTS_PORT: it is managed by KubeRay and injected "
     "automatically into the collector container"),
    # (model) upstream's switch: the backend in upper case, the auth mode trimmed in lower case
    ("(model) lower-case backend", {"image": IMAGE, "env": env("STORAGE_BACKEND=gcs")}, None, None,
     "GCS_BUCKET environment variable must be set when STORAGE_BACKEND is GCS"),
    ("(model) auth mode ' Default '",
     {"image": IMAGE, "env": env("STORAGE_BACKEND=AZUREBLOB", "AZURE_STORAGE_AUTH_MODE= Default ")}, None, None,
     "AZURE_STORAGE_ACCOUNT_URL environment variable must be set when STORAGE_BACKEND is AZUREBLOB and "
     "AZURE_STORAGE_AUTH_MODE is default"),
]


@pytest.mark.parametrize("name, collector, head_name, worker_group, message", COLLECTOR, ids=[c[0] for c in COLLECTOR])
def test_validate_collector_options(name, collector, head_name, worker_group, message):
    # TestValidateCollectorOptions (assert.EqualError on ValidateRayClusterSpec's error), gate on
    hso = {"collectorOptions": collector} if collector is not None else {}
    raw = service({"historyServerOptions": hso}, workers=[], head={"name": head_name} if head_name else None)
    if worker_group:
        raw["spec"]["rayClusterConfig"]["workerGroupSpecs"] = [worker(worker_group)]
        raw["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]["name"] = (
            "ray-history-collector")
    got = first_error(Obj(raw, "svc.yaml", 1), gates(HISTORY))
    assert got == (None if message is None else PREFIX + message)


def test_history_server_requires_feature_gate():
    # TestValidateRayClusterSpec_HistoryServerRequiresFeatureGate
    raw = service({"historyServerOptions": {"collectorOptions": {"image": IMAGE, "env": GCS}}},
                  workers=[{"name": "worker-group"}])
    assert errors(raw, OperatorConfig()) == ["RayClusterHistoryServer feature gate is not enabled"]


# ----------------------------------------------------------------------------- upstream's order

def test_first_error_follows_validate_ray_cluster_spec_order():
    """History server before auth, network policy, then TLS, as ``ValidateRayClusterSpec``
    returns them; every one is still reported (lint)."""
    raw = service({"historyServerOptions": {"collectorOptions": {"env": GCS}},
                   "networkPolicy": {"mode": "DenyAllIngress", "head": {"egressRules": _EG}}, **ON},
                  head={"env": [{"name": "RAY_USE_TLS", "value": "1"}]})
    cfg = gates(NETPOL, MTLS, HISTORY)
    assert [f.rule for f in controller_errors(Obj(raw), cfg)] == ["RS040", "RS037", "RS038"]
    assert first_error(Obj(raw), cfg) == PREFIX + "historyServerOptions.collectorOptions.image must be set"
    del raw["spec"]["rayClusterConfig"]["historyServerOptions"]
    assert first_error(Obj(raw), cfg) == (PREFIX + 'networkPolicy.head.egressRules cannot be set when mode is '
                                          '"DenyAllIngress" (egress is not restricted)')
    # an error earlier in ValidateRayClusterSpec (a worker group's replicas) comes first
    raw["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["minReplicas"] = 9
    assert first_error(Obj(raw), cfg) == PREFIX + "worker group small has minReplicas 9 greater than maxReplicas 5"


def test_gate_off_reports_the_gate_not_the_content():
    raw = service({"networkPolicy": {"mode": "DenyAllIngress", "head": {"egressRules": _EG}}, **ON,
                   "historyServerOptions": {}}, head={"env": [{"name": "RAY_USE_TLS", "value": "1"}]})
    assert sorted(f.rule for f in validate(Obj(raw)) if f.severity == "error") == ["RS021", "RS023", "RS024"]


# ----------------------------------------------------------------------------- the commands

BAD_POLICY = rs(cluster="networkPolicy: {mode: DenyAllEgress, head: {ingressRules: [{from: [{podSelector: {}}]}]}}")
GOOD_POLICY = rs(cluster="networkPolicy: {mode: DenyAll, head: {ingressRules: [{from: [{podSelector: {}}]}]}}")
BAD_TLS = rs(cluster="tlsOptions: {enabled: true}", head_ctr="volumeMounts: [{name: certs, mountPath: /etc/ray/tls}]")
GOOD_TLS = rs(cluster="tlsOptions: {enabled: true}", head_ctr="volumeMounts: [{name: certs, mountPath: /etc/certs}]")
BAD_HISTORY = rs(cluster="historyServerOptions: {collectorOptions: {image: c:1, env: [{name: STORAGE_BACKEND, value: S3}]}}")
GOOD_HISTORY = rs(cluster="historyServerOptions: {collectorOptions: {image: c:1, env: [{name: STORAGE_BACKEND, value: S3}, "
                  "{name: S3_REGION, value: us-west-2}]}}")

LINT = [
    # gate, manifest, rules without the gate, rules with it
    (NETPOL, GOOD_POLICY, ["RS023"], []),
    (NETPOL, BAD_POLICY, ["RS023"], ["RS037"]),
    (MTLS, GOOD_TLS, ["RS024"], []),
    (MTLS, BAD_TLS, ["RS024"], ["RS038"]),
    (HISTORY, GOOD_HISTORY, ["RS021"], []),
    (HISTORY, BAD_HISTORY, ["RS021"], ["RS040"]),
]


def _errors(r) -> list[str]:
    return sorted(f["rule"] for f in r.json()["findings"] if f["severity"] == "error")


@pytest.mark.parametrize("gate, text, off, on", LINT, ids=[f"{g}-{'bad' if on else 'good'}" for g, _t, _o, on in LINT])
def test_lint_with_and_without_the_gate(cli, tmp_path, gate, text, off, on):
    p = write(tmp_path, "svc.yaml", text)
    r = cli("lint", p, "-o", "json")
    assert (r.exit_code, _errors(r)) == (1, off)
    r = cli("lint", p, "-o", "json", "--feature-gate", f"{gate}=true")
    assert (r.exit_code, _errors(r)) == (1 if on else 0, on)
    r = cli("lint", p, "-o", "json", "--feature-gate", f"{gate}=false")
    assert (r.exit_code, _errors(r)) == (1, off)


def test_lint_takes_several_gates_as_plan_does(cli, tmp_path):
    p = write(tmp_path, "svc.yaml", GOOD_POLICY.replace("    networkPolicy:", "    tlsOptions: {enabled: true}\n"
                                                        "    networkPolicy:"))
    assert _errors(cli("lint", p, "-o", "json", "--feature-gate", f"{NETPOL}=true")) == ["RS024"]
    for args in ([f"{NETPOL}=true,{MTLS}=true"], [f"{NETPOL}=true", "--feature-gate", f"{MTLS}=true"]):
        r = cli("lint", p, "-o", "json", "--feature-gate", *args)
        assert (r.exit_code, _errors(r)) == (0, [])


@pytest.mark.parametrize("item, message", [
    ("Bogus=true", "--feature-gate Bogus: KubeRay feeaf72f has no such feature gate (known: "),
    ("RayClusterMTLS=maybe", "RayClusterMTLS=maybe: the value must be true or false"),
    ("RayClusterMTLS", "--feature-gate RayClusterMTLS: expected NAME=true|false"),
])
def test_lint_bad_gate_is_one_line_and_exit_2(cli, tmp_path, item, message):
    p = write(tmp_path, "svc.yaml", GOOD_POLICY)
    r = cli("lint", p, "--feature-gate", item)
    assert r.exit_code == 2 and r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and r.stderr.startswith(message)
    assert cli("plan", p, "--feature-gate", item).stderr == r.stderr  # plan says the same


def test_lint_help_names_the_option(cli):
    r = cli("lint", "--help")
    assert "--feature-gate" in r.stdout and "NAME=BOOL" in r.stdout


@pytest.mark.parametrize("gate, text, first", [
    (NETPOL, BAD_POLICY, 'networkPolicy.head.ingressRules cannot be set when mode is "DenyAllEgress" '
                         "(ingress is not restricted)"),
    (MTLS, BAD_TLS, 'cannot use volume mount at path "/etc/ray/tls" in head Pod when tlsOptions is set - the operator '
                    "manages TLS configuration automatically"),
    (HISTORY, BAD_HISTORY, "S3_REGION environment variable must be set when STORAGE_BACKEND is S3"),
])
def test_plan_validation_failed_names_upstreams_first_error(cli, tmp_path, gate, text, first):
    p = write(tmp_path, "svc.yaml", text)
    doc = cli("plan", p, "-o", "json", "--feature-gate", f"{gate}=true").json()
    assert doc["outcome"] == "stuck" and doc["stuck"]["reason"] == "ValidationFailed"
    assert doc["stuck"]["message"].startswith(PREFIX + first + " (")
    good = {NETPOL: GOOD_POLICY, MTLS: GOOD_TLS, HISTORY: GOOD_HISTORY}[gate]
    doc = cli("plan", write(tmp_path, "good.yaml", good), "-o", "json", "--feature-gate", f"{gate}=true").json()
    assert doc["stuck"] is None or doc["stuck"]["reason"] != "ValidationFailed"
