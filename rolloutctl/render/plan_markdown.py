"""Plans as Markdown, for pull-request comments."""

from __future__ import annotations

from typing import Sequence

from ..core.model import Plan
from .plan_common import action_line, after_line, grouped, headline, summary_line

MAX_LINES = 20


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", "<br>")


def render(plans: Sequence[Plan]) -> str:
    out: list[str] = []
    for p in plans:
        out.append(f"### {headline(p)}")
        out.append("")
        out.append(summary_line(p))
        out.append("")
        if p.steps:
            timed = any(s.time is not None for s in p.steps)
            out.append("| Step |" + (" Time |" if timed else "") + " What happens | Objects | Then waits for |")
            out.append("| ---: |" + (" ---: |" if timed else "") + " --- | --- | --- |")
            for s in p.steps:
                groups = grouped(s.actions)
                lines = [f"`{action_line(a, idx)}`" for a, idx in groups[:MAX_LINES]]
                if len(groups) > MAX_LINES:
                    lines.append(f"… {len(groups) - MAX_LINES} more")
                what = s.title + (f"<br>_{after_line(dict(s.after))}_" if s.after else "")
                row = f"| {s.step} |" + (f" {s.time if s.time is not None else ''}s |" if timed else "")
                row += f" {_cell(what)} | {'<br>'.join(_cell(x) for x in lines)} | {_cell(chr(10).join(s.wait_for) or '—')} |"
                out.append(row)
            out.append("")
        if p.stuck:
            st = p.stuck
            out.append(f"**Stuck: {st.reason}** — {st.message}")
            if st.blocked_on:
                out.append("")
                out.append("Blocked on: " + ", ".join(f"`{r.kind} {r.name}`" for r in st.blocked_on))
            for r in st.remedies:
                out.append(f"- remedy: {r}")
            out.append("")
        for w in p.warnings:
            out.append(f"> **warning {w.code}**: {w.message}")
        if p.warnings:
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"
