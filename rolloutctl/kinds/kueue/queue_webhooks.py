"""Admission of Kueue's queue objects (ClusterQueue, LocalQueue, ResourceFlavor), which
``plan --kueue`` reads from ``--observed`` and from the desired files: what the API
server refuses of them, from the CRDs and Kueue's validating webhooks.

Upstream: kubernetes-sigs/kueue ff69552e79ad21652c36caa97038382e55625cf7:

- ``config/components/crd/bases/kueue.x-k8s.io_{clusterqueues,localqueues,resourceflavors}.yaml``:
  served versions (``v1beta1``, deprecated, and ``v1beta2``), the quantity ``pattern`` and
  ``required: [name, nominalQuota]`` of a flavor's resources, and two validation rules
  (a flavor has one resource per covered resource; no borrowingLimit outside a cohort);
- ``pkg/webhooks/clusterqueue_webhook.go``: ``validateResourceGroups`` (a resource covered,
  and a flavor listed, by one group), ``validateFlavorQuotas`` (resource names in the order
  of ``coveredResources``), ``validateResourceQuantity`` (non-negative quotas and limits),
  ``validateLimit`` and ``validateLendingLimit`` (a lendingLimit needs a cohort and at most
  the nominalQuota), as ``ValidateClusterQueue`` runs them.

``admit_queue(obj, side)`` is what ``plan`` (before any model) and ``lint`` run. For a
desired object every refusal is an error. For an observed (stored) object the API server
never re-validates what it stored: an unserved version (the cluster cannot hand it over)
and a quota the model cannot read (not a quantity, or none) stay errors, the rest are
warnings.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...core.model import Finding, Obj
from ...core.quantity import matches_quantity_pattern, parse_quantity
from .constants import CQ, LQ, RF
from .validation import RULES, Rule

GROUP = "kueue.x-k8s.io"
#: served versions of the three CRDs and their ``deprecationWarning`` ("" when not deprecated)
SERVED: tuple[tuple[str, str], ...] = (("v1beta1", "This version is deprecated. Use v1beta2 instead."), ("v1beta2", ""))
QUEUE_KINDS = (CQ, LQ, RF)
UNSERVED_VERSION = "SC005"
DEPRECATED_VERSION = "SC008"
_CRD = "kueue:config/components/crd/bases/kueue.x-k8s.io_clusterqueues.yaml#"
_WEBHOOK = "kueue:pkg/webhooks/clusterqueue_webhook.go#"

R_QUOTA_QUANTITY = Rule(
    "KQ007", "cluster-queue-quota-quantity", "error", _CRD + "FlavorQuotas.resources",
    "A ClusterQueue flavor's resource needs a nominalQuota, and its quotas and limits must be Kubernetes "
    "quantities (the CRD's pattern)",
    "resources: [{name: memory, nominalQuota: 9Gb}]", "resources: [{name: memory, nominalQuota: 9Gi}]",
    "Write the quota as a quantity (9Gi, 9G, 9000M, 500m).")
R_QUOTA_NEGATIVE = Rule(
    "KQ008", "validate-resource-quantity", "error", _WEBHOOK + "validateResourceQuantity",
    "A ClusterQueue's nominalQuota, borrowingLimit and lendingLimit must be greater than or equal to 0",
    "resources: [{name: cpu, nominalQuota: -9}]", "resources: [{name: cpu, nominalQuota: 9}]",
    "Use a quota of 0 or more.")
R_COVERED = Rule(
    "KQ009", "validate-flavor-quotas", "error", _WEBHOOK + "validateFlavorQuotas",
    "A ClusterQueue flavor lists its resources in the order of the group's coveredResources, one by one",
    "coveredResources: [cpu, memory]\nflavors: [{name: f, resources: [{name: cpu}, {name: cpu}]}]",
    "coveredResources: [cpu, memory]\nflavors: [{name: f, resources: [{name: cpu}, {name: memory}]}]",
    "Name the flavor's resources as coveredResources names them, in the same order.")
R_RESOURCE_COUNT = Rule(
    "KQ010", "flavor-resources-count", "error", _CRD + "ResourceGroup.x-kubernetes-validations",
    "Each flavor of a ClusterQueue resource group has as many resources as the group's coveredResources "
    "(the CRD's validation rule)",
    "coveredResources: [cpu, memory]\nflavors: [{name: f, resources: [{name: cpu, nominalQuota: 9}]}]",
    "coveredResources: [cpu]\nflavors: [{name: f, resources: [{name: cpu, nominalQuota: 9}]}]",
    "Give every flavor one resource per covered resource, or cover fewer resources.")
R_BORROWING_COHORT = Rule(
    "KQ011", "borrowing-limit-needs-cohort", "error", _CRD + "ClusterQueueSpec.x-kubernetes-validations",
    "A ClusterQueue outside a cohort has nothing to borrow from: borrowingLimit must be unset (the CRD's "
    "validation rule)",
    "resources: [{name: cpu, nominalQuota: 9, borrowingLimit: 4}]   # no cohort",
    "cohortName: team-a\nresources: [{name: cpu, nominalQuota: 9, borrowingLimit: 4}]",
    "Put the ClusterQueue in a cohort (cohortName; cohort in v1beta1), or remove borrowingLimit.")

R_GROUPS = Rule(
    "KQ014", "validate-resource-groups", "error", _WEBHOOK + "validateResourceGroups",
    "A resource is covered by one resource group of a ClusterQueue, and a flavor is listed in one group",
    "resourceGroups: [{coveredResources: [cpu], flavors: [{name: f}]}, {coveredResources: [cpu], flavors: [{name: f}]}]",
    "resourceGroups: [{coveredResources: [cpu, memory], flavors: [{name: f}]}]",
    "Cover each resource in one group; give each flavor once (merge the groups).")
R_LENDING = Rule(
    "KQ015", "validate-lending-limit", "error", _WEBHOOK + "validateLendingLimit",
    "A ClusterQueue's lendingLimit needs a cohort to lend to and must not exceed the nominalQuota",
    "resources: [{name: cpu, nominalQuota: 2, lendingLimit: 5}]   # no cohort",
    "cohortName: team-a\nresources: [{name: cpu, nominalQuota: 2, lendingLimit: 1}]",
    "Put the ClusterQueue in a cohort and keep lendingLimit at or below nominalQuota, or remove lendingLimit.")

#: the rules of this module
QUEUE_RULES: tuple[Rule, ...] = (R_QUOTA_QUANTITY, R_QUOTA_NEGATIVE, R_COVERED, R_RESOURCE_COUNT,
                                  R_BORROWING_COHORT, R_GROUPS, R_LENDING)
#: the webhook's checks: it is called only for an object the CRD's schema and rules accept
_WEBHOOK_RULES = frozenset((R_QUOTA_NEGATIVE.id, R_COVERED.id, R_GROUPS.id, R_LENDING.id))
#: every Kueue rule (``rolloutctl rules``): the RayService webhook's and the queues'
ALL_RULES: tuple[Rule, ...] = RULES + QUEUE_RULES


def _m(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def is_queue(obj: Obj) -> bool:
    """Whether ``obj`` is a ClusterQueue, LocalQueue or ResourceFlavor (any version)."""
    return obj.kind in QUEUE_KINDS and obj.api_version.split("/")[0] == GROUP


def is_quantity(v: Any) -> bool:
    """Whether ``v`` is what the CRD's int-or-string quantity accepts."""
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return True
    if isinstance(v, float):
        # a whole number reaches the server as a JSON integer; a fraction is a JSON number
        # the int-or-string schema refuses ("must be of type integer,string")
        return v.is_integer()
    return isinstance(v, str) and matches_quantity_pattern(v)  # (the CRDs' QUANTITY_PATTERN)


def _negative(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, float)):
        return v < 0
    return str(v).startswith("-") and bool(re.search(r"[1-9]", str(v).split("e")[0].split("E")[0]))


def admit_queue(obj: Obj, side: str = "desired") -> list[Finding]:
    """What the API server says of a ClusterQueue, LocalQueue or ResourceFlavor ``obj``
    (empty for other objects): the served version (SC005, SC008 for a deprecated one,
    desired only), then for a ClusterQueue each flavor's resources (KQ007 the CRD's
    required ``nominalQuota`` and quantity pattern, KQ008 ``validateResourceQuantity``,
    KQ009 ``validateFlavorQuotas``, KQ010/KQ011 the CRD's validation rules, KQ014
    ``validateResourceGroups``, KQ015 ``validateLimit``/``validateLendingLimit``; the webhook's
    KQ008/KQ009/KQ014/KQ015 only when the CRD's checks pass, as the API server calls it). ``side``
    "observed": see the module's docstring."""
    if not is_queue(obj):
        return []
    observed = side == "observed"
    out: list[Finding] = []
    webhook: list[Finding] = []

    def f(rule: str, severity: str, path: tuple, dotted: str, msg: str, misread: bool = False) -> None:
        if observed and not misread and severity == "error":
            severity, msg = "warning", msg + " (stored object; the API server does not re-validate it)"
        elif observed and misread:
            msg += " (a model reads this field)"
        finding = Finding(rule, severity, obj.file, obj.line_of(*path), msg, dotted, obj.ref)
        (webhook if rule in _WEBHOOK_RULES else out).append(finding)

    version = obj.api_version.split("/", 1)[1] if "/" in obj.api_version else obj.api_version
    warnings = dict(SERVED)
    if version not in warnings:
        served = ", ".join(f"{GROUP}/{v}" for v, _w in SERVED)
        f(UNSERVED_VERSION, "error", ("apiVersion",), "apiVersion",
          f"{GROUP}/{version} {obj.kind} is not served (served: {served})", misread=True)
        return out
    if warnings[version] and not observed:
        f(DEPRECATED_VERSION, "warning", ("apiVersion",), "apiVersion",
          f"{GROUP}/{version} {obj.kind}: {warnings[version]}")
    if obj.kind != CQ:
        return out
    # the CRD names the cohort "cohort" in v1beta1 and "cohortName" in v1beta2
    cohort = obj.spec.get("cohort" if version == "v1beta1" else "cohortName")
    seen_resources: set[str] = set()
    seen_flavors: set[str] = set()
    for i, g in enumerate(_l(obj.spec.get("resourceGroups"))):
        covered = [str(c) for c in _l(_m(g).get("coveredResources"))]
        for j, c in enumerate(covered):  # validateResourceGroups: field.Duplicate
            if c in seen_resources:
                f(R_GROUPS.id, "error", ("spec", "resourceGroups", i, "coveredResources", j),
                  f"spec.resourceGroups[{i}].coveredResources[{j}]", f"Duplicate value: {c!r}: resource {c} is "
                  f"covered by an earlier resource group ({R_GROUPS.upstream})")
            seen_resources.add(c)
        for j, fl in enumerate(_l(_m(g).get("flavors"))):
            fname = str(_m(fl).get("name") or "")
            if fname in seen_flavors:
                f(R_GROUPS.id, "error", ("spec", "resourceGroups", i, "flavors", j, "name"),
                  f"spec.resourceGroups[{i}].flavors[{j}].name", f"Duplicate value: {fname!r}: flavor {fname} is "
                  f"listed in an earlier resource group ({R_GROUPS.upstream})")
            seen_flavors.add(fname)
            resources = _l(_m(fl).get("resources"))
            if "coveredResources" in _m(g) and len(resources) != len(covered):
                f(R_RESOURCE_COUNT.id, "error", ("spec", "resourceGroups", i, "flavors", j, "resources"),
                  f"spec.resourceGroups[{i}].flavors[{j}].resources",
                  f"flavor {fname}: {len(resources)} resources for {len(covered)} coveredResources: flavors must "
                  f"have the same number of resources as the coveredResources ({R_RESOURCE_COUNT.upstream})")
            for k, r in enumerate(resources):
                r = _m(r)
                at = ("spec", "resourceGroups", i, "flavors", j, "resources", k)
                where = f"spec.resourceGroups[{i}].flavors[{j}].resources[{k}]"
                rname = str(r.get("name") or "")
                label = f"flavor {fname} resource {rname}"
                if k < len(covered) and rname != covered[k]:
                    # (resources past the covered ones are not checked: validateFlavorQuotas breaks)
                    f(R_COVERED.id, "error", (*at, "name"), where + ".name",
                      f"flavor {fname}: resource {rname!r} must match the name in coveredResources "
                      f"({covered[k]!r} at index {k}) ({R_COVERED.upstream})")
                if r.get("nominalQuota") is None:
                    f(R_QUOTA_QUANTITY.id, "error", (*at, "nominalQuota"),
                      where + ".nominalQuota", f"{label}: missing required field 'nominalQuota' "
                      f"({R_QUOTA_QUANTITY.upstream})", misread=True)
                if cohort is None and r.get("borrowingLimit") is not None:
                    f(R_BORROWING_COHORT.id, "error", (*at, "borrowingLimit"), where + ".borrowingLimit",
                      f"{label}: borrowingLimit must be nil when cohort is empty ({R_BORROWING_COHORT.upstream})")
                for key in ("nominalQuota", "borrowingLimit", "lendingLimit"):
                    v = r.get(key)
                    if v is None:
                        continue
                    if not is_quantity(v):
                        f(R_QUOTA_QUANTITY.id, "error", (*at, key), f"{where}.{key}",
                          f"{label}: {key} {v!r} is not a quantity (pattern of the CRD; e.g. 9Gi, 9G, 500m) "
                          f"({R_QUOTA_QUANTITY.upstream})", misread=True)
                    elif k < len(covered) and _negative(v):
                        # (validateFlavorQuotas stops at the last covered resource)
                        f(R_QUOTA_NEGATIVE.id, "error", (*at, key), f"{where}.{key}",
                          f"{label}: {key} {v}: must be greater than or equal to 0 ({R_QUOTA_NEGATIVE.upstream})")
                lend = r.get("lendingLimit")
                if k < len(covered) and lend is not None and is_quantity(lend):
                    if not cohort:  # validateLimit: hasParent is cohortName != ""
                        f(R_LENDING.id, "error", (*at, "lendingLimit"), where + ".lendingLimit",
                          f"{label}: lendingLimit {lend}: must be nil when cohort is empty ({R_LENDING.upstream})")
                    nominal = r.get("nominalQuota")
                    if is_quantity(nominal) and parse_quantity(lend) > parse_quantity(nominal):
                        f(R_LENDING.id, "error", (*at, "lendingLimit"), where + ".lendingLimit",
                          f"{label}: lendingLimit {lend}: must be less than or equal to the nominalQuota {nominal} "
                          f"({R_LENDING.upstream})")
    if not any(x.severity == "error" for x in out):
        out.extend(webhook)
    return out
