"""Text that must stay on one line: messages, findings, terminal output; a user's value
quoted in a message."""

from __future__ import annotations

from typing import Any

#: the byte order mark a UTF-8 file may begin with (read as nothing)
UTF8_BOM = b"\xef\xbb\xbf"
#: longest excerpt of a user's value quoted in a message
_QUOTE = 60

#: characters ``str.splitlines`` breaks on beyond the C0 controls: NEL, LS, PS
_LINE_BREAKS = frozenset("\x85\u2028\u2029")


def _breaks(c: str) -> bool:
    return c < " " or c == "\x7f" or c in _LINE_BREAKS or "\x80" <= c < "\xa0"


def one_line(text: str, limit: int = 1000) -> str:
    """``text`` as one printable line: control characters escaped, length capped
    (a message must never break the one-line-per-problem contract)."""
    if any(_breaks(c) for c in text):
        text = "".join(c.encode("unicode_escape").decode("ascii") if _breaks(c) else c for c in text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


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
