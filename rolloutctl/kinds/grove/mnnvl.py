"""What Grove does for a PodCliqueSet with MNNVL on (``autoMNNVLEnabled``) that the
model does not: the ComputeDomains the PodCliqueSet controller creates (one per replica
and MNNVL group of its GPU cliques) and the ``mnnvl-claim`` resource claim injected into
the PodCliques of those cliques, whose pods then wait for the NVIDIA DRA driver. Named
here so the plan can say they are not modelled.

Upstream (Grove ``fcc3b3bb``): ``operator/internal/mnnvl/computedomain/computedomain.go``
(``getRequiredCDNames``, ``collectDistinctGroups``, ``buildPCSGLookup``,
``generateComputeDomainName``), ``operator/internal/mnnvl/helpers.go``
(``ResolveGroupNameHierarchically``, ``HasGPUInPodSpec``, ``containerHasGPU``),
``operator/internal/mnnvl/injection.go`` (``InjectMNNVLIntoPodSpec``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.quantity import QuantityError, parse_quantity
from . import names as N

#: ``constants.GPUResourceName``
GPU = "nvidia.com/gpu"
#: ``AnnotationMNNVLGroupOptOut``
OPT_OUT = "none"


def _map(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def _list(v: Any) -> list:
    return v if isinstance(v, list) else []


def _container_has_gpu(c: Any) -> bool:
    """``containerHasGPU``: a non-zero ``nvidia.com/gpu`` limit or request."""
    res = _map(_map(c).get("resources"))
    for kind in ("limits", "requests"):
        q = _map(res.get(kind)).get(GPU)
        if q is None:
            continue
        try:
            if parse_quantity(q) != 0:
                return True
        except QuantityError:
            continue
    return False


def has_gpu_in_pod_spec(ps: Any) -> bool:
    """``HasGPUInPodSpec``: a container or init container with a GPU."""
    ps = _map(ps)
    return any(_container_has_gpu(c) for key in ("containers", "initContainers") for c in _list(ps.get(key)))


def resolve_group_name_hierarchically(*layers: Any) -> str | None:
    """``ResolveGroupNameHierarchically``: the first layer with the annotation decides;
    ``none`` withdraws (None), a name enrols."""
    for annotations in layers:
        a = _map(annotations)
        if N.A_MNNVL_GROUP in a:
            value = a[N.A_MNNVL_GROUP]
            return None if value == OPT_OUT else str(value)
    return None


def required_compute_domains(pcs: Mapping[str, Any]) -> list[str]:
    """``getRequiredCDNames``: ``<pcs>-<replica>-<group>`` for every replica and every
    distinct group of a GPU clique (the clique's annotation, else its scaling group's,
    else the PodCliqueSet's), by replica, then group name."""
    meta, spec = _map(pcs.get("metadata")), _map(pcs.get("spec"))
    tmpl = _map(spec.get("template"))
    by_clique: dict[str, Mapping[str, Any]] = {}
    for g in _list(tmpl.get("podCliqueScalingGroups")):
        for name in _list(_map(g).get("cliqueNames")):
            by_clique[str(name)] = _map(g)
    groups: set[str] = set()
    for c in _list(tmpl.get("cliques")):
        c = _map(c)
        if not has_gpu_in_pod_spec(_map(c.get("spec")).get("podSpec")):
            continue
        group = resolve_group_name_hierarchically(c.get("annotations"),
                                                  by_clique.get(str(c.get("name")), {}).get("annotations"),
                                                  meta.get("annotations"))
        if group is not None:
            groups.add(group)
    replicas = spec.get("replicas")
    n = replicas if isinstance(replicas, int) and not isinstance(replicas, bool) else 0
    return [f"{meta.get('name')}-{r}-{g}" for r in range(n) for g in sorted(groups)]
