"""Shared presentation of comparison rows (display only, no computation)."""

from __future__ import annotations

from typing import Sequence

from ..core.model import Comparison, ComparisonRow
from .plan_common import shown_quantity


def resources(c: Comparison) -> list[str]:
    """Every resource some row reports a peak for, in name order."""
    return sorted({r for row in c.rows for r in row.peak})


def header(c: Comparison) -> list[str]:
    return ["Strategy", "Outcome", "Steps", "Min ready pods", "Peak pods"] + [f"Peak {r}" for r in resources(c)] + ["Stuck"]


#: after the strategy of the row that is the manifest's own
OWN_MARK = " (manifest)"


def strategy_cell(c: Comparison, row: ComparisonRow) -> str:
    return row.strategy + (OWN_MARK if row.strategy == c.own_strategy else "")


def cells(c: Comparison, row: ComparisonRow) -> list[str]:
    return [strategy_cell(c, row), row.outcome, str(row.steps), str(row.min_ready_pods), str(row.peak_pods)] + \
        [shown_quantity(row.peak[r]) if r in row.peak else "—" for r in resources(c)] + [row.stuck.reason if row.stuck else "—"]


def title(c: Comparison) -> str:
    t = c.target
    return f"{t.kind} {t.namespace}/{t.name} · the same change under each update strategy"


def stuck_rows(c: Comparison) -> Sequence[ComparisonRow]:
    return [r for r in c.rows if r.stuck is not None]
