r"""Go's ``strconv.Atoi``, for the operators' settings that take integer text, and
``strconv.Quote``, which ``fmt``'s ``%q`` verb writes a string with.

Upstream: Go ``src/strconv/atoi.go`` ``Atoi`` (on a 64-bit platform: ``ParseInt(s, 10, 0)``
with a fast path for short input). KubeRay reads the ``ray.io/initializing-timeout``
annotation as integer seconds with it when it is no Go duration
(``utils/validation.go`` ``validateInitializingTimeout``, ``rayservice_controller.go``
``getInitializingTimeout``).

What Go accepts: an optional ``+`` or ``-``, then one or more ASCII digits ``0``-``9``
(leading zeros allowed), with a value in int64. Nothing else: no spaces, no other
scripts' digits, no underscores (those need base 0), no ``0x`` prefix.

``quote``: Go ``src/strconv/quote.go`` ``Quote`` (``appendQuotedWith`` with
``ASCIIonly=false``, ``graphicOnly=false``): double quotes; ``\\`` and ``\"`` escaped;
``\a \b \f \n \r \t \v``; other characters Go's ``unicode.IsPrint`` rejects as
``\xNN`` (below 0x80), ``\uNNNN`` or ``\UNNNNNNNN``; printable characters as they are
(Python's ``str.isprintable`` stands for ``IsPrint``, which also admits only the plain
space among the spaces). KubeRay's validation messages name groups and modes with it.

``decimal_end`` scans the ASCII decimal numbers that Go's parsers (and the patterns the
API server checks) read, for this module, ``core.quantity`` and the YAML scalars.
"""

from __future__ import annotations

from typing import Any

DIGITS = frozenset("0123456789")
_MIN, _MAX = -(1 << 63), (1 << 63) - 1


def decimal_end(s: str, i: int = 0, fraction: bool = True) -> int:
    """Where the number ``[0-9]+(\\.[0-9]*)?|\\.[0-9]+`` that starts at ``i`` of ``s``
    ends, or -1 when none starts there (``fraction`` False: ``[0-9]+`` only)."""
    n, j = len(s), i
    while j < n and s[j] in DIGITS:
        j += 1
    whole = j > i
    if fraction and j < n and s[j] == ".":
        k = j + 1
        while k < n and s[k] in DIGITS:
            k += 1
        if whole or k > j + 1:
            return k
    return j if whole else -1


def sign_end(s: str, i: int = 0) -> int:
    """``i``, or ``i + 1`` when an optional ``+`` or ``-`` is there."""
    return i + 1 if s[i:i + 1] in ("+", "-") else i


def atoi(value: Any) -> int | None:
    """``strconv.Atoi``: the integer, or None where Go returns an error (and for
    anything that is not a string)."""
    if not isinstance(value, str) or decimal_end(value, sign_end(value), fraction=False) != len(value):
        return None
    n = int(value)
    return n if _MIN <= n <= _MAX else None


_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
            "\\": "\\\\", '"': '\\"'}


def quote(value: str) -> str:
    """``strconv.Quote`` (``fmt.Sprintf("%q", s)`` of a string)."""
    out = []
    for ch in value:
        esc = _ESCAPES.get(ch)
        if esc is not None:
            out.append(esc)
        elif ch == " " or (ch.isprintable() and not ch.isspace()):
            out.append(ch)
        elif ord(ch) < 0x80:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    return '"' + "".join(out) + '"'
