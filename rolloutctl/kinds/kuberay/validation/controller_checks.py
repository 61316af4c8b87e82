"""RayService checks that upstream makes outside ``utils/validation.go``: the CRD's rules
of ``spec.managedBy`` (the API server refuses), the serve Service the RayService controller
must be able to build, and the RayCluster webhook's unique worker group names.

Upstream (ray-project/kuberay @ feeaf72f): ``ray-operator/apis/ray/v1/rayservice_types.go``
``RayServiceSpec.ManagedBy`` (enum and CEL immutability), ``controllers/ray/common/service.go``
``BuildServeService``, ``pkg/webhooks/v1/raycluster_webhook.go`` ``validateRayCluster``.
"""

from __future__ import annotations

from collections.abc import Mapping

from ....core.model import Obj
from .rules import R_GROUP_NAMES, R_MANAGED_BY, R_SERVE_PORT, Ctx
from .util import MANAGED_BY_VALUES, as_list, as_mapping, head_container, is_incremental_upgrade_enabled, worker_path


def validate_managed_by(c: Ctx, old: Obj | None) -> None:
    """CRD rules of ``RayServiceSpec.ManagedBy`` (rayservice_types.go): enum and immutable (CEL)."""
    mb = c.obj.spec.get("managedBy")
    if mb is not None and mb not in MANAGED_BY_VALUES:
        c.add(R_MANAGED_BY, ("spec", "managedBy"), "spec.managedBy",
              "the managedBy field value must be either 'ray.io/kuberay-operator' or 'kueue.x-k8s.io/multikueue'")
    if old is not None and old.spec.get("managedBy") != mb:
        c.add(R_MANAGED_BY, ("spec", "managedBy"), "spec.managedBy", "the managedBy field is immutable")


def build_serve_service(c: Ctx) -> None:
    """``common.BuildServeService`` (controllers/ray/common/service.go): a RayService needs a
    port named ``serve``/``serve-*`` on the head container unless ``serveService`` is set
    (which the incremental upgrade ignores: it builds a Service per cluster from the head's
    ports); a head container without any ports gets the default ports (serve 8000)."""
    rc = as_mapping(c.obj.spec.get("rayClusterConfig"))
    hc = head_container(rc)
    ports = [p for p in as_list(hc.get("ports")) if isinstance(p, Mapping)]
    if not ports:
        return
    if c.obj.spec.get("serveService") is not None and not is_incremental_upgrade_enabled(c.obj.spec, c.cfg):
        return
    if not any(str(p.get("name", "")) == "serve" or str(p.get("name", "")).startswith("serve-") for p in ports):
        c.add(R_SERVE_PORT, ("spec", "rayClusterConfig", "headGroupSpec", "template", "spec", "containers", 0, "ports"),
              "spec.rayClusterConfig.headGroupSpec.template.spec.containers[0].ports",
              "specify a port named 'serve' (or 'serve-*') in the Ray head container; otherwise the Kubernetes "
              "Service for Ray Serve cannot be created")


def validate_worker_group_names(c: Ctx) -> None:
    """RayCluster webhook ``validateRayCluster`` (pkg/webhooks/v1/raycluster_webhook.go): unique group names."""
    seen: set[str] = set()
    for i, g in enumerate(as_list(as_mapping(c.obj.spec.get("rayClusterConfig")).get("workerGroupSpecs"))):
        name = as_mapping(g).get("groupName")
        if isinstance(name, str):
            if name in seen:
                p, d = worker_path(i, as_mapping(g))
                c.add(R_GROUP_NAMES, p + ("groupName",), d + ".groupName", f"worker group names must be unique: {name!r}")
            seen.add(name)
