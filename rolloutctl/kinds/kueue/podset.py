"""A Workload's pod sets, and what admission injects into their pod templates and
takes out again.

Upstream: kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7: the ``PodSet`` type (``apis/kueue/v1beta2/workload_types.go``) and
``pkg/podset/podset.go`` (``FromAssignment``, ``Merge``, ``RestorePodSpec``). ``counts``,
``requests_of``, ``fmt`` and ``quantities`` are the model's own readings of pod sets
(for messages and the plan's summary), not upstream functions.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Iterable

from ...core.environment import add, pod_requests
from ...core.model import Obj
from ...core.quantity import format_quantity
from ...core.records import record
from .constants import CQ_LABEL, LQ_LABEL, PODSET_LABEL, SLICE_NAME_ANN, WL_ANN


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


@record(frozen=True)
class PodSet:
    """A Workload pod set: name, pod count and the per-pod template."""

    name: str
    count: int
    template: Mapping[str, Any]

    def per_pod(self) -> dict[str, int]:
        return pod_requests(_m(self.template.get("spec")))

    def total(self) -> dict[str, int]:
        return {k: v * self.count for k, v in self.per_pod().items()}

    def to_raw(self) -> dict[str, Any]:
        return {"name": self.name, "count": self.count, "template": copy.deepcopy(dict(self.template))}


def pod_set_from_raw(raw: Mapping[str, Any]) -> PodSet:
    """A ``PodSet`` from an entry of a Workload's ``spec.podSets`` (as ``PodSet.to_raw`` writes it)."""
    return PodSet(str(raw.get("name") or ""), int(raw.get("count") or 0), dict(_m(raw.get("template"))))


def counts(pod_sets: Iterable[PodSet]) -> dict[str, int]:
    """Pod count by pod set name."""
    return {p.name: p.count for p in pod_sets}


def requests_of(pod_sets: Iterable[PodSet]) -> dict[str, int]:
    """What the pod sets request in total, per resource (milli-units)."""
    total: dict[str, int] = {}
    for p in pod_sets:
        add(total, p.total())
    return total


def fmt(res: Mapping[str, int]) -> str:
    """Resources for a message: ``cpu 2, memory 4Gi`` (``nothing`` when empty)."""
    return ", ".join(f"{r} {format_quantity(v, r)}" for r, v in sorted(res.items()) if v) or "nothing"


def quantities(res: Mapping[str, int]) -> dict[str, str]:
    """Resources as Kubernetes quantities, for the plan's summary."""
    return {r: format_quantity(v, r) for r, v in sorted(res.items()) if v}


def injected_pod_set_info(ps: PodSet, flavors: Mapping[str, str], rfs: Mapping[str, Obj], lq: str, cq: str,
                          wl: str, slice_origin: str | None) -> dict[str, Any]:
    """``podset.FromAssignment`` + the reconciler's extras: what admission merges into
    the pod set's template (labels, annotations, nodeSelector, tolerations)."""
    labels = {PODSET_LABEL: ps.name, LQ_LABEL: lq, CQ_LABEL: cq}
    ann = {WL_ANN: wl}
    if slice_origin:
        ann[SLICE_NAME_ANN] = slice_origin
    sel: dict[str, str] = {}
    tol: list[Any] = []
    for f in sorted(set(flavors.values())):
        rf = rfs.get(f)
        if rf is None:
            continue
        sel.update({str(k): str(v) for k, v in _m(rf.spec.get("nodeLabels")).items()})
        tol.extend(copy.deepcopy(_l(rf.spec.get("tolerations"))))
    return {"labels": labels, "annotations": ann, "nodeSelector": sel, "tolerations": tol}


def merge_into_template(template: dict, info: Mapping[str, Any]) -> None:
    """``podset.Merge``: labels, annotations and nodeSelector added; tolerations appended."""
    md = template.setdefault("metadata", {})
    for k in ("labels", "annotations"):
        if info.get(k):
            cur = dict(md.get(k) or {})
            cur.update(info[k])
            md[k] = cur
    spec = template.setdefault("spec", {})
    if info.get("nodeSelector"):
        cur = dict(spec.get("nodeSelector") or {})
        cur.update(info["nodeSelector"])
        spec["nodeSelector"] = cur
    for t in _l(info.get("tolerations")):
        tl = list(spec.get("tolerations") or [])
        if t not in tl:
            tl.append(t)
            spec["tolerations"] = tl


def strip_injection(template: Mapping[str, Any], rfs: Iterable[Obj]) -> dict:
    """A template without what admission injected (Kueue's labels/annotations and the
    flavors' node labels): what ``RestorePodSetsInfo`` puts back, and what KubeRay's
    stored hash saw when Kueue injected into a RayCluster after its creation."""
    t = copy.deepcopy(dict(template))
    md = t.get("metadata")
    if isinstance(md, dict):
        for k in ("labels", "annotations"):
            v = md.get(k)
            if isinstance(v, dict):
                v = {a: b for a, b in v.items() if a not in (PODSET_LABEL, LQ_LABEL, CQ_LABEL, WL_ANN, SLICE_NAME_ANN)}
                if v:
                    md[k] = v
                else:
                    md.pop(k)
        if not md:
            t.pop("metadata")
    spec = t.get("spec")
    if isinstance(spec, dict) and isinstance(spec.get("nodeSelector"), dict):
        labels = {}
        for rf in rfs:
            labels.update({str(k): str(v) for k, v in _m(rf.spec.get("nodeLabels")).items()})
        sel = {k: v for k, v in spec["nodeSelector"].items() if labels.get(k) != v}
        if sel:
            spec["nodeSelector"] = sel
        else:
            spec.pop("nodeSelector")
    return t
