"""Kubernetes resource quantities as exact integers of milli-units.

Follows the suffix table of k8s.io/apimachinery/pkg/api/resource (quantity.go):
decimal SI (m, k, M, G, T, P, E), binary SI (Ki … Ei) and decimal exponents (1e3).

Text is read by small scanners over ASCII characters (``split_quantity``,
``matches_quantity_pattern``), as Go reads it, rather than by compiled regular expressions:
compiling them was a measurable part of every command's start. Tests check each scanner
against the pattern it stands for.
"""

from __future__ import annotations

from functools import lru_cache
from collections.abc import Mapping
from typing import Any

from .go_strconv import DIGITS, decimal_end, sign_end

# Exact arithmetic in integers: every quantity is m * 2**b * 10**e for integers m, b, e
# (the decimal digits scaled by the suffix), so no rational type is needed (fractions
# would import decimal and numbers on every command that reads a manifest).
_BIN = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_BIN_SHIFT = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
#: decimal SI suffixes as powers of ten
_DEC_EXP = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_WHOLE = {k: 10**e for k, e in _DEC_EXP.items() if e >= 0}
#: every suffix: binary SI, then decimal SI
_SUFFIXES = frozenset(("Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "n", "u", "m", "k", "M", "G", "T", "P", "E"))

#: the pattern the CRDs give a ``resource.Quantity`` field (int-or-string), which the API
#: server checks with Go's regexp (``matches_quantity_pattern`` reads it without compiling it)
QUANTITY_PATTERN = (r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?"
                    r"(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$")


def split_quantity(value: str) -> tuple[str, str | None, str | None] | None:
    """(number, suffix, exponent) of ``value`` read as ``resource.ParseQuantity`` reads it
    (``[+-]?(\\d+\\.?\\d*|\\.\\d+)``, then a suffix or ``[eE][+-]?\\d+`` or nothing;
    ASCII digits), or None when it is not one."""
    end = decimal_end(value, sign_end(value))
    if end < 0:
        return None
    rest = value[end:]
    if not rest:
        return value, None, None
    if rest in _SUFFIXES:
        return value[:end], rest, None
    if rest[0] in ("e", "E"):
        exp = rest[1:]
        if decimal_end(exp, sign_end(exp), fraction=False) == len(exp):
            return value[:end], None, exp
    return None


def matches_quantity_pattern(value: str) -> bool:
    """``value`` matches ``QUANTITY_PATTERN`` as Go's regexp reads it (``$`` is the end of
    the text): a sign, a number, then a suffix, or ``e``/``E``, a sign and a number (which
    may have a fraction, unlike a quantity's exponent), or nothing."""
    end = decimal_end(value, sign_end(value))
    if end < 0:
        return False
    rest = value[end:]
    if not rest or rest in _SUFFIXES:
        return True
    if rest[0] not in ("e", "E"):
        return False
    return decimal_end(rest, sign_end(rest, 1)) == len(rest)


#: ``quantitySuffixer.interpret`` (suffix.go) reads a decimal exponent as an int32; a
#: wider one makes the quantity invalid
_INT32 = 2**31
#: the largest power of ten computed exactly: a quantity beyond 10**4000 is refused
#: (upstream keeps it as an arbitrary-precision decimal; no resource comes near it)
_MAX_EXP = 4000
_MAX_DIGITS = 4000


def _decimal(digits: str) -> tuple[int, int]:
    """(m, e) with ``digits`` (``[+-]?(\\d+\\.?\\d*|\\.\\d+)``) exactly m * 10**e."""
    whole, _, frac = digits.partition(".")
    sign = -1 if whole[:1] == "-" else 1
    whole = whole.lstrip("+-")
    if len(whole) + len(frac) > _MAX_DIGITS:
        raise QuantityError(f"a quantity of more than {_MAX_DIGITS} digits is out of range")
    return sign * int(whole + frac or "0"), -len(frac)


def _ceil(m: int, shift: int, e: int) -> int:
    """m * 2**shift * 10**e rounded up to an integer; a value whose magnitude is below 1
    needs no power of ten (its ceiling is 1 or 0), one beyond ``10**_MAX_EXP`` is refused."""
    v = m << shift
    if e >= 0:
        if e + len(str(abs(v))) > _MAX_EXP:
            raise QuantityError(f"a quantity of 10**{_MAX_EXP} or more is out of range")
        return v * 10**e
    if -e >= len(str(abs(v))):
        return 1 if v > 0 else 0
    return -((-v) // 10**-e)


def _scaled(m: int, e: int, suf: str | None, exp: str | None) -> tuple[int, int, int]:
    """(m, shift, e): the quantity with suffix ``suf`` or exponent ``exp`` is m * 2**shift * 10**e."""
    if exp is not None:
        if len(exp.lstrip("+-")) > 10 or not -_INT32 <= int(exp) < _INT32:
            raise QuantityError(f"not a Kubernetes quantity: the exponent {exp} does not fit 32 bits")
        return m, 0, e + int(exp)
    if suf in _BIN_SHIFT:
        return m, _BIN_SHIFT[suf], e
    return m, 0, e + _DEC_EXP[suf or ""]


class QuantityError(ValueError):
    pass


def parse_quantity(value: object) -> int:
    """Return the quantity in milli-units (rounded up, as the API server does)."""
    if isinstance(value, bool):
        raise QuantityError(f"not a quantity: {value!r}")
    if isinstance(value, int):
        return value * 1000
    if isinstance(value, float):
        value = repr(value)
    if not isinstance(value, str):
        raise QuantityError(f"not a quantity: {value!r}")
    return _parse_str(value)


@lru_cache(maxsize=4096)
def _parse_str(value: str) -> int:
    """``parse_quantity`` of a string (a pure function: manifests repeat a handful of
    quantities across thousands of pods)."""
    parts = split_quantity(value.strip())
    if parts is None:
        raise QuantityError(f"not a Kubernetes quantity: {value!r}")
    digits, suf, exp = parts
    if exp is None and digits.isdigit() and len(digits) <= 18:
        # a whole number with a suffix of whole milli-units (most quantities): exact in integers
        if suf in _BIN:
            return int(digits) * _BIN[suf] * 1000
        if suf == "m":
            return int(digits)
        if suf in _WHOLE:
            return int(digits) * _WHOLE[suf] * 1000
    m, shift, e = _scaled(*_decimal(digits), suf, exp)
    if m < 0:
        raise QuantityError(f"negative quantity: {value!r}")
    return _ceil(m, shift, e + 3)


def parse_quantities(m: object) -> dict[str, int]:
    """A resource list (``{name: quantity}``, e.g. a node's ``allocatable``, a quota's
    ``hard``) in milli-units; entries that are not quantities are left out (a stored
    object may hold anything there; the capacity it reads is then smaller, never wrong)."""
    out: dict[str, int] = {}
    if isinstance(m, Mapping):
        for k, v in m.items():
            try:
                out[str(k)] = parse_quantity(str(v))
            except QuantityError:
                continue
    return out


def format_quantity(milli: int, resource: str = "") -> str:
    """Render milli-units the way a person writes them for ``resource``."""
    if milli % 1000:
        return f"{milli}m"
    units = milli // 1000
    if resource in ("memory", "ephemeral-storage") or resource.endswith("storage"):
        # the shorter of the binary and the decimal spelling (binary on a tie): 8Gi + 12Gi
        # is 20Gi, 8G + 12G is 20G (not 19531250Ki)
        binary = decimal = str(units)
        for suf in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki"):
            if units and units % _BIN[suf] == 0:
                binary = f"{units // _BIN[suf]}{suf}"
                break
        for suf in ("E", "P", "T", "G", "M", "k"):
            if units and units % _WHOLE[suf] == 0:
                decimal = f"{units // _WHOLE[suf]}{suf}"
                break
        return decimal if len(decimal) < len(binary) else binary
    return str(units)


# ----------------------------------------------------------------------------- canonical form

_NANOS = 10**9
_DEC_SUFFIX = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
_BIN_SUFFIX = {0: "", 1: "Ki", 2: "Mi", 3: "Gi", 4: "Ti", 5: "Pi", 6: "Ei"}


def _parse_exact(value: object) -> tuple[int, str]:
    """(exact value in nano-units, rounded up, format) as ``resource.ParseQuantity``
    reads it; format is ``DecimalSI``, ``BinarySI`` or ``DecimalExponent``."""
    if isinstance(value, bool):
        raise QuantityError(f"not a quantity: {value!r}")
    if isinstance(value, int):
        return value * _NANOS, "DecimalSI"
    if isinstance(value, float):
        value = repr(value)
    if not isinstance(value, str):
        raise QuantityError(f"not a quantity: {value!r}")
    parts = split_quantity(value)
    if parts is None:
        raise QuantityError(f"not a Kubernetes quantity: {value!r}")
    digits, suf, exp = parts
    fmt = "DecimalExponent" if exp is not None else "BinarySI" if suf in _BIN_SHIFT else "DecimalSI"
    m, shift, e = _scaled(*_decimal(digits), suf, exp)
    # precision below 1n is rounded up (away from zero for positive values), as upstream
    return _ceil(m, shift, e + 9), fmt


def _decimal_mantissa(nanos: int) -> tuple[int, int]:
    """(mantissa, exponent) of ``nanos`` nano-units with exponent a multiple of 3 and
    no removable factor 1000 (``int64Amount.AsCanonicalBytes``)."""
    n, exp = nanos, -9
    while n and n % 10 == 0:
        n //= 10
        exp += 1
    while exp % 3:
        n *= 10
        exp -= 1
    return n, exp


def canonical_quantity(value: object) -> str:
    """A quantity as the API server and the operators' Go types print it
    (``resource.Quantity.String`` / ``CanonicalizeBytes`` of
    k8s.io/apimachinery/pkg/api/resource/quantity.go): ``2`` and ``"2"`` and
    ``"2000m"`` are ``"2"``; ``"1024Mi"`` is ``"1Gi"``; ``"0.5"`` is ``"500m"``;
    ``1000`` is ``"1k"``; a binary quantity that is not a whole number, or is below
    1024, is printed in decimal SI. Raises ``QuantityError`` for what is not a quantity."""
    # what manifests mostly hold is already canonical: a positive whole number without
    # leading zeros and a suffix it cannot move to (not a multiple of 1000, or of 1024
    # with a binary suffix) prints as written (``_exact_canonical`` does the rest)
    if value.__class__ is str and len(value) <= 19:
        parts = split_quantity(value) if value[:1] in DIGITS and value[0] != "0" else None
        if parts is not None and parts[2] is None and parts[0].isdigit():
            # (a positive whole number without leading zeros and an optional suffix)
            if int(parts[0]) % (1024 if parts[1] in _BIN_SHIFT else 1000):
                return value
    elif value.__class__ is int and 0 < value < 10**18 and value % 1000:  # (not bool: its class is bool)
        return str(value)
    return _exact_canonical(value)


def _exact_canonical(value: object) -> str:
    """``canonical_quantity`` by exact arithmetic."""
    nanos, fmt = _parse_exact(value)
    if nanos == 0:
        return "0"
    sign = "-" if nanos < 0 else ""
    nanos = abs(nanos)
    if fmt == "BinarySI":
        if nanos < 1024 * _NANOS or nanos % _NANOS:
            fmt = "DecimalSI"
        else:
            n, e = nanos // _NANOS, 0
            while n % 1024 == 0 and e < 6:
                n //= 1024
                e += 1
            return f"{sign}{n}{_BIN_SUFFIX[e]}"
    n, e = _decimal_mantissa(nanos)
    if fmt == "DecimalSI" and e in _DEC_SUFFIX:
        return f"{sign}{n}{_DEC_SUFFIX[e]}"
    return f"{sign}{n}" + (f"e{e}" if e else "")


# ----------------------------------------------------------------------------- as stored


def stored_text(value: object) -> str:
    """A quantity's text as a manifest has it stored: a string as written, a YAML number
    as the JSON number kubectl sends (``1.0`` is ``1``, ``0.5`` is ``0.5``), which Go's
    ``Quantity.UnmarshalJSON`` parses like the string."""
    if isinstance(value, float):
        text = repr(value)
        return text[:-2] if text.endswith(".0") else text
    return str(value)


def as_written(admitted: Any, written: Any) -> Any:
    """``admitted`` (an object or a part of one whose quantities admission printed in
    their canonical form, ``canonical_quantity``) with each such quantity back in the
    form ``written`` (the same place, as the manifest has it) gives it: where the API
    server stores a custom resource's quantities as written (the caller knows when), a Go
    hash of the decoded ``resource.Quantity`` (which keeps its parsed digits and the text
    it was read from) tells ``"0.5"`` from ``"500m"``. Everything else is ``admitted``'s."""
    if isinstance(admitted, dict):
        if not isinstance(written, Mapping):
            return admitted
        return {k: as_written(v, written.get(k)) for k, v in admitted.items()}
    if isinstance(admitted, list):
        if not isinstance(written, list) or len(written) != len(admitted):
            return admitted
        return [as_written(a, w) for a, w in zip(admitted, written)]
    if admitted.__class__ is not str or written is None or written.__class__ is bool or \
            not isinstance(written, (str, int, float)):
        return admitted
    text = stored_text(written)
    if text == admitted:
        return admitted
    try:
        return text if canonical_quantity(written) == admitted else admitted
    except (QuantityError, TypeError, ValueError, OverflowError, ZeroDivisionError):
        return admitted


# ----------------------------------------------------------------------------- a person's reading

def in_largest_unit(text: str, min_digits: int = 0) -> str | None:
    """A whole quantity with a unit (binary or decimal SI) and more than ``min_digits``
    digits in the largest unit of its kind that keeps it at least 1 (memory summed over
    pods of ``64Gi`` and ``100Mi`` requests: ``655560Mi``): exact when it is whole there
    (``655360Mi`` is ``640Gi``) or at two decimals (``57856Mi`` is ``56.5Gi``), else rounded
    to two decimals and marked ``≈`` (``≈640.2Gi``); None for anything else (a number without a unit, a fraction, an
    exponent). For people only: the exact value is the quantity as written."""
    parts = split_quantity(text)
    if parts is None or parts[2] is not None or not parts[1] or parts[1] not in _BIN and parts[1] not in _WHOLE:
        return None
    digits = parts[0].lstrip("+")
    sign, digits = ("-", digits[1:]) if digits.startswith("-") else ("", digits)
    if not digits.isdigit() or len(digits.lstrip("0")) <= min_digits:
        return None
    binary = parts[1] in _BIN
    base = 1024 if binary else 1000
    names = [_BIN_SUFFIX[p] for p in range(7)] if binary else [_DEC_SUFFIX[3 * p] for p in range(7)]
    power = names.index(parts[1])
    value = int(digits) * base ** power
    top = max(p for p in range(power, 7) if p == power or value >= base ** p)
    unit = base ** top
    if value % unit == 0:
        return f"{sign}{value // unit}{names[top]}"
    hundredths = (value * 100 + unit // 2) // unit
    exact = hundredths * unit == value * 100
    if hundredths >= base * 100 and top < 6:  # 1023.999Gi rounds up to the next unit
        top, hundredths = top + 1, 100
    whole, frac = divmod(hundredths, 100)
    number = f"{whole}.{frac:02d}".rstrip("0").rstrip(".")
    return f"{'' if exact else '≈'}{sign}{number}{names[top]}"
