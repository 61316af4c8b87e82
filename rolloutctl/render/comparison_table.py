"""The human view of ``plan --compare``: one table row per strategy, then why each
stuck row is stuck and what to do about it."""

from __future__ import annotations

import io
from typing import Sequence

from ..core.model import Comparison
from .comparison_common import cells, header, stuck_rows, title

OUTCOME_STYLE = {"converged": "green", "noop": "", "stuck": "bold red"}


def render(comparisons: Sequence[Comparison], color: bool, width: int = 110) -> str:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=color, no_color=not color, width=width, highlight=False,
                      color_system="standard" if color else None, emoji=False)
    for n, c in enumerate(comparisons):
        if n:
            console.print()
        console.print(Text(title(c), style="bold"))
        table = Table(show_header=True, header_style="bold", expand=False)
        for i, h in enumerate(header(c)):
            table.add_column(h, justify="right" if 1 < i < len(header(c)) - 1 else "left", no_wrap=i == 0,
                             overflow="fold")
        for row in c.rows:
            vals = cells(c, row)
            vals[1] = Text(vals[1], style=OUTCOME_STYLE.get(row.outcome, ""))
            table.add_row(*vals)
        console.print(table)
        for row in stuck_rows(c):
            st = row.stuck
            console.print(Text(f"{row.strategy} stuck: {st.reason}: {st.message}", style="red"))
            if st.blocked_on:
                console.print(Text("  blocked on: " + ", ".join(f"{r.kind} {r.name}" for r in st.blocked_on)))
            for r in st.remedies:
                console.print(Text(f"  remedy: {r}"))
        for w in c.warnings:
            console.print(Text(f"note {w.code}: {w.message}", style="yellow"))
    return buf.getvalue()
