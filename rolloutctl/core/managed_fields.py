"""Field ownership from ``metadata.managedFields``, as server-side apply decides it.

Upstream: kubernetes-sigs/structured-merge-diff ``fieldpath`` (the ``FieldsV1``
encoding: ``f:NAME`` a field, ``k:{JSON}`` a list item by its key fields, ``v:JSON`` a
set item, ``i:N`` a list index, ``.`` the item itself; an empty ``{}`` owns what it
names whole) and ``merge/update.go`` ``Updater.Apply``: the configuration is merged
into the live object (``typed/merge.go``), the fields the manager's previous apply
owned and its new configuration leaves out are pruned (``Updater.prune``), and a field
another manager owns that the merged object adds or modifies is a conflict
(``Updater.update``: the API server answers 409 unless the apply forces conflicts, as
``kubectl apply --server-side --force-conflicts`` does). A manager's own ``Update``
entries (``kubectl edit`` as ``kubectl``) are another entry, so they count as another
owner.

How a list merges is its schema's ``x-kubernetes-list-type`` (``schema.List``'s
``ElementRelationship``): ``map`` items merge by their ``x-kubernetes-list-map-keys``,
``set`` items by value, and a list without one is atomic: the configuration's list
replaces the live one whole (``mergingWalker.doList``: ``doLeaf``), its only owner is
whoever set it last, and changing it at all modifies the list (``compareWalker.doList``),
a conflict with each other manager that owns it. Ownership recorded inside a list that is
atomic now is ownership of the list (``merge/update.go``
``reconcileManagedFieldsWithSchemaChanges``, ``typed/reconcile_schema.go``).

Paths here are those of ``core.diff``'s normalized trees: keys, ``\\x00KEY=VALUE``
markers for items of keyed lists, and indices for other lists.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .records import record
from .trees import tree_get

_MARK = "\x00"

#: ObjectMeta's lists as the API server's OpenAPI publishes them (the same for every kind;
#: k8s.io/apimachinery ``pkg/apis/meta/v1/types.go`` ``ObjectMeta``: ``+listType=map
#: +listMapKey=uid`` on ownerReferences, ``+listType=set`` on finalizers, ``+listType=atomic``
#: on managedFields); labels and annotations are granular maps (no ``+mapType``)
OBJECT_META_LISTS: Mapping[str, str] = {"ownerReferences": "map", "finalizers": "set", "managedFields": "atomic"}


def _undescribed(path: tuple) -> str | None:
    return None


#: why a conflict on an atomic list names the list, not the field that changed in it
ATOMIC_NOTE = "and the apply replaces that list whole (it has no x-kubernetes-list-type: atomic)"


@record(frozen=True)
class Ownership:
    """The managedFields of one live object, for one field manager.

    ``list_type(path) -> "atomic" | "map" | "set" | None``: the list type the kind's
    schema gives the list at ``path`` (field names; ``None`` for a list item), None where
    the schema does not describe it (such a list merges by the keys ``core.diff`` matches
    its items by)."""

    manager: str
    mine: tuple[Mapping[str, Any], ...]  # the manager's Apply entries
    others: tuple[tuple[str, Mapping[str, Any]], ...]  # (manager, fields) of every other entry
    list_type: Callable[[tuple], str | None] = _undescribed

    def element_relationship(self, list_path: Sequence[Any]) -> str | None:
        """How the list at ``list_path`` (a normalized path) merges, as its schema says
        (``schema.List.ElementRelationship`` as k8s.io/kube-openapi
        ``pkg/schemaconv/smd.go`` ``getListElementRelationship`` reads it): ``atomic``,
        ``map``, ``set``, or None where the schema does not describe the list. ObjectMeta's
        lists are the API server's (``OBJECT_META_LISTS``)."""
        names = tuple(None if _item(s) else s for s in list_path)
        if len(names) == 2 and names[0] == "metadata" and isinstance(names[1], str):
            return OBJECT_META_LISTS.get(names[1])
        return self.list_type(names)

    def atomic_list(self, path: Sequence[Any]) -> int | None:
        """The length of the prefix of ``path`` that is the first atomic list it walks into
        (``path[:n]`` is the list), or None: what structured-merge-diff treats as one leaf
        (``typed/merge.go``, ``typed/compare.go`` ``doList``: ``doLeaf``)."""
        for i, seg in enumerate(path):
            if _item(seg) and self.element_relationship(path[:i]) == "atomic":
                return i
        return None

    def prune(self, path: Sequence[Any], live: Any, config: Any) -> list[tuple]:
        """The parts of the live value at ``path``, which the configuration ``config`` does
        not have, that the apply removes (``path`` itself, or paths below it; the normalized
        ``live`` and ``config`` trees).

        Inside an atomic list the configuration sets, everything only the live list has goes:
        the configuration's list replaces it (``typed/merge.go`` ``mergingWalker.doList``).
        Elsewhere the apply prunes (``merge/update.go`` ``Updater.prune``): a node goes, with everything below it, when the manager's last
        apply owned it and no other manager owns it (``addBackOwnedItems``: a field counts as
        owned by whoever owns something below it, ``EnsureNamedFieldsAreMembers``; a list item
        only by whoever owns the item itself). A node kept so is looked into: of
        ``metadata.annotations`` left out of the configuration, only the annotations this
        manager set and no other manager owns go (a list item the manager owned goes with the
        fields another manager owns in it: ``merge/multiple_appliers_test.go``
        ``remove_one_with_dangling_subitem_keep_one``)."""
        path = tuple(path)
        cut = self.atomic_list(path)
        if cut is not None:
            if tree_get(config, path[:cut]) is not None:
                return [path]
            path = path[:cut]  # the configuration leaves the atomic list out: it is pruned whole or kept
        for i in range(1, len(path)):
            if tree_get(config, path[:i]) is None and self._prunes(path[:i], live):
                return [path]
        return self._pruned_below(path, live)

    def _pruned_below(self, path: tuple, live: Any) -> list[tuple]:
        if self._prunes(path, live):
            return [path]
        value = tree_get(live, path)
        if not isinstance(value, Mapping) or self.atomic_list((*path, 0)) is not None:
            return []
        return [p for k in value for p in self._pruned_below((*path, k), live)]

    def _prunes(self, path: tuple, live: Any) -> bool:
        """Whether ``Updater.prune`` removes the node at ``path``: in the manager's last
        applied set, in no other manager's (``addBackOwnedItems``, ``addBackDanglingItems``)."""
        return any(_member(f, path, live) for f in self.mine) and not any(_member(f, path, live)
                                                                            for _, f in self.others)

    def merge_set(self, path: Sequence[Any], live: Sequence[Any], config: Sequence[Any] | None) -> list[Any]:
        """The values of the ``set`` list at ``path`` after the apply, ``live`` and
        ``config`` its values in the live object and in the configuration (None: left
        out): merged by value (``visit_list_items``), less the values the apply prunes (this
        manager's last apply owned the value, ``v:JSON``, the configuration leaves it out,
        and no other manager owns it: ``Updater.prune``); a list the configuration leaves out that is pruned
        whole (no other manager owns any of it) goes whole."""
        if config is None and self._prunes(tuple(path), None):
            return []
        wanted = list(config or ())
        return [v for v in visit_list_items(list(live), wanted)
                if v in wanted or not (any(_has_value(f, path, v) for f in self.mine)
                                       and not any(_has_value(f, path, v) for _, f in self.others))]

    def compare_path(self, path: Sequence[Any]) -> tuple:
        """The path at which the apply's comparison (``typed/compare.go``) reports a change
        at ``path``: the atomic list it is in (``compareWalker.doList``: ``doLeaf``), else
        ``path``. ``Updater.update`` intersects it with the other managers' sets."""
        cut = self.atomic_list(path)
        return tuple(path) if cut is None else tuple(path[:cut])

    def owners(self, path: Sequence[Any], live_tree: Any) -> list[str]:
        """Other managers owning ``path``, something below it or a field above it whole
        (sorted, unique): those ``Updater.update`` reports a conflict with when the apply
        modifies ``path``."""
        return sorted({m for m, f in self.others if _owns(f, path, live_tree)})


def visit_list_items(lhs: list[Any], rhs: list[Any]) -> list[Any]:
    """The items of an associative list merged from the live ``lhs`` and the applied
    ``rhs`` (items compared by their key: here, set values), in the order
    structured-merge-diff's ``typed/merge.go`` ``mergingWalker.visitListItems`` gives them:
    the items both have in ``rhs``'s order, each live-only item where it was among them,
    each applied-only item after the live items before it."""
    lhs, rhs = _unique(lhs), _unique(rhs)
    in_l, in_r = set(map(_value_key, lhs)), set(map(_value_key, rhs))
    shared = [v for v in rhs if _value_key(v) in in_l]
    next_shared = shared.pop(0) if shared else None
    merged: set[str] = set()
    out: list[Any] = []
    li = ri = 0
    while li < len(lhs) or ri < len(rhs):
        if li < len(lhs) and ri < len(rhs):
            pe = lhs[li]
            if _value_key(pe) == _value_key(rhs[ri]):
                merged.add(_value_key(pe))
                out.append(rhs[ri])
                li += 1
                ri += 1
                next_shared = shared.pop(0) if shared else None
                continue
            if _value_key(pe) in in_r and next_shared is not None and _value_key(next_shared) != _value_key(pe):
                li += 1  # shared item, but not the one wanted in this round
                continue
        if li < len(lhs):
            pe = lhs[li]
            if _value_key(pe) not in in_r:
                out.append(pe)
                li += 1
                continue
            if _value_key(pe) in merged:
                li += 1
        if ri < len(rhs):
            pe = rhs[ri]
            merged.add(_value_key(pe))
            out.append(pe)
            ri += 1
            if next_shared is not None and _value_key(next_shared) == _value_key(pe):
                next_shared = shared.pop(0) if shared else None
    return out


def _value_key(v: Any) -> str:
    """A set item's path element, ``v:JSON`` (``fieldpath.PathElement.Value``)."""
    return json.dumps(v, separators=(",", ":"), sort_keys=True)


def _unique(values: list[Any]) -> list[Any]:
    """The first of each repeated value (``indexListPathElements`` ignores the others)."""
    seen: set[str] = set()
    out = []
    for v in values:
        if _value_key(v) not in seen:
            seen.add(_value_key(v))
            out.append(v)
    return out


def _has_value(fields: Any, path: Sequence[Any], value: Any) -> bool:
    """Whether ``fields`` owns the value ``value`` of the set list at ``path``."""
    entry, _ = _walk(fields, path, None)
    return isinstance(entry, Mapping) and f"v:{_value_key(value)}" in entry


_LAST_APPLIED = ("metadata", "annotations", "kubectl.kubernetes.io/last-applied-configuration")


def _client_side_apply(entry: Mapping[str, Any]) -> bool:
    """An ``Update`` entry that owns the last-applied annotation: a client-side apply
    manager. kubectl ``apply --server-side`` migrates its fields to the applying manager
    and applies again (kubectl ``pkg/cmd/apply/apply.go`` ``migrateToSSAIfNecessary`` with
    client-go ``csaupgrade.FindFieldsOwners``/``UpgradeManagedFieldsPatch``), so the
    fields a client-side apply set can be removed by the first server-side apply."""
    return entry.get("operation") == "Update" and _owns(entry.get("fieldsV1"), _LAST_APPLIED, None)


def ownership(live_raw: Mapping[str, Any], manager: str,
              list_type: Callable[[tuple], str | None] = _undescribed) -> Ownership:
    md = live_raw.get("metadata") if isinstance(live_raw, Mapping) else None
    entries = md.get("managedFields") if isinstance(md, Mapping) else None
    mine: list[Mapping[str, Any]] = []
    others: list[tuple[str, Mapping[str, Any]]] = []
    for e in entries if isinstance(entries, list) else []:
        if not isinstance(e, Mapping) or not isinstance(e.get("fieldsV1"), Mapping):
            continue
        name = str(e.get("manager") or "")
        if (name == manager and e.get("operation") == "Apply") or _client_side_apply(e):
            mine.append(e["fieldsV1"])
        else:
            label = name + ("" if e.get("operation") in (None, "Apply") else f" ({e.get('operation')})")
            others.append((label, e["fieldsV1"]))
    return Ownership(manager, tuple(mine), tuple(others), list_type)


def _item(seg: Any) -> bool:
    """Whether a normalized path segment is a list item (a keyed marker or a position)."""
    return (isinstance(seg, int) and not isinstance(seg, bool)) or (isinstance(seg, str) and seg.startswith(_MARK))



def _key_entry(fields: Mapping[str, Any], seg: str, item: Any) -> Any:
    """The ``k:{...}`` entry of ``fields`` for the keyed-list item ``seg`` (``\\x00key=value``)."""
    key, _, value = seg[1:].partition("=")
    for name, sub in fields.items():
        if not (isinstance(name, str) and name.startswith("k:")):
            continue
        try:
            keys = json.loads(name[2:])
        except ValueError:
            continue
        if not isinstance(keys, dict):
            continue
        if key in keys:
            if str(keys[key]) == value:
                return sub
            continue
        # the API's merge keys differ from ours (ports: containerPort+protocol): match the item's values
        if isinstance(item, Mapping) and keys and all(str(item.get(k, "TCP" if k == "protocol" else None)) == str(v)
                                                      for k, v in keys.items()):
            return sub
    return None


def _walk(fields: Any, path: Sequence[Any], tree: Any) -> tuple[Any, bool]:
    """(the entry of ``fields`` at ``path`` or None, whether an entry above ``path`` owns
    it whole: an atomic field or a leaf item)."""
    cur = fields
    for seg in path:
        if not isinstance(cur, Mapping):
            return None, False
        if not cur or (len(cur) == 1 and "." in cur):
            return cur, True
        if isinstance(seg, str) and seg.startswith(_MARK):
            item = tree.get(seg) if isinstance(tree, Mapping) else None
            cur = _key_entry(cur, seg, item)
            tree = item
        elif isinstance(seg, int) and not isinstance(seg, bool):
            cur = cur.get(f"i:{seg}")
            tree = tree[seg] if isinstance(tree, list) and 0 <= seg < len(tree) else None
        else:
            cur = cur.get(f"f:{seg}")
            tree = tree.get(seg) if isinstance(tree, Mapping) else None
        if cur is None:
            return None, False
    return cur, False


def _owns(fields: Any, path: Sequence[Any], tree: Any) -> bool:
    """Whether ``fields`` owns ``path``, something below it, or a field above it whole."""
    entry, _ = _walk(fields, path, tree)
    return entry is not None


def _member(fields: Any, path: Sequence[Any], tree: Any) -> bool:
    """Whether ``path`` is in the set ``fields`` as pruning reads it
    (``EnsureNamedFieldsAreMembers``): a field when ``fields`` owns it or something below
    it, a list item only when ``fields`` owns the item itself (``.``, or the item whole)."""
    entry, whole = _walk(fields, path, tree)
    if entry is None:
        return False
    if whole or not path or not _item(path[-1]):
        return True
    return isinstance(entry, Mapping) and (not entry or "." in entry)
