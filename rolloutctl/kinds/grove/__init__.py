"""Grove's PodCliqueSet (ai-dynamo/grove @ fcc3b3bb): ``KIND`` is the package's only
front door; the registry (``kinds.KINDS``) lists it. Nothing else is imported here."""

from __future__ import annotations

from ...core.kind import KindDescriptor, Overlay

_P = "rolloutctl.kinds.grove."

KIND = KindDescriptor(
    group="grove.io", kind="PodCliqueSet", version="v1alpha1", served={"v1alpha1": ""},
    operator="grove", title="Grove PodCliqueSet", resource="podcliquesets.grove.io",
    schema="podcliqueset",
    # CRD defaults and defaultPodCliqueSet (operator/internal/webhook/admission/pcs/defaulting)
    defaults=_P + "defaults:default_pcs",
    overlays=(
        Overlay("grove-pr817-rolling-update", "ai-dynamo/grove PR #817",
                ("spec.template.cliques[].rollingUpdate", "spec.template.podCliqueScalingGroups[].rollingUpdate")),
        Overlay("grove-proposed-update-strategies", "ai-dynamo/grove design discussion (RollingUpdate, "
                "ReplicaRecreate)",
                ("spec.updateStrategy.type", "spec.updateStrategy.rollingUpdate",
                 "spec.template.cliques[].updateStrategy", "spec.template.podCliqueScalingGroups[].updateStrategy")),
    ),
    model=_P + "model:GroveModel",
    validate=_P + "admission:validate",
    validator=_P + "admission:validator",
    rules=_P + "admission:RULES",
    classify=_P + "classify:classify",
    live_reads=_P + "live:live_reads",
    pod_templates=_P + "manifest:pod_templates",
    children_refused=_P + "admission:validate_children",
    injected_into_pods=_P + "manifest:injected_into_pods",
    pod_budget=_P + "manifest:pod_budget",
    check_options=_P + "options:check_options",
    read_schemas=_P + "read_schemas:READ_SCHEMAS",
    upstream="operator/api/core/v1alpha1/crds/grove.io_podcliquesets.yaml",
)
