"""The schema rules live in ``admit/schema.py``: admission checks every object
against its kind's schema before ``lint`` (or any model) sees it."""

from __future__ import annotations

from ..admit.schema import (BAD_VALUE, REQUIRED_FIELD, UNKNOWN_FIELD, UNSERVED_VERSION, WRONG_TYPE,
                            check_schema, iter_property_names, load_schema)

__all__ = ["BAD_VALUE", "REQUIRED_FIELD", "UNKNOWN_FIELD", "UNSERVED_VERSION", "WRONG_TYPE", "check_schema",
           "iter_property_names", "load_schema"]
