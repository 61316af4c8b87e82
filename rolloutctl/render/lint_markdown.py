"""The lint report as Markdown: for ``$GITHUB_STEP_SUMMARY`` and pull-request comments.
A headline with the counts, then one table row per finding (capped: GitHub limits a
step summary to 1 MiB and a comment to 65,536 characters)."""

from __future__ import annotations

from .markdown_text import code_span

from ..core.model import Finding, LintReport
from ..core.text import one_line
from .lint_text import summary_line

MAX_ROWS = 200


def cell(text: str) -> str:
    """Text safe inside a Markdown table cell: one line, no table or HTML syntax."""
    t = one_line(text, 500)
    for a, b in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("|", "\\|"), ("`", "\\`"), ("*", "\\*"),
                 ("_", "\\_"), ("[", "\\["), ("]", "\\]")):
        t = t.replace(a, b)
    return t


def code(text: str) -> str:
    """Text as a code span in a table cell (paths, file names): nothing inside is markup,
    so only the span's own delimiter and the cell separator need care."""
    return code_span(text)


def _where(f: Finding) -> str:
    return code(f"{f.file}:{f.line}" + (f":{f.col}" if f.col else ""))


def render_lint_markdown(report: LintReport) -> str:
    errors = sum(1 for f in report.findings if f.severity == "error")
    icon = "❌" if errors else ("⚠️" if report.findings else "✅")
    out = [f"### {icon} rolloutctl lint", "", cell(summary_line(report)), ""]
    if report.findings:
        out += ["| | Rule | Where | Field | Message |", "| --- | --- | --- | --- | --- |"]
        for f in report.findings[:MAX_ROWS]:
            sev = "error" if f.severity == "error" else "warning"
            out.append(f"| {sev} | {cell(f.rule)} | {_where(f)} | {code(f.path)} | {cell(f.message)} |")
        more = len(report.findings) - MAX_ROWS
        if more > 0:
            out += ["", f"…and {more} more (see the full report: rolloutctl lint -o json)."]
        out.append("")
    return "\n".join(out) + "\n"
