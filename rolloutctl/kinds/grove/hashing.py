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

from ...core.go_values import SPEW, go_form, keeps_empty_at
from ...core.k8s_go_types import K8S_GO_TYPES
from ...core.quantity import as_written
from .defaults import default_pod_spec

#: the Go types a clique's pod template is decoded into
_POD_TYPES = (K8S_GO_TYPES,)


def pod_template_inputs(clique: Mapping[str, Any], priority_class_name: str | None,
                        stored: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The three inputs of a clique's pod template hash: clique labels, clique
    annotations, and the defaulted pod spec with the PodCliqueSet's
    ``priorityClassName`` injected, each as Go's ``dump.ForHash`` prints the decoded
    ``corev1.PodTemplateSpec`` (``core.go_values``): an absent map (nil) differs from an
    empty one, a plain field's zero value (``stdin: false``, ``workingDir: ""``) is the
    same as absent, a pointer that is set differs from absent. ``stored``: the clique as
    the API server stores it (``defaults.as_stored``), whose quantities the hash takes as
    they are stored (``"0.5"`` and ``"500m"`` hash apart: ``core.quantity.as_written``).

    Upstream: ``operator/internal/controller/common/component/utils/podclique.go``
    ``ComputePCLQPodTemplateHash``; ``operator/internal/utils/kubernetes/pod.go``
    ``ComputeHash``.
    """
    spec = clique.get("spec") if isinstance(clique.get("spec"), Mapping) else {}
    pod_spec = default_pod_spec(spec.get("podSpec"))
    if isinstance(stored, Mapping):
        wspec = stored.get("spec")
        pod_spec = as_written(pod_spec, wspec.get("podSpec") if isinstance(wspec, Mapping) else None)
    pod_spec["priorityClassName"] = priority_class_name or ""
    return {
        "labels": _go_map(clique.get("labels")),
        "annotations": _go_map(clique.get("annotations")),
        "podSpec": go_form(pod_spec, "corev1.PodSpec", _POD_TYPES, SPEW),
    }


def _go_map(v: Any) -> dict[str, Any] | None:
    """A ``map[string]string`` as decoded: None when absent (nil), else its entries."""
    return dict(v) if isinstance(v, Mapping) else None


#: where a diff path names a clique of the PodCliqueSet's template
_CLIQUES = ("spec", "template", "cliques")


def hash_keeps_empty(path: tuple) -> bool:
    """Whether an empty map, list or struct at ``path`` of a PodCliqueSet (field names,
    list items as further segments) feeds a clique's pod template hash unlike an absent
    one: the clique's ``labels`` and ``annotations`` (nil or empty maps), and in its
    ``spec.podSpec`` a pointer, slice or map field (``pod_template_inputs``)."""
    if tuple(path[:3]) != _CLIQUES or len(path) < 5 or isinstance(path[3], str):
        return False
    rest = tuple(path[4:])
    if rest in (("labels",), ("annotations",)):
        return True
    return rest[:2] == ("spec", "podSpec") and len(rest) > 2 and \
        keeps_empty_at(rest[2:], "corev1.PodSpec", _POD_TYPES, SPEW)


def compute_pclq_pod_template_hash(clique: Mapping[str, Any], priority_class_name: str | None,
                                   stored: Mapping[str, Any] | None = None) -> str:
    """Digest of ``pod_template_inputs`` (``ComputePCLQPodTemplateHash``)."""
    return _digest(pod_template_inputs(clique, priority_class_name, stored))


def compute_generation_hash(template: Mapping[str, Any], stored: Mapping[str, Any] | None = None) -> str:
    """The PodCliqueSet generation hash over every clique's pod template inputs in
    ``cliques`` order (``stored``: the template as the API server stores it).
    Upstream: ``operator/internal/controller/podcliqueset/reconcilespec.go``
    ``computeGenerationHash``."""
    pcn = template.get("priorityClassName")
    cliques = [c for c in (template.get("cliques") or []) if isinstance(c, Mapping)]
    return _digest([pod_template_inputs(c, pcn, stored_clique(stored, c)) for c in cliques])


def stored_clique(stored_template: Any, clique: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The clique of the template as the API server stores it that has ``clique``'s name."""
    cliques = stored_template.get("cliques") if isinstance(stored_template, Mapping) else None
    for c in cliques if isinstance(cliques, list) else ():
        if isinstance(c, Mapping) and c.get("name") == clique.get("name"):
            return c
    return None


def _digest(v: Any) -> str:
    data = json.dumps(v, sort_keys=True, separators=(",", ":"), default=str).encode()
    return "r" + hashlib.sha256(data).hexdigest()[:10]
