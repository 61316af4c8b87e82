"""Kubernetes resource quantities as exact integers of milli-units.

Follows the suffix table of k8s.io/apimachinery/pkg/api/resource (quantity.go):
decimal SI (m, k, M, G, T, P, E), binary SI (Ki … Ei) and decimal exponents (1e3).
"""

from __future__ import annotations

import re
from fractions import Fraction

_BIN = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DEC = {"n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "": 1,
        "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18}
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
    m = _RE.match(value.strip())
    if not m:
        raise QuantityError(f"not a Kubernetes quantity: {value!r}")
    num = Fraction(m.group(1))
    suf, exp = m.group(2), m.group(3)
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
