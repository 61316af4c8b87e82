"""The RayService admission and controller-side validation rules of KubeRay.

Upstream (ray-project/kuberay @ feeaf72f):

- ``ray-operator/controllers/ray/rayservice_controller.go`` ``validateRayService`` runs
  ``utils.ValidateRayServiceMetadata`` then ``utils.ValidateRayServiceSpec``
  (``ray-operator/controllers/ray/utils/validation.go``, here ``utils_validation.py``); the
  first error fails the RayService with ``Ready=False/ValidationFailed`` and nothing else
  happens.
- ``utils.ValidateRayServiceSpec`` applies ``utils.ValidateRayClusterSpec`` to
  ``spec.rayClusterConfig``.
- The RayCluster controller later applies ``ValidateRayClusterUpgradeOptions`` to the
  clusters the RayService creates (``raycluster_controller.go`` ``rayClusterReconcile``).
- Checks made elsewhere upstream are in ``controller_checks.py``; specs that are accepted
  but do not do what they seem (warnings) in ``hazards.py``.

Each check is one function named after the upstream function it models. Rule IDs are
stable (``RS001`` …); :data:`RULES` maps each to its rule (``rules.py``: severity, summary,
examples, who enforces it), and ``validate`` returns every finding (upstream stops at the
first error; the model uses :func:`first_error` for that). Feature gates are taken at their
defaults of the modelled commit (``ray-operator/pkg/features/features.go``) unless an
``OperatorConfig`` says otherwise.
"""

from __future__ import annotations

from types import MappingProxyType
from collections.abc import Callable, Mapping
from typing import Any

from ....core.model import Finding, Obj
from ....core.records import replace
from ..operator import DEFAULT_CONFIG, OperatorConfig
from .controller_checks import build_serve_service, validate_managed_by, validate_worker_group_names
from .hazards import (construct_ray_cluster_for_ray_service, deprecated_fields, get_and_check_serve_status,
                      get_worker_group_desired_replicas, init_liveness_and_readiness_probe, update_serve_deployment)
from .rules import (ADMISSION_RULES, ALL, EXAMPLES, R_NO_SERVE_CONFIG, R_SERVE_CONFIG_YAML, R_SERVE_PORT, R_TIMEOUT, Check,
                    Ctx, Rule, documented, enforced_by)
from .utils_validation import (validate_initializing_timeout, validate_ray_cluster_upgrade_options,
                               validate_ray_service_metadata, validate_ray_service_spec)

#: every RayService rule by id, as data (``rolloutctl rules``, lint)
RULES: Mapping[str, Rule] = MappingProxyType({r.id: documented(r) for r in ALL})

#: the package's interface: the rules, their examples and who enforces them, and the checks' entry points
__all__ = ["EXAMPLES", "RULES", "controller_errors", "enforced_by", "first_error", "rejected_at_admission", "validate",
           "validator"]


#: The controller's own checks, in ``validateRayService`` order (metadata, then spec).
CONTROLLER_CHECKS: tuple[Check, ...] = (validate_ray_service_metadata, validate_initializing_timeout, validate_ray_service_spec)


#: the findings after which a new cluster is created but never serves, so the Services never
#: switch to it: no serve Service can be built (``BuildServeService``), no Serve application
#: is configured (``getAndCheckServeStatus``), the config never unmarshals
#: (``updateServeDeployment``); plan gets stuck, diff says so
NEVER_SERVES = (R_SERVE_PORT.id, R_NO_SERVE_CONFIG.id, R_SERVE_CONFIG_YAML.id)

#: Checks applied later, by other components or as advice.
EXTRA_CHECKS: tuple[Check, ...] = (validate_ray_cluster_upgrade_options, validate_worker_group_names, build_serve_service,
                                   construct_ray_cluster_for_ray_service, deprecated_fields, get_and_check_serve_status,
                                   update_serve_deployment, get_worker_group_desired_replicas,
                                   init_liveness_and_readiness_probe)


def validate(obj: Obj, old: Obj | None = None, cfg: OperatorConfig = DEFAULT_CONFIG) -> list[Finding]:
    """Every finding for a RayService (errors and warnings), in a stable order."""
    if obj.kind != "RayService":
        return []
    c = Ctx(obj, cfg)
    validate_managed_by(c, old)
    for check in CONTROLLER_CHECKS + EXTRA_CHECKS:
        check(c)
    seen: set[tuple] = set()
    out: list[Finding] = []
    for f in c.findings:
        k = (f.rule, f.path, f.message)
        if k not in seen:
            seen.add(k)
            out.append(_with_enforcer(f))
    return sorted(out, key=Finding.sort_key)


def validator(options: Mapping[str, Any]) -> Callable[..., list[Finding]]:
    """``validate`` under the operator the model options describe (``--feature-gate``,
    ``--kuberay-env``, ``--kuberay-version``; accepted by ``options.check_options``), for
    ``lint``: with a gate on, a gated field's content is checked instead of refused."""
    cfg = OperatorConfig.from_options(options.get("kuberay_version"), options.get("feature_gates", ()),
                                      options.get("kuberay_env", ()))

    def configured(obj: Obj, old: Obj | None = None) -> list[Finding]:
        return validate(obj, old, cfg)

    return configured


def _with_enforcer(f: Finding) -> Finding:
    who = enforced_by(f.rule) if f.severity == "error" else ""
    if not who or who in f.message:
        return f
    return replace(f, message=f"{f.message} ({who})")


def controller_errors(obj: Obj, cfg: OperatorConfig = DEFAULT_CONFIG) -> list[Finding]:
    """The errors ``validateRayService`` would report, in upstream evaluation order."""
    c = Ctx(obj, cfg)
    for check in CONTROLLER_CHECKS:
        check(c)
    return [f for f in c.findings if f.severity == "error"]


def first_error(obj: Obj, cfg: OperatorConfig = DEFAULT_CONFIG) -> str | None:
    """The message of ``validateRayService``'s first error, with upstream's prefix; None when valid."""
    errs = controller_errors(obj, cfg)
    if not errs:
        return None
    f = errs[0]
    if f.rule == R_TIMEOUT.id:
        return f"The RayService metadata is invalid: RayService annotations is invalid: {f.message}"
    prefix = "The RayService metadata is invalid" if f.path.startswith("metadata") else "The RayService spec is invalid"
    return f"{prefix}: {f.message}"


def rejected_at_admission(finding: Finding) -> bool:
    """Whether the API server refuses a manifest with this finding (create or update)."""
    return finding.rule in ADMISSION_RULES
