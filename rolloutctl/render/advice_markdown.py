"""``advise`` as Markdown (for a pull-request comment or a design doc)."""

from __future__ import annotations

from typing import Sequence

from ..core.advice import Advice
from .advice_common import (AS_IS, PROPOSED_NOTE, as_is_line, constraints_line, frontier_cells, header, label, patch_yaml, search_line, summary_line,
                            title)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", "<br>")


def render(advices: Sequence[Advice]) -> str:
    out: list[str] = []
    for a in advices:
        out += [f"### {title(a)}", "", constraints_line(a), ""]
        r = a.recommendation
        if r is None:
            out += ["**No candidate meets the constraints.**", ""]
        else:
            out += [f"**Recommendation: {label(r)}** — {summary_line(r, a)}", ""]
            out += ["```yaml", patch_yaml(r).rstrip("\n"), "```", ""] if r.patch else [AS_IS, ""]
        if a.current is not None:
            out += [as_is_line(a), ""]
        if a.frontier:
            h = header(a)
            out.append("| " + " | ".join(h) + " |")
            out.append("| " + " | ".join("---:" if 1 < i < len(h) - 1 else "---" for i in range(len(h))) + " |")
            for i, c in enumerate(a.frontier):
                cells = frontier_cells(a, i, c)
                cells[-1] = f"`{cells[-1]}`"
                out.append("| " + " | ".join(_cell(x) for x in cells) + " |")
            out.append("")
            if any(c.proposed for c in a.frontier):
                out += ["\\" + PROPOSED_NOTE, ""]
        for rej in a.rejected:
            out.append(f"- **{rej.strategy}**{' (proposed)' if rej.proposed else ''} cannot meet the constraints: "
                       f"{rej.reason} — {_cell(rej.message)}")
        if a.rejected:
            out.append("")
        out += [search_line(a), ""]
        for w in a.warnings:
            out.append(f"- **warning {w.code}**: {_cell(w.message)}")  # (a list: one item per warning)
        if a.warnings:
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"
