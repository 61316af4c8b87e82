"""Times as the API server writes them (``metav1.Time``: RFC 3339), and when a live
snapshot was taken at the earliest. The models read no clock: a snapshot's own newest
time stands for "now" where an upstream controller compares a stored time with its
clock (Grove's ``terminationDelay``, KubeRay's traffic ``intervalSeconds``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .go_strconv import DIGITS, decimal_end

#: the layout ``parse_time`` reads (RFC 3339 as Go's ``time.Parse`` reads ``metav1.Time``;
#: ASCII digits), and where its date and time fields are
RFC3339_PATTERN = r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$"
_FIELDS = ((0, 4), (5, 7), (8, 10), (11, 13), (14, 16), (17, 19))


def _digits(s: str) -> bool:
    return bool(s) and DIGITS.issuperset(s)


def _days_from_civil(y: int, m: int, d: int) -> int:
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def parse_time(v: Any) -> float | None:
    """Seconds since the epoch of an RFC 3339 time (``metav1.Time``), None when it is not one."""
    if not isinstance(v, str) or len(v) < 20 or v[4] != "-" or v[7] != "-" or v[10] not in ("T", "t", " ") \
            or v[13] != ":" or v[16] != ":" or not all(_digits(v[a:b]) for a, b in _FIELDS):
        return None
    end = decimal_end(v, 19) if v[19] == "." else 19  # (a fraction: "." and digits)
    if end < 0:
        return None
    tz = v[end:]
    if not (tz in ("Z", "z") or (len(tz) == 6 and tz[0] in ("+", "-") and tz[3] == ":"
                                  and _digits(tz[1:3]) and _digits(tz[4:6]))):
        return None
    y, mo, d, hh, mm, ss = (int(v[a:b]) for a, b in _FIELDS)
    t = _days_from_civil(y, mo, d) * 86400 + hh * 3600 + mm * 60 + ss + float(v[19:end] or 0)
    if tz not in ("Z", "z"):
        sign = 1 if tz[0] == "+" else -1
        t -= sign * (int(tz[1:3]) * 3600 + int(tz[4:6]) * 60)
    return t


def snapshot_time(objs: Iterable[Any]) -> float | None:
    """When a live snapshot was taken, at the earliest: the newest write time it records,
    read where the API server and the controllers write times (``creationTimestamp``,
    ``managedFields[].time``, and the statuses: conditions, container starts and ends,
    traffic moves), never labels, annotations or ``deletionTimestamp`` (now plus a grace
    period: in the future). Seconds since the epoch; None without any."""
    best: float | None = None
    todo: list[Any] = []
    for o in objs:
        md = o.metadata
        todo.append(md.get("creationTimestamp"))
        todo.extend(m.get("time") for m in md.get("managedFields") or () if isinstance(m, Mapping))
        todo.append(o.status)
    while todo:
        v = todo.pop()
        if isinstance(v, Mapping):
            todo.extend(v.values())
        elif isinstance(v, list):
            todo.extend(v)
        elif isinstance(v, str) and len(v) >= 20 and v[4:5] == "-":
            t = parse_time(v)
            if t is not None and (best is None or t > best):
                best = t
    return best
