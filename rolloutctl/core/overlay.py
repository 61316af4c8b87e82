"""A mapping derived from another by a few edits, sharing the rest: how a world's
label indexes and the kinds' views (``World.derived``) change from one world to the
next without copying what did not change."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from math import isqrt
from typing import Any

#: a missing entry (``None`` is a value: a dropped group)
ABSENT = object()


class Overlay(Mapping):
    """An ``index`` view derived from an ancestor's: the ancestor's groups (shared,
    never changed) plus this view's own edits, iterating exactly as a copy of the
    ancestor's dict with the same edits made would (a replaced group keeps its
    place; a new or re-added group comes last; a dropped one is gone). Folded into a
    plain dict when the edits grow past ``delta_limit`` of the groups."""

    __slots__ = ("_base", "_repl", "_tail", "_n")

    def __init__(self, base: Mapping, repl: dict, tail: dict, n: int) -> None:
        self._base, self._repl, self._tail, self._n = base, repl, tail, n

    @classmethod
    def over(cls, view: Mapping) -> "Overlay":
        """A view to edit, starting from ``view`` (a dict or another ``Overlay``)."""
        if isinstance(view, Overlay):
            return cls(view._base, dict(view._repl), dict(view._tail), view._n)
        return cls(view, {}, {}, len(view))

    # editing (only while the view is being derived) ---------------------------
    def put(self, v: str, group: Any) -> None:
        tail = self._tail
        if v in tail:
            tail[v] = group
        elif v in self._base and self._repl.get(v, ABSENT) is not None:
            self._repl[v] = group
        else:
            tail[v] = group
            self._n += 1

    def drop(self, v: str) -> None:
        if v in self._tail:
            del self._tail[v]
            self._n -= 1
        elif v in self._base and self._repl.get(v, ABSENT) is not None:
            self._repl[v] = None
            self._n -= 1

    def settled(self) -> "Mapping":
        if len(self._repl) + len(self._tail) > delta_limit(len(self._base)):
            return dict(self.items())
        return self

    # reading ------------------------------------------------------------------
    def get(self, v: Any, default: Any = None) -> Any:
        got = self._tail.get(v, ABSENT)
        if got is not ABSENT:
            return got
        got = self._repl.get(v, ABSENT)
        if got is ABSENT:
            return self._base.get(v, default)
        return default if got is None else got

    def __getitem__(self, v: Any) -> Any:
        got = self.get(v, ABSENT)
        if got is ABSENT:
            raise KeyError(v)
        return got

    def __contains__(self, v: object) -> bool:
        return self.get(v, ABSENT) is not ABSENT

    def __len__(self) -> int:
        return self._n

    def __iter__(self) -> Iterator[str]:
        repl = self._repl
        for v in self._base:
            if repl.get(v, ABSENT) is not None:
                yield v
        yield from self._tail

    def items(self) -> Any:  # type: ignore[override]
        return list(self._items())

    def _items(self) -> Iterator[tuple[str, Any]]:
        repl = self._repl
        for v, group in self._base.items():
            got = repl.get(v, ABSENT)
            if got is ABSENT:
                yield v, group
            elif got is not None:
                yield v, got
        yield from self._tail.items()

    def values(self) -> Any:  # type: ignore[override]
        return [g for _v, g in self._items()]



def delta_limit(n: int) -> int:
    """How many entries a world's delta may hold before it is folded into a new base:
    about the square root of the base, so copying a delta and the amortised share of
    a fold both stay small."""
    return 32 + 2 * isqrt(n)
