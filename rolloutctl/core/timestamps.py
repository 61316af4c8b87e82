"""Times as the API server writes them (``metav1.Time``: RFC 3339), and when a live
snapshot was taken at the earliest. The models read no clock: a snapshot's own newest
time stands for "now" where an upstream controller compares a stored time with its
clock (Grove's ``terminationDelay``, KubeRay's traffic ``intervalSeconds``)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

_RFC3339 = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


def _days_from_civil(y: int, m: int, d: int) -> int:
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def parse_time(v: Any) -> float | None:
    """Seconds since the epoch of an RFC 3339 time (``metav1.Time``), None when it is not one."""
    m = _RFC3339.fullmatch(v) if isinstance(v, str) else None
    if m is None:
        return None
    y, mo, d, hh, mm, ss = (int(m.group(k)) for k in range(1, 7))
    t = _days_from_civil(y, mo, d) * 86400 + hh * 3600 + mm * 60 + ss + float(m.group(7) or 0)
    tz = m.group(8)
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
