"""Kubernetes' validation of a HorizontalPodAutoscaler's replica bounds: what the API
server refuses of an HPA an operator builds from a user's scale configuration.

Models ``kubernetes/kubernetes`` ``pkg/apis/autoscaling/validation/validation.go``
``validateHorizontalPodAutoscalerSpec`` (the ``minReplicas`` and ``maxReplicas`` checks).
``ValidateHorizontalPodAutoscaler`` (create) and ``ValidateHorizontalPodAutoscalerUpdate``
pass a lower bound of 1 for ``minReplicas`` unless the alpha ``HPAScaleToZero`` feature gate
is on (off by default; rolloutctl assumes it off) or, on an update, the stored HPA already
has ``minReplicas: 0``. The scale target, metrics and behavior checks of the same function
are not modelled here.
"""

from __future__ import annotations

#: ``minReplicasLowerBound`` with ``HPAScaleToZero`` off
MIN_REPLICAS_LOWER_BOUND = 1


def validate_horizontal_pod_autoscaler_spec(min_replicas: int | None, max_replicas: int,
                                            min_replicas_lower_bound: int = MIN_REPLICAS_LOWER_BOUND
                                            ) -> list[tuple[str, str]]:
    """``(field, message)`` for each replica bound the API server refuses, in upstream's
    order, with its messages (``minReplicas`` None: not set, the API server defaults it to 1
    and checks nothing)."""
    out: list[tuple[str, str]] = []
    if min_replicas is not None and min_replicas < min_replicas_lower_bound:
        out.append(("minReplicas", f"must be greater than or equal to {min_replicas_lower_bound}"))
    if max_replicas < 1:
        out.append(("maxReplicas", "must be greater than 0"))
    if min_replicas is not None and max_replicas < min_replicas:
        out.append(("maxReplicas", "must be greater than or equal to `minReplicas`"))
    return out
