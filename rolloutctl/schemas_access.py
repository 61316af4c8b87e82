"""Access to the bundled JSON Schemas (``schemas/`` at the repository root, shipped
inside the package as ``rolloutctl.schemas``)."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any


def _path(name: str) -> Path | None:
    fname = f"{name}.schema.json"
    try:
        p = resources.files("rolloutctl.schemas").joinpath(fname)
        if p.is_file():
            return Path(str(p))
    except (ModuleNotFoundError, FileNotFoundError):
        pass
    local = Path(__file__).resolve().parent.parent / "schemas" / fname
    return local if local.is_file() else None


def schema_text(name: str) -> str | None:
    p = _path(name)
    return p.read_text(encoding="utf-8") if p else None


@lru_cache(maxsize=None)
def schema(name: str) -> dict[str, Any]:
    text = schema_text(name)
    if text is None:
        raise FileNotFoundError(f"schema {name!r} is not bundled")
    return json.loads(text)
