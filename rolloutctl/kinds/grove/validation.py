"""Admission rules for a PodCliqueSet: the Grove validating webhook (create and
update), the validation rules of the proposed update-strategy design, and warnings
for known operator hazards.

Upstream (HEAD ``fcc3b3bb``): ``operator/internal/webhook/admission/pcs/validation/``
(``handler.go`` ``ValidateCreate``/``ValidateUpdate``, ``podcliqueset.go``,
``podcliquedeps.go``, ``topologyconstraints.go``, ``util.go``). The design rules come
from ai-dynamo/grove PR #262 (``docs/designs/update-strategy.md``, section
"Validation Webhook"); the per-component ``rollingUpdate`` rules from PR #817.

Every rule is one function named after the upstream function it models. It
receives a :class:`Check` (the defaulted object, the object as written, and the
live object on update) and yields ``(path, message)`` pairs; :func:`validate`
turns them into :class:`~rolloutctl.core.model.Finding` values with file and line.
The docstring of a rule is its documentation (``rolloutctl rules ID``): a summary,
an ``Upstream:`` line, ``Bad:``/``Good:`` examples and a ``Remediation:``.

Things the webhook checks against the operator's configuration or the cluster
(scheduler backend enabled, topology-aware scheduling enabled, ClusterTopology
domains, MNNVL enabled) are assumed to be present and enabled (CONTRACT.md).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from ...core.k8s_syntax import is_dns1123_subdomain, is_qualified_name, is_valid_label_value
from ...core.model import Finding, Obj
from ...core.paths import field_path
from .defaults import default_pcs

API_GROUP = "grove.io"
KIND = "PodCliqueSet"

MAX_COMBINED_RESOURCE_NAME_LENGTH = 45  # podcliqueset.go maxCombinedResourceNameLength
ANY_ORDER = "CliqueStartupTypeAnyOrder"
IN_ORDER = "CliqueStartupTypeInOrder"
EXPLICIT = "CliqueStartupTypeExplicit"
STARTUP_TYPES = (ANY_ORDER, IN_ORDER, EXPLICIT)
# Update strategies: upstream at HEAD, and those of the proposed design (PR #262).
UPSTREAM_STRATEGIES = ("RollingRecreate", "OnDelete")
DESIGN_STRATEGIES = ("RollingUpdate", "ReplicaRecreate")

Path = tuple
Problem = tuple[Path, str]

# --------------------------------------------------------------------------- helpers

_ENV_VAR_NAME_RE = re.compile(r"^[-._a-zA-Z][-._a-zA-Z0-9]*$")
_DURATION_RE = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_PERCENT_RE = re.compile(r"^(\d+)%$")



def _q(name: str) -> str:
    """A user's name in a message; very long ones are cut (their length is in the message)."""
    return repr(name) if len(name) <= 80 else repr(name[:60]) + f"… ({len(name)} characters)"

dns_subdomain_errors = is_dns1123_subdomain  # IsDNS1123Subdomain (core/k8s_syntax.py)
qualified_name_errors = is_qualified_name  # IsQualifiedName (core/k8s_syntax.py)


def parse_go_duration(value: Any) -> float | None:
    """Seconds of a Go ``time.ParseDuration`` string (``4h``, ``1h30m``, ``-5s``), or None."""
    if not isinstance(value, str) or not value:
        return None
    s = value
    sign = 1.0
    if s[0] in "+-":
        sign = -1.0 if s[0] == "-" else 1.0
        s = s[1:]
    if s == "0":
        return 0.0
    pos, total = 0, 0.0
    for m in _DURATION_RE.finditer(s):
        if m.start() != pos:
            return None
        total += float(m.group(1)) * _DURATION_UNITS[m.group(2)]
        pos = m.end()
    if pos != len(s) or pos == 0:
        return None
    return sign * total


def _list(v: Any) -> list:
    return v if isinstance(v, list) else []


def _map(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _str(v: Any) -> str:
    return v if isinstance(v, str) else ""


def _duplicates(values: Iterable[Any]) -> list[Any]:
    """``lo.FindDuplicates``: each value seen more than once, in first-seen order."""
    seen: set = set()
    dups: list = []
    for v in values:
        if v in seen and v not in dups:
            dups.append(v)
        seen.add(v)
    return dups


# Lists whose items Kubernetes identifies by a key (CONTRACT.md path syntax).




# --------------------------------------------------------------------------- the object under check


class Check:
    """What a rule sees: the object as the webhook sees it (defaulted), the object
    as written (``written``: to tell a user-set value from a default), and the live
    object (``old``, defaulted) when the request is an update."""

    def __init__(self, obj: Obj, old: Obj | None = None) -> None:
        self.obj = obj
        self.written: Mapping[str, Any] = (obj.written or obj).raw
        self.old: Mapping[str, Any] | None = default_pcs(dict(old.raw)) if old is not None else None
        sent = keep_live_defaults(obj.raw, self.old) if self.old is not None else dict(obj.raw)
        self.pcs: Mapping[str, Any] = default_pcs(sent)
        self.creating = old is None

    # shortcuts over the defaulted object
    @property
    def name(self) -> str:
        return _str(_map(self.pcs.get("metadata")).get("name"))

    @property
    def spec(self) -> Mapping[str, Any]:
        return _map(self.pcs.get("spec"))

    @property
    def template(self) -> Mapping[str, Any]:
        return _map(self.spec.get("template"))

    @property
    def cliques(self) -> list[tuple[int, Mapping[str, Any]]]:
        return [(i, c) for i, c in enumerate(_list(self.template.get("cliques"))) if isinstance(c, Mapping)]

    @property
    def groups(self) -> list[tuple[int, Mapping[str, Any]]]:
        return [(i, g) for i, g in enumerate(_list(self.template.get("podCliqueScalingGroups")))
                if isinstance(g, Mapping)]

    @property
    def startup_type(self) -> Any:
        return self.template.get("cliqueStartupType")

    @property
    def update_type(self) -> str:
        return _str(_map(self.spec.get("updateStrategy")).get("type")) or "RollingRecreate"

    def scaling_group_clique_names(self) -> set[str]:
        """``getScalingGroupCliqueNames``."""
        return {n for _, g in self.groups for n in _list(g.get("cliqueNames")) if isinstance(n, str)}


T = "spec", "template"


def keep_live_defaults(written: Mapping[str, Any], live: Mapping[str, Any]) -> dict:
    """The object an update sends, as ``kubectl apply`` builds it: defaulted fields the
    manifest never set keep their live values (the patch does not touch them), so
    e.g. a clique's defaulted ``minAvailable`` does not follow a ``replicas`` change.
    Covers the defaulted fields that are immutable: clique ``minAvailable``, scaling
    group ``minAvailable`` and ``cliqueStartupType``."""
    import copy

    out = copy.deepcopy(dict(written))
    t = _map(_map(out.get("spec")).get("template"))
    lt = _map(_map(live.get("spec")).get("template"))
    if isinstance(t, dict) and "cliqueStartupType" not in t and "cliqueStartupType" in lt:
        t["cliqueStartupType"] = lt["cliqueStartupType"]
    for key in ("cliques", "podCliqueScalingGroups"):
        live_by = {_str(_map(x).get("name")): _map(x) for x in _list(lt.get(key))}
        for item in _list(t.get(key) if isinstance(t, dict) else None):
            if not isinstance(item, dict) or _str(item.get("name")) not in live_by:
                continue
            litem = live_by[_str(item.get("name"))]
            if key == "cliques":
                s, ls = item.get("spec"), _map(litem.get("spec"))
                if isinstance(s, dict) and "minAvailable" not in s and "minAvailable" in ls:
                    s["minAvailable"] = ls["minAvailable"]
            elif "minAvailable" not in item and "minAvailable" in litem:
                item["minAvailable"] = litem["minAvailable"]
    return out


def _clique(i: int, *rest: Any) -> Path:
    return (*T, "cliques", i, *rest)


def _group(i: int, *rest: Any) -> Path:
    return (*T, "podCliqueScalingGroups", i, *rest)


# --------------------------------------------------------------------------- rule registry (data)


@dataclass(frozen=True)
class RuleSpec:
    """A rule as data: the lint registry reads these (id, name, severity, scope) and
    the function's docstring. ``scope``: ``create`` (create and update), ``update``
    (only with the live object), ``design`` (proposed API), ``hazard`` (operator
    behaviour worth a warning)."""

    id: str
    name: str
    severity: str
    scope: str
    check: Callable[[Check], Iterable[Problem]]

    @property
    def doc(self) -> str:
        return self.check.__doc__ or ""


_RULES: list[RuleSpec] = []


def _rule(rule_id: str, name: str, severity: str = "error", scope: str = "create"):
    def deco(fn: Callable[[Check], Iterable[Problem]]) -> Callable[[Check], Iterable[Problem]]:
        _RULES.append(RuleSpec(rule_id, name, severity, scope, fn))
        return fn

    return deco


# =========================================================================== create rules (V1-V22)


@_rule("GV001", "pcs-name-dns-subdomain")
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
    for e in dns_subdomain_errors(c.name):
        yield ("metadata", "name"), f"invalid name {_q(c.name)}: {e}"


@_rule("GV002", "pcs-replicas-non-negative")
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
    r = _int(c.spec.get("replicas"))
    if r is not None and r < 0:
        yield ("spec", "replicas"), f"must be greater than or equal to 0 (got {r})"


@_rule("GV003", "cliques-required")
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
        yield (*T, "cliques"), "at least one PodClique must be defined"


@_rule("GV004", "clique-name-dns-subdomain")
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
        name = _str(cl.get("name"))
        if not name.strip():
            yield _clique(i, "name"), "field cannot be empty"
        elif dns_subdomain_errors(name):
            yield _clique(i, "name"), f"invalid PodCliqueTemplateSpec name {name!r}, must be a valid DNS subdomain"


@_rule("GV005", "name-length-budget")
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
        name = _str(cl.get("name"))
        if not name.strip() or dns_subdomain_errors(name) or name in in_group:
            continue  # invalid names are GV004; members are checked per group below
        total = len(pcs) + len(name)
        if total > MAX_COMBINED_RESOURCE_NAME_LENGTH:
            msg = (f"combined resource name length {total} exceeds the 45-character limit required for pod "
                   f"naming; shorten PodCliqueSet {_q(pcs)} or PodClique {_q(name)}")
            yield _clique(i, "name"), msg
            yield ("metadata", "name"), msg
    for gi, g in c.groups:
        gname = _str(g.get("name"))
        for j, member in enumerate(_list(g.get("cliqueNames"))):
            member = _str(member)
            total = len(pcs) + len(gname) + len(member)
            if total > MAX_COMBINED_RESOURCE_NAME_LENGTH:
                msg = (f"combined resource name length {total} exceeds the 45-character limit required for pod "
                       f"naming; shorten PodCliqueSet {_q(pcs)}, PodCliqueScalingGroup {_q(gname)} or "
                       f"PodClique {_q(member)}")
                yield _group(gi, "cliqueNames", j), msg
                yield _group(gi, "name"), msg
                yield ("metadata", "name"), msg


@_rule("GV006", "clique-labels-annotations")
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
        for key, v in _map(cl.get("labels")).items():
            for e in qualified_name_errors(str(key)):
                yield _clique(i, "labels", key), f"invalid label key {key!r}: {e}"
            val = v if isinstance(v, str) else ""
            if len(val) > 63:
                yield _clique(i, "labels", key), f"invalid label value {val!r}: must be no more than 63 characters"
            elif is_valid_label_value(val):
                yield _clique(i, "labels", key), (
                    f"invalid label value {val!r}: must be empty or consist of alphanumeric characters, '-', '_' "
                    "or '.', and must start and end with an alphanumeric character")
        anns = _map(cl.get("annotations"))
        size = 0
        for key, v in anns.items():
            for e in qualified_name_errors(str(key).lower()):
                yield _clique(i, "annotations", key), f"invalid annotation key {key!r}: {e}"
            size += len(str(key)) + len(v if isinstance(v, str) else "")
        if size > 256 * 1024:
            yield _clique(i, "annotations"), f"annotations are {size} bytes, must have at most 262144 bytes"


@_rule("GV007", "clique-names-unique")
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
    names = [_str(cl.get("name")) for _, cl in c.cliques]
    for d in _duplicates(names):
        i = max(i for i, cl in c.cliques if _str(cl.get("name")) == d)
        yield _clique(i, "name"), f"duplicate clique name {d!r}"


@_rule("GV008", "role-names-unique")
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
    roles = [_str(_map(cl.get("spec")).get("roleName")) for _, cl in c.cliques]
    for d in _duplicates(roles):
        i = max(i for i, cl in c.cliques if _str(_map(cl.get("spec")).get("roleName")) == d)
        yield _clique(i, "spec", "roleName"), f"duplicate roleName {d!r}"


@_rule("GV009", "scheduler-name-consistent")
def validate_scheduler_names(c: Check) -> Iterator[Problem]:
    """All cliques must use the same scheduler (an empty schedulerName means the default one).

    The backend named must also be enabled in the operator configuration; the tool
    assumes it is.

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
          spec: {podSpec: {schedulerName: kai-scheduler}}
        - name: b
          spec: {podSpec: {schedulerName: kai-scheduler}}

    Remediation: Set the same spec.podSpec.schedulerName on every clique (or on none).
    """
    seen: list[str] = []
    for _, cl in c.cliques:
        n = _str(_map(_map(cl.get("spec")).get("podSpec")).get("schedulerName")) or "<default>"
        if n not in seen:
            seen.append(n)
    if len(seen) > 1:
        first_differing = next(i for i, cl in c.cliques
                               if (_str(_map(_map(cl.get("spec")).get("podSpec")).get("schedulerName")) or "<default>")
                               != seen[0])
        yield _clique(first_differing, "spec", "podSpec", "schedulerName"), (
            f"the schedulerName for all pods have to be the same (found {', '.join(seen)})")


@_rule("GV010", "clique-replicas-min-available")
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
        s = _map(cl.get("spec"))
        r = _int(s.get("replicas"))
        if r is not None and r <= 0:
            yield _clique(i, "spec", "replicas"), f"must be greater than 0 (got {r})"
        ma = s.get("minAvailable")
        if ma is None:
            yield _clique(i, "spec", "minAvailable"), "field is required"
            continue
        ma = _int(ma)
        if ma is None:
            continue
        if ma <= 0:
            yield _clique(i, "spec", "minAvailable"), f"must be greater than 0 (got {ma})"
        if r is not None and ma > r:
            yield _clique(i, "spec", "minAvailable"), f"minAvailable {ma} must not be greater than replicas {r}"


@_rule("GV011", "starts-after-entries")
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
        name = _str(cl.get("name"))
        deps = _list(_map(cl.get("spec")).get("startsAfter"))
        for j, dep in enumerate(deps):
            if not _str(dep).strip():
                yield _clique(i, "spec", "startsAfter", j), "clique dependency must not be empty"
            elif dep == name:
                yield _clique(i, "spec", "startsAfter", j), "clique dependency cannot refer to itself"
        for d in _duplicates(_str(x) for x in deps):
            yield _clique(i, "spec", "startsAfter"), f"duplicate clique dependency {d!r}"


@_rule("GV012", "starts-after-unknown-clique")
def get_unknown_cliques(c: Check) -> Iterator[Problem]:
    """Under ``CliqueStartupTypeExplicit``, every ``startsAfter`` entry must name a clique.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliquedeps.go#GetUnknownCliques (called from validateCliqueDependencies)

    Bad:
        cliqueStartupType: CliqueStartupTypeExplicit
        cliques:
        - name: worker
          spec: {startsAfter: [leader]}

    Good:
        cliqueStartupType: CliqueStartupTypeExplicit
        cliques:
        - name: leader
        - name: worker
          spec: {startsAfter: [leader]}

    Remediation: Fix the name in startsAfter or add the missing clique.
    """
    if c.startup_type != EXPLICIT:
        return
    known = {_str(cl.get("name")) for _, cl in c.cliques}
    for i, cl in c.cliques:
        for j, dep in enumerate(_list(_map(cl.get("spec")).get("startsAfter"))):
            if _str(dep).strip() and dep not in known:
                yield _clique(i, "spec", "startsAfter", j), (
                    f"unknown clique name {dep!r}: all clique dependencies must be defined as cliques")


def strongly_connected_cliques(adjacency: Mapping[str, list[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of size > 1, as ``GetStronglyConnectedCliques``
    computes them (self-loops are a separate check). Deterministic: nodes in insertion order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = [0]

    def connect(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in adjacency.get(v, []):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for v in list(adjacency):
        if v not in index:
            connect(v)
    return out


@_rule("GV013", "starts-after-cycle")
def get_strongly_connected_cliques(c: Check) -> Iterator[Problem]:
    """Under ``CliqueStartupTypeExplicit``, ``startsAfter`` must not form a cycle.

    A cycle means no clique in it can ever start.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliquedeps.go#GetStronglyConnectedCliques (called from validateCliqueDependencies)

    Bad:
        cliqueStartupType: CliqueStartupTypeExplicit
        cliques:
        - name: a
          spec: {startsAfter: [b]}
        - name: b
          spec: {startsAfter: [a]}

    Good:
        cliqueStartupType: CliqueStartupTypeExplicit
        cliques:
        - name: a
        - name: b
          spec: {startsAfter: [a]}

    Remediation: Remove one dependency of the cycle.
    """
    if c.startup_type != EXPLICIT:
        return
    adjacency: dict[str, list[str]] = {}
    first_index: dict[str, int] = {}
    for i, cl in c.cliques:
        name = _str(cl.get("name"))
        first_index.setdefault(name, i)
        adjacency.setdefault(name, []).extend(_str(d) for d in _list(_map(cl.get("spec")).get("startsAfter")))
    for comp in strongly_connected_cliques(adjacency):
        members = sorted(comp, key=lambda n: first_index.get(n, 0))
        i = first_index.get(members[0], 0)
        cycle = " -> ".join(members + [members[0]])
        yield _clique(i, "spec", "startsAfter"), f"clique must not have circular dependencies: {cycle}"


@_rule("GV014", "clique-autoscaling-bounds")
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
        s = _map(cl.get("spec"))
        asc = s.get("autoScalingConfig")
        if not isinstance(asc, Mapping):
            continue
        base = _clique(i, "spec", "autoScalingConfig")
        ma = _int(s.get("minAvailable"))
        mn = _int(asc.get("minReplicas"))
        mx = _int(asc.get("maxReplicas"))
        r = _int(s.get("replicas"))
        if asc.get("minReplicas") is None:
            yield (*base, "minReplicas"), "field is required"
        elif mn is not None and ma is not None and mn < ma:
            yield (*base, "minReplicas"), f"minReplicas {mn} must be greater than or equal to minAvailable {ma}"
        if mx is not None and mn is not None and mx < mn:
            yield (*base, "maxReplicas"), f"maxReplicas {mx} must be greater than or equal to minReplicas {mn}"
        if mx is not None and r is not None and mx < r:
            yield (*base, "maxReplicas"), f"maxReplicas {mx} must be greater than or equal to replicas {r}"


@_rule("GV015", "pod-spec-create-forbidden-fields")
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
        ps = _map(_map(cl.get("spec")).get("podSpec"))
        if ps.get("topologySpreadConstraints") is not None:
            yield _clique(i, "spec", "podSpec", "topologySpreadConstraints"), "must not be set"
        if _str(ps.get("nodeName")).strip():
            yield _clique(i, "spec", "podSpec", "nodeName"), "must not be set"


@_rule("GV016", "pod-spec-restart-policy-ignored", severity="warning")
def validate_pod_spec_restart_policy(c: Check) -> Iterator[Problem]:
    """A ``restartPolicy`` set in a clique's pod spec is ignored: pods always restart.

    The webhook answers with a warning. (It also warns when only the defaulting
    webhook set the field; this rule warns only when the manifest sets it.)

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validatePodSpec (warning)

    Bad:
        podSpec:
          restartPolicy: Never

    Good:
        podSpec:
          containers: [{name: w, image: busybox}]

    Remediation: Remove restartPolicy from the pod spec.
    """
    written = _list(_map(_map(c.written.get("spec")).get("template")).get("cliques"))
    for i, cl in enumerate(written):
        ps = _map(_map(_map(cl).get("spec")).get("podSpec"))
        rp = _str(ps.get("restartPolicy")).strip()
        if rp:
            yield _clique(i, "spec", "podSpec", "restartPolicy"), (
                f"restartPolicy {rp!r} will be ignored, it will be set to Always")


@_rule("GV017", "container-env-names")
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
        ps = _map(_map(cl.get("spec")).get("podSpec"))
        for ckey in ("containers", "initContainers"):
            for k, ctr in enumerate(_list(ps.get(ckey))):
                env = _list(_map(ctr).get("env"))
                base = _clique(i, "spec", "podSpec", ckey, k, "env")
                names = []
                for j, ev in enumerate(env):
                    n = _str(_map(ev).get("name"))
                    names.append(n)
                    if not _ENV_VAR_NAME_RE.match(n):
                        yield (*base, j, "name"), (
                            f"invalid environment variable name {n!r}: must consist of alphabetic characters, "
                            "digits, '_', '-' or '.', and must not start with a digit")
                for d in _duplicates(names):
                    j = max(j for j, n in enumerate(names) if n == d)
                    yield (*base, j, "name"), f"duplicate environment variable {d!r}"


@_rule("GV018", "scaling-group-names")
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
        n = _str(g.get("name"))
        names.append(n)
        if dns_subdomain_errors(n):
            yield _group(gi, "name"), (
                f"invalid PodCliqueScalingGroupConfig name {n!r}, must be a valid DNS subdomain")
    for d in _duplicates(names):
        gi = max(gi for gi, g in c.groups if _str(g.get("name")) == d)
        yield _group(gi, "name"), f"duplicate scaling group name {d!r}"


@_rule("GV019", "scaling-group-unknown-clique")
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
    known = {_str(cl.get("name")) for _, cl in c.cliques}
    for gi, g in c.groups:
        for j, n in enumerate(_list(g.get("cliqueNames"))):
            if not isinstance(n, str) or n not in known:
                yield _group(gi, "cliqueNames", j), f"unidentified PodClique name {n!r}"


@_rule("GV020", "clique-in-one-scaling-group")
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
    seen: dict[str, bool] = {}
    for gi, g in c.groups:
        for j, n in enumerate(_list(g.get("cliqueNames"))):
            n = _str(n)
            if n in seen:
                yield _group(gi, "cliqueNames", j), f"clique {n!r} is listed in more than one scaling group entry"
            seen[n] = True


@_rule("GV021", "scaling-group-replicas-min-available")
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
        r = _int(g.get("replicas"))
        ma = _int(g.get("minAvailable"))
        if r is not None and r <= 0:
            yield _group(gi, "replicas"), f"must be greater than 0 (got {r})"
        if ma is not None and ma <= 0:
            yield _group(gi, "minAvailable"), f"must be greater than 0 (got {ma})"
        if r is not None and ma is not None and ma > r:
            yield _group(gi, "minAvailable"), f"minAvailable {ma} must not be greater than replicas {r}"
        sc = _map(g.get("scaleConfig"))
        mn = _int(sc.get("minReplicas"))
        if mn is not None and ma is not None and mn < ma:
            yield _group(gi, "scaleConfig", "minReplicas"), (
                f"scaleConfig.minReplicas {mn} must be greater than or equal to minAvailable {ma}")


@_rule("GV022", "scaling-group-member-autoscaling")
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
        if _str(cl.get("name")) in members and _map(cl.get("spec")).get("autoScalingConfig") is not None:
            yield _clique(i, "spec", "autoScalingConfig"), (
                f"AutoScalingConfig is not allowed for PodClique {cl.get('name')!r}, which is part of a scaling group")


@_rule("GV023", "termination-delay-positive")
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
    path = (*T, "terminationDelay")
    if td is None:
        yield path, "terminationDelay is required"
        return
    secs = parse_go_duration(td)
    if secs is None:
        yield path, f"invalid duration {td!r} (use a Go duration such as 30m or 4h)"
    elif secs <= 0:
        yield path, f"terminationDelay must be greater than 0 (got {td!r})"


@_rule("GV024", "resource-claim-templates")
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
    rcts = _list(c.template.get("resourceClaimTemplates"))
    names = []
    for i, rct in enumerate(rcts):
        rct = _map(rct)
        n = _str(rct.get("name"))
        names.append(n)
        base = (*T, "resourceClaimTemplates", i)
        if not n:
            yield (*base, "name"), "template name is required"
        reqs = _list(_map(_map(_map(rct.get("templateSpec")).get("spec")).get("devices")).get("requests"))
        if not reqs:
            yield (*base, "templateSpec", "spec", "devices", "requests"), "at least one device request is required"
    for d in _duplicates(names):
        yield (*T, "resourceClaimTemplates"), f"duplicate resource claim template name {d!r}"


def _sharing_lists(c: Check) -> Iterator[tuple[Path, list, str, set[str], set[str]]]:
    """(path, refs, level, allowed clique filter names, allowed group filter names)."""
    cliques = {_str(cl.get("name")) for _, cl in c.cliques}
    groups = {_str(g.get("name")) for _, g in c.groups}
    yield (*T, "resourceSharing"), _list(c.template.get("resourceSharing")), "pcs", cliques, groups
    for i, cl in c.cliques:
        yield _clique(i, "resourceSharing"), _list(cl.get("resourceSharing")), "clique", set(), set()
    for gi, g in c.groups:
        members = {_str(n) for n in _list(g.get("cliqueNames"))}
        yield _group(gi, "resourceSharing"), _list(g.get("resourceSharing")), "pcsg", members, set()


@_rule("GV025", "resource-sharing")
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
    templates = {_str(_map(r).get("name")) for r in _list(c.template.get("resourceClaimTemplates"))}
    for base, refs, level, ok_cliques, ok_groups in _sharing_lists(c):
        seen: set[str] = set()
        for i, ref in enumerate(refs):
            ref = _map(ref)
            n = _str(ref.get("name"))
            if not n:
                yield (*base, i, "name"), "reference name is required"
            elif n in seen:
                yield (*base, i, "name"), f"duplicate reference name {n!r}"
            seen.add(n)
            if _str(ref.get("namespace")) and n and n in templates:
                yield (*base, i, "namespace"), (
                    "namespace must be empty when name matches an internal resourceClaimTemplate")
            if ref.get("scope") not in ("AllReplicas", "PerReplica"):
                yield (*base, i, "scope"), f"unsupported scope {ref.get('scope')!r}: use AllReplicas or PerReplica"
            flt = ref.get("filter")
            if level == "clique" or not isinstance(flt, Mapping):
                continue
            fc = _list(flt.get("childCliqueNames"))
            fg = _list(flt.get("childScalingGroupNames"))
            if not fc and (level == "pcsg" or not fg):
                what = "childCliqueNames" if level == "pcsg" else "childCliqueNames or childScalingGroupNames"
                yield (*base, i, "filter"), f"filter must specify at least one {what} entry"
            for j, n2 in enumerate(fc):
                if _str(n2) not in ok_cliques:
                    yield (*base, i, "filter", "childCliqueNames", j), f"clique {n2!r} not found"
            for j, n2 in enumerate(fg):
                if level == "pcs" and _str(n2) not in ok_groups:
                    yield (*base, i, "filter", "childScalingGroupNames", j), f"scaling group {n2!r} not found"


def _topology_constraints(pcs: Mapping[str, Any]) -> Iterator[tuple[Path, str, str, Mapping[str, Any] | None]]:
    """``forEachTopologyConstraint`` order: PCS, cliques, scaling groups: (path, kind, name, constraint)."""
    t = _map(_map(pcs.get("spec")).get("template"))
    yield (*T, "topologyConstraint"), "PodCliqueSet", "", (
        t.get("topologyConstraint") if isinstance(t.get("topologyConstraint"), Mapping) else None)
    for i, cl in enumerate(_list(t.get("cliques"))):
        tc = _map(cl).get("topologyConstraint")
        yield _clique(i, "topologyConstraint"), "PodClique", _str(_map(cl).get("name")), (
            tc if isinstance(tc, Mapping) else None)
    for i, g in enumerate(_list(t.get("podCliqueScalingGroups"))):
        tc = _map(g).get("topologyConstraint")
        yield _group(i, "topologyConstraint"), "PodCliqueScalingGroup", _str(_map(g).get("name")), (
            tc if isinstance(tc, Mapping) else None)


@_rule("GV026", "topology-name")
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
        if not _str(tc.get("topologyName")):
            yield (*T, "topologyConstraint", "topologyName"), (
                "topologyName is required when topologyConstraint is set and cannot be inherited")
        else:
            pcs_name, pcs_ok = _str(tc.get("topologyName")), True
            names.append(pcs_name)
    by_clique: dict[str, str] = {}
    for gi, g in c.groups:
        gtc = g.get("topologyConstraint")
        if not isinstance(gtc, Mapping):
            continue
        own = _str(gtc.get("topologyName"))
        if not own and not pcs_ok:
            yield _group(gi, "topologyConstraint", "topologyName"), (
                "topologyName is required when topologyConstraint is set and cannot be inherited")
            continue
        eff = own or pcs_name
        names.append(eff)
        for n in _list(g.get("cliqueNames")):
            by_clique.setdefault(_str(n), eff)
    for i, cl in c.cliques:
        ctc = cl.get("topologyConstraint")
        if not isinstance(ctc, Mapping):
            continue
        own = _str(ctc.get("topologyName"))
        inherited, can = pcs_name, pcs_ok
        if _str(cl.get("name")) in by_clique:
            inherited, can = by_clique[_str(cl.get("name"))], True
        if not own and (not can or not inherited):
            yield _clique(i, "topologyConstraint", "topologyName"), (
                "topologyName is required when topologyConstraint is set and cannot be inherited")
            continue
        names.append(own or inherited)
    if len(set(names)) > 1:
        for path, _kind, _n, ctc in _topology_constraints(c.pcs):
            if ctc is not None and _str(ctc.get("topologyName")):
                yield (*path, "topologyName"), (
                    "all topologyConstraint.topologyName values within a PodCliqueSet must match "
                    f"(found {', '.join(sorted(set(names)))})")


@_rule("GV027", "topology-pack")
def topology_constraint_crd_rules(c: Check) -> Iterator[Problem]:
    """A topology constraint needs ``pack`` (with ``required`` or ``preferred``); the deprecated
    ``packDomain`` cannot be combined with ``pack.required`` and cannot be used on new objects.

    These are CEL rules of the CRD (x-kubernetes-validations), checked by the API server.

    Upstream: operator/api/core/v1alpha1/crds/grove.io_podcliquesets.yaml (x-kubernetes-validations of topologyConstraint and PodCliqueSet)

    Bad:
        topologyConstraint: {topologyName: tz, packDomain: rack}

    Good:
        topologyConstraint: {topologyName: tz, pack: {required: rack}}

    Remediation: Use pack.required (or pack.preferred) instead of packDomain.
    """
    for path, _kind, _name, tc in _topology_constraints(c.pcs):
        if tc is None:
            continue
        pack = tc.get("pack")
        has_pd = tc.get("packDomain") is not None
        if pack is None and not has_pd:
            yield (*path, "pack"), "topologyConstraint must specify pack or deprecated packDomain"
        if isinstance(pack, Mapping):
            if pack.get("required") is None and pack.get("preferred") is None:
                yield (*path, "pack"), "pack must specify at least one of required or preferred"
            if has_pd and pack.get("required") is not None:
                yield (*path, "pack", "required"), "must not set both pack.required and deprecated packDomain"
        if has_pd and c.creating:
            yield (*path, "packDomain"), "packDomain is deprecated and cannot be used on new workloads; use pack.required"


# --------------------------------------------------------------------------- per-component rollingUpdate (PR #817)


@_rule("GV028", "rolling-update-configuration")
def validate_rolling_update_configuration(c: Check) -> Iterator[Problem]:
    """A component's ``rollingUpdate`` needs ``maxUnavailable`` > 0 and a positive
    ``progressDeadline``; it is not allowed on a clique that belongs to a scaling
    group, nor under the ``OnDelete`` strategy.

    Upstream: ai-dynamo/grove PR #817 (RollingUpdateConfiguration validation; after the pinned snapshot)

    Bad:
        updateStrategy: {type: OnDelete}
        template:
          cliques:
          - name: frontend
            rollingUpdate: {maxUnavailable: 0}

    Good:
        updateStrategy: {type: RollingRecreate}
        template:
          cliques:
          - name: frontend
            rollingUpdate: {maxUnavailable: 1, progressDeadline: 10m}

    Remediation: Use maxUnavailable >= 1; remove rollingUpdate from scaling-group members and under OnDelete.
    """
    members = c.scaling_group_clique_names()
    on_delete = c.update_type == "OnDelete"
    comps = [(_clique(i, "rollingUpdate"), cl, _str(cl.get("name")) in members) for i, cl in c.cliques]
    comps += [(_group(gi, "rollingUpdate"), g, False) for gi, g in c.groups]
    for path, comp, is_member in comps:
        ru = comp.get("rollingUpdate")
        if ru is None:
            continue
        ru = _map(ru)
        if is_member:
            yield path, "rollingUpdate is not allowed on a PodClique that belongs to a PodCliqueScalingGroup"
        if on_delete:
            yield path, "rollingUpdate is not allowed with updateStrategy.type OnDelete"
        mu = _int(ru.get("maxUnavailable"))
        if mu is not None and mu <= 0:
            yield (*path, "maxUnavailable"), f"must be greater than 0 (got {mu})"
        pd = ru.get("progressDeadline")
        if pd is not None:
            secs = parse_go_duration(pd)
            if secs is None or secs <= 0:
                yield (*path, "progressDeadline"), f"must be a positive duration (got {pd!r})"


# =========================================================================== update rules (U1-U7)


def _old_template(c: Check) -> Mapping[str, Any]:
    return _map(_map(_map(c.old).get("spec")).get("template"))


def _by_name(items: list) -> dict[str, tuple[int, Mapping[str, Any]]]:
    out: dict[str, tuple[int, Mapping[str, Any]]] = {}
    for i, it in enumerate(items):
        if isinstance(it, Mapping):
            out.setdefault(_str(it.get("name")), (i, it))
    return out


def _changed(new: Any, old: Any) -> bool:
    """``ValidateImmutableField`` compares with semantic equality; nil and empty lists differ
    there for pointers but not for slices. We compare values, treating a missing list as empty."""
    if isinstance(new, list) or isinstance(old, list):
        return (new or []) != (old or [])
    return new != old


@_rule("GV101", "clique-composition-immutable", scope="update")
def validate_pod_clique_update(c: Check) -> Iterator[Problem]:
    """Cliques cannot be added, removed or renamed after creation, and under
    ``CliqueStartupTypeInOrder`` or ``Explicit`` their order cannot change.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validatePodCliqueUpdate

    Bad:
        # live: cliques [leader, worker]
        cliques:
        - name: leader
        - name: worker
        - name: router

    Good:
        # live: cliques [leader, worker]
        cliques:
        - name: leader
        - name: worker

    Remediation: Create a new PodCliqueSet to change the set of cliques.
    """
    if c.old is None:
        return
    new = _list(c.template.get("cliques"))
    old = _list(_old_template(c).get("cliques"))
    if len(new) != len(old):
        yield (*T, "cliques"), (
            f"not allowed to change clique composition ({len(old)} cliques live, {len(new)} desired)")
    old_by = _by_name(old)
    ordered = c.startup_type in (IN_ORDER, EXPLICIT)
    for i, cl in c.cliques:
        n = _str(cl.get("name"))
        if n not in old_by:
            yield _clique(i, "name"), f"not allowed to change clique composition, new clique name {n!r} is not allowed"
            continue
        oi, ocl = old_by[n]
        if ordered and oi != i:
            yield _clique(i, "name"), (
                f"clique order cannot be changed when the startup type is InOrder or Explicit: expected "
                f"{_str(_map(old[i]).get('name')) if i < len(old) else '?'!r} at position {i}, got {n!r}")


@_rule("GV102", "clique-fields-immutable", scope="update")
def validate_pod_clique_update_immutable_fields(c: Check) -> Iterator[Problem]:
    """A clique's ``roleName``, ``minAvailable``, ``startsAfter``, ``podSpec.schedulerName`` and
    ``resourceSharing`` cannot change after creation.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validatePodCliqueUpdate (ValidateImmutableField calls)

    Bad:
        # live: minAvailable 2
        spec: {replicas: 4, minAvailable: 3}

    Good:
        # live: minAvailable 2
        spec: {replicas: 4, minAvailable: 2}

    Remediation: Keep the live value, or delete and recreate the PodCliqueSet.
    """
    if c.old is None:
        return
    old_by = _by_name(_list(_old_template(c).get("cliques")))
    for i, cl in c.cliques:
        n = _str(cl.get("name"))
        if n not in old_by:
            continue
        ocl = old_by[n][1]
        s, os_ = _map(cl.get("spec")), _map(ocl.get("spec"))
        for key in ("roleName", "minAvailable", "startsAfter"):
            if _changed(s.get(key), os_.get(key)):
                yield _clique(i, "spec", key), (
                    f"field is immutable (live {os_.get(key)!r}, desired {s.get(key)!r})")
        sn, osn = _map(s.get("podSpec")).get("schedulerName"), _map(os_.get("podSpec")).get("schedulerName")
        if (sn or "") != (osn or ""):
            yield _clique(i, "spec", "podSpec", "schedulerName"), f"field is immutable (live {osn!r}, desired {sn!r})"
        if _changed(cl.get("resourceSharing"), ocl.get("resourceSharing")):
            yield _clique(i, "resourceSharing"), "field is immutable"


@_rule("GV103", "startup-type-immutable", scope="update")
def validate_pod_clique_set_template_spec_update(c: Check) -> Iterator[Problem]:
    """``cliqueStartupType``, ``resourceClaimTemplates`` and the PodCliqueSet-level
    ``resourceSharing`` cannot change after creation.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validatePodCliqueSetTemplateSpecUpdate

    Bad:
        # live: CliqueStartupTypeAnyOrder
        template:
          cliqueStartupType: CliqueStartupTypeExplicit

    Good:
        # live: CliqueStartupTypeAnyOrder
        template:
          cliqueStartupType: CliqueStartupTypeAnyOrder

    Remediation: Keep the live value, or delete and recreate the PodCliqueSet.
    """
    if c.old is None:
        return
    ot = _old_template(c)
    for key in ("cliqueStartupType", "resourceClaimTemplates", "resourceSharing"):
        if _changed(c.template.get(key), ot.get(key)):
            detail = f" (live {ot.get(key)!r}, desired {c.template.get(key)!r})" if key == "cliqueStartupType" else ""
            yield (*T, key), f"field is immutable{detail}"


@_rule("GV104", "scaling-groups-immutable", scope="update")
def validate_pod_clique_scaling_group_configs_update(c: Check) -> Iterator[Problem]:
    """Scaling groups cannot be added, removed or renamed, and a group's ``cliqueNames``,
    ``minAvailable`` and ``resourceSharing`` cannot change. ``replicas`` and ``scaleConfig``
    may change.

    Upstream: operator/internal/webhook/admission/pcs/validation/podcliqueset.go#validatePodCliqueScalingGroupConfigsUpdate

    Bad:
        # live: prefill minAvailable 1
        podCliqueScalingGroups:
        - {name: prefill, cliqueNames: [pleader], replicas: 2, minAvailable: 2}

    Good:
        # live: prefill minAvailable 1
        podCliqueScalingGroups:
        - {name: prefill, cliqueNames: [pleader], replicas: 3, minAvailable: 1}

    Remediation: Keep the live values, or delete and recreate the PodCliqueSet.
    """
    if c.old is None:
        return
    new = _list(c.template.get("podCliqueScalingGroups"))
    old = _list(_old_template(c).get("podCliqueScalingGroups"))
    if len(new) != len(old):
        yield (*T, "podCliqueScalingGroups"), "not allowed to add or remove PodCliqueScalingGroupConfigs"
        return
    old_by = _by_name(old)
    for gi, g in c.groups:
        n = _str(g.get("name"))
        if n not in old_by:
            yield _group(gi, "name"), (
                f"not allowed to change scaling group composition, new scaling group name {n!r} is not allowed")
            continue
        og = old_by[n][1]
        for key in ("cliqueNames", "minAvailable", "resourceSharing"):
            if _changed(g.get(key), og.get(key)):
                yield _group(gi, key), f"field is immutable (live {og.get(key)!r}, desired {g.get(key)!r})"


def _required_domain(tc: Mapping[str, Any]) -> str:
    return _str(_map(tc.get("pack")).get("required")) or _str(tc.get("packDomain"))


def _preferred_domain(tc: Mapping[str, Any]) -> str:
    return _str(_map(tc.get("pack")).get("preferred"))


@_rule("GV105", "topology-immutable", scope="update")
def validate_topology_constraint_immutability(c: Check) -> Iterator[Problem]:
    """Topology constraints cannot be added, removed or changed after creation, except
    moving the deprecated ``packDomain`` to ``pack.required`` unchanged, or adding a
    missing ``topologyName`` to a legacy constraint.

    Upstream: operator/internal/webhook/admission/pcs/validation/topologyconstraints.go#validateTopologyConstraintImmutability

    Bad:
        # live: pack {required: rack}
        topologyConstraint: {topologyName: tz, pack: {required: zone}}

    Good:
        # live: packDomain rack
        topologyConstraint: {topologyName: tz, pack: {required: rack}}

    Remediation: Keep the live constraint, or delete and recreate the PodCliqueSet.
    """
    if c.old is None:
        return
    old_by_path: dict[tuple[str, str], Mapping[str, Any] | None] = {}
    for _p, kind, name, tc in _topology_constraints(c.old):
        old_by_path.setdefault((kind, name), tc)
    for path, kind, name, new in _topology_constraints(c.pcs):
        old = old_by_path.get((kind, name))
        if old is None and new is None:
            continue
        label = f"{kind}" + (f" {name!r}" if name else "")
        if old is None:
            yield path, f"{label} topology constraint cannot be added after creation"
            continue
        if new is None:
            yield path, f"{label} topology constraint cannot be removed after creation"
            continue
        changed = (_str(old.get("topologyName")) != _str(new.get("topologyName"))
                   or _str(old.get("packDomain")) != _str(new.get("packDomain"))
                   or _required_domain(old) != _required_domain(new)
                   or _preferred_domain(old) != _preferred_domain(new))
        if not changed:
            continue
        legacy_repair = (not _str(old.get("topologyName")) and _str(old.get("packDomain"))
                         and _str(new.get("topologyName")) and _str(new.get("packDomain")) == _str(old.get("packDomain")))
        migration = (_str(old.get("packDomain")) and not _str(new.get("packDomain"))
                     and _str(_map(new.get("pack")).get("required"))
                     and _str(old.get("topologyName")) == _str(new.get("topologyName"))
                     and _required_domain(new) == _str(old.get("packDomain"))
                     and _preferred_domain(new) == _preferred_domain(old))
        if legacy_repair or migration:
            continue
        if _str(old.get("topologyName")) != _str(new.get("topologyName")):
            msg = (f"{label} topology constraint topologyName cannot be changed from "
                   f"{_str(old.get('topologyName'))!r} to {_str(new.get('topologyName'))!r}")
        else:
            msg = (f"{label} topology constraint cannot be changed from required={_required_domain(old)!r} "
                   f"preferred={_preferred_domain(old)!r} to required={_required_domain(new)!r} "
                   f"preferred={_preferred_domain(new)!r}")
        yield path, msg


# =========================================================================== proposed design (PR #262)

_DESIGN_REF = "ai-dynamo/grove PR #262 docs/designs/update-strategy.md"


def _budget_fields(c: Check) -> Iterator[tuple[Path, Mapping[str, Any], str, int | None]]:
    """Every proposed maxUnavailable/maxSurge holder: (path, mapping, level, replicas at that level)."""
    us = _map(c.spec.get("updateStrategy"))
    if isinstance(us.get("rollingUpdate"), Mapping):
        yield ("spec", "updateStrategy", "rollingUpdate"), us["rollingUpdate"], "PodCliqueSet", _int(c.spec.get("replicas"))
    for i, cl in c.cliques:
        if isinstance(cl.get("updateStrategy"), Mapping):
            yield _clique(i, "updateStrategy"), cl["updateStrategy"], "PodClique", _int(_map(cl.get("spec")).get("replicas"))
    for gi, g in c.groups:
        if isinstance(g.get("updateStrategy"), Mapping):
            yield _group(gi, "updateStrategy"), g["updateStrategy"], "PodCliqueScalingGroup", _int(g.get("replicas"))


def scaled_value(value: Any, total: int, round_up: bool) -> int | None:
    """``intstr.GetScaledValueFromIntOrPercent``: an int, or a percentage of ``total``
    rounded up (maxSurge) or down (maxUnavailable). None when malformed."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        m = _PERCENT_RE.match(value.strip())
        if m:
            v = int(m.group(1)) * total / 100
            return math.ceil(v) if round_up else math.floor(v)
        if value.strip().lstrip("-").isdigit():
            return int(value)
    return None


@_rule("GV201", "design-update-fields", severity="warning", scope="design")
def proposed_update_strategy_fields(c: Check) -> Iterator[Problem]:
    """The manifest uses update-strategy fields of the proposed design that the Grove
    operator does not implement yet.

    ``spec.updateStrategy.type: RollingUpdate | ReplicaRecreate``,
    ``spec.updateStrategy.rollingUpdate`` and ``updateStrategy`` on cliques and scaling
    groups come from the design discussion; the API server of a current Grove release
    rejects or drops them. rolloutctl plans them as the design describes.

    Upstream: ai-dynamo/grove PR #262 docs/designs/update-strategy.md (section "API Changes")

    Bad:
        spec:
          updateStrategy: {type: ReplicaRecreate}

    Good:
        spec:
          updateStrategy: {type: RollingRecreate}

    Remediation: Use them only to compare strategies with `rolloutctl plan --compare`, not against a live cluster.
    """
    us = _map(_map(c.written.get("spec")).get("updateStrategy"))
    if us.get("type") in DESIGN_STRATEGIES:
        yield ("spec", "updateStrategy", "type"), (
            f"updateStrategy.type {us.get('type')} is proposed (PR #262), not implemented by the Grove operator yet")
    for path, _m, level, _r in _budget_fields(c):
        yield path, f"{level} {path[-1]} is proposed (PR #262), not implemented by the Grove operator yet"


@_rule("GV202", "design-budget-non-negative", scope="design")
def validate_update_budget_non_negative(c: Check) -> Iterator[Problem]:
    """``maxUnavailable`` and ``maxSurge`` must not be negative, at any level.

    Upstream: ai-dynamo/grove PR #262 docs/designs/update-strategy.md (section "Validation Webhook")

    Bad:
        updateStrategy: {maxUnavailable: -1}

    Good:
        updateStrategy: {maxUnavailable: 1}

    Remediation: Use 0 or more (or a percentage).
    """
    for path, m, _level, _r in _budget_fields(c):
        for key in ("maxUnavailable", "maxSurge"):
            v = m.get(key)
            if v is None:
                continue
            n = scaled_value(v, 100, key == "maxSurge")
            if n is None:
                yield (*path, key), f"invalid value {v!r}: must be an integer or a percentage such as 25%"
            elif n < 0:
                yield (*path, key), f"must not be negative (got {v!r})"


@_rule("GV203", "design-budget-zero-zero", scope="design")
def validate_update_budget_not_both_zero(c: Check) -> Iterator[Problem]:
    """``maxUnavailable`` and ``maxSurge`` must not both be 0: at least one must be positive
    or the update can never make progress.

    Unset values take the design defaults (maxUnavailable 1, maxSurge 0).

    Upstream: ai-dynamo/grove PR #262 docs/designs/update-strategy.md (section "Validation Webhook")

    Bad:
        updateStrategy: {maxUnavailable: 0, maxSurge: 0}

    Good:
        updateStrategy: {maxUnavailable: 0, maxSurge: 1}

    Remediation: Allow one unavailable replica or one surge replica.
    """
    for path, m, _level, r in _budget_fields(c):
        total = r if r is not None else 0
        mu = scaled_value(m.get("maxUnavailable", 1), total, False)
        ms = scaled_value(m.get("maxSurge", 0), total, True)
        if mu == 0 and ms == 0:
            key = "maxUnavailable" if "maxUnavailable" in m else "maxSurge"
            yield (*path, key), "maxUnavailable and maxSurge must not both be 0; at least one must be greater than 0"


@_rule("GV204", "design-max-unavailable-bound", scope="design")
def validate_update_budget_max_unavailable(c: Check) -> Iterator[Problem]:
    """``maxUnavailable`` must not exceed the replicas at its level (PodCliqueSet replicas,
    scaling-group replicas, or clique pods).

    Upstream: ai-dynamo/grove PR #262 docs/designs/update-strategy.md (section "Validation Webhook")

    Bad:
        cliques:
        - name: frontend
          spec: {replicas: 2}
          updateStrategy: {maxUnavailable: 3}

    Good:
        cliques:
        - name: frontend
          spec: {replicas: 2}
          updateStrategy: {maxUnavailable: 1}

    Remediation: Lower maxUnavailable to at most replicas.
    """
    for path, m, level, r in _budget_fields(c):
        if r is None or m.get("maxUnavailable") is None:
            continue
        mu = scaled_value(m.get("maxUnavailable"), r, False)
        if mu is not None and mu > r:
            yield (*path, "maxUnavailable"), f"maxUnavailable {mu} exceeds the {level} replicas ({r})"


@_rule("GV205", "design-rolling-update-pcs-budget", scope="design")
def validate_rolling_update_pcs_budget(c: Check) -> Iterator[Problem]:
    """Under ``RollingUpdate``, PodCliqueSet-level ``rollingUpdate.maxUnavailable``/``maxSurge``
    are not allowed: PodCliqueSet replicas are always updated one at a time.

    Upstream: ai-dynamo/grove PR #262 docs/designs/update-strategy.md (section "Validation Webhook")

    Bad:
        updateStrategy:
          type: RollingUpdate
          rollingUpdate: {maxSurge: 1}

    Good:
        updateStrategy:
          type: ReplicaRecreate
          rollingUpdate: {maxSurge: 1}

    Remediation: Remove rollingUpdate, or set budgets on cliques and scaling groups instead.
    """
    us = _map(c.spec.get("updateStrategy"))
    if us.get("type") != "RollingUpdate":
        return
    ru = _map(us.get("rollingUpdate"))
    for key in ("maxUnavailable", "maxSurge"):
        if ru.get(key) is not None:
            yield ("spec", "updateStrategy", "rollingUpdate", key), (
                f"{key} is not allowed at PodCliqueSet level with type RollingUpdate "
                "(replicas are updated one at a time); use ReplicaRecreate or component budgets")


@_rule("GV206", "design-replica-recreate-components", scope="design")
def validate_replica_recreate_components(c: Check) -> Iterator[Problem]:
    """Under ``ReplicaRecreate``, cliques and scaling groups must not have their own
    ``updateStrategy``: the whole replica is recreated at once.

    Upstream: ai-dynamo/grove PR #262 docs/designs/update-strategy.md (section "Validation Webhook")

    Bad:
        updateStrategy: {type: ReplicaRecreate}
        template:
          cliques:
          - name: frontend
            updateStrategy: {maxSurge: 1}

    Good:
        updateStrategy: {type: RollingUpdate}
        template:
          cliques:
          - name: frontend
            updateStrategy: {maxSurge: 1}

    Remediation: Remove the component updateStrategy, or use RollingUpdate.
    """
    if _map(c.spec.get("updateStrategy")).get("type") != "ReplicaRecreate":
        return
    for path, _m, level, _r in _budget_fields(c):
        if level != "PodCliqueSet":
            yield path, f"{level} updateStrategy is not allowed with type ReplicaRecreate"


# =========================================================================== hazards


@_rule("GV301", "clique-name-suffix", severity="warning", scope="hazard")
def find_pod_clique_template_by_suffix(c: Check) -> Iterator[Problem]:
    """A clique's name is a suffix of another clique's PodClique name, so the operator
    builds that PodClique from the wrong template.

    The PodCliqueSet and scaling-group controllers find a PodClique's template as the
    first clique (in ``cliques`` order) whose name the PodClique name ends with. With
    cliques ``worker`` then ``pworker``, PodClique ``<pcs>-0-pworker`` gets the
    ``worker`` template.

    Upstream: operator/internal/controller/podcliqueset/components/podclique/podclique.go#buildResource (strings.HasSuffix lookup)

    Bad:
        cliques:
        - name: worker
        - name: pworker

    Good:
        cliques:
        - name: decode-worker
        - name: prefill-worker

    Remediation: Rename cliques so that no name ends with another clique's name.
    """
    cliques = [(i, _str(cl.get("name"))) for i, cl in c.cliques]
    group_of: dict[str, str] = {}
    for _, g in c.groups:
        for n in _list(g.get("cliqueNames")):
            group_of.setdefault(_str(n), _str(g.get("name")))
    for i, name in cliques:
        if not name:
            continue
        fqn = (f"{c.name}-0-{group_of[name]}-0-{name}" if name in group_of else f"{c.name}-0-{name}")
        first = next((n for _, n in cliques if n and fqn.endswith(n)), name)
        if first != name:
            yield _clique(i, "name"), (
                f"PodClique {fqn!r} ends with the name of clique {first!r}, which is listed earlier; the operator "
                f"will build it from the {first!r} template")


RULES: tuple[RuleSpec, ...] = tuple(_RULES)
_BY_SCOPE = {s: tuple(r for r in RULES if r.scope == s) for s in ("create", "update", "design", "hazard")}


def uses_design_fields(obj: Obj) -> bool:
    """True when the manifest uses update-strategy fields of the proposed design."""
    c = Check(obj)
    return any(True for _ in proposed_update_strategy_fields(c))


def validate(obj: Obj, old: Obj | None = None) -> list[Finding]:
    """All findings for a PodCliqueSet, as the API server would answer a create
    (``old`` None) or an update from ``old``.

    Defaulting runs first (``default_pcs``). As in ``Handler.ValidateUpdate``, the
    update rules run only when the create-and-update rules found no error. Design
    rules and hazard warnings always run. Sorted by line.
    """
    c = Check(obj, old)
    findings: list[Finding] = []

    def run(rules: Iterable[RuleSpec]) -> None:
        for r in rules:
            for path, message in r.check(c):
                findings.append(Finding(
                    rule=r.id, severity=r.severity, file=obj.file, line=obj.line_of(*path),
                    message=message, path=field_path(c.pcs, path), object=obj.ref))

    run(_BY_SCOPE["create"])
    if old is not None and not any(f.severity == "error" for f in findings):
        run(_BY_SCOPE["update"])
    run(_BY_SCOPE["design"])
    run(_BY_SCOPE["hazard"])
    return sorted(set(findings), key=Finding.sort_key)
