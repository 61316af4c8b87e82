"""A progress line on standard error for work that takes more than about a second
(long plans, compares, lints), on a terminal only: never when standard error or
standard output is a pipe or a file, never for machine formats, and never mixed
into the result (which is printed once, at the end)."""

from __future__ import annotations

import sys
import threading
from typing import Any, TextIO

#: seconds of quiet before the line appears (short commands never show it)
DELAY = 1.0


def wanted(fmt: str, stderr: TextIO | None = None, stdout: TextIO | None = None) -> bool:
    err, out = stderr or sys.stderr, stdout or sys.stdout
    if fmt in ("json", "yaml", "sarif", "junit", "github"):
        return False
    try:
        return bool(err.isatty() and out.isatty())
    except (AttributeError, ValueError):
        return False


class Progress:
    """``with Progress("planning", enabled) as p: ... p.update("step 200")``: a rich
    status line that starts after ``DELAY`` seconds and disappears when the work ends."""

    def __init__(self, what: str, enabled: bool, stderr: TextIO | None = None, delay: float = DELAY,
                 color: bool = True) -> None:
        self.what, self.enabled, self.delay, self.color = what, enabled, delay, color
        self._file = stderr
        self._lock = threading.Lock()
        self._status: Any = None
        self._timer: threading.Timer | None = None
        self._done = False
        self._detail = ""

    def __enter__(self) -> "Progress":
        if self.enabled:
            self._timer = threading.Timer(self.delay, self._start)
            self._timer.daemon = True
            self._timer.start()
        return self

    def _text(self) -> str:
        return f"{self.what}{' · ' + self._detail if self._detail else ''} …"

    def _start(self) -> None:
        with self._lock:
            if self._done:
                return
            from rich.console import Console

            console = Console(file=self._file or sys.stderr, highlight=False, emoji=False, no_color=not self.color)
            self._status = console.status(self._text(), spinner="dots")
            self._status.start()

    def update(self, detail: str) -> None:
        with self._lock:
            self._detail = detail
            if self._status is not None:
                self._status.update(self._text())

    def __exit__(self, *exc: Any) -> None:
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            self._done = True
            if self._status is not None:
                self._status.stop()
                self._status = None
