"""Observed Grove state: hash tokens made comparable, and the warnings a plan can
only give from where the cluster starts.

Upstream hash values (FNV over Go structures) cannot be recomputed here, so observed
hash labels and status hashes are opaque tokens. ``translate_live`` turns them into
the model's own digests where an observed object says what the token stands for:

- a PodClique's ``grove.io/pod-template-hash`` label and its ``spec.podSpec`` are
  written together by the operator, so the label token stands for the digest of the
  PodClique's own template inputs: its non-operator labels, its annotations and its
  pod spec with the operator-injected scaling-group env vars removed, defaulted, and
  with the PodCliqueSet ``priorityClassName`` injected (``pod_template_inputs``);
- the PodCliqueSet ``status.currentGenerationHash`` token stands for the generation
  digest of the observed PodCliqueSet's own spec (assumed reconciled, i.e.
  ``observedGeneration == generation``);
- any other token (pods of a template no PodClique carries any more, stale status
  hashes) becomes ``observed:<token>``, which never equals a digest: such pods are
  outdated whatever the target.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...core.model import Obj, Warning
from ...core.trees import copy_tree
from ...core.world import World
from . import names as N
from . import gang_terminate as GT
from . import objects as O
from . import update_common as U
from .controller.podcliqueset.components.podgang import mirror_pcs_metadata
from .controller.podcliqueset.components.service import excess_headless_services
from .controller.podcliqueset.components.serviceaccount_rbac import has_service_account_token
from .diagnose import describe_finished_pod, finished_pods
from .hashing import _digest, pod_template_inputs
from .spec import PCS

#: env vars the operator writes into a scaling-group member PodClique's pod spec
#: (docs/user-guide/03_environment-variables-for-pod-discovery/02_env_var_reference.md)
INJECTED_ENV = frozenset({"GROVE_PCSG_NAME", "GROVE_PCSG_INDEX", "GROVE_PCSG_TEMPLATE_NUM_PODS", "GROVE_PCS_NAME",
                          "GROVE_PCS_INDEX", "GROVE_PCLQ_NAME", "GROVE_HEADLESS_SERVICE", "GROVE_PCLQ_POD_INDEX"})
OPERATOR_LABELS = frozenset({N.L_MANAGED_BY, N.L_PART_OF, N.L_NAME, N.L_COMPONENT})
OPAQUE = "observed:"


def _strip_injected(pod_spec: Any) -> dict[str, Any]:
    spec = copy_tree(dict(pod_spec)) if isinstance(pod_spec, Mapping) else {}
    for key in ("containers", "initContainers"):
        cs = spec.get(key)
        if not isinstance(cs, list):
            continue
        out = []
        for c in cs:
            if isinstance(c, dict) and isinstance(c.get("env"), list):
                c = dict(c)
                env = [e for e in c["env"] if not (isinstance(e, Mapping) and e.get("name") in INJECTED_ENV)]
                if env:
                    c["env"] = env
                else:
                    c.pop("env")
            out.append(c)
        spec[key] = out
    return spec


def _strip_mnnvl(spec: dict[str, Any]) -> dict[str, Any]:
    """Undo the MNNVL injection (a ``mnnvl-claim`` pod resource claim and its
    per-container claim references), which the builders add after hashing.
    Upstream: ``operator/internal/mnnvl/injection.go`` ``InjectMNNVLIntoPodSpec``."""
    rc = spec.get("resourceClaims")
    if not isinstance(rc, list) or not any(isinstance(c, Mapping) and c.get("name") == N.MNNVL_CLAIM for c in rc):
        return spec
    rc = [c for c in rc if not (isinstance(c, Mapping) and c.get("name") == N.MNNVL_CLAIM)]
    if rc:
        spec["resourceClaims"] = rc
    else:
        spec.pop("resourceClaims")
    for key in ("containers", "initContainers"):
        cs = spec.get(key)
        if not isinstance(cs, list):
            continue
        for c in cs:
            res = c.get("resources") if isinstance(c, dict) else None
            claims = res.get("claims") if isinstance(res, dict) else None
            if isinstance(claims, list):
                kept = [x for x in claims if not (isinstance(x, Mapping) and x.get("name") == N.MNNVL_CLAIM)]
                if kept:
                    res["claims"] = kept
                else:
                    res.pop("claims")
    return spec


def pclq_template_digest(pclq: Obj, priority_class_name: str | None, source: PCS | None = None) -> str:
    """Our digest of the template an observed PodClique carries (see module doc), with
    the edits the builders make after taking the hash undone: the scaling-group env
    vars and the MNNVL claim are removed, and the topology-name annotation (dropped from
    the PodClique) is put back from the template that wrote it (``source``'s clique
    found by name suffix, as the builders find it)."""
    labels = {k: v for k, v in pclq.labels.items() if k not in OPERATOR_LABELS and not k.startswith("grove.io/")}
    annotations = dict(pclq.annotations)
    tmpl = source.template_clique_for(pclq.name) if source is not None else None
    if tmpl is not None:
        topo = (tmpl.raw.get("annotations") or {}).get(N.A_TOPOLOGY_NAME)
        if topo is not None:
            annotations[N.A_TOPOLOGY_NAME] = topo
    # a PodClique's own maps always hold the operator's entries, so whether the template's
    # map was absent (nil) or empty, which the hash tells apart, is the template's
    clique = {"labels": labels or _template_map(tmpl, "labels"),
              "annotations": annotations or _template_map(tmpl, "annotations"),
              "spec": {"podSpec": _strip_mnnvl(_strip_injected(pclq.spec.get("podSpec")))}}
    return _digest(pod_template_inputs(clique, priority_class_name, tmpl.stored if tmpl is not None else None))


def _template_map(tmpl: Any, key: str) -> dict[str, Any] | None:
    """The clique template's empty ``key`` map as written: {} when the template has one,
    None (nil) when it has none or there is no template."""
    return {} if tmpl is not None and isinstance(tmpl.raw.get(key), Mapping) else None


def _map(token: Any, table: Mapping[str, str]) -> Any:
    if not isinstance(token, str) or not token:
        return token
    if token in table:
        return table[token]
    return token if token.startswith(OPAQUE) else OPAQUE + token


def _relabel(raw: dict[str, Any], table: Mapping[str, str]) -> None:
    md = raw.get("metadata")
    if isinstance(md, dict) and isinstance(md.get("labels"), Mapping) and N.L_TEMPLATE_HASH in md["labels"]:
        labels = dict(md["labels"])
        labels[N.L_TEMPLATE_HASH] = _map(labels[N.L_TEMPLATE_HASH], table)
        md["labels"] = labels


def translate_live(desired: PCS, live_pcs: Obj | None, children: Sequence[Obj]) -> tuple[list[Obj], dict[str, Any]]:
    """Observed children with hash tokens translated, and the PodCliqueSet status to
    start from. Without an observed PodCliqueSet the current generation is taken as
    the desired one when every observed PodClique already carries the desired
    template, else as unknown (so an update starts)."""
    live_spec_pcs = PCS(live_pcs) if live_pcs is not None and isinstance(live_pcs.spec.get("template"), Mapping) else None
    pcn = (live_spec_pcs or desired).priority_class_name
    pod_table: dict[str, str] = {}
    # only this PodCliqueSet's PodCliques (part-of label, as controllers.owned selects
    # them): another PodCliqueSet's children in the namespace say nothing about ours
    pclqs = [o for o in children if o.kind == "PodClique" and o.labels.get(N.L_PART_OF) == desired.name
             and o.namespace == desired.namespace]
    all_desired = True
    for pclq in pclqs:
        tok = pclq.labels.get(N.L_TEMPLATE_HASH)
        if not tok:
            continue
        d = pclq_template_digest(pclq, pcn, live_spec_pcs or desired)
        pod_table.setdefault(tok, d)
        c = desired.template_clique_for(pclq.name) if U.clique_of(desired, pclq) is not None else None
        if c is None or d != c.template_hash:
            all_desired = False
    status: dict[str, Any] = dict(live_pcs.status) if live_pcs is not None else {}
    gen_table: dict[str, str] = {}
    tok = status.get("currentGenerationHash")
    if isinstance(tok, str) and tok:
        if live_spec_pcs is not None:
            gen_table[tok] = live_spec_pcs.generation_hash
        elif all_desired:
            gen_table[tok] = desired.generation_hash
    if not status.get("currentGenerationHash") and pclqs:
        status["currentGenerationHash"] = desired.generation_hash if all_desired else OPAQUE + "unknown"
    else:
        status["currentGenerationHash"] = _map(status.get("currentGenerationHash"), gen_table)
    out: list[Obj] = []
    for o in children:
        if o.kind == "Secret":
            out.append(_token_written(o))
            continue
        if o.kind not in ("PodClique", "Pod", "PodCliqueScalingGroup"):
            out.append(o)
            continue
        raw = copy_tree(dict(o.raw))
        _relabel(raw, pod_table)
        st = raw.get("status")
        if isinstance(st, dict):
            for k in ("currentPodTemplateHash",):
                if k in st:
                    st[k] = _map(st[k], pod_table)
            for k in ("currentPodCliqueSetGenerationHash",):
                if k in st:
                    st[k] = _map(st[k], gen_table)
            up = st.get("updateProgress")
            if isinstance(up, dict):
                if "podTemplateHash" in up:
                    up["podTemplateHash"] = _map(up["podTemplateHash"], pod_table)
                if "podCliqueSetGenerationHash" in up:
                    up["podCliqueSetGenerationHash"] = _map(up["podCliqueSetGenerationHash"], gen_table)
        out.append(Obj(raw, o.file, o.line, o.lines))
    return out, status


def _token_written(secret: Obj) -> Obj:
    """An observed ServiceAccount token Secret without ``data.token`` (a snapshot that
    leaves Secret data out, or an assumed Secret ``--from-cluster`` could not read) is
    taken as the token controller keeps it, with its token written: the controller fills
    it moments after the Secret is created, and the PodCliqueSet reconcile waits for
    nothing else there (``satokensecret.go`` ``hasServiceAccountToken``)."""
    if secret.raw.get("type") != N.SA_TOKEN_SECRET_TYPE or has_service_account_token(secret):
        return secret
    data = secret.raw.get("data")
    raw = dict(secret.raw)
    raw["data"] = {**(data if isinstance(data, Mapping) else {}), "token": "<observed>"}
    return Obj(raw, secret.file, secret.line, secret.lines)


# ----------------------------------------------------------------------------- warnings


def partition_owned(pcs: PCS, children: Sequence[Obj]) -> tuple[list[Obj], list[Obj]]:
    """Observed children that belong to this PodCliqueSet, and those that belong to
    another one. The operator lists its children by the ``app.kubernetes.io/part-of``
    label and owns them through a controller reference; it never updates or deletes
    another owner's objects (``controllerutil.SetControllerReference`` refuses with
    ``AlreadyOwnedError``). Objects without either mark are taken as ours. Objects of a
    kind the operator never creates (``names.CHILD_KINDS``: a ConfigMap, a
    ResourceClaimTemplate beside the PodCliqueSet in the same file) are neither: the
    operator never lists them, so they do not make the observed input a live cluster."""
    ours: list[Obj] = []
    foreign: list[Obj] = []
    for o in children:
        if o.kind not in N.CHILD_KINDS:
            continue
        part_of = o.labels.get(N.L_PART_OF)
        owner = next((r for r in o.owner_references if r.get("controller")), None)
        other_label = part_of is not None and part_of != pcs.name
        other_owner = (owner is not None and owner.get("kind") == "PodCliqueSet" and owner.get("name") != pcs.name)
        (foreign if (o.namespace == pcs.namespace and (other_label or other_owner)) else ours).append(o)
    return ours, foreign


def foreign_warnings(pcs: PCS, foreign: Sequence[Obj]) -> tuple[Warning, ...]:
    """Objects of another owner that carry names this PodCliqueSet's children would take:
    the operator's create of that name fails, so those children never appear."""
    out = []
    for o in sorted(foreign, key=lambda o: (o.kind, o.name)):
        if o.name.startswith(pcs.name + "-") or o.name == pcs.name:
            owner = o.labels.get(N.L_PART_OF) or next(
                (r.get("name") for r in o.owner_references if r.get("controller")), "another owner")
            out.append(Warning("ForeignObject", f"{o.kind} {o.name} belongs to {owner}, not {pcs.name}: the operator "
                               "never updates or deletes it, and creating a child of that name fails "
                               "(controllerutil.SetControllerReference: AlreadyOwnedError)", f"{o.kind}/{o.name}"))
    return tuple(out)


def hazard_warnings(pcs: PCS) -> list[Warning]:
    """Clique names where one is a suffix of another: the PodCliqueSet and scaling-group
    builders pick a PodClique's template by "name ends with clique name", first match
    in ``cliques`` order, so the longer name can get the shorter one's template.
    Upstream: ``podcliqueset/components/podclique/podclique.go`` ``buildResource``
    (``strings.HasSuffix``); no upstream issue yet."""
    out = []
    for i, a in enumerate(pcs.cliques):
        for b in pcs.cliques:
            if a.name != b.name and b.name.endswith(a.name) and a.index < b.index:
                out.append(Warning(
                    "CliqueNameSuffixHazard",
                    f"clique {a.name!r} is a suffix of {b.name!r} and is listed first: the operator matches a "
                    f"PodClique's template by name suffix and takes the first match, so PodCliques of {b.name!r} "
                    f"would be built from {a.name!r}'s template (upstream podclique.go buildResource, "
                    "strings.HasSuffix). Rename one of them.",
                    f"spec.template.cliques[{b.index}].name"))
    return out


def excess_service_warnings(pcs: PCS, world: World) -> list[Warning]:
    """Headless Services of replicas at or above ``spec.replicas`` when the plan ends:
    upstream's Service ``Sync`` creates or patches the expected ones and never deletes
    the others, so a scale-in leaves them (selecting no pod) until the PodCliqueSet is
    deleted. Upstream: ``podcliqueset/components/service/service.go`` ``Sync``."""
    svcs = excess_headless_services(pcs, world)
    if not svcs:
        return []
    names = ", ".join(s.name for s in svcs)
    return [Warning("HeadlessServiceLeftBehind",
                    f"headless Service{'s' if len(svcs) != 1 else ''} {names} of replicas scaled away stay: the "
                    "operator's Service sync never deletes them (only deleting the PodCliqueSet does); delete "
                    "them by hand if nothing else uses them (upstream service.go Sync)", "spec.replicas")]


def rolling_cliques(pcs: PCS, world: World) -> set[str]:
    """Cliques whose existing PodCliques carry another template than the desired one."""
    out = set()
    for pclq in world.index("PodClique", N.L_PART_OF).get(pcs.name, ()):
        c = U.clique_of(pcs, pclq)
        if c is not None and pclq.labels.get(N.L_TEMPLATE_HASH) != c.template_hash:
            out.add(c.name)
        elif c is not None:
            target = c.template_hash
            if any(U.pod_outdated(p, target) and not p.terminating for p in U.pods_of(world, pclq)):
                out.add(c.name)
    return out


def crash_loop_warnings(pcs: PCS, world: World) -> list[Warning]:
    """``ObservedCrashLoop``: live pods in ``CrashLoopBackOff``, which the plan takes never
    to turn Ready (``cluster.never_ready``)."""
    pods = sorted(p.name for p in world.index("Pod", N.L_PART_OF).get(pcs.name, ())
                  if p.namespace == pcs.namespace and not p.terminating and O.crash_looping(p))
    if not pods:
        return []
    return [Warning("ObservedCrashLoop", f"{_some(pods)} {'is' if len(pods) == 1 else 'are'} in CrashLoopBackOff: the "
                    "plan takes them never to turn Ready (as --never-ready would) until Grove replaces them; a "
                    "container that recovers changes the plan", f"Pod/{pods[0]}.status.containerStatuses")]


def breach_warnings(pcs: PCS, world: World, since: float | None) -> list[Warning]:
    """``ObservedMinAvailableBreach``: the armed breaches of a live world (gang termination
    counts them, ``gang_terminate.armed_breaches``) with how much of ``terminationDelay``
    is left at ``since`` (``snapshot_time``): none, and the plan's first pass
    gang-terminates the replica; some, and the plan lets it pass only if nothing else
    can happen first (the model is untimed)."""
    out = []
    delay = GT.termination_delay(pcs)
    for o in GT.armed_breaches(pcs, world):
        cond = GT.condition(o, GT.MIN_AVAILABLE_BREACHED) or {}
        left = GT.wait_for(pcs, o, since) if since is not None else None
        head = (f"{o.kind} {o.name} has been below minAvailable since {cond.get('lastTransitionTime')} "
                f"(MinAvailableBreached=True)")
        if left is None:
            tail = f"terminationDelay ({delay}) is taken to pass only when nothing else can happen first"
        elif left <= 0:
            what = ("recreates its scaling-group replica (processMinAvailableBreachedPCSGReplicas), or gang-terminates "
                    "the whole PodCliqueSet replica when its scaling group is below minAvailable too"
                    if o.kind == "PodClique" and o.labels.get(N.L_PCSG) else
                    "gang-terminates its PodCliqueSet replica (getPCSReplicaDeletionWork)")
            tail = f"its terminationDelay ({delay}) has run out by the snapshot's newest time: the first pass {what}"
        else:
            tail = (f"{int(left)}s of its terminationDelay ({delay}) are left at the snapshot's newest time; the plan "
                    "lets them pass only when nothing else can happen first (the model is untimed)")
        out.append(Warning("ObservedMinAvailableBreach", f"{head}; {tail}", f"{o.kind}/{o.name}.status.conditions"))
    return out


def initial_warnings(pcs: PCS, world: World) -> tuple[Warning, ...]:
    """Warnings about where the plan starts: a rollout that restarts, cliques whose
    rollout dips below ``minAvailable`` (the ``<`` guard, issue #697), Ready pods with a
    past crash that are deleted at once (#697), an update that ends before the new pods
    are Ready (#786: old pods not Ready, or Ready pods already on the desired template
    that ``isCurrentPodUpdateComplete`` counts), pods a revert would keep that the live
    objects do not let the plan recognize, template ``replicas`` edits that existing
    objects ignore. The clique and scaling-group warnings describe the operator's own
    rolling update (``rollingupdate.go``): they are given under RollingRecreate only, not
    under the proposed strategies, whose budgets decide instead."""
    out: list[Warning] = []
    st = U.live_pcs_status(pcs, world)
    if isinstance(st.get("rollingUpdateProgress"), Mapping) and not isinstance(st.get("updateProgress"), Mapping):
        out.append(Warning(
            "ObservedOlderOperator", "the live PodCliqueSet status has rollingUpdateProgress, which Grove wrote before "
            "it became updateProgress (PR #576); the modelled operator reads only updateProgress, so the plan takes no "
            "rolling update as in progress (as the modelled operator would, after an upgrade)",
            "status.rollingUpdateProgress"))
    auto = U.is_auto_update_strategy(pcs)
    gen = st.get("currentGenerationHash")
    up = st.get("updateProgress")
    if auto and gen and gen != pcs.generation_hash and isinstance(up, Mapping) and not up.get("updateEndedAt"):
        cur = U.currently_updating(st)
        where = f" (replica {cur} was being updated)" if cur is not None else ""
        out.append(Warning(
            "RolloutRestarts",
            f"a rolling update is in progress{where} and this change moves the template again: the operator "
            "resets the update, picks replicas again from the first in order, and pods already on the "
            "intermediate template count as old and are replaced again (upstream issues #400, #565)",
            "spec.template"))
    changing = rolling_cliques(pcs, world) if gen else set()
    pclqs = world.index("PodClique", N.L_PART_OF).get(pcs.name, ())
    if pcs.strategy_type == U.ROLLING_RECREATE:
        for c in pcs.standalone:
            if c.name not in changing:
                continue
            if not c.rolling_update:
                reps = {U.int_field(p.spec.get("replicas"), c.replicas) for p in pclqs
                        if U.is_standalone_pclq(p) and U.clique_of(pcs, p) == c}
                if any(r <= c.min_available for r in reps):
                    out.append(Warning(
                        "MinAvailableDipDuringUpdate",
                        f"clique {c.name}: replicas equal minAvailable ({c.min_available}), yet the update deletes a "
                        "Ready pod whenever readyReplicas is not below minAvailable, so each replacement drops the "
                        "clique below minAvailable until the new pod is Ready (upstream issue #697, PR #698)",
                        f"spec.template.cliques[{c.index}].spec.minAvailable"))
                unready = sorted(
                    pod.name for p in pclqs if U.is_standalone_pclq(p) and U.clique_of(pcs, p) == c
                    for pod in U.pods_of(world, p)
                    if not pod.terminating and U.pod_outdated(pod, c.template_hash)
                    and U.classify_old_pod(pod) != U.READY_POD)
                if unready:
                    # processPendingUpdates waits for a selected Ready pod's replacement
                    # (isCurrentPodUpdateComplete); pods deleted by deleteOldNonReadyPods skip that
                    out.append(Warning(
                        "UpdateEndsBeforeReady",
                        f"clique {c.name}: old-template pod{'s' if len(unready) > 1 else ''} {', '.join(unready)} "
                        f"{'are' if len(unready) > 1 else 'is'} not Ready (or counted unhealthy) and deleted at once, "
                        "outside the one-at-a-time selection, so the PodClique can mark its update ended before "
                        "the replacements are Ready; do not read status.updateProgress.updateEndedAt as "
                        "'rollout healthy' (upstream issue #786)",
                        f"spec.template.cliques[{c.index}]"))
                counted = sorted(name for p in pclqs if U.is_standalone_pclq(p) and U.clique_of(pcs, p) == c
                                 for name in uncounted_new_ready(p, U.pods_of(world, p), c.template_hash,
                                                                 restarts=gen != pcs.generation_hash))
                if counted:
                    out.append(Warning(
                        "UpdateEndsBeforeReady",
                        f"clique {c.name}: pod{'s' if len(counted) > 1 else ''} {_some(counted)} already "
                        f"run{'' if len(counted) > 1 else 's'} the desired template and {'are' if len(counted) > 1 else 'is'} "
                        "Ready, and the check that a selected pod's update is complete counts every Ready pod on "
                        "the desired template, not only the replacements, so once a selected old pod is "
                        "terminating the update moves on without waiting for its replacement (only readyReplicas "
                        "< minAvailable holds it back) and the PodClique marks its update ended before the last "
                        "replacements are Ready (a revert, or an update restarted after some pods were replaced); "
                        "do not read status.updateProgress.updateEndedAt as 'rollout healthy' "
                        "(rollingupdate.go isCurrentPodUpdateComplete; upstream issue #786)",
                        f"spec.template.cliques[{c.index}]"))
                before = sorted(name for p in pclqs if U.is_standalone_pclq(p) and U.clique_of(pcs, p) == c
                                for name in on_unknown_previous_template(p, U.pods_of(world, p), c.template_hash))
                if before:
                    out.append(Warning(
                        "RevertNotRecognized",
                        f"clique {c.name}: pod{'s' if len(before) > 1 else ''} {_some(before)} still "
                        f"run{'' if len(before) > 1 else 's'} "
                        "the template their PodClique last completed an update to (status.currentPodTemplateHash); "
                        "no observed object holds that template, so the plan takes "
                        "them as outdated and replaces them. If this change goes back to that template, the operator "
                        "keeps them instead (their hash label is the desired one) and counts them among the Ready pods on "
                        "the desired template, so it replaces the other pods without waiting for each replacement and "
                        "ends the update before the replacements are Ready (rollingupdate.go computeUpdateWork, "
                        "isCurrentPodUpdateComplete)", f"spec.template.cliques[{c.index}]"))
            crashed = []
            for p in pclqs:
                if U.is_standalone_pclq(p) and U.clique_of(pcs, p) == c:
                    for pod in U.pods_of(world, p):
                        if not pod.terminating and U.pod_outdated(pod, c.template_hash) and \
                                U.has_past_crash(pod) and O.pod_ready(pod):
                            crashed.append(pod.name)
            if crashed:
                out.append(Warning(
                    "ReadyPodDeletedAtOnce",
                    f"clique {c.name}: Ready pod{'s' if len(crashed) > 1 else ''} {', '.join(sorted(crashed))} "
                    "once exited with a non-zero code; the operator classes such a pod as unhealthy and deletes it "
                    "at once, outside the one-at-a-time order and the minAvailable guard (upstream issue #697, PR #766)",
                    f"spec.template.cliques[{c.index}]"))
        for g in pcs.groups:
            if not any(cn in changing for cn in g.clique_names) or g.rolling_update:
                continue
            for pcsg in world.index("PodCliqueScalingGroup", N.L_PART_OF).get(pcs.name, ()):
                if U.group_of_pcsg(pcs, pcsg) == g and U.int_field(pcsg.spec.get("replicas"), g.replicas) <= g.min_available:
                    out.append(Warning(
                        "MinAvailableDipDuringUpdate",
                        f"scaling group {g.name}: replicas equal minAvailable ({g.min_available}); a ready replica is "
                        "recreated whenever availableReplicas is not below minAvailable, so the group drops below "
                        "minAvailable while each replica is recreated (upstream podcliquescalinggroup rollingupdate.go)",
                        f"spec.template.podCliqueScalingGroups[{pcs.groups.index(g)}].minAvailable"))
                    break
    out += template_replicas_warnings(pcs, world)
    out += finished_pod_warnings(pcs, world)
    return tuple(out)


def _some(names: list[str]) -> str:
    """Up to five names, and how many more."""
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def uncounted_new_ready(pclq: Obj, pods: Sequence[Obj], target: str, restarts: bool) -> list[str]:
    """Ready pods of a standalone PodClique already on the ``target`` template beyond
    those its update has selected so far, when a Ready old pod is left to select: the
    pods that make ``isCurrentPodUpdateComplete`` (``rollingupdate.go``) pass before a
    replacement is Ready. It counts every Ready pod on the target template
    (``computeUpdateWork``: ``newTemplateHashReadyPods``, whatever made them) against the
    pods selected so far plus the current one (``readyPodsSelectedToUpdate``); the
    selection starts empty when the update starts or is reset (``restarts``: the
    PodCliqueSet's generation hash changes, ``initOrResetUpdate`` in
    ``podclique/reconcilespec.go``; or no update of this PodClique is in progress). Their
    names, all of them, or none when they do not outnumber the selection, or only match
    it while no pod on the target template waits to become Ready (``isCurrentPodUpdateComplete``
    passes at equality: with a replacement still not Ready, one of the counted pods is not
    a replacement)."""
    new_ready = [p.name for p in pods if not p.terminating and not U.pod_outdated(p, target) and O.pod_ready(p)]
    if not any(not p.terminating and U.pod_outdated(p, target) and U.classify_old_pod(p) == U.READY_POD
               for p in pods):
        return []
    selected = 0
    up = U.update_progress(pclq)
    if not restarts and up is not None and not up.get("updateEndedAt"):
        sel = up.get("readyPodsSelectedToUpdate")
        if isinstance(sel, Mapping) and sel.get("current"):
            done = sel.get("completed")
            selected = 1 + (len(done) if isinstance(done, list) else 0)
    waiting = any(not p.terminating and not U.pod_outdated(p, target) and not O.pod_ready(p) for p in pods)
    return new_ready if len(new_ready) > selected or (selected and len(new_ready) == selected and waiting) else []


def on_unknown_previous_template(pclq: Obj, pods: Sequence[Obj], target: str) -> list[str]:
    """Pods of a PodClique that still carry the template hash its last completed update
    rolled out (``status.currentPodTemplateHash``, which ``mutateCurrentHashes`` in
    ``podclique/reconcilestatus.go`` leaves alone while the PodClique's pods are on
    another template than its spec) when that hash is an opaque token (``translate_live``:
    no observed PodClique carries the template) and the desired ``target`` is neither the
    PodClique's template: the pods a revert to that earlier template would keep."""
    cur = pclq.status.get("currentPodTemplateHash")
    if not isinstance(cur, str) or not cur.startswith(OPAQUE) or pclq.labels.get(N.L_TEMPLATE_HASH) == target:
        return []
    return [p.name for p in pods if not p.terminating and p.labels.get(N.L_TEMPLATE_HASH) == cur]


def finished_pod_warnings(pcs: PCS, world: World) -> list[Warning]:
    """Observed Failed or Succeeded pods (evicted, or exited under restartPolicy Never
    or OnFailure): they still count toward their PodClique's replicas, so the operator
    does not replace them until they are deleted.
    Upstream: ``podclique/components/pod/syncflow.go``
    ``syncExpectationsAndComputeDifference``; ``pod/pod.go`` (final-state pods are not
    filtered)."""
    return [Warning("FinishedPodNotReplaced",
                    f"{describe_finished_pod(p)}: it still counts toward PodClique {p.labels.get(N.L_PCLQ, '?')}'s "
                    "replicas, so the operator does not replace it and the clique runs one Ready pod short until "
                    "the pod is deleted, by hand or by a rolling update of its clique (which deletes non-ready "
                    f"old pods first) (kubectl delete pod -n {p.namespace} {p.name}; upstream syncflow.go "
                    "syncExpectationsAndComputeDifference)", f"Pod/{p.name}")
            for p in finished_pods(pcs, world)]


def template_replicas_warnings(pcs: PCS, world: World) -> list[Warning]:
    """A template ``replicas`` that existing objects ignore: a PodClique keeps its own
    ``spec.replicas`` and a scaling group its own, the template value applies only to
    objects created later (new PodCliqueSet replicas; scaling-group members recreated
    by an update or gang termination).
    Upstream: ``podcliqueset/components/podclique/podclique.go`` and
    ``components/podcliquescalinggroup/podcliquescalinggroup.go`` ``buildResource``."""
    out = []
    seen: set[str] = set()
    for p in world.index("PodClique", N.L_PART_OF).get(pcs.name, ()):
        c = U.clique_of(pcs, p)
        if c is None or c.name in seen or not U.is_standalone_pclq(p):
            continue
        have = U.int_field(p.spec.get("replicas"), c.replicas)
        if have != c.replicas:
            seen.add(c.name)
            out.append(Warning(
                "TemplateReplicasIgnored",
                f"clique {c.name}: template replicas is {c.replicas} but existing PodCliques keep {have}; only "
                "PodCliques created later use the template value (scale the PodClique itself, or its HPA, to change "
                "running replicas)", f"spec.template.cliques[{c.index}].spec.replicas"))
    for pcsg in world.index("PodCliqueScalingGroup", N.L_PART_OF).get(pcs.name, ()):
        g = U.group_of_pcsg(pcs, pcsg)
        if g is None or g.name in seen:
            continue
        have = U.int_field(pcsg.spec.get("replicas"), g.replicas)
        if have != g.replicas:
            seen.add(g.name)
            out.append(Warning(
                "TemplateReplicasIgnored",
                f"scaling group {g.name}: template replicas is {g.replicas} but existing scaling groups keep {have}; "
                "spec.replicas of a PodCliqueScalingGroup is set only when it is created",
                f"spec.template.podCliqueScalingGroups[{pcs.groups.index(g)}].replicas"))
    for c in pcs.cliques:
        if c.name in seen or c.name not in pcs.group_of_clique:
            continue
        for p in world.index("PodClique", N.L_PART_OF).get(pcs.name, ()):
            if U.clique_of(pcs, p) == c and U.int_field(p.spec.get("replicas"), c.replicas) != c.replicas:
                seen.add(c.name)
                out.append(Warning(
                    "TemplateReplicasIgnored",
                    f"clique {c.name}: template replicas is {c.replicas} but existing member PodCliques keep "
                    f"{U.int_field(p.spec.get('replicas'), c.replicas)}; recreated scaling-group replicas take the "
                    "template value", f"spec.template.cliques[{c.index}].spec.replicas"))
                break
    return out


def metadata_not_mirrored(pcs: PCS, world: World) -> list[Warning]:
    """At the end of a plan whose update the PodCliqueSet controller does not reconcile
    (``register.pcs_update_reconciles``): PodGangs that do not carry the PodCliqueSet's
    labels and annotations yet. Upstream: ``podcliqueset/register.go``
    ``podCliqueSetPredicate``; ``podgang.go`` ``mirrorPCSMetadata``."""
    for pg in world.index("PodGang", N.L_PART_OF).get(pcs.name, ()):
        if pg.namespace != pcs.namespace or pg.terminating:
            continue
        if mirror_pcs_metadata(pg, O.build_podgang(pcs, pg.name, [])):
            return [Warning(
                "MetadataNotMirrored",
                "the PodGangs do not carry the PodCliqueSet's current labels and annotations, and this update leaves "
                "its spec (so its generation) as it is: the PodCliqueSet controller reconciles on a generation change "
                f"or a changed {N.A_RECONCILE_TRIGGER} annotation only (podcliqueset/register.go "
                "podCliqueSetPredicate), so the plan leaves the PodGangs as they are; mirrorPCSMetadata (podgang.go) "
                "copies the entries at the next reconcile something else brings: a change of a PodClique's spec or "
                "status (an autoscaler resizing a clique, a pod turning Ready or failing), of a scaling group's "
                "status, a PodClique deleted, a later spec change, a new "
                f"{N.A_RECONCILE_TRIGGER} value, the controller's own requeue while a rolling update or a minAvailable "
                "breach is in progress, an operator restart", "metadata")]
    return []
