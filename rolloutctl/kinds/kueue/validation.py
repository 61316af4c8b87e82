"""Kueue's admission rules for a RayService it manages (one with the
``kueue.x-k8s.io/queue-name`` label): the RayService webhook delegates to the
RayCluster checks in ``pkg/controller/jobs/raycluster/common.go`` ``ValidateCreate``.

``validate`` is what ``plan --kueue`` (before planning) and ``lint`` (for RayServices
with a queue label) both run: one place per rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.model import Finding, Obj
from ...core.records import record

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
ELASTIC_ANNOTATION = "kueue.x-k8s.io/elastic-job"
MAX_POD_SETS = 18


@record(frozen=True)
class Rule:
    id: str
    name: str
    severity: str
    upstream: str
    summary: str
    bad: str = ""
    good: str = ""
    remediation: str = ""


R_AUTOSCALING = Rule(
    "KQ001", "autoscaling-needs-elastic-job", "error", "kueue:pkg/controller/jobs/raycluster/common.go#ValidateCreate",
    "A Kueue-managed RayService may use the in-tree autoscaler only with elastic workload slicing",
    "metadata: {labels: {kueue.x-k8s.io/queue-name: q}}\nspec: {rayClusterConfig: {enableInTreeAutoscaling: true}}",
    "metadata: {labels: {kueue.x-k8s.io/queue-name: q}, annotations: {kueue.x-k8s.io/elastic-job: 'true'}}\n"
    "spec: {rayClusterConfig: {enableInTreeAutoscaling: true}}",
    "Add the annotation kueue.x-k8s.io/elastic-job: \"true\", or turn the autoscaler off.")
R_POD_SETS = Rule(
    "KQ002", "max-pod-sets", "error", "kueue:pkg/controller/jobframework/constants.go#MaxPodSets",
    "A Kueue Workload holds at most 18 pod sets: the head and 17 worker groups",
    "18 workerGroupSpecs under a queue label", "at most 17 workerGroupSpecs",
    "Merge worker groups, or run the service outside Kueue.")
R_HEAD_NAME = Rule(
    "KQ003", "head-group-name-reserved", "error", "kueue:pkg/controller/jobs/raycluster/common.go#ValidateCreate",
    "The worker group name \"head\" is reserved for the head pod set of the Workload",
    "workerGroupSpecs: [{groupName: head}]", "workerGroupSpecs: [{groupName: gpu}]",
    "Rename the worker group.")

#: every rule of this module (``rolloutctl rules``), as data
RULES: tuple[Rule, ...] = (R_AUTOSCALING, R_POD_SETS, R_HEAD_NAME)


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def validate(obj: Obj, old: Obj | None = None) -> list[Finding]:
    """Kueue's RayService validating webhook, applied when the RayService has a
    queue label (``rayservice_webhook.go`` → ``raycluster/common.go`` ``ValidateCreate``)."""
    if obj.kind != "RayService" or not obj.labels.get(QUEUE_LABEL):
        return []
    out: list[Finding] = []
    rcc = _m(obj.spec.get("rayClusterConfig"))
    groups = rcc.get("workerGroupSpecs") if isinstance(rcc.get("workerGroupSpecs"), list) else []

    def f(rule: Rule, path: tuple, msg: str, dotted: str) -> None:
        out.append(Finding(rule.id, rule.severity, obj.file, obj.line_of(*path), msg, dotted, obj.ref))

    if rcc.get("enableInTreeAutoscaling") is True and obj.annotations.get(ELASTIC_ANNOTATION) != "true":
        f(R_AUTOSCALING, ("spec", "rayClusterConfig", "enableInTreeAutoscaling"),
          f"a Kueue-managed RayService may autoscale only with workload slicing (annotation "
          f"{ELASTIC_ANNOTATION}: \"true\") ({R_AUTOSCALING.upstream})",
          "spec.rayClusterConfig.enableInTreeAutoscaling")
    if len(groups) + 1 > MAX_POD_SETS:
        f(R_POD_SETS, ("spec", "rayClusterConfig", "workerGroupSpecs"),
          f"{len(groups) + 1} pod sets: a Kueue Workload holds at most {MAX_POD_SETS} (the head and "
          f"{MAX_POD_SETS - 1} worker groups) ({R_POD_SETS.upstream})", "spec.rayClusterConfig.workerGroupSpecs")
    for i, g in enumerate(groups):
        if _m(g).get("groupName") == "head":
            f(R_HEAD_NAME, ("spec", "rayClusterConfig", "workerGroupSpecs", i, "groupName"),
              f"the worker group name \"head\" is reserved for the head pod set ({R_HEAD_NAME.upstream})",
              "spec.rayClusterConfig.workerGroupSpecs[groupName=head].groupName")
    return out
