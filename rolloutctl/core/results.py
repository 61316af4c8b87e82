"""What ``plan --compare``, ``lint`` and ``diff`` return: comparison rows, lint
reports, changes, impacts and object diffs. ``core.model`` re-exports every name
(imported on first use: a plan needs none of them, and start-up matters).

Pure data; ``to_dict`` gives the JSON contract shape (camelCase keys, CONTRACT.md).
"""

from __future__ import annotations

from typing import Any, Mapping

from .api_version import API_VERSION
from .effects import EFFECTS  # noqa: F401 - core.model hands it out with the other results
from .records import field, record

# The annotations name core.model's ObjectRef, Stuck, Warning, Plan and Finding as strings:
# core.model imports this module on first use, so this one does not import it back.


@record(frozen=True)
class ComparisonRow:
    strategy: str
    outcome: str
    stuck: Stuck | None
    steps: int
    min_ready_pods: int
    peak_pods: int
    peak: Mapping[str, str]
    #: the plans behind the row, in order (a strategy may take several), for charts;
    #: not part of the JSON contract
    plans: tuple["Plan", ...] = field(default=(), compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "outcome": self.outcome,
            "stuck": self.stuck.to_dict() if self.stuck else None,
            "steps": self.steps,
            "minReadyPods": self.min_ready_pods,
            "peakPods": self.peak_pods,
            "peak": dict(self.peak),
        }


@record(frozen=True)
class Comparison:
    target: ObjectRef
    rows: tuple[ComparisonRow, ...]
    warnings: tuple[Warning, ...] = ()
    #: the strategy the manifest itself is in force with (the row views mark); not part
    #: of the JSON contract
    own_strategy: str = field(default="", compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "apiVersion": API_VERSION,
            "kind": "Comparison",
            "target": self.target.to_dict(),
            "rows": [r.to_dict() for r in self.rows],
            "warnings": [w.to_dict() for w in self.warnings],
        }


# --------------------------------------------------------------------------- lint


@record(frozen=True)
class LintReport:
    files: int
    objects: int
    findings: tuple[Finding, ...]
    #: findings left out by the repository configuration's ``ignore:`` entries
    ignored: int = 0
    #: findings left out because the ``--baseline`` report already had them
    baselined: int = 0
    #: the kinds of the objects no rule checks (skipped; ``--strict`` reports them, IN002)
    skipped_kinds: tuple[str, ...] = field(default=(), compare=False)

    def to_dict(self) -> dict[str, Any]:
        errors = sum(1 for f in self.findings if f.severity == "error")
        summary: dict[str, int] = {"errors": errors, "warnings": len(self.findings) - errors}
        if self.ignored:
            summary["ignored"] = self.ignored
        if self.baselined:
            summary["baselined"] = self.baselined
        return {
            "apiVersion": API_VERSION,
            "kind": "LintReport",
            "files": self.files,
            "objects": self.objects,
            "findings": [f.to_dict() for f in self.findings],
            "summary": summary,
        }


# --------------------------------------------------------------------------- diff


@record(frozen=True)
class Change:
    path: str
    op: str  # add | remove | replace
    old: Any = None
    new: Any = None
    file: str = ""
    line: int = 0

    def to_dict(self) -> dict[str, Any]:
        d = {"path": self.path, "op": self.op, "old": self.old, "new": self.new}
        if self.file:
            d["file"] = self.file
            d["line"] = self.line
        return d


@record(frozen=True)
class Impact:
    effect: str  # none | in-place | scale | rollout | recreate | teardown | ignored | rejected
    message: str
    paths: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"effect": self.effect, "message": self.message, "paths": list(self.paths)}


@record(frozen=True)
class ObjectDiff:
    target: ObjectRef
    status: str  # added | removed | changed | unchanged
    changes: tuple[Change, ...] = ()
    impact: tuple[Impact, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target.to_dict(),
            "status": self.status,
            "changes": [c.to_dict() for c in self.changes],
            "impact": [i.to_dict() for i in self.impact],
        }


@record(frozen=True)
class Diff:
    objects: tuple[ObjectDiff, ...]
    #: changes left out by the repository configuration's ``ignore:`` entries
    ignored: int = 0

    def to_dict(self) -> dict[str, Any]:
        counts = {"added": 0, "removed": 0, "changed": 0, "unchanged": 0}
        for o in self.objects:
            counts[o.status] += 1
        if self.ignored:
            counts["ignored"] = self.ignored
        return {
            "apiVersion": API_VERSION,
            "kind": "Diff",
            "objects": [o.to_dict() for o in self.objects],
            "summary": counts,
        }
