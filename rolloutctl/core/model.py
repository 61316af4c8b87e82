"""The shared vocabulary: object references, the read-only object view, and every
value a command produces (actions, steps, plans, findings; the comparisons, lint
reports, changes and impacts of ``core.results``, importable from here too).

Everything here is pure data. Renderers consume these types and nothing else;
``to_dict`` gives the JSON contract shape (camelCase keys, CONTRACT.md).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from .api_version import API_VERSION
from .records import field, record

#: what ``plan --compare``, ``lint`` and ``diff`` return lives in ``core.results`` (a plan
#: does not import it); these names are still importable from here
_RESULTS = frozenset({"ComparisonRow", "Comparison", "LintReport", "Change", "Impact", "EFFECTS", "ObjectDiff",
                      "Diff"})

# Stuck reasons of CONTRACT.md; kinds may add more specific codes (documented in docs/).
STUCK_INSUFFICIENT_CAPACITY = "InsufficientCapacity"
STUCK_NEVER_READY = "NeverReady"
STUCK_GANG_GATED = "GangGated"
STUCK_PROGRESS_DEADLINE = "ProgressDeadlineExceeded"
STUCK_MAX_STEPS = "MaxStepsExceeded"  # only when the user set --max-steps
#: the controller keeps acting but the world never settles: it came back to a state
#: it had been in (a loop), or it kept changing far beyond what its size explains
STUCK_NO_PROGRESS = "NoProgress"

VERBS = ("create", "delete", "update", "status")


@record(frozen=True, order=True)
class ObjectRef:
    """Identity of a Kubernetes object. Orders by (kind, namespace, name)."""

    kind: str
    namespace: str
    name: str
    api_version: str = field(default="", compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "apiVersion": self.api_version,
            "kind": self.kind,
            "namespace": self.namespace,
            "name": self.name,
        }

    @property
    def group(self) -> str:
        return self.api_version.split("/")[0] if "/" in self.api_version else ""

    def __str__(self) -> str:
        return f"{self.kind}/{self.namespace}/{self.name}"


class _FrozenEmpty(dict):
    """The shared empty mapping returned for absent fields (never to be written)."""

    def __setitem__(self, key: Any, value: Any) -> None:  # pragma: no cover - guard
        raise TypeError("read-only")


_EMPTY: Mapping[str, Any] = _FrozenEmpty()


def _no_get(key: str) -> None:
    """``get`` of a raw value that is not a mapping: nothing there."""
    return None


class Obj:
    """Read-only view of one Kubernetes object with the file and line it came from.

    The raw mapping is never mutated by the tool; models that need a changed copy
    build a new dict and a new ``Obj``. ``lines`` maps a field path (tuple of keys
    and list indices) to the line it starts on, when the loader knew it.
    """

    # ``kind``, ``name``, ``namespace``, ``labels``, ``spec``, ``status`` and
    # ``terminating`` are read millions of times in a large plan: plain attributes, set
    # once (the raw mapping never changes)
    __slots__ = ("raw", "file", "line", "lines", "cols", "_ref", "_md", "labels", "spec", "status", "_memo", "name",
                 "namespace", "kind", "terminating", "written", "_fn1", "_v1", "_fn2", "_v2")

    def __init__(
        self,
        raw: Mapping[str, Any],
        file: str = "",
        line: int = 0,
        lines: Mapping[tuple, int] | None = None,
        cols: Mapping[tuple, int] | None = None,
    ) -> None:
        self.raw = raw
        self.file = file
        self.line = line
        # (read-only; objects the planner builds share one empty mapping)
        self.lines = lines or _EMPTY
        #: the column (1-based) where the field at a path starts, when the loader knew it
        self.cols = cols or _EMPTY
        self._ref: ObjectRef | None = None
        if isinstance(raw, dict):
            get = raw.get
            md = get("metadata")
        else:
            get, md = getattr(raw, "get", _no_get), None
        if not isinstance(md, dict):
            md = _EMPTY
        self._md: Mapping[str, Any] = md
        mget = md.get
        v = mget("labels")
        self.labels: Mapping[str, str] = v if isinstance(v, dict) else _EMPTY
        v = get("spec")
        self.spec: Mapping[str, Any] = v if isinstance(v, dict) else _EMPTY
        v = get("status")
        self.status: Mapping[str, Any] = v if isinstance(v, dict) else _EMPTY
        self._memo: dict[str, Any] | None = None
        # ``derived``'s first two values (most objects have at most two: a pod's row and
        # requests) in place, the others in ``_memo``
        self._fn1: Callable[["Obj"], Any] | None = None
        self._fn2: Callable[["Obj"], Any] | None = None
        self.kind: str = str(get("kind") or "")
        self.name: str = str(mget("name") or "")
        self.namespace: str = str(mget("namespace") or "default")
        self.terminating: bool = bool(mget("deletionTimestamp"))
        #: the object as the user wrote it, when this one is its admitted form (``admit/``);
        #: rules that must tell a user-set value from a default read it
        self.written: Obj | None = None

    # identity ---------------------------------------------------------------
    @property
    def api_version(self) -> str:
        return str(self.raw.get("apiVersion") or "")

    @property
    def metadata(self) -> Mapping[str, Any]:
        return self._md

    @property
    def ref(self) -> ObjectRef:
        if self._ref is None:
            self._ref = ObjectRef(self.kind, self.namespace, self.name, self.api_version)
        return self._ref

    @property
    def memo(self) -> dict[str, Any]:
        """Per-object cache for values a model derives from this object's content
        alone (the raw mapping is never mutated, so they never go stale)."""
        m = self._memo
        if m is None:
            m = self._memo = {}
        return m

    def derived(self, fn: Callable[["Obj"], Any]) -> Any:
        """``fn(self)``, computed once per object: a plain function of the object's
        content (the raw mapping is never mutated, so the value never goes stale).
        Models derive per-object facts through this instead of keeping caches."""
        if self._fn1 is fn:
            return self._v1
        if self._fn2 is fn:
            return self._v2
        m = self._memo
        if m is not None and fn in m:
            return m[fn]
        v = fn(self)  # (``fn`` may derive other values of this object first)
        if self._fn1 is None:
            self._fn1, self._v1 = fn, v
        elif self._fn2 is None:
            self._fn2, self._v2 = fn, v
        else:
            if m is None:
                m = self._memo = {}
            m[fn] = v
        return v

    # content ----------------------------------------------------------------
    @property
    def annotations(self) -> Mapping[str, str]:
        v = self.metadata.get("annotations")
        return v if isinstance(v, dict) else {}

    @property
    def owner_references(self) -> list[Mapping[str, Any]]:
        v = self.metadata.get("ownerReferences")
        return [o for o in v if isinstance(o, dict)] if isinstance(v, list) else []

    def get(self, *path: Any, default: Any = None) -> Any:
        """Walk ``path`` (keys and list indices) through the raw object."""
        cur: Any = self.raw
        for p in path:
            if isinstance(p, int) and isinstance(cur, list):
                if p >= len(cur):
                    return default
                cur = cur[p]
            elif isinstance(cur, dict) and p in cur:
                cur = cur[p]
            else:
                return default
        return cur

    def line_of(self, *path: Any) -> int:
        """Best line for ``path``: the deepest known prefix, else the document line."""
        p = tuple(path)
        while p:
            if p in self.lines:
                return self.lines[p]
            p = p[:-1]
        return self.line

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Obj({self.ref}, {self.file}:{self.line})"


# --------------------------------------------------------------------------- plans


@record(frozen=True)
class Action:
    """One thing a controller does in one reconcile pass (CONTRACT.md ``Action``).

    ``payload`` is not part of the contract: it carries the object to create or the
    new content for an update so that ``World.apply`` can act on it.
    """

    verb: str
    kind: str
    name: str
    namespace: str
    reason: str
    rule: str
    index: int | None = None
    revision: str | None = None
    role: str | None = None
    fields: Mapping[str, Any] = field(default_factory=dict)
    payload: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)
    #: the object's name inside the model's world when ``name`` is a display name
    #: such as ``<prefix>-<random>``
    uid: str | None = field(default=None, compare=False)
    #: bookkeeping a controller does that users do not see as an action (child status
    #: writes, in-memory caches); applied to the world, never shown or counted
    hidden: bool = field(default=False, compare=False)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.kind, self.namespace, self.uid or self.name)

    def to_dict(self) -> dict[str, Any]:
        return {
            "verb": self.verb,
            "kind": self.kind,
            "name": self.name,
            "namespace": self.namespace,
            "index": self.index,
            "revision": self.revision,
            "role": self.role,
            "reason": self.reason,
            "rule": self.rule,
            "fields": dict(self.fields),
        }


@record(frozen=True)
class Stuck:
    reason: str
    message: str
    blocked_on: tuple[ObjectRef, ...] = ()
    remedies: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "reason": self.reason,
            "message": self.message,
            "blockedOn": [r.to_dict() for r in sorted(self.blocked_on)],
        }
        if self.remedies:
            d["remedies"] = list(self.remedies)
        return d


@record(frozen=True)
class Warning:
    code: str
    message: str
    path: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "path": self.path}


@record(frozen=True)
class Step:
    step: int
    title: str
    actions: tuple[Action, ...]
    wait_for: tuple[str, ...] = ()
    after: Mapping[str, Any] = field(default_factory=dict)
    time: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "title": self.title,
            "actions": [a.to_dict() for a in self.actions],
            "waitFor": list(self.wait_for),
            "after": dict(self.after),
            "time": self.time,
        }


@record(frozen=True)
class Phase:
    """Consecutive steps a person recognises as one thing ("replica 3: ...")."""

    title: str
    first_step: int
    last_step: int
    counts: Mapping[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"title": self.title, "firstStep": self.first_step, "lastStep": self.last_step,
                "counts": dict(self.counts)}


@record(frozen=True)
class Operator:
    """An operator whose behaviour a plan models: its version, the upstream commit the
    model follows, the feature gates in force, and the operator settings the user gave
    beyond the defaults (``config``: KubeRay's environment from ``--kuberay-env``, Grove's
    configuration from ``--grove-config``; shown only when there is one)."""

    name: str
    version: str
    commit: str
    feature_gates: Mapping[str, bool] = field(default_factory=dict)
    config: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = {"name": self.name, "version": self.version, "commit": self.commit,
               "featureGates": dict(sorted(self.feature_gates.items()))}
        if self.config:
            out["config"] = dict(sorted(self.config.items()))
        return out

    def __str__(self) -> str:
        def text(v: Any) -> str:
            return ("true" if v else "false") if isinstance(v, bool) else str(v)

        gates = ", ".join(f"{k}={text(v)}" for k, v in sorted(self.feature_gates.items()))
        config = ", ".join(f"{k}={text(v)}" for k, v in sorted(self.config.items()))
        return (f"{self.name} {self.version} @ {self.commit[:8]}" + (f" (feature gates: {gates})" if gates else "")
                + (f" (config: {config})" if config else ""))


@record(frozen=True)
class Plan:
    target: ObjectRef
    strategy: str
    outcome: str  # converged | noop | stuck
    steps: tuple[Step, ...]
    summary: Mapping[str, Any]
    stuck: Stuck | None = None
    warnings: tuple[Warning, ...] = ()
    phases: tuple[Phase, ...] = ()
    operators: tuple[Operator, ...] = ()
    #: the immediate reconcile pass (``rolloutctl next``), even when it only waits;
    #: ``None`` when the first pass finds nothing to do and the world cannot move
    first_pass: Step | None = field(default=None, compare=False, repr=False)
    #: whether this is a ``next`` view (``steps`` holds the immediate pass only)
    immediate: bool = field(default=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "apiVersion": API_VERSION,
            "kind": "Plan",
            "target": self.target.to_dict(),
            "strategy": self.strategy,
            "outcome": self.outcome,
            "stuck": self.stuck.to_dict() if self.stuck else None,
            "steps": [s.to_dict() for s in self.steps],
            "phases": [p.to_dict() for p in self.phases],
            "summary": dict(self.summary),
            "operators": [o.to_dict() for o in self.operators],
            "warnings": [w.to_dict() for w in self.warnings],
        }


# --------------------------------------------------------------------------- lint


@record(frozen=True)
class Finding:
    """A lint finding or an input problem, always with file and line."""

    rule: str
    severity: str  # error | warning
    file: str
    line: int
    message: str
    path: str = ""
    object: ObjectRef | None = None
    #: 1-based column of the field, 0 when the loader did not know it
    col: int = 0

    def sort_key(self) -> tuple:
        """A total order: findings that tie on file, line, rule, path and message (the
        same check reported for a desired object and for a live one read from the same
        place, one with a column and one without) still sort the same on every run;
        callers deduplicate through sets, whose order follows the hash seed."""
        ref = self.object
        return (self.file, self.line, self.rule, self.path, self.message, self.col, self.severity,
                (ref.kind, ref.namespace, ref.name, ref.api_version) if ref else ())

    def to_dict(self) -> dict[str, Any]:
        d = {
            "rule": self.rule,
            "severity": self.severity,
            "file": self.file,
            "line": self.line,
            "object": self.object.to_dict() if self.object else None,
            "path": self.path,
            "message": self.message,
        }
        if self.col:
            d["col"] = self.col
        return d


def __getattr__(name: str) -> Any:
    """``core.results``' names, imported on first use (start-up: a plan needs none)."""
    if name in _RESULTS:
        from . import results

        return getattr(results, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def sorted_refs(refs: Iterable[ObjectRef]) -> tuple[ObjectRef, ...]:
    return tuple(sorted(set(refs)))


def describe_actions(actions: Iterable[Action]) -> str:
    """A one-line title: verbs and kinds counted in first-seen order,
    e.g. ``create 2 PodCliques, 1 PodGang; delete 1 Pod``. Updates and status writes
    count objects (one object written in several passes is one); creations and
    deletions count actions (generated names repeat as ``<random>``)."""
    order: list[str] = []
    counts: dict[str, dict[str, int]] = {}
    seen: set[tuple[str, str, str, str]] = set()
    for a in actions:
        if a.verb not in counts:
            counts[a.verb] = {}
            order.append(a.verb)
        if a.verb in ("update", "status"):
            key = (a.verb, a.kind, a.namespace, a.uid or a.name)
            if key in seen:
                continue
            seen.add(key)
        counts[a.verb][a.kind] = counts[a.verb].get(a.kind, 0) + 1
    parts = []
    for verb in order:
        kinds = ", ".join(f"{n} {_plural(k, n)}" for k, n in counts[verb].items())
        parts.append(f"{'write status of' if verb == 'status' else verb} {kinds}")
    return "; ".join(parts)


def _plural(kind: str, n: int) -> str:
    if n == 1:
        return kind
    if kind.endswith("s"):
        return kind + "es"
    if kind.endswith("y") and kind[-2:-1] not in "aeiou":
        return kind[:-1] + "ies"
    return kind + "s"
