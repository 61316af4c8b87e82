"""Field paths for lint findings: the one implementation lives in ``core/paths.py``."""

from __future__ import annotations

from ..core.paths import LIST_KEYS, field_path

__all__ = ["LIST_KEYS", "field_path"]
