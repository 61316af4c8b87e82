"""KubeRay's RayService (ray-project/kuberay @ feeaf72f): ``KIND`` is the package's
only front door; the registry (``kinds.KINDS``) lists it. Nothing else is imported here."""

from __future__ import annotations

from ...core.kind import KindDescriptor

_P = "rolloutctl.kinds.kuberay."
_V1ALPHA1 = ("ray.io/v1alpha1 RayService is deprecated; use ray.io/v1 RayService. v1alpha1 receives no new "
             "fields and will be unavailable in KubeRay 1.9.")

_V1ALPHA1_ABSENT = (
    "spec.excludeHeadPodFromServeSvc", "spec.managedBy", "spec.rayClusterDeletionDelaySeconds", "spec.suspend",
    "spec.upgradeStrategy",
    "spec.rayClusterConfig.authOptions", "spec.rayClusterConfig.gcsFaultToleranceOptions",
    "spec.rayClusterConfig.historyServerOptions", "spec.rayClusterConfig.managedBy",
    "spec.rayClusterConfig.networkPolicy", "spec.rayClusterConfig.tlsOptions", "spec.rayClusterConfig.upgradeStrategy",
    "spec.rayClusterConfig.autoscalerOptions.args", "spec.rayClusterConfig.autoscalerOptions.command",
    "spec.rayClusterConfig.autoscalerOptions.version",
    "spec.rayClusterConfig.headGroupSpec.ingressOptions", "spec.rayClusterConfig.headGroupSpec.labels",
    "spec.rayClusterConfig.headGroupSpec.resources",
    "spec.rayClusterConfig.workerGroupSpecs[].idleTimeoutSeconds", "spec.rayClusterConfig.workerGroupSpecs[].labels",
    "spec.rayClusterConfig.workerGroupSpecs[].numOfHosts", "spec.rayClusterConfig.workerGroupSpecs[].priority",
    "spec.rayClusterConfig.workerGroupSpecs[].resources", "spec.rayClusterConfig.workerGroupSpecs[].suspend",
)

KIND = KindDescriptor(
    group="ray.io", kind="RayService", version="v1",
    # ray-operator/config/crd/bases/ray.io_rayservices.yaml: v1 (storage) and v1alpha1
    # (served, deprecated: +kubebuilder:deprecatedversion in apis/ray/v1alpha1/rayservice_types.go)
    served={"v1": "", "v1alpha1": _V1ALPHA1},
    # the spec fields of the CRD's v1 schema that its v1alpha1 schema lacks (v1alpha1
    # "receives no new fields"); a v1alpha1 manifest that sets one is refused by kubectl's
    # strict field validation, or stored without it
    absent={"v1alpha1": _V1ALPHA1_ABSENT},
    # v1alpha1's schema requires rayStartParams on every group; v1's does not
    # the Ray Serve V1 API (single application), removed by ray-project/kuberay#1790 (KubeRay 1.1)
    removed={"spec.serveConfig": "the Ray Serve V1 API, which KubeRay removed in v1.1 (ray-project/kuberay#1790): "
                                 "write the config as serveConfigV2, a Serve config file's YAML (applications with "
                                 "import_path, runtime_env and deployments), not a rename of serveConfig's fields"},
    required={"v1alpha1": ("spec.rayClusterConfig.headGroupSpec.rayStartParams",
                           "spec.rayClusterConfig.workerGroupSpecs[].rayStartParams")},
    # and v1 requires rayClusterConfig, v1alpha1 does not
    optional={"v1alpha1": ("spec.rayClusterConfig",)},
    operator="kuberay", title="KubeRay RayService", resource="rayservices.ray.io",
    schema="rayservice",
    # KubeRay has no defaulting webhook for RayService; these are the CRD-level defaults
    defaults=_P + "defaults:rayservice_crd_defaults",
    model=_P + "model:RayServiceModel",
    validate=_P + "validation:validate",
    validator=_P + "validation:validator",
    rules=_P + "validation:RULES",
    classify=_P + "classify:classify",
    live_reads=_P + "live:live_reads",
    pod_templates=_P + "manifest:pod_templates",
    injected_into_pods=_P + "manifest:injected_into_pods",
    # ValidateRayClusterSpec refuses a head or worker group without containers (RS005,
    # RS008) before the RayCluster, let alone a Pod, is made
    pod_rules_refused_first=("SC016",),
    check_options=_P + "options:check_options",
    read_schemas=_P + "read_schemas:READ_SCHEMAS",
    # the model's advise hooks (RayServiceModel.advice_spaces, rolls_out): only advise imports them
    advise=_P + "advise",
    upstream="ray-operator/config/crd/bases/ray.io_rayservices.yaml",
)
