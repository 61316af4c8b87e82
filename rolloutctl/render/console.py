"""The rich console every table renderer writes into: output goes to a string, colour only
when asked, fixed width (so saved output is deterministic). rich is imported lazily."""

from __future__ import annotations

import io
from typing import Any


def buffer_console(color: bool, width: int, **options: Any) -> tuple[Any, io.StringIO]:
    """A ``rich.console.Console`` writing into the returned buffer."""
    from rich.console import Console

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=color, no_color=not color, width=width, highlight=False,
                      color_system="standard" if color else None, emoji=False, **options)
    return console, buf
