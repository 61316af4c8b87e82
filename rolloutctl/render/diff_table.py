"""The human view of a Diff, terraform-like: ``~`` changed, ``+`` added, ``-`` removed,
the consequence beside each change and the manifest line that caused it, why under
each object, then a summary line and the disruptive consequences listed once more."""

from __future__ import annotations

from ..core.model import Diff
from .diff_common import (EFFECT_STYLE, OP_MARK, STATUS_STYLE, change_text, disruptive, effects_of, impact_label,
                          line_diff, summary_line, title, where)
from .console import buffer_console

_OP_STYLE = {"add": "green", "remove": "red", "replace": "yellow"}


def render(diff: Diff, color: bool, width: int = 120) -> str:
    from rich.text import Text

    console, buf = buffer_console(color, width, markup=False)
    shown = [o for o in diff.objects if o.status != "unchanged"]
    for n, o in enumerate(shown):
        if n:
            console.print()
        console.print(Text(title(o), style="bold " + STATUS_STYLE.get(o.status, "")))
        for c in o.changes:
            line = Text("  ")
            line.append(f"{OP_MARK.get(c.op, '?')} {c.path}", style=_OP_STYLE.get(c.op, ""))
            effects = effects_of(c, o.impact)
            for e in effects:
                line.append("  ")
                line.append(f"[{e}]", style=EFFECT_STYLE.get(e, ""))
            console.print(line, soft_wrap=True)
            detail = Text("      " + change_text(c))
            if c.file:
                detail.append(f"   {where(c)}", style="dim")
            console.print(detail, soft_wrap=True)
            for dl in line_diff(c) or ():
                style = {"+": "green", "-": "red", "@": "cyan"}.get(dl[:1], "")
                console.print(Text("        " + dl, style=style), soft_wrap=True)
        for i in o.impact:
            label, note = impact_label(o, i)
            line = Text("  → ")
            line.append(label, style=EFFECT_STYLE.get(i.effect, ""))
            line.append(f"{note}: {i.message}")
            console.print(line)
    unchanged = [o for o in diff.objects if o.status == "unchanged"]
    if unchanged:
        if shown:
            console.print()
        for o in unchanged:
            console.print(Text(title(o), style="dim"))
    if diff.objects:
        console.print()
    console.print(Text(summary_line(diff), style="bold"))
    for e, o, i in disruptive(diff):
        t = o.target
        line = Text("  ")
        line.append(f"{e:<9}", style=EFFECT_STYLE.get(e, ""))
        line.append(f" {t.kind} {t.namespace}/{t.name}: {i.message}")
        console.print(line)
    return buf.getvalue()
