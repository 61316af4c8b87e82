"""Admission: every object, desired and observed, as the API server would store it.

One step between ``load`` and everything else (``plan``, ``next``, ``diff``,
``lint``, ``plan --compare``), modelled on the API server's own pipeline for a
custom resource (k8s.io/apiextensions-apiserver ``pkg/registry/customresource``:
``strategy.go`` ``PrepareForCreate``/``Validate`` and the ``crdConversionRESTOptionsGetter``
decoding path in ``pkg/apiserver/customresource_handler.go``), run offline:

1. decode as kubectl does (``sigs.k8s.io/yaml``: go-yaml v2's YAML 1.1 scalar
   rules, then JSON) — done by the loader, ``load/files.py``, which keeps lines;
2. version: every served version of the CRD is accepted; a deprecated one gives
   the CRD's ``deprecationWarning``; a field of the models' version that the
   object's own version lacks (the registry's ``absent``) is an unknown field there
   and is dropped; the object is converted to the version the models read (the CRDs
   use ``conversion.strategy: None``: only ``apiVersion`` changes;
   ``pkg/apiserver/conversion/nop_converter.go``);
3. ``metadata.namespace`` defaulted from ``-n`` or ``default`` (kubectl apply);
   ``null`` fields the schema does not mark nullable are pruned
   (``structuraldefaulting.PruneNonNullableNullsWithoutDefaults``; an unknown
   field stays, to be reported, null or not), then the
   schema's structural ``default`` values are applied, nested
   (``structuraldefaulting.Default``, KEP-575);
4. the operator's defaulting webhook mutates the object (after the CRD
   defaults, before validation), as the kind's registry entry names it;
5. validation: the structural schema with strict field validation (kubectl's
   default since 1.27), ObjectMeta rules (``admit/meta.py``);
6. typed values the controllers hash as Go structs are normalised: quantities
   to their canonical form (``resource.Quantity.String``), so hash inputs and
   diffs compare values, not spellings;
7. observed objects pass the same checks: a wrong type is an error (the models
   would read it), other violations of a stored object are warnings (the API
   server never re-validates what it stored).

Duplicates in the desired input (same group, kind, namespace, name) are an
error naming both places. Nothing here knows an operator: a kind's registry
entry (``core.kind.KindDescriptor``) hands admission its served versions,
schema, overlays and defaulting webhook. Pure: no I/O beyond reading the bundled
schemas.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

from ..core.kind import KindDescriptor
from ..core.model import Finding, Obj
from ..core.paths import field_path
from ..core.records import field, record, replace
from ..core.trees import copy_tree, pattern_parents
from ..core.applied import last_applied_of
from .apply import applied_spec
from .listtype import check_list_items
from .ratchet import ratcheted
from .schema import (REQUIRED_FIELD, UNKNOWN_FIELD, UNSERVED_VERSION, WRONG_TYPE, apply_schema_defaults, canonical_quantities,
                     check_schema, check_types, load_schema, prune_nulls)

DESIRED = "desired"
OBSERVED = "observed"

DEPRECATED_VERSION = "SC008"
DUPLICATE_OBJECT = "SC009"
DUPLICATE_ACROSS_FILES = "SC013"

Lookup = Callable[[str, str], "KindDescriptor | None"]
#: (group, kind) -> JSON Schema of the types the models read of an observed object
ReadSchemas = Callable[[str, str], "Mapping[str, Any] | None"]

#: built-in and well-known kinds that are cluster-scoped: no namespace is defaulted
CLUSTER_SCOPED = frozenset({
    "Namespace", "Node", "PersistentVolume", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition",
    "PriorityClass", "StorageClass", "RuntimeClass", "IngressClass", "GatewayClass", "ClusterQueue",
    "ResourceFlavor", "Cohort", "Topology", "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration",
    "APIService", "CSIDriver", "CSINode", "VolumeAttachment", "ClusterTopology", "DeviceClass",
})


@record
class Admission:
    """The admitted objects (input order) and what admission found, with file and line."""

    objects: list[Obj] = field(default_factory=list)
    #: per object (parallel to ``objects``), what admission found in it
    found: list[list[Finding]] = field(default_factory=list)

    @property
    def findings(self) -> list[Finding]:
        return [f for fs in self.found for f in fs]

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    def findings_for(self, obj: Obj) -> list[Finding]:
        for o, fs in zip(self.objects, self.found):
            if o is obj:
                return fs
        return []


def group_of(api_version: str) -> str:
    return api_version.split("/")[0] if "/" in api_version else ""


def version_of(api_version: str) -> str:
    return api_version.split("/", 1)[1] if "/" in api_version else api_version


def shown(o: Obj) -> str:
    """``namespace/name`` of a namespaced object, the name alone of a cluster-scoped one
    (which has no namespace, whatever the loader's default)."""
    return o.name if o.kind in CLUSTER_SCOPED else f"{o.namespace}/{o.name}"


def _with_namespace(raw: dict, kind: str, namespace: str) -> None:
    """``kubectl apply`` puts a namespaced object that names no namespace into
    ``-n`` (else ``default``); the API server stores it there."""
    if kind in CLUSTER_SCOPED:
        return
    md = raw.get("metadata")
    if isinstance(md, dict) and not md.get("namespace"):
        md["namespace"] = namespace


def _normalise_quantities(raw: dict, schema_file: str) -> None:
    """Quantities in their canonical form (``resource.Quantity.String``), in place;
    values that are not quantities stay as written (validation reports them)."""
    from ..core.quantity import QuantityError, canonical_quantity

    canonical_quantities(raw, load_schema(schema_file), canonical_quantity,
                         (QuantityError, TypeError, ValueError, OverflowError, ZeroDivisionError))


def admit_one(obj: Obj, descriptor: KindDescriptor | None, *, side: str = DESIRED,
              namespace: str = "default", read_schema: Mapping[str, Any] | None = None,
              old: Obj | None = None, merge_live: bool = True) -> tuple[Obj, list[Finding]]:
    """One object through the pipeline: (the object as stored, findings). On the
    observed side, ``read_schema`` gives the types the models read of it (a wrong one is
    an error); ``old`` is the stored object a desired one updates (CEL transition rules),
    whose spec client-side ``kubectl apply`` patches (``apply.applied_spec``; not with
    ``merge_live`` off: server-side apply)."""
    raw = copy_tree(dict(obj.raw))
    kind = str(raw.get("kind") or "")
    _with_namespace(raw, kind, namespace)
    findings: list[Finding] = []
    view = Obj(raw, obj.file, obj.line, obj.lines, obj.cols)

    def finding(rule: str, severity: str, path: tuple, message: str) -> Finding:
        return Finding(rule, severity, obj.file, obj.line_of(*path), message, field_path(raw, path), view.ref)

    if descriptor is None:
        # a kind the tool does not own: what Go's decoding of a built-in object does
        prune_nulls(raw, None)
        admitted = _admitted(raw, obj)
        if side == OBSERVED and read_schema is not None:
            findings.extend(_observed(check_types(admitted, read_schema)))
        return admitted, findings
    version = version_of(str(raw.get("apiVersion") or ""))
    if version not in descriptor.served:
        served = ", ".join(f"{descriptor.group}/{v}" for v in descriptor.served)
        findings.append(finding(UNSERVED_VERSION, "error", ("apiVersion",),
                                f"{descriptor.group}/{version} {kind} is not served (served: {served})"))
        return _admitted(raw, obj), findings
    warning = descriptor.served[version]
    if warning and side == DESIRED:
        findings.append(finding(DEPRECATED_VERSION, "warning", ("apiVersion",), warning))
    if side == DESIRED and descriptor.absent.get(version):
        # decoded at its own version: fields only the models' version has are unknown there
        for path, key in _drop_absent(raw, descriptor.absent[version]):
            findings.append(finding(UNKNOWN_FIELD, "error", (*path, key),
                                    f"unknown field {key!r}: {descriptor.group}/{version} {kind} has no such field, "
                                    f"{descriptor.api_version} has (apiVersion: {descriptor.api_version})"))
    raw["apiVersion"] = descriptor.api_version
    schema_file = f"{descriptor.schema}.schema.json" if descriptor.schema else None
    if side == DESIRED and old is not None and merge_live:
        # kubectl apply patches the live object: what the manifest leaves out stays
        raw["spec"] = applied_spec(raw, old.raw, last_applied_of(old))
    prune_nulls(raw, schema_file)
    if side == DESIRED and descriptor.required.get(version):
        # validated at its own version: what only that version's schema requires
        for path, key in _missing(raw, descriptor.required[version]):
            findings.append(finding(REQUIRED_FIELD, "error", path,
                                    f"missing required field {key!r}: {descriptor.group}/{version} {kind} requires it "
                                    f"({descriptor.api_version} does not)"))
    if schema_file:
        apply_schema_defaults(raw, schema_file)
    try:
        raw = descriptor.default(raw)
    except (TypeError, ValueError, AttributeError, KeyError):  # a malformed object: validation reports it
        pass
    admitted = Obj(raw, obj.file, obj.line, obj.lines, obj.cols)
    schema_findings = check_schema(admitted, schema_file, _ratchet(raw, old, schema_file)
                                   if side == DESIRED and old is not None and schema_file else None)
    if side == DESIRED and descriptor.optional.get(version):
        # validated at its own version: what only the models' version requires is not
        not_required = set(descriptor.optional[version])
        schema_findings = [f for f in schema_findings
                           if not (f.rule == REQUIRED_FIELD and _dotted(f.path) in not_required)]
    if descriptor.removed:
        # a field the API removed: what to write instead, not a spelling hint
        schema_findings = [_removed(f, descriptor.removed[_dotted(f.path)])
                           if f.rule == UNKNOWN_FIELD and _dotted(f.path) in descriptor.removed else f
                           for f in schema_findings]
    if side == OBSERVED:
        # the API server never re-validates a stored object: only what the models would
        # misread (a wrong type) stops them; the rest is worth a warning
        schema_findings = [f if f.rule == WRONG_TYPE else _as_warning(f) for f in schema_findings]
    findings.extend(schema_findings)
    if schema_file:
        listed = check_list_items(admitted, load_schema(schema_file), old if side == DESIRED else None)
        findings.extend(listed if side == DESIRED else [_as_warning(f) for f in listed])
    from .meta import check_object_meta

    findings.extend(f if side == DESIRED else _as_warning(f) for f in check_object_meta(admitted))
    if side == OBSERVED and read_schema is not None:
        have = {(f.path, f.line) for f in findings if f.rule == WRONG_TYPE}
        findings.extend(f for f in _observed(check_types(admitted, read_schema)) if (f.path, f.line) not in have)
    elif schema_file and not any(f.severity == "error" for f in findings):
        from .cel import check_cel

        findings.extend(check_cel(admitted, load_schema(schema_file), old))
    if schema_file:
        # (a value that is not a quantity stays as written: an object with errors is
        # still compared, by diff, with its stored form)
        _normalise_quantities(raw, schema_file)
    return _admitted(raw, obj), findings


def _drop_absent(raw: dict, dotted: Iterable[str]) -> list[tuple[tuple, str]]:
    """Remove from ``raw`` the fields at the dotted paths (``[]``: every item of a list)
    and return where each removed one was: (path of its parent, its name), outermost first."""
    out: list[tuple[tuple, str]] = []
    for d in dotted:
        name, parents = pattern_parents(raw, d)
        for at, parent in parents:
            if name in parent:
                del parent[name]
                out.append((at, name))
    return sorted(out, key=lambda p: (len(p[0]), repr(p)))


def _removed(f: Finding, why: str) -> Finding:
    return replace(f, message=f"unknown field {f.path.rsplit('.', 1)[-1]!r}: {why}")


def _dotted(path: str) -> str:
    """A finding's path in the registry's dotted form: list items, by index or by key, as ``[]``."""
    out, depth = [], 0
    for ch in path:
        if ch == "[":
            if depth == 0:
                out.append("[]")
            depth += 1
        elif ch == "]":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def _missing(raw: dict, dotted: Iterable[str]) -> list[tuple[tuple, str]]:
    """Where a field at the dotted paths is missing from a parent that is there:
    (path of the parent, the field's name), outermost first."""
    out: list[tuple[tuple, str]] = []
    for d in dotted:
        name, parents = pattern_parents(raw, d)
        out.extend((at, name) for at, parent in parents if name not in parent)
    return sorted(out, key=lambda p: (len(p[0]), repr(p)))


def _ratchet(raw: dict, old: Obj, schema_file: str) -> Callable[[tuple, str], str | None]:
    """On an update, errors on parts the update leaves unchanged are warnings
    (``admit.ratchet``: CRD validation ratcheting)."""
    root = load_schema(schema_file)
    return lambda path, message: ratcheted(root, raw, old.raw, path, message)


def _placeholder_hint(f: Finding) -> Finding:
    """An error whose value is an unsubstituted ``${...}`` placeholder (envsubst,
    Terraform, a CI template) says so: the file is a template, not a manifest."""
    i = f.message.find("${")
    if f.severity != "error" or i < 0 or "}" not in f.message[i:]:
        return f
    return replace(f, message=f"{f.message} (a ${{...}} placeholder: substitute it first, e.g. envsubst, and "
                              "check the output)")


def _admitted(raw: dict, obj: Obj) -> Obj:
    out = Obj(raw, obj.file, obj.line, obj.lines, obj.cols)
    out.written = obj.written or obj
    return out


def _observed(found: Iterable[Finding]) -> list[Finding]:
    """Wrong types in an observed object: the models would misread them."""
    return [Finding(f.rule, "error", f.file, f.line, f"{f.message} (a model reads this field)", f.path, f.object)
            for f in found]


def _as_warning(f: Finding) -> Finding:
    if f.severity == "warning":
        return f
    return Finding(f.rule, "warning", f.file, f.line, f.message + " (stored object; the API server does not "
                   "re-validate it)", f.path, f.object)


def duplicates(objs: Iterable[Obj]) -> list[Finding]:
    """Two copies of one object (API group, kind, namespace, name) in one input: the
    second ``kubectl apply`` of the same request overwrites the first. An error at the
    second copy naming both places ."""
    return [f for f in duplicates_per_object(objs) if f is not None]


def duplicates_per_object(objs: Iterable[Obj], *, across_files_warn: bool = False) -> list[Finding | None]:
    """One finding (or None) per object. ``across_files_warn`` (lint): copies in two
    different files are ``SC013`` warnings, not ``SC009`` errors -- a repository of
    manifests often holds alternative variants of one object (samples, per-environment
    files) that are never applied together; within one file they always are."""
    seen: dict[tuple, Obj] = {}
    out: list[Finding | None] = []
    for o in objs:
        key = (group_of(o.api_version), o.kind, o.namespace, o.name)
        first = seen.get(key)
        if first is None:
            seen[key] = o
            out.append(None)
            continue
        where = f"at {first.file}:{first.line} and {o.file}:{o.line}"
        if across_files_warn and first.file != o.file:
            out.append(Finding(DUPLICATE_ACROSS_FILES, "warning", o.file, o.line,
                               f"{o.kind} {shown(o)} is defined in two files: {where}; they cannot be "
                               "applied together (plan and diff refuse them as one input)", "", o.ref))
            continue
        out.append(Finding(DUPLICATE_OBJECT, "error", o.file, o.line,
                           f"duplicate {o.kind} {shown(o)}: {where}", "", o.ref))
    return out


def admit(objs: Sequence[Obj], lookup: Lookup, *, side: str = DESIRED, namespace: str | None = None,
          read_schemas: ReadSchemas | None = None, stored: Sequence[Obj] = (),
          distinct: Callable[[Obj], bool] | None = None, across_files_warn: bool = False,
          merge_live: bool = True) -> Admission:
    """Admit every object of one input (desired or observed). ``lookup(group, kind)``
    is the kinds' registry (``kinds.descriptor``); ``namespace`` is ``-n``;
    ``read_schemas`` (observed side) the types the models read (``kinds.read_schema``);
    ``stored`` the admitted observed objects a desired object may update; ``distinct``
    says which objects are never duplicates (named by the API server: ``generateName``);
    ``across_files_warn`` see ``duplicates_per_object``; ``merge_live``: a desired object
    is patched into its stored copy as client-side ``kubectl apply`` does (``admit_one``)."""
    out = Admission()
    olds = {(group_of(o.api_version), o.kind, o.namespace, o.name): o for o in stored}
    for obj in objs:
        group = group_of(obj.api_version)
        schema = read_schemas(group, obj.kind) if read_schemas is not None and side == OBSERVED else None
        ns = obj.metadata.get("namespace") or namespace or "default"
        admitted, findings = admit_one(obj, lookup(group, obj.kind), side=side, namespace=namespace or "default",
                                       read_schema=schema, old=olds.get((group, obj.kind, ns, obj.name)),
                                       merge_live=merge_live)
        out.objects.append(admitted)
        out.found.append([_placeholder_hint(f) for f in findings])
    if side == DESIRED:
        named = [o for o in out.objects if distinct is None or not distinct(o)]
        dups = {id(o): d for o, d in zip(named, duplicates_per_object(named, across_files_warn=across_files_warn))}
        for o, fs in zip(out.objects, out.found):
            dup = dups.get(id(o))
            if dup is not None:
                fs.append(dup)
    else:
        # the cluster holds one copy of an object: two that differ leave what it holds unknown
        # (two identical copies, the same snapshot given twice, say the same)
        seen: dict[tuple, Obj] = {}
        for o, fs in zip(out.objects, out.found):
            key = (group_of(o.api_version), o.kind, o.namespace, o.name)
            first = seen.setdefault(key, o)
            if first is not o and first.raw != o.raw:
                fs.append(Finding(DUPLICATE_OBJECT, "error", o.file, o.line,
                                  f"two different copies of the live {o.kind} {shown(o)}: at "
                                  f"{first.file}:{first.line} and {o.file}:{o.line}; give one", "", o.ref))
    return out
