"""The live RayService that ``kubectl apply`` of a manifest leaves, when Kueue has written to
it: the fields Kueue set and the manifest does not carry stay.

Not a Kueue controller: the merge of an apply, for the fields Kueue's webhooks and
``startJob`` write (kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7,
``pkg/controller/jobs/rayservice/rayservice_webhook.go`` ``Default``,
``pkg/controller/jobframework/reconciler.go`` ``startJob``).
"""

from __future__ import annotations

import copy
from typing import Any, Mapping

from ...core.model import Obj
from .context import as_list, as_map

KUEUE_PREFIXES = ("kueue.x-k8s.io/",)


def carry_kueue_fields(live: Obj, desired: Obj) -> Obj:
    """What ``kubectl apply`` of ``desired`` leaves on the live RayService: fields Kueue set
    and the manifest does not (the suspend fields, injected template labels, annotations,
    node selectors, tolerations, scheduling gates) stay."""
    raw = copy.deepcopy(dict(desired.raw))
    spec = raw.setdefault("spec", {})
    if "suspend" in live.spec and "suspend" not in spec:
        spec["suspend"] = live.spec["suspend"]
    lrcc = as_map(live.spec.get("rayClusterConfig"))
    rcc = spec.setdefault("rayClusterConfig", {})
    if "suspend" in lrcc and "suspend" not in rcc:
        rcc["suspend"] = lrcc["suspend"]
    lt = _templates_by_group(lrcc)
    for key, t in _templates_by_group(rcc).items():
        src = lt.get(key)
        if src is None:
            continue
        md, smd = t.setdefault("metadata", {}), as_map(src.get("metadata"))
        for f in ("labels", "annotations"):
            extra = {a: b for a, b in as_map(smd.get(f)).items() if a.startswith(KUEUE_PREFIXES) and a not in as_map(md.get(f))}
            if extra:
                md[f] = {**dict(as_map(md.get(f))), **extra}
        if not md:
            t.pop("metadata")
        ps, sps = t.setdefault("spec", {}), as_map(src.get("spec"))
        sel = {a: b for a, b in as_map(sps.get("nodeSelector")).items() if a not in as_map(ps.get("nodeSelector"))}
        if sel:
            ps["nodeSelector"] = {**dict(as_map(ps.get("nodeSelector"))), **sel}
        for f in ("tolerations", "schedulingGates"):
            extra_l = [x for x in as_list(sps.get(f)) if x not in as_list(ps.get(f))]
            if extra_l:
                ps[f] = as_list(ps.get(f)) + copy.deepcopy(extra_l)
    return Obj(raw, desired.file, desired.line, desired.lines)


def _templates_by_group(rcc: Mapping[str, Any]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    h = rcc.get("headGroupSpec")
    if isinstance(h, dict) and isinstance(h.get("template"), dict):
        out["head"] = h["template"]
    for g in as_list(rcc.get("workerGroupSpecs")):
        if isinstance(g, dict) and isinstance(g.get("template"), dict):
            out["worker:" + str(g.get("groupName"))] = g["template"]
    return out
