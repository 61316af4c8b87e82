"""Issue 12, done when: every upstream sample the API server accepts (all documents of
a multi-document file) diffs unchanged against itself and plans noop against itself;
and against its live form written here independently, as the API server stores and
returns it after ``kubectl apply`` and a settled operator: CRD defaults (read from the
upstream CRD's openAPIV3Schema, not from rolloutctl's schemas) and webhook defaults
filled in, namespace set, server metadata, status present, quantities as the server
prints them (the JSON round trip of the request). Nothing here calls rolloutctl.admit.

The samples are read from ../shared/upstream (never copied); the tests skip without it.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import UPSTREAM, write
from tests.hardening.helpers import assert_input_error

SAMPLES = sorted([*UPSTREAM.glob("grove/samples/*.yaml"), *UPSTREAM.glob("kuberay/samples/*.yaml")])
#: the one sample the API server refuses: a clique without the required roleName
#: upstream samples the API server refuses (none: the one that leaves a clique's roleName
#: out is stored with roleName "", ``ROLE_LEFT_OUT``)
REFUSED: dict[str, str] = {}
ROLE_LEFT_OUT = {"multinode-disaggregated-with-frontend.yaml": "frontend"}
CRDS = {("grove.io", "PodCliqueSet"): "grove/grove.io_podcliquesets.yaml",
        ("ray.io", "RayService"): "kuberay/ray.io_rayservices.yaml"}
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def _ids(paths: list[Path]) -> list[str]:
    return [p.name for p in paths]


def _params() -> list[Any]:
    if not SAMPLES:
        return [pytest.param(None, marks=pytest.mark.skip(reason="../shared/upstream is not present"))]
    return SAMPLES


def _key(doc: dict) -> tuple[str, str]:
    return (str(doc.get("apiVersion", "")).split("/")[0], str(doc.get("kind", "")))


# ----------------------------------------------------------------------------- the stored form, by hand


@functools.lru_cache(maxsize=None)
def _crd_schema(key: tuple[str, str]) -> dict:
    crd = yaml.load((UPSTREAM / CRDS[key]).read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    version = next(v for v in crd["spec"]["versions"] if v.get("storage"))
    return version["schema"]["openAPIV3Schema"]


def _structural_defaults(value: Any, schema: dict) -> None:
    """KEP-575 structural defaulting over the upstream CRD schema: a ``default`` applies
    where the field is absent and its parent object exists; nulls of non-nullable fields
    are dropped first."""
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        extra = schema.get("additionalProperties") if isinstance(schema.get("additionalProperties"), dict) else None
        for k in list(value):
            sub = props.get(k, extra)
            if value[k] is None and not (sub or {}).get("nullable"):
                del value[k]
        for k, sub in props.items():
            if k not in value and "default" in sub:
                value[k] = copy.deepcopy(sub["default"])
        for k, v in value.items():
            sub = props.get(k, extra)
            if sub is not None:
                _structural_defaults(v, sub)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for item in value:
            _structural_defaults(item, schema["items"])


def _grove_webhook(pcs: dict) -> None:
    """defaultPodCliqueSet (operator/internal/webhook/admission/pcs/defaulting/podcliqueset.go), by hand."""
    tmpl = pcs["spec"]["template"]
    for c in tmpl.get("cliques") or []:
        spec = c["spec"]
        spec.setdefault("roleName", "")  # the re-marshalled object's zero value (no omitempty)
        written = spec.get("replicas", 0)
        pod = spec.setdefault("podSpec", {})
        pod.setdefault("restartPolicy", "Always")
        pod.setdefault("terminationGracePeriodSeconds", 30)
        if not spec.get("replicas"):
            spec["replicas"] = 1
        spec.setdefault("minAvailable", written)
        if isinstance(spec.get("autoScalingConfig"), dict):
            spec["autoScalingConfig"].setdefault("minReplicas", written)
    for g in tmpl.get("podCliqueScalingGroups") or []:
        if isinstance(g.get("scaleConfig"), dict):
            g["scaleConfig"].setdefault("minReplicas", g["replicas"])
    tmpl.setdefault("terminationDelay", "4h0m0s")
    tmpl.setdefault("headlessServiceConfig", {"publishNotReadyAddresses": True})


def _server_metadata(doc: dict, applied: dict) -> None:
    md = doc["metadata"]
    md.setdefault("namespace", "default")
    md.update(uid="0d9c4a4e-5b1f-4c55-9a55-0123456789ab", resourceVersion="4711", generation=1,
              creationTimestamp="2026-11-30T12:00:00Z")
    md.setdefault("annotations", {})[LAST_APPLIED] = json.dumps(applied, separators=(",", ":"), sort_keys=True) + "\n"


def stored(docs: list[dict]) -> list[dict]:
    """What ``kubectl get -o yaml`` returns for ``docs`` after ``kubectl apply`` and a
    settled operator: the top-level objects in stored form, with status (and, for a
    RayService, the RayCluster and Services KubeRay made); other documents as stored."""
    out: list[dict] = []
    for doc in docs:
        applied = json.loads(json.dumps(doc))  # what kubectl sends: JSON
        applied.setdefault("metadata", {}).setdefault("namespace", "default")
        live = copy.deepcopy(applied)
        key = _key(doc)
        if key not in CRDS:
            live["metadata"].setdefault("namespace", "default")
            out.append(live)
            continue
        _structural_defaults(live, copy.deepcopy(_crd_schema(key)))
        _server_metadata(live, applied)
        if key == ("grove.io", "PodCliqueSet"):
            _grove_webhook(live)
            n = live["spec"].get("replicas", 0)
            live["status"] = {"observedGeneration": 1, "replicas": n, "updatedReplicas": n, "availableReplicas": n}
            out.append(live)
        else:
            out.extend(_settled_rayservice(live))
    return out


def _serve_port(rs: dict) -> int:
    """The head container's port named ``serve``, else 8000 (``common.GetServePort``)."""
    pod = rs["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]
    for port in (pod.get("containers") or [{}])[0].get("ports") or []:
        if port.get("name") == "serve":
            return int(port["containerPort"])
    return 8000


def _settled_rayservice(rs: dict) -> list[dict]:
    """A RayService KubeRay has settled: its finalizer, status naming the active cluster,
    the RayCluster (rayClusterConfig as its spec, head ready) and the head and serve
    Services pointing at it (rayservice_controller.go#reconcileServices)."""
    name, ns = rs["metadata"]["name"], rs["metadata"]["namespace"]
    cluster = f"{name}-x7k2p"
    rs["metadata"]["finalizers"] = ["ray.io/rayservice-finalizer"]
    apps = [a["name"] for a in (yaml.safe_load(rs["spec"].get("serveConfigV2") or "") or {}).get("applications") or []]
    rs["status"] = {
        "observedGeneration": 1, "serviceStatus": "Running", "numServeEndpoints": 1,
        "conditions": [{"type": "Ready", "status": "True", "reason": "NonZeroServeEndpoints"},
                       {"type": "UpgradeInProgress", "status": "False", "reason": "NoPendingCluster"}],
        "activeServiceStatus": {"rayClusterName": cluster,
                                "applicationStatuses": {a: {"status": "RUNNING"} for a in apps}},
    }
    labels = {"ray.io/originated-from-cr-name": name, "ray.io/originated-from-crd": "RayService"}
    owner = [{"apiVersion": "ray.io/v1", "kind": "RayService", "name": name, "uid": rs["metadata"]["uid"],
              "controller": True, "blockOwnerDeletion": True}]
    rc = {"apiVersion": "ray.io/v1", "kind": "RayCluster",
          "metadata": {"name": cluster, "namespace": ns, "labels": dict(labels), "ownerReferences": owner,
                       # constructRayClusterForRayService's annotations (the modelled version)
                       "annotations": {"ray.io/kuberay-version": "nightly", "ray.io/num-worker-groups": str(
                           len(rs["spec"]["rayClusterConfig"].get("workerGroupSpecs") or []))}},
          "spec": copy.deepcopy(rs["spec"]["rayClusterConfig"]),
          "status": {"state": "ready", "conditions": [{"type": "HeadPodReady", "status": "True",
                                                        "reason": "HeadPodRunningAndReady"}]}}
    serve_name = ((rs["spec"].get("serveService") or {}).get("metadata") or {}).get("name") or f"{name}-serve-svc"
    services = [{"apiVersion": "v1", "kind": "Service",
                 "metadata": {"name": svc, "namespace": ns, "labels": dict(labels), "ownerReferences": owner},
                 "spec": {"selector": {"ray.io/cluster": cluster, **extra}, "type": "ClusterIP"}}
                for svc, extra in ((f"{name}-head-svc", {"ray.io/node-type": "head"}),
                                   (serve_name, {"ray.io/serve": "true"}))]
    out = [rs, rc, *services]
    upgrade = rs["spec"].get("upgradeStrategy") or {}
    if upgrade.get("type") == "NewClusterWithIncrementalUpgrade":
        # the Gateway API objects of an incremental upgrade (rayservice_controller.go#reconcileGateway,
        # #reconcileHTTPRoute, #reconcilePerClusterServeService), settled on the active cluster
        opts = upgrade.get("clusterUpgradeOptions") or {}
        rs["status"]["activeServiceStatus"].update(trafficRoutedPercent=100, targetCapacity=100)
        cluster_owner = [{"apiVersion": "ray.io/v1", "kind": "RayCluster", "name": cluster, "controller": True}]
        out.append({"apiVersion": "v1", "kind": "Service",
                    "metadata": {"name": f"{cluster}-serve-svc", "namespace": ns, "ownerReferences": cluster_owner,
                                 "labels": {"ray.io/originated-from-cr-name": cluster,
                                            "ray.io/originated-from-crd": "RayService",
                                            "ray.io/serve": f"{cluster}-serve"}},
                    "spec": {"selector": {"ray.io/cluster": cluster, "ray.io/serve": "true"}}})
        out.append({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
                    "metadata": {"name": f"{name}-gateway", "namespace": ns, "ownerReferences": owner},
                    "spec": {"gatewayClassName": opts.get("gatewayClassName"),
                             "listeners": [{"name": "http", "protocol": "HTTP", "port": 80}]}})
        out.append({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
                    "metadata": {"name": f"{name}-httproute", "namespace": ns, "ownerReferences": owner},
                    "spec": {"parentRefs": [{"name": f"{name}-gateway", "namespace": ns}],
                             "rules": [{"matches": [{"path": {"type": "PathPrefix", "value": "/"}}],
                                        "backendRefs": [{"name": f"{cluster}-serve-svc", "namespace": ns,
                                                         "port": _serve_port(rs), "weight": 100}]}]}})
    return out


# ----------------------------------------------------------------------------- the tests


def _targets(docs: list[dict]) -> list[dict]:
    return [d for d in docs if _key(d) in CRDS]


@pytest.mark.parametrize("sample", _params(), ids=_ids(SAMPLES) or None)
def test_sample_against_itself_is_unchanged_and_noop(cli, sample):
    docs = [d for d in yaml.safe_load_all(sample.read_text()) if d]
    if sample.name in REFUSED:
        pytest.skip("refused by the API server (test_the_sample_without_role_name_is_refused)")
    r = cli("diff", str(sample), "--live", str(sample), "-o", "json")
    assert r.exit_code == 0, (r.stdout[-2000:], r.stderr)
    objects = r.json()["objects"]
    assert len(objects) == len(_targets(docs)) and {o["status"] for o in objects} == {"unchanged"}
    r = cli("plan", str(sample), "--observed", str(sample), "-o", "json")
    assert r.exit_code == 0, r.stderr
    plans = r.json() if isinstance(r.json(), list) else [r.json()]
    assert [p["outcome"] for p in plans] == ["noop"] * len(_targets(docs))


@pytest.mark.parametrize("sample", _params(), ids=_ids(SAMPLES) or None)
def test_sample_against_its_stored_form_is_unchanged_and_noop(cli, tmp_path, sample):
    """Re-applying the manifest as written, against what the cluster returns for it."""
    if sample.name in REFUSED:
        pytest.skip("refused by the API server")
    docs = [d for d in yaml.safe_load_all(sample.read_text()) if d]
    live = write(tmp_path, "live.yaml", yaml.safe_dump_all(stored(docs), sort_keys=False))
    r = cli("diff", str(sample), "--live", live, "-o", "json")
    assert r.exit_code == 0, (r.stdout[-3000:], r.stderr)
    assert {o["status"] for o in r.json()["objects"]} == {"unchanged"}
    r = cli("plan", str(sample), "--observed", live, "-o", "json")
    assert r.exit_code == 0, r.stderr
    plans = r.json() if isinstance(r.json(), list) else [r.json()]
    assert [p["outcome"] for p in plans] == ["noop"] * len(_targets(docs)), [
        [(a["verb"], a["kind"], a["name"]) for s in p["steps"] for a in s["actions"]] for p in plans]


@pytest.mark.parametrize("sample", [p for p in SAMPLES if p.name in ROLE_LEFT_OUT] or _params(), ids=list(ROLE_LEFT_OUT))
def test_the_sample_without_role_name_is_stored_with_an_empty_one(cli, sample):
    """roleName is required in the PodCliqueSet CRD, but the required check runs after
    mutating admission: Grove's defaulting webhook patches the request to its
    re-marshalled object, and ``PodCliqueSpec.RoleName`` has no omitempty
    (operator/api/core/v1alpha1/podclique.go), so the patch adds ``roleName: ""`` and the
    API server stores the sample. lint is clean and the plan runs."""
    if sample is None:
        pytest.skip("../shared/upstream is not present")
    r = cli("lint", "-o", "json", str(sample))
    assert r.exit_code == 0 and [f for f in r.json()["findings"] if f["severity"] == "error"] == [], r.stdout
    r = cli("plan", str(sample), "-o", "json")
    assert r.exit_code == 0 and r.json()["outcome"] == "converged", r.stderr
