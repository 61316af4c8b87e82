"""Go's ``strconv.Atoi``, for the operators' settings that take integer text.

Upstream: Go ``src/strconv/atoi.go`` ``Atoi`` (on a 64-bit platform: ``ParseInt(s, 10, 0)``
with a fast path for short input). KubeRay reads the ``ray.io/initializing-timeout``
annotation as integer seconds with it when it is no Go duration
(``utils/validation.go`` ``validateInitializingTimeout``, ``rayservice_controller.go``
``getInitializingTimeout``).

What Go accepts: an optional ``+`` or ``-``, then one or more ASCII digits ``0``-``9``
(leading zeros allowed), with a value in int64. Nothing else: no spaces, no other
scripts' digits, no underscores (those need base 0), no ``0x`` prefix.
"""

from __future__ import annotations

import re
from typing import Any

_INT = re.compile(r"[+-]?[0-9]+")
_MIN, _MAX = -(1 << 63), (1 << 63) - 1


def atoi(value: Any) -> int | None:
    """``strconv.Atoi``: the integer, or None where Go returns an error (and for
    anything that is not a string)."""
    if not isinstance(value, str) or not _INT.fullmatch(value):
        return None
    n = int(value)
    return n if _MIN <= n <= _MAX else None
