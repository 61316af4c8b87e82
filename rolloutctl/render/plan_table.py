"""The human view of plans: headline and summary, one row per phase (``--steps``:
one row per step, under its phase), the stuck point and warnings, what was modelled,
and the headline and summary again at the end (long plans scroll)."""

from __future__ import annotations

from typing import Sequence

from ..core.model import Plan
from .plan_common import VERB_STYLE, action_lines, headline, summary_lines
from .plan_view import changes_text, min_width, phase_of_step, phase_rows, provenance, waits_lines
from .console import buffer_console, column_widths, fits

MAX_LINES = 12


def render(plans: Sequence[Plan], color: bool, width: int = 100, steps: bool = False) -> str:
    from rich.text import Text

    console, buf = buffer_console(color, width)
    for n, p in enumerate(plans):
        if n:
            console.print()
        style = {"converged": "bold green", "noop": "bold", "stuck": "bold red"}.get(p.outcome, "bold")
        console.print(Text(headline(p), style=style))
        console.print(Text(summary_lines(p, console.width), style="dim"))
        if p.steps:
            build = _steps_table if steps or p.immediate else _phases_table
            start = buf.tell()
            console.print(build(p, width))
            if not fits(buf.getvalue()[start:]):  # a long name widened a column past the width
                buf.seek(start)
                buf.truncate()
                console.print(build(p, width, fixed=True))
        if p.stuck:
            st = p.stuck
            console.print(Text(f"stuck: {st.reason}: {st.message}", style="bold red"))
            if st.blocked_on:
                console.print(Text("  blocked on: " + ", ".join(f"{r.kind} {r.name}" for r in st.blocked_on)))
            for r in st.remedies:
                console.print(Text(f"  remedy: {r}"))
        for w in p.warnings:
            console.print(Text(f"warning {w.code}: {w.message}" + (f" ({w.path})" if w.path else ""), style="yellow"))
        if p.operators:
            console.print(Text(provenance(p), style="dim"))
        if p.steps:
            console.print(Text(headline(p), style=style))
            console.print(Text(summary_lines(p, console.width), style="dim"))
    return buf.getvalue()


def _phases_table(p: Plan, width: int, fixed: bool = False):
    from rich.table import Table
    from rich.text import Text

    rows = phase_rows(p)
    cells = [(r.steps, r.title, changes_text(r.counts), "\n".join(waits_lines(r))) for r in rows]
    table = Table(show_header=True, header_style="bold", expand=False, show_lines=True)
    table.add_column("Steps", justify="right", no_wrap=True)
    named = (("Phase", 4), ("Changes", 2), ("Then waits for", 3))
    mins = [min_width([c[i] for c in cells], width // 4) for i in (1, 2, 3)]
    widths = column_widths(width, [max(len("Steps"), *(len(c[0]) for c in cells))], mins,
                           [ratio for _, ratio in named]) if fixed else [None] * 3
    for (name, ratio), low, w in zip(named, mins, widths):
        table.add_column(name, ratio=ratio, min_width=low, width=w, overflow="fold")
    for r, c in zip(rows, cells):
        waits = Text(c[3], style="red" if r.stuck else "")
        # every cell as plain text: a title or a change may hold brackets ("[head×2]"),
        # which a plain string would have read as console markup and dropped
        table.add_row(Text(c[0]), Text(c[1]), Text(c[2]), waits)
    return table


def _steps_table(p: Plan, width: int, fixed: bool = False):
    from rich.table import Table
    from rich.text import Text

    timed = any(s.time is not None for s in p.steps)
    opens = {} if p.immediate else phase_of_step(p)
    table = Table(show_header=True, header_style="bold", expand=False, show_lines=True)
    table.add_column("Step", justify="right", no_wrap=True)
    if timed:
        table.add_column("Time", justify="right", no_wrap=True)
    objs_all = [line for s in p.steps for _, line in action_lines(s.actions)[:MAX_LINES]]
    mins = [min_width([s.title for s in p.steps], width // 4), min_width(objs_all, width // 3),
            min_width([w for s in p.steps for w in s.wait_for], width // 5)]
    widths: list[int | None] = [None] * 3
    if fixed:
        narrow = [max(len("Step"), *(len(str(s.step)) for s in p.steps))]
        if timed:
            narrow.append(max(len("Time"), *(len(f"{s.time}s") for s in p.steps if s.time is not None)))
        widths = list(column_widths(width, narrow, mins, [2, 3, 2]))
    for name, ratio, low, w in zip(("What happens", "Objects", "Then waits for"), (2, 3, 2), mins, widths):
        table.add_column(name, ratio=ratio, min_width=low, width=w, overflow="fold")
    for s in p.steps:
        ph = opens.get(s.step)
        if ph is not None:
            span = f"steps {ph.first_step}–{ph.last_step}" if ph.last_step > ph.first_step else f"step {ph.first_step}"
            row = [""] + ([""] if timed else []) + [Text(f"{ph.title} ({span})", style="bold"), "", ""]
            table.add_row(*row)
        objs = Text()
        groups = action_lines(s.actions)
        for i, (a, line) in enumerate(groups[:MAX_LINES]):
            if i:
                objs.append("\n")
            objs.append(line, style=VERB_STYLE.get(a.verb, ""))
        if len(groups) > MAX_LINES:
            objs.append(f"\n… {len(groups) - MAX_LINES} more (-o json lists all)", style="dim")
        if not groups:
            objs.append("no action", style="dim")
        row = [str(s.step)]
        if timed:
            row.append(f"{s.time}s" if s.time is not None else "")
        row += [Text(s.title), objs, Text("\n".join(s.wait_for) or "—")]
        table.add_row(*row)
    return table
