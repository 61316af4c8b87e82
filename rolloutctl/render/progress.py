"""A progress line on standard error for work that takes more than about a second
(long plans, compares, lints), on a terminal only: never when standard error or
standard output is a pipe or a file, never for machine formats, and never mixed
into the result (which is printed once, at the end).

In CI (the ``CI`` environment variable every common CI service sets), where standard
error is a log, long work writes a plain line instead (``heartbeat``): after
``HEARTBEAT_FIRST`` seconds, then every ``HEARTBEAT_EVERY``, so that a long ``advise``
does not look like a hang (or trip a CI's no-output timeout). ``advise``, which can run
for minutes, writes these lines whenever standard error is not a terminal (a pipe, a
log file), in CI or not. Standard output, and so every machine format, is untouched: no
line is written when a machine format's standard output is standard error's file or pipe
(``-o json 2>&1``)."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Mapping
from typing import Any, TextIO

#: seconds of quiet before the line appears (short commands never show it)
DELAY = 1.0


#: seconds before the first heartbeat line, and between lines
HEARTBEAT_FIRST = 10.0
HEARTBEAT_EVERY = 30.0


#: output formats a program reads (a line in them would break the document)
MACHINE_FORMATS = ("json", "yaml", "sarif", "junit", "github")


def heartbeat_wanted(environ: Mapping[str, str] | None = None, stderr: TextIO | None = None, *,
                     outside_ci: bool = False, fmt: str = "", stdout: TextIO | None = None) -> bool:
    """In CI (``CI`` set, and not to ``false`` or ``0``) with standard error not a terminal;
    with ``outside_ci`` (``advise``) also without ``CI`` (``CI=false`` still turns it off).
    Never when ``fmt`` is a machine format and standard output is standard error's file."""
    env = os.environ if environ is None else environ
    ci = str(env.get("CI", "")).strip().lower()
    if ci in ("false", "0", "no") or (ci == "" and not outside_ci):
        return False
    err = stderr or sys.stderr
    try:
        if err.isatty():
            return False
    except (AttributeError, ValueError):
        pass
    return not (fmt in MACHINE_FORMATS and _same_file(err, stdout or sys.stdout))


def _same_file(a: TextIO, b: TextIO) -> bool:
    """Whether two streams write to one file or pipe (``2>&1``)."""
    try:
        sa, sb = os.fstat(a.fileno()), os.fstat(b.fileno())
    except (AttributeError, OSError, ValueError):
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def wanted(fmt: str, stderr: TextIO | None = None, stdout: TextIO | None = None) -> bool:
    err, out = stderr or sys.stderr, stdout or sys.stdout
    if fmt in MACHINE_FORMATS:
        return False
    try:
        return bool(err.isatty() and out.isatty())
    except (AttributeError, ValueError):
        return False


class Progress:
    """``with Progress("planning", enabled) as p: ... p.update("step 200")``: a rich
    status line that starts after ``DELAY`` seconds and disappears when the work ends."""

    def __init__(self, what: str, enabled: bool, stderr: TextIO | None = None, delay: float = DELAY,
                 color: bool = True, heartbeat: bool = False, first: float | None = None,
                 every: float | None = None) -> None:
        self.what, self.enabled, self.delay, self.color = what, enabled, delay, color
        self.heartbeat = heartbeat and not enabled
        self.first = HEARTBEAT_FIRST if first is None else first
        self.every = HEARTBEAT_EVERY if every is None else every
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None
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
        elif self.heartbeat:
            self._beat = threading.Thread(target=self._beats, args=(time.monotonic(),), daemon=True)
            self._beat.start()
        return self

    def _beats(self, started: float) -> None:
        wait = self.first
        while not self._stop.wait(wait):
            with self._lock:
                if self._done:
                    return
                detail = f": {self._detail}" if self._detail else ""
                try:
                    out = self._file or sys.stderr
                    out.write(f"rolloutctl: still {self.what}{detail} ({time.monotonic() - started:.0f} s)\n")
                    out.flush()
                except (OSError, ValueError):
                    return
            wait = self.every

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
        self._stop.set()
        with self._lock:
            self._done = True
            if self._status is not None:
                self._status.stop()
                self._status = None
