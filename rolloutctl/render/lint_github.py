"""GitHub Actions workflow commands: one ``::error``/``::warning`` annotation per finding,
grouped per file, then the summary line. Annotations land on the file and line in
the pull request."""

from __future__ import annotations

from ..core.model import LintReport
from ..core.text import one_line
from .lint_text import summary_line


def _escape_data(s: str) -> str:
    """The workflow-command encoding of ``%``, CR and LF; every other control character
    escaped as the text format does (an ESC in a field name must not reach the log)."""
    return one_line(s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"), 10_000)


def _escape_prop(s: str) -> str:
    return _escape_data(s).replace(":", "%3A").replace(",", "%2C")


def render_lint_github(report: LintReport) -> str:
    out: list[str] = []
    current = None
    for f in report.findings:
        if f.file != current:
            if current is not None:
                out.append("::endgroup::")
            out.append(f"::group::{_escape_data(f.file)}")
            current = f.file
        level = "error" if f.severity == "error" else "warning"
        col = f",col={f.col}" if f.col else ""
        props = f"file={_escape_prop(f.file)},line={max(f.line, 1)}{col},title={_escape_prop(f.rule)}"
        where = f"{f.path}: " if f.path else ""
        out.append(f"::{level} {props}::{_escape_data(f'{f.rule} {where}{f.message}')}")
    if current is not None:
        out.append("::endgroup::")
    out.append(summary_line(report))
    return "\n".join(out) + "\n"
