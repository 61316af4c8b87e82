"""The human view of ``advise``: the recommendation with its patch, the frontier,
and why the other strategies cannot meet the constraints."""

from __future__ import annotations

from typing import Sequence

from ..core.advice import Advice
from .advice_common import (AS_IS, PROPOSED_NOTE, as_is_line, constraints_line, frontier_cells, header, label, patch_yaml, search_line, summary_line,
                            title)
from .console import buffer_console


def render(advices: Sequence[Advice], color: bool, width: int = 110) -> str:
    from rich.table import Table
    from rich.text import Text

    console, buf = buffer_console(color, width)
    for n, a in enumerate(advices):
        if n:
            console.print()
        console.print(Text(title(a), style="bold"))
        console.print(Text(constraints_line(a)))
        r = a.recommendation
        if r is None:
            console.print(Text("No candidate meets the constraints.", style="bold red"))
        else:
            console.print(Text(f"Recommendation: {label(r)}: {summary_line(r, a)}", style="bold green"))
            if not r.patch:
                console.print(Text(AS_IS))
            else:
                console.print(Text("Patch (merge into the manifest; list items by name):"))
                for line in patch_yaml(r).rstrip("\n").split("\n"):
                    console.print(Text("  " + line))
        if a.current is not None:
            console.print(Text(as_is_line(a)))
        if a.frontier:
            table = Table(show_header=True, header_style="bold", expand=False, title="Frontier (best first)",
                          title_justify="left")
            h = header(a)
            for i, col in enumerate(h):
                table.add_column(col, justify="right" if 1 < i < len(h) - 1 else "left", overflow="fold")
            for i, c in enumerate(a.frontier):
                table.add_row(*(Text(x) for x in frontier_cells(a, i, c)))
            console.print(table)
            if any(c.proposed for c in a.frontier):
                console.print(Text(PROPOSED_NOTE))
        for rej in a.rejected:
            console.print(Text(f"{rej.strategy}{' (proposed)' if rej.proposed else ''} cannot meet the constraints: "
                               f"{rej.reason}: {rej.message}", style="red"))
        console.print(Text(search_line(a)))
        for w in a.warnings:
            console.print(Text(f"note {w.code}: {w.message}", style="yellow"))
    return buf.getvalue()
