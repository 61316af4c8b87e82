"""The observed world: objects indexed by (kind, namespace, name), a clock, and the
controllers' memory. Worlds are values: ``apply`` returns a new world and never
changes the old one.
"""

from __future__ import annotations

import copy
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .model import Action, Obj

Key = tuple[str, str, str]

TERMINATING = "rolloutctl-simulated"


def key_of(obj: Obj) -> Key:
    return (obj.kind, obj.namespace, obj.name)


#: how many ancestor worlds a derived world may patch its views from
_DEPTH = 12

_Changes = dict  # Key -> (object in the ancestor world or None, object in this world or None)


def _compose(older: _Changes, newer: _Changes) -> _Changes:
    out = dict(older)
    for k, (old, new) in newer.items():
        prev = out.get(k)
        out[k] = (prev[0] if prev is not None else old, new)
    return out


class _Layer:
    """The changes from one ancestor world to a descendant, composed only when a view
    or ``changes_since`` asks for them (most layers are never read), with their
    entries per kind kept once computed."""

    __slots__ = ("_older", "_newer", "_d", "_by_kind", "size")

    def __init__(self, older: "_Layer | None", newer: _Changes) -> None:
        self._older, self._newer = older, newer
        self._d: _Changes | None = newer if older is None else None
        self._by_kind: dict[str, list] = {}
        self.size = len(newer) + (older.size if older is not None else 0)  # at least len(changes())

    def changes(self) -> _Changes:
        d = self._d
        if d is None:
            assert self._older is not None
            d = self._d = _compose(self._older.changes(), self._newer) if self._newer else self._older.changes()
            self._older = None
        return d

    def of_kind(self, kind: str) -> list[tuple[Key, "Obj | None", "Obj | None"]]:
        got = self._by_kind.get(kind)
        if got is None:
            got = self._by_kind[kind] = [(k, old, new) for k, (old, new) in self.changes().items() if k[0] == kind]
        return got


class World:
    """An immutable snapshot of the objects a plan cares about.

    - ``objects``: every object by key.
    - ``now``: seconds since the plan began (the model clock).
    - ``memory``: controller memory that is not stored in objects (caches, timers),
      a mapping the kind models own; values must be immutable.

    Views (``of_kind``, ``index``) are computed lazily and, for a world made by
    ``apply``/``replace``, derived from the nearest of its last few ancestors that
    computed the same view, by patching only what changed since, so a plan's cost
    grows with what changes, not with the world's size. A group list of ``index``
    that did not change is the very same list object as in that ancestor, which lets
    models memoize per group.
    """

    __slots__ = ("_objects", "now", "memory", "_kinds", "_keys", "_index", "_ikeys", "_layers")

    def __init__(
        self,
        objects: Mapping[Key, Obj] | Iterable[Obj] = (),
        now: int = 0,
        memory: Mapping[str, Any] | None = None,
        _layers: "tuple[tuple[dict, dict, dict, dict, _Layer], ...] | None" = None,
    ) -> None:
        if isinstance(objects, dict) and _layers is not None:
            self._objects: dict[Key, Obj] = objects
        elif isinstance(objects, Mapping):
            self._objects = dict(objects)
        else:
            self._objects = {key_of(o): o for o in objects}
        self.now = now
        self.memory: Mapping[str, Any] = memory if isinstance(memory, dict) and _layers is not None else dict(memory or {})
        self._kinds: dict[str, list[Obj]] = {}
        self._keys: dict[str, list[Key]] = {}
        self._index: dict[tuple[str, str], dict[str, list[Obj]]] = {}
        self._ikeys: dict[tuple[str, str], dict[str, list[Key]]] = {}
        self._layers = _layers or ()

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
        lst = self._kinds.get(kind)
        if lst is not None:
            return lst
        keys: list[Key] | None = None
        for kinds, kkeys, _idx, _ik, changes in self._layers:
            if kind not in kinds:
                continue
            base, base_keys = kinds[kind], kkeys[kind]
            todo = changes.of_kind(kind)
            if not todo:
                lst, keys = base, base_keys
            elif len(todo) * 8 < len(base_keys) + 64:
                lst, keys = list(base), list(base_keys)
                for k, _old, new in todo:
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
            break
        if keys is None or lst is None:
            keys = sorted(k for k in self._objects if k[0] == kind)
            lst = [self._objects[k] for k in keys]
        self._kinds[kind] = lst
        self._keys[kind] = keys
        return lst

    def index(self, kind: str, label: str) -> dict[str, list[Obj]]:
        """Objects of ``kind`` grouped by the value of ``label``, each group in key
        order. Unchanged groups keep their identity from the ancestor world the view
        was derived from."""
        ik = (kind, label)
        idx = self._index.get(ik)
        if idx is not None:
            return idx
        ikeys: dict[str, list[Key]] | None = None
        for _kinds, _kkeys, lidx, likeys, changes in self._layers:
            if ik not in lidx:
                continue
            todo = changes.of_kind(kind)
            if not todo:
                # views are never changed once stored: share the ancestor's
                idx, ikeys = lidx[ik], likeys[ik]
                break
            idx, ikeys = dict(lidx[ik]), dict(likeys[ik])
            touched: dict[str, list[tuple[Key, Obj | None]]] = {}
            for k, old, new in todo:
                vo = old.labels.get(label) if old is not None else None
                vn = new.labels.get(label) if new is not None else None
                if vo is not None and vo != vn:
                    touched.setdefault(vo, []).append((k, None))
                if vn is not None:
                    touched.setdefault(vn, []).append((k, new))
            for v, edits in touched.items():
                group = list(idx.get(v, ()))
                gkeys = list(ikeys.get(v, ()))
                for k, new in edits:
                    i = bisect_left(gkeys, k)
                    present = i < len(gkeys) and gkeys[i] == k
                    if new is None:
                        if present:
                            del gkeys[i]
                            del group[i]
                    elif present:
                        group[i] = new
                    else:
                        gkeys.insert(i, k)
                        group.insert(i, new)
                if group:
                    idx[v] = group
                    ikeys[v] = gkeys
                else:
                    idx.pop(v, None)
                    ikeys.pop(v, None)
            break
        if idx is None or ikeys is None:
            idx, ikeys = {}, {}
            for o in self.of_kind(kind):
                v = o.labels.get(label)
                if v is not None:
                    idx.setdefault(v, []).append(o)
            for v, group in idx.items():
                ikeys[v] = [key_of(o) for o in group]
        self._index[ik] = idx
        self._ikeys[ik] = ikeys
        return idx

    @property
    def token(self) -> object:
        """An identity for this world that ``changes_since`` recognizes in its
        descendants (holding it keeps no objects alive)."""
        return self._kinds

    def changes_since(self, token: object) -> Mapping[Key, tuple[Obj | None, Obj | None]] | None:
        """What changed from the world ``token`` came from to this one, as
        key -> (object then or None, object now or None), when that world is this
        one or one of the last few it was derived from; None when it is not known
        (then a caller must look at everything)."""
        if token is self._kinds:
            return {}
        for kinds, _kk, _idx, _ik, changes in self._layers:
            if kinds is token:
                return changes.changes()
        return None

    def select(self, kind: str, labels: Mapping[str, str]) -> list[Obj]:
        return [o for o in self.of_kind(kind) if all(o.labels.get(k) == v for k, v in labels.items())]

    def keys(self) -> list[Key]:
        return sorted(self._objects)

    # changing ----------------------------------------------------------------
    def _derive(self, objs: dict[Key, Obj], changes: dict[Key, tuple[Obj | None, Obj | None]],
                now: int, memory: Mapping[str, Any]) -> "World":
        own = _Layer(None, changes)
        layers = [(self._kinds, self._keys, self._index, self._ikeys, own)]
        limit = max(64, len(objs) // 2)  # beyond that, building a view afresh is as cheap
        for kinds, kkeys, idx, ikeys, older in self._layers[:_DEPTH - 1]:
            if older.size + len(changes) > limit:
                break
            layers.append((kinds, kkeys, idx, ikeys, _Layer(older, changes) if changes else older))
        return World(objs, now, dict(memory), tuple(layers))

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
        objs = self._objects  # copied on the first change
        changes: dict[Key, tuple[Obj | None, Obj | None]] = {}

        def put(k: Key, o: Obj) -> None:
            nonlocal objs
            if not changes:
                objs = dict(objs)
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
