"""Flavor assignment: which ResourceFlavor each pod set's resources take, or why none fits.

Upstream: kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7, ``pkg/scheduler/flavorassigner/flavorassigner.go``
(``FlavorAssigner.findFlavorForPodSets``, ``checkFlavorForPodSets``, ``fitsResourceQuota``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...core.model import Obj
from ...core.quantity import format_quantity
from ...core.records import record
from .clusterqueue import Quota
from .podset import PodSet


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


@record(frozen=True)
class Assignment:
    """The outcome of flavor assignment for one Workload."""

    fits: bool
    reason: str  # Fit | ExceedsMaxQuota | WaitingForQuota | Unavailable | NoMatchingFlavor
    message: str
    flavors: Mapping[str, Mapping[str, str]]  # pod set -> resource -> flavor
    short: Mapping[tuple[str, str], tuple[int, int, int]]  # (flavor, res) -> (requested, free, nominal)


def flavor_matches(rf: Obj | None, template: Mapping[str, Any]) -> bool:
    """A flavor whose ``nodeLabels`` conflict with the pod's ``nodeSelector`` is skipped
    (flavorassigner.go ``checkFlavorForPodSets``; taints are not modelled)."""
    if rf is None:
        return True
    sel = _m(_m(template.get("spec")).get("nodeSelector"))
    for k, v in _m(rf.spec.get("nodeLabels")).items():
        if k in sel and sel[k] != v:
            return False
    return True


#: ``corev1.ResourcePods``: a quota on the number of pods
PODS = "pods"


def assign_flavors(q: Quota, pod_sets: Sequence[PodSet], used: Mapping[tuple[str, str], int],
                   rfs: Mapping[str, Obj], pinned: Mapping[str, Mapping[str, str]] | None = None) -> Assignment:
    """``findFlavorForPodSets`` / ``fitsResourceQuota`` (flavorassigner.go), nominal quota
    only: per pod set in order, per resource group, the first flavor (in the group's
    order) where what the Workload already took plus the pod set's request fits next to
    the usage. A ClusterQueue that covers ``pods`` counts one per pod of each pod set
    (``RGByResource(corev1.ResourcePods)``). ``pinned``: an elastic replacement must keep
    the old slice's flavors."""
    acc: dict[tuple[str, str], int] = {}
    out: dict[str, dict[str, str]] = {}
    short: dict[tuple[str, str], tuple[int, int, int]] = {}
    exceeds = False
    counts_pods = any(PODS in covered for covered, _ in q.groups)
    for ps in pod_sets:
        req = {r: v for r, v in ps.total().items() if v > 0}
        if counts_pods and ps.count > 0:
            req[PODS] = ps.count * 1000  # (milli-units: one per pod)
        if not req:
            out[ps.name] = {}
            continue
        out[ps.name] = {}
        for r in sorted(req):
            if not any(r in covered for covered, _ in q.groups):
                return Assignment(False, "NoMatchingFlavor", f"resource {r} unavailable in ClusterQueue {q.name}",
                                  {}, {})
        for covered, flavors in q.groups:
            need = {r: v for r, v in req.items() if r in covered}
            if not need:
                continue
            choices = list(flavors)
            if pinned and ps.name in pinned:
                old = {pinned[ps.name].get(r) for r in need} - {None}
                if old:
                    choices = [f for f in flavors if f in old]
            chosen = None
            any_match = False
            for f in choices:
                if not flavor_matches(rfs.get(f), ps.template):
                    continue
                any_match = True
                ok = True
                for r, v in need.items():
                    nom = q.nominal.get((f, r), 0)
                    total = acc.get((f, r), 0) + v
                    if total > nom:
                        exceeds = True
                        ok = False
                        short[(f, r)] = (total, max(0, nom - used.get((f, r), 0)), nom)
                    elif total + used.get((f, r), 0) > nom:
                        ok = False
                        short[(f, r)] = (total, max(0, nom - used.get((f, r), 0)), nom)
                if ok:
                    chosen = f
                    break
            if chosen is None:
                if not any_match:
                    return Assignment(False, "NoMatchingFlavor", f"no flavor of ClusterQueue {q.name} matches pod "
                                      f"set {ps.name}'s node selector", {}, {})
                exceeds = all(any(acc.get((f, r), 0) + v > q.nominal.get((f, r), 0) for r, v in need.items())
                              for f in choices if flavor_matches(rfs.get(f), ps.template))
                why = "ExceedsMaxQuota" if exceeds else "WaitingForQuota"
                parts = [f"{r} in flavor {f}: request {format_quantity(t, r)}, free {format_quantity(fr, r)} of "
                         f"nominal {format_quantity(n, r)}" for (f, r), (t, fr, n) in sorted(short.items())]
                msg = (f"couldn't assign flavors to pod set {ps.name}: "
                       f"{'request exceeds the maximum capacity' if exceeds else 'insufficient quota'} for "
                       + "; ".join(parts))
                return Assignment(False, why, msg, {}, short)
            for r, v in need.items():
                acc[(chosen, r)] = acc.get((chosen, r), 0) + v
                out[ps.name][r] = chosen
    return Assignment(True, "Fit", "", out, {})
