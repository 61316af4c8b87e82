"""The rich console every table renderer writes into: output goes to a string, colour only
when asked, fixed width (so saved output is deterministic), and the geometry of a boxed
table that must stay inside that width (``fits``, ``column_widths``). rich is imported
lazily."""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from typing import Any

_COLOUR = re.compile(r"\x1b\[[0-9;]*m")
#: control characters a terminal acts on (C0 but tab and newline, DEL, C1); with colour on, the
#: colour sequences the renderers write (SGR, ``ESC [ ... m``) are kept
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CONTROL_OR_COLOUR = re.compile(r"\x1b\[[0-9;]*m|[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _escaped(m: "re.Match[str]") -> str:
    c = m.group()
    return c if len(c) > 1 else f"\\x{ord(c):02x}"


def printable(text: str, color: bool = False) -> str:
    """Rendered text with the control characters a manifest's values may carry (a name that
    clears the screen or sets the terminal's title) written as ``\\xNN``: what a person reads
    in a terminal, a CI log or a pull request shows them, it does not act on them (JSON and
    YAML output keeps the values as they are, escaped by their own syntax). ``color``: the
    colour codes of a colour render stay (a manifest's own colour codes stay too: they only
    colour)."""
    if not _CONTROL.search(text):
        return text
    return (_CONTROL_OR_COLOUR if color else _CONTROL).sub(_escaped, text)


def buffer_console(color: bool, width: int, **options: Any) -> tuple[Any, io.StringIO]:
    """A ``rich.console.Console`` writing into the returned buffer."""
    from rich.console import Console

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=color, no_color=not color, width=width, highlight=False,
                      color_system="standard" if color else None, emoji=False, **options)
    return console, buf


def fits(rendered: str) -> bool:
    """Whether a boxed table rich rendered kept its right-hand border: rich widens a
    column to its longest word whatever its width, then crops the lines to the
    console's width. Colour codes are skipped."""
    top = _COLOUR.sub("", rendered.split("\n", 1)[0])
    return top.rstrip().endswith(("┓", "┐", "╗", "+"))


def column_widths(width: int, fixed: Sequence[int], mins: Sequence[int], ratios: Sequence[int]) -> list[int]:
    """Content widths of the wrapping columns of a boxed table ``width`` wide whose
    other columns are ``fixed`` wide: the room left shared by ``ratios``, each at least
    its ``mins`` entry while the room allows (then the widest give way first), so the
    table never outgrows ``width`` (rich would crop its right-hand side).
    Each column costs its content, two of padding and one of border, plus one border."""
    n = len(fixed) + len(mins)
    room = max(len(mins), width - sum(fixed) - 3 * n - 1)
    total = sum(ratios)
    out = [max(m, room * r // total) for m, r in zip(mins, ratios)]
    while sum(out) > room:
        i = max(range(len(out)), key=lambda k: (out[k], -k))
        if out[i] <= 1:
            break
        out[i] -= 1
    spare = room - sum(out)
    for k in range(spare):  # what rounding left, to the columns in ratio order
        out[k % len(out)] += 1
    return out
