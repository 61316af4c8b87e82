"""Comparisons as JSON or YAML documents (CONTRACT.md ``Comparison``)."""

from __future__ import annotations

from typing import Any, Sequence

from ..core.model import API_VERSION, Comparison


def document(comparisons: Sequence[Comparison]) -> dict[str, Any]:
    """One Comparison as itself; several as a ``ComparisonList``."""
    if len(comparisons) == 1:
        return comparisons[0].to_dict()
    return {"apiVersion": API_VERSION, "kind": "ComparisonList", "items": [c.to_dict() for c in comparisons]}


def render(comparisons: Sequence[Comparison], fmt: str) -> str:
    from .data import to_json, to_yaml

    doc = document(comparisons)
    return to_json(doc) if fmt == "json" else to_yaml(doc)
