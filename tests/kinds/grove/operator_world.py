"""A settled Grove workload as the operator and the API server leave it, written by
hand from the upstream sources (``ai-dynamo/grove`` at the modelled snapshot), never
from rolloutctl's own builders: every child object with its labels and owner
references, the webhook and API-server defaults, the status each controller writes,
and hash labels as opaque tokens (upstream's FNV values cannot be recomputed).

Sources, all under ``operator/``: ``internal/webhook/admission/pcs/defaulting/
podcliqueset.go`` (defaults); ``internal/controller/podcliqueset/components/*``
(``buildResource`` of each component); ``internal/controller/podcliquescalinggroup/
components/podclique/podclique.go`` (member PodCliques and their env vars);
``internal/controller/podclique/components/pod/pod.go`` (pods);
``internal/controller/*/reconcilestatus.go`` (status); ``api/common/labels.go`` and
``namegen.go`` (names, labels).
"""

from __future__ import annotations

import copy
import hashlib
from typing import Any

TIME = "2026-09-01T10:00:00Z"
LATER = "2026-09-01T10:02:00Z"
MANAGED = {"app.kubernetes.io/managed-by": "grove-operator"}


def token(*parts: Any) -> str:
    """An opaque, Go-looking hash token (digits, like ``rand.SafeEncodeString``)."""
    return str(int(hashlib.sha1(repr(parts).encode()).hexdigest()[:12], 16) % 10**10)


def suffix(*parts: Any) -> str:
    """The random 5-character suffix of a generated pod name."""
    alphabet = "bcdfghjklmnpqrstvwxz2456789"
    n = int(hashlib.sha1(repr(parts).encode()).hexdigest(), 16)
    return "".join(alphabet[(n >> (5 * k)) % len(alphabet)] for k in range(5))


def webhook_defaults(pcs: dict) -> dict:
    """The PodCliqueSet as the API server stores it: CRD defaults and the defaulting
    webhook's (``defaultPodCliqueSet``)."""
    out = copy.deepcopy(pcs)
    md = out.setdefault("metadata", {})
    md.setdefault("namespace", "default")
    spec = out.setdefault("spec", {})
    spec.setdefault("replicas", 0)
    t = spec["template"]
    t.setdefault("cliqueStartupType", "CliqueStartupTypeAnyOrder")
    t.setdefault("terminationDelay", "4h0m0s")
    t.setdefault("headlessServiceConfig", {"publishNotReadyAddresses": True})
    for c in t["cliques"]:
        cs = c["spec"]
        original = cs.get("replicas")
        if not original:
            cs["replicas"] = 1
        if cs.get("minAvailable") is None:
            cs["minAvailable"] = original
        ps = cs["podSpec"]
        ps.setdefault("restartPolicy", "Always")
        ps.setdefault("terminationGracePeriodSeconds", 30)
        if "autoScalingConfig" in cs and cs["autoScalingConfig"].get("minReplicas") is None:
            cs["autoScalingConfig"]["minReplicas"] = original
    for g in t.get("podCliqueScalingGroups") or []:
        g.setdefault("replicas", 1)
        g.setdefault("minAvailable", 1)
        if "scaleConfig" in g and g["scaleConfig"].get("minReplicas") is None:
            g["scaleConfig"]["minReplicas"] = g["replicas"]
    return out


def _owner(kind: str, name: str) -> list[dict]:
    return [{"apiVersion": "grove.io/v1alpha1", "kind": kind, "name": name, "uid": token("uid", kind, name),
             "controller": True, "blockOwnerDeletion": True}]


def _meta(name: str, ns: str, labels: dict, owner: tuple[str, str] | None, **extra: Any) -> dict:
    md = {"name": name, "namespace": ns, "labels": labels, "uid": token("uid", name),
          "resourceVersion": token("rv", name)[:6], "creationTimestamp": TIME, "generation": 1}
    if owner is not None:
        md["ownerReferences"] = _owner(*owner)
    md.update(extra)
    return md


def settled_world(manifest: dict) -> list[dict]:
    """Every object of a settled, never-updated ``manifest``, plus the live
    PodCliqueSet with its status."""
    pcs = webhook_defaults(manifest)
    name, ns = pcs["metadata"]["name"], pcs["metadata"]["namespace"]
    t = pcs["spec"]["template"]
    n = pcs["spec"]["replicas"]
    cliques = {c["name"]: c for c in t["cliques"]}
    order = [c["name"] for c in t["cliques"]]
    groups = t.get("podCliqueScalingGroups") or []
    group_of = {cn: g for g in groups for cn in g["cliqueNames"]}
    gen = token("generation", name)
    tok = {c: token("template", name, c) for c in order}
    base = {"app.kubernetes.io/managed-by": "grove-operator", "app.kubernetes.io/part-of": name}
    owner = ("PodCliqueSet", name)
    out: list[dict] = []

    # RBAC (serviceaccount, role, rolebinding, satokensecret buildResource)
    role = f"grove.io:pcs:{name}"
    out.append({"apiVersion": "v1", "kind": "ServiceAccount", "automountServiceAccountToken": True,
                "metadata": _meta(name, ns, {**base, "app.kubernetes.io/component": "pod-service-account",
                                             "app.kubernetes.io/name": name}, owner)})
    out.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                "metadata": _meta(role, ns, {**base, "app.kubernetes.io/component": "pod-role",
                                             "app.kubernetes.io/name": role.replace(":", "-")}, owner),
                "rules": [{"apiGroups": [""], "resources": ["pods", "pods/status"], "verbs": ["get", "list", "watch"]}]})
    out.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                "metadata": _meta(role, ns, {**base, "app.kubernetes.io/component": "pod-role-binding",
                                             "app.kubernetes.io/name": role.replace(":", "-")}, owner),
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": role},
                "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": ns}]})
    out.append({"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/service-account-token",
                "metadata": _meta(f"{name}-ic-sat", ns, {**base, "app.kubernetes.io/component": "pod-sa-token-secret",
                                                        "app.kubernetes.io/name": f"{name}-ic-sat"}, owner,
                                  annotations={"kubernetes.io/service-account.name": name,
                                               "kubernetes.io/service-account.uid": token("sa", name)}),
                "data": {"token": "ZXlK", "ca.crt": "LS0t", "namespace": "ZGVmYXVsdA=="}})

    def startup_deps(i: int, cname: str, pcsg: tuple[str, dict, int] | None) -> list[str]:
        """``identifyFullyQualifiedStartupDependencyNames`` of both builders."""
        st = t["cliqueStartupType"]
        if st == "CliqueStartupTypeInOrder":
            k = order.index(cname)
            parents = [order[k - 1]] if k > 0 else []
        elif st == "CliqueStartupTypeExplicit":
            parents = list(cliques[cname]["spec"].get("startsAfter") or [])
        else:
            return []

        def base_names(p: str) -> list[str]:
            g = group_of.get(p)
            if g is None:
                return [f"{name}-{i}-{p}"]
            return [f"{name}-{i}-{g['name']}-{j}-{p}" for j in range(g["minAvailable"])]
        if pcsg is not None and pcsg[2] >= pcsg[1]["minAvailable"]:
            fqn, g, j = pcsg
            return [f"{fqn}-{j}-{p}" for p in parents if p in g["cliqueNames"]]
        return [d for p in parents for d in base_names(p)]

    pods_by_gang: dict[str, dict[str, list[str]]] = {}
    for i in range(n):
        base_gang = f"{name}-{i}"
        # headless Service (service.go buildResource) with the API server's defaults
        svc = f"{name}-{i}"
        out.append({"apiVersion": "v1", "kind": "Service",
                    "metadata": _meta(svc, ns, {**base, "app.kubernetes.io/name": svc,
                                                "app.kubernetes.io/component": "pcs-headless-service",
                                                "grove.io/podcliqueset-replica-index": str(i)}, owner),
                    "spec": {"clusterIP": "None", "clusterIPs": ["None"], "type": "ClusterIP",
                             "selector": {**base, "grove.io/podcliqueset-replica-index": str(i)},
                             "publishNotReadyAddresses": t["headlessServiceConfig"].get("publishNotReadyAddresses",
                                                                                       True),
                             "sessionAffinity": "None", "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack",
                             "internalTrafficPolicy": "Cluster"},
                    "status": {"loadBalancer": {}}})

        def add_pclq(fqn: str, cname: str, labels: dict, spec: dict, standalone: bool, gang: str) -> dict:
            c = cliques[cname]
            ann = dict(c.get("annotations") or {})
            ann.pop("grove.io/topology-name", None)
            md = _meta(fqn, ns, labels, owner if standalone else ("PodCliqueScalingGroup", labels["grove.io/podcliquescalinggroup"]),
                       finalizers=["grove.io/podclique.grove.io"])
            if ann:
                md["annotations"] = ann
            reps = spec["replicas"]
            status: dict[str, Any] = {
                "observedGeneration": 1, "replicas": reps, "readyReplicas": reps, "scheduledReplicas": reps,
                "scheduleGatedReplicas": 0, "updatedReplicas": reps, "currentPodTemplateHash": tok[cname],
                "currentPodCliqueSetGenerationHash": gen,
                "conditions": [
                    {"type": "MinAvailableBreached", "status": "False", "reason": "SufficientReadyPods",
                     "message": "Either sufficient ready or starting pods found.", "lastTransitionTime": LATER,
                     "observedGeneration": 1},
                    {"type": "PodCliqueScheduled", "status": "True", "reason": "SufficientScheduledPods",
                     "message": "Sufficient scheduled pods found.", "lastTransitionTime": LATER,
                     "observedGeneration": 1}]}
            if standalone:
                # the first reconcile of a new PodClique opens and (nothing to roll) closes its update
                # (podclique/reconcilespec.go shouldResetOrTriggerUpdate, initOrResetUpdate)
                status["updateProgress"] = {"updateStartedAt": LATER, "updateEndedAt": LATER,
                                            "podCliqueSetGenerationHash": gen, "podTemplateHash": tok[cname]}
                status["hpaPodSelector"] = (f"app.kubernetes.io/managed-by=grove-operator,app.kubernetes.io/part-of={name},"
                                      f"grove.io/podclique={fqn}")
            obj = {"apiVersion": "grove.io/v1alpha1", "kind": "PodClique", "metadata": md, "spec": spec,
                   "status": status}
            out.append(obj)
            # its pods (pod.go buildResource / getLabels / addEnvironmentVariables), Running and Ready
            for k in range(reps):
                pod_name = f"{fqn}-{suffix(fqn, k)}"
                pod_labels = {**base, **labels, "grove.io/podclique": fqn, "grove.io/podcliqueset-replica-index": str(i),
                              "grove.io/podgang": gang, "grove.io/podclique-pod-index": str(k)}
                ps = copy.deepcopy(spec["podSpec"])
                env = [{"name": "GROVE_PCS_NAME", "value": name}, {"name": "GROVE_PCS_INDEX", "value": str(i)},
                       {"name": "GROVE_PCLQ_NAME", "value": fqn},
                       {"name": "GROVE_HEADLESS_SERVICE", "value": f"{svc}.{ns}.svc.cluster.local"},
                       {"name": "GROVE_PCLQ_POD_INDEX", "value": str(k)}]
                for ct in ps.get("containers", []) + ps.get("initContainers", []):
                    ct["env"] = env + list(ct.get("env") or [])
                ps.update({"hostname": f"{fqn}-{k}", "subdomain": svc, "nodeName": f"node-{k % 3}",
                           "schedulerName": ps.get("schedulerName", "default-scheduler"), "dnsPolicy": "ClusterFirst",
                           "serviceAccountName": "default", "securityContext": {}})
                pod_md = _meta(pod_name, ns, pod_labels, None, generateName=f"{fqn}-")
                pod_md.pop("generation")
                pod_md["ownerReferences"] = [dict(_owner("PodClique", fqn)[0])]
                if ann:
                    pod_md["annotations"] = dict(ann)
                out.append({"apiVersion": "v1", "kind": "Pod", "metadata": pod_md, "spec": ps, "status": {
                    "phase": "Running", "podIP": f"10.0.{i}.{k}", "hostIP": "192.168.0.1", "startTime": TIME,
                    "qosClass": "Burstable",
                    "conditions": [{"type": t_, "status": "True", "lastTransitionTime": LATER}
                                   for t_ in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady",
                                              "PodScheduled")],
                    "containerStatuses": [{"name": ct["name"], "ready": True, "started": True, "restartCount": 0,
                                           "image": ct.get("image", ""), "imageID": "sha256:0",
                                           "state": {"running": {"startedAt": LATER}}}
                                          for ct in ps.get("containers", [])]}})
                pods_by_gang.setdefault(gang, {}).setdefault(fqn, []).append(pod_name)
            return obj

        def clique_spec(cname: str, i: int, pcsg: tuple[str, dict, int] | None) -> dict:
            spec = copy.deepcopy(cliques[cname]["spec"])
            spec.pop("startsAfter", None)
            deps = startup_deps(i, cname, pcsg)
            if deps:
                spec["startsAfter"] = deps
            return spec

        # standalone PodCliques (podcliqueset/components/podclique buildResource)
        for cname in order:
            if cname in group_of:
                continue
            fqn = f"{name}-{i}-{cname}"
            c = cliques[cname]
            labels = {**(c.get("labels") or {}), **base, "app.kubernetes.io/name": fqn,
                      "app.kubernetes.io/component": "pcs-podclique", "grove.io/podcliqueset-replica-index": str(i),
                      "grove.io/podgang": base_gang, "grove.io/pod-template-hash": tok[cname]}
            add_pclq(fqn, cname, labels, clique_spec(cname, i, None), True, base_gang)
            if "autoScalingConfig" in c["spec"]:
                out.append(_hpa(name, ns, base, owner, "PodClique", fqn, c["spec"]["autoScalingConfig"]))
        # scaling groups and their members
        for g in groups:
            fqn = f"{name}-{i}-{g['name']}"
            reps = g["replicas"]
            pcsg_md = _meta(fqn, ns, {**base, "app.kubernetes.io/name": fqn,
                                      "app.kubernetes.io/component": "pcs-podcliquescalinggroup",
                                      "grove.io/podcliqueset-replica-index": str(i)}, owner,
                            finalizers=["grove.io/podcliquescalinggroup.grove.io"])
            # getAnnotations, then propagateMNNVLAnnotations from the PodCliqueSet
            pcsg_ann = dict(g.get("annotations") or {})
            pcs_ann = (pcs.get("metadata") or {}).get("annotations") or {}
            if "grove.io/mnnvl-group" in pcs_ann:
                pcsg_ann.setdefault("grove.io/mnnvl-group", pcs_ann["grove.io/mnnvl-group"])
            if pcsg_ann:
                pcsg_md["annotations"] = pcsg_ann
            out.append({"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueScalingGroup",
                        "metadata": pcsg_md,
                        "spec": {"replicas": reps, "minAvailable": g["minAvailable"], "cliqueNames": g["cliqueNames"]},
                        "status": {"observedGeneration": 1, "replicas": reps, "scheduledReplicas": reps,
                                   "availableReplicas": reps, "updatedReplicas": reps,
                                   "currentPodCliqueSetGenerationHash": gen,
                                   "selector": f"app.kubernetes.io/managed-by=grove-operator,app.kubernetes.io/part-of="
                                               f"{name},grove.io/podcliquescalinggroup={fqn}",
                                   "conditions": [{"type": "MinAvailableBreached", "status": "False",
                                                   "reason": "SufficientAvailablePodCliqueScalingGroupReplicas",
                                                   "lastTransitionTime": LATER}]}})
            if "scaleConfig" in g:
                out.append(_hpa(name, ns, base, owner, "PodCliqueScalingGroup", fqn, g["scaleConfig"]))
            num_pods = sum(cliques[cn]["spec"]["replicas"] for cn in g["cliqueNames"])
            for j in range(reps):
                gang = base_gang if j < g["minAvailable"] else f"{fqn}-{j - g['minAvailable']}"
                for cname in g["cliqueNames"]:
                    m = f"{fqn}-{j}-{cname}"
                    c = cliques[cname]
                    labels = {**(c.get("labels") or {}), **base, "app.kubernetes.io/name": m,
                              "app.kubernetes.io/component": "pcsg-podclique", "grove.io/podcliquescalinggroup": fqn,
                              "grove.io/podgang": gang, "grove.io/podcliqueset-replica-index": str(i),
                              "grove.io/podcliquescalinggroup-replica-index": str(j),
                              "grove.io/pod-template-hash": tok[cname]}
                    if gang != base_gang:
                        labels["grove.io/base-podgang"] = base_gang
                    spec = clique_spec(cname, i, (fqn, g, j))
                    pcsg_env = [
                        {"name": "GROVE_PCSG_NAME", "valueFrom": {"fieldRef": {
                            "apiVersion": "v1", "fieldPath": "metadata.labels['grove.io/podcliquescalinggroup']"}}},
                        {"name": "GROVE_PCSG_TEMPLATE_NUM_PODS", "value": str(num_pods)},
                        {"name": "GROVE_PCSG_INDEX", "valueFrom": {"fieldRef": {
                            "apiVersion": "v1",
                            "fieldPath": "metadata.labels['grove.io/podcliquescalinggroup-replica-index']"}}}]
                    for ct in spec["podSpec"].get("containers", []) + spec["podSpec"].get("initContainers", []):
                        ct["env"] = pcsg_env + [e for e in ct.get("env") or [] if e["name"] not in
                                                {x["name"] for x in pcsg_env}]
                    add_pclq(m, cname, labels, spec, False, gang)

    # PodGangs (podgang/syncflow.go computeExpectedPodGangs, podgang.go buildResource)
    for i in range(n):
        base_gang = f"{name}-{i}"
        gangs: list[tuple[str, list[tuple[str, int]]]] = []
        base_groups = [(f"{name}-{i}-{cn}", cliques[cn]["spec"]["minAvailable"]) for cn in order if cn not in group_of]
        for g in groups:
            fqn = f"{name}-{i}-{g['name']}"
            for j in range(g["minAvailable"]):
                base_groups += [(f"{fqn}-{j}-{cn}", cliques[cn]["spec"]["minAvailable"]) for cn in g["cliqueNames"]]
        gangs.append((base_gang, base_groups))
        for g in groups:
            fqn = f"{name}-{i}-{g['name']}"
            for j in range(g["minAvailable"], g["replicas"]):
                gangs.append((f"{fqn}-{j - g['minAvailable']}",
                              [(f"{fqn}-{j}-{cn}", cliques[cn]["spec"]["minAvailable"]) for cn in g["cliqueNames"]]))
        for gname, pgroups in gangs:
            labels = {k: v for k, v in (manifest["metadata"].get("labels") or {}).items()
                      if not k.startswith("grove.io/")}
            labels.update({**base, "app.kubernetes.io/component": "podgang"})
            spec: dict[str, Any] = {"podgroups": [
                {"name": q, "minReplicas": mr, "podReferences": [
                    {"namespace": ns, "name": p} for p in sorted(pods_by_gang.get(gname, {}).get(q, []))]}
                for q, mr in pgroups]}
            if t.get("priorityClassName"):
                spec["priorityClassName"] = t["priorityClassName"]
            out.append({"apiVersion": "scheduler.grove.io/v1alpha1", "kind": "PodGang",
                        "metadata": _meta(gname, ns, labels, owner), "spec": spec,
                        "status": {"phase": "Running", "conditions": [
                            {"type": "Initialized", "status": "True", "reason": "PodGangPodsCreated",
                             "lastTransitionTime": TIME},
                            {"type": "Scheduled", "status": "True", "reason": "Scheduled", "lastTransitionTime": LATER},
                            {"type": "Ready", "status": "True", "reason": "Ready", "lastTransitionTime": LATER}]}})

    live = copy.deepcopy(pcs)
    live["metadata"].update({"uid": token("uid", name), "generation": 1, "resourceVersion": "1234",
                             "creationTimestamp": TIME, "finalizers": ["grove.io/podcliqueset.grove.io"]})
    live["status"] = {"observedGeneration": 1, "replicas": n, "availableReplicas": n, "updatedReplicas": n,
                      "currentGenerationHash": gen,
                      "hpaPodSelector": f"app.kubernetes.io/managed-by=grove-operator,app.kubernetes.io/part-of={name}"}
    out.append(live)
    return out


def _hpa(pcs: str, ns: str, base: dict, owner: tuple[str, str], kind: str, target: str, sc: dict) -> dict:
    """``hpa.go`` buildResource, read back with the API server's autoscaling/v2 defaults
    (metrics default to CPU 80%, a default scaling behaviour)."""
    spec: dict[str, Any] = {"scaleTargetRef": {"apiVersion": "grove.io/v1alpha1", "kind": kind, "name": target},
                            "minReplicas": sc.get("minReplicas", 1), "maxReplicas": sc["maxReplicas"],
                            "metrics": copy.deepcopy(sc.get("metrics") or [{"type": "Resource", "resource": {
                                "name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]),
                            "behavior": {"scaleUp": {"stabilizationWindowSeconds": 0, "selectPolicy": "Max"},
                                         "scaleDown": {"stabilizationWindowSeconds": 300, "selectPolicy": "Max"}}}
    return {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": _meta(target, ns, {**base, "app.kubernetes.io/name": target,
                                           "app.kubernetes.io/component": "pcs-hpa"}, owner),
            "spec": spec, "status": {"currentReplicas": 1, "desiredReplicas": 1}}
