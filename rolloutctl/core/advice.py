"""The vocabulary of ``rolloutctl advise``: the candidate spaces a kind offers (which
strategies, which budget fields, which values), and the ``Advice`` document the
search produces (CONTRACT.md ``kind: Advice``).

A kind describes its spaces with ``StrategySpace`` (``kinds/<operator>/advise.py``);
the search (``rolloutctl/advise/``) plans candidates with the kind's own model and
knows no operator. Pure data; ``to_dict`` gives the JSON contract shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable

from .model import API_VERSION, Obj, ObjectRef, Stuck, Warning
from .records import field, record

#: roles of a budget dimension; the search prunes with the monotonicity of these
#: two (more surge never lowers peak use, more unavailability never raises min-ready)
SURGE = "surge"
UNAVAILABLE = "unavailable"
OTHER = "other"

UNSET = None  # a dimension value meaning "leave the field unset" (the operator's default)


@record(frozen=True)
class Dimension:
    """One field the search sets. ``values`` are ascending in budget (``None`` = unset,
    which ranks lowest); ``label`` is the patch path a person reads."""

    key: str
    label: str
    role: str
    values: tuple[Any, ...]
    #: dimensions of one component share a group: a surge and an unavailability budget
    #: of the same group must not both be 0
    group: str = ""
    #: where the local search starts (the operator's or the design's default); None:
    #: the first value
    start: Any = None


@record(frozen=True)
class Built:
    """A candidate: the manifest to plan and the patch that turns the user's manifest
    into it (the ``updateStrategy`` / ``upgradeStrategy`` fields to set)."""

    manifest: Obj
    patch: Mapping[str, Any]
    #: fields the patch sets to something other than the operator's default (ties: fewer wins)
    complexity: int


@record(frozen=True)
class StrategySpace:
    """The candidates of one strategy: the product of ``dimensions`` (minus what
    ``allowed`` refuses), each turned into a manifest by ``build``. A strategy the
    change cannot use at all has ``unusable`` set (reason, message) and no candidates."""

    strategy: str
    proposed: bool
    dimensions: tuple[Dimension, ...]
    build: Callable[[Mapping[str, Any]], Built] = field(compare=False)
    allowed: Callable[[Mapping[str, Any]], bool] = field(default=lambda values: True, compare=False)
    unusable: tuple[str, str] | None = None
    note: str = ""


@record(frozen=True)
class StepPoint:
    """One step of a candidate's plan as the charts draw it: its number and the
    metrics after it (``Step.after``)."""

    step: int
    after: Mapping[str, Any]


@record(frozen=True)
class Trace:
    """What ``-o html`` draws of a candidate's plan: its steps' numbers and metrics. The
    search keeps this, not the Plan: hundreds of candidates of a large PodCliqueSet would
    otherwise keep every action of every plan alive until the end."""

    steps: tuple[StepPoint, ...]

    @staticmethod
    def of(plan: Any) -> "Trace":
        return Trace(tuple(StepPoint(s.step, s.after) for s in plan.steps))


@record(frozen=True)
class Candidate:
    """One planned candidate and how it did against the constraints."""

    strategy: str
    proposed: bool
    patch: Mapping[str, Any]
    values: Mapping[str, Any]
    outcome: str
    stuck: Stuck | None
    steps: int
    min_ready_pods: int
    peak_pods: int
    peak: Mapping[str, str]
    time: int | None
    complexity: int
    #: why it fails the constraints (None: it meets them)
    violation: tuple[str, str] | None = None
    #: the candidate's steps (``Trace``, for the charts of ``-o html``; not part of the JSON)
    plan: Trace | None = field(default=None, compare=False, repr=False)

    @property
    def feasible(self) -> bool:
        return self.violation is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "proposed": self.proposed,
            "patch": _plain(self.patch),
            "steps": self.steps,
            "minReadyPods": self.min_ready_pods,
            "peakPods": self.peak_pods,
            "peak": dict(self.peak),
            "time": self.time,
        }


@record(frozen=True)
class Rejection:
    strategy: str
    proposed: bool
    reason: str
    message: str
    #: the best candidate of the strategy, when one was planned
    best: Candidate | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"strategy": self.strategy, "proposed": self.proposed, "reason": self.reason,
                             "message": self.message}
        d["candidate"] = self.best.to_dict() if self.best is not None else None
        return d


@record(frozen=True)
class GridInfo:
    """What the search covered, per strategy."""

    strategy: str
    dimensions: tuple[tuple[str, tuple[Any, ...]], ...]
    size: int
    planned: int
    pruned: int
    skipped: int

    def to_dict(self) -> dict[str, Any]:
        return {"strategy": self.strategy,
                "dimensions": [{"field": k, "values": [_value(v) for v in vs]} for k, vs in self.dimensions],
                "size": self.size, "planned": self.planned, "pruned": self.pruned, "notPlanned": self.skipped}


@record(frozen=True)
class Advice:
    target: ObjectRef
    capacity: Mapping[str, str]
    min_ready: int | str
    min_ready_pods: int | None  # the floor in pods (None: the kind's default floor)
    objective: str
    peak_resource: str
    searched: int
    optimal: bool
    recommendation: Candidate | None
    frontier: tuple[Candidate, ...]
    rejected: tuple[Rejection, ...]
    grid: tuple[GridInfo, ...] = ()
    warnings: tuple[Warning, ...] = ()
    #: the manifest as given, planned the same way (for reference)
    current: Candidate | None = None
    #: the kind's default floor in words (used when ``min_ready_pods`` is None)
    floor: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "apiVersion": API_VERSION,
            "kind": "Advice",
            "target": self.target.to_dict(),
            "constraints": {"capacity": dict(self.capacity), "minReady": self.min_ready,
                            "minReadyPods": self.min_ready_pods, "floor": self.floor},
            "objective": self.objective,
            "peakResource": self.peak_resource,
            "searched": self.searched,
            "optimal": self.optimal,
            "recommendation": self.recommendation.to_dict() if self.recommendation is not None else None,
            "frontier": [c.to_dict() for c in self.frontier],
            "rejected": [r.to_dict() for r in self.rejected],
            "current": self.current.to_dict() if self.current is not None else None,
            "grid": [g.to_dict() for g in self.grid],
            "warnings": [w.to_dict() for w in self.warnings],
        }


def _value(v: Any) -> Any:
    return "unset" if v is None else v


def _plain(v: Any) -> Any:
    if isinstance(v, Mapping):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def apply_patch(manifest: Mapping[str, Any], patch: Mapping[str, Any]) -> dict[str, Any]:
    """``manifest`` with an advice ``patch`` merged in, as docs/advise.md describes it:
    mappings merge key by key, ``null`` removes a key, and a list of named items
    (cliques, scaling groups) merges item by item on ``name``."""
    import copy

    def merge(base: Any, p: Any) -> Any:
        if isinstance(p, Mapping) and isinstance(base, Mapping):
            out = {k: copy.deepcopy(v) for k, v in base.items()}
            for k, v in p.items():
                if v is None:
                    out.pop(k, None)
                else:
                    out[k] = merge(out.get(k), v)
            return out
        if isinstance(p, list) and isinstance(base, list) and all(isinstance(x, Mapping) and "name" in x for x in p):
            out_l = [copy.deepcopy(x) for x in base]
            for item in p:
                idx = next((i for i, x in enumerate(out_l) if isinstance(x, Mapping) and x.get("name") == item["name"]),
                           None)
                if idx is None:
                    out_l.append(merge({}, item))
                else:
                    out_l[idx] = merge(out_l[idx], item)
            return out_l
        if isinstance(p, Mapping):
            return merge({}, p)
        return copy.deepcopy(p)

    return merge(dict(manifest), dict(patch))
