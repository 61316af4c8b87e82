"""Kueue's admission rules for a RayService it manages (one with the
``kueue.x-k8s.io/queue-name`` label): the RayService webhook delegates to the
RayCluster checks in ``pkg/controller/jobs/raycluster/common.go`` ``ValidateCreate``, after
the checks every job gets (``pkg/controller/jobframework/validation.go``
``ValidateJobOnCreate``).

``validate`` is what ``plan --kueue`` (before planning) and ``lint`` (for RayServices
with a queue label) both run: one place per rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...core.go_strconv import atoi
from ...core.k8s_syntax import is_dns1123_subdomain
from ...core.model import Finding, Obj, Warning
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

_UPDATE = "kueue:pkg/controller/jobframework/validation.go#"
R_QUEUE_NAME = Rule(
    "KQ012", "queue-name-is-an-object-name", "error", _UPDATE + "ValidateQueueName",
    "The kueue.x-k8s.io/queue-name label names a LocalQueue: its value must be a DNS-1123 subdomain (lowercase)",
    "metadata: {labels: {kueue.x-k8s.io/queue-name: User_Queue}}",
    "metadata: {labels: {kueue.x-k8s.io/queue-name: user-queue}}",
    "Use the LocalQueue's name, which is a lowercase DNS-1123 subdomain.")
R_MAX_EXEC_TIME = Rule(
    "KQ013", "max-exec-time-positive", "error", _UPDATE + "validateCreateForMaxExecTime",
    "The kueue.x-k8s.io/max-exec-time-seconds label must be a whole number of seconds greater than 0",
    "metadata: {labels: {kueue.x-k8s.io/queue-name: q, kueue.x-k8s.io/max-exec-time-seconds: '0'}}",
    "metadata: {labels: {kueue.x-k8s.io/queue-name: q, kueue.x-k8s.io/max-exec-time-seconds: '3600'}}",
    "Give the limit in seconds, as a positive integer, or leave the label out.")
R_ELASTIC_IMMUTABLE = Rule(
    "KQ004", "elastic-job-annotation-immutable", "error", _UPDATE + "validatedUpdateForEnabledWorkloadSlice",
    "Whether a Kueue-managed RayService is elastic (annotation kueue.x-k8s.io/elastic-job: \"true\") cannot change "
    "on update",
    "old: {annotations: {kueue.x-k8s.io/elastic-job: 'true'}}\nnew: {annotations: {}}",
    "keep the annotation as it was",
    "Keep the annotation, or delete the RayService and create it again with the new setting.")
R_QUEUE_IMMUTABLE = Rule(
    "KQ005", "queue-name-immutable-while-running", "error", _UPDATE + "validateUpdateForQueueName",
    "The kueue.x-k8s.io/queue-name label of a Kueue-managed RayService can change only while Kueue holds it suspended",
    "old: {labels: {kueue.x-k8s.io/queue-name: a}}\nnew: {labels: {kueue.x-k8s.io/queue-name: b}}  # running",
    "change the queue only while the Workload is not admitted",
    "Keep the queue name, or delete the RayService and create it in the new queue.")
R_PRIORITY_CLASS = Rule(
    "KQ006", "priority-class-label-update", "error", _UPDATE + "ValidateUpdateForWorkloadPriorityClassName",
    "The kueue.x-k8s.io/priority-class label cannot be added to a running Kueue-managed RayService, nor ever removed",
    "old: {labels: {kueue.x-k8s.io/priority-class: high}}\nnew: {labels: {}}",
    "keep the label (it may be changed to another class)",
    "Keep the label, or delete the RayService and create it again.")

#: every rule of this module (``rolloutctl rules``), as data
RULES: tuple[Rule, ...] = (R_AUTOSCALING, R_POD_SETS, R_HEAD_NAME, R_ELASTIC_IMMUTABLE, R_QUEUE_IMMUTABLE,
                           R_PRIORITY_CLASS, R_QUEUE_NAME, R_MAX_EXEC_TIME)
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
MAX_EXEC_TIME_LABEL = "kueue.x-k8s.io/max-exec-time-seconds"


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def _suspended(obj: Obj, old: Obj | None, mode: str) -> bool:
    """``IsSuspended`` of the RayService as the update would store it: (top-level, POC)
    ``spec.suspend``, else ``rayClusterConfig.suspend``. A field the desired manifest does
    not set keeps its stored value (Kueue's writes), read from the observed RayService;
    when neither sets it the RayService is taken as admitted and running."""
    def field(o: Obj) -> Any:
        return o.spec.get("suspend") if mode == "top-level" else _m(o.spec.get("rayClusterConfig")).get("suspend")
    v = field(obj)
    if v is None and old is not None:
        v = field(old)
    return v is True


def validate_update(obj: Obj, old: Obj, mode: str, queues: Sequence[Obj] = ()) -> list[Finding]:
    """``rayservice_webhook.go`` ``ValidateUpdate`` → ``jobframework.ValidateJobOnUpdate``
    (validation.go), when the new or (gate ``ValidateRayAndSparkJobUpdates``, beta, on) the
    old RayService has a queue label: the elastic annotation's enabled-ness is immutable
    (``validatedUpdateForEnabledWorkloadSlice``); the queue label is immutable while the job
    is not suspended (``validateUpdateForQueueName``); the priority-class label cannot be
    added while not suspended nor ever removed (``ValidateUpdateForWorkloadPriorityClassName``).
    Not run under the legacy model (no RayService integration)."""
    if obj.kind != "RayService" or old.kind != "RayService" or mode == "legacy":
        return []
    if not obj.labels.get(QUEUE_LABEL) and not old.labels.get(QUEUE_LABEL):
        return []
    out: list[Finding] = []
    suspended = _suspended(obj, old, mode)
    state = "suspended by Kueue" if suspended else "running (its Workload admitted)"

    def f(rule: Rule, path: tuple, msg: str, dotted: str) -> None:
        out.append(Finding(rule.id, rule.severity, obj.file, obj.line_of(*path) or obj.line_of("metadata"),
                           msg, dotted, obj.ref))

    was, now = old.annotations.get(ELASTIC_ANNOTATION) == "true", obj.annotations.get(ELASTIC_ANNOTATION) == "true"
    if was != now:
        f(R_ELASTIC_IMMUTABLE, ("metadata", "annotations"),
          f"annotation {ELASTIC_ANNOTATION} would turn workload slicing {'on' if now else 'off'}: it is immutable "
          f"once the RayService is created ({R_ELASTIC_IMMUTABLE.upstream})",
          f"metadata.annotations[{ELASTIC_ANNOTATION}]")
    q_old, q_new = str(old.labels.get(QUEUE_LABEL) or ""), str(obj.labels.get(QUEUE_LABEL) or "")
    if not suspended and q_old != q_new:
        f(R_QUEUE_IMMUTABLE, ("metadata", "labels"),
          f"label {QUEUE_LABEL} {q_old or '(none)'!s} -> {q_new or '(none)'!s}: immutable while the RayService is "
          f"{state} ({R_QUEUE_IMMUTABLE.upstream})", f"metadata.labels[{QUEUE_LABEL}]")
    elif q_old and not q_new and any(q.kind == "LocalQueue" and q.name == "default" and q.namespace == obj.namespace
                                     for q in queues):
        f(R_QUEUE_IMMUTABLE, ("metadata", "labels"),
          f"label {QUEUE_LABEL} {q_old} -> (none): queue-name must not be empty in namespace with default queue "
          f"(LocalQueue default in {obj.namespace}; {R_QUEUE_IMMUTABLE.upstream})", f"metadata.labels[{QUEUE_LABEL}]")
    p_old, p_new = old.labels.get(PRIORITY_LABEL), obj.labels.get(PRIORITY_LABEL)
    if not p_old and p_new and not suspended:
        f(R_PRIORITY_CLASS, ("metadata", "labels"),
          f"label {PRIORITY_LABEL} cannot be added while the RayService is {state} ({R_PRIORITY_CLASS.upstream})",
          f"metadata.labels[{PRIORITY_LABEL}]")
    elif p_old and not p_new:
        f(R_PRIORITY_CLASS, ("metadata", "labels"),
          f"label {PRIORITY_LABEL} ({p_old}) cannot be removed ({R_PRIORITY_CLASS.upstream})",
          f"metadata.labels[{PRIORITY_LABEL}]")
    return out


def unselected(obj: Obj) -> Warning | None:
    """A plan made without ``--kueue`` of a RayService with a queue label models KubeRay
    alone, while a cluster whose Kueue manages RayServices or RayClusters holds the
    service back, suspended, until a ClusterQueue admits its Workload (the webhooks'
    ``Default`` suspends the RayService's clusters, or under the top-level proposal the
    RayService; KubeRay copies the RayService's labels onto its RayClusters): say so,
    and how to plan both.

    Upstream: kueue pkg/controller/jobs/rayservice/rayservice_webhook.go and
    pkg/controller/jobs/raycluster/raycluster_webhook.go (``Default``: ``Suspend()``);
    kuberay ray-operator/controllers/ray/rayservice_controller.go
    (``constructRayClusterForRayService`` copies the labels)."""
    queue = obj.labels.get(QUEUE_LABEL) if obj.kind == "RayService" else None
    if not queue:
        return None
    return Warning("KueueNotModelled", f"the RayService has the queue label {QUEUE_LABEL}: {queue}; where Kueue "
                   "manages RayServices or RayClusters, it holds the service back, suspended, until a "
                   "ClusterQueue admits it, and this prediction models KubeRay alone; plan --kueue nested, "
                   "legacy or top-level (the Kueue integration models, docs/kueue.md) models both operators",
                   f"metadata.labels[{QUEUE_LABEL}]")


def validate_job_on_create(obj: Obj, f: Any) -> None:
    """``jobframework.ValidateJobOnCreate`` (validation.go), which ``rayservice_webhook.go``
    ``validateCreate`` runs on create and again on update: the queue label must be a
    DNS-1123 subdomain (``ValidateQueueName``) and the max-exec-time label a positive
    integer (``validateCreateForMaxExecTime``, ``strconv.Atoi``). ``f(rule, path, message,
    dotted)`` records a finding."""
    queue = obj.labels.get(QUEUE_LABEL)
    if isinstance(queue, str):
        errs = is_dns1123_subdomain(queue)
        if errs:
            f(R_QUEUE_NAME, ("metadata", "labels", QUEUE_LABEL), f"label {QUEUE_LABEL}: Invalid value: {queue!r}: "
              f"{','.join(errs)} ({R_QUEUE_NAME.upstream})", f"metadata.labels[{QUEUE_LABEL}]")
    if MAX_EXEC_TIME_LABEL in obj.labels:
        raw = obj.labels.get(MAX_EXEC_TIME_LABEL)
        v = atoi(raw)
        if v is None or v <= 0:
            why = "should be greater than 0" if v is not None else f"strconv.Atoi: parsing {str(raw)!r}: invalid syntax"
            f(R_MAX_EXEC_TIME, ("metadata", "labels", MAX_EXEC_TIME_LABEL),
              f"label {MAX_EXEC_TIME_LABEL}: Invalid value: {raw!r}: {why} ({R_MAX_EXEC_TIME.upstream})",
              f"metadata.labels[{MAX_EXEC_TIME_LABEL}]")


def validate(obj: Obj, old: Obj | None = None, mode: str | None = None,
             queues: Sequence[Obj] = ()) -> list[Finding]:
    """Kueue's RayService validating webhook, applied when the RayService has a
    queue label (``rayservice_webhook.go`` → ``raycluster/common.go`` ``ValidateCreate``);
    with the observed RayService, the update rules too (``validate_update``; ``mode`` is the
    integration model, the merged nested one when not given, as ``lint --live`` runs it)."""
    upd = validate_update(obj, old, mode or "nested", queues) if old is not None else []
    if obj.kind != "RayService" or not obj.labels.get(QUEUE_LABEL):
        return upd
    out: list[Finding] = upd
    rcc = _m(obj.spec.get("rayClusterConfig"))
    groups = rcc.get("workerGroupSpecs") if isinstance(rcc.get("workerGroupSpecs"), list) else []

    def f(rule: Rule, path: tuple, msg: str, dotted: str) -> None:
        out.append(Finding(rule.id, rule.severity, obj.file, obj.line_of(*path), msg, dotted, obj.ref))

    validate_job_on_create(obj, f)
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
