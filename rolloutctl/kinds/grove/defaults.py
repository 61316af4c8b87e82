"""Defaulting of a PodCliqueSet as the API server does it: CRD defaults, then the
Grove defaulting webhook.

Upstream: ``operator/internal/webhook/admission/pcs/defaulting/podcliqueset.go``
(``defaultPodCliqueSet`` and helpers) and the kubebuilder defaults of
``operator/api/core/v1alpha1/podcliqueset.go``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.model import Obj
from ...core.quantity import as_written
from ...core.trees import copy_tree

TERMINATION_DELAY_DEFAULT = "4h0m0s"
ANY_ORDER = "CliqueStartupTypeAnyOrder"


def _map(v: Any) -> dict:
    return v if isinstance(v, dict) else {}


def default_pod_spec(pod_spec: Any) -> dict:
    """``defaultPodSpec``: restartPolicy Always, terminationGracePeriodSeconds 30."""
    spec = copy_tree(pod_spec) if isinstance(pod_spec, dict) else {}
    if not spec.get("restartPolicy"):
        spec["restartPolicy"] = "Always"
    if spec.get("terminationGracePeriodSeconds") is None:
        spec["terminationGracePeriodSeconds"] = 30
    return spec


def default_pcs(raw: dict) -> dict:
    """A defaulted deep copy of a PodCliqueSet: the CRD's defaults, then the defaulting
    webhook's (``defaultPodCliqueSet``).

    Quirk kept on purpose: ``minAvailable`` defaults to the clique's *original*
    ``replicas``, so an explicit ``replicas: 0`` becomes replicas 1 with
    minAvailable 0 (then rejected by validation), as upstream does.
    Malformed fields are left as they are for validation to report.
    """
    pcs = copy_tree(raw)
    _crd_defaults(pcs)
    before = copy_tree(pcs)
    _webhook_defaults(pcs)
    if pcs != before:
        _round_trip_zero_values(pcs)
    return pcs


def _round_trip_zero_values(pcs: dict) -> None:
    """What the defaulting webhook's patch adds besides its defaults, in place: the patch
    goes from the request to the re-marshalled Go object, so a field without
    ``omitempty`` that the request left out comes back with its zero value. A clique's
    ``roleName`` (``json:"roleName"``) is such a field: left out, it is stored as ``""``
    and the CRD's required check, which runs after mutating admission, passes. Only
    when the webhook changes something: otherwise it answers without a patch
    (``defaulterForType.Handle``). ``AutoScalingConfig.MaxReplicas`` (``json:"maxReplicas"``)
    is another: a clique's ``autoScalingConfig`` or a scaling group's ``scaleConfig``
    without it is stored with ``maxReplicas: 0``, which the webhook then refuses for a
    clique (GV014) and the API server refuses in the HPA of a scaling group (GV302).
    Upstream: ``operator/api/core/v1alpha1/podclique.go`` ``PodCliqueSpec.RoleName``,
    ``AutoScalingConfig.MaxReplicas``."""
    tmpl = _map(_map(pcs.get("spec")).get("template"))
    cliques = tmpl.get("cliques")
    for c in cliques if isinstance(cliques, list) else ():
        if isinstance(c, dict) and isinstance(c.get("spec"), dict):
            c["spec"].setdefault("roleName", "")
            if isinstance(c["spec"].get("autoScalingConfig"), dict):
                c["spec"]["autoScalingConfig"].setdefault("maxReplicas", 0)
    groups = tmpl.get("podCliqueScalingGroups")
    for g in groups if isinstance(groups, list) else ():
        if isinstance(g, dict) and isinstance(g.get("scaleConfig"), dict):
            g["scaleConfig"].setdefault("maxReplicas", 0)


def _crd_defaults(pcs: dict) -> None:
    """The CRD's defaults and the request's namespace, in place (the API server's, before
    any webhook)."""
    md = pcs.setdefault("metadata", {})
    if isinstance(md, dict) and not md.get("namespace"):
        md["namespace"] = "default"
    spec = pcs.get("spec")
    if not isinstance(spec, dict):
        return
    spec.setdefault("replicas", 0)
    us = spec.get("updateStrategy")
    if isinstance(us, dict) and not us.get("type"):
        us["type"] = "RollingRecreate"
    tmpl = spec.get("template")
    if not isinstance(tmpl, dict):
        return
    tmpl.setdefault("cliqueStartupType", ANY_ORDER)
    groups = tmpl.get("podCliqueScalingGroups")
    for g in groups if isinstance(groups, list) else ():
        if isinstance(g, dict):
            g.setdefault("replicas", 1)
            g.setdefault("minAvailable", 1)


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _webhook_defaults(pcs: dict) -> None:
    """``defaultPodCliqueSet`` (``webhook/admission/pcs/defaulting/podcliqueset.go``), in
    place."""
    spec = pcs.get("spec")
    tmpl = spec.get("template") if isinstance(spec, dict) else None
    if not isinstance(tmpl, dict):
        return
    cliques = tmpl.get("cliques")
    if isinstance(cliques, list):
        for c in cliques:
            if not isinstance(c, dict) or not isinstance(c.get("spec"), dict):
                continue
            cs = c["spec"]
            original = cs.get("replicas")
            cs["podSpec"] = default_pod_spec(cs.get("podSpec"))
            if not original:
                cs["replicas"] = 1
            if original is not None and not _is_int(original):
                continue  # a malformed replicas is reported once, where it is written, not again where it is copied
            if cs.get("minAvailable") is None:
                cs["minAvailable"] = original if original is not None else 0
            asc = cs.get("autoScalingConfig")
            if isinstance(asc, dict) and asc.get("minReplicas") is None:
                asc["minReplicas"] = original if original is not None else 0
    groups = tmpl.get("podCliqueScalingGroups")
    if isinstance(groups, list):
        for g in groups:
            if not isinstance(g, dict):
                continue
            sc = g.get("scaleConfig")
            if isinstance(sc, dict) and sc.get("minReplicas") is None and _is_int(g.get("replicas")):
                sc["minReplicas"] = g.get("replicas")
    if tmpl.get("terminationDelay") is None:
        tmpl["terminationDelay"] = TERMINATION_DELAY_DEFAULT
    if tmpl.get("headlessServiceConfig") is None:
        tmpl["headlessServiceConfig"] = {"publishNotReadyAddresses": True}


def stores_as_written(written: Mapping[str, Any]) -> bool:
    """Whether the API server stores this PodCliqueSet (``written``: as the manifest has
    it) with its quantities as written. Grove's defaulting webhook is a controller-runtime
    ``CustomDefaulter`` (``webhook/admission/pcs/defaulting/register.go``
    ``WithCustomDefaulter``): when defaulting changes nothing it answers without a patch
    (``defaulterForType.Handle``: ``reflect.DeepEqual``) and the request is stored as
    sent; otherwise its patch, from the request to the re-marshalled object, also writes
    every quantity in its canonical form (``json.Marshal`` of ``resource.Quantity``), and
    only the removals the round trip made are dropped (``dropSchemeRemovals``). The
    webhook sees the request with the CRD's defaults. ``defaultPodCliqueScalingGroupConfigs``
    always returns a new slice, so a template without ``podCliqueScalingGroups`` (nil)
    comes back with an empty one, which ``reflect.DeepEqual`` tells from nil: such a
    PodCliqueSet is always patched."""
    before = copy_tree(dict(written))
    _crd_defaults(before)
    spec = before.get("spec")
    tmpl = spec.get("template") if isinstance(spec, Mapping) else None
    if not isinstance(tmpl, Mapping) or tmpl.get("podCliqueScalingGroups") is None:
        return False
    after = copy_tree(before)
    _webhook_defaults(after)
    return after == before


def as_stored(obj: Obj) -> Mapping[str, Any]:
    """The admitted PodCliqueSet ``obj`` with its quantities as the API server stores
    them: as the manifest wrote them where the defaulting webhook has nothing to add
    (``stores_as_written``), else canonical, as admission leaves them
    (``core.quantity.as_written``)."""
    if obj.written is None or not stores_as_written(obj.written.raw):
        return obj.raw
    return as_written(obj.raw, obj.written.raw)
