"""The observed world: objects indexed by (kind, namespace, name), a clock, and the
controllers' memory. Worlds are values: ``apply`` returns a new world and never
changes the old one.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from .model import Action, Obj
from .overlay import ABSENT, Overlay, delta_limit

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


def _by_kind(changes: _Changes) -> dict[str, list[tuple[Key, "Obj | None", "Obj | None"]]]:
    """The entries of ``changes`` by kind, each kind's in the order of ``changes``."""
    out: dict[str, list[tuple[Key, Obj | None, Obj | None]]] = {}
    for k, (old, new) in changes.items():
        got = out.get(k[0])
        if got is None:
            out[k[0]] = [(k, old, new)]
        else:
            got.append((k, old, new))
    return out


class _Layer:
    """The changes from one ancestor world to a descendant, composed only when a view
    or ``changes_since`` asks for them (most layers are never read), with their
    entries per kind kept once computed."""

    __slots__ = ("_older", "_newer", "_d", "_by_kind", "_by_kinds", "_groups", "size")

    def __init__(self, older: "_Layer | None", newer: _Changes) -> None:
        self._older, self._newer = older, newer
        self._d: _Changes | None = newer if older is None else None
        self._by_kind: dict[str, list] = {}
        #: the entries of ``_newer`` (of ``changes()`` once composed) by kind, grouped in
        #: one pass when a kind is first asked for
        self._groups: dict[str, list] | None = None
        self._by_kinds: dict[tuple[str, ...], _Changes] = {}
        self.size = len(newer) + (older.size if older is not None else 0)  # at least len(changes())

    def changes(self) -> _Changes:
        d = self._d
        if d is None:
            assert self._older is not None
            d = self._d = _compose(self._older.changes(), self._newer) if self._newer else self._older.changes()
            self._older = None
            self._groups = None  # (they grouped ``_newer`` alone)
        return d

    def of_kind(self, kind: str) -> list[tuple[Key, "Obj | None", "Obj | None"]]:
        """The entries of ``kind``, in the order of ``changes()``. A layer not composed
        yet takes them from its older layer's entries of that kind (kept there, so the
        sibling worlds derived from one world share them) and its own changes: a world
        derived from one that applied a large round costs its own changes, not that
        round's."""
        got = self._by_kind.get(kind)
        if got is not None:
            return got
        older = self._older
        groups = self._groups
        if groups is None:
            groups = self._groups = _by_kind(self._newer if older is not None else self.changes())
        if older is None:
            got = groups.get(kind) or []
        else:
            base = older.of_kind(kind)
            mine = groups.get(kind)
            if not mine:
                got = base
            elif not base:
                got = mine
            else:
                # ``_compose`` restricted to ``kind``: older entries keep their place
                # and their object then, newer keys come after them
                merged = {k: (old, new) for k, old, new in base}
                for k, old, new in mine:
                    prev = merged.get(k)
                    merged[k] = (prev[0] if prev is not None else old, new)
                got = [(k, old, new) for k, (old, new) in merged.items()]
        self._by_kind[kind] = got
        return got

    def of_kinds(self, kinds: tuple[str, ...]) -> _Changes:
        """``changes()`` restricted to ``kinds``, in the same order (kept once computed:
        the views that read the same kinds share it)."""
        got = self._by_kinds.get(kinds)
        if got is None:
            if len(kinds) == 1:
                got = {k: (old, new) for k, old, new in self.of_kind(kinds[0])}
            else:
                got = {k: v for k, v in self.changes().items() if k[0] in kinds}
            self._by_kinds[kinds] = got
        return got


def _no_changes(kind: str) -> list:
    return []


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

    __slots__ = ("_base", "_delta", "_n", "_nk", "now", "memory", "_kinds", "_keys", "_index", "_ikeys", "_layers")

    def __init__(
        self,
        objects: Mapping[Key, Obj] | Iterable[Obj] = (),
        now: int = 0,
        memory: Mapping[str, Any] | None = None,
        _layers: "tuple[tuple[dict, dict, dict, dict, _Layer], ...] | None" = None,
        _store: "tuple[dict[Key, Obj], dict[Key, Obj | None], int, dict[str, int]] | None" = None,
    ) -> None:
        # The objects are a shared base map plus this world's own small delta (key ->
        # object, or None when removed); neither is changed once the world exists, so
        # a derived world copies only the delta, and folds it into a new base when it
        # grows past ``delta_limit`` (amortised: a world costs what changed).
        if _store is not None:
            self._base, self._delta, self._n, self._nk = _store
        else:
            if isinstance(objects, Mapping):
                base = dict(objects)
            else:
                base = {key_of(o): o for o in objects}
            nk: dict[str, int] = {}
            for k in base:
                nk[k[0]] = nk.get(k[0], 0) + 1
            self._base, self._delta, self._n, self._nk = base, {}, len(base), nk
        self.now = now
        self.memory: Mapping[str, Any] = memory if isinstance(memory, dict) and _layers is not None else dict(memory or {})
        self._kinds: dict[str, list[Obj]] = {}
        self._keys: dict[str, list[Key]] = {}
        self._index: dict[tuple[str, str], Mapping[str, list[Obj]]] = {}
        self._ikeys: dict[tuple[str, str], Mapping[str, list[Key]]] = {}
        self._layers = _layers or ()

    # reading -----------------------------------------------------------------
    def __len__(self) -> int:
        return self._n

    def count(self, kind: str) -> int:
        """How many objects of ``kind`` there are (kept by every change, not counted)."""
        return self._nk.get(kind, 0)

    def _items(self) -> Iterator[tuple[Key, Obj]]:
        delta = self._delta
        if not delta:
            yield from self._base.items()
            return
        for k, o in self._base.items():
            if k in delta:
                o = delta[k]
                if o is None:
                    continue
            yield k, o
        base = self._base
        for k, o in delta.items():
            if o is not None and k not in base:
                yield k, o

    def __iter__(self) -> Iterator[Obj]:
        return (o for _k, o in self._items())

    def __contains__(self, key: Key) -> bool:
        return self._lookup(key) is not None

    def _lookup(self, k: Key) -> Obj | None:
        o = self._delta.get(k, ABSENT)
        return self._base.get(k) if o is ABSENT else o  # type: ignore[return-value]

    def get(self, kind: str, namespace: str, name: str) -> Obj | None:
        k = (kind, namespace, name)
        o = self._delta.get(k, ABSENT)
        return self._base.get(k) if o is ABSENT else o  # type: ignore[return-value]

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
            self._fresh_kinds(kind)
            got = self._kinds.get(kind)
            if got is not None:
                return got
            lst, keys = [], []
        self._kinds[kind] = lst
        self._keys[kind] = keys
        return lst

    def _fresh_kinds(self, kind: str) -> None:
        """The ``of_kind`` list of ``kind`` and of every other kind no ancestor world can
        patch, in one pass over the objects (a world that has to build one kind's list
        from scratch is asked for the others too)."""
        patchable = {k for kinds, _kk, _idx, _ik, _ch in self._layers for k in kinds}
        patchable.discard(kind)
        by_kind: dict[str, dict[Key, Obj]] = {}
        for k, o in self._items():
            kk = k[0]
            if kk in patchable or kk in self._kinds:
                continue
            found = by_kind.get(kk)
            if found is None:
                found = by_kind[kk] = {}
            found[k] = o
        for kk, found in by_kind.items():
            keys = sorted(found)
            self._kinds[kk] = [found[k] for k in keys]
            self._keys[kk] = keys

    def index(self, kind: str, label: str) -> Mapping[str, list[Obj]]:
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
            base_idx, base_ikeys = lidx[ik], likeys[ik]
            idx, ikeys = Overlay.over(base_idx), Overlay.over(base_ikeys)
            touched: dict[str, list[tuple[Key, Obj | None]]] = {}
            for k, old, new in todo:
                vo = old.labels.get(label) if old is not None else None
                vn = new.labels.get(label) if new is not None else None
                if vo is not None and vo != vn:
                    touched.setdefault(vo, []).append((k, None))
                if vn is not None:
                    touched.setdefault(vn, []).append((k, new))
            for v, edits in touched.items():
                group = list(base_idx.get(v, ()))
                gkeys = list(base_ikeys.get(v, ()))
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
                    idx.put(v, group)
                    ikeys.put(v, gkeys)
                else:
                    idx.drop(v)
                    ikeys.drop(v)
            idx, ikeys = idx.settled(), ikeys.settled()
            break
        if idx is None or ikeys is None:
            idx, ikeys = {}, {}
            objs = self.of_kind(kind)
            for k, o in zip(self._keys[kind], objs):
                v = o.labels.get(label)
                if v is not None:
                    group = idx.get(v)
                    if group is None:
                        idx[v], ikeys[v] = [o], [k]
                    else:
                        group.append(o)
                        ikeys[v].append(k)
        self._index[ik] = idx
        self._ikeys[ik] = ikeys
        return idx

    def reduced(self, kind: str, label: str, fn: Callable[[list[Obj]], Any]) -> Mapping[str, Any]:
        """``fn`` of every group of ``index(kind, label)``, by label value. Derived
        from the nearest ancestor world that computed the same view by calling ``fn``
        again only for the groups whose objects changed since (``fn`` must be a plain
        function of the group: the same objects give the same value)."""
        rk = (kind, label, fn)
        got = self._index.get(rk)
        if got is not None:
            return got
        idx = self.index(kind, label)
        for _kinds, _kkeys, lidx, _likeys, changes in self._layers:
            prev = lidx.get(rk)
            if prev is None:
                continue
            todo = changes.of_kind(kind)
            if not todo:
                got = prev
                break
            touched: set[str] = set()
            for _k, old, new in todo:
                for o in (old, new):
                    if o is not None:
                        v = o.labels.get(label)
                        if v is not None:
                            touched.add(v)
            out = Overlay.over(prev)
            for v in sorted(touched):
                group = idx.get(v)
                if group:
                    out.put(v, fn(group))
                else:
                    out.drop(v)
            got = out.settled()
            break
        if got is None:
            got = {v: fn(group) for v, group in idx.items()}
        self._index[rk] = got  # type: ignore[index]
        return got

    def derived(self, view: Any) -> Any:
        """A value computed from this world by ``view`` (a hashable description with
        ``build(world)`` and ``patch(value, changes, world)``): patched from the value
        the nearest ancestor world computed, with the changes since (key -> (object
        then, object now)), or built afresh. ``patch`` returns a new value and leaves
        the old one as it is (ancestor worlds keep theirs). A view whose value depends
        only on objects of some kinds says which (``view.kinds``, a tuple): its
        ``patch`` then gets only their changes, and is not called when none of them
        changed (a round that changes every pod costs such a view nothing)."""
        dk = ("derived", view)
        got = self._index.get(dk)  # type: ignore[call-overload]
        if got is not None:
            return got
        for _kinds, _kkeys, lidx, _likeys, changes in self._layers:
            prev = lidx.get(dk)  # type: ignore[call-overload]
            if prev is None:
                continue
            kinds = getattr(view, "kinds", None)
            ch = changes.changes() if kinds is None else changes.of_kinds(kinds)
            got = view.patch(prev, ch, self) if ch else prev
            break
        if got is None:
            got = view.build(self)
        self._index[dk] = got  # type: ignore[index]
        return got

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

    def changes_by_kind_since(self, token: object) -> Callable[[str], list[tuple[Key, Obj | None, Obj | None]]] | None:
        """``changes_since(token)`` by kind: a function of a kind that returns its
        changes as (key, object then, object now) entries, in the same order; None when
        those changes are not known."""
        if token is self._kinds:
            return _no_changes
        for kinds, _kk, _idx, _ik, changes in self._layers:
            if kinds is token:
                return changes.of_kind
        return None

    def keys_changed_from(self, other: "World") -> set[Key] | None:
        """Keys whose objects may differ between ``other`` and this world, when one
        descends from the other or both from one of ``other``'s last few ancestors (then
        the keys changed on either side since it: a superset of those that differ);
        None when that is not known. Worlds a round's passes derive from its input
        world share that input world with the next round's."""
        mine = self.changes_since(other.token)
        if mine is not None:
            return set(mine)
        for kinds, _kk, _idx, _ik, changes in other._layers:
            got = self.changes_since(kinds)
            if got is not None:
                return set(got) | set(changes.changes())
        return None

    def select(self, kind: str, labels: Mapping[str, str]) -> list[Obj]:
        return [o for o in self.of_kind(kind) if all(o.labels.get(k) == v for k, v in labels.items())]

    def keys(self) -> list[Key]:
        return sorted(k for k, _o in self._items())

    # changing ----------------------------------------------------------------
    def _store_with(self, changes: dict[Key, tuple[Obj | None, Obj | None]]) -> tuple[dict, dict, int, dict]:
        """The (base, delta, count, count by kind) of this world with ``changes`` made."""
        base, delta, n, nk = self._base, dict(self._delta), self._n, dict(self._nk)
        for k, (old, new) in changes.items():
            # ``old``: this world's object (``apply`` and ``replace`` looked it up)
            d = (new is not None) - (old is not None)
            if d:
                n += d
                nk[k[0]] = nk.get(k[0], 0) + d
            if new is None and k not in base:
                delta.pop(k, None)
            else:
                delta[k] = new
        if len(delta) > delta_limit(len(base)):
            merged = dict(base)
            for k, o in delta.items():
                if o is None:
                    merged.pop(k, None)
                else:
                    merged[k] = o
            base, delta = merged, {}
        return base, delta, n, nk

    def _derive(self, changes: dict[Key, tuple[Obj | None, Obj | None]],
                now: int, memory: Mapping[str, Any]) -> "World":
        own = _Layer(None, changes)
        layers = [(self._kinds, self._keys, self._index, self._ikeys, own)]
        store = self._store_with(changes) if changes else (self._base, self._delta, self._n, self._nk)
        limit = max(64, store[2] // 2)  # beyond that, building a view afresh is as cheap
        for kinds, kkeys, idx, ikeys, older in self._layers[:_DEPTH - 1]:
            if older.size + len(changes) > limit:
                break
            layers.append((kinds, kkeys, idx, ikeys, _Layer(older, changes) if changes else older))
        return World((), now, dict(memory), tuple(layers), store)

    def replace(
        self,
        put: Iterable[Obj] = (),
        remove: Iterable[Key] = (),
        now: int | None = None,
        memory: Mapping[str, Any] | None = None,
    ) -> "World":
        changes: dict[Key, tuple[Obj | None, Obj | None]] = {}
        for k in remove:
            cur = changes[k][1] if k in changes else self._lookup(k)
            if cur is not None:
                changes[k] = (changes[k][0] if k in changes else cur, None)
        for o in put:
            k = key_of(o)
            prev = changes[k][0] if k in changes else self._lookup(k)
            changes[k] = (prev, o)
        return self._derive(changes, self.now if now is None else now,
                            self.memory if memory is None else memory)

    def with_memory(self, **updates: Any) -> "World":
        mem = dict(self.memory)
        mem.update(updates)
        return self._derive({}, self.now, mem)

    def apply(self, actions: Iterable[Action]) -> "World":
        """The world after the API server accepted ``actions`` (in order).

        create/update put the action's payload; delete marks the object terminating
        (the environment finishes the deletion); status merges ``fields`` (or the
        payload's status) into the object's status.
        """
        changes: dict[Key, tuple[Obj | None, Obj | None]] = {}

        def cur_of(k: Key) -> Obj | None:
            c = changes.get(k)
            return c[1] if c is not None else self._lookup(k)

        def put(k: Key, o: Obj) -> None:
            c = changes.get(k)
            changes[k] = (c[0] if c is not None else self._lookup(k), o)

        for a in actions:
            k = (a.kind, a.namespace, a.uid or a.name)
            if a.verb in ("create", "update"):
                if a.payload is not None:
                    put(k, Obj(a.payload))
            elif a.verb == "delete":
                cur = cur_of(k)
                if cur is not None and not cur.terminating:
                    put(k, mark_terminating(cur))
            elif a.verb == "status":
                cur = cur_of(k)
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
        return self._derive(changes, self.now, self.memory)


def mark_terminating(obj: Obj) -> Obj:
    raw = dict(obj.raw)
    md = dict(raw.get("metadata") or {})
    md["deletionTimestamp"] = TERMINATING
    raw["metadata"] = md
    return Obj(raw, obj.file, obj.line, obj.lines)

