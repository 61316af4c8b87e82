"""A Diff as Markdown, for pull-request comments."""

from __future__ import annotations

from ..core.model import Diff
from .diff_common import OP_MARK, change_text, disruptive, effects_of, impact_label, line_diff, summary_line, title, where


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", "<br>")


def render(diff: Diff) -> str:
    out: list[str] = [f"**{summary_line(diff)}**", ""]
    risky = disruptive(diff)
    if risky:
        for e, o, i in risky:
            t = o.target
            out.append(f"- **{e}** `{t.kind} {t.namespace}/{t.name}`: {_cell(i.message)}")
        out.append("")
    for o in diff.objects:
        if o.status == "unchanged":
            continue
        out.append(f"### `{title(o)}`")
        out.append("")
        if o.changes:
            out.append("| | Path | Change | Effect | Source |")
            out.append("| --- | --- | --- | --- | --- |")
            for c in o.changes:
                effects = ", ".join(effects_of(c, o.impact)) or "—"
                out.append(f"| `{OP_MARK.get(c.op, '?')}` | `{_cell(c.path)}` | `{_cell(change_text(c))}` | {effects} "
                           f"| {_cell(where(c))} |")
            out.append("")
            for c in o.changes:
                lines = line_diff(c)
                if lines:
                    fence = "````" if any("```" in x for x in lines) else "```"
                    out += [f"`{_cell(c.path)}`:", "", fence + "diff", *lines, fence, ""]
        for i in o.impact:
            label, note = impact_label(o, i)
            out.append(f"- **{label}**{note}: {_cell(i.message)}")
        if o.impact:
            out.append("")
    unchanged = [o for o in diff.objects if o.status == "unchanged"]
    if unchanged:
        out.append("Unchanged: " + ", ".join(f"`{o.target.kind} {o.target.namespace}/{o.target.name}`"
                                             for o in unchanged))
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"
