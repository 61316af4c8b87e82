"""The compiled schema validator lives in ``admit/validator.py`` (admission owns the schemas)."""

from __future__ import annotations

from ..admit.validator import SUPPORTED, Compiled, SchemaError

__all__ = ["SUPPORTED", "Compiled", "SchemaError"]
