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
    #: the resources of ``capacity`` the user named (``--capacity RESOURCE=QTY``), not read
    #: from a cluster: a plan says when one of them bounds nothing
    stated: tuple[str, ...] = ()
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


def scheduling_gates(pod_spec: Any) -> tuple[str, ...]:
    """The names in a pod spec's ``schedulingGates``. kube-scheduler does not schedule a
    Pod that has any (the SchedulingGates plugin's PreEnqueue,
    ``pkg/scheduler/framework/plugins/schedulinggates``) until a controller removes them
    all; the gates a manifest writes are its own, which no operator modelled here removes."""
    gates = pod_spec.get("schedulingGates") if isinstance(pod_spec, Mapping) else None
    if not isinstance(gates, list):
        return ()
    return tuple(str(g["name"]) for g in gates if isinstance(g, Mapping) and g.get("name"))


def pod_requests(pod_spec: Mapping[str, Any]) -> Resources:
    """Effective requests of a pod spec, as the scheduler counts them
    (``k8s.io/component-helpers/resource/helpers.go#PodRequests``):

    - ``AggregateContainerRequests``: the sum over containers, plus every restartable init
      container (a sidecar, ``restartPolicy: Always``), which runs beside them; at least the
      largest ordinary init container together with the sidecars started before it;
    - pod-level ``resources.requests`` (``PodLevelResources``, beta and on by default since
      Kubernetes 1.34) replace the aggregate for the resources they name (cpu, memory,
      hugepages, as ``IsSupportedPodLevelResource``);
    - ``overhead`` (the RuntimeClass's, as admission sets it) is added.

    A limit without a request counts as the request (API server defaulting)."""
    total: Resources = {}
    for c in _containers(pod_spec, "containers"):
        add(total, _requests(c))
    sidecars: Resources = {}
    init: Resources = {}
    for c in _containers(pod_spec, "initContainers"):
        req = _requests(c)
        if c.get("restartPolicy") == "Always":
            add(total, req)
            add(sidecars, req)
            req = sidecars
        else:
            req = add(dict(req), sidecars)
        for k, v in req.items():
            if v > init.get(k, 0):
                init[k] = v
    for k, v in init.items():
        if v > total.get(k, 0):
            total[k] = v
    if isinstance(pod_spec, Mapping):
        pod_level = _requests(pod_spec)
        for k, v in pod_level.items():
            if k in ("cpu", "memory") or k.startswith("hugepages-"):
                total[k] = v
        overhead = pod_spec.get("overhead")
        if isinstance(overhead, Mapping):
            add(total, _quantities(overhead))
    return total


def _containers(spec: Mapping[str, Any], key: str) -> Iterable[Mapping[str, Any]]:
    v = spec.get(key) if isinstance(spec, Mapping) else None
    return [c for c in v if isinstance(c, Mapping)] if isinstance(v, list) else []


def _requests(container: Mapping[str, Any]) -> Resources:
    res = container.get("resources")
    if not isinstance(res, Mapping):
        return {}
    out: Resources = {}
    # A limit without a request defaults the request to the limit (API server defaulting).
    for src in (res.get("limits"), res.get("requests")):
        if isinstance(src, Mapping):
            out.update(_quantities(src))
    return out


def _quantities(src: Mapping[str, Any]) -> Resources:
    out: Resources = {}
    for k, v in src.items():
        try:
            out[str(k)] = parse_quantity(v)
        except ValueError:
            continue
    return out
