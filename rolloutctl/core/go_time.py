"""Go's ``time.ParseDuration``, the one parser of duration strings the operators use.

Upstream: Go ``src/time/format.go`` ``ParseDuration`` (with its helpers ``leadingInt``
and ``leadingFraction`` and the table ``unitMap``). KubeRay calls it on the
``ray.io/initializing-timeout`` annotation (``utils/validation.go``
``validateInitializingTimeout``, ``rayservice_controller.go`` ``getInitializingTimeout``);
Grove's fields of type ``metav1.Duration`` (``terminationDelay``, the proposed
``progressDeadline``) are decoded with it.

What Go accepts: an optional sign, then one or more ``NUMBER UNIT`` pairs, where a
number is ASCII digits with an optional fraction (``1``, ``1.``, ``.5``, ``1.5``; not
``.``) and the unit is one of ``ns``, ``us``, ``µs`` (U+00B5), ``μs`` (U+03BC), ``ms``,
``s``, ``m``, ``h``. ``0`` (signed or not) is the only number without a unit. Nothing
else: no spaces anywhere, no other digits than ``0``-``9``, no exponent. The value is
an ``int64`` of nanoseconds, so a duration beyond about 292 years is an error, as is
an integer part beyond 2^63. A fraction is exact to the nanosecond (Go scales it in
``float64``, and so does this module; digits beyond 2^63 of precision are dropped).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

#: ``unitMap``: nanoseconds per unit
UNITS = (("ns", 1), ("us", 1_000), ("µs", 1_000), ("μs", 1_000), ("ms", 1_000_000), ("s", 1_000_000_000),
         ("m", 60_000_000_000), ("h", 3_600_000_000_000))
_UNIT_NS = MappingProxyType(dict(UNITS))

_DIGITS = "0123456789"
_MAX = 1 << 63  # Go's overflow bound of the unsigned accumulator; a positive int64 ends at 2^63 - 1


def _leading_int(s: str) -> tuple[int, str] | None:
    """``leadingInt``: the leading ``[0-9]*`` of ``s`` and the rest; None when it overflows."""
    i, x = 0, 0
    while i < len(s) and s[i] in _DIGITS:
        if x > _MAX // 10:
            return None
        x = x * 10 + ord(s[i]) - 48
        if x > _MAX:
            return None
        i += 1
    return x, s[i:]


def _leading_fraction(s: str) -> tuple[int, float, str]:
    """``leadingFraction``: the digits after the point as an integer, its scale (10 per
    digit kept) and the rest; digits past the precision of 2^63 are skipped, not an error."""
    i, x, scale, overflow = 0, 0, 1.0, False
    while i < len(s) and s[i] in _DIGITS:
        if not overflow:
            if x > (_MAX - 1) // 10:
                overflow = True
            else:
                y = x * 10 + ord(s[i]) - 48
                if y > _MAX:
                    overflow = True
                else:
                    x, scale = y, scale * 10
        i += 1
    return x, scale, s[i:]


def parse_duration(value: Any) -> int | None:
    """``time.ParseDuration``: the duration in nanoseconds, or None where Go returns an
    error (and for anything that is not a string)."""
    if not isinstance(value, str):
        return None
    s, neg = value, False
    if s and s[0] in "+-":
        neg, s = s[0] == "-", s[1:]
    if s == "0":
        return 0
    if not s:
        return None
    d = 0
    while s:
        if s[0] != "." and s[0] not in _DIGITS:
            return None
        before = len(s)
        lead = _leading_int(s)
        if lead is None:
            return None
        v, s = lead
        pre = len(s) != before
        f, scale, post = 0, 1.0, False
        if s and s[0] == ".":
            s = s[1:]
            before = len(s)
            f, scale, s = _leading_fraction(s)
            post = len(s) != before
        if not pre and not post:
            return None
        i = 0
        while i < len(s) and s[i] != "." and s[i] not in _DIGITS:
            i += 1
        unit = _UNIT_NS.get(s[:i]) if i else None
        if unit is None:
            return None  # "missing unit" or "unknown unit"
        s = s[i:]
        if v > _MAX // unit:
            return None
        v *= unit
        if f > 0:
            v += int(float(f) * (float(unit) / scale))
            if v > _MAX:
                return None
        d += v
        if d > _MAX:
            return None
    if neg:
        return -d
    if d > _MAX - 1:
        return None
    return d


def parse_duration_seconds(value: Any) -> float | None:
    """``parse_duration`` in seconds (what the models and rules compare and wait for)."""
    ns = parse_duration(value)
    return None if ns is None else ns / 1e9


def _decimal(value: int, unit: int) -> str:
    """``value / unit`` written as Go does: the fraction's trailing zeros dropped."""
    whole, frac = divmod(value, unit)
    digits = str(frac).rjust(len(str(unit)) - 1, "0").rstrip("0")
    return f"{whole}.{digits}" if digits else str(whole)


def format_duration(ns: int) -> str:
    """``time.Duration.String``: ``1h0m0s``, ``2m30s``, ``1.5s``, ``250ms``, ``0s``."""
    if ns == 0:
        return "0s"
    sign, u = ("-", -ns) if ns < 0 else ("", ns)
    if u < 1000:
        return f"{sign}{u}ns"
    if u < 1_000_000:
        return f"{sign}{_decimal(u, 1000)}µs"
    if u < 1_000_000_000:
        return f"{sign}{_decimal(u, 1_000_000)}ms"
    hours, rest = divmod(u, 3600 * 10**9)
    minutes, rest = divmod(rest, 60 * 10**9)
    lead = f"{hours}h{minutes}m" if hours else (f"{minutes}m" if minutes else "")
    return f"{sign}{lead}{_decimal(rest, 10**9)}s"
