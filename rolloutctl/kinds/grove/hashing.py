"""Change detection: which template content rolls pods.

Upstream computes FNV hashes of Go structures (``internal/utils/kubernetes/pod.go``
``ComputeHash``); those values cannot be reproduced outside Go. rolloutctl uses
its own digest of the same inputs for objects it plans, and treats hash labels
it observes as opaque tokens (equal or not equal).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from .defaults import default_pod_spec


def pod_template_inputs(clique: Mapping[str, Any], priority_class_name: str | None) -> dict[str, Any]:
    """The three inputs of a clique's pod template hash: clique labels, clique
    annotations, and the defaulted pod spec with the PodCliqueSet's
    ``priorityClassName`` injected.

    Upstream: ``operator/internal/controller/common/component/utils/podclique.go``
    ``ComputePCLQPodTemplateHash``.
    """
    spec = clique.get("spec") if isinstance(clique.get("spec"), Mapping) else {}
    pod_spec = default_pod_spec(spec.get("podSpec"))
    pod_spec["priorityClassName"] = priority_class_name or ""
    if not pod_spec["priorityClassName"]:
        pod_spec.pop("priorityClassName")
    return {
        "labels": dict(clique.get("labels") or {}),
        "annotations": dict(clique.get("annotations") or {}),
        "podSpec": pod_spec,
    }


def compute_pclq_pod_template_hash(clique: Mapping[str, Any], priority_class_name: str | None) -> str:
    """Digest of ``pod_template_inputs`` (``ComputePCLQPodTemplateHash``)."""
    return _digest(pod_template_inputs(clique, priority_class_name))


def compute_generation_hash(template: Mapping[str, Any]) -> str:
    """The PodCliqueSet generation hash over every clique's pod template inputs in
    ``cliques`` order. Upstream: ``operator/internal/controller/podcliqueset/reconcilespec.go``
    ``computeGenerationHash``."""
    pcn = template.get("priorityClassName")
    cliques = [c for c in (template.get("cliques") or []) if isinstance(c, Mapping)]
    return _digest([pod_template_inputs(c, pcn) for c in cliques])


def _digest(v: Any) -> str:
    data = json.dumps(v, sort_keys=True, separators=(",", ":"), default=str).encode()
    return "r" + hashlib.sha256(data).hexdigest()[:10]
