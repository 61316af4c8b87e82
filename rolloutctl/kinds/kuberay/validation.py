"""The RayService admission and controller-side validation rules of KubeRay.

Upstream (ray-project/kuberay @ feeaf72f):

- ``ray-operator/controllers/ray/rayservice_controller.go`` ``validateRayService`` runs
  ``utils.ValidateRayServiceMetadata`` then ``utils.ValidateRayServiceSpec``
  (``ray-operator/controllers/ray/utils/validation.go``); the first error fails the
  RayService with ``Ready=False/ValidationFailed`` and nothing else happens.
- ``utils.ValidateRayServiceSpec`` applies ``utils.ValidateRayClusterSpec`` to
  ``spec.rayClusterConfig``.
- The RayCluster controller later applies ``ValidateRayClusterUpgradeOptions`` to the
  clusters the RayService creates (``raycluster_controller.go`` ``rayClusterReconcile``).

Each rule is one function named after the upstream function it models. Rule IDs are
stable (``RS001`` …); :data:`RULES` lists them with severity and a short summary, and
``validate`` returns every finding (upstream stops at the first error; the model uses
:func:`first_error` for that). Feature gates are taken at their defaults of the
modelled commit (``ray-operator/pkg/features/features.go``): RayServiceIncrementalUpgrade,
RayJobDeletionPolicy and RayClusterStatusConditions on; RayClusterHistoryServer,
RayClusterNetworkPolicy, RayClusterMTLS and GCSFaultToleranceEmbeddedStorage off.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from ...core.model import Finding, Obj
from .operator import DEFAULT_CONFIG, GATES_MODELLED, OperatorConfig

UPSTREAM = "ray-operator/controllers/ray/utils/validation.go"
CTRL = "ray-operator/controllers/ray/rayservice_controller.go"

#: ``utils.MaxRayServiceNameLength`` = MaxRayClusterNameLength (53) - 6
MAX_RAYSERVICE_NAME_LENGTH = 47
KUBERAY_CONTROLLER = "ray.io/kuberay-operator"
MANAGED_BY_VALUES = (KUBERAY_CONTROLLER, "kueue.x-k8s.io/multikueue")
INITIALIZING_TIMEOUT_ANNOTATION = "ray.io/initializing-timeout"
FT_ENABLED_ANNOTATION = "ray.io/ft-enabled"
EXTERNAL_STORAGE_NS_ANNOTATION = "ray.io/external-storage-namespace"
UPGRADE_TYPES = ("NewClusterWithIncrementalUpgrade", "NewCluster", "None")
INCREMENTAL = "NewClusterWithIncrementalUpgrade"

# Feature gates at their defaults (features.go at the modelled commit); a model built
# with other gates passes its ``OperatorConfig`` down (operator.py).
GATES = {k: DEFAULT_CONFIG.gate(k) for k in GATES_MODELLED}


@dataclass(frozen=True)
class Rule:
    id: str
    severity: str
    upstream: str  # file#function
    summary: str
    bad: str = ""
    good: str = ""
    #: ``create`` (the API server refuses it) or ``controller`` (a KubeRay controller does, after it is stored)
    scope: str = "controller"
    #: who enforces it and how that shows (``enforced_by``)
    description: str = ""


RULES: dict[str, Rule] = {}


def _rule(id: str, severity: str, upstream: str, summary: str, bad: str = "", good: str = "") -> Rule:
    r = Rule(id, severity, upstream, summary, bad, good)
    RULES[id] = r
    return r


R_NAME_LEN = _rule("RS001", "error", f"{UPSTREAM}#ValidateRayServiceMetadata",
                   "RayService name must be at most 47 characters (cluster names add 6, serve Services 10)",
                   "metadata: {name: a-very-long-name-…-48-chars}", "metadata: {name: text-ml}")
R_NAME_DNS = _rule("RS002", "error", f"{UPSTREAM}#ValidateRayServiceMetadata",
                   "RayService name must be a DNS-1035 label", "metadata: {name: 1svc}", "metadata: {name: svc1}")
R_TIMEOUT = _rule("RS003", "error", f"{UPSTREAM}#validateInitializingTimeout",
                  "ray.io/initializing-timeout must be a positive Go duration or positive integer seconds",
                  "ray.io/initializing-timeout: '-5m'", "ray.io/initializing-timeout: 30m")
R_K8S_AUTH = _rule("RS004", "error", f"{UPSTREAM}#ValidateRayServiceSpec",
                   "authOptions.enableK8sTokenAuth is not supported for RayService")
R_HEAD_CONTAINER = _rule("RS005", "error", f"{UPSTREAM}#ValidateRayClusterSpec",
                         "headGroupSpec must have at least one container")
R_GROUP_RESOURCES = _rule("RS006", "error", f"{UPSTREAM}#validateRayGroupResources",
                          "set Ray resources either in rayStartParams (num-cpus/num-gpus/memory/resources) or in "
                          "the group's resources field, not both")
R_GROUP_LABELS = _rule("RS007", "error", f"{UPSTREAM}#validateRayGroupLabels",
                       "rayStartParams.labels is not supported (use the group's labels field); labels must be "
                       "valid Kubernetes label keys and values")
R_WORKER_CONTAINER = _rule("RS008", "error", f"{UPSTREAM}#ValidateRayClusterSpec",
                           "every workerGroupSpec must have at least one container")
R_MINMAX_REQUIRED = _rule("RS009", "error", f"{UPSTREAM}#ValidateRayClusterSpec",
                          "without in-tree autoscaling a worker group must set both minReplicas and maxReplicas")
R_MINMAX_RANGE = _rule("RS010", "error", f"{UPSTREAM}#ValidateRayClusterSpec",
                       "worker group minReplicas/maxReplicas must be non-negative and minReplicas <= maxReplicas",
                       "minReplicas: 3\nmaxReplicas: 1", "minReplicas: 1\nmaxReplicas: 3")
R_IDLE_TIMEOUT = _rule("RS011", "error", f"{UPSTREAM}#validateWorkerGroupIdleTimeout",
                       "worker group idleTimeoutSeconds must be >= 0 and needs autoscaler v2")
R_PRIORITY = _rule("RS012", "error", f"{UPSTREAM}#validateWorkerGroupPriority",
                   "worker group priority needs rayVersion >= 2.56.0 and autoscaler v2")
R_FT_BOTH = _rule("RS013", "error", f"{UPSTREAM}#ValidateRayClusterSpec",
                  "ray.io/ft-enabled annotation and gcsFaultToleranceOptions are both set; use only the options")
R_REDIS_ADDRESS = _rule("RS014", "error", f"{UPSTREAM}#ValidateRayClusterSpec",
                        "RAY_REDIS_ADDRESS in the head container enables GCS FT implicitly; set gcsFaultToleranceOptions")
R_FT_CONFLICT = _rule("RS015", "error", f"{UPSTREAM}#ValidateRayClusterSpec",
                      "with gcsFaultToleranceOptions, do not set redis-password, REDIS_PASSWORD, RAY_REDIS_ADDRESS "
                      "or the ray.io/external-storage-namespace annotation")
R_FT_BACKEND = _rule("RS016", "error", f"{UPSTREAM}#validateGcsFaultToleranceBackend",
                     "GCS FT backend rules: rocksdb needs its feature gate and forbids redis fields; redis forbids storage")
R_REDIS_USERNAME = _rule("RS017", "error", f"{UPSTREAM}#ValidateRayClusterSpec",
                         "set the Redis username with gcsFaultToleranceOptions.redisUsername, not rayStartParams/env")
R_WG_SUSPEND = _rule("RS018", "error", f"{UPSTREAM}#ValidateRayClusterSpec",
                     "a worker group cannot be suspended when in-tree autoscaling is enabled")
R_AUTOSCALER_ENV = _rule("RS019", "error", f"{UPSTREAM}#ValidateRayClusterSpec",
                         "autoscaler settings: RAY_enable_autoscaler_v2 needs enableInTreeAutoscaling; do not set both "
                         "autoscalerOptions.version and that env var; autoscaler v2 needs restartPolicy Never or unset")
R_AUTOSCALER_OPTS = _rule("RS020", "error", f"{UPSTREAM}#ValidateRayClusterSpec",
                          "autoscalerOptions.idleTimeoutSeconds must be >= 0 and autoscalerOptions.env must not set "
                          "KUBERAY_GEN_AUTOSCALER_START_CMD")
R_HISTORY = _rule("RS021", "error", f"{UPSTREAM}#ValidateRayClusterSpec",
                  "historyServerOptions needs the RayClusterHistoryServer feature gate (off by default)")
R_AUTH = _rule("RS022", "error", f"{UPSTREAM}#ValidateRayClusterSpec",
               "authOptions.mode token needs rayVersion >= 2.52.0 (k8s token auth >= 2.55.0, without secretName)")
R_NETPOL = _rule("RS023", "error", f"{UPSTREAM}#validateNetworkPolicy",
                 "spec.networkPolicy needs the RayClusterNetworkPolicy feature gate (off by default)")
R_TLS = _rule("RS024", "error", f"{UPSTREAM}#validateTLSOptions",
              "spec.tlsOptions needs the RayClusterMTLS feature gate (off by default)")
R_HEAD_SVC_NAME = _rule("RS025", "error", f"{UPSTREAM}#ValidateRayServiceSpec",
                        "rayClusterConfig.headGroupSpec.headService.metadata.name must not be set for a RayService")
R_UPGRADE_TYPE = _rule("RS026", "error", f"{UPSTREAM}#ValidateRayServiceSpec",
                       "spec.upgradeStrategy.type must be NewClusterWithIncrementalUpgrade, NewCluster or None")
R_DELETION_DELAY = _rule("RS027", "error", f"{UPSTREAM}#ValidateRayServiceSpec",
                         "spec.rayClusterDeletionDelaySeconds must be non-negative")
R_UPGRADE_OPTIONS = _rule("RS028", "error", f"{UPSTREAM}#ValidateClusterUpgradeOptions",
                          "NewClusterWithIncrementalUpgrade needs enableInTreeAutoscaling and clusterUpgradeOptions with "
                          "0<=stepSizePercent<=maxSurgePercent<=100, intervalSeconds > 0 and a gatewayClassName")
R_MANAGED_BY = _rule("RS029", "error", "ray-operator/apis/ray/v1/rayservice_types.go#RayServiceSpec.ManagedBy",
                     "spec.managedBy is immutable and must be ray.io/kuberay-operator or kueue.x-k8s.io/multikueue (CRD)")
R_RC_UPGRADE = _rule("RS030", "error", f"{UPSTREAM}#ValidateRayClusterUpgradeOptions",
                     "rayClusterConfig.upgradeStrategy must not be set: the RayCluster controller refuses RayClusters "
                     "created by a RayService that set it, so the service never starts")
R_GROUP_NAMES = _rule("RS031", "warning", "ray-operator/pkg/webhooks/v1/raycluster_webhook.go#validateRayCluster",
                      "worker group names must be unique (the RayCluster webhook, when installed, rejects the cluster)")
R_SERVE_PORT = _rule("RS032", "error", "ray-operator/controllers/ray/common/service.go#BuildServeService",
                     "the head container declares ports but none named 'serve' or 'serve-*' and no serveService is "
                     "given: the serve Service cannot be built")
R_NESTED_SUSPEND = _rule("RS033", "warning", f"{CTRL}#constructRayClusterForRayService",
                         "rayClusterConfig.suspend is copied only when a RayCluster is created and never propagated "
                         "afterwards; a cluster born suspended stops every RayService pass until it is unsuspended")
R_DEPRECATED = _rule("RS034", "warning", "ray-operator/apis/ray/v1/rayservice_types.go#RayServiceSpec",
                     "serviceUnhealthySecondThreshold / deploymentUnhealthySecondThreshold are deprecated and unused")
R_NO_SERVE_CONFIG = _rule("RS035", "warning", f"{CTRL}#getAndCheckServeStatus",
                          "without serveConfigV2 no Serve application exists, so no cluster is ever ready to serve")


# --------------------------------------------------------------------------- examples

_RC = "spec:\n  rayClusterConfig:\n"
_HEAD = _RC + "    headGroupSpec:\n"
_HEAD_CTR = _HEAD + "      template:\n        spec:\n          containers:\n          - name: ray-head\n"
_WORKER = _RC + "    workerGroupSpecs:\n    - groupName: small\n"
_FT = "    gcsFaultToleranceOptions:\n      redisAddress: redis:6379\n"
_INC = ("spec:\n  upgradeStrategy:\n    type: NewClusterWithIncrementalUpgrade\n    clusterUpgradeOptions:\n"
        "      gatewayClassName: istio\n      stepSizePercent: 10\n      maxSurgePercent: 20\n      intervalSeconds: 30\n"
        "  rayClusterConfig:\n")

#: A bad and a good example per rule: YAML fragments of a RayService (``metadata`` / ``spec``
#: from the top), each merged into a valid RayService by the rule tests (lists merge item
#: by item) and shown by ``rolloutctl rules RS0xx``.
EXAMPLES: dict[str, tuple[str, str]] = {
    "RS001": ("metadata:\n  name: text-ml-summarization-service-for-the-eu-west-1a\n",
              "metadata:\n  name: text-ml-summarization\n"),
    "RS002": ("metadata:\n  name: 1svc\n", "metadata:\n  name: svc1\n"),
    "RS003": ("metadata:\n  annotations:\n    ray.io/initializing-timeout: '-5m'\n",
              "metadata:\n  annotations:\n    ray.io/initializing-timeout: 30m\n"),
    "RS004": (_RC + "    rayVersion: '2.55.0'\n    authOptions:\n      mode: token\n      enableK8sTokenAuth: true\n",
              _RC + "    rayVersion: '2.55.0'\n    authOptions:\n      mode: token\n"),
    "RS005": (_HEAD + "      template:\n        spec:\n          containers: []\n",
              _HEAD_CTR + "            image: rayproject/ray:2.46.0\n"),
    "RS006": (_HEAD + "      rayStartParams:\n        num-cpus: '1'\n      resources:\n        CPU: '1'\n",
              _HEAD + "      rayStartParams: {}\n      resources:\n        CPU: '1'\n"),
    "RS007": (_HEAD + "      rayStartParams:\n        labels: tier=head\n", _HEAD + "      labels:\n        tier: head\n"),
    "RS008": (_WORKER + "      template:\n        spec:\n          containers: []\n",
              _WORKER + "      template:\n        spec:\n          containers:\n          - name: ray-worker\n"
              "            image: rayproject/ray:2.46.0\n"),
    "RS009": (_WORKER + "      minReplicas: null\n      maxReplicas: 5\n", _WORKER + "      minReplicas: 1\n      maxReplicas: 5\n"),
    "RS010": (_WORKER + "      minReplicas: 3\n      maxReplicas: 1\n", _WORKER + "      minReplicas: 1\n      maxReplicas: 3\n"),
    "RS011": (_WORKER + "      idleTimeoutSeconds: 60\n",
              _RC + "    enableInTreeAutoscaling: true\n    autoscalerOptions:\n      version: v2\n"
              "    workerGroupSpecs:\n    - groupName: small\n      idleTimeoutSeconds: 60\n"),
    "RS012": (_WORKER + "      priority: 5\n", _WORKER + "      priority: 0\n"),
    "RS013": ("metadata:\n  annotations:\n    ray.io/ft-enabled: 'true'\n" + _RC + _FT, _RC + _FT),
    "RS014": (_HEAD_CTR + "            env:\n            - name: RAY_REDIS_ADDRESS\n              value: redis:6379\n",
              _RC + _FT),
    "RS015": (_RC + _FT + "    headGroupSpec:\n      template:\n        spec:\n          containers:\n"
              "          - name: ray-head\n            env:\n            - name: REDIS_PASSWORD\n              value: s3cret\n",
              _RC + _FT + "      redisPassword:\n        valueFrom:\n          secretKeyRef: {name: redis, key: password}\n"),
    "RS016": (_RC + _FT + "      storage:\n        size: 1Gi\n", _RC + _FT),
    "RS017": (_HEAD_CTR + "            env:\n            - name: REDIS_USERNAME\n              value: ray\n",
              _RC + _FT + "      redisUsername:\n        value: ray\n"),
    "RS018": (_RC + "    enableInTreeAutoscaling: true\n    workerGroupSpecs:\n    - groupName: small\n      suspend: true\n",
              _RC + "    enableInTreeAutoscaling: true\n    workerGroupSpecs:\n    - groupName: small\n      suspend: false\n"),
    "RS019": (_HEAD_CTR + "            env:\n            - name: RAY_enable_autoscaler_v2\n              value: '1'\n",
              _RC + "    enableInTreeAutoscaling: true\n    autoscalerOptions:\n      version: v2\n"),
    "RS020": (_RC + "    enableInTreeAutoscaling: true\n    autoscalerOptions:\n      idleTimeoutSeconds: -1\n",
              _RC + "    enableInTreeAutoscaling: true\n    autoscalerOptions:\n      idleTimeoutSeconds: 60\n"),
    "RS021": (_RC + "    historyServerOptions:\n      collectorOptions: {}\n",
              "# without the RayClusterHistoryServer gate, leave historyServerOptions out\n" + _RC + "    rayVersion: '2.46.0'\n"),
    "RS022": (_RC + "    rayVersion: '2.46.0'\n    authOptions:\n      mode: token\n",
              _RC + "    rayVersion: '2.52.0'\n    authOptions:\n      mode: token\n"),
    "RS023": (_RC + "    networkPolicy:\n      mode: deny-all\n",
              "# without the RayClusterNetworkPolicy gate, leave networkPolicy out\n" + _RC + "    rayVersion: '2.46.0'\n"),
    "RS024": (_RC + "    tlsOptions:\n      enabled: true\n",
              "# without the RayClusterMTLS gate, leave tlsOptions out\n" + _RC + "    rayVersion: '2.46.0'\n"),
    "RS025": (_HEAD + "      headService:\n        metadata:\n          name: my-head\n",
              _HEAD + "      headService:\n        metadata:\n          labels:\n            team: ml\n"),
    "RS026": ("spec:\n  upgradeStrategy:\n    type: BlueGreen\n", "spec:\n  upgradeStrategy:\n    type: NewCluster\n"),
    "RS027": ("spec:\n  rayClusterDeletionDelaySeconds: -1\n", "spec:\n  rayClusterDeletionDelaySeconds: 0\n"),
    "RS028": (_INC + "    enableInTreeAutoscaling: false\n", _INC + "    enableInTreeAutoscaling: true\n"),
    "RS029": ("spec:\n  managedBy: example.com/my-controller\n", "spec:\n  managedBy: ray.io/kuberay-operator\n"),
    "RS030": (_RC + "    upgradeStrategy:\n      type: Recreate\n", "spec:\n  upgradeStrategy:\n    type: NewCluster\n"),
    "RS031": (_RC + "    workerGroupSpecs:\n    - groupName: small\n    - groupName: small\n      minReplicas: 0\n"
              "      maxReplicas: 2\n      template:\n        spec:\n          containers:\n          - name: ray-worker\n"
              "            image: rayproject/ray:2.46.0\n",
              _RC + "    workerGroupSpecs:\n    - groupName: small\n    - groupName: large\n      minReplicas: 0\n"
              "      maxReplicas: 2\n      template:\n        spec:\n          containers:\n          - name: ray-worker\n"
              "            image: rayproject/ray:2.46.0\n"),
    "RS032": (_HEAD_CTR + "            ports:\n            - {containerPort: 6379, name: gcs-server}\n",
              _HEAD_CTR + "            ports:\n            - {containerPort: 6379, name: gcs-server}\n"
              "            - {containerPort: 8000, name: serve}\n"),
    "RS033": (_RC + "    suspend: true\n", "# pause the whole service with the top-level field\nspec:\n  suspend: true\n"),
    "RS034": ("spec:\n  serviceUnhealthySecondThreshold: 900\n",
              "# the deprecated thresholds have no effect: leave them out\nspec:\n  rayClusterDeletionDelaySeconds: 60\n"),
    "RS035": ("spec:\n  serveConfigV2: ''\n",
              "spec:\n  serveConfigV2: |\n    applications:\n    - name: classify\n      import_path: app:deployment\n"),
}

for _id, (_bad, _good) in EXAMPLES.items():
    RULES[_id] = dataclasses.replace(RULES[_id], bad=_bad.rstrip("\n"), good=_good.rstrip("\n"))


# --------------------------------------------------------------------------- helpers

_DNS1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS1123_SUB = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_QNAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_GO_DURATION = re.compile(r"^[-+]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$")
_UNIT = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_go_duration(s: str) -> float | None:
    """Seconds of a Go ``time.ParseDuration`` string, or None when it does not parse."""
    s = s.strip() if isinstance(s, str) else ""
    if s in ("0", "+0", "-0"):
        return 0.0
    if not _GO_DURATION.match(s):
        return None
    sign = -1.0 if s.startswith("-") else 1.0
    total = 0.0
    for num, unit in re.findall(r"((?:\d+(?:\.\d*)?|\.\d+))(ns|us|µs|μs|ms|s|m|h)", s):
        total += float(num) * _UNIT[unit]
    return sign * total


def parse_initializing_timeout(value: Any) -> float | None:
    """``getInitializingTimeout`` (rayservice_controller.go): Go duration first, then
    integer seconds; None when absent or unparsable."""
    if not isinstance(value, str) or value == "":
        return None
    d = parse_go_duration(value)
    if d is not None:
        return d
    if re.fullmatch(r"[-+]?\d+", value.strip()):
        return float(int(value))
    return None


def _parse_version(v: Any) -> tuple[int, ...] | None:
    """``k8s.io/apimachinery/pkg/util/version.ParseGeneric``: at least two numeric parts."""
    if not isinstance(v, str):
        return None
    m = re.match(r"^v?([0-9]+(?:\.[0-9]+)+)", v.strip())
    if not m:
        return None
    return tuple(int(p) for p in m.group(1).split("."))


def _mapping(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def _list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _containers(template: Any) -> list[Mapping[str, Any]]:
    return [c for c in _list(_mapping(_mapping(template).get("spec")).get("containers")) if isinstance(c, Mapping)]


def _env(container: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    out: dict[str, Mapping[str, Any]] = {}
    for e in _list(container.get("env")):
        if isinstance(e, Mapping) and isinstance(e.get("name"), str):
            out.setdefault(e["name"], e)
    return out


def is_autoscaling_enabled(spec: Mapping[str, Any]) -> bool:
    """``utils.IsAutoscalingEnabled`` (utils/util.go)."""
    return spec.get("enableInTreeAutoscaling") is True


def is_autoscaling_v2_enabled(spec: Mapping[str, Any]) -> bool:
    """``utils.IsAutoscalingV2Enabled`` (utils/util.go)."""
    return _mapping(spec.get("autoscalerOptions")).get("version") == "v2"


def is_incremental_upgrade_enabled(rs_spec: Mapping[str, Any], cfg: OperatorConfig = DEFAULT_CONFIG) -> bool:
    """``utils.IsIncrementalUpgradeEnabled`` (utils/util.go): the RayServiceIncrementalUpgrade
    gate (default on) and ``upgradeStrategy.type`` NewClusterWithIncrementalUpgrade."""
    return cfg.gate("RayServiceIncrementalUpgrade") and _mapping(rs_spec.get("upgradeStrategy")).get("type") == INCREMENTAL


def _is_k8s_auth(spec: Mapping[str, Any]) -> bool:
    return _mapping(spec.get("authOptions")).get("enableK8sTokenAuth") is True


def _worker_path(i: int, g: Mapping[str, Any]) -> tuple[tuple, str]:
    name = g.get("groupName")
    sel = f"[groupName={name}]" if isinstance(name, str) and name else f"[{i}]"
    return ("spec", "rayClusterConfig", "workerGroupSpecs", i), f"spec.rayClusterConfig.workerGroupSpecs{sel}"


class _Ctx:
    def __init__(self, obj: Obj, cfg: OperatorConfig = DEFAULT_CONFIG) -> None:
        self.obj = obj
        self.cfg = cfg
        self.findings: list[Finding] = []

    def add(self, rule: Rule, path: tuple, dotted: str, message: str) -> None:
        self.findings.append(Finding(rule.id, rule.severity, self.obj.file, self.obj.line_of(*path), message,
                                     dotted, self.obj.ref))


Check = Callable[[_Ctx], None]

# --------------------------------------------------------------------------- metadata


def validate_ray_service_metadata(c: _Ctx) -> None:
    """``ValidateRayServiceMetadata`` (utils/validation.go): name length and DNS-1035."""
    name = c.obj.name
    p = ("metadata", "name")
    if len(name) > MAX_RAYSERVICE_NAME_LENGTH:
        c.add(R_NAME_LEN, p, "metadata.name",
              f"RayService name should be no more than {MAX_RAYSERVICE_NAME_LENGTH} characters (got {len(name)})")
    if not _DNS1035.match(name) or len(name) > 63:
        c.add(R_NAME_DNS, p, "metadata.name", f"RayService name {name!r} should be a valid DNS-1035 label "
              "(lowercase letters, digits and '-', starting with a letter)")


def validate_initializing_timeout(c: _Ctx) -> None:
    """``validateInitializingTimeout`` (utils/validation.go)."""
    v = c.obj.annotations.get(INITIALIZING_TIMEOUT_ANNOTATION)
    if v is None or v == "":
        return
    path = ("metadata", "annotations", INITIALIZING_TIMEOUT_ANNOTATION)
    dotted = f"metadata.annotations[{INITIALIZING_TIMEOUT_ANNOTATION}]"
    s = str(v)
    d = parse_go_duration(s)
    if d is not None:
        if d <= 0:
            c.add(R_TIMEOUT, path, dotted, f"annotation {INITIALIZING_TIMEOUT_ANNOTATION} must be a positive duration, got: {s}")
        return
    if re.fullmatch(r"[-+]?\d+", s.strip()):
        if int(s) <= 0:
            c.add(R_TIMEOUT, path, dotted,
                  f"annotation {INITIALIZING_TIMEOUT_ANNOTATION} must be a positive integer (seconds), got: {s}")
        return
    c.add(R_TIMEOUT, path, dotted, f"annotation {INITIALIZING_TIMEOUT_ANNOTATION} has invalid format: {s}; "
          "expected a Go duration such as '5m' or '1h', or positive integer seconds")


# --------------------------------------------------------------------------- cluster spec


def validate_ray_group_resources(c: _Ctx) -> None:
    """``validateRayGroupResources`` (utils/validation.go), head and every worker group."""
    for path, dotted, label, group in _groups(c.obj):
        rsp = _mapping(group.get("rayStartParams"))
        has = any(rsp.get(k) not in (None, "") for k in ("num-cpus", "num-gpus", "memory", "resources"))
        if has and _mapping(group.get("resources")):
            c.add(R_GROUP_RESOURCES, path + ("resources",), dotted + ".resources",
                  f"resource fields should not be set in both rayStartParams and resources for {label} group; "
                  "please use only one")


_QN_MAX = 63


def _qualified_name_ok(key: str) -> bool:
    parts = key.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix or len(prefix) > 253 or not _DNS1123_SUB.match(prefix):
            return False
    else:
        return False
    return 0 < len(name) <= _QN_MAX and bool(_QNAME.match(name))


def validate_ray_group_labels(c: _Ctx) -> None:
    """``validateRayGroupLabels`` (utils/validation.go)."""
    for path, dotted, label, group in _groups(c.obj):
        if "labels" in _mapping(group.get("rayStartParams")):
            c.add(R_GROUP_LABELS, path + ("rayStartParams", "labels"), dotted + ".rayStartParams.labels",
                  f"rayStartParams['labels'] is not supported for {label} group; please use the top-level labels field")
        for k, v in _mapping(group.get("labels")).items():
            if not _qualified_name_ok(str(k)):
                c.add(R_GROUP_LABELS, path + ("labels", k), f"{dotted}.labels[{k}]",
                      f"invalid label key for {label} group: {k!r}")
            sv = "" if v is None else str(v)
            if sv and (len(sv) > 63 or not _QNAME.match(sv)):
                c.add(R_GROUP_LABELS, path + ("labels", k), f"{dotted}.labels[{k}]",
                      f"invalid label value for key {k!r} in {label} group: {sv!r}")


def _groups(obj: Obj) -> Iterable[tuple[tuple, str, str, Mapping[str, Any]]]:
    rc = _mapping(obj.spec.get("rayClusterConfig"))
    yield (("spec", "rayClusterConfig", "headGroupSpec"), "spec.rayClusterConfig.headGroupSpec", "Head",
           _mapping(rc.get("headGroupSpec")))
    for i, g in enumerate(_list(rc.get("workerGroupSpecs"))):
        g = _mapping(g)
        p, d = _worker_path(i, g)
        yield p, d, str(g.get("groupName") or f"#{i}"), g


def _head_container(rc: Mapping[str, Any]) -> Mapping[str, Any]:
    cs = _containers(_mapping(rc.get("headGroupSpec")).get("template"))
    return cs[0] if cs else {}


def validate_ray_cluster_spec(c: _Ctx) -> None:
    """``ValidateRayClusterSpec`` (utils/validation.go): containers, replicas bounds,
    GCS FT, autoscaler, auth, history server, network policy and TLS gates."""
    rc = _mapping(c.obj.spec.get("rayClusterConfig"))
    base = ("spec", "rayClusterConfig")
    head = _mapping(rc.get("headGroupSpec"))
    if not _containers(head.get("template")):
        c.add(R_HEAD_CONTAINER, base + ("headGroupSpec", "template"), "spec.rayClusterConfig.headGroupSpec.template",
              "headGroupSpec should have at least one container")
    autoscaling = is_autoscaling_enabled(rc)
    hc = _head_container(rc)
    henv = _env(hc)
    for i, g in enumerate(_list(rc.get("workerGroupSpecs"))):
        g = _mapping(g)
        p, d = _worker_path(i, g)
        name = g.get("groupName")
        if not _containers(g.get("template")):
            c.add(R_WORKER_CONTAINER, p + ("template",), d + ".template", "workerGroupSpec should have at least one container")
        mn, mx = g.get("minReplicas"), g.get("maxReplicas")
        # The CRD defaults minReplicas to 0 and maxReplicas to 2147483647, so omission only
        # matters when the object bypasses defaulting; we apply the defaults like the API server.
        if not autoscaling and (mn is None and "minReplicas" in g or mx is None and "maxReplicas" in g):
            c.add(R_MINMAX_REQUIRED, p, d, f"worker group {name} must set both minReplicas and maxReplicas "
                  "when autoscaling is disabled")
        mn = 0 if mn is None else mn
        mx = 2147483647 if mx is None else mx
        if isinstance(mn, int) and mn < 0:
            c.add(R_MINMAX_RANGE, p + ("minReplicas",), d + ".minReplicas", f"worker group {name} has negative minReplicas {mn}")
        if isinstance(mx, int) and mx < 0:
            c.add(R_MINMAX_RANGE, p + ("maxReplicas",), d + ".maxReplicas", f"worker group {name} has negative maxReplicas {mx}")
        if isinstance(mn, int) and isinstance(mx, int) and mn >= 0 and mx >= 0 and mn > mx:
            c.add(R_MINMAX_RANGE, p + ("minReplicas",), d + ".minReplicas",
                  f"worker group {name} has minReplicas {mn} greater than maxReplicas {mx}")
        _validate_worker_group_idle_timeout(c, g, p, d, rc, henv)
        _validate_worker_group_priority(c, g, p, d, rc, henv)
        if g.get("suspend") is True:
            if not c.cfg.gate("RayJobDeletionPolicy"):
                c.add(R_WG_SUSPEND, p + ("suspend",), d + ".suspend", f"worker group {name} can be suspended only "
                      "when the RayJobDeletionPolicy feature gate is enabled")
            elif autoscaling:
                c.add(R_WG_SUSPEND, p + ("suspend",), d + ".suspend",
                      f"worker group {name} cannot be suspended with Autoscaler enabled")

    ann = c.obj.annotations
    ft = rc.get("gcsFaultToleranceOptions")
    ftp = base + ("gcsFaultToleranceOptions",)
    if ann.get(FT_ENABLED_ANNOTATION) and ft is not None:
        c.add(R_FT_BOTH, ftp, "spec.rayClusterConfig.gcsFaultToleranceOptions",
              f"{FT_ENABLED_ANNOTATION} annotation and gcsFaultToleranceOptions are both set; use only gcsFaultToleranceOptions")
    ft_enabled = str(ann.get(FT_ENABLED_ANNOTATION, "")).lower() == "true" or ft is not None
    hpath = base + ("headGroupSpec", "template", "spec", "containers", 0)
    hdot = "spec.rayClusterConfig.headGroupSpec.template.spec.containers[0]"
    if not ft_enabled and "RAY_REDIS_ADDRESS" in henv:
        c.add(R_REDIS_ADDRESS, hpath + ("env",), hdot + ".env[name=RAY_REDIS_ADDRESS]",
              "RAY_REDIS_ADDRESS is set which implicitly enables GCS fault tolerance, but gcsFaultToleranceOptions is not set")
    if ft is not None:
        rsp = _mapping(head.get("rayStartParams"))
        if rsp.get("redis-password"):
            c.add(R_FT_CONFLICT, base + ("headGroupSpec", "rayStartParams", "redis-password"),
                  "spec.rayClusterConfig.headGroupSpec.rayStartParams.redis-password",
                  "cannot set redis-password in rayStartParams with gcsFaultToleranceOptions; use its redisPassword")
        for env in ("REDIS_PASSWORD", "RAY_REDIS_ADDRESS"):
            if env in henv:
                c.add(R_FT_CONFLICT, hpath + ("env",), f"{hdot}.env[name={env}]",
                      f"cannot set {env} env var in the head Pod with gcsFaultToleranceOptions; use the options fields")
        if ann.get(EXTERNAL_STORAGE_NS_ANNOTATION):
            c.add(R_FT_CONFLICT, ("metadata", "annotations"), f"metadata.annotations[{EXTERNAL_STORAGE_NS_ANNOTATION}]",
                  "cannot set the ray.io/external-storage-namespace annotation with gcsFaultToleranceOptions; "
                  "use gcsFaultToleranceOptions.externalStorageNamespace")
        _validate_gcs_fault_tolerance_backend(c, _mapping(ft), hc, ftp)
    if _mapping(head.get("rayStartParams")).get("redis-username") or "REDIS_USERNAME" in henv:
        c.add(R_REDIS_USERNAME, base + ("headGroupSpec",), "spec.rayClusterConfig.headGroupSpec",
              "cannot set redis username in rayStartParams or environment variables; use gcsFaultToleranceOptions.redisUsername")

    v2env = henv.get("RAY_enable_autoscaler_v2")
    if not autoscaling and v2env is not None and str(v2env.get("value")) in ("1", "true"):
        c.add(R_AUTOSCALER_ENV, hpath + ("env",), hdot + ".env[name=RAY_enable_autoscaler_v2]",
              "RAY_enable_autoscaler_v2 cannot be enabled when enableInTreeAutoscaling is false")
    aopts = _mapping(rc.get("autoscalerOptions"))
    if autoscaling:
        if aopts.get("version") is not None and v2env is not None:
            c.add(R_AUTOSCALER_ENV, base + ("autoscalerOptions", "version"), "spec.rayClusterConfig.autoscalerOptions.version",
                  "both autoscalerOptions.version and head Pod env var RAY_enable_autoscaler_v2 are set; use only the former")
        if is_autoscaling_v2_enabled(rc):
            for path, dotted, label, group in _groups(c.obj):
                rp = _mapping(_mapping(_mapping(group.get("template")).get("spec"))).get("restartPolicy")
                if rp not in (None, "", "Never"):
                    c.add(R_AUTOSCALER_ENV, path + ("template", "spec", "restartPolicy"), dotted + ".template.spec.restartPolicy",
                          f"restartPolicy for {label} Pods should be Never or unset when using autoscaler v2")
    its = aopts.get("idleTimeoutSeconds")
    if isinstance(its, int) and its < 0:
        c.add(R_AUTOSCALER_OPTS, base + ("autoscalerOptions", "idleTimeoutSeconds"),
              "spec.rayClusterConfig.autoscalerOptions.idleTimeoutSeconds",
              f"autoscalerOptions.idleTimeoutSeconds must be non-negative, got {its}")
    if any(isinstance(e, Mapping) and e.get("name") == "KUBERAY_GEN_AUTOSCALER_START_CMD" for e in _list(aopts.get("env"))):
        c.add(R_AUTOSCALER_OPTS, base + ("autoscalerOptions", "env"), "spec.rayClusterConfig.autoscalerOptions.env",
              "autoscalerOptions.env must not contain KUBERAY_GEN_AUTOSCALER_START_CMD (it is managed by KubeRay)")
    if rc.get("historyServerOptions") is not None and not c.cfg.gate("RayClusterHistoryServer"):
        c.add(R_HISTORY, base + ("historyServerOptions",), "spec.rayClusterConfig.historyServerOptions",
              "RayClusterHistoryServer feature gate is not enabled")
    auth = _mapping(rc.get("authOptions"))
    ap = base + ("authOptions",)
    if auth.get("mode") == "token":
        ver = _parse_version(rc.get("rayVersion"))
        if not rc.get("rayVersion"):
            c.add(R_AUTH, ap, "spec.rayClusterConfig.authOptions",
                  "authOptions.mode is 'token' but rayVersion was not specified; Ray 2.52.0 or later is required")
        elif ver is None:
            c.add(R_AUTH, base + ("rayVersion",), "spec.rayClusterConfig.rayVersion",
                  f"authOptions.mode is 'token' but rayVersion format is invalid: {rc.get('rayVersion')}")
        elif ver < (2, 52, 0):
            c.add(R_AUTH, base + ("rayVersion",), "spec.rayClusterConfig.rayVersion",
                  f"authOptions.mode is 'token' but minimum Ray version is 2.52.0, got {rc.get('rayVersion')}")
        elif _is_k8s_auth(rc):
            if ver < (2, 55, 0):
                c.add(R_AUTH, base + ("rayVersion",), "spec.rayClusterConfig.rayVersion",
                      f"authOptions.enableK8sTokenAuth needs Ray 2.55.0 or later, got {rc.get('rayVersion')}")
            elif auth.get("secretName"):
                c.add(R_AUTH, ap, "spec.rayClusterConfig.authOptions.secretName",
                      "authOptions.enableK8sTokenAuth is enabled and authOptions.secretName is also set")
    elif _is_k8s_auth(rc):
        c.add(R_AUTH, ap, "spec.rayClusterConfig.authOptions.enableK8sTokenAuth",
              "authOptions.enableK8sTokenAuth is enabled but authOptions.mode is not 'token'")
    if rc.get("networkPolicy") is not None and not c.cfg.gate("RayClusterNetworkPolicy"):
        c.add(R_NETPOL, base + ("networkPolicy",), "spec.rayClusterConfig.networkPolicy",
              "spec.networkPolicy requires the RayClusterNetworkPolicy feature gate to be enabled")
    if rc.get("tlsOptions") is not None and not c.cfg.gate("RayClusterMTLS"):
        c.add(R_TLS, base + ("tlsOptions",), "spec.rayClusterConfig.tlsOptions",
              "spec.tlsOptions requires the RayClusterMTLS feature gate to be enabled")


def _v2_env_on(henv: Mapping[str, Mapping[str, Any]]) -> bool:
    e = henv.get("RAY_enable_autoscaler_v2")
    return e is not None and str(e.get("value")) in ("1", "true")


def _validate_worker_group_idle_timeout(c: _Ctx, g: Mapping[str, Any], p: tuple, d: str,
                                        rc: Mapping[str, Any], henv: Mapping[str, Mapping[str, Any]]) -> None:
    """``validateWorkerGroupIdleTimeout`` (utils/validation.go)."""
    its = g.get("idleTimeoutSeconds")
    if its is None:
        return
    name = g.get("groupName")
    if isinstance(its, int) and its < 0:
        c.add(R_IDLE_TIMEOUT, p + ("idleTimeoutSeconds",), d + ".idleTimeoutSeconds",
              f"worker group {name}: idleTimeoutSeconds must be non-negative, got {its}")
        return
    if is_autoscaling_v2_enabled(rc) or _v2_env_on(henv):
        return
    c.add(R_IDLE_TIMEOUT, p + ("idleTimeoutSeconds",), d + ".idleTimeoutSeconds",
          f"worker group {name}: idleTimeoutSeconds is set, but autoscaler v2 is not enabled "
          "(set spec.rayClusterConfig.autoscalerOptions.version: v2)")


def _validate_worker_group_priority(c: _Ctx, g: Mapping[str, Any], p: tuple, d: str,
                                    rc: Mapping[str, Any], henv: Mapping[str, Mapping[str, Any]]) -> None:
    """``validateWorkerGroupPriority`` (utils/validation.go)."""
    prio = g.get("priority")
    if prio in (None, 0):
        return
    name = g.get("groupName")
    rv = rc.get("rayVersion")
    ver = _parse_version(rv)
    msg = None
    if not rv:
        msg = f"worker group {name}: priority is set, but rayVersion was not specified; Ray 2.56.0 or later is required"
    elif ver is None:
        msg = f"worker group {name}: priority is set, but rayVersion format is invalid: {rv}"
    elif ver < (2, 56, 0):
        msg = f"worker group {name}: priority is set, but minimum Ray version is 2.56.0, got {rv}"
    elif not (is_autoscaling_v2_enabled(rc) or _v2_env_on(henv)):
        msg = f"worker group {name}: priority is set to {prio}, but autoscaler v2 is not enabled"
    if msg:
        c.add(R_PRIORITY, p + ("priority",), d + ".priority", msg)


def _validate_gcs_fault_tolerance_backend(c: _Ctx, ft: Mapping[str, Any], hc: Mapping[str, Any], ftp: tuple) -> None:
    """``validateGcsFaultToleranceBackend`` (utils/validation.go)."""
    dotted = "spec.rayClusterConfig.gcsFaultToleranceOptions"
    backend = ft.get("backend") or "redis"
    if backend == "rocksdb":
        if not c.cfg.gate("GCSFaultToleranceEmbeddedStorage"):
            c.add(R_FT_BACKEND, ftp + ("backend",), dotted + ".backend",
                  "the embedded RocksDB GCS FT backend requires the GCSFaultToleranceEmbeddedStorage feature gate")
        for f in ("redisAddress", "redisUsername", "redisPassword", "externalStorageNamespace"):
            if ft.get(f):
                c.add(R_FT_BACKEND, ftp + (f,), f"{dotted}.{f}", f"cannot set gcsFaultToleranceOptions.{f} when backend is 'rocksdb'")
    elif ft.get("storage") is not None:
        c.add(R_FT_BACKEND, ftp + ("storage",), dotted + ".storage",
              "cannot set gcsFaultToleranceOptions.storage when backend is 'redis'; it only applies to 'rocksdb'")


# --------------------------------------------------------------------------- RayService spec


def validate_ray_service_spec(c: _Ctx) -> None:
    """``ValidateRayServiceSpec`` (utils/validation.go): k8s token auth, the cluster spec,
    head Service name, upgrade type, deletion delay and (incremental) upgrade options."""
    spec = c.obj.spec
    rc = _mapping(spec.get("rayClusterConfig"))
    if _is_k8s_auth(rc):
        c.add(R_K8S_AUTH, ("spec", "rayClusterConfig", "authOptions", "enableK8sTokenAuth"),
              "spec.rayClusterConfig.authOptions.enableK8sTokenAuth",
              "K8s token auth mode is currently not supported for RayService")
    validate_ray_cluster_spec(c)
    validate_ray_group_resources(c)
    validate_ray_group_labels(c)
    hs = _mapping(_mapping(rc.get("headGroupSpec")).get("headService"))
    if _mapping(hs.get("metadata")).get("name"):
        c.add(R_HEAD_SVC_NAME, ("spec", "rayClusterConfig", "headGroupSpec", "headService", "metadata", "name"),
              "spec.rayClusterConfig.headGroupSpec.headService.metadata.name",
              "spec.rayClusterConfig.headGroupSpec.headService.metadata.name should not be set")
    us = _mapping(spec.get("upgradeStrategy"))
    t = us.get("type")
    if t is not None and t not in UPGRADE_TYPES:
        c.add(R_UPGRADE_TYPE, ("spec", "upgradeStrategy", "type"), "spec.upgradeStrategy.type",
              f"spec.upgradeStrategy.type value {t} is invalid, valid options are {', '.join(UPGRADE_TYPES)}")
    dd = spec.get("rayClusterDeletionDelaySeconds")
    if isinstance(dd, int) and dd < 0:
        c.add(R_DELETION_DELAY, ("spec", "rayClusterDeletionDelaySeconds"), "spec.rayClusterDeletionDelaySeconds",
              f"spec.rayClusterDeletionDelaySeconds should be a non-negative integer, got {dd}")
    if is_incremental_upgrade_enabled(spec, c.cfg):
        validate_cluster_upgrade_options(c)


def validate_cluster_upgrade_options(c: _Ctx) -> None:
    """``ValidateClusterUpgradeOptions`` (utils/validation.go); first failing check only,
    as upstream. ``maxSurgePercent`` takes the CRD default 100 when omitted."""
    spec = c.obj.spec
    rc = _mapping(spec.get("rayClusterConfig"))
    base = ("spec", "upgradeStrategy", "clusterUpgradeOptions")
    dotted = "spec.upgradeStrategy.clusterUpgradeOptions"

    def fail(field: str, msg: str) -> None:
        path = base + ((field,) if field else ())
        c.add(R_UPGRADE_OPTIONS, path, dotted + (f".{field}" if field else ""), msg)

    if not is_autoscaling_enabled(rc):
        c.add(R_UPGRADE_OPTIONS, ("spec", "rayClusterConfig", "enableInTreeAutoscaling"),
              "spec.rayClusterConfig.enableInTreeAutoscaling", "Ray Autoscaler is required for NewClusterWithIncrementalUpgrade")
        return
    opts = _mapping(spec.get("upgradeStrategy")).get("clusterUpgradeOptions")
    if not isinstance(opts, Mapping):
        c.add(R_UPGRADE_OPTIONS, ("spec", "upgradeStrategy"), "spec.upgradeStrategy",
              "clusterUpgradeOptions are required for NewClusterWithIncrementalUpgrade")
        return
    ms = opts.get("maxSurgePercent", 100)
    ss = opts.get("stepSizePercent")
    iv = opts.get("intervalSeconds")
    if not isinstance(ms, int) or ms < 0 or ms > 100:
        return fail("maxSurgePercent", "maxSurgePercent must be between 0 and 100")
    if not isinstance(ss, int) or ss < 0 or ss > 100:
        return fail("stepSizePercent", "stepSizePercent must be between 0 and 100")
    if ss > ms:
        return fail("stepSizePercent", "stepSizePercent must be less than or equal to maxSurgePercent")
    if not isinstance(iv, int) or iv <= 0:
        return fail("intervalSeconds", "intervalSeconds must be greater than 0")
    if not opts.get("gatewayClassName"):
        return fail("gatewayClassName", "gatewayClassName is required for NewClusterWithIncrementalUpgrade")


def validate_managed_by(c: _Ctx, old: Obj | None) -> None:
    """CRD rules of ``RayServiceSpec.ManagedBy`` (rayservice_types.go): enum and immutable (CEL)."""
    mb = c.obj.spec.get("managedBy")
    if mb is not None and mb not in MANAGED_BY_VALUES:
        c.add(R_MANAGED_BY, ("spec", "managedBy"), "spec.managedBy",
              "the managedBy field value must be either 'ray.io/kuberay-operator' or 'kueue.x-k8s.io/multikueue'")
    if old is not None and old.spec.get("managedBy") != mb:
        c.add(R_MANAGED_BY, ("spec", "managedBy"), "spec.managedBy", "the managedBy field is immutable")


def validate_ray_cluster_upgrade_options(c: _Ctx) -> None:
    """``ValidateRayClusterUpgradeOptions`` (utils/validation.go), which the RayCluster
    controller applies to every RayCluster the RayService creates."""
    if ray_cluster_upgrade_options_error(_mapping(c.obj.spec.get("rayClusterConfig")), True) is not None:
        c.add(R_RC_UPGRADE, ("spec", "rayClusterConfig", "upgradeStrategy", "type"),
              "spec.rayClusterConfig.upgradeStrategy.type",
              "upgradeStrategy cannot be set when RayCluster is created by RayService; the RayCluster controller "
              "will refuse the cluster (event InvalidRayClusterSpec) and the RayService never becomes ready")


def validate_worker_group_names(c: _Ctx) -> None:
    """RayCluster webhook ``validateRayCluster`` (pkg/webhooks/v1/raycluster_webhook.go): unique group names."""
    seen: set[str] = set()
    for i, g in enumerate(_list(_mapping(c.obj.spec.get("rayClusterConfig")).get("workerGroupSpecs"))):
        name = _mapping(g).get("groupName")
        if isinstance(name, str):
            if name in seen:
                p, d = _worker_path(i, _mapping(g))
                c.add(R_GROUP_NAMES, p + ("groupName",), d + ".groupName", f"worker group names must be unique: {name!r}")
            seen.add(name)


def build_serve_service(c: _Ctx) -> None:
    """``common.BuildServeService`` (controllers/ray/common/service.go): a RayService needs a
    port named ``serve``/``serve-*`` on the head container unless ``serveService`` is set;
    a head container without any ports gets the default ports (serve 8000)."""
    rc = _mapping(c.obj.spec.get("rayClusterConfig"))
    hc = _head_container(rc)
    ports = [p for p in _list(hc.get("ports")) if isinstance(p, Mapping)]
    if not ports or c.obj.spec.get("serveService") is not None:
        return
    if not any(str(p.get("name", "")) == "serve" or str(p.get("name", "")).startswith("serve-") for p in ports):
        c.add(R_SERVE_PORT, ("spec", "rayClusterConfig", "headGroupSpec", "template", "spec", "containers", 0, "ports"),
              "spec.rayClusterConfig.headGroupSpec.template.spec.containers[0].ports",
              "specify a port named 'serve' (or 'serve-*') in the Ray head container; otherwise the Kubernetes "
              "Service for Ray Serve cannot be created")


def construct_ray_cluster_for_ray_service(c: _Ctx) -> None:
    """``constructRayClusterForRayService`` (rayservice_controller.go) copies
    ``rayClusterConfig.suspend`` only at creation; ``rayClusterSpecForHashing`` ignores it."""
    if _mapping(c.obj.spec.get("rayClusterConfig")).get("suspend") is True:
        c.add(R_NESTED_SUSPEND, ("spec", "rayClusterConfig", "suspend"), "spec.rayClusterConfig.suspend",
              "rayClusterConfig.suspend: true makes the next RayCluster start suspended; KubeRay never unsuspends it "
              "and every RayService pass stops until someone sets the RayCluster's own spec.suspend to false. "
              "To pause the whole service use spec.suspend")


def deprecated_fields(c: _Ctx) -> None:
    """``RayServiceSpec`` (rayservice_types.go): deprecated threshold fields have no effect."""
    for f in ("serviceUnhealthySecondThreshold", "deploymentUnhealthySecondThreshold"):
        if f in c.obj.spec:
            c.add(R_DEPRECATED, ("spec", f), f"spec.{f}", f"spec.{f} is deprecated and ignored by the controller")


def get_and_check_serve_status(c: _Ctx) -> None:
    """``getAndCheckServeStatus`` (rayservice_controller.go): a cluster with no Serve
    application is never ready, so the service never switches to it."""
    if not str(c.obj.spec.get("serveConfigV2") or "").strip():
        c.add(R_NO_SERVE_CONFIG, ("spec",), "spec.serveConfigV2",
              "spec.serveConfigV2 is empty: no Serve application is deployed and the RayService never becomes ready")


# --------------------------------------------------------------------------- entry points

#: The controller's own checks, in ``validateRayService`` order (metadata, then spec).
CONTROLLER_CHECKS: tuple[Check, ...] = (validate_ray_service_metadata, validate_initializing_timeout, validate_ray_service_spec)
#: Checks applied later, by other components or as advice.
EXTRA_CHECKS: tuple[Check, ...] = (validate_ray_cluster_upgrade_options, validate_worker_group_names, build_serve_service,
                                   construct_ray_cluster_for_ray_service, deprecated_fields, get_and_check_serve_status)


def validate(obj: Obj, old: Obj | None = None, cfg: OperatorConfig = DEFAULT_CONFIG) -> list[Finding]:
    """Every finding for a RayService (errors and warnings), in a stable order."""
    if obj.kind != "RayService":
        return []
    c = _Ctx(obj, cfg)
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


def enforced_by(rule_id: str) -> str:
    """Who refuses a manifest that breaks the rule, and how it shows, in a few words."""
    if rule_id in ADMISSION_RULES:
        return "the API server refuses it (CRD validation)"
    if rule_id in CONTROLLER_RULE_IDS:
        return ("the KubeRay RayService controller fails it after it is stored: Ready=False/ValidationFailed, no "
                "RayCluster (rayservice_controller.go#validateRayService; the admission webhook is not installed by "
                "default)")
    if rule_id == R_RC_UPGRADE.id:
        return "the KubeRay RayCluster controller refuses the cluster (raycluster_controller.go#rayClusterReconcile)"
    if rule_id == R_SERVE_PORT.id:
        return "the KubeRay RayService controller cannot build the serve Service (rayservice_controller.go#reconcileServices)"
    return ""


def _with_enforcer(f: Finding) -> Finding:
    who = enforced_by(f.rule) if f.severity == "error" else ""
    if not who or who in f.message:
        return f
    return dataclasses.replace(f, message=f"{f.message} ({who})")


def controller_errors(obj: Obj, cfg: OperatorConfig = DEFAULT_CONFIG) -> list[Finding]:
    """The errors ``validateRayService`` would report, in upstream evaluation order."""
    c = _Ctx(obj, cfg)
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


#: Rules the API server itself enforces (CRD schema and CEL rules), so a manifest that
#: breaks them never reaches the controller. Every other RS rule is enforced by a
#: controller after admission: the RayService admission webhook is installed only with
#: ENABLE_WEBHOOKS=true, which the Helm chart does not set (ray-operator/main.go).
ADMISSION_RULES = frozenset({"RS027", "RS029"})
#: Rules of ``validateRayService`` (metadata, then spec) that only the controller applies.
CONTROLLER_RULE_IDS = frozenset({f"RS{i:03d}" for i in range(1, 29)} - ADMISSION_RULES)


def rejected_at_admission(finding: Finding) -> bool:
    """Whether the API server refuses a manifest with this finding (create or update)."""
    return finding.rule in ADMISSION_RULES


def ray_cluster_upgrade_options_error(cluster_spec: Mapping[str, Any], created_by_ray_service: bool) -> str | None:
    """``ValidateRayClusterUpgradeOptions`` (utils/validation.go) as the RayCluster controller
    applies it in ``rayClusterReconcile``: a RayCluster created by a RayService must not
    set ``upgradeStrategy``; otherwise its type must be Recreate or None. The error, or None."""
    us = _mapping(cluster_spec.get("upgradeStrategy"))
    t = us.get("type")
    if t is None:
        return None
    if t not in ("Recreate", "None"):
        return f"The RayCluster spec is invalid: Spec.UpgradeStrategy.Type value {t} is invalid, valid options are Recreate or None"
    if created_by_ray_service:
        return "upgradeStrategy cannot be set when RayCluster is created by RayService"
    return None


for _id, _r in list(RULES.items()):
    _who = enforced_by(_id)
    RULES[_id] = dataclasses.replace(_r, scope="create" if _id in ADMISSION_RULES else "controller",
                                     description=(f"Enforced by: {_who}." if _who else
                                                  "Advice: the operator accepts it, but it does not do what it seems."))
