"""Kubernetes resource quantities as exact integers of milli-units.

Follows the suffix table of k8s.io/apimachinery/pkg/api/resource (quantity.go):
decimal SI (m, k, M, G, T, P, E), binary SI (Ki … Ei) and decimal exponents (1e3).
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache
from collections.abc import Mapping

_BIN = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DEC = {"n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "": 1,
        "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18}
_WHOLE = {k: v for k, v in _DEC.items() if isinstance(v, int)}
_RE = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+))(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?\d+))?$")


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
    m = _RE.fullmatch(value.strip())
    if not m:
        raise QuantityError(f"not a Kubernetes quantity: {value!r}")
    digits, suf, exp = m.group(1), m.group(2), m.group(3)
    if exp is None and digits.isdigit():
        # a whole number with a suffix of whole milli-units (most quantities): exact in integers
        if suf in _BIN:
            return int(digits) * _BIN[suf] * 1000
        if suf == "m":
            return int(digits)
        if suf in _WHOLE:
            return int(digits) * _WHOLE[suf] * 1000
    num = Fraction(digits)
    if exp is not None:
        mult: Fraction | int = Fraction(10) ** int(exp)
    elif suf in _BIN:
        mult = _BIN[suf]
    else:
        mult = _DEC[suf or ""]
    milli = num * mult * 1000
    if milli < 0:
        raise QuantityError(f"negative quantity: {value!r}")
    n = int(milli)
    return n if n == milli else n + 1


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
        for suf in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki"):
            if units and units % _BIN[suf] == 0:
                return f"{units // _BIN[suf]}{suf}"
    return str(units)


# ----------------------------------------------------------------------------- canonical form

_NANO = Fraction(1, 10**9)
_DEC_SUFFIX = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
_BIN_SUFFIX = {0: "", 1: "Ki", 2: "Mi", 3: "Gi", 4: "Ti", 5: "Pi", 6: "Ei"}


def _parse_exact(value: object) -> tuple[Fraction, str]:
    """(exact value rounded up to nano-units, format) as ``resource.ParseQuantity``
    reads it; format is ``DecimalSI``, ``BinarySI`` or ``DecimalExponent``."""
    if isinstance(value, bool):
        raise QuantityError(f"not a quantity: {value!r}")
    if isinstance(value, int):
        return Fraction(value), "DecimalSI"
    if isinstance(value, float):
        value = repr(value)
    if not isinstance(value, str):
        raise QuantityError(f"not a quantity: {value!r}")
    m = _RE.fullmatch(value)
    if not m:
        raise QuantityError(f"not a Kubernetes quantity: {value!r}")
    num = Fraction(m.group(1))
    suf, exp = m.group(2), m.group(3)
    if exp is not None:
        amount, fmt = num * Fraction(10) ** int(exp), "DecimalExponent"
    elif suf in _BIN:
        amount, fmt = num * _BIN[suf], "BinarySI"
    else:
        amount, fmt = num * _DEC[suf or ""], "DecimalSI"
    # precision below 1n is rounded up (away from zero for positive values), as upstream
    nanos = amount / _NANO
    whole = nanos.numerator // nanos.denominator
    if whole != nanos:
        whole += 1
    return Fraction(whole) * _NANO, fmt


def _decimal_mantissa(amount: Fraction) -> tuple[int, int]:
    """(mantissa, exponent) with exponent a multiple of 3 and no removable factor 1000
    (``int64Amount.AsCanonicalBytes``)."""
    exp = 0
    while amount.denominator != 1:
        amount *= 10
        exp -= 1
    n = int(amount)
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
    amount, fmt = _parse_exact(value)
    if amount == 0:
        return "0"
    sign = "-" if amount < 0 else ""
    amount = abs(amount)
    if fmt == "BinarySI":
        if amount < 1024 or amount.denominator != 1:
            fmt = "DecimalSI"
        else:
            n, e = int(amount), 0
            while n % 1024 == 0 and e < 6:
                n //= 1024
                e += 1
            return f"{sign}{n}{_BIN_SUFFIX[e]}"
    n, e = _decimal_mantissa(amount)
    if fmt == "DecimalSI" and e in _DEC_SUFFIX:
        return f"{sign}{n}{_DEC_SUFFIX[e]}"
    return f"{sign}{n}" + (f"e{e}" if e else "")
