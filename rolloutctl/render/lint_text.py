"""Plain-text lint report: findings grouped by file as ``file:line: ID message``,
then one summary line. No rich here: this is the fast path for CI logs."""

from __future__ import annotations

from ..core.model import LintReport

_RED, _YELLOW, _BOLD, _RESET = "\033[31m", "\033[33m", "\033[1m", "\033[0m"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def summary_line(report: LintReport) -> str:
    errors = sum(1 for f in report.findings if f.severity == "error")
    warnings = len(report.findings) - errors
    return (f"{_plural(errors, 'error')}, {_plural(warnings, 'warning')} in "
            f"{_plural(report.objects, 'object')} ({_plural(report.files, 'file')})")


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
        where = f" {f.path}:" if f.path else ""
        out.append(f"{f.file}:{f.line}: {f.rule} [{sev}]{where} {f.message}")
    if out:
        out.append("")
    line = summary_line(report)
    out.append(f"{_BOLD}{line}{_RESET}" if color else line)
    return "\n".join(out) + "\n"
