"""Plain-text lint report: findings grouped by file as ``file:line: ID message``,
then one summary line. No rich here: this is the fast path for CI logs."""

from __future__ import annotations

from ..core.model import Finding, LintReport
from ..core.text import one_line

_RED, _YELLOW, _BOLD, _RESET = "\033[31m", "\033[33m", "\033[1m", "\033[0m"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def summary_line(report: LintReport) -> str:
    errors = sum(1 for f in report.findings if f.severity == "error")
    warnings = len(report.findings) - errors
    quiet = [f"{n} {what}" for n, what in ((report.ignored, "ignored by the configuration"),
                                          (report.baselined, "in the baseline")) if n]
    skipped = report.skipped_kinds
    return (f"{_plural(errors, 'error')}, {_plural(warnings, 'warning')} in "
            f"{_plural(report.objects, 'object')} ({_plural(report.files, 'file')})"
            + (f"; not counted: {', '.join(quiet)}" if quiet else "")
            + (f"; not checked: {', '.join(skipped[:5])}{' and more kinds' if len(skipped) > 5 else ''} "
               "(--strict reports them)" if skipped else ""))


def location(f: Finding) -> str:
    """``file:line``, terminal-safe (control characters escaped). The column is in the
    machine formats (json, sarif, github ``col=``, junit); the text lines keep the
    ``file:line:`` shape scripts already read."""
    return one_line(f.file) + f":{f.line}"


def finding_line(f: Finding, severity: str | None = None) -> str:
    """One finding as one terminal-safe line: control characters in every part of it
    (file, path, message, even the rule) are escaped, so hostile input cannot move
    the cursor, clear the screen or forge a line."""
    where = f" {one_line(f.path)}:" if f.path else ""
    return f"{location(f)}: {one_line(f.rule)} [{severity or f.severity}]{where} {one_line(f.message)}"


def render_lint_text(report: LintReport, color: bool = False) -> str:
    out: list[str] = []
    current = None
    for f in report.findings:
        if f.file != current:
            if current is not None:
                out.append("")
            current = f.file
        sev = f.severity
        if color:
            sev = f"{_RED if f.severity == 'error' else _YELLOW}{sev}{_RESET}"
        out.append(finding_line(f, sev))
    if out:
        out.append("")
    line = summary_line(report)
    out.append(f"{_BOLD}{line}{_RESET}" if color else line)
    return "\n".join(out) + "\n"
