"""The RayService rules: what each checks, its severity, where upstream does it, a bad
and a good example, and who enforces it. Plain data: ``validation.RULES`` maps each id to
its rule with the examples and enforcement filled in (``documented``).

Upstream (ray-project/kuberay @ feeaf72f): ``ray-operator/controllers/ray/utils/validation.go``
(RS001–RS028, RS030, RS037–RS040), ``apis/ray/v1/rayservice_types.go`` (RS029, RS034),
``pkg/webhooks/v1/raycluster_webhook.go`` (RS031), ``common/service.go`` (RS032) and
``rayservice_controller.go`` (RS033, RS035), ``utils/util.go`` (RS041, RS042), ``common/pod.go``
(RS043).
"""

from __future__ import annotations

from types import MappingProxyType
from collections.abc import Callable, Mapping

from ....core.model import Finding, Obj
from ....core.records import record, replace
from ..operator import DEFAULT_CONFIG, DEFAULT_FEATURE_GATES, OperatorConfig
from .util import CTRL, UPSTREAM


@record(frozen=True)
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
    #: the feature gate upstream checks this under (``features.Enabled``): the rule runs
    #: only when the gate is on (``--feature-gate NAME=true``); "" for every other rule
    gate: str = ""


def _rule(id: str, severity: str, upstream: str, summary: str, bad: str = "", good: str = "") -> Rule:
    return Rule(id, severity, upstream, summary, bad, good)


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
                  "historyServerOptions needs the RayClusterHistoryServer feature gate (off by default; with it on, "
                  "RS039 and RS040 check the options)")
R_AUTH = _rule("RS022", "error", f"{UPSTREAM}#ValidateRayClusterSpec",
               "authOptions.mode token needs rayVersion >= 2.52.0 (k8s token auth >= 2.55.0, without secretName)")
R_NETPOL = _rule("RS023", "error", f"{UPSTREAM}#ValidateRayClusterSpec",
                 "spec.networkPolicy needs the RayClusterNetworkPolicy feature gate (off by default; with it on, "
                 "RS037 checks the policy)")
R_TLS = _rule("RS024", "error", f"{UPSTREAM}#ValidateRayClusterSpec",
              "spec.tlsOptions needs the RayClusterMTLS feature gate (off by default; with it on, RS038 checks "
              "the settings TLS takes over)")
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
                          "a serveConfigV2 that is empty or lists no application deploys nothing, so no cluster is "
                          "ever ready to serve")
R_SERVE_CONFIG_YAML = _rule("RS036", "error", f"{CTRL}#updateServeDeployment",
                            "serveConfigV2 must unmarshal as a YAML mapping, or the controller never submits it")

R_NO_HOSTS = _rule("RS041", "warning", "ray-operator/controllers/ray/utils/util.go#GetWorkerGroupDesiredReplicas",
                   "a worker group with numOfHosts 0 or less gets no worker Pod: the controller multiplies the "
                   "group's replicas by it (the CRD defaults only an absent numOfHosts to 1)")

R_CLAMPED = _rule("RS042", "warning", "ray-operator/controllers/ray/utils/util.go#GetWorkerGroupDesiredReplicas",
                  "a worker group's replicas outside [minReplicas, maxReplicas] are clamped: the controller keeps "
                  "minReplicas or maxReplicas workers, not the replicas written")

R_SERVE_PROXY_PORT = _rule("RS043", "warning", "ray-operator/controllers/ray/common/pod.go#initLivenessAndReadinessProbe",
                           "Serve's proxies listen on serveConfigV2's http_options.port (default 8000): a worker "
                           "group whose ray container's serve port (8000 when it names none) is another, or that "
                           "runs no proxy (proxy_location HeadOnly), never has a Ready Pod, and a head whose serve "
                           "port is another is kept out of the serve Service")

R_NETPOL_CONTENT = Rule("RS037", "error", f"{UPSTREAM}#validateNetworkPolicy",
                        "with the RayClusterNetworkPolicy gate on: networkPolicy's rules must suit its mode (no "
                        "ingressRules under DenyAllEgress, no egressRules under DenyAllIngress), every workerGroups "
                        "entry must name a worker group, and every worker group name must be a DNS-1123 label",
                        gate="RayClusterNetworkPolicy")
R_TLS_CONTENT = Rule("RS038", "error", f"{UPSTREAM}#validateTLSOptions",
                     "with the RayClusterMTLS gate on and tlsOptions.enabled: the head, worker and autoscaler "
                     "containers must not set RAY_USE_TLS, RAY_TLS_SERVER_CERT, RAY_TLS_SERVER_KEY or RAY_TLS_CA_CERT, "
                     "nor mount a volume named ray-tls or at /etc/ray/tls (KubeRay manages them)",
                     gate="RayClusterMTLS")
R_HISTORY_CONTENT = Rule("RS039", "error", f"{UPSTREAM}#ValidateRayClusterSpec",
                         "with the RayClusterHistoryServer gate on: historyServerOptions needs collectorOptions, and no "
                         "head or worker container may be named ray-history-collector",
                         gate="RayClusterHistoryServer")
R_COLLECTOR = Rule("RS040", "error", f"{UPSTREAM}#validateCollectorOptions",
                   "with the RayClusterHistoryServer gate on: collectorOptions needs an image and a literal "
                   "STORAGE_BACKEND env var with its backend's settings, and must not set the env vars KubeRay "
                   "injects into the collector", gate="RayClusterHistoryServer")


# --------------------------------------------------------------------------- examples

_RC = "spec:\n  rayClusterConfig:\n"
_HEAD = _RC + "    headGroupSpec:\n"
_HEAD_CTR = _HEAD + "      template:\n        spec:\n          containers:\n          - name: ray-head\n"
_WORKER = _RC + "    workerGroupSpecs:\n    - groupName: small\n"
_FT = "    gcsFaultToleranceOptions:\n      redisAddress: redis:6379\n"
_NETPOL_GATE = "# with --feature-gate RayClusterNetworkPolicy=true\n"
_TLS_GATE = "# with --feature-gate RayClusterMTLS=true\n"
_HISTORY_GATE = "# with --feature-gate RayClusterHistoryServer=true\n"
_COLLECTOR = ("    historyServerOptions:\n      collectorOptions:\n        image: quay.io/kuberay/collector:v1.6.0\n"
              "        env:\n        - name: STORAGE_BACKEND\n          value: s3\n")
_INC = ("spec:\n  upgradeStrategy:\n    type: NewClusterWithIncrementalUpgrade\n    clusterUpgradeOptions:\n"
        "      gatewayClassName: istio\n      stepSizePercent: 10\n      maxSurgePercent: 20\n      intervalSeconds: 30\n"
        "  rayClusterConfig:\n")

#: A bad and a good example per rule: YAML fragments of a RayService (``metadata`` / ``spec``
#: from the top), each merged into a valid RayService by the rule tests (lists merge item
#: by item) and shown by ``rolloutctl rules RS0xx``.
EXAMPLES: Mapping[str, tuple[str, str]] = MappingProxyType({
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
    "RS023": (_RC + "    networkPolicy:\n      mode: DenyAll\n",
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
    "RS041": (_WORKER + "      replicas: 2\n      numOfHosts: 0\n", _WORKER + "      replicas: 2\n      numOfHosts: 1\n"),
    "RS042": (_WORKER + "      replicas: 8\n      minReplicas: 1\n      maxReplicas: 4\n",
              _WORKER + "      replicas: 4\n      minReplicas: 1\n      maxReplicas: 4\n"),
    "RS043": ("spec:\n  serveConfigV2: |\n    http_options:\n      port: 9000\n    applications:\n    - name: classify\n"
              "      import_path: app:deployment\n  rayClusterConfig:\n    headGroupSpec:\n      template:\n"
              "        spec:\n          containers:\n          - name: ray-head\n            ports:\n"
              "            - {containerPort: 9000, name: serve}\n    workerGroupSpecs:\n    - groupName: small\n"
              "      template:\n        spec:\n          containers:\n          - name: ray-worker   # no serve port: "
              "its probe asks 8000\n",
              "spec:\n  serveConfigV2: |\n    http_options:\n      port: 9000\n    applications:\n    - name: classify\n"
              "      import_path: app:deployment\n  rayClusterConfig:\n    headGroupSpec:\n      template:\n"
              "        spec:\n          containers:\n          - name: ray-head\n            ports:\n"
              "            - {containerPort: 9000, name: serve}\n    workerGroupSpecs:\n    - groupName: small\n"
              "      template:\n        spec:\n          containers:\n          - name: ray-worker\n            ports:\n"
              "            - {containerPort: 9000, name: serve}\n"),
    "RS036": ("spec:\n  serveConfigV2: |\n    applications:\n    - name: classify\n      import_path: app:deployment\n"
              "     deployments: []   # one space short: not YAML\n",
              "spec:\n  serveConfigV2: |\n    applications:\n    - name: classify\n      import_path: app:deployment\n"
              "      deployments: []\n"),
    "RS037": (_NETPOL_GATE + _RC + "    networkPolicy:\n      mode: DenyAllIngress\n      worker:\n        egressRules:\n"
              "        - ports:\n          - {protocol: UDP, port: 53}\n",
              _NETPOL_GATE + _RC + "    networkPolicy:\n      mode: DenyAll\n      worker:\n        egressRules:\n"
              "        - ports:\n          - {protocol: UDP, port: 53}\n"),
    "RS038": (_TLS_GATE + _RC + "    tlsOptions:\n      enabled: true\n    headGroupSpec:\n      template:\n        spec:\n"
              "          containers:\n          - name: ray-head\n            env:\n            - name: RAY_USE_TLS\n"
              "              value: '1'\n",
              _TLS_GATE + _RC + "    tlsOptions:\n      enabled: true\n"),
    "RS039": (_HISTORY_GATE + _RC + "    historyServerOptions: {}\n",
              _HISTORY_GATE + _RC + _COLLECTOR + "        - name: S3_REGION\n          value: us-west-2\n"),
    "RS040": (_HISTORY_GATE + _RC + _COLLECTOR,
              _HISTORY_GATE + _RC + _COLLECTOR + "        - name: S3_REGION\n          value: us-west-2\n"),
})


#: every rule, in id order
ALL: tuple[Rule, ...] = (
    R_NAME_LEN, R_NAME_DNS, R_TIMEOUT, R_K8S_AUTH, R_HEAD_CONTAINER, R_GROUP_RESOURCES, R_GROUP_LABELS,
    R_WORKER_CONTAINER, R_MINMAX_REQUIRED, R_MINMAX_RANGE, R_IDLE_TIMEOUT, R_PRIORITY, R_FT_BOTH, R_REDIS_ADDRESS,
    R_FT_CONFLICT, R_FT_BACKEND, R_REDIS_USERNAME, R_WG_SUSPEND, R_AUTOSCALER_ENV, R_AUTOSCALER_OPTS, R_HISTORY,
    R_AUTH, R_NETPOL, R_TLS, R_HEAD_SVC_NAME, R_UPGRADE_TYPE, R_DELETION_DELAY, R_UPGRADE_OPTIONS, R_MANAGED_BY,
    R_RC_UPGRADE, R_GROUP_NAMES, R_SERVE_PORT, R_NESTED_SUSPEND, R_DEPRECATED, R_NO_SERVE_CONFIG,
    R_SERVE_CONFIG_YAML, R_NETPOL_CONTENT, R_TLS_CONTENT, R_HISTORY_CONTENT, R_COLLECTOR, R_NO_HOSTS, R_CLAMPED,
    R_SERVE_PROXY_PORT,
)


#: Rules the API server itself enforces (CRD schema and CEL rules), so a manifest that
#: breaks them never reaches the controller. Every other RS rule is enforced by a
#: controller after admission: the RayService admission webhook is installed only with
#: ENABLE_WEBHOOKS=true, which the Helm chart does not set (ray-operator/main.go).
ADMISSION_RULES = frozenset({"RS027", "RS029"})
#: Rules of ``validateRayService`` (metadata, then spec) that only the controller applies.
CONTROLLER_RULE_IDS = frozenset({f"RS{i:03d}" for i in (*range(1, 29), *range(37, 41))} - ADMISSION_RULES)


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
    if rule_id == R_SERVE_CONFIG_YAML.id:
        return "the KubeRay RayService controller, after it is stored: rayservice_controller.go#updateServeDeployment"
    return ""


def documented(rule: Rule) -> Rule:
    """``rule`` with its examples, scope and who enforces it, as ``rolloutctl rules`` shows it."""
    bad, good = rule.bad, rule.good
    if rule.id in EXAMPLES:
        bad, good = (x.rstrip("\n") for x in EXAMPLES[rule.id])
    who = enforced_by(rule.id)
    description = (f"Enforced by: {who}." if who else "Advice: the operator accepts it, but it does not do what it seems.")
    if rule.gate:
        default = "on" if DEFAULT_FEATURE_GATES.get(rule.gate) else "off"
        description += (f" Checked only with the {rule.gate} feature gate on (lint, plan, next and diff: "
                        f"--feature-gate {rule.gate}=true; the modelled operator's default is {default}).")
    return replace(rule, bad=bad, good=good,
                               scope="create" if rule.id in ADMISSION_RULES else "controller",
                               description=description)


class Ctx:
    """The findings of one RayService as the rules add them."""

    def __init__(self, obj: Obj, cfg: OperatorConfig = DEFAULT_CONFIG) -> None:
        self.obj = obj
        self.cfg = cfg
        self.findings: list[Finding] = []

    def add(self, rule: Rule, path: tuple, dotted: str, message: str) -> None:
        self.findings.append(Finding(rule.id, rule.severity, self.obj.file, self.obj.line_of(*path), message,
                                     dotted, self.obj.ref))


Check = Callable[[Ctx], None]
