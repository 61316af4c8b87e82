"""Per-rule fixtures: for every rule a manifest that fails it and one that passes
(and, for update rules, the live object). Built from small snippets."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    fail: str
    ok: str
    live: str | None = None
    strict: bool = False
    #: the schema rejects the failing manifest first (as the API server would), so the
    #: rule is exercised by calling the kind's ``validate`` directly
    direct: bool = False
    #: a ``.rolloutctl.yaml`` for the run (its findings are reported at that file)
    config: str | None = None
    #: another file, linted before the fixture in the same run
    before: str | None = None
    #: ``--feature-gate`` items both runs are linted with (a rule behind a KubeRay gate)
    gates: tuple[str, ...] = ()


def _ind(text: str, n: int) -> str:
    return textwrap.indent(textwrap.dedent(text).strip("\n"), " " * n) + "\n" if text.strip() else ""


def clique(name: str, role: str | None = None, replicas: int = 1, spec: str = "", top: str = "",
           pod: str = "") -> str:
    """One clique item (indented for ``cliques:`` at 4 spaces)."""
    return (f"    - name: {name}\n" + _ind(top, 6) + "      spec:\n"
            f"        roleName: {role or name}\n        replicas: {replicas}\n" + _ind(spec, 8)
            + "        podSpec:\n" + _ind(pod, 10)
            + "          containers:\n          - name: main\n            image: busybox\n")


def pcs(cliques: str | None = None, *, name: str = "inf", replicas: int = 1, spec: str = "", template: str = "",
        groups: str = "", meta: str = "") -> str:
    cliques = cliques if cliques is not None else clique("worker")
    body = (f"apiVersion: grove.io/v1alpha1\nkind: PodCliqueSet\nmetadata:\n  name: {name}\n" + _ind(meta, 2)
            + f"spec:\n  replicas: {replicas}\n" + _ind(spec, 2) + "  template:\n" + _ind(template, 4)
            + "    cliques:\n" + cliques)
    if groups:
        body += "    podCliqueScalingGroups:\n" + _ind(groups, 4)
    return body


def rs(name: str = "svc", spec: str = "", cluster: str = "", head: str = "", worker: str = "", meta: str = "",
       head_pod: str = "", head_ctr: str = "", worker_ctr: str = "", workers: bool = True) -> str:
    out = (f"apiVersion: ray.io/v1\nkind: RayService\nmetadata:\n  name: {name}\n" + _ind(meta, 2)
           + "spec:\n  serveConfigV2: |\n    applications: []\n" + _ind(spec, 2)
           + "  rayClusterConfig:\n    rayVersion: '2.46.0'\n" + _ind(cluster, 4)
           + "    headGroupSpec:\n      rayStartParams: {}\n" + _ind(head, 6)
           + "      template:\n        spec:\n" + _ind(head_pod, 10)
           + "          containers:\n          - name: ray-head\n            image: rayproject/ray:2.46.0\n"
           + _ind(head_ctr, 12))
    if workers:
        out += ("    workerGroupSpecs:\n    - groupName: small\n      replicas: 1\n      minReplicas: 1\n"
                "      maxReplicas: 5\n      rayStartParams: {}\n" + _ind(worker, 6)
                + "      template:\n        spec:\n          containers:\n          - name: ray-worker\n"
                "            image: rayproject/ray:2.46.0\n" + _ind(worker_ctr, 12))
    return out


EXPLICIT = "cliqueStartupType: CliqueStartupTypeExplicit"
TWO = clique("leader") + clique("worker")

CASES: dict[str, Case] = {
    # ---------------------------------------------------------------- input / schema / suppression
    "IN001": Case(fail=pcs() + "  bad: [unclosed\n", ok=pcs()),
    "IN002": Case(fail="apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n", ok=pcs(), strict=True),
    "SC001": Case(fail=pcs(spec="updateStrategi:\n  type: OnDelete"), ok=pcs(spec="updateStrategy:\n  type: OnDelete")),
    "SC002": Case(fail=pcs().replace("        podSpec:\n          containers:\n          - name: main\n            image: busybox\n",
                                     "        podSpec: {}\n"), ok=pcs()),
    "SC003": Case(fail=pcs().replace("replicas: 1\n  template", "replicas: '1'\n  template"), ok=pcs()),
    "SC004": Case(fail=pcs(template="cliqueStartupType: InOrder"),
                  ok=pcs(template="cliqueStartupType: CliqueStartupTypeInOrder")),
    "SC005": Case(fail=pcs().replace("grove.io/v1alpha1", "grove.io/v1beta9"), ok=pcs()),
    "SC006": Case(fail=rs(head_ctr="resources: {requests: {nvidia.com/gpu: '0.5'}, limits: {nvidia.com/gpu: '0.5'}}"),
                  ok=rs(head_ctr="resources: {requests: {nvidia.com/gpu: '1'}, limits: {nvidia.com/gpu: '1'}}")),
    "SC015": Case(fail=rs().replace("image: rayproject/ray:2.46.0\n", "image: ''\n", 1), ok=rs()),
    "SC016": Case(fail=pcs().replace("          containers:\n          - name: main\n            image: busybox\n",
                                     "          containers: []\n"), ok=pcs()),
    "SC017": Case(fail=pcs().replace("- name: main\n", "- name: Main_Ctr\n"), ok=pcs()),
    "SC018": Case(fail=pcs(clique("worker", pod="initContainers:\n- name: main\n  image: busybox")), ok=pcs()),
    "SC019": Case(fail=pcs(clique("leader") + clique("worker", pod="volumes:\n- {name: pod-info-vol, emptyDir: {}}"),
                           template="cliqueStartupType: CliqueStartupTypeInOrder"),
                  ok=pcs(clique("leader") + clique("worker", pod="volumes:\n- {name: info, emptyDir: {}}"),
                         template="cliqueStartupType: CliqueStartupTypeInOrder")),
    "SC007": Case(fail=pcs().replace("  name: inf\n", "  generateName: Inf_\n"),
                  ok=pcs().replace("  name: inf\n", "  generateName: inf-\n")),
    "CF001": Case(fail=pcs(), ok=pcs(),
                  config="ignore:\n  - {rule: GV301, reason: intended, expires: 2020-01-31}\n"),
    # admission (rolloutctl/admit): CRD spec.versions[].deprecationWarning; kubectl apply of
    # two copies of one object; apimachinery ValidateObjectMetaAccessor/ValidateLabels
    "SC008": Case(fail=rs().replace("ray.io/v1\n", "ray.io/v1alpha1\n", 1), ok=rs()),
    "SC009": Case(fail=pcs() + "---\n" + pcs().replace("  name: inf\n", "  name: inf\n  namespace: default\n", 1),
                  ok=pcs() + "---\n" + pcs(name="inf2")),
    "SC011": Case(fail=pcs(template="topologyConstraint: {topologyName: t}"),
                  ok=pcs(template="topologyConstraint: {topologyName: t, pack: {required: rack}}")),
    # the same object in two files: a warning in lint (variants), an error for plan/diff
    "SC013": Case(fail=pcs(), ok=pcs(name="inf2"), before=pcs()),
    # apiextensions-apiserver listtype.ValidateListSetsAndMaps: env is a list-type map keyed by name
    "SC014": Case(fail=rs(head_ctr="env:\n- {name: A, value: '1'}\n- {name: A, value: '2'}\n"),
                  ok=rs(head_ctr="env:\n- {name: A, value: '1'}\n- {name: B, value: '2'}\n")),
    "SC010": Case(fail=pcs(meta="labels:\n  team: " + "x" * 64), ok=pcs(meta="labels:\n  team: " + "x" * 63)),
    "SP001": Case(fail=pcs(TWO.replace("name: worker", "name: pworker") + clique("worker"),
                           meta="annotations:\n  rolloutctl.dev/ignore: GV301"),
                  ok=pcs(meta="annotations:\n  rolloutctl.dev/ignore: 'GV301: intended'")),
    "SP002": Case(fail=pcs(meta="annotations:\n  rolloutctl.dev/ignore: 'GV999: typo'"),
                  ok=pcs(meta="annotations:\n  rolloutctl.dev/ignore: 'GV301: intended'")),
    # ---------------------------------------------------------------- Grove create rules
    "GV001": Case(fail=pcs(name="My_Inference"), ok=pcs(name="my-inference"), direct=True),
    "GV002": Case(fail=pcs(replicas=-1), ok=pcs(replicas=0)),
    "GV003": Case(fail=pcs("").replace("    cliques:\n", "    cliques: []\n"), ok=pcs()),
    "GV004": Case(fail=pcs(clique("prefill_worker")), ok=pcs(clique("prefill-worker"))),
    # 23 + 23 = 46 > 45; 22 + 23 = 45
    "GV005": Case(fail=pcs(clique("prefill-worker-abcdefgh"), name="inference-service-abcde"),
                  ok=pcs(clique("prefill-worker-abcdefgh"), name="inference-service-abcd")),
    "GV006": Case(fail=pcs(clique("worker", top="labels:\n  tier: gpu workers")),
                  ok=pcs(clique("worker", top="labels:\n  tier: gpu-workers"))),
    "GV007": Case(fail=pcs(clique("worker") + clique("worker", role="other")), ok=pcs(TWO), direct=True),
    "GV008": Case(fail=pcs(clique("leader", role="w") + clique("worker", role="w")), ok=pcs(TWO)),
    "GV009": Case(fail=pcs(clique("leader", pod="schedulerName: kai-scheduler") + clique("worker")),
                  ok=pcs(clique("leader", pod="schedulerName: kai-scheduler")
                         + clique("worker", pod="schedulerName: kai-scheduler"),
                         meta="labels: {kai.scheduler/queue: team-a}")),
    "GV010": Case(fail=pcs(clique("worker", replicas=2, spec="minAvailable: 3")),
                  ok=pcs(clique("worker", replicas=3, spec="minAvailable: 2"))),
    "GV011": Case(fail=pcs(clique("worker", spec="startsAfter: [worker]"), template=EXPLICIT),
                  ok=pcs(clique("leader") + clique("worker", spec="startsAfter: [leader]"), template=EXPLICIT)),
    "GV012": Case(fail=pcs(clique("worker", spec="startsAfter: [leader]"), template=EXPLICIT),
                  ok=pcs(clique("leader") + clique("worker", spec="startsAfter: [leader]"), template=EXPLICIT)),
    "GV013": Case(fail=pcs(clique("a", spec="startsAfter: [b]") + clique("b", spec="startsAfter: [a]"), template=EXPLICIT),
                  ok=pcs(clique("a") + clique("b", spec="startsAfter: [a]"), template=EXPLICIT)),
    "GV014": Case(fail=pcs(clique("worker", replicas=4, spec="minAvailable: 2\nautoScalingConfig: {minReplicas: 1, maxReplicas: 3}")),
                  ok=pcs(clique("worker", replicas=4, spec="minAvailable: 2\nautoScalingConfig: {minReplicas: 2, maxReplicas: 8}"))),
    "GV015": Case(fail=pcs(clique("worker", pod="nodeName: gpu-node-1")),
                  ok=pcs(clique("worker", pod="nodeSelector: {kubernetes.io/hostname: gpu-node-1}"))),
    "GV016": Case(fail=pcs(clique("worker", pod="restartPolicy: Never")), ok=pcs()),
    "GV017": Case(fail=pcs(clique("worker").replace("image: busybox\n", "image: busybox\n            env:\n"
                                                     "            - {name: 1ST, value: a}\n")),
                  ok=pcs(clique("worker").replace("image: busybox\n", "image: busybox\n            env:\n"
                                                   "            - {name: FIRST, value: a}\n"))),
    "GV018": Case(fail=pcs(TWO, groups="- {name: Prefill, cliqueNames: [worker]}"),
                  ok=pcs(TWO, groups="- {name: prefill, cliqueNames: [worker]}")),
    "GV019": Case(fail=pcs(TWO, groups="- {name: prefill, cliqueNames: [worker, pworker]}"),
                  ok=pcs(TWO, groups="- {name: prefill, cliqueNames: [worker]}")),
    "GV020": Case(fail=pcs(TWO, groups="- {name: prefill, cliqueNames: [worker]}\n- {name: decode, cliqueNames: [worker]}"),
                  ok=pcs(TWO, groups="- {name: prefill, cliqueNames: [worker]}\n- {name: decode, cliqueNames: [leader]}")),
    "GV021": Case(fail=pcs(TWO, groups="- {name: prefill, cliqueNames: [worker], replicas: 2, minAvailable: 3}"),
                  ok=pcs(TWO, groups="- {name: prefill, cliqueNames: [worker], replicas: 3, minAvailable: 2}")),
    "GV022": Case(fail=pcs(clique("leader") + clique("worker", spec="autoScalingConfig: {maxReplicas: 4}"),
                           groups="- {name: prefill, cliqueNames: [worker]}"),
                  ok=pcs(TWO, groups="- {name: prefill, cliqueNames: [worker], scaleConfig: {maxReplicas: 4}}")),
    "GV023": Case(fail=pcs(template="terminationDelay: 0s"), ok=pcs(template="terminationDelay: 30m")),
    "GV024": Case(fail=pcs(template="resourceClaimTemplates:\n- name: gpus\n  templateSpec: {spec: {devices: {requests: []}}}"),
                  ok=pcs(template="resourceClaimTemplates:\n- name: gpus\n  templateSpec: {spec: {devices: {requests: [{name: gpu}]}}}")),
    "GV025": Case(fail=pcs(template="resourceSharing:\n- {name: gpus, scope: AllReplicas, filter: {childCliqueNames: [nosuch]}}"),
                  ok=pcs(template="resourceSharing:\n- {name: gpus, scope: AllReplicas, filter: {childCliqueNames: [worker]}}")),
    "GV026": Case(fail=pcs(clique("worker", top="topologyConstraint: {topologyName: tb, pack: {required: rack}}"),
                           template="topologyConstraint: {topologyName: ta, pack: {required: zone}}"),
                  ok=pcs(clique("worker", top="topologyConstraint: {pack: {required: rack}}"),
                         template="topologyConstraint: {topologyName: ta, pack: {required: zone}}")),
    # the CRD's own CEL rule (admission, SC011) refuses packDomain on create before the webhook
    "GV027": Case(fail=pcs(template="topologyConstraint: {topologyName: ta, packDomain: rack}"),
                  ok=pcs(template="topologyConstraint: {topologyName: ta, pack: {required: rack}}"), direct=True),
    "GV028": Case(fail=pcs(clique("worker", top="rollingUpdate: {maxUnavailable: 1}"), spec="updateStrategy: {type: OnDelete}"),
                  ok=pcs(clique("worker", top="rollingUpdate: {maxUnavailable: 1, progressDeadline: 10m}"))),
    # scheduler backends (handler.go validatePodCliqueSetWithBackend)
    "GV029": Case(fail=pcs(clique("worker", pod="schedulerName: kai-scheduler")),
                  ok=pcs(clique("worker", pod="schedulerName: kai-scheduler", top="labels: {kai.scheduler/queue: a}"))),
    "GV030": Case(fail=pcs(clique("worker", pod="schedulerName: volcano"),
                           template="topologyConstraint: {topologyName: ta, pack: {required: rack}}"),
                  ok=pcs(clique("worker", pod="schedulerName: volcano"))),
    "GV031": Case(fail=pcs(clique("worker", pod="schedulerName: volcano",
                                  top="annotations: {scheduling.grove.io/volcano-queue: Team_A}")),
                  ok=pcs(clique("worker", pod="schedulerName: volcano",
                                top="annotations: {scheduling.grove.io/volcano-queue: team-a}"))),
    "GV032": Case(fail=pcs(clique("worker", pod="schedulerName: lpx-scheduler",
                                  top="topologyConstraint: {topologyName: ta, pack: {required: rack}}")),
                  ok=pcs(clique("worker", pod="schedulerName: lpx-scheduler"))),
    # ---------------------------------------------------------------- Grove update rules (with live)
    "GV101": Case(fail=pcs(TWO + clique("router")), ok=pcs(TWO), live=pcs(TWO)),
    "GV102": Case(fail=pcs(clique("worker", replicas=4, spec="minAvailable: 3")),
                  ok=pcs(clique("worker", replicas=5, spec="minAvailable: 2")),
                  live=pcs(clique("worker", replicas=4, spec="minAvailable: 2"))),
    "GV103": Case(fail=pcs(template=EXPLICIT), ok=pcs(), live=pcs()),
    "GV104": Case(fail=pcs(TWO, groups="- {name: prefill, cliqueNames: [worker], replicas: 2, minAvailable: 2}"),
                  ok=pcs(TWO, groups="- {name: prefill, cliqueNames: [worker], replicas: 3, minAvailable: 1}"),
                  live=pcs(TWO, groups="- {name: prefill, cliqueNames: [worker], replicas: 2, minAvailable: 1}")),
    "GV105": Case(fail=pcs(template="topologyConstraint: {topologyName: ta, pack: {required: zone}}"),
                  ok=pcs(template="topologyConstraint: {topologyName: ta, pack: {required: rack}}"),
                  live=pcs(template="topologyConstraint: {topologyName: ta, pack: {required: rack}}")),
    "GV033": Case(fail=pcs(clique("worker", top="annotations: {grove.io/mnnvl-group: nvl-a}")),
                  ok=pcs(clique("worker", top="annotations: {grove.io/mnnvl-group: none}"))),
    "GV106": Case(fail=pcs(clique("worker", top="annotations: {grove.io/mnnvl-group: none}")),
                  ok=pcs(clique("worker", top="annotations: {team: serving}")), live=pcs()),
    # ---------------------------------------------------------------- proposed design
    "GV201": Case(fail=pcs(spec="updateStrategy: {type: ReplicaRecreate}"), ok=pcs(spec="updateStrategy: {type: RollingRecreate}")),
    "GV202": Case(fail=pcs(clique("worker", top="updateStrategy: {maxUnavailable: -1}")),
                  ok=pcs(clique("worker", top="updateStrategy: {maxUnavailable: 1}"))),
    "GV203": Case(fail=pcs(clique("worker", replicas=2, top="updateStrategy: {maxUnavailable: 0, maxSurge: '0%'}")),
                  ok=pcs(clique("worker", replicas=2, top="updateStrategy: {maxUnavailable: 0, maxSurge: 1}"))),
    "GV204": Case(fail=pcs(clique("worker", replicas=2, top="updateStrategy: {maxUnavailable: 3}")),
                  ok=pcs(clique("worker", replicas=2, top="updateStrategy: {maxUnavailable: 2}"))),
    "GV205": Case(fail=pcs(spec="updateStrategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1}}"),
                  ok=pcs(spec="updateStrategy: {type: ReplicaRecreate, rollingUpdate: {maxSurge: 1}}")),
    "GV206": Case(fail=pcs(clique("worker", top="updateStrategy: {maxSurge: 1}"), spec="updateStrategy: {type: ReplicaRecreate}"),
                  ok=pcs(clique("worker", top="updateStrategy: {maxSurge: 1}"), spec="updateStrategy: {type: RollingUpdate}")),
    # ---------------------------------------------------------------- hazards
    "GV301": Case(fail=pcs(clique("worker") + clique("pworker")), ok=pcs(clique("pworker") + clique("worker"))),
    "GV302": Case(fail=pcs(TWO, groups="- {name: prefill, cliqueNames: [worker], replicas: 4, scaleConfig: {maxReplicas: 2}}"),
                  ok=pcs(TWO, groups="- {name: prefill, cliqueNames: [worker], replicas: 4, "
                                     "scaleConfig: {minReplicas: 2, maxReplicas: 4}}")),
}
