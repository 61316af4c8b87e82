"""KubeRay's RayService (ray-project/kuberay @ feeaf72f): ``KIND`` is the package's
only front door; the registry (``kinds.KINDS``) lists it. Nothing else is imported here."""

from __future__ import annotations

from ...core.kind import KindDescriptor

_P = "rolloutctl.kinds.kuberay."
_V1ALPHA1 = ("ray.io/v1alpha1 RayService is deprecated; use ray.io/v1 RayService. v1alpha1 receives no new "
             "fields and will be unavailable in KubeRay 1.9.")

KIND = KindDescriptor(
    group="ray.io", kind="RayService", version="v1",
    # ray-operator/config/crd/bases/ray.io_rayservices.yaml: v1 (storage) and v1alpha1
    # (served, deprecated: +kubebuilder:deprecatedversion in apis/ray/v1alpha1/rayservice_types.go)
    served={"v1": "", "v1alpha1": _V1ALPHA1},
    operator="kuberay", title="KubeRay RayService", resource="rayservices.ray.io",
    schema="rayservice",
    # KubeRay has no defaulting webhook for RayService; these are the CRD-level defaults
    defaults=_P + "defaults:rayservice_crd_defaults",
    model=_P + "model:RayServiceModel",
    validate=_P + "validation:validate",
    rules=_P + "validation:RULES",
    classify=_P + "classify:classify",
    live_reads=_P + "live:live_reads",
    pod_templates=_P + "manifest:pod_templates",
    check_options=_P + "options:check_options",
    read_schemas=_P + "read_schemas:READ_SCHEMAS",
    # the model's advise hooks (RayServiceModel.advice_spaces, rolls_out): only advise imports them
    advise=_P + "advise",
    upstream="ray-operator/config/crd/bases/ray.io_rayservices.yaml",
)
