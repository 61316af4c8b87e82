"""Finalizers that a Kubernetes controller puts on an object and removes itself once its
own cleanup is done: an object held only by these finishes deleting after a wait, it is
not blocked. Anything else (a user's or an operator's finalizer that nobody here
removes) does block.

``service.kubernetes.io/load-balancer-cleanup``: the cloud service controller
(``k8s.io/cloud-provider`` ``controllers/service`` ``servicecontroller.go``,
``LoadBalancerCleanupFinalizer``) adds it to every ``type: LoadBalancer`` Service and
removes it after it has deleted the cloud load balancer.
"""

from __future__ import annotations

from collections.abc import Mapping

#: finalizer -> who removes it, and after what
SELF_CLEARING: Mapping[str, str] = {
    "service.kubernetes.io/load-balancer-cleanup":
        "the cloud service controller removes it once it has deleted the load balancer",
}


def clears_itself(finalizer: str, kind: str) -> bool:
    """Whether the controller that added ``finalizer`` to an object of ``kind`` removes it itself."""
    return kind == "Service" and finalizer in SELF_CLEARING
