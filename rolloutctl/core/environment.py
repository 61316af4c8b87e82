"""Assumptions about the world a plan runs in: capacity, readiness failures.

The environment is data; the kinds ask it questions (``fits``, ``never_ready``)
when they advance their world. Nothing here knows an operator.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from functools import lru_cache
from collections.abc import Iterable, Mapping
from typing import Any

from .quantity import parse_quantity
from .records import field, record

Resources = dict[str, int]  # resource name -> milli-units


@record(frozen=True)
class Environment:
    capacity: Mapping[str, int] = field(default_factory=dict)  # milli-units; absent = unlimited
    never_ready: tuple[str, ...] = ()
    #: an explicit cap on the steps of a plan (``--max-steps``); ``None``: no cap, the
    #: plan runs until it converges or provably stops progressing
    max_steps: int | None = None

    def fits(self, used: Mapping[str, int], extra: Mapping[str, int]) -> bool:
        for res, limit in self.capacity.items():
            if used.get(res, 0) + extra.get(res, 0) > limit:
                return False
        return True

    def short(self, used: Mapping[str, int], extra: Mapping[str, int]) -> list[str]:
        """Resources that would be exceeded by adding ``extra`` to ``used``."""
        return sorted(r for r, lim in self.capacity.items() if used.get(r, 0) + extra.get(r, 0) > lim)

    def is_never_ready(self, name: str) -> bool:
        if not self.never_ready:
            return False
        return _matches(name, tuple(self.never_ready))


@lru_cache(maxsize=65536)
def _matches(name: str, globs: tuple[str, ...]) -> bool:
    """Whether ``name`` matches any of ``globs`` (asked for every pod every round:
    answered once per name)."""
    return any(fnmatchcase(name, g) for g in globs)


def add(into: dict[str, int], extra: Mapping[str, int], sign: int = 1) -> dict[str, int]:
    for k, v in extra.items():
        into[k] = into.get(k, 0) + sign * v
    return into


def pod_requests(pod_spec: Mapping[str, Any]) -> Resources:
    """Effective requests of a pod spec: the sum over containers, at least the largest
    init container (the scheduler's rule, k8s resource helpers ``PodRequests``)."""
    total: Resources = {}
    for c in _containers(pod_spec, "containers"):
        add(total, _requests(c))
    for c in _containers(pod_spec, "initContainers"):
        for k, v in _requests(c).items():
            if v > total.get(k, 0):
                total[k] = v
    return total


def _containers(spec: Mapping[str, Any], key: str) -> Iterable[Mapping[str, Any]]:
    v = spec.get(key) if isinstance(spec, Mapping) else None
    return [c for c in v if isinstance(c, Mapping)] if isinstance(v, list) else []


def _requests(container: Mapping[str, Any]) -> Resources:
    res = container.get("resources")
    if not isinstance(res, Mapping):
        return {}
    req = res.get("requests")
    lim = res.get("limits")
    out: Resources = {}
    # A limit without a request defaults the request to the limit (API server defaulting).
    for src in (lim, req):
        if isinstance(src, Mapping):
            for k, v in src.items():
                try:
                    out[str(k)] = parse_quantity(v)
                except ValueError:
                    continue
    return out
