"""``docs/rules.md``, generated from the registry (``python -m rolloutctl.lint.docs``).
A test keeps the committed file current."""

from __future__ import annotations

from typing import Iterable

from .registry import Rule, all_rules

_TITLES = {
    "input": "Input", "schema": "Schema", "suppression": "Suppressions",
    "config": "Repository configuration (.rolloutctl.yaml)",
    "create": "Admission rules (create and update)", "update": "Admission rules (update only, with --live)",
    "design": "Proposed update-strategy design (PR #262)", "hazard": "Operator hazards",
    "children": "Objects the operator creates (refused by the API server)",
    "controller": "Controller-side rules (checked after the object is stored; no admission webhook by default)",
}


def _operator_title(operator: str) -> str:
    """Who a rule is for: rolloutctl itself, or the ``KIND.title`` of its package."""
    from ..kinds import KINDS

    titles = {d.operator: d.title for d in KINDS}
    return titles.get(operator, operator) if operator else "rolloutctl"


def _section(rule: Rule) -> str:
    return _operator_title(rule.operator) + " — " + _TITLES.get(rule.scope, rule.scope)


def render_rules_markdown(rules: Iterable[Rule]) -> str:
    rules = list(rules)
    out = ["# Lint rules", "",
           "Generated from the rule registry by `python -m rolloutctl.lint.docs > docs/rules.md`; "
           "do not edit by hand. `rolloutctl rules ID` prints the same text.", "",
           "Silence a finding on one object with the annotation `rolloutctl.dev/ignore: \"ID: reason\"` "
           "(a reason is required; several entries are separated by `;`), or for a whole repository with "
           "`ignore:` entries in `.rolloutctl.yaml` (docs/ci.md).", "",
           "| ID | severity | name | summary |", "| --- | --- | --- | --- |"]
    for r in rules:
        summary = r.summary.replace("|", "\\|")
        out.append(f"| [{r.id}](#{r.id.lower()}) | {r.severity} | `{r.name}` | {summary} |")
    out.append("")
    current = None
    for r in rules:
        sec = _section(r)
        if sec != current:
            out += [f"## {sec}", ""]
            current = sec
        out += [f"### {r.id}", "", f"`{r.name}` · {r.severity}", "", r.summary, ""]
        if r.description:
            out += [r.description, ""]
        if r.upstream:
            out += [f"Upstream: {r.upstream}", ""]
        if r.bad:
            out += ["Bad:", "", "```yaml", r.bad, "```", ""]
        if r.good:
            out += ["Good:", "", "```yaml", r.good, "```", ""]
        if r.remediation:
            out += [f"Remediation: {r.remediation}", ""]
    return "\n".join(out).rstrip("\n") + "\n"


def render_rule_text(r: Rule) -> str:
    """``rolloutctl rules ID``."""
    out = [f"{r.id} {r.name} ({r.severity}; {_section(r)})", "", r.summary]
    if r.description:
        out += ["", r.description]
    if r.upstream:
        out += ["", f"Upstream: {r.upstream}"]
    for label, block in (("Bad", r.bad), ("Good", r.good)):
        if block:
            out += ["", f"{label}:"] + ["  " + ln for ln in block.splitlines()]
    if r.remediation:
        out += ["", f"Remediation: {r.remediation}"]
    return _terminal("\n".join(out) + "\n")


def _terminal(text: str) -> str:
    """Rule text for a terminal: the docstrings' reStructuredText literals (````x````) as
    single backticks, as the rest of the text writes them."""
    return text.replace("``", "`")


def render_rules_list(rules: Iterable[Rule]) -> str:
    rules = list(rules)
    width = max((len(r.name) for r in rules), default=0)
    lines = [f"{r.id}  {r.severity:<7}  {r.name:<{width}}  {r.summary}" for r in rules]
    return _terminal("\n".join(lines)) + f"\n{len(rules)} rules; `rolloutctl rules ID` explains one.\n"


if __name__ == "__main__":  # pragma: no cover
    import sys

    sys.stdout.write(render_rules_markdown(all_rules()))
