"""``plan --compare`` as Markdown: the table a team pastes into its design doc."""

from __future__ import annotations

from typing import Sequence

from ..core.model import Comparison
from .comparison_common import cells, header, stuck_rows, title


def _cell(text: str, names: Sequence[str] = ()) -> str:
    """Prose for GitHub: names in code spans, no raw ``<``/``>`` (plan_markdown.escape)."""
    from .plan_markdown import escape

    return escape(text, names)


def render(comparisons: Sequence[Comparison]) -> str:
    out: list[str] = []
    for c in comparisons:
        h = header(c)
        out.append(f"### {title(c)}")
        out.append("")
        out.append("| " + " | ".join(h) + " |")
        out.append("| " + " | ".join("---" if i < 2 or i == len(h) - 1 else "---:" for i in range(len(h))) + " |")
        for row in c.rows:
            out.append("| " + " | ".join(_cell(x) for x in cells(c, row)) + " |")
        out.append("")
        for row in stuck_rows(c):
            st = row.stuck
            out.append(f"**{row.strategy} stuck: {st.reason}** — {_cell(st.message, [c.target.name])}")
            if st.blocked_on:
                out.append("")
                out.append("Blocked on: " + ", ".join(f"`{r.kind} {r.name}`" for r in st.blocked_on))
            for r in st.remedies:
                out.append(f"- remedy: {_cell(r, [c.target.name])}")
            out.append("")
        for w in c.warnings:
            out.append(f"- **warning {w.code}**: {_cell(w.message, [c.target.name])}")  # (one item per warning)
        if c.warnings:
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"
