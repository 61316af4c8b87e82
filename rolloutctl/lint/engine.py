"""``lint`` as one batch: input errors, schema rules, defaulting, the operators'
admission rules, suppressions. Returns a :class:`LintReport`; prints nothing.

Order per object, as the API server would answer a create (or, with the live
object, an update): schema first; an object that fails the schema is not
defaulted or handed to the webhook rules (the API server would stop there);
then defaults, then the operator's rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import import_module
from typing import Any, Callable, Sequence

from ..core.model import Finding, LintReport, Obj, ObjectRef
from ..kinds import group_of, is_modelled
from . import registry
from .pods import check_pod_resources
from .schema import apply_schema_defaults, check_schema, schema_file_for

IGNORE_ANNOTATION = "rolloutctl.dev/ignore"
_ENTRY_SPLIT = re.compile(r"[;\n]")
_ID_RE = re.compile(r"^[A-Z]{2}\d{3}$")


@dataclass
class LintInput:
    objects: Sequence[Obj]
    errors: Sequence[Any] = ()
    files: int = 0
    live: Sequence[Obj] = ()
    live_errors: Sequence[Any] = ()
    strict: bool = False


def _validator_for(obj: Obj) -> Callable[[Obj, Obj | None], list[Finding]] | None:
    group = group_of(obj.api_version)
    if (group, obj.kind) == ("grove.io", "PodCliqueSet"):
        return import_module("rolloutctl.kinds.grove.validation").validate
    if (group, obj.kind) == ("ray.io", "RayService"):
        kuberay = import_module("rolloutctl.kinds.kuberay.validation").validate
        kueue = import_module("rolloutctl.kinds.kueue.validation").validate

        def both(o: Obj, old: Obj | None) -> list[Finding]:
            # KubeRay's own rules, and Kueue's webhook when the RayService has a queue label
            return list(kuberay(o, old)) + list(kueue(o, old))

        return both
    return None


def _prepare(obj: Obj) -> Obj:
    """Structural (CRD) defaults for kinds whose validator does not default by itself.
    Grove's ``validate`` runs the full Grove defaulting (CRD + webhook) itself."""
    if obj.kind == "PodCliqueSet":
        return obj
    return apply_schema_defaults(obj)


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
            if not _ID_RE.match(rid) or rid not in known:
                problem("SP002", "warning", f"suppression names unknown rule {rid!r}")
                continue
            out[rid] = reason.strip()
    return out, problems


def lint_object(obj: Obj, old: Obj | None, known: frozenset[str]) -> list[Finding]:
    """All findings for one object of a modelled kind, suppressions applied."""
    findings = check_schema(obj)
    if not any(f.severity == "error" for f in findings):
        # a well-typed object: the pods' own checks and the webhook rules both run
        findings.extend(check_pod_resources(obj))
        validate = _validator_for(obj)
        if validate is not None:
            prepared = _prepare(obj)
            prepared_old = _prepare(old) if old is not None else None
            findings.extend(validate(prepared, prepared_old))
    ignore, problems = parse_suppressions(obj, known)
    kept = [f for f in findings if f.rule in registry.UNSUPPRESSIBLE or f.rule not in ignore]
    return kept + problems


def _input_finding(err: Any) -> Finding:
    return Finding(rule="IN001", severity="error", file=str(err.file), line=int(err.line or 0),
                   message=str(err.message), path="", object=None)


def lint(inp: LintInput) -> LintReport:
    """Lint every object of ``inp``. Deterministic: findings sorted by file, line, rule."""
    known = registry.rule_ids()
    findings: list[Finding] = [_input_finding(e) for e in (*inp.errors, *inp.live_errors)]
    live: dict[ObjectRef, Obj] = {}
    for o in inp.live:
        live.setdefault(o.ref, o)
    for obj in inp.objects:
        if not is_modelled(obj) or schema_file_for(obj) is None:
            if inp.strict:
                findings.append(Finding(
                    rule="IN002", severity="error", file=obj.file, line=obj.line,
                    message=f"{obj.api_version} {obj.kind} is not a kind rolloutctl checks (skipped)",
                    path="", object=obj.ref))
            continue
        findings.extend(lint_object(obj, live.get(obj.ref), known))
    unique = sorted(set(findings), key=Finding.sort_key)
    return LintReport(files=inp.files, objects=len(inp.objects), findings=tuple(unique))


def exit_code(report: LintReport) -> int:
    """CONTRACT.md: 2 when input could not be read, 1 on an error finding, else 0."""
    if any(f.rule == "IN001" for f in report.findings):
        return 2
    if any(f.severity == "error" for f in report.findings):
        return 1
    return 0
