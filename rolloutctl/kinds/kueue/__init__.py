"""Kueue (kubernetes-sigs/kueue) acting on KubeRay's RayService: an integration, not a
kind of its own. Its webhook rules apply to every RayService (they check only those
with a queue label); with ``--kueue MODEL`` its model replaces KubeRay's, interleaving
both operators, and it reads the queues from a cluster. ``KIND`` is the package's only
front door; the registry (``kinds.KINDS``) lists it."""

from __future__ import annotations

from ...core.kind import KindDescriptor

_P = "rolloutctl.kinds.kueue."

KIND = KindDescriptor(
    group="ray.io", kind="RayService", option="kueue",
    operator="kueue", title="Kueue (RayServices with a queue label)",
    model=_P + "model:for_plan",
    validate=_P + "validation:validate",
    rules=_P + "queue_webhooks:ALL_RULES",
    admits=(("kueue.x-k8s.io", "ClusterQueue"), ("kueue.x-k8s.io", "LocalQueue"), ("kueue.x-k8s.io", "ResourceFlavor")),
    admit_other=_P + "queue_webhooks:admit_queue",
    live_reads=_P + "live:live_reads",
    capacity_reads=_P + "live:capacity_reads",
    capacity_limits=_P + "live:capacity_limits",
    unselected=_P + "validation:unselected",
    compare_note="with --kueue MODEL it compares the three Kueue integration models",
    upstream="pkg/controller/jobs/rayservice (kubernetes-sigs/kueue)",
)
