"""Access to the bundled JSON Schemas (``schemas/`` at the repository root, shipped
inside the package as ``rolloutctl.schemas``)."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any


def _path(name: str) -> Path | None:
    fname = f"{name}.schema.json"
    here = Path(__file__).resolve().parent
    # the package's own directory (an installed wheel), then the checkout's schemas/
    for p in (here / "schemas" / fname, here.parent / "schemas" / fname):
        if p.is_file():
            return p
    try:  # a package that is not a directory (a zip): importlib.resources (costly to import)
        from importlib import resources

        r = resources.files("rolloutctl.schemas").joinpath(fname)
        if r.is_file():
            return Path(str(r))
    except (ModuleNotFoundError, FileNotFoundError):
        pass
    return None


def schema_text(name: str) -> str | None:
    p = _path(name)
    return p.read_text(encoding="utf-8") if p else None


@lru_cache(maxsize=None)
def schema(name: str) -> dict[str, Any]:
    text = schema_text(name)
    if text is None:
        raise FileNotFoundError(f"schema {name!r} is not bundled")
    return json.loads(text)
