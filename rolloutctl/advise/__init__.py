"""``rolloutctl advise``: the best update strategy and budgets for a change, found by
planning candidates with the kind's own model (``search``)."""

from __future__ import annotations

from .search import OBJECTIVES, Floor, Search, parse_min_ready, peak_resource

__all__ = ["OBJECTIVES", "Floor", "Search", "parse_min_ready", "peak_resource"]
