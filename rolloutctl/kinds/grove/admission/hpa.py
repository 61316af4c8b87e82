"""What the API server refuses of the HorizontalPodAutoscalers Grove builds from a
PodCliqueSet: not webhook code, the objects the operator creates from an admitted one.

Upstream (Grove ``fcc3b3bb``, commit fcc3b3bbbc5e6a2a797cd080bdbc6983b1ccec24):
``operator/internal/controller/podcliqueset/components/hpa/hpa.go`` ``computeExpectedHPAs``
(one HPA per PodCliqueSet replica for each scaling group with a ``scaleConfig``) and
``buildResource`` (the HPA's ``minReplicas`` and ``maxReplicas`` are the scale config's);
the API server's check is ``core.k8s_autoscaling``. The HPA component syncs in the first
group of ``reconcilespec.go`` ``getKindSyncGroups``: its error ends the reconcile before the
PodCliques, scaling groups and PodGangs are synced.

The rule receives a :class:`~.request.Check` and yields ``(path, message)`` pairs; its
docstring is its documentation (``rolloutctl rules ID``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from ....core.k8s_autoscaling import validate_horizontal_pod_autoscaler_spec
from .request import Check
from .util import Problem, as_int, as_list, as_map, as_str, group_path


def build_resource(c: Check) -> Iterator[Problem]:
    """The API server refuses the HorizontalPodAutoscaler Grove builds from a scaling
    group's ``scaleConfig``, so the PodCliqueSet's reconcile fails before any PodClique.

    The reconcile stops at its first group of components (the HPAs are in it), before it
    creates or updates any PodClique, scaling group or PodGang.

    Grove copies ``scaleConfig.minReplicas`` (defaulted to the group's ``replicas``) and
    ``maxReplicas`` into one HPA per PodCliqueSet replica. The webhook checks only that
    ``minReplicas`` is at least ``minAvailable``; the API server then refuses an HPA whose
    ``maxReplicas`` is below ``minReplicas`` (or below 1). A clique's own
    ``autoScalingConfig`` cannot get here: the webhook already requires
    minAvailable <= minReplicas <= maxReplicas (GV014). Checked on create and on update,
    where the HPA patch is refused the same way; a PodCliqueSet with ``replicas: 0`` has no
    HPA. The HPA's metrics are not checked here.

    Upstream: operator/internal/controller/podcliqueset/components/hpa/hpa.go#buildResource (kubernetes pkg/apis/autoscaling/validation/validation.go#validateHorizontalPodAutoscalerSpec)

    Bad:
        podCliqueScalingGroups:
        - name: prefill
          cliqueNames: [pleader, pworker]
          replicas: 4
          scaleConfig:
            maxReplicas: 2

    Good:
        podCliqueScalingGroups:
        - name: prefill
          cliqueNames: [pleader, pworker]
          replicas: 4
          scaleConfig:
            minReplicas: 2
            maxReplicas: 4

    Remediation: Keep scaleConfig.maxReplicas at or above scaleConfig.minReplicas (which defaults to the group's replicas), and at least 1.
    """
    replicas = as_int(c.spec.get("replicas"))
    if not replicas or replicas <= 0:
        return
    written = {as_str(g.get("name")): g for g in as_list(as_map(as_map(c.written.get("spec")).get("template"))
                                                       .get("podCliqueScalingGroups")) if isinstance(g, Mapping)}
    for gi, g in c.groups:
        sc = g.get("scaleConfig")
        if not isinstance(sc, Mapping):
            continue
        mn, mx = as_int(sc.get("minReplicas")), as_int(sc.get("maxReplicas"))
        if mx is None:
            continue  # the CRD requires it (SC002)
        name = as_str(g.get("name"))
        hpa = f"{c.name}-0-{name}" + (f" (and one per other PodCliqueSet replica, to {c.name}-{replicas - 1}-{name})"
                                      if replicas > 1 else "")
        own = as_map(as_map(written.get(name)).get("scaleConfig"))
        bounds = (f"minReplicas {mn}" + (" (defaulted to the group's replicas)" if own.get("minReplicas") is None else "")
                  + f" and maxReplicas {mx}" + (" (left out: stored as 0)" if own.get("maxReplicas") is None else ""))
        by_field: dict[str, list[str]] = {}
        for fld, msg in validate_horizontal_pod_autoscaler_spec(mn, mx):
            by_field.setdefault(fld, []).append(msg)
        for fld, msgs in by_field.items():
            yield group_path(gi, "scaleConfig", fld), (
                f"HorizontalPodAutoscaler {hpa} gets {bounds} from this scaleConfig, and the API server refuses "
                f"it: spec.{fld}: {', '.join(msgs)}; the PodCliqueSet's reconcile then fails before it syncs any "
                "PodClique, scaling group or PodGang")
