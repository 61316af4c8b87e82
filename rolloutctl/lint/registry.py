"""The rule registry: every rule ``lint`` can report, with a stable ID, severity, the
upstream source it mirrors, a bad and a good example and a remediation.

Rules are data plus a function. The operator rules live in the kinds (each
``KIND.rules`` of the registry, ``kinds.KINDS``); the
input, schema and suppression rules are documented here. Documentation is the
rule function's docstring, in sections: summary paragraph, description,
``Upstream:``, ``Bad:``, ``Good:``, ``Remediation:``.
"""

from __future__ import annotations

import re
import textwrap
from ..core.records import record
from .builtin_rules import BUILTIN, BUILTIN_ENFORCER
from collections.abc import Mapping
from typing import Any

SEVERITIES = ("error", "warning")


@record(frozen=True)
class Rule:
    id: str
    name: str
    severity: str
    scope: str  # input | schema | suppression | config | create | update | design | hazard
    operator: str  # "" (rolloutctl itself) | the KIND.operator of a package in kinds.KINDS
    summary: str
    description: str
    upstream: str
    bad: str
    good: str
    remediation: str
    #: who refuses what the rule finds: ``apiserver`` (schema, ObjectMeta, CEL),
    #: ``webhook`` (the operator's admission webhook, installed by default),
    #: ``controller`` (only the reconcile loop: the object is stored, the controller
    #: reports it), ``pods`` (the pods the operator creates are refused), or
    #: ``rolloutctl`` (advice). Routing (exit 2, lint error, ``rejected`` in diff)
    #: reads this field.
    enforcer: str = ""

    @property
    def help_text(self) -> str:
        parts = [self.summary]
        if self.description:
            parts.append(self.description)
        if self.remediation:
            parts.append("Remediation: " + self.remediation)
        return "\n\n".join(parts)


class UnknownRule(LookupError):
    pass


_SECTIONS = ("Upstream:", "Bad:", "Good:", "Remediation:")


def parse_doc(doc: str) -> dict[str, str]:
    """Split a rule docstring into summary, description and the named sections."""
    text = textwrap.dedent(doc or "").strip("\n")
    lines = text.splitlines()
    # the first line of a docstring is not indented: dedent the rest separately
    if lines:
        head, rest = lines[0].strip(), textwrap.dedent("\n".join(lines[1:]))
        lines = [head, *rest.splitlines()]
    out = {"summary": "", "description": "", "upstream": "", "bad": "", "good": "", "remediation": ""}
    current = "intro"
    buf: dict[str, list[str]] = {"intro": []}
    for ln in lines:
        stripped = ln.strip()
        sec = next((s for s in _SECTIONS if stripped.startswith(s)), None)
        if sec and not ln.startswith(" "):
            current = sec[:-1].lower()
            buf[current] = [stripped[len(sec):].strip()] if stripped[len(sec):].strip() else []
            continue
        buf.setdefault(current, []).append(ln)
    intro = "\n".join(buf.get("intro", [])).strip()
    paras = [p.strip() for p in intro.split("\n\n") if p.strip()]
    if paras:
        out["summary"] = " ".join(paras[0].split())
        out["description"] = "\n\n".join(" ".join(p.split()) for p in paras[1:])
    for key in ("upstream", "remediation"):
        out[key] = " ".join(" ".join(buf.get(key, [])).split())
    for key in ("bad", "good"):
        out[key] = textwrap.dedent("\n".join(buf.get(key, []))).strip("\n")
    return out


def _make(rule_id: str, name: str, severity: str, scope: str, operator: str, doc: str, enforcer: str = "") -> Rule:
    d = parse_doc(doc)
    return Rule(rule_id, name, severity, scope, operator, d["summary"], d["description"], d["upstream"],
                d["bad"], d["good"], d["remediation"], enforcer or _enforcer(scope, operator))


def _enforcer(scope: str, operator: str) -> str:
    """The default owner of a rule from its scope: input, schema and ObjectMeta rules
    are the API server's; create/update rules of an operator are its webhook's."""
    if scope in ("input", "schema"):
        return "apiserver"
    if scope in ("create", "update") and operator:
        return "webhook"
    return "rolloutctl"


# --------------------------------------------------------------------------- rules of rolloutctl itself
# (the table: lint/builtin_rules.py)

#: rules that a suppression annotation cannot silence
UNSUPPRESSIBLE = frozenset({"IN001", "IN002", "SC009", "SP001", "SP002", "CF001"})


def _slug(text: str) -> str:
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", text)
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _from_specs(specs: Any, operator: str) -> list[Rule]:
    """Rules from a kind's ``RULES``: rule specs whose check function carries the
    documentation (Grove), or plain records with summary/upstream/bad/good (KubeRay)."""
    items = list(specs.values()) if isinstance(specs, Mapping) else list(specs)
    out = []
    for s in items:
        doc = getattr(s, "doc", None) or getattr(getattr(s, "check", None), "__doc__", None)
        if doc:
            out.append(_make(s.id, getattr(s, "name", s.id.lower()), getattr(s, "severity", "error"),
                             getattr(s, "scope", "create"), operator, doc, getattr(s, "enforcer", "")))
            continue
        upstream = getattr(s, "upstream", "")
        name = getattr(s, "name", "") or _slug(upstream.rsplit("#", 1)[-1].rsplit(".", 1)[-1]) or s.id.lower()
        scope = getattr(s, "scope", "create")
        out.append(Rule(s.id, name, getattr(s, "severity", "error"), scope, operator,
                        getattr(s, "summary", ""), getattr(s, "description", ""), upstream,
                        getattr(s, "bad", ""), getattr(s, "good", ""), getattr(s, "remediation", ""),
                        getattr(s, "enforcer", "") or _enforcer(scope, operator)))
    return out


def _operator_rules() -> list[Rule]:
    """The ``RULES`` of every operator package in the registry (``kinds.KINDS``)."""
    from ..kinds import rule_sources

    return [r for d, specs in rule_sources() for r in _from_specs(specs, d.operator)]


_cache: tuple[Rule, ...] | None = None


def all_rules() -> tuple[Rule, ...]:
    """Every rule, sorted by ID (frozen after the first call)."""
    global _cache
    if _cache is None:
        builtin = [_make(i, n, sev, scope, "", doc, BUILTIN_ENFORCER.get(i, "")) for i, n, sev, scope, doc in BUILTIN]
        rules = builtin + _operator_rules()
        ids = [r.id for r in rules]
        dup = {i for i in ids if ids.count(i) > 1}
        if dup:
            raise RuntimeError(f"duplicate rule IDs: {sorted(dup)}")
        _cache = tuple(sorted(rules, key=lambda r: r.id))
    return _cache


def rule_ids() -> frozenset[str]:
    return frozenset(r.id for r in all_rules())


def get_rule(rule_id: str) -> Rule:
    want = rule_id.strip().upper()
    for r in all_rules():
        if r.id == want:
            return r
    raise UnknownRule(f"unknown rule {rule_id!r}; known rules: {', '.join(r.id for r in all_rules())}")


def rule_docs() -> dict[str, dict[str, str]]:
    """Plain data for renderers (SARIF rule descriptors)."""
    return {r.id: {"name": r.name, "severity": r.severity, "summary": r.summary, "help": r.help_text,
                   "upstream": r.upstream, "remediation": r.remediation, "enforcer": r.enforcer}
            for r in all_rules()}
