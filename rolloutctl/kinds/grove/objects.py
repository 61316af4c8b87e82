"""Builders of the objects the Grove operator creates, and readers of their state.

Each builder mirrors an upstream ``buildResource``; readers interpret live objects
and simulated ones the same way (real Kubernetes fields only).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.model import Obj
from ...core.trees import copy_tree
from . import names as N
from .spec import PCS, Clique, Group

# ----------------------------------------------------------------------------- pods


def pod_state(pod: Obj) -> tuple[bool, bool, bool, bool, bool]:
    """(scheduled, ready, active, gated, Ready condition) of a pod (its conditions read
    in one pass): ``ready`` leaves a terminating pod out, the condition alone does not."""
    spec, status = pod.spec, pod.status
    sched_cond = ready_cond = None
    for c in status.get("conditions") or ():
        if isinstance(c, dict):
            t = c.get("type")
            if t == "PodScheduled":
                if sched_cond is None:
                    sched_cond = str(c.get("status"))
            elif t == "Ready" and ready_cond is None:
                ready_cond = str(c.get("status"))
    scheduled = bool(spec.get("nodeName")) or sched_cond == "True"
    terminating = pod.terminating
    ready_condition = ready_cond == "True"
    ready = ready_condition and not terminating
    active = not terminating and pod_phase(pod) not in ("Succeeded", "Failed")
    gates = spec.get("schedulingGates") or ()
    gated = any(isinstance(g, dict) and g.get("name") == N.GATE_PODGANG_PENDING for g in gates)
    return (scheduled, ready, active, gated, ready_condition)


def pod_row(pod: Obj) -> tuple[bool, bool, bool, bool, bool, Any, tuple[str, Any], bool]:
    """(scheduled, ready, active, gated, terminating, template hash, (namespace,
    part-of label), Ready condition) of a pod: what the pod summaries count and the
    rules ask of a pod's state, read once per pod object. ``ready`` leaves terminating
    pods out; the last item is the condition alone, which a terminating pod keeps for
    its grace period (what a PodClique's status counts)."""
    sched, ready, act, gated, ready_cond = pod_state(pod)
    labels = pod.labels
    return (sched, ready, act, gated, pod.terminating, labels.get(N.L_TEMPLATE_HASH),
            (pod.namespace, labels.get(N.L_PART_OF)), ready_cond)


def pod_ready_condition(pod: Obj) -> bool:
    """The pod's Ready condition is True, terminating or not (``k8sutils.IsPodReady``)."""
    return pod.derived(pod_row)[7]  # type: ignore[no-any-return]


def pod_scheduled(pod: Obj) -> bool:
    return pod.derived(pod_row)[0]  # type: ignore[no-any-return]


def pod_ready(pod: Obj) -> bool:
    return pod.derived(pod_row)[1]  # type: ignore[no-any-return]


def crash_looping(pod: Obj) -> bool:
    """A container (init or app) of the pod waits in ``CrashLoopBackOff``: the kubelet
    restarts it after each failure, with a growing back-off."""
    for key in ("initContainerStatuses", "containerStatuses"):
        cs = pod.status.get(key)
        for c in cs if isinstance(cs, list) else ():
            state = c.get("state") if isinstance(c, dict) else None
            waiting = state.get("waiting") if isinstance(state, dict) else None
            if isinstance(waiting, dict) and waiting.get("reason") == "CrashLoopBackOff":
                return True
    return False


def pod_phase(pod: Obj) -> str:
    return str(pod.status.get("phase") or "Pending")


def pod_active(pod: Obj) -> bool:
    """Counts toward a PodClique's replicas: not terminating, not Succeeded/Failed."""
    return pod.derived(pod_row)[2]  # type: ignore[no-any-return]


def pod_gated(pod: Obj) -> bool:
    return pod.derived(pod_row)[3]  # type: ignore[no-any-return]


def pod_index(pod: Obj) -> int | None:
    """The pod's ``grove.io/podclique-pod-index`` label as a number (None: absent or not one)."""
    v = pod.labels.get(N.L_POD_INDEX)
    try:
        return int(v) if v is not None else None
    except ValueError:
        return None


def _condition(obj: Obj, ctype: str) -> str | None:
    for c in obj.status.get("conditions") or ():
        if isinstance(c, dict) and c.get("type") == ctype:
            return str(c.get("status"))
    return None


def _is_mapping(v: Any) -> bool:
    return isinstance(v, dict) or isinstance(v, Mapping)  # a dict without the ABC's slower check


def with_pod_state(pod: Obj, *, gated: bool | None = None, scheduled: bool | None = None,
                   ready: bool | None = None) -> Obj:
    """A copy of ``pod`` with its gate, scheduling and readiness changed, written in
    the fields the kubelet and scheduler write."""
    raw = dict(pod.raw)
    spec = dict(raw.get("spec") or {})
    status = dict(raw.get("status") or {})
    if gated is False:
        spec["schedulingGates"] = [g for g in spec.get("schedulingGates") or []
                                   if not (_is_mapping(g) and g.get("name") == N.GATE_PODGANG_PENDING)]
    conds = {c.get("type"): c for c in status.get("conditions") or [] if _is_mapping(c)}
    if scheduled:
        spec.setdefault("nodeName", "node")
        conds["PodScheduled"] = {"type": "PodScheduled", "status": "True"}
    if ready is not None:
        conds["Ready"] = {"type": "Ready", "status": "True" if ready else "False"}
        if ready:
            status["phase"] = "Running"
    status["conditions"] = [conds[k] for k in sorted(conds)]
    raw["spec"] = spec
    raw["status"] = status
    return Obj(raw, pod.file, pod.line, pod.lines)


# ----------------------------------------------------------------------------- builders


def _meta(name: str, ns: str, labels: Mapping[str, str], **extra: Any) -> dict[str, Any]:
    md: dict[str, Any] = {"name": name, "namespace": ns, "labels": dict(labels)}
    md.update(extra)
    return md


def pclq_annotations(clique: Clique) -> dict[str, Any]:
    """The PodClique's annotations: the template's without the topology-name
    annotation, which the builders drop after the template hash (that includes it) is
    taken. Upstream: ``buildResource`` (``delete(pclq.Annotations, AnnotationTopologyName)``)."""
    ann = dict(clique.raw.get("annotations") or {})
    ann.pop(N.A_TOPOLOGY_NAME, None)
    return ann


def build_standalone_pclq(pcs: PCS, replica: int, clique: Clique, replicas: int | None = None) -> dict[str, Any]:
    """A standalone PodClique of ``clique``, built from the template upstream's name
    lookup finds (``PCS.template_clique_for``: another clique's when its name is a
    suffix of this one's). Upstream: ``operator/internal/controller/podcliqueset/
    components/podclique/podclique.go`` ``buildResource`` (replicas kept from the live
    object when it exists)."""
    fqn = pcs.standalone_pclq_fqn(replica, clique.name)
    tmpl = pcs.template_clique_for(fqn) or clique
    labels = dict(tmpl.raw.get("labels") or {})
    labels.update(N.default_labels(pcs.name))
    labels.update({
        N.L_NAME: fqn,
        N.L_COMPONENT: N.C_PCS_PCLQ,
        N.L_PCS_REPLICA: str(replica),
        N.L_PODGANG: N.base_podgang_name(pcs.name, replica),
        N.L_TEMPLATE_HASH: tmpl.template_hash,
    })
    return {
        "apiVersion": N.API_CORE, "kind": "PodClique",
        "metadata": _meta(fqn, pcs.namespace, labels, annotations=pclq_annotations(tmpl)),
        "spec": _pclq_spec(pcs, tmpl, tmpl.replicas if replicas is None else replicas,
                           pcs.standalone_starts_after(replica, tmpl)),
    }


def build_member_pclq(pcs: PCS, replica: int, group: Group, j: int, clique: Clique) -> dict[str, Any]:
    """A scaling-group member PodClique (template found by name suffix, as for
    standalone ones). Upstream: ``operator/internal/controller/podcliquescalinggroup/
    components/podclique/podclique.go`` ``buildResource``."""
    pcsg = pcs.pcsg_fqn(replica, group)
    fqn = N.pclq_name(pcsg, j, clique.name)
    tmpl = pcs.template_clique_for(fqn) or clique
    gang = N.podgang_for_pcsg_replica(pcs.name, replica, pcsg, j, group.min_available)
    labels = dict(tmpl.raw.get("labels") or {})
    labels.update(N.default_labels(pcs.name))
    labels.update({
        N.L_NAME: fqn,
        N.L_COMPONENT: N.C_PCSG_PCLQ,
        N.L_PCSG: pcsg,
        N.L_PCSG_REPLICA: str(j),
        N.L_PCS_REPLICA: str(replica),
        N.L_PODGANG: gang,
        N.L_TEMPLATE_HASH: tmpl.template_hash,
    })
    if j >= group.min_available:
        labels[N.L_BASE_PODGANG] = N.base_podgang_name(pcs.name, replica)
    spec = _pclq_spec(pcs, tmpl, tmpl.replicas, pcs.member_starts_after(replica, group, j, tmpl))
    spec["podSpec"] = _with_pcsg_env(spec["podSpec"], pcsg_template_num_pods(pcs, group))
    return {
        "apiVersion": N.API_CORE, "kind": "PodClique",
        "metadata": _meta(fqn, pcs.namespace, labels, annotations=pclq_annotations(tmpl)),
        "spec": spec,
    }


#: the env var ``addEnvironmentVariablesToPodContainerSpecs`` gives the size of a
#: scaling-group replica by the template
PCSG_TEMPLATE_NUM_PODS = "GROVE_PCSG_TEMPLATE_NUM_PODS"


def pcsg_template_num_pods(pcs: PCS, group: Group) -> int:
    """``getPCSGTemplateNumPods``: the template ``replicas`` of the group's cliques, summed
    (a live replica's own counts do not enter). Upstream:
    ``podcliquescalinggroup/components/podclique/podclique.go``."""
    return sum(pcs.clique_by_name[n].replicas for n in group.clique_names if n in pcs.clique_by_name)


def _with_pcsg_env(pod_spec: dict[str, Any], num_pods: int) -> dict[str, Any]:
    """``addEnvironmentVariablesToPodContainerSpecs`` (``podcliquescalinggroup/components/
    podclique/podclique.go``) through ``PrependEnvVarsToContainers`` (``common/component/
    utils/pod.go``): the scaling group's name, replica index (from the pod's labels) and
    template size go first in every container's and init container's env, replacing
    entries of the same names."""
    env = [
        {"name": "GROVE_PCSG_NAME", "valueFrom": {"fieldRef": {"fieldPath": f"metadata.labels['{N.L_PCSG}']"}}},
        {"name": PCSG_TEMPLATE_NUM_PODS, "value": str(num_pods)},
        {"name": "GROVE_PCSG_INDEX", "valueFrom": {"fieldRef": {"fieldPath": f"metadata.labels['{N.L_PCSG_REPLICA}']"}}},
    ]
    names = {e["name"] for e in env}
    out = dict(pod_spec)
    for key in ("containers", "initContainers"):
        cs = out.get(key)
        if isinstance(cs, list):
            out[key] = [dict(c, env=env + [e for e in (c.get("env") or []) if not (isinstance(e, Mapping) and e.get("name") in names)])
                        if isinstance(c, dict) else c for c in cs]
    return out


def _pclq_spec(pcs: PCS, clique: Clique, replicas: int, starts_after: list[str]) -> dict[str, Any]:
    cs = clique.raw.get("spec") or {}
    # the template's pod spec as it is: the PodCliqueSet priorityClassName goes into the
    # hash and the PodGang only (upstream never writes it into PodClique or pod specs)
    pod_spec = dict(cs.get("podSpec") or {})
    spec: dict[str, Any] = {
        "roleName": clique.role_name,
        "replicas": replicas,
        "minAvailable": clique.min_available,
        "podSpec": pod_spec,
    }
    if starts_after:
        spec["startsAfter"] = starts_after
    if isinstance(cs.get("autoScalingConfig"), Mapping):
        spec["autoScalingConfig"] = dict(cs["autoScalingConfig"])
    return spec


def pcsg_annotations(pcs: PCS, group: Group) -> dict[str, Any]:
    """The PodCliqueScalingGroup's annotations: the scaling-group config's, plus the
    PodCliqueSet's MNNVL group annotation when the config does not set its own.
    Upstream: ``podcliquescalinggroup.go`` ``getAnnotations``, ``propagateMNNVLAnnotations``."""
    ann = dict(group.raw.get("annotations") or {})
    if N.A_MNNVL_GROUP in pcs.annotations and N.A_MNNVL_GROUP not in ann:
        ann[N.A_MNNVL_GROUP] = pcs.annotations[N.A_MNNVL_GROUP]
    return ann


def build_pcsg(pcs: PCS, replica: int, group: Group, replicas: int | None = None) -> dict[str, Any]:
    """A PodCliqueScalingGroup; ``spec.replicas`` is set only on create, labels and
    annotations on every sync. Upstream: ``operator/internal/controller/podcliqueset/components/
    podcliquescalinggroup/podcliquescalinggroup.go`` ``buildResource``."""
    fqn = pcs.pcsg_fqn(replica, group)
    labels = N.default_labels(pcs.name)
    labels.update({N.L_NAME: fqn, N.L_COMPONENT: "pcs-podcliquescalinggroup", N.L_PCS_REPLICA: str(replica)})
    ann = pcsg_annotations(pcs, group)
    return {
        "apiVersion": N.API_CORE, "kind": "PodCliqueScalingGroup",
        "metadata": _meta(fqn, pcs.namespace, labels, **({"annotations": ann} if ann else {})),
        "spec": {"replicas": group.replicas if replicas is None else replicas,
                 "minAvailable": group.min_available, "cliqueNames": list(group.clique_names)},
    }


def build_pod(pclq: Obj, index: int, internal_name: str, created: str) -> dict[str, Any]:
    """A pod of ``pclq`` at ``index``, gated until its PodGang lists it.
    Upstream: ``operator/internal/controller/podclique/components/pod/pod.go`` ``buildResource``."""
    labels = dict(pclq.labels)
    labels.pop(N.L_NAME, None)
    labels.pop(N.L_COMPONENT, None)
    labels[N.L_PCLQ] = pclq.name
    labels[N.L_POD_INDEX] = str(index)
    pod_spec = dict(pclq.spec.get("podSpec") or {})
    pod_spec["hostname"] = N.pod_hostname(pclq.name, index)
    pod_spec["subdomain"] = N.headless_service_name(pclq.labels.get(N.L_PART_OF, ""), int(pclq.labels.get(N.L_PCS_REPLICA, "0") or 0))
    pod_spec["schedulingGates"] = [{"name": N.GATE_PODGANG_PENDING}]
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": _meta(internal_name, pclq.namespace, labels, creationTimestamp=created,
                          generateName=pclq.name + "-"),
        "spec": pod_spec,
        "status": {"phase": "Pending"},
    }


def build_podgang(pcs: PCS, name: str, groups: list[tuple[str, int]], pod_refs: Mapping[str, list[str]] | None = None,
                  initialized: bool = False) -> dict[str, Any]:
    """A PodGang with one PodGroup per PodClique (name, minReplicas, the pods listed so
    far), the PodCliqueSet's own labels and annotations mirrored (except ``grove.io/``
    ones) and the ``Initialized`` condition.
    Upstream: ``operator/internal/controller/podcliqueset/components/podgang/podgang.go``
    ``buildResource``, ``createPodGroupsForPodGang``, ``mirrorPCSMetadata``."""
    labels = {k: v for k, v in pcs.labels.items() if not k.startswith("grove.io/")}
    labels.update(N.default_labels(pcs.name))
    labels[N.L_COMPONENT] = N.C_PODGANG
    annotations = {k: v for k, v in pcs.annotations.items() if not k.startswith("grove.io/")
                   and k != "kubectl.kubernetes.io/last-applied-configuration"}
    spec: dict[str, Any] = {"podgroups": [
        {"name": g, "minReplicas": m,
         "podReferences": [{"namespace": pcs.namespace, "name": p} for p in (pod_refs or {}).get(g, [])]}
        for g, m in groups
    ]}
    if pcs.priority_class_name:
        spec["priorityClassName"] = pcs.priority_class_name
    return {
        "apiVersion": N.API_SCHED, "kind": "PodGang",
        "metadata": _meta(name, pcs.namespace, labels, **({"annotations": annotations} if annotations else {})),
        "spec": spec,
        "status": {"phase": "Pending", "conditions": [{
            "type": "Initialized", "status": "True" if initialized else "False",
            "reason": "PodGangPodsCreated" if initialized else "PodGangPodsCreationPending"}]},
    }


def podgang_initialized(pg: Obj) -> bool:
    return _condition(pg, "Initialized") == "True"


def build_headless_service(pcs: PCS, replica: int) -> dict[str, Any]:
    """Headless Service per PCS replica. A nil ``headlessServiceConfig`` publishes no
    not-ready addresses (the webhook defaults it to ``true`` first).
    Upstream: ``podcliqueset/components/service/service.go`` ``buildResource`` / ``getLabels``."""
    name = N.headless_service_name(pcs.name, replica)
    labels = N.default_labels(pcs.name)
    labels.update({N.L_NAME: name, N.L_COMPONENT: N.C_HEADLESS_SERVICE, N.L_PCS_REPLICA: str(replica)})
    selector = N.default_labels(pcs.name)
    selector[N.L_PCS_REPLICA] = str(replica)
    hsc = pcs.template.get("headlessServiceConfig")
    publish = bool(hsc.get("publishNotReadyAddresses", True)) if isinstance(hsc, Mapping) else False
    return {"apiVersion": "v1", "kind": "Service", "metadata": _meta(name, pcs.namespace, labels),
            "spec": {"clusterIP": "None", "selector": selector, "publishNotReadyAddresses": publish}}


def _component_labels(pcs: PCS, component: str, name: str) -> dict[str, str]:
    labels = N.default_labels(pcs.name)
    labels.update({N.L_COMPONENT: component, N.L_NAME: name})
    return labels


def build_rbac(pcs: PCS) -> list[dict[str, Any]]:
    """ServiceAccount, Role, RoleBinding and the init-container token Secret.
    Upstream: ``podcliqueset/components/serviceaccount``, ``role``, ``rolebinding``,
    ``satokensecret`` (each ``buildResource`` / ``getLabels``; the Role and RoleBinding
    ``app.kubernetes.io/name`` label is the object name with ``:`` replaced by ``-``)."""
    role = N.role_name(pcs.name)
    secret = N.token_secret_name(pcs.name)
    out = [
        {"apiVersion": "v1", "kind": "ServiceAccount",
         "metadata": _meta(pcs.name, pcs.namespace, _component_labels(pcs, N.C_SERVICE_ACCOUNT, pcs.name)),
         "automountServiceAccountToken": True},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
         "metadata": _meta(role, pcs.namespace, _component_labels(pcs, N.C_ROLE, role.replace(":", "-"))),
         "rules": [{"apiGroups": [""], "resources": ["pods", "pods/status"], "verbs": ["get", "list", "watch"]}]},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
         "metadata": _meta(role, pcs.namespace, _component_labels(pcs, N.C_ROLE_BINDING, role.replace(":", "-"))),
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": role},
         "subjects": [{"apiGroup": "", "kind": "ServiceAccount", "name": pcs.name, "namespace": pcs.namespace}]},
        {"apiVersion": "v1", "kind": "Secret",
         "metadata": _meta(secret, pcs.namespace, _component_labels(pcs, N.C_SA_TOKEN_SECRET, secret),
                           annotations={"kubernetes.io/service-account.name": pcs.name}),
         "type": N.SA_TOKEN_SECRET_TYPE},
    ]
    return out


def build_hpa(pcs: PCS, target_kind: str, target: str, scale: Mapping[str, Any]) -> dict[str, Any]:
    """HPA named after its target: min/max replicas and metrics from the scale config.
    Upstream: ``podcliqueset/components/hpa/hpa.go`` ``buildResource`` / ``getLabels``."""
    labels = _component_labels(pcs, N.C_HPA, target)
    spec: dict[str, Any] = {"scaleTargetRef": {"apiVersion": N.API_CORE, "kind": target_kind, "name": target},
                            "minReplicas": scale.get("minReplicas"), "maxReplicas": scale.get("maxReplicas")}
    if scale.get("metrics"):
        spec["metrics"] = copy_tree(scale["metrics"])
    return {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": _meta(target, pcs.namespace, labels), "spec": spec}
