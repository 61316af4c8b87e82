"""Readings of a PodCliqueSet manifest as written, before admission, tolerant of any
shape: the pod templates it carries (Kubernetes' resource checks, SC006) and how many
pods it asks for (``--max-pods``, checked before the model creates a single pod).

Upstream: ``operator/api/core/v1alpha1/podcliqueset.go`` (``PodCliqueSetSpec.Template``:
``cliques[].spec.podSpec``, ``podCliqueScalingGroups[].{cliqueNames, replicas,
minAvailable}``); the replica counts are those the PodCliqueSet components expand.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


def _int_or(v: Any, default: int) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else default


def pod_templates(obj: Any) -> Iterator[tuple[tuple, Mapping[str, Any]]]:
    """(path, pod spec) of every clique's ``spec.podSpec``."""
    spec = obj.spec
    cliques = (spec.get("template") or {}).get("cliques") if isinstance(spec.get("template"), Mapping) else None
    for i, c in enumerate(cliques if isinstance(cliques, list) else []):
        ps = c.get("spec", {}).get("podSpec") if isinstance(c, Mapping) and isinstance(c.get("spec"), Mapping) else None
        if isinstance(ps, Mapping):
            yield ("spec", "template", "cliques", i, "spec", "podSpec"), ps


#: what ``configurePodInitContainer`` adds to the Pod of a PodClique that starts after
#: others (operator/internal/controller/podclique/components/pod/initcontainer.go:
#: ``initContainerName``, ``serviceAccountTokenSecretVolumeName``, ``podInfoVolumeName``)
_INIT = "Grove's startup-order init container"
STARTUP_INJECTED: tuple[tuple[str, str, str], ...] = (
    ("volumes", "sa-token-secret-vol", "the service account token volume of " + _INIT),
    ("volumes", "pod-info-vol", "the pod information volume of " + _INIT),
    ("initContainers", "grove-initc", _INIT),
)


def _starts_after_others(startup: Any, index: int, clique: Mapping[str, Any]) -> bool:
    """Whether Pods of this clique get a startup dependency
    (``identifyFullyQualifiedStartupDependencyNames``, podclique.go): InOrder, every
    clique but the first; Explicit, a clique that names others in ``startsAfter``."""
    if startup == "CliqueStartupTypeInOrder":
        return index > 0
    if startup == "CliqueStartupTypeExplicit":
        spec = clique.get("spec") if isinstance(clique.get("spec"), Mapping) else {}
        deps = spec.get("startsAfter")
        return isinstance(deps, list) and bool(deps)
    return False


def injected_into_pods(obj: Any, options: Mapping[str, Any] | None = None) -> Iterator[tuple[tuple, str, str, str]]:
    """(pod spec path, list, name, what) of what Grove adds to the Pods of each clique:
    for a clique that starts after others, ``buildResource`` (pod.go) calls
    ``configurePodInitContainer``, which appends two volumes and the ``grove-initc`` init
    container (``STARTUP_INJECTED``) to the user's pod spec. (No operator setting changes
    it: ``options`` is unused.)"""
    tmpl = obj.spec.get("template") if isinstance(obj.spec.get("template"), Mapping) else {}
    cliques = tmpl.get("cliques")
    startup = tmpl.get("cliqueStartupType")
    for i, c in enumerate(cliques if isinstance(cliques, list) else []):
        if isinstance(c, Mapping) and _starts_after_others(startup, i, c):
            base = ("spec", "template", "cliques", i, "spec", "podSpec")
            for key, name, what in STARTUP_INJECTED:
                yield base, key, name, what


def pod_budget(raw: Mapping[str, Any]) -> int:
    """How many pods a PodCliqueSet asks for: per replica, each standalone clique's
    replicas plus, per scaling group, its replicas times its cliques' replicas."""
    spec = raw.get("spec") if isinstance(raw.get("spec"), Mapping) else {}
    tmpl = spec.get("template") if isinstance(spec.get("template"), Mapping) else {}
    cliques = tmpl.get("cliques") if isinstance(tmpl.get("cliques"), list) else []
    groups = tmpl.get("podCliqueScalingGroups") if isinstance(tmpl.get("podCliqueScalingGroups"), list) else []
    per_clique: dict[str, int] = {}
    for c in cliques:
        if isinstance(c, Mapping):
            cs = c.get("spec") if isinstance(c.get("spec"), Mapping) else {}
            name = c.get("name") if isinstance(c.get("name"), str) else ""
            per_clique[name] = per_clique.get(name, 0) + max(0, _int_or(cs.get("replicas"), 1))
    grouped: set[str] = set()
    per_replica = 0
    for g in groups:
        if not isinstance(g, Mapping):
            continue
        names = [n for n in (g.get("cliqueNames") if isinstance(g.get("cliqueNames"), list) else [])
                 if isinstance(n, str)]
        grouped.update(names)
        reps = max(0, _int_or(g.get("replicas"), 1), _int_or(g.get("minAvailable"), 1))
        per_replica += reps * sum(per_clique.get(n, 0) for n in set(names))
    per_replica += sum(v for k, v in per_clique.items() if k not in grouped)
    return max(0, _int_or(spec.get("replicas"), 1)) * per_replica
