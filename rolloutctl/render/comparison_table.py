"""The human view of ``plan --compare``: one table row per strategy, then why each
stuck row is stuck and what to do about it."""

from __future__ import annotations

from typing import Sequence

from ..core.model import Comparison
from .comparison_common import cells, header, stuck_rows, title
from .console import buffer_console

OUTCOME_STYLE = {"converged": "green", "noop": "", "stuck": "bold red"}


def render(comparisons: Sequence[Comparison], color: bool, width: int = 110) -> str:
    from rich.text import Text

    console, buf = buffer_console(color, width)
    for n, c in enumerate(comparisons):
        if n:
            console.print()
        console.print(Text(title(c), style="bold"))
        table, legend = _table(c, width)
        console.print(table)
        if legend:
            console.print(Text(legend, style="dim"))
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


def _fits(columns: list[list[str]], width: int) -> bool:
    """Whether columns whose words are never cut fit ``width`` (rich's heavy box:
    one border per column plus one, a space of padding each side)."""
    return sum(_longest_word(col) for col in columns) + 3 * len(columns) + 1 <= width


def _longest_word(texts: list[str]) -> int:
    return max((len(w) for t in texts for w in str(t).split()), default=1)


def _table(c: Comparison, width: int):
    """The comparison table at ``width``: names and values are never cut. When the
    columns do not fit, the Stuck column goes (each stuck row is explained below the
    table anyway), then resource headers shorten to their last segment with a legend."""
    from rich.table import Table
    from rich.text import Text

    head = header(c)
    rows = [cells(c, row) for row in c.rows]
    cols = [[h] + [r[i] for r in rows] for i, h in enumerate(head)]
    keep = list(range(len(head)))
    legend = ""
    if not _fits(cols, width):
        keep = keep[:-1]  # the Stuck column
    if not _fits([cols[i] for i in keep], width):
        short = {}
        for i in keep:
            h = head[i]
            if h.startswith("Peak ") and "/" in h:
                short[i] = "Peak " + h.rsplit("/", 1)[1]
        if short:
            legend = "; ".join(f"{short[i][5:]} = {head[i][5:]}" for i in sorted(short))
            head = [short.get(i, h) for i, h in enumerate(head)]
            cols = [[head[i]] + cols[i][1:] for i in range(len(cols))]
    table = Table(show_header=True, header_style="bold", expand=False)
    last = len(header(c)) - 1
    natural = sum(max(len(t) for t in cols[i]) for i in keep) + 3 * len(keep) + 1 <= width
    for i in keep:
        # too narrow for whole cells: each column exactly as wide as its longest word
        # (headers wrap between words; rich would otherwise split words or crop)
        fixed = None if natural else _longest_word(cols[i])
        table.add_column(head[i], justify="right" if 1 < i < last else "left",
                         min_width=_longest_word(cols[i]), width=fixed, overflow="fold")
    for row, vals in zip(c.rows, rows):
        out = [Text(vals[i]) for i in keep]  # plain text: brackets in a cell are not console markup
        out[1] = Text(vals[keep[1]], style=OUTCOME_STYLE.get(row.outcome, ""))
        table.add_row(*out)
    return table, legend
