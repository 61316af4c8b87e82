"""How the loader reports a problem: an ``InputError`` (file, line, message) for the user,
raised inside a document as a ``DocumentError``, and ``quote`` for a user's value in a
message."""

from __future__ import annotations

from typing import Any

from ..core.records import record
from ..core.text import one_line

#: longest excerpt of a user's value quoted in a message
_QUOTE = 60


@record(frozen=True)
class InputError:
    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {one_line(self.message)}"


def quote(value: Any) -> str:
    """A short rendering of a user's value for a message (YAML spelling of
    booleans and null)."""
    if value is None or isinstance(value, bool):
        return "null" if value is None else ("true" if value else "false")
    r = int_text(value) if isinstance(value, int) else repr(value)
    return r if len(r) <= _QUOTE else r[: _QUOTE - 4] + "…" + r[-3:]


def int_text(v: int) -> str:
    """``str(v)``, or a phrase for an integer too long for Python to print."""
    try:
        return str(v)
    except ValueError:  # more digits than Python will print
        return "<an integer of more than 4300 digits>"


class DocumentError(Exception):
    """A problem in one document (or file); ``fatal`` ones end the file (the stream cannot be trusted)."""

    def __init__(self, line: int, message: str, fatal: bool = False) -> None:
        super().__init__(message)
        self.line = line
        self.message = message
        self.fatal = fatal
