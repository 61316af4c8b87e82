"""Defaulting of a PodCliqueSet as the API server does it: CRD defaults, then the
Grove defaulting webhook.

Upstream: ``operator/internal/webhook/admission/pcs/defaulting/podcliqueset.go``
(``defaultPodCliqueSet`` and helpers) and the kubebuilder defaults of
``operator/api/core/v1alpha1/podcliqueset.go``.
"""

from __future__ import annotations

import copy
from typing import Any

TERMINATION_DELAY_DEFAULT = "4h0m0s"
ANY_ORDER = "CliqueStartupTypeAnyOrder"


def _map(v: Any) -> dict:
    return v if isinstance(v, dict) else {}


def default_pod_spec(pod_spec: Any) -> dict:
    """``defaultPodSpec``: restartPolicy Always, terminationGracePeriodSeconds 30."""
    spec = copy.deepcopy(pod_spec) if isinstance(pod_spec, dict) else {}
    if not spec.get("restartPolicy"):
        spec["restartPolicy"] = "Always"
    if spec.get("terminationGracePeriodSeconds") is None:
        spec["terminationGracePeriodSeconds"] = 30
    return spec


def default_pcs(raw: dict) -> dict:
    """A defaulted deep copy of a PodCliqueSet (``defaultPodCliqueSet``).

    Quirk kept on purpose: ``minAvailable`` defaults to the clique's *original*
    ``replicas``, so an explicit ``replicas: 0`` becomes replicas 1 with
    minAvailable 0 (then rejected by validation), as upstream does.
    Malformed fields are left as they are for validation to report.
    """
    pcs = copy.deepcopy(raw)
    md = pcs.setdefault("metadata", {})
    if isinstance(md, dict) and not md.get("namespace"):
        md["namespace"] = "default"
    spec = pcs.get("spec")
    if not isinstance(spec, dict):
        return pcs
    # CRD defaults
    spec.setdefault("replicas", 0)
    us = spec.get("updateStrategy")
    if isinstance(us, dict) and not us.get("type"):
        us["type"] = "RollingRecreate"
    tmpl = spec.get("template")
    if not isinstance(tmpl, dict):
        return pcs
    tmpl.setdefault("cliqueStartupType", ANY_ORDER)
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
            g.setdefault("replicas", 1)
            g.setdefault("minAvailable", 1)
            sc = g.get("scaleConfig")
            if isinstance(sc, dict) and sc.get("minReplicas") is None:
                sc["minReplicas"] = g["replicas"]
    if tmpl.get("terminationDelay") is None:
        tmpl["terminationDelay"] = TERMINATION_DELAY_DEFAULT
    if tmpl.get("headlessServiceConfig") is None:
        tmpl["headlessServiceConfig"] = {"publishNotReadyAddresses": True}
    return pcs
