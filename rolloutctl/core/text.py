"""Text that must stay on one line: messages, findings, terminal output."""

from __future__ import annotations

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
