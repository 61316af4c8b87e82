"""The observed world: objects indexed by (kind, namespace, name), a clock, and the
controllers' memory. Worlds are values: ``apply`` returns a new world and never
changes the old one.
"""

from __future__ import annotations

import copy
from typing import Any, Iterable, Iterator, Mapping

from .model import Action, Obj

Key = tuple[str, str, str]

TERMINATING = "rolloutctl-simulated"


def key_of(obj: Obj) -> Key:
    return (obj.kind, obj.namespace, obj.name)


class World:
    """An immutable snapshot of the objects a plan cares about.

    - ``objects``: every object by key.
    - ``now``: seconds since the plan began (the model clock).
    - ``memory``: controller memory that is not stored in objects (caches, timers),
      a mapping the kind models own; values must be immutable.
    """

    __slots__ = ("_objects", "now", "memory", "_by_kind", "_index")

    def __init__(
        self,
        objects: Mapping[Key, Obj] | Iterable[Obj] = (),
        now: int = 0,
        memory: Mapping[str, Any] | None = None,
    ) -> None:
        if isinstance(objects, Mapping):
            self._objects: dict[Key, Obj] = dict(objects)
        else:
            self._objects = {key_of(o): o for o in objects}
        self.now = now
        self.memory: Mapping[str, Any] = dict(memory or {})
        self._by_kind: dict[str, list[Obj]] | None = None
        self._index: dict[tuple[str, str], dict[str, list[Obj]]] = {}

    # reading -----------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._objects)

    def __iter__(self) -> Iterator[Obj]:
        return iter(self._objects.values())

    def __contains__(self, key: Key) -> bool:
        return key in self._objects

    def get(self, kind: str, namespace: str, name: str) -> Obj | None:
        return self._objects.get((kind, namespace, name))

    def of_kind(self, kind: str) -> list[Obj]:
        """Objects of ``kind`` in key order (deterministic)."""
        if self._by_kind is None:
            idx: dict[str, list[Obj]] = {}
            for k in sorted(self._objects):
                idx.setdefault(k[0], []).append(self._objects[k])
            self._by_kind = idx
        return self._by_kind.get(kind, [])

    def index(self, kind: str, label: str) -> dict[str, list[Obj]]:
        """Objects of ``kind`` grouped by the value of ``label`` (cached per world)."""
        k = (kind, label)
        idx = self._index.get(k)
        if idx is None:
            idx = {}
            for o in self.of_kind(kind):
                v = o.labels.get(label)
                if v is not None:
                    idx.setdefault(v, []).append(o)
            self._index[k] = idx
        return idx

    def select(self, kind: str, labels: Mapping[str, str]) -> list[Obj]:
        return [o for o in self.of_kind(kind) if all(o.labels.get(k) == v for k, v in labels.items())]

    def keys(self) -> list[Key]:
        return sorted(self._objects)

    # changing ----------------------------------------------------------------
    def replace(
        self,
        put: Iterable[Obj] = (),
        remove: Iterable[Key] = (),
        now: int | None = None,
        memory: Mapping[str, Any] | None = None,
    ) -> "World":
        objs = dict(self._objects)
        for k in remove:
            objs.pop(k, None)
        for o in put:
            objs[key_of(o)] = o
        return World(objs, self.now if now is None else now, self.memory if memory is None else memory)

    def with_memory(self, **updates: Any) -> "World":
        mem = dict(self.memory)
        mem.update(updates)
        return World(self._objects, self.now, mem)

    def apply(self, actions: Iterable[Action]) -> "World":
        """The world after the API server accepted ``actions`` (in order).

        create/update put the action's payload; delete marks the object terminating
        (the environment finishes the deletion); status merges ``fields`` (or the
        payload's status) into the object's status.
        """
        objs = dict(self._objects)
        for a in actions:
            k = (a.kind, a.namespace, a.uid or a.name)
            if a.verb in ("create", "update"):
                if a.payload is not None:
                    objs[k] = Obj(a.payload)
            elif a.verb == "delete":
                cur = objs.get(k)
                if cur is not None and not cur.terminating:
                    objs[k] = mark_terminating(cur)
            elif a.verb == "status":
                cur = objs.get(k)
                if cur is not None:
                    if a.payload is not None:
                        objs[k] = Obj(a.payload, cur.file, cur.line, cur.lines)
                    elif a.fields:
                        raw = dict(cur.raw)
                        st = dict(raw.get("status") or {})
                        st.update(a.fields)
                        raw["status"] = st
                        objs[k] = Obj(raw, cur.file, cur.line, cur.lines)
        return World(objs, self.now, self.memory)


def mark_terminating(obj: Obj) -> Obj:
    raw = dict(obj.raw)
    md = dict(raw.get("metadata") or {})
    md["deletionTimestamp"] = TERMINATING
    raw["metadata"] = md
    return Obj(raw, obj.file, obj.line, obj.lines)


def deep_copy(raw: Mapping[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(dict(raw))
