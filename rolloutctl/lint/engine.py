"""``lint`` as one batch: input errors, schema rules, defaulting, the operators'
admission rules, suppressions. Returns a :class:`LintReport`; prints nothing.

Order per object, as the API server would answer a create (or, with the live
object, an update): admission first (``admit/``: served version, null pruning,
CRD and webhook defaults, namespace, schema and ObjectMeta validation); an object
that admission refuses is not handed to the webhook rules (the API server would
stop there); then the operator's rules, on the admitted object. ``lint`` applies
no defaults of its own.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from ..admit import DESIRED, DUPLICATE_ACROSS_FILES, DUPLICATE_OBJECT, OBSERVED, admit
from ..admit.meta import RULE as OBJECT_META
from ..core.generated_names import generate_name, is_generated, prefix_problems, with_generated_name
from ..core.model import Finding, LintReport, Obj, ObjectRef
from ..core.paths import resolve_path
from ..kinds import admit_other, admitter, children_refused, descriptor, is_modelled, other_group_of, read_schema, validators
from . import registry
from ..core.records import field, record, replace
from .pods import check_pod_templates

IGNORE_ANNOTATION = "rolloutctl.dev/ignore"
_ENTRY_SPLIT = re.compile(r"[;\n]")
_ID_RE = re.compile(r"^[A-Z]{2}\d{3}$")


@record
class LintInput:
    objects: Sequence[Obj]
    errors: Sequence[Any] = ()
    files: int = 0
    live: Sequence[Obj] = ()
    live_errors: Sequence[Any] = ()
    strict: bool = False
    #: the repository configuration's ``ignore:`` entries still in force, and the expired ones
    ignores: Sequence[Any] = ()
    expired: Sequence[Any] = ()
    #: the findings of a ``--baseline`` report (``baseline_key`` tuples), or None
    baseline: Sequence[tuple] | None = None
    #: ``helm template`` output read: file -> ``load.positions.HelmSources``
    sources: Mapping[str, Any] = field(default_factory=dict)
    #: ``-n``: the namespace of objects that name none (else ``default``)
    namespace: str | None = None
    #: the model options the operators' rules read (``--feature-gate`` as ``feature_gates``),
    #: checked by every kind (``app.model_options``); empty: the modelled operators' defaults
    model_options: Mapping[str, Any] = field(default_factory=dict)


def parse_suppressions(obj: Obj, known: frozenset[str]) -> tuple[dict[str, str], list[Finding]]:
    """``rolloutctl.dev/ignore: "ID[,ID]: reason; ID: reason"`` -> ({ID: reason}, findings)."""
    value = obj.annotations.get(IGNORE_ANNOTATION)
    if value is None:
        return {}, []
    path = ("metadata", "annotations", IGNORE_ANNOTATION)
    line = obj.line_of(*path)
    where = f"metadata.annotations[{IGNORE_ANNOTATION}]"
    out: dict[str, str] = {}
    problems: list[Finding] = []

    def problem(rule: str, sev: str, msg: str) -> None:
        problems.append(Finding(rule, sev, obj.file, line, msg, where, obj.ref))

    for entry in _ENTRY_SPLIT.split(str(value)):
        entry = entry.strip()
        if not entry:
            continue
        ids_part, sep, reason = entry.partition(":")
        ids = [i.strip().upper() for i in ids_part.split(",") if i.strip()]
        if not sep or not reason.strip() or not ids:
            problem("SP001", "error", f"suppression {entry!r} needs a reason: write 'ID: reason'")
            continue
        for rid in ids:
            if not _ID_RE.fullmatch(rid) or rid not in known:
                problem("SP002", "warning", f"suppression names unknown rule {rid!r}")
                continue
            out[rid] = reason.strip()
    return out, problems


def lint_object(obj: Obj, old: Obj | None, known: frozenset[str],
                admission: list[Finding] | None = None, options: Mapping[str, Any] | None = None) -> list[Finding]:
    """All findings for one admitted object of a modelled kind (``admission``: what
    admission found in it; ``options``: the model options its rules read), suppressions
    applied."""
    findings = list(admission or ())
    # a schema error means a model could misread the object: the API server would stop
    # there. ObjectMeta findings (SC009) leave a well-typed object, so the operator's
    # rules still run and the user sees every problem at once.
    if not any(f.severity == "error" and f.rule != OBJECT_META for f in findings):
        # an admitted object: the pods' own checks and the webhook rules both run
        findings.extend(check_pod_templates(obj, options))
        findings.extend(children_refused(obj))
        # the API server refuses bad ObjectMeta before a validating webhook runs: a webhook
        # rule that reports the same field again (Grove's name check, GV001) says nothing new
        refused_meta = {f.path for f in findings if f.rule == OBJECT_META and f.severity == "error"}
        for validate in validators(obj, options):  # the kind's webhook rules and every integration's
            findings.extend(f for f in validate(obj, old) if f.path not in refused_meta)
    ignore, problems = parse_suppressions(obj, known)
    kept = [f for f in findings if f.rule in registry.UNSUPPRESSIBLE or f.rule not in ignore]
    return kept + problems


def _input_finding(err: Any) -> Finding:
    return Finding(rule="IN001", severity="error", file=str(err.file), line=int(err.line or 0),
                   message=str(err.message), path="", object=None)


def check_generate_name(obj: Obj) -> list[Finding]:
    """SC007: ``generateName`` is validated as a name prefix (``core.generated_names``)."""
    gen = obj.metadata.get("generateName")
    if gen is None or gen == "":
        return []
    path = ("metadata", "generateName")
    if not isinstance(gen, str):
        return [Finding("SC007", "error", obj.file, obj.line_of(*path), f"must be a string, got {type(gen).__name__}",
                        "metadata.generateName", obj.ref)]
    return [Finding("SC007", "error", obj.file, obj.line_of(*path), f"{gen[:80]!r}: {msg}", "metadata.generateName",
                    obj.ref) for msg in prefix_problems(gen)]


def keyed(f: Finding, obj: Obj) -> Finding:
    """A finding of ``obj`` as it leaves the engine: its path keyed by the object's data
    (``cliques[name=x]``, never ``cliques[2]``; ``core.paths.resolve_path``), and the
    column of the field where the loader knew it."""
    if not f.path:
        return f
    path, raw = resolve_path(obj.raw, f.path)
    col = f.col
    if not col and raw and obj.lines.get(raw) == f.line:
        col = obj.cols.get(raw, 0)
    if path == f.path and col == f.col:
        return f
    return replace(f, path=path, col=col)


def baseline_key(rule: str, file: str, obj: Any, path: str, message: str) -> tuple:
    """What makes a finding 'the same' as one in a baseline report: everything but its
    line and column (lines move when a file is edited above them)."""
    return (rule, file.replace("\\", "/").removeprefix("./"), obj, path, message)


def _ref_key(ref: ObjectRef | None) -> tuple | None:
    return (ref.kind, ref.namespace, ref.name) if ref is not None else None


def _gate(findings: list[Finding], inp: LintInput) -> tuple[list[Finding], int, int]:
    """The repository configuration's ignores, its expired entries (CF001) and the
    baseline: (findings kept, number ignored, number baselined)."""
    from ..load.config import describe_expired

    kept: list[Finding] = []
    ignored = 0
    for f in findings:
        if inp.ignores and f.rule not in ("IN001", "CF001"):
            ref = f.object
            hit = next((i for i in inp.ignores if i.matches(
                rule=f.rule, kind=ref.kind if ref else "", namespace=ref.namespace if ref else "",
                name=ref.name if ref else "", file=f.file, path=f.path)), None)
            if hit is not None:
                ignored += 1
                continue
        kept.append(f)
    for i in inp.expired:
        kept.append(Finding("CF001", "warning", i.source, i.line, describe_expired(i), "ignore", None))
    baselined = 0
    if inp.baseline is not None:
        remaining: dict[tuple, int] = {}
        for k in inp.baseline:
            remaining[k] = remaining.get(k, 0) + 1
        out = []
        for f in sorted(kept, key=Finding.sort_key):
            k = baseline_key(f.rule, f.file, _ref_key(f.object), f.path, f.message)
            if f.rule != "IN001" and remaining.get(k, 0) > 0:
                remaining[k] -= 1
                baselined += 1
                continue
            out.append(f)
        kept = out
    return kept, ignored, baselined


def lint(inp: LintInput) -> LintReport:
    """Lint every object of ``inp``. Deterministic: findings sorted by file, line, rule."""
    known = registry.rule_ids()
    findings: list[Finding] = [_input_finding(e) for e in (*inp.errors, *inp.live_errors)]
    observed = admit(inp.live, descriptor, side=OBSERVED, namespace=inp.namespace, read_schemas=read_schema)
    findings.extend(f for f in observed.findings if f.severity == "error")
    findings.extend(f for o in observed.objects for f in admit_other(o, OBSERVED) if f.severity == "error")
    originals = list(inp.objects)
    # the API server names a generateName object before any other check
    desired = admit([with_generated_name(o) for o in originals], descriptor, side=DESIRED, namespace=inp.namespace,
                    stored=observed.objects, distinct=is_generated, across_files_warn=True)
    live: dict[ObjectRef, Obj] = {}
    for o in observed.objects:
        live.setdefault(o.ref, o)
    skipped: set[str] = set()
    for orig, obj, found in zip(originals, desired.objects, desired.found):
        if not is_modelled(obj) and admitter(obj) is not None:
            # a kind a model reads without owning it (Kueue's queues): its admission rules
            findings.extend(keyed(f, obj) for f in [*found, *admit_other(obj, DESIRED)])
            continue
        if not is_modelled(obj):
            # a modelled kind under another API group (a fork's, an old one) names its apiVersion
            skipped.add(f"{obj.kind} of {obj.api_version}" if other_group_of(obj) is not None
                        else obj.kind or "(no kind)")
            findings.extend(f for f in found if f.rule in (DUPLICATE_OBJECT, DUPLICATE_ACROSS_FILES))
            if inp.strict:
                findings.append(Finding(
                    rule="IN002", severity="error", file=obj.file, line=obj.line,
                    message=f"{obj.api_version} {obj.kind} is not a kind rolloutctl checks (skipped)",
                    path="", object=obj.ref))
            continue
        gen = check_generate_name(orig)
        if not any(f.severity == "error" for f in gen):
            gen += lint_object(obj, None if generate_name(orig) else live.get(obj.ref), known, found, inp.model_options)
        findings.extend(keyed(f, obj) for f in gen)
    if inp.sources:
        from .helm import to_templates

        findings = to_templates(findings, inp.sources)
    kept, ignored, baselined = _gate(list(set(findings)), inp)
    unique = sorted(set(kept), key=Finding.sort_key)
    return LintReport(files=inp.files, objects=len(inp.objects), findings=tuple(unique),
                      ignored=ignored, baselined=baselined, skipped_kinds=() if inp.strict else tuple(sorted(skipped)))


def exit_code(report: LintReport) -> int:
    """CONTRACT.md: 2 when input could not be read, 1 on an error finding, else 0."""
    if any(f.rule == "IN001" for f in report.findings):
        return 2
    if any(f.severity == "error" for f in report.findings):
        return 1
    return 0
