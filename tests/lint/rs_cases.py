"""Fixtures for the KubeRay RayService rules (RS###): a failing and a passing manifest each."""

from __future__ import annotations

from .cases import Case, rs

HEAD_CTR = "          containers:\n          - name: ray-head\n            image: rayproject/ray:2.46.0\n"
WORKER_CTR = "          containers:\n          - name: ray-worker\n            image: rayproject/ray:2.46.0\n"
PARAMS = "      rayStartParams: {}\n"
FT = "gcsFaultToleranceOptions: {redisAddress: 'redis:6379'}"
AUTOSCALE = "enableInTreeAutoscaling: true"
EXTRA_GROUP = ("    - groupName: small\n      minReplicas: 0\n      maxReplicas: 1\n      template:\n        spec:\n"
               "          containers:\n          - name: w\n            image: rayproject/ray:2.46.0\n")
SERVE_APPS = "    applications: []\n"
SERVE_9000 = "    http_options: {port: 9000}\n    applications: []\n"
PORT_9000 = "ports: [{containerPort: 9000, name: serve}]"
NETPOL_GATE = ("RayClusterNetworkPolicy=true",)
MTLS_GATE = ("RayClusterMTLS=true",)
HISTORY_GATE = ("RayClusterHistoryServer=true",)
COLLECTOR = ("historyServerOptions: {collectorOptions: {image: 'quay.io/kuberay/collector:v1.6.0', "
             "env: [{name: STORAGE_BACKEND, value: gcs}%s]}}")
INCREMENTAL = ("upgradeStrategy:\n  type: NewClusterWithIncrementalUpgrade\n  clusterUpgradeOptions: "
               "{gatewayClassName: istio, stepSizePercent: 10, intervalSeconds: 30, maxSurgePercent: 20}")

RS_CASES: dict[str, Case] = {
    "RS001": Case(fail=rs(name="a" * 48), ok=rs(name="a" * 47)),
    "RS002": Case(fail=rs(name="1svc"), ok=rs(name="svc1")),
    "RS003": Case(fail=rs(meta="annotations: {ray.io/initializing-timeout: '-5m'}"),
                  ok=rs(meta="annotations: {ray.io/initializing-timeout: 30m}")),
    "RS004": Case(fail=rs(cluster="authOptions: {mode: token, enableK8sTokenAuth: true}").replace("2.46.0", "2.55.0"),
                  ok=rs(cluster="authOptions: {mode: token}").replace("2.46.0", "2.55.0")),
    "RS005": Case(fail=rs().replace(HEAD_CTR, "          containers: []\n"), ok=rs()),
    "RS006": Case(fail=rs().replace(PARAMS, "      rayStartParams: {num-cpus: '1'}\n      resources: {CPU: '1'}\n", 1),
                  ok=rs().replace(PARAMS, "      rayStartParams: {}\n      resources: {CPU: '1'}\n", 1)),
    "RS007": Case(fail=rs().replace(PARAMS, "      rayStartParams: {labels: 'a=b'}\n", 1), ok=rs(head="labels: {tier: head}")),
    "RS008": Case(fail=rs().replace(WORKER_CTR, "          containers: []\n"), ok=rs()),
    "RS009": Case(fail=rs().replace("      minReplicas: 1\n", "      minReplicas: null\n"), ok=rs(), direct=True),
    "RS010": Case(fail=rs().replace("      minReplicas: 1\n      maxReplicas: 5\n", "      minReplicas: 3\n      maxReplicas: 1\n"),
                  ok=rs()),
    "RS011": Case(fail=rs(worker="idleTimeoutSeconds: 60"),
                  ok=rs(worker="idleTimeoutSeconds: 60", cluster=AUTOSCALE + "\nautoscalerOptions: {version: v2}")),
    "RS012": Case(fail=rs(worker="priority: 5"), ok=rs(worker="priority: 0")),
    "RS013": Case(fail=rs(meta="annotations: {ray.io/ft-enabled: 'true'}", cluster=FT), ok=rs(cluster=FT)),
    "RS014": Case(fail=rs(head_ctr="env: [{name: RAY_REDIS_ADDRESS, value: 'redis:6379'}]"),
                  ok=rs(head_ctr="env: [{name: RAY_ADDRESS, value: auto}]")),
    "RS015": Case(fail=rs(cluster=FT, head_ctr="env: [{name: REDIS_PASSWORD, value: x}]"), ok=rs(cluster=FT)),
    "RS016": Case(fail=rs(cluster="gcsFaultToleranceOptions: {redisAddress: 'redis:6379', storage: {size: 1Gi}}"),
                  ok=rs(cluster=FT)),
    "RS017": Case(fail=rs(head_ctr="env: [{name: REDIS_USERNAME, value: x}]"),
                  ok=rs(cluster="gcsFaultToleranceOptions: {redisAddress: 'redis:6379', redisUsername: {value: x}}")),
    "RS018": Case(fail=rs(cluster=AUTOSCALE, worker="suspend: true"), ok=rs(cluster=AUTOSCALE)),
    "RS019": Case(fail=rs(head_ctr="env: [{name: RAY_enable_autoscaler_v2, value: '1'}]"),
                  ok=rs(cluster=AUTOSCALE, head_ctr="env: [{name: RAY_enable_autoscaler_v2, value: '1'}]")),
    "RS020": Case(fail=rs(cluster=AUTOSCALE + "\nautoscalerOptions: {idleTimeoutSeconds: -1}"),
                  ok=rs(cluster=AUTOSCALE + "\nautoscalerOptions: {idleTimeoutSeconds: 60}")),
    "RS021": Case(fail=rs(cluster="historyServerOptions: {collectorOptions: {}}"), ok=rs()),
    "RS022": Case(fail=rs(cluster="authOptions: {mode: token}"),
                  ok=rs(cluster="authOptions: {mode: token}").replace("2.46.0", "2.52.0")),
    "RS023": Case(fail=rs(cluster="networkPolicy: {mode: DenyAll}"), ok=rs()),
    "RS024": Case(fail=rs(cluster="tlsOptions: {enabled: true}"), ok=rs()),
    "RS025": Case(fail=rs(head="headService: {metadata: {name: my-head}}"),
                  ok=rs(head="headService: {metadata: {labels: {a: b}}}")),
    "RS026": Case(fail=rs(spec="upgradeStrategy: {type: BlueGreen}"), ok=rs(spec="upgradeStrategy: {type: NewCluster}")),
    "RS027": Case(fail=rs(spec="rayClusterDeletionDelaySeconds: -1"), ok=rs(spec="rayClusterDeletionDelaySeconds: 0"),
                  direct=True),
    "RS028": Case(fail=rs(spec=INCREMENTAL), ok=rs(spec=INCREMENTAL, cluster=AUTOSCALE)),
    "RS029": Case(fail=rs(spec="managedBy: kueue.x-k8s.io/multikueue"), ok=rs(), live=rs()),
    "RS030": Case(fail=rs(cluster="upgradeStrategy: {type: Recreate}"), ok=rs()),
    "RS031": Case(fail=rs() + EXTRA_GROUP, ok=rs() + EXTRA_GROUP.replace("groupName: small", "groupName: large")),
    "RS032": Case(fail=rs(head_ctr="ports: [{containerPort: 6379, name: gcs}]"),
                  ok=rs(head_ctr="ports: [{containerPort: 6379, name: gcs}, {containerPort: 8000, name: serve}]")),
    "RS033": Case(fail=rs(cluster="suspend: true"), ok=rs(cluster="suspend: false")),
    "RS034": Case(fail=rs(spec="serviceUnhealthySecondThreshold: 900"), ok=rs()),
    "RS035": Case(fail=rs().replace("  serveConfigV2: |\n    applications: []\n", ""),
                  ok=rs().replace("    applications: []\n", "    applications:\n    - {name: a, import_path: 'm:app'}\n")),
    "RS036": Case(fail=rs().replace("    applications: []\n", "    applications: [\n"),
                  ok=rs().replace("    applications: []\n", "    applications:\n    - {name: a, import_path: 'x:app'}\n")),
    "RS037": Case(fail=rs(cluster="networkPolicy: {mode: DenyAllEgress, workerGroups: [{groupName: small, "
                          "ingressRules: [{from: [{podSelector: {}}]}]}]}"),
                  ok=rs(cluster="networkPolicy: {mode: DenyAll, workerGroups: [{groupName: small, "
                        "ingressRules: [{from: [{podSelector: {}}]}]}]}"), gates=NETPOL_GATE),
    "RS038": Case(fail=rs(cluster="tlsOptions: {enabled: true}", worker_ctr="env: [{name: RAY_TLS_SERVER_KEY, value: k}]"),
                  ok=rs(cluster="tlsOptions: {enabled: false}", worker_ctr="env: [{name: RAY_TLS_SERVER_KEY, value: k}]"),
                  gates=MTLS_GATE),
    "RS039": Case(fail=rs(cluster="historyServerOptions: {}"), ok=rs(cluster=COLLECTOR % ", {name: GCS_BUCKET, value: b}"),
                  gates=HISTORY_GATE),
    "RS040": Case(fail=rs(cluster=COLLECTOR % ""), ok=rs(cluster=COLLECTOR % ", {name: GCS_BUCKET, value: b}"),
                  gates=HISTORY_GATE),
    "RS041": Case(fail=rs(worker="numOfHosts: 0"), ok=rs(worker="numOfHosts: 1")),
    "RS042": Case(fail=rs().replace("      replicas: 1\n      minReplicas: 1\n", "      replicas: 9\n      minReplicas: 1\n"),
                  ok=rs()),
    "RS043": Case(fail=rs().replace(SERVE_APPS, SERVE_9000),
                  ok=rs(head_ctr=PORT_9000, worker_ctr=PORT_9000).replace(SERVE_APPS, SERVE_9000)),
}

# Kueue's webhook rules (KQ###) apply to RayServices with a queue label.
QUEUED = "labels: {kueue.x-k8s.io/queue-name: user-queue}"
ELASTIC = QUEUED + "\nannotations: {kueue.x-k8s.io/elastic-job: 'true'}"
_PRIO = "labels: {{kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/priority-class: {}}}"
_MANY_GROUPS = "".join(
    f"    - groupName: g{i}\n      replicas: 1\n      minReplicas: 1\n      maxReplicas: 1\n      rayStartParams: {{}}\n"
    f"      template:\n        spec:\n          containers:\n          - name: w\n            image: rayproject/ray:2.46.0\n"
    for i in range(17))

RS_CASES.update({
    "KQ001": Case(fail=rs(meta=QUEUED, cluster=AUTOSCALE), ok=rs(meta=ELASTIC, cluster=AUTOSCALE)),
    "KQ002": Case(fail=rs(meta=QUEUED) + _MANY_GROUPS, ok=rs(meta=QUEUED) + _MANY_GROUPS.split("    - groupName: g16")[0]),
    "KQ003": Case(fail=rs(meta=QUEUED).replace("groupName: small", "groupName: head"), ok=rs(meta=QUEUED)),
    # update rules: the live RayService is the old object (running: Kueue has not suspended it)
    "KQ004": Case(fail=rs(meta=QUEUED), ok=rs(meta=ELASTIC), live=rs(meta=ELASTIC)),
    "KQ005": Case(fail=rs(meta=QUEUED.replace("user-queue", "other-queue")), ok=rs(meta=QUEUED), live=rs(meta=QUEUED)),
    "KQ006": Case(fail=rs(meta=QUEUED), ok=rs(meta=_PRIO.format("low")), live=rs(meta=_PRIO.format("high"))),
    "KQ012": Case(fail=rs(meta=QUEUED.replace("user-queue", "User_Queue")), ok=rs(meta=QUEUED)),
    "KQ013": Case(fail=rs(meta=QUEUED.replace("}", ", kueue.x-k8s.io/max-exec-time-seconds: '1h'}")),
                  ok=rs(meta=QUEUED.replace("}", ", kueue.x-k8s.io/max-exec-time-seconds: '3600'}"))),
})


def _cq(resources: str, covered: str = "[cpu, memory]") -> str:
    """A ClusterQueue (kueue.x-k8s.io/v1beta2) with one flavor holding ``resources``."""
    return ("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: cq\nspec:\n"
            f"  namespaceSelector: {{}}\n  resourceGroups:\n  - coveredResources: {covered}\n    flavors:\n"
            f"    - name: default-flavor\n      resources:\n{resources}")


_CQ_OK = "      - {name: cpu, nominalQuota: 9}\n      - {name: memory, nominalQuota: 9Gi}\n"

RS_CASES.update({
    # Kueue's queue objects (kinds/kueue/queue_webhooks.py), linted with --strict: they are checked, not IN002
    "KQ007": Case(fail=_cq(_CQ_OK.replace("9Gi", "9Gb")), ok=_cq(_CQ_OK), strict=True),
    "KQ008": Case(fail=_cq(_CQ_OK.replace("nominalQuota: 9}", "nominalQuota: -9}")), ok=_cq(_CQ_OK), strict=True),
    "KQ009": Case(fail=_cq(_CQ_OK.replace("name: memory", "name: cpu")), ok=_cq(_CQ_OK), strict=True),
    "KQ010": Case(fail=_cq(_CQ_OK + "      - {name: nvidia.com/gpu, nominalQuota: 8}\n"), ok=_cq(_CQ_OK), strict=True),
    "KQ011": Case(fail=_cq(_CQ_OK.replace("nominalQuota: 9}", "nominalQuota: 9, borrowingLimit: 4}")),
                  ok=_cq(_CQ_OK.replace("nominalQuota: 9}", "nominalQuota: 9, borrowingLimit: 4}")).replace(
                      "spec:\n", "spec:\n  cohortName: team-a\n"), strict=True),
    "KQ014": Case(fail=_cq(_CQ_OK) + "  - coveredResources: [cpu]\n    flavors:\n    - name: other-flavor\n"
                  "      resources:\n      - {name: cpu, nominalQuota: 1}\n",
                  ok=_cq(_CQ_OK) + "  - coveredResources: [nvidia.com/gpu]\n    flavors:\n    - name: other-flavor\n"
                  "      resources:\n      - {name: nvidia.com/gpu, nominalQuota: 1}\n", strict=True),
    "KQ015": Case(fail=_cq(_CQ_OK.replace("nominalQuota: 9}", "nominalQuota: 9, lendingLimit: 12}")).replace(
                      "spec:\n", "spec:\n  cohortName: team-a\n"),
                  ok=_cq(_CQ_OK.replace("nominalQuota: 9}", "nominalQuota: 9, lendingLimit: 4}")).replace(
                      "spec:\n", "spec:\n  cohortName: team-a\n"), strict=True),
})
