"""The observed world: objects indexed by (kind, namespace, name), a clock, and the
controllers' memory. Worlds are values: ``apply`` returns a new world and never
changes the old one.
"""

from __future__ import annotations

import copy
from bisect import bisect_left
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

    Views (``of_kind``, ``index``) are computed lazily and, for a world made by
    ``apply``/``replace``, derived from the previous world's views by patching only
    what changed, so a plan's cost grows with what changes, not with the world's
    size. A group list of ``index`` that did not change is the very same list object
    as in the previous world, which lets models memoize per group.
    """

    __slots__ = ("_objects", "now", "memory", "_kinds", "_keys", "_index", "_inherit")

    def __init__(
        self,
        objects: Mapping[Key, Obj] | Iterable[Obj] = (),
        now: int = 0,
        memory: Mapping[str, Any] | None = None,
        _inherit: "tuple[dict, dict, dict, dict[Key, tuple[Obj | None, Obj | None]]] | None" = None,
    ) -> None:
        if isinstance(objects, dict) and _inherit is not None:
            self._objects: dict[Key, Obj] = objects
        elif isinstance(objects, Mapping):
            self._objects = dict(objects)
        else:
            self._objects = {key_of(o): o for o in objects}
        self.now = now
        self.memory: Mapping[str, Any] = memory if isinstance(memory, dict) and _inherit is not None else dict(memory or {})
        self._kinds: dict[str, list[Obj]] = {}
        self._keys: dict[str, list[Key]] = {}
        self._index: dict[tuple[str, str], dict[str, list[Obj]]] = {}
        self._inherit = _inherit

    # reading -----------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._objects)

    def __iter__(self) -> Iterator[Obj]:
        return iter(self._objects.values())

    def __contains__(self, key: Key) -> bool:
        return key in self._objects

    def get(self, kind: str, namespace: str, name: str) -> Obj | None:
        return self._objects.get((kind, namespace, name))

    def _changes_of(self, kind: str) -> list[tuple[Key, Obj | None, Obj | None]]:
        assert self._inherit is not None
        return [(k, old, new) for k, (old, new) in self._inherit[3].items() if k[0] == kind]

    def of_kind(self, kind: str) -> list[Obj]:
        """Objects of ``kind`` in key order (deterministic)."""
        lst = self._kinds.get(kind)
        if lst is not None:
            return lst
        inh = self._inherit
        if inh is not None and kind in inh[0]:
            changes = self._changes_of(kind)
            if not changes:
                lst, keys = inh[0][kind], inh[1][kind]
            else:
                lst, keys = list(inh[0][kind]), list(inh[1][kind])
                for k, old, new in changes:
                    i = bisect_left(keys, k)
                    present = i < len(keys) and keys[i] == k
                    if new is None:
                        if present:
                            del keys[i]
                            del lst[i]
                    elif present:
                        lst[i] = new
                    else:
                        keys.insert(i, k)
                        lst.insert(i, new)
        else:
            keys = sorted(k for k in self._objects if k[0] == kind)
            lst = [self._objects[k] for k in keys]
        self._kinds[kind] = lst
        self._keys[kind] = keys
        return lst

    def index(self, kind: str, label: str) -> dict[str, list[Obj]]:
        """Objects of ``kind`` grouped by the value of ``label``, each group in key
        order. Unchanged groups keep their identity from the previous world."""
        ik = (kind, label)
        idx = self._index.get(ik)
        if idx is not None:
            return idx
        inh = self._inherit
        if inh is not None and ik in inh[2]:
            idx = dict(inh[2][ik])
            touched: set[str] = set()
            for _k, old, new in self._changes_of(kind):
                for o in (old, new):
                    if o is not None:
                        v = o.labels.get(label)
                        if v is not None:
                            touched.add(v)
            if touched:
                # rebuild only the touched groups
                for v in touched:
                    old_group = idx.get(v, ())
                    members = {key_of(o) for o in old_group}
                    for _k, old, new in self._changes_of(kind):
                        if new is not None and new.labels.get(label) == v:
                            members.add(_k)
                        elif old is not None and old.labels.get(label) == v:
                            members.discard(_k)
                    group = [self._objects[k] for k in sorted(members) if k in self._objects
                             and self._objects[k].labels.get(label) == v]
                    if group:
                        idx[v] = group
                    else:
                        idx.pop(v, None)
        else:
            idx = {}
            for o in self.of_kind(kind):
                v = o.labels.get(label)
                if v is not None:
                    idx.setdefault(v, []).append(o)
        self._index[ik] = idx
        return idx

    def select(self, kind: str, labels: Mapping[str, str]) -> list[Obj]:
        return [o for o in self.of_kind(kind) if all(o.labels.get(k) == v for k, v in labels.items())]

    def keys(self) -> list[Key]:
        return sorted(self._objects)

    # changing ----------------------------------------------------------------
    def _derive(self, objs: dict[Key, Obj], changes: dict[Key, tuple[Obj | None, Obj | None]],
                now: int, memory: Mapping[str, Any]) -> "World":
        return World(objs, now, dict(memory), (self._kinds, self._keys, self._index, changes))

    def replace(
        self,
        put: Iterable[Obj] = (),
        remove: Iterable[Key] = (),
        now: int | None = None,
        memory: Mapping[str, Any] | None = None,
    ) -> "World":
        objs = dict(self._objects)
        changes: dict[Key, tuple[Obj | None, Obj | None]] = {}
        for k in remove:
            old = objs.pop(k, None)
            if old is not None:
                changes[k] = (changes.get(k, (old, None))[0], None)
        for o in put:
            k = key_of(o)
            prev = changes[k][0] if k in changes else objs.get(k)
            objs[k] = o
            changes[k] = (prev, o)
        return self._derive(objs, changes, self.now if now is None else now,
                            self.memory if memory is None else memory)

    def with_memory(self, **updates: Any) -> "World":
        mem = dict(self.memory)
        mem.update(updates)
        return self._derive(self._objects, {}, self.now, mem)

    def apply(self, actions: Iterable[Action]) -> "World":
        """The world after the API server accepted ``actions`` (in order).

        create/update put the action's payload; delete marks the object terminating
        (the environment finishes the deletion); status merges ``fields`` (or the
        payload's status) into the object's status.
        """
        objs = dict(self._objects)
        changes: dict[Key, tuple[Obj | None, Obj | None]] = {}

        def put(k: Key, o: Obj) -> None:
            prev = changes[k][0] if k in changes else objs.get(k)
            objs[k] = o
            changes[k] = (prev, o)

        for a in actions:
            k = (a.kind, a.namespace, a.uid or a.name)
            if a.verb in ("create", "update"):
                if a.payload is not None:
                    put(k, Obj(a.payload))
            elif a.verb == "delete":
                cur = objs.get(k)
                if cur is not None and not cur.terminating:
                    put(k, mark_terminating(cur))
            elif a.verb == "status":
                cur = objs.get(k)
                if cur is not None:
                    if a.payload is not None:
                        put(k, Obj(a.payload, cur.file, cur.line, cur.lines))
                    elif a.fields:
                        raw = dict(cur.raw)
                        st = dict(raw.get("status") or {})
                        st.update(a.fields)
                        raw["status"] = st
                        put(k, Obj(raw, cur.file, cur.line, cur.lines))
        if not changes:
            return self
        return self._derive(objs, changes, self.now, self.memory)


def mark_terminating(obj: Obj) -> Obj:
    raw = dict(obj.raw)
    md = dict(raw.get("metadata") or {})
    md["deletionTimestamp"] = TERMINATING
    raw["metadata"] = md
    return Obj(raw, obj.file, obj.line, obj.lines)


def deep_copy(raw: Mapping[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(dict(raw))
