"""Manifests and `kubectl get -o yaml`-style live copies for the diff tests.

``live_copy`` builds what the API server would return for an applied manifest: the
server-managed metadata, the last-applied annotation, a status, a controller's
finalizer, and the defaults the API server fills in. The defaults are written out
by hand here (not with the code under test) from the upstream CRDs and the Grove
defaulting webhook."""

from __future__ import annotations

import copy
import json
from typing import Any, Callable

import yaml

RS = """\
apiVersion: ray.io/v1
kind: RayService
metadata:
  name: my-svc
spec:
  serveConfigV2: |
    applications:
      - name: app
        import_path: app:deployment
  rayClusterConfig:
    rayVersion: "2.52.0"
    headGroupSpec:
      rayStartParams: {}
      template:
        spec:
          containers:
            - name: ray-head
              image: rayproject/ray:2.52.0
              ports:
                - containerPort: 8265
                  name: dashboard
                - containerPort: 8000
                  name: serve
              env:
                - name: RAY_LOG_LEVEL
                  value: info
    workerGroupSpecs:
      - groupName: cpu
        replicas: 2
        minReplicas: 1
        maxReplicas: 4
        rayStartParams: {}
        template:
          spec:
            containers:
              - name: ray-worker
                image: rayproject/ray:2.52.0
      - groupName: gpu
        replicas: 1
        minReplicas: 1
        maxReplicas: 2
        rayStartParams: {}
        template:
          spec:
            containers:
              - name: ray-worker
                image: rayproject/ray:2.52.0-gpu
"""

PCS = """\
apiVersion: grove.io/v1alpha1
kind: PodCliqueSet
metadata:
  name: llm
  namespace: inference
spec:
  replicas: 1
  template:
    cliques:
      - name: frontend
        spec:
          roleName: frontend
          replicas: 2
          podSpec:
            containers:
              - name: web
                image: example.com/frontend:1.0
                env:
                  - name: MODE
                    value: serve
                  - name: LOG
                    value: info
      - name: pleader
        spec:
          roleName: prefill-leader
          replicas: 1
          podSpec:
            containers:
              - name: engine
                image: example.com/engine:1.0
      - name: pworker
        spec:
          roleName: prefill-worker
          replicas: 2
          podSpec:
            containers:
              - name: engine
                image: example.com/engine:1.0
      - name: decode
        spec:
          roleName: decode
          replicas: 1
          podSpec:
            containers:
              - name: engine
                image: example.com/engine:1.0
    podCliqueScalingGroups:
      - name: prefill
        cliqueNames: [pleader, pworker]
        replicas: 1
      - name: decode
        cliqueNames: [decode]
"""


def load(text: str) -> dict:
    return yaml.safe_load(text)


def dump(raw: Any) -> str:
    return yaml.safe_dump(raw, sort_keys=False)


def edit(text: str, f: Callable[[dict], Any]) -> str:
    raw = load(text)
    f(raw)
    return dump(raw)


def _rs_defaults(raw: dict) -> None:
    """ray.io_rayservices.yaml defaults the API server applies."""
    rc = raw["spec"]["rayClusterConfig"]
    for g in rc.get("workerGroupSpecs") or []:
        g.setdefault("numOfHosts", 1)
        g.setdefault("priority", 0)
        for c in g["template"]["spec"]["containers"]:
            for p in c.get("ports") or []:
                p.setdefault("protocol", "TCP")
    for c in rc["headGroupSpec"]["template"]["spec"]["containers"]:
        for p in c.get("ports") or []:
            p.setdefault("protocol", "TCP")


def _pcs_defaults(raw: dict) -> None:
    """grove.io_podcliquesets.yaml defaults and the Grove defaulting webhook."""
    t = raw["spec"]["template"]
    t.setdefault("cliqueStartupType", "CliqueStartupTypeAnyOrder")
    t.setdefault("terminationDelay", "4h0m0s")
    t.setdefault("headlessServiceConfig", {"publishNotReadyAddresses": True})
    for c in t["cliques"]:
        s = c["spec"]
        s.setdefault("minAvailable", s["replicas"])
        s["podSpec"].setdefault("restartPolicy", "Always")
        s["podSpec"].setdefault("terminationGracePeriodSeconds", 30)
    for g in t.get("podCliqueScalingGroups") or []:
        g.setdefault("replicas", 1)
        g.setdefault("minAvailable", 1)


def live_copy(text: str, *, as_list: bool = False, mutate: Callable[[dict], Any] | None = None,
              applied: str | None = None) -> str:
    """``kubectl get <kind> <name> -o yaml`` after ``kubectl apply`` of ``applied``
    (default: ``text``), optionally changed afterwards by ``mutate`` (a controller)."""
    manifest = load(applied if applied is not None else text)
    raw = copy.deepcopy(manifest)
    md = raw["metadata"]
    md.setdefault("namespace", "default")
    manifest["metadata"].setdefault("namespace", md["namespace"])
    md["annotations"] = {**(md.get("annotations") or {}),
                         "kubectl.kubernetes.io/last-applied-configuration": json.dumps(manifest)}
    md.update(uid="6d5f8a8e-0000-4000-8000-000000000001", resourceVersion="48213", generation=4,
              creationTimestamp="2026-05-01T10:00:00Z",
              managedFields=[{"apiVersion": raw["apiVersion"], "fieldsType": "FieldsV1", "manager": "kubectl",
                              "operation": "Update", "time": "2026-05-01T10:00:00Z"}])
    if raw["kind"] == "RayService":
        md["finalizers"] = ["ray.io/rayservice-finalizer"]
        _rs_defaults(raw)
        raw["status"] = {"observedGeneration": 4, "serviceStatus": "Running", "numServeEndpoints": 2,
                         "activeServiceStatus": {"rayClusterName": "my-svc-x7k2p"},
                         "conditions": [{"type": "Ready", "status": "True", "reason": "NonZeroServeEndpoints"}]}
    else:
        _pcs_defaults(raw)
        raw["status"] = {"observedGeneration": 4, "replicas": 1, "availableReplicas": 1,
                         "currentGenerationHash": "abc123"}
    if mutate is not None:
        mutate(raw)
    if as_list:
        return dump({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": [raw]})
    return dump(raw)


def line_of(text: str, needle: str, after: str | None = None) -> int:
    lines = text.splitlines()
    start = 0
    if after is not None:
        start = next(i for i, ln in enumerate(lines) if after in ln)
    return next(i for i, ln in enumerate(lines[start:], start + 1) if needle in ln)
