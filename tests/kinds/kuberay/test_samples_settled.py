"""A settled live world of every upstream KubeRay RayService sample plans `noop`.

The live objects are written here by hand from the sample (``../shared/upstream/kuberay/
samples``), as a running KubeRay at the modelled commit leaves them, never through the
tool's own builders:

- the RayService with the finalizer and a Ready status naming one active cluster;
- that RayCluster (association labels, KubeRay annotations, spec = rayClusterConfig,
  a ready head);
- ``<rs>-head-svc`` and the serve Service (``<rs>-serve-svc`` or ``serveService``'s
  name), selecting the cluster (``reconcileServices`` compares only that selector);
- in incremental mode the per-cluster ``<cluster>-serve-svc``, and the Gateway and
  HTTPRoute exactly as ``createGateway`` / ``createHTTPRoute`` build them
  (rayservice_controller.go), plus what the API server and a Gateway implementation
  add to them (defaults, status), which ``utils.IsGatewayEqual`` / ``IsHTTPRouteEqual``
  must not see as a difference.
"""

from __future__ import annotations

import copy

import pytest
import yaml

from tests.conftest import UPSTREAM, write

SAMPLES = UPSTREAM / "kuberay" / "samples"
NAMES = ["ray-service.sample.yaml", "ray-service.incremental-upgrade.yaml", "ray-service.custom-serve-service.yaml",
         "ray-service.different-port.yaml", "ray-service.high-availability.yaml", "ray-service.stable-diffusion.yaml",
         "ray-service.llm-serve.yaml", "ray-service.no-ray-serve-replica.yaml", "ray-service.tpu-single-host.yaml"]
T = "2026-01-01T00:00:00Z"
CLUSTER_SUFFIX = "x7k2p"


def _sample(name: str) -> tuple[str, dict]:
    p = SAMPLES / name
    if not p.exists():
        pytest.skip("../shared/upstream/kuberay/samples not available")
    text = p.read_text()
    rs = next(d for d in yaml.safe_load_all(text) if isinstance(d, dict) and d.get("kind") == "RayService")
    return text, rs


def _apps(rs: dict) -> list[str]:
    doc = yaml.safe_load(rs["spec"].get("serveConfigV2") or "") or {}
    return sorted({a.get("name") or "default" for a in doc.get("applications") or []})


def _incremental(rs: dict) -> bool:
    return (rs["spec"].get("upgradeStrategy") or {}).get("type") == "NewClusterWithIncrementalUpgrade"


def _serve_port(rs: dict) -> int:
    ctr = rs["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    return next((p["containerPort"] for p in ctr.get("ports") or [] if p.get("name") == "serve"), 8000)


def _workers(rs: dict) -> int:
    n = 0
    for g in rs["spec"]["rayClusterConfig"].get("workerGroupSpecs") or []:
        r = g.get("replicas", g.get("minReplicas", 0)) or 0
        n += max(r, g.get("minReplicas", 0) or 0) * (g.get("numOfHosts") or 1)
    return n


def live_world(rs: dict, ns: str = "default") -> list[dict]:
    name = rs["metadata"]["name"]
    rc_name = f"{name}-{CLUSTER_SUFFIX}"
    inc = _incremental(rs)
    assoc = {"ray.io/originated-from-cr-name": name, "ray.io/originated-from-crd": "RayService"}
    owner_rs = [{"apiVersion": "ray.io/v1", "kind": "RayService", "name": name, "uid": "u-rs", "controller": True,
                 "blockOwnerDeletion": True}]
    active = {"rayClusterName": rc_name,
              "applicationStatuses": {a: {"status": "RUNNING", "healthLastUpdateTime": T} for a in _apps(rs)}}
    if inc:
        active.update(targetCapacity=100, trafficRoutedPercent=100, lastTrafficMigratedTime=T)
    live_rs = copy.deepcopy(rs)
    live_rs["metadata"].update(namespace=ns, generation=1, uid="u-rs", finalizers=["ray.io/rayservice-finalizer"])
    live_rs["status"] = {
        "activeServiceStatus": active, "pendingServiceStatus": {}, "numServeEndpoints": 1 + _workers(rs),
        "serviceStatus": "Running", "observedGeneration": 1, "lastUpdateTime": T,
        "conditions": [
            {"type": "Ready", "status": "True", "reason": "NonZeroServeEndpoints",
             "message": "Number of serve endpoints is greater than 0", "observedGeneration": 1, "lastTransitionTime": T},
            {"type": "UpgradeInProgress", "status": "False", "reason": "NoPendingCluster",
             "message": "Active Ray cluster exists and no pending Ray cluster", "observedGeneration": 1,
             "lastTransitionTime": T}]}
    rcc = rs["spec"]["rayClusterConfig"]
    rc = {"apiVersion": "ray.io/v1", "kind": "RayCluster",
          "metadata": {"name": rc_name, "namespace": ns, "generation": 1,
                       "labels": {**(rs["metadata"].get("labels") or {}), **assoc},
                       "annotations": {**(rs["metadata"].get("annotations") or {}),
                                       "ray.io/hash-without-replicas-and-workers-to-delete": "5N3H7TJ0PVBOAF2U8CGE2M4Q",
                                       "ray.io/num-worker-groups": str(len(rcc.get("workerGroupSpecs") or [])),
                                       "ray.io/kuberay-version": "nightly"},
                       "ownerReferences": owner_rs},
          "spec": copy.deepcopy(rcc),
          "status": {"state": "ready", "readyWorkerReplicas": _workers(rs), "desiredWorkerReplicas": _workers(rs),
                     "availableWorkerReplicas": _workers(rs), "observedGeneration": 1,
                     "conditions": [{"type": "HeadPodReady", "status": "True", "reason": "HeadPodRunningAndReady",
                                     "lastTransitionTime": T},
                                    {"type": "RayClusterProvisioned", "status": "True",
                                     "reason": "AllPodRunningAndReadyFirstTime", "lastTransitionTime": T}]}}
    head_svc = {"apiVersion": "v1", "kind": "Service",
                "metadata": {"name": f"{name}-head-svc", "namespace": ns, "ownerReferences": owner_rs,
                             "labels": {**assoc, "ray.io/node-type": "head", "ray.io/identifier": f"{name}-head"}},
                "spec": {"clusterIP": "None", "publishNotReadyAddresses": True, "type": "ClusterIP",
                         "selector": {"ray.io/cluster": rc_name, "ray.io/node-type": "head",
                                      "ray.io/identifier": f"{rc_name}-head", "app.kubernetes.io/name": "kuberay",
                                      "app.kubernetes.io/created-by": "kuberay-operator"},
                         "ports": [{"name": "dashboard", "port": 8265, "protocol": "TCP", "appProtocol": "tcp"}]}}
    out = [live_rs, rc, head_svc]
    port = _serve_port(rs)
    if inc:
        out.append({"apiVersion": "v1", "kind": "Service",
                    "metadata": {"name": f"{rc_name}-serve-svc", "namespace": ns,
                                 "labels": {"ray.io/originated-from-cr-name": rc_name,
                                            "ray.io/originated-from-crd": "RayService",
                                            "ray.io/serve": f"{rc_name}-serve"},
                                 "ownerReferences": [{"apiVersion": "ray.io/v1", "kind": "RayCluster", "name": rc_name,
                                                      "uid": "u-rc", "controller": True}]},
                    "spec": {"type": "ClusterIP", "clusterIP": "10.96.0.12",
                             "selector": {"ray.io/cluster": rc_name, "ray.io/serve": "true"},
                             "ports": [{"name": "serve", "port": port, "protocol": "TCP", "targetPort": port}]}})
        opts = rs["spec"]["upgradeStrategy"]["clusterUpgradeOptions"]
        # createGateway, plus the API server's default allowedRoutes and the implementation's status
        out.append({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
                    "metadata": {"name": f"{name}-gateway", "namespace": ns, "ownerReferences": owner_rs},
                    "spec": {"gatewayClassName": opts["gatewayClassName"],
                             "listeners": [{"name": "http", "protocol": "HTTP", "port": 80,
                                            "allowedRoutes": {"namespaces": {"from": "Same"}}}]},
                    "status": {"conditions": [{"type": "Accepted", "status": "True", "reason": "Accepted"},
                                              {"type": "Programmed", "status": "True", "reason": "Programmed"}]}})
        # createHTTPRoute with one backend (weight 100), plus the API server's defaults
        out.append({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
                    "metadata": {"name": f"{name}-httproute", "namespace": ns, "ownerReferences": owner_rs},
                    "spec": {"parentRefs": [{"group": "gateway.networking.k8s.io", "kind": "Gateway",
                                             "name": f"{name}-gateway", "namespace": ns}],
                             "rules": [{"matches": [{"path": {"type": "PathPrefix", "value": "/"}}],
                                        "backendRefs": [{"group": "", "kind": "Service", "name": f"{rc_name}-serve-svc",
                                                         "namespace": ns, "port": port, "weight": 100}]}]},
                    "status": {"parents": [{"parentRef": {"name": f"{name}-gateway", "namespace": ns},
                                            "controllerName": "istio.io/gateway-controller",
                                            "conditions": [{"type": "Accepted", "status": "True"},
                                                           {"type": "ResolvedRefs", "status": "True"}]}]}})
    else:
        custom = rs["spec"].get("serveService")
        svc_name = (custom or {}).get("metadata", {}).get("name") or f"{name}-serve-svc"
        spec = copy.deepcopy((custom or {}).get("spec") or {})
        spec.setdefault("type", "ClusterIP")
        spec["selector"] = {"ray.io/cluster": rc_name, "ray.io/serve": "true"}
        spec.setdefault("ports", [{"name": "serve", "port": port, "protocol": "TCP", "targetPort": port}])
        out.append({"apiVersion": "v1", "kind": "Service",
                    "metadata": {"name": svc_name, "namespace": ns, "ownerReferences": owner_rs,
                                 "labels": {**assoc, "ray.io/serve": f"{name}-serve"}},
                    "spec": spec})
    return out


@pytest.mark.parametrize("sample", NAMES)
def test_settled_live_world_of_each_sample_plans_noop(cli, tmp_path, sample):
    text, rs = _sample(sample)
    desired = write(tmp_path, sample, text)
    live = write(tmp_path, "live.yaml", yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": live_world(rs)}))
    r = cli("plan", desired, "--observed", live, "-o", "json")
    assert r.exit_code == 0, r.stderr
    doc = r.json()
    acts = [(a["verb"], a["kind"], a["name"], a["reason"]) for s in doc["steps"] for a in s["actions"]
            if a["verb"] != "status"]
    assert doc["outcome"] == "noop", acts
    assert not acts


@pytest.mark.parametrize("sample", NAMES)
def test_next_on_a_settled_sample_changes_nothing(cli, tmp_path, sample):
    text, rs = _sample(sample)
    desired = write(tmp_path, sample, text)
    live = write(tmp_path, "live.yaml", yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": live_world(rs)}))
    r = cli("next", desired, "--observed", live, "-o", "json")
    assert r.exit_code == 0, r.stderr
    doc = r.json()
    assert doc["outcome"] == "noop"
    assert not [a for s in doc["steps"] for a in s["actions"] if a["verb"] != "status"]
