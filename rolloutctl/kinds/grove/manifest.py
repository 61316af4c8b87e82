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
