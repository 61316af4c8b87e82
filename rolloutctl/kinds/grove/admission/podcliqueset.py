"""The PodCliqueSet webhook's create rules for the object's metadata, its spec and each
clique: names, the name-length budget, labels, replicas and minAvailable,
``startsAfter`` entries, autoscaling bounds, the pod spec and container env.

Upstream (Grove ``fcc3b3bb``, commit fcc3b3bbbc5e6a2a797cd080bdbc6983b1ccec24):
``operator/internal/webhook/admission/pcs/validation/podcliqueset.go``, section "validate create of PodCliqueSet": ``validate``,
``validatePodCliqueSetSpec``, ``validatePodCliqueTemplates`` and what it calls
(``validatePodCliqueTemplateName``, ``validatePodCliqueNameConstraints``,
``validatePodNameConstraints``, ``validatePodCliqueTemplateSpec``, ``validateSchedulerNames``,
``validatePodCliqueSpec``, ``validateScaleConfig``, ``validatePodSpec``,
``validateContainerEnvVars``, and ``sliceMustHaveUniqueElements`` of ``util.go`` on clique
names and roles). The template-level rules of the same section are in
``podcliqueset_template.py``; the update section is ``podcliqueset_update.py``. The Go
file is split in three so that no module passes ~600 lines.

Each rule receives a :class:`~.request.Check` and yields ``(path, message)`` pairs; its
docstring is its documentation (``rolloutctl rules ID``). Whether the scheduler backend named is enabled in the operator
configuration is not checked: it is assumed enabled (CONTRACT.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from ....core.k8s_syntax import is_dns1123_subdomain, is_qualified_name, is_valid_label_value
from .request import Check
from .util import (EXPLICIT, clique_scheduler_name, SCHEDULER_BACKENDS, TEMPLATE, Problem, as_int, as_list, as_map, as_str, clique_path, find_duplicates,
                   group_path, quote_name)

MAX_COMBINED_RESOURCE_NAME_LENGTH = 45  # podcliqueset.go maxCombinedResourceNameLength
_ENV_VAR_NAME_RE = re.compile(r"^[-._a-zA-Z][-._a-zA-Z0-9]*$")


def validate_object_meta(c: Check) -> Iterator[Problem]:
    """The PodCliqueSet name must be a valid DNS subdomain.

    The webhook runs the standard object-metadata validation with
    ``NameIsDNSSubdomain``: lower-case alphanumerics, '-' and '.', starting and
    ending with an alphanumeric, at most 253 characters.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validate (apivalidation.ValidateObjectMeta)

    Bad:
        metadata:
          name: My_Inference

    Good:
        metadata:
          name: my-inference

    Remediation: Rename the PodCliqueSet with lower-case letters, digits and '-'.
    """
    for e in is_dns1123_subdomain(c.name):
        yield ("metadata", "name"), f"invalid name {quote_name(c.name)}: {e}"


def validate_pod_clique_set_spec(c: Check) -> Iterator[Problem]:
    """``spec.replicas`` must not be negative.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validatePodCliqueSetSpec

    Bad:
        spec:
          replicas: -1

    Good:
        spec:
          replicas: 2

    Remediation: Set spec.replicas to 0 or more.
    """
    r = as_int(c.spec.get("replicas"))
    if r is not None and r < 0:
        yield ("spec", "replicas"), f"must be greater than or equal to 0 (got {r})"


def validate_pod_clique_templates(c: Check) -> Iterator[Problem]:
    """A PodCliqueSet must define at least one clique.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validatePodCliqueTemplates

    Bad:
        spec:
          template:
            cliques: []

    Good:
        spec:
          template:
            cliques:
            - name: worker
              spec: {roleName: worker, replicas: 1, podSpec: {containers: [{name: w, image: busybox}]}}

    Remediation: Add a clique under spec.template.cliques.
    """
    if not c.cliques:
        yield (*TEMPLATE, "cliques"), "at least one PodClique must be defined"


def validate_pod_clique_template_name(c: Check) -> Iterator[Problem]:
    """Each clique name must be non-empty and a valid DNS subdomain.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validatePodCliqueTemplateName (and validatePodCliqueNameConstraints)

    Bad:
        cliques:
        - name: prefill_worker

    Good:
        cliques:
        - name: prefill-worker

    Remediation: Use lower-case letters, digits and '-' in clique names.
    """
    for i, cl in c.cliques:
        name = as_str(cl.get("name"))
        if not name.strip():
            yield clique_path(i, "name"), "field cannot be empty"
        elif is_dns1123_subdomain(name):
            yield clique_path(i, "name"), f"invalid PodCliqueTemplateSpec name {name!r}, must be a valid DNS subdomain"


def validate_pod_name_constraints(c: Check) -> Iterator[Problem]:
    """PodCliqueSet, scaling-group and clique names together must fit in 45 characters.

    Pod names are built as ``<pcs>-<i>-<clique>-<suffix>`` (standalone clique) or
    ``<pcs>-<i>-<pcsg>-<j>-<clique>-<suffix>`` (clique of a scaling group) and must
    fit in 63 characters. The webhook therefore limits len(pcs) + len(clique), plus
    len(pcsg) for scaling-group members, to 45. Replica-index digits are not counted.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validatePodNameConstraints

    Bad:
        metadata:
          name: verylongpodcliquesetname        # 24
        spec:
          template:
            cliques:
            - name: verylongpodcliquename      # 21 -> 24 + 21 + 20 = 65
            podCliqueScalingGroups:
            - name: verylongscalinggroup       # 20
              cliqueNames: [verylongpodcliquename]

    Good:
        metadata:
          name: inference
        spec:
          template:
            cliques:
            - name: prefill
            podCliqueScalingGroups:
            - name: workers
              cliqueNames: [prefill]

    Remediation: Shorten the PodCliqueSet, scaling-group or clique name.
    """
    pcs = c.name
    in_group = c.scaling_group_clique_names()
    for i, cl in c.cliques:
        name = as_str(cl.get("name"))
        if not name.strip() or is_dns1123_subdomain(name) or name in in_group:
            continue  # invalid names are GV004; members are checked per group below
        total = len(pcs) + len(name)
        if total > MAX_COMBINED_RESOURCE_NAME_LENGTH:
            msg = (f"combined resource name length {total} exceeds the 45-character limit required for pod "
                   f"naming; shorten PodCliqueSet {quote_name(pcs)} or PodClique {quote_name(name)}")
            yield clique_path(i, "name"), msg
            yield ("metadata", "name"), msg
    for gi, g in c.groups:
        gname = as_str(g.get("name"))
        for j, member in enumerate(as_list(g.get("cliqueNames"))):
            member = as_str(member)
            total = len(pcs) + len(gname) + len(member)
            if total > MAX_COMBINED_RESOURCE_NAME_LENGTH:
                msg = (f"combined resource name length {total} exceeds the 45-character limit required for pod "
                       f"naming; shorten PodCliqueSet {quote_name(pcs)}, PodCliqueScalingGroup {quote_name(gname)} or "
                       f"PodClique {quote_name(member)}")
                yield group_path(gi, "cliqueNames", j), msg
                yield group_path(gi, "name"), msg
                yield ("metadata", "name"), msg


def validate_pod_clique_template_spec(c: Check) -> Iterator[Problem]:
    """Clique labels and annotations must be valid Kubernetes labels and annotations.

    Label keys and annotation keys are qualified names (optional DNS-subdomain
    prefix and '/', then at most 63 characters); label values are at most 63
    characters of alphanumerics, '-', '_' and '.'. Annotations together must stay
    under 256 KiB.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validatePodCliqueTemplateSpec (metav1validation.ValidateLabels, apivalidation.ValidateAnnotations)

    Bad:
        cliques:
        - name: worker
          labels:
            tier: "gpu workers"

    Good:
        cliques:
        - name: worker
          labels:
            tier: gpu-workers

    Remediation: Fix the label or annotation key or value.
    """
    for i, cl in c.cliques:
        for key, v in as_map(cl.get("labels")).items():
            for e in is_qualified_name(str(key)):
                yield clique_path(i, "labels", key), f"invalid label key {key!r}: {e}"
            val = v if isinstance(v, str) else ""
            if len(val) > 63:
                yield clique_path(i, "labels", key), f"invalid label value {val!r}: must be no more than 63 characters"
            elif is_valid_label_value(val):
                yield clique_path(i, "labels", key), (
                    f"invalid label value {val!r}: must be empty or consist of alphanumeric characters, '-', '_' "
                    "or '.', and must start and end with an alphanumeric character")
        anns = as_map(cl.get("annotations"))
        size = 0
        for key, v in anns.items():
            for e in is_qualified_name(str(key).lower()):
                yield clique_path(i, "annotations", key), f"invalid annotation key {key!r}: {e}"
            size += len(str(key)) + len(v if isinstance(v, str) else "")
        if size > 256 * 1024:
            yield clique_path(i, "annotations"), f"annotations are {size} bytes, must have at most 262144 bytes"


def slice_must_have_unique_elements_clique_names(c: Check) -> Iterator[Problem]:
    """Clique names must be unique within a PodCliqueSet.

    Upstream: operator/internal/webhook/admission/pcs/validation/util.go#sliceMustHaveUniqueElements (called from validatePodCliqueTemplates)

    Bad:
        cliques:
        - name: worker
        - name: worker

    Good:
        cliques:
        - name: worker
        - name: leader

    Remediation: Give every clique its own name.
    """
    names = [as_str(cl.get("name")) for _, cl in c.cliques]
    for d in find_duplicates(names):
        i = max(i for i, cl in c.cliques if as_str(cl.get("name")) == d)
        yield clique_path(i, "name"), f"duplicate clique name {d!r}"


def slice_must_have_unique_elements_role_names(c: Check) -> Iterator[Problem]:
    """Clique ``roleName`` values must be unique within a PodCliqueSet.

    Upstream: operator/internal/webhook/admission/pcs/validation/util.go#sliceMustHaveUniqueElements (called from validatePodCliqueTemplates)

    Bad:
        cliques:
        - name: leader
          spec: {roleName: worker}
        - name: worker
          spec: {roleName: worker}

    Good:
        cliques:
        - name: leader
          spec: {roleName: leader}
        - name: worker
          spec: {roleName: worker}

    Remediation: Give every clique its own roleName.
    """
    roles = [as_str(as_map(cl.get("spec")).get("roleName")) for _, cl in c.cliques]
    for d in find_duplicates(roles):
        i = max(i for i, cl in c.cliques if as_str(as_map(cl.get("spec")).get("roleName")) == d)
        yield clique_path(i, "spec", "roleName"), f"duplicate roleName {d!r}"


_scheduler_name = clique_scheduler_name


def validate_scheduler_names(c: Check) -> Iterator[Problem]:
    """All cliques must use the same scheduler, one Grove has a backend for (an empty schedulerName means ``default-scheduler``).

    An empty schedulerName is resolved to the operator's default scheduler profile
    (``default-scheduler``) before the names are compared, so ``default-scheduler``
    written on one clique and left out on another is the same scheduler. The
    scheduler must then be enabled in the operator configuration. Only
    ``default-scheduler``, ``kai-scheduler``, ``volcano`` and ``lpx-scheduler`` can
    ever be enabled (the operator refuses a configuration naming any other), so any
    other name is rejected; of those four the tool assumes the one named is
    enabled, and that the default profile is ``default-scheduler``.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validateSchedulerNames

    Bad:
        cliques:
        - name: a
          spec: {podSpec: {schedulerName: kai-scheduler}}
        - name: b
          spec: {podSpec: {}}

    Good:
        cliques:
        - name: a
          spec: {podSpec: {schedulerName: default-scheduler}}
        - name: b
          spec: {podSpec: {}}

    Remediation: Set the same spec.podSpec.schedulerName on every clique (or on none), naming a scheduler Grove supports.
    """
    seen: list[str] = []
    for _, cl in c.cliques:
        n = _scheduler_name(cl)
        if n not in seen:
            seen.append(n)
    if len(seen) > 1:
        first_differing = next(i for i, cl in c.cliques if _scheduler_name(cl) != seen[0])
        yield clique_path(first_differing, "spec", "podSpec", "schedulerName"), (
            f"the schedulerName for all pods have to be the same (found {', '.join(seen)})")
    if seen and seen[0] not in SCHEDULER_BACKENDS:
        first = next(i for i, cl in c.cliques if _scheduler_name(cl) == seen[0])
        yield clique_path(first, "spec", "podSpec", "schedulerName"), (
            f"schedulerName {seen[0]!r} must be an enabled scheduler backend; Grove has backends only for "
            f"{', '.join(SCHEDULER_BACKENDS)}, so no operator configuration can enable it")


def validate_pod_clique_spec(c: Check) -> Iterator[Problem]:
    """Clique ``replicas`` must be positive and ``minAvailable`` between 1 and ``replicas``.

    ``minAvailable`` defaults to the clique's replicas as written; an explicit
    ``replicas: 0`` is defaulted to 1 while minAvailable becomes 0, which is then
    rejected.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validatePodCliqueSpec

    Bad:
        spec:
          roleName: worker
          replicas: 2
          minAvailable: 3

    Good:
        spec:
          roleName: worker
          replicas: 3
          minAvailable: 2

    Remediation: Keep 1 <= minAvailable <= replicas.
    """
    for i, cl in c.cliques:
        s = as_map(cl.get("spec"))
        r = as_int(s.get("replicas"))
        if r is not None and r <= 0:
            yield clique_path(i, "spec", "replicas"), f"must be greater than 0 (got {r})"
        ma = s.get("minAvailable")
        if ma is None:
            yield clique_path(i, "spec", "minAvailable"), "field is required"
            continue
        ma = as_int(ma)
        if ma is None:
            continue
        if ma <= 0:
            yield clique_path(i, "spec", "minAvailable"), f"must be greater than 0 (got {ma})"
        if r is not None and ma > r:
            yield clique_path(i, "spec", "minAvailable"), f"minAvailable {ma} must not be greater than replicas {r}"


def validate_pod_clique_spec_starts_after(c: Check) -> Iterator[Problem]:
    """Under ``CliqueStartupTypeExplicit``, each ``startsAfter`` entry must be non-empty,
    must not name the clique itself, and must not repeat.

    Under AnyOrder and InOrder, ``startsAfter`` is neither validated nor used.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validatePodCliqueSpec (startsAfter block)

    Bad:
        cliqueStartupType: CliqueStartupTypeExplicit
        cliques:
        - name: worker
          spec: {startsAfter: [worker]}

    Good:
        cliqueStartupType: CliqueStartupTypeExplicit
        cliques:
        - name: leader
        - name: worker
          spec: {startsAfter: [leader]}

    Remediation: List only other cliques, each once.
    """
    if c.startup_type != EXPLICIT:
        return
    for i, cl in c.cliques:
        name = as_str(cl.get("name"))
        deps = as_list(as_map(cl.get("spec")).get("startsAfter"))
        for j, dep in enumerate(deps):
            if not as_str(dep).strip():
                yield clique_path(i, "spec", "startsAfter", j), "clique dependency must not be empty"
            elif dep == name:
                yield clique_path(i, "spec", "startsAfter", j), "clique dependency cannot refer to itself"
        for d in find_duplicates(as_str(x) for x in deps):
            yield clique_path(i, "spec", "startsAfter"), f"duplicate clique dependency {d!r}"


def validate_scale_config(c: Check) -> Iterator[Problem]:
    """A clique's ``autoScalingConfig`` must satisfy minAvailable <= minReplicas <= maxReplicas
    and replicas <= maxReplicas.

    ``minReplicas`` defaults to the clique's replicas as written.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validateScaleConfig (and the maxReplicas check in validatePodCliqueSpec)

    Bad:
        spec:
          replicas: 4
          minAvailable: 2
          autoScalingConfig: {minReplicas: 1, maxReplicas: 3}

    Good:
        spec:
          replicas: 4
          minAvailable: 2
          autoScalingConfig: {minReplicas: 2, maxReplicas: 8}

    Remediation: Raise maxReplicas or minReplicas so the bounds hold.
    """
    for i, cl in c.cliques:
        s = as_map(cl.get("spec"))
        asc = s.get("autoScalingConfig")
        if not isinstance(asc, Mapping):
            continue
        base = clique_path(i, "spec", "autoScalingConfig")
        ma = as_int(s.get("minAvailable"))
        mn = as_int(asc.get("minReplicas"))
        mx = as_int(asc.get("maxReplicas"))
        r = as_int(s.get("replicas"))
        if asc.get("minReplicas") is None:
            yield (*base, "minReplicas"), "field is required"
        elif mn is not None and ma is not None and mn < ma:
            yield (*base, "minReplicas"), f"minReplicas {mn} must be greater than or equal to minAvailable {ma}"
        if mx is not None and mn is not None and mx < mn:
            yield (*base, "maxReplicas"), f"maxReplicas {mx} must be greater than or equal to minReplicas {mn}"
        if mx is not None and r is not None and mx < r:
            yield (*base, "maxReplicas"), f"maxReplicas {mx} must be greater than or equal to replicas {r}"


def validate_pod_spec(c: Check) -> Iterator[Problem]:
    """On create, a clique's pod spec must not set ``topologySpreadConstraints`` or ``nodeName``.

    Grove places pods itself (gangs and topology constraints); these fields are
    refused when the PodCliqueSet is created.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validatePodSpec

    Bad:
        podSpec:
          nodeName: gpu-node-1

    Good:
        podSpec:
          nodeSelector: {kubernetes.io/hostname: gpu-node-1}

    Remediation: Remove the field; use affinity, nodeSelector or topologyConstraint instead.
    """
    if not c.creating:
        return
    for i, cl in c.cliques:
        ps = as_map(as_map(cl.get("spec")).get("podSpec"))
        if ps.get("topologySpreadConstraints") is not None:
            yield clique_path(i, "spec", "podSpec", "topologySpreadConstraints"), "must not be set"
        if as_str(ps.get("nodeName")).strip():
            yield clique_path(i, "spec", "podSpec", "nodeName"), "must not be set"


def validate_pod_spec_restart_policy(c: Check) -> Iterator[Problem]:
    """A ``restartPolicy`` set in a clique's pod spec draws a warning but is kept: exited pods are not replaced.

    The webhook warns "restartPolicy will be ignored, it will be set to Always"
    (upstream's wording), but at this commit nothing ignores it: defaulting
    (``defaulting/podcliqueset.go`` ``defaultPodSpec``) sets Always only when the
    field is empty, and the PodClique controller copies the pod spec as written
    into every pod. A pod whose containers exit under ``Never`` (or succeed under
    ``OnFailure``) ends Failed or Succeeded, still counts toward the PodClique's
    replicas and is never replaced until it is deleted. (Upstream also warns when
    only the defaulting webhook set the field; this rule warns only when the
    manifest sets it.)

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validatePodSpec (warning)

    Bad:
        podSpec:
          restartPolicy: Never

    Good:
        podSpec:
          containers: [{name: w, image: busybox}]

    Remediation: Remove restartPolicy from the pod spec (it defaults to Always), or delete exited pods yourself.
    """
    written = as_list(as_map(as_map(c.written.get("spec")).get("template")).get("cliques"))
    for i, cl in enumerate(written):
        ps = as_map(as_map(as_map(cl).get("spec")).get("podSpec"))
        rp = as_str(ps.get("restartPolicy")).strip()
        if rp:
            msg = (f"the webhook warns \"restartPolicy will be ignored, it will be set to Always\", "
                   f"but restartPolicy {rp!r} is kept")
            if rp != "Always":
                msg += ": a pod that exits is not replaced until it is deleted"
            yield clique_path(i, "spec", "podSpec", "restartPolicy"), msg


def validate_container_env_vars(c: Check) -> Iterator[Problem]:
    """Environment variable names must be valid and unique per container.

    Valid names consist of letters, digits, '_', '-' and '.', and do not start with
    a digit.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validateContainerEnvVars

    Bad:
        env:
        - {name: 1ST_PORT, value: "80"}
        - {name: MODE, value: a}
        - {name: MODE, value: b}

    Good:
        env:
        - {name: FIRST_PORT, value: "80"}
        - {name: MODE, value: a}

    Remediation: Rename the variable or remove the duplicate.
    """
    for i, cl in c.cliques:
        ps = as_map(as_map(cl.get("spec")).get("podSpec"))
        for ckey in ("containers", "initContainers"):
            for k, ctr in enumerate(as_list(ps.get(ckey))):
                env = as_list(as_map(ctr).get("env"))
                base = clique_path(i, "spec", "podSpec", ckey, k, "env")
                names = []
                for j, ev in enumerate(env):
                    n = as_str(as_map(ev).get("name"))
                    names.append(n)
                    if not _ENV_VAR_NAME_RE.fullmatch(n):
                        yield (*base, j, "name"), (
                            f"invalid environment variable name {n!r}: must consist of alphabetic characters, "
                            "digits, '_', '-' or '.', and must not start with a digit")
                for d in find_duplicates(names):
                    j = max(j for j, n in enumerate(names) if n == d)
                    yield (*base, j, "name"), f"duplicate environment variable {d!r}"
