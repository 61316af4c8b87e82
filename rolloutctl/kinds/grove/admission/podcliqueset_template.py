"""The PodCliqueSet webhook's create rules for the template as a whole: scaling groups,
the termination delay, resource claim templates and resource sharing, and the one
topology name of the PodCliqueSet.

Upstream (Grove ``fcc3b3bb``, commit fcc3b3bbbc5e6a2a797cd080bdbc6983b1ccec24):
``operator/internal/webhook/admission/pcs/validation/podcliqueset.go``, section "validate create of PodCliqueSet":
``validatePodCliqueScalingGroupConfigs`` (with ``validateScalingGroupPodCliqueNames`` and
``sliceMustHaveUniqueElements`` of ``util.go`` on the members), ``validateTerminationDelay``,
``validateResourceClaimTemplates``, ``validateResourceSharingSpecs`` (with
``validatePCSResourceSharing`` and ``validatePCSGResourceSharing``) and
``resolveEffectiveTopologyNameFieldErrors`` (``validateResolvableTopologyConstraint``).

Each rule receives a :class:`~.request.Check` and yields ``(path, message)`` pairs; its
docstring is its documentation (``rolloutctl rules ID``). Topology-aware scheduling is assumed enabled and the ClusterTopology present
(CONTRACT.md).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from ....core.go_time import parse_duration_seconds
from ....core.k8s_syntax import is_dns1123_subdomain
from .request import Check
from .topologyconstraints import for_each_topology_constraint
from .util import TEMPLATE, Path, Problem, as_int, as_list, as_map, as_str, clique_path, find_duplicates, group_path


def validate_pod_clique_scaling_group_configs(c: Check) -> Iterator[Problem]:
    """Scaling-group names must be valid DNS subdomains and unique.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validatePodCliqueScalingGroupConfigs

    Bad:
        podCliqueScalingGroups:
        - name: Prefill
          cliqueNames: [pleader]

    Good:
        podCliqueScalingGroups:
        - name: prefill
          cliqueNames: [pleader]

    Remediation: Use unique lower-case names.
    """
    names = []
    for gi, g in c.groups:
        n = as_str(g.get("name"))
        names.append(n)
        if is_dns1123_subdomain(n):
            yield group_path(gi, "name"), (
                f"invalid PodCliqueScalingGroupConfig name {n!r}, must be a valid DNS subdomain")
    for d in find_duplicates(names):
        gi = max(gi for gi, g in c.groups if as_str(g.get("name")) == d)
        yield group_path(gi, "name"), f"duplicate scaling group name {d!r}"


def validate_scaling_group_pod_clique_names(c: Check) -> Iterator[Problem]:
    """Every name in a scaling group's ``cliqueNames`` must be a clique of the PodCliqueSet.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validateScalingGroupPodCliqueNames

    Bad:
        cliques:
        - name: pleader
        podCliqueScalingGroups:
        - name: prefill
          cliqueNames: [pleader, pworker]

    Good:
        cliques:
        - name: pleader
        - name: pworker
        podCliqueScalingGroups:
        - name: prefill
          cliqueNames: [pleader, pworker]

    Remediation: Fix the name or add the clique.
    """
    known = {as_str(cl.get("name")) for _, cl in c.cliques}
    for gi, g in c.groups:
        for j, n in enumerate(as_list(g.get("cliqueNames"))):
            if not isinstance(n, str) or n not in known:
                yield group_path(gi, "cliqueNames", j), f"unidentified PodClique name {n!r}"


def slice_must_have_unique_elements_group_members(c: Check) -> Iterator[Problem]:
    """A clique may belong to at most one scaling group (and appear once in it).

    Upstream: operator/internal/webhook/admission/pcs/validation/util.go#sliceMustHaveUniqueElements (cliqueNames across all groups, in validatePodCliqueScalingGroupConfigs)

    Bad:
        podCliqueScalingGroups:
        - {name: prefill, cliqueNames: [leader, worker]}
        - {name: decode, cliqueNames: [worker]}

    Good:
        podCliqueScalingGroups:
        - {name: prefill, cliqueNames: [pleader, pworker]}
        - {name: decode, cliqueNames: [dworker]}

    Remediation: Give each scaling group its own cliques.
    """
    seen: dict[str, tuple[int, str]] = {}
    for gi, g in c.groups:
        group = as_str(g.get("name"))
        for j, n in enumerate(as_list(g.get("cliqueNames"))):
            n = as_str(n)
            if n in seen:
                where = (f"twice in scaling group {group!r}" if seen[n][0] == gi
                         else f"in scaling groups {seen[n][1]!r} and {group!r}")
                yield group_path(gi, "cliqueNames", j), f"clique {n!r} is listed {where}; a clique belongs to one group, once"
            seen.setdefault(n, (gi, group))


def validate_pod_clique_scaling_group_configs_bounds(c: Check) -> Iterator[Problem]:
    """A scaling group needs replicas > 0, 1 <= minAvailable <= replicas, and
    ``scaleConfig.minReplicas`` >= minAvailable.

    Both ``replicas`` and ``minAvailable`` default to 1 (CRD); ``scaleConfig.minReplicas``
    defaults to the group's replicas.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validatePodCliqueScalingGroupConfigs

    Bad:
        podCliqueScalingGroups:
        - name: prefill
          cliqueNames: [pleader]
          replicas: 2
          minAvailable: 3

    Good:
        podCliqueScalingGroups:
        - name: prefill
          cliqueNames: [pleader]
          replicas: 3
          minAvailable: 2

    Remediation: Keep 1 <= minAvailable <= replicas and minAvailable <= scaleConfig.minReplicas.
    """
    for gi, g in c.groups:
        r = as_int(g.get("replicas"))
        ma = as_int(g.get("minAvailable"))
        if r is not None and r <= 0:
            yield group_path(gi, "replicas"), f"must be greater than 0 (got {r})"
        if ma is not None and ma <= 0:
            yield group_path(gi, "minAvailable"), f"must be greater than 0 (got {ma})"
        if r is not None and ma is not None and ma > r:
            yield group_path(gi, "minAvailable"), f"minAvailable {ma} must not be greater than replicas {r}"
        sc = as_map(g.get("scaleConfig"))
        mn = as_int(sc.get("minReplicas"))
        if mn is not None and ma is not None and mn < ma:
            yield group_path(gi, "scaleConfig", "minReplicas"), (
                f"scaleConfig.minReplicas {mn} must be greater than or equal to minAvailable {ma}")


def validate_pod_clique_scaling_group_configs_member_autoscaling(c: Check) -> Iterator[Problem]:
    """A clique that belongs to a scaling group must not have its own ``autoScalingConfig``.

    The scaling group scales its members together (``scaleConfig`` on the group).

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validatePodCliqueScalingGroupConfigs (AutoScalingConfig check)

    Bad:
        cliques:
        - name: pworker
          spec: {autoScalingConfig: {maxReplicas: 4}}
        podCliqueScalingGroups:
        - {name: prefill, cliqueNames: [pworker]}

    Good:
        cliques:
        - name: pworker
        podCliqueScalingGroups:
        - {name: prefill, cliqueNames: [pworker], scaleConfig: {maxReplicas: 4}}

    Remediation: Move the autoscaling to the scaling group's scaleConfig.
    """
    members = c.scaling_group_clique_names()
    for i, cl in c.cliques:
        if as_str(cl.get("name")) in members and as_map(cl.get("spec")).get("autoScalingConfig") is not None:
            yield clique_path(i, "spec", "autoScalingConfig"), (
                f"AutoScalingConfig is not allowed for PodClique {cl.get('name')!r}, which is part of a scaling group")


def validate_termination_delay(c: Check) -> Iterator[Problem]:
    """``terminationDelay`` must be a duration greater than 0 (default 4h).

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validateTerminationDelay

    Bad:
        template:
          terminationDelay: 0s

    Good:
        template:
          terminationDelay: 30m

    Remediation: Set a positive duration such as 30m, or remove the field for the 4h default.
    """
    td = c.template.get("terminationDelay")
    path = (*TEMPLATE, "terminationDelay")
    if td is None:
        yield path, "terminationDelay is required"
        return
    secs = parse_duration_seconds(td)
    if secs is None:
        yield path, f"invalid duration {td!r} (use a Go duration such as 30m or 4h)"
    elif secs <= 0:
        yield path, f"terminationDelay must be greater than 0 (got {td!r})"


def validate_resource_claim_templates(c: Check) -> Iterator[Problem]:
    """Resource claim templates need a unique, non-empty name and at least one device request.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validateResourceClaimTemplates

    Bad:
        resourceClaimTemplates:
        - name: gpus
          templateSpec: {spec: {devices: {requests: []}}}

    Good:
        resourceClaimTemplates:
        - name: gpus
          templateSpec:
            spec:
              devices:
                requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}]

    Remediation: Name each template once and request at least one device.
    """
    rcts = as_list(c.template.get("resourceClaimTemplates"))
    names = []
    for i, rct in enumerate(rcts):
        rct = as_map(rct)
        n = as_str(rct.get("name"))
        names.append(n)
        base = (*TEMPLATE, "resourceClaimTemplates", i)
        if not n:
            yield (*base, "name"), "template name is required"
        reqs = as_list(as_map(as_map(as_map(rct.get("templateSpec")).get("spec")).get("devices")).get("requests"))
        if not reqs:
            yield (*base, "templateSpec", "spec", "devices", "requests"), "at least one device request is required"
    for d in find_duplicates(names):
        yield (*TEMPLATE, "resourceClaimTemplates"), f"duplicate resource claim template name {d!r}"


def _sharing_lists(c: Check) -> Iterator[tuple[Path, list, str, set[str], set[str]]]:
    """(path, refs, level, allowed clique filter names, allowed group filter names)."""
    cliques = {as_str(cl.get("name")) for _, cl in c.cliques}
    groups = {as_str(g.get("name")) for _, g in c.groups}
    yield (*TEMPLATE, "resourceSharing"), as_list(c.template.get("resourceSharing")), "pcs", cliques, groups
    for i, cl in c.cliques:
        yield clique_path(i, "resourceSharing"), as_list(cl.get("resourceSharing")), "clique", set(), set()
    for gi, g in c.groups:
        members = {as_str(n) for n in as_list(g.get("cliqueNames"))}
        yield group_path(gi, "resourceSharing"), as_list(g.get("resourceSharing")), "pcsg", members, set()


def validate_resource_sharing_specs(c: Check) -> Iterator[Problem]:
    """Resource-sharing references need a unique non-empty name, a valid scope, no
    namespace when they name one of the PodCliqueSet's own templates, and filters
    that name existing cliques or scaling groups.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validateResourceSharingSpecs (with validatePCSResourceSharing and validatePCSGResourceSharing)

    Bad:
        resourceSharing:
        - name: gpus
          scope: AllReplicas
          filter: {childCliqueNames: [nosuchclique]}

    Good:
        resourceSharing:
        - name: gpus
          scope: AllReplicas
          filter: {childCliqueNames: [worker]}

    Remediation: Fix the reference name, scope or filter.
    """
    templates = {as_str(as_map(r).get("name")) for r in as_list(c.template.get("resourceClaimTemplates"))}
    for base, refs, level, ok_cliques, ok_groups in _sharing_lists(c):
        seen: set[str] = set()
        for i, ref in enumerate(refs):
            ref = as_map(ref)
            n = as_str(ref.get("name"))
            if not n:
                yield (*base, i, "name"), "reference name is required"
            elif n in seen:
                yield (*base, i, "name"), f"duplicate reference name {n!r}"
            seen.add(n)
            if as_str(ref.get("namespace")) and n and n in templates:
                yield (*base, i, "namespace"), (
                    "namespace must be empty when name matches an internal resourceClaimTemplate")
            if ref.get("scope") not in ("AllReplicas", "PerReplica"):
                yield (*base, i, "scope"), f"unsupported scope {ref.get('scope')!r}: use AllReplicas or PerReplica"
            flt = ref.get("filter")
            if level == "clique" or not isinstance(flt, Mapping):
                continue
            fc = as_list(flt.get("childCliqueNames"))
            fg = as_list(flt.get("childScalingGroupNames"))
            if not fc and (level == "pcsg" or not fg):
                what = "childCliqueNames" if level == "pcsg" else "childCliqueNames or childScalingGroupNames"
                yield (*base, i, "filter"), f"filter must specify at least one {what} entry"
            for j, n2 in enumerate(fc):
                if as_str(n2) not in ok_cliques:
                    yield (*base, i, "filter", "childCliqueNames", j), f"clique {n2!r} not found"
            for j, n2 in enumerate(fg):
                if level == "pcs" and as_str(n2) not in ok_groups:
                    yield (*base, i, "filter", "childScalingGroupNames", j), f"scaling group {n2!r} not found"


def resolve_effective_topology_name_field_errors(c: Check) -> Iterator[Problem]:
    """Topology constraints must resolve to one topology name: a constraint needs a
    ``topologyName`` unless it can inherit one from its PodCliqueSet (or scaling
    group), and all names in a PodCliqueSet must be the same.

    Topology-aware scheduling is assumed enabled and the ClusterTopology present.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#resolveEffectiveTopologyNameFieldErrors (validateResolvableTopologyConstraint)

    Bad:
        template:
          topologyConstraint: {topologyName: zone-a, pack: {required: zone}}
          cliques:
          - name: worker
            topologyConstraint: {topologyName: zone-b, pack: {required: rack}}

    Good:
        template:
          topologyConstraint: {topologyName: zone-a, pack: {required: zone}}
          cliques:
          - name: worker
            topologyConstraint: {pack: {required: rack}}

    Remediation: Set topologyName on the PodCliqueSet constraint and let the others inherit it.
    """
    t = c.template
    names: list[str] = []
    pcs_name, pcs_ok = "", False
    tc = t.get("topologyConstraint")
    if isinstance(tc, Mapping):
        if not as_str(tc.get("topologyName")):
            yield (*TEMPLATE, "topologyConstraint", "topologyName"), (
                "topologyName is required when topologyConstraint is set and cannot be inherited")
        else:
            pcs_name, pcs_ok = as_str(tc.get("topologyName")), True
            names.append(pcs_name)
    by_clique: dict[str, str] = {}
    for gi, g in c.groups:
        gtc = g.get("topologyConstraint")
        if not isinstance(gtc, Mapping):
            continue
        own = as_str(gtc.get("topologyName"))
        if not own and not pcs_ok:
            yield group_path(gi, "topologyConstraint", "topologyName"), (
                "topologyName is required when topologyConstraint is set and cannot be inherited")
            continue
        eff = own or pcs_name
        names.append(eff)
        for n in as_list(g.get("cliqueNames")):
            by_clique.setdefault(as_str(n), eff)
    for i, cl in c.cliques:
        ctc = cl.get("topologyConstraint")
        if not isinstance(ctc, Mapping):
            continue
        own = as_str(ctc.get("topologyName"))
        inherited, can = pcs_name, pcs_ok
        if as_str(cl.get("name")) in by_clique:
            inherited, can = by_clique[as_str(cl.get("name"))], True
        if not own and (not can or not inherited):
            yield clique_path(i, "topologyConstraint", "topologyName"), (
                "topologyName is required when topologyConstraint is set and cannot be inherited")
            continue
        names.append(own or inherited)
    if len(set(names)) > 1:
        for path, _kind, _n, ctc in for_each_topology_constraint(c.pcs):
            if ctc is not None and as_str(ctc.get("topologyName")):
                yield (*path, "topologyName"), (
                    "all topologyConstraint.topologyName values within a PodCliqueSet must match "
                    f"(found {', '.join(sorted(set(names)))})")
