"""The human view of plans: a headline, a summary line, one table row per step."""

from __future__ import annotations

import io
from typing import Sequence

from ..core.model import Plan
from .plan_common import VERB_STYLE, action_line, grouped, headline, summary_line

MAX_LINES = 12


def render(plans: Sequence[Plan], color: bool, width: int = 100) -> str:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=color, no_color=not color, width=width, highlight=False,
                      color_system="standard" if color else None, emoji=False)
    for n, p in enumerate(plans):
        if n:
            console.print()
        style = {"converged": "bold green", "noop": "bold", "stuck": "bold red"}.get(p.outcome, "bold")
        console.print(Text(headline(p), style=style))
        console.print(Text(summary_line(p), style="dim"))
        if p.steps:
            timed = any(s.time is not None for s in p.steps)
            table = Table(show_header=True, header_style="bold", expand=False, show_lines=True)
            table.add_column("Step", justify="right", no_wrap=True)
            if timed:
                table.add_column("Time", justify="right", no_wrap=True)
            table.add_column("What happens", ratio=2, overflow="fold")
            table.add_column("Objects", ratio=3, overflow="fold")
            table.add_column("Then waits for", ratio=2, overflow="fold")
            for s in p.steps:
                objs = Text()
                groups = grouped(s.actions)
                for i, (a, idx) in enumerate(groups[:MAX_LINES]):
                    if i:
                        objs.append("\n")
                    objs.append(action_line(a, idx), style=VERB_STYLE.get(a.verb, ""))
                if len(groups) > MAX_LINES:
                    objs.append(f"\n… {len(groups) - MAX_LINES} more (-o json lists all)", style="dim")
                what = Text(s.title)
                row = [str(s.step)]
                if timed:
                    row.append(f"{s.time}s" if s.time is not None else "")
                row += [what, objs, "\n".join(s.wait_for) or "—"]
                table.add_row(*row)
            console.print(table)
        if p.stuck:
            st = p.stuck
            console.print(Text(f"stuck: {st.reason}: {st.message}", style="bold red"))
            if st.blocked_on:
                console.print(Text("  blocked on: " + ", ".join(f"{r.kind} {r.name}" for r in st.blocked_on)))
            for r in st.remedies:
                console.print(Text(f"  remedy: {r}"))
        for w in p.warnings:
            console.print(Text(f"warning {w.code}: {w.message}" + (f" ({w.path})" if w.path else ""), style="yellow"))
    return buf.getvalue()
