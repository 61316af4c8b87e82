"""How the modelled KubeRay operator is configured: its version and commit, its feature
gates and the environment variables that change RayService behaviour.

Upstream (ray-project/kuberay @ feeaf72f):

- ``ray-operator/pkg/features/features.go`` ``defaultFeatureGates``: the gates and their
  defaults; the operator takes ``--feature-gates=Name=bool,...``
  (``ray-operator/main.go``) and the Helm chart sets ``featureGates:``
  (``helm-chart/kuberay-operator/values.yaml``; it lists the four Beta gates as on).
- ``ray-operator/controllers/ray/rayservice_controller.go`` ``isZeroDowntimeUpgradeEnabled``
  reads the ``ENABLE_ZERO_DOWNTIME`` environment variable (only ``"false"``, in any
  case, turns it off; unset means on).
- ``ray-operator/controllers/ray/raycluster_controller.go`` ``reconcilePods`` reads
  ``ENABLE_RANDOM_POD_DELETE`` when a cluster has in-tree autoscaling (only ``"true"``, in
  any case, lets a scale-down delete Pods; unset means the autoscaler alone deletes them).
- ``ray-operator/main.go``: the admission webhooks are installed only when
  ``ENABLE_WEBHOOKS=true``, which the Helm chart does not set; so a RayService is
  checked by the controller (``validateRayService``), not at admission.

A configuration is a plain frozen value handed to the model; nothing here is global.
"""

from __future__ import annotations

from ...core.records import field, record
from types import MappingProxyType
from collections.abc import Iterable, Mapping
from typing import Any

#: The modelled commit and its date (``../shared/upstream/kuberay/SOURCE.md``).
MODELLED_COMMIT = "feeaf72facab4881ba2b179248bb67315634e229"
MODELLED_COMMIT_DATE = "2026-08-19"
#: ``utils.KUBERAY_VERSION`` at the modelled commit.
MODELLED_KUBERAY_VERSION = "nightly"

#: ``defaultFeatureGates`` (features.go) at the modelled commit.
DEFAULT_FEATURE_GATES: Mapping[str, bool] = MappingProxyType({
    "RayClusterStatusConditions": True,
    "RayJobDeletionPolicy": True,
    "RayMultiHostIndexing": True,
    "RayServiceIncrementalUpgrade": True,
    "RayCronJob": False,
    "SidecarSubmitterRestart": False,
    "RayClusterNetworkPolicy": False,
    "GCSFaultToleranceEmbeddedStorage": False,
    "RayClusterMTLS": False,
    "RayClusterHistoryServer": False,
    "KubernetesWAS": False,
})

#: Gates whose value changes what the RayService model predicts (the others are
#: accepted and reported in the provenance, but change nothing the model shows).
GATES_MODELLED = ("RayServiceIncrementalUpgrade", "RayJobDeletionPolicy", "RayClusterNetworkPolicy",
                  "GCSFaultToleranceEmbeddedStorage", "RayClusterMTLS", "RayClusterHistoryServer")

#: Operator environment variables the model reads, with what unset means.
ENV_MODELLED: Mapping[str, str] = MappingProxyType({
    "ENABLE_ZERO_DOWNTIME": "true",
    "ENABLE_RAY_HEAD_CLUSTER_IP_SERVICE": "false",
    "ENABLE_GCS_FT_REDIS_CLEANUP": "true",
    "ENABLE_RANDOM_POD_DELETE": "false",
    "ENABLE_INIT_CONTAINER_INJECTION": "true",
    "ENABLE_PROBES_INJECTION": "true",
})


class ConfigError(ValueError):
    """A feature gate or operator setting the modelled operator does not have."""


def _parse_bool(name: str, value: str) -> bool:
    v = value.strip().lower()
    if v in ("true", "1", "yes", "on"):
        return True
    if v in ("false", "0", "no", "off"):
        return False
    raise ConfigError(f"{name}={value}: the value must be true or false")


@record(frozen=True)
class OperatorConfig:
    """Feature gates and environment of the modelled KubeRay operator."""

    version: str = MODELLED_KUBERAY_VERSION
    gates: Mapping[str, bool] = field(default_factory=lambda: dict(DEFAULT_FEATURE_GATES))
    env: Mapping[str, str] = field(default_factory=dict)

    def gate(self, name: str) -> bool:
        """``features.Enabled(name)``."""
        return bool(self.gates.get(name, DEFAULT_FEATURE_GATES.get(name, False)))

    def redis_cleanup_env(self) -> bool:
        """``os.Getenv(ENABLE_GCS_FT_REDIS_CLEANUP)`` (raycluster_controller.go
        ``rayClusterReconcile``): only ``false`` (any case) disables the cleanup finalizer."""
        return str(self.env.get("ENABLE_GCS_FT_REDIS_CLEANUP", "")).lower() != "false"

    def random_pod_delete_env(self) -> bool:
        """``os.Getenv(ENABLE_RANDOM_POD_DELETE)`` (raycluster_controller.go ``reconcilePods``):
        only ``true`` (any case) lets a scale-down delete Pods of an autoscaling cluster."""
        return str(self.env.get("ENABLE_RANDOM_POD_DELETE", "")).lower() == "true"

    def init_container_injection_env(self) -> bool:
        """``getEnableInitContainerInjection`` (common/pod.go): only ``false`` (any case)
        stops ``DefaultWorkerPodTemplate`` adding the ``wait-gcs-ready`` init container."""
        return str(self.env.get("ENABLE_INIT_CONTAINER_INJECTION", "")).lower() != "false"

    def probes_injection_env(self) -> bool:
        """``getEnableProbesInjection`` (common/pod.go): only ``false`` (any case) stops
        ``BuildPod`` injecting the liveness and readiness probes into the ray container."""
        return str(self.env.get("ENABLE_PROBES_INJECTION", "")).lower() != "false"

    def zero_downtime_env(self) -> bool:
        """``os.Getenv(ENABLE_ZERO_DOWNTIME)``: only ``false`` (any case) disables it."""
        return str(self.env.get("ENABLE_ZERO_DOWNTIME", "")).lower() != "false"

    def provenance(self) -> dict[str, Any]:
        """What the plan models, as a plain dict: operator, version, commit, gates, env."""
        return {
            "operator": "kuberay",
            "repository": "github.com/ray-project/kuberay",
            "version": self.version,
            "commit": MODELLED_COMMIT,
            "commitDate": MODELLED_COMMIT_DATE,
            "featureGates": {k: self.gate(k) for k in sorted(DEFAULT_FEATURE_GATES)},
            "env": {k: str(self.env.get(k, f"{ENV_MODELLED[k]} (unset)")) for k in sorted(ENV_MODELLED)},
            "admissionWebhook": False,
        }

    @classmethod
    def from_options(cls, version: str | None = None, feature_gates: Iterable[str] = (),
                     env: Iterable[str] = ()) -> "OperatorConfig":
        """From ``--feature-gate NAME=BOOL`` and ``--kuberay-env NAME=VALUE`` items
        (a gate item may hold several, comma-separated, as ``--feature-gates`` does)."""
        gates = dict(DEFAULT_FEATURE_GATES)
        for item in feature_gates:
            for part in str(item).split(","):
                if not part.strip():
                    continue
                name, sep, value = part.partition("=")
                name = name.strip()
                if not sep:
                    raise ConfigError(f"--feature-gate {part}: expected NAME=true|false")
                if name not in DEFAULT_FEATURE_GATES:
                    raise ConfigError(f"--feature-gate {name}: KubeRay {MODELLED_COMMIT[:8]} has no such feature gate "
                                      f"(known: {', '.join(sorted(DEFAULT_FEATURE_GATES))})")
                gates[name] = _parse_bool(name, value)
        envs: dict[str, str] = {}
        for item in env:
            name, sep, value = str(item).partition("=")
            name = name.strip()
            if not sep:
                raise ConfigError(f"--kuberay-env {item}: expected NAME=VALUE")
            if name not in ENV_MODELLED:
                raise ConfigError(f"--kuberay-env {name}: not an operator setting the model follows "
                                  f"(known: {', '.join(sorted(ENV_MODELLED))})")
            envs[name] = value
        return cls(version or MODELLED_KUBERAY_VERSION, gates, envs)


DEFAULT_CONFIG = OperatorConfig()
