"""Masking sensitive values in a diff, as ``kubectl diff`` does: every value under a
Secret's ``data``/``stringData`` and the ``value`` of environment variables whose name
looks like a credential read ``***`` (``*** (before)``/``*** (after)`` for a replaced
one), while the change itself is still reported. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .model import Change
from .paths import Key

MASK = "***"
MASK_BEFORE = "*** (before)"
MASK_AFTER = "*** (after)"
_SENSITIVE_ENV = re.compile(r"TOKEN|PASSWORD|PASSWD|SECRET|CREDENTIAL|PRIVATE_KEY|API_KEY|ACCESS_KEY", re.I)


def is_secret(raw: Mapping[str, Any]) -> bool:
    return raw.get("kind") == "Secret" and raw.get("apiVersion") == "v1"


def _sensitive_env(name: Any) -> bool:
    return isinstance(name, str) and bool(_SENSITIVE_ENV.search(name))


def _mask_tree(v: Any, secret_data: bool = False) -> Any:
    """Mask every value under a Secret's data, and the ``value`` of sensitive env vars."""
    if secret_data:
        if isinstance(v, dict):
            return {k: MASK for k in v}
        return MASK
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if k == "env" and isinstance(x, list):
                out[k] = [{**e, "value": MASK} if isinstance(e, dict) and _sensitive_env(e.get("name")) and "value" in e
                          else _mask_tree(e) for e in x]
            else:
                out[k] = _mask_tree(x)
        return out
    if isinstance(v, list):
        return [_mask_tree(x) for x in v]
    return v


def _masked_place(segments: Sequence[Any], secret: bool) -> bool | None:
    """True when the path is at or below a masked value; None when the path is a
    parent that may contain masked values."""
    if secret and segments and segments[0] in ("data", "stringData"):
        return True
    for i, s in enumerate(segments):
        if s == "env" and i + 1 < len(segments):
            nxt = segments[i + 1]
            if isinstance(nxt, Key) and nxt.field == "name" and _sensitive_env(nxt.value):
                rest = segments[i + 2:]
                if not rest or rest[0] == "value":
                    return True
    return None


def mask_change(c: Change, segments: Sequence[Any], secret: bool) -> Change:
    place = _masked_place(segments, secret)
    if place:
        if len(segments) == 1 and secret:  # the whole data map
            old = _mask_tree(c.old, True) if c.old is not None else None
            new = _mask_tree(c.new, True) if c.new is not None else None
        elif _env_item(segments):  # a whole env var: mask only its value
            old, new = _mask_env_item(c.old), _mask_env_item(c.new)
        else:
            old = None if c.old is None else (MASK_BEFORE if c.op == "replace" else MASK)
            new = None if c.new is None else (MASK_AFTER if c.op == "replace" else MASK)
        return Change(c.path, c.op, old, new, c.file, c.line)
    if secret and not segments:
        return c
    return Change(c.path, c.op, _mask_tree(c.old), _mask_tree(c.new), c.file, c.line)


def _env_item(segments: Sequence[Any]) -> bool:
    return len(segments) >= 2 and segments[-2] == "env" and isinstance(segments[-1], Key)


def _mask_env_item(v: Any) -> Any:
    if isinstance(v, dict) and "value" in v:
        return {**v, "value": MASK}
    return v
