"""A Diff as Markdown, for pull-request comments."""

from __future__ import annotations

from ..core.model import Diff
from .markdown_text import code_span
from .diff_common import OP_MARK, change_text, disruptive, effects_of, impact_label, line_diff, summary_line, title, where


def _cell(text: str) -> str:
    """Prose in a table cell or a list item: no table or HTML syntax, one line."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")
            .replace("\n", "<br>"))


def render(diff: Diff) -> str:
    out: list[str] = [f"**{summary_line(diff)}**", ""]
    risky = disruptive(diff)
    if risky:
        for e, o, i in risky:
            t = o.target
            out.append(f"- **{e}** {code_span(f'{t.kind} {t.namespace}/{t.name}', in_table=False)}: {_cell(i.message)}")
        out.append("")
    for o in diff.objects:
        if o.status == "unchanged":
            continue
        out.append(f"### {code_span(title(o), in_table=False)}")
        out.append("")
        if o.changes:
            out.append("| | Path | Change | Effect | Source |")
            out.append("| --- | --- | --- | --- | --- |")
            for c in o.changes:
                effects = ", ".join(effects_of(c, o.impact)) or "—"
                out.append(f"| `{OP_MARK.get(c.op, '?')}` | {code_span(c.path)} | {code_span(change_text(c))} | {effects} "
                           f"| {_cell(where(c))} |")
            out.append("")
            for c in o.changes:
                lines = line_diff(c)
                if lines:
                    fence = "````" if any("```" in x for x in lines) else "```"
                    out += [f"{code_span(c.path, in_table=False)}:", "", fence + "diff", *lines, fence, ""]
        for i in o.impact:
            label, note = impact_label(o, i)
            out.append(f"- **{label}**{note}: {_cell(i.message)}")
        if o.impact:
            out.append("")
    unchanged = [o for o in diff.objects if o.status == "unchanged"]
    if unchanged:
        out.append("Unchanged: " + ", ".join(code_span(f"{o.target.kind} {o.target.namespace}/{o.target.name}",
                                                       in_table=False) for o in unchanged))
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"
