"""Field ownership from ``metadata.managedFields``, as server-side apply decides it.

Upstream: kubernetes-sigs/structured-merge-diff ``fieldpath`` (the ``FieldsV1``
encoding: ``f:NAME`` a field, ``k:{JSON}`` a list item by its key fields, ``v:JSON`` a
set item, ``i:N`` a list index, ``.`` the item itself; an empty ``{}`` owns what it
names whole) and ``merge/update.go`` ``Updater.Apply``/``prune``: on apply, a field the
manager's previous apply owned and its new configuration leaves out is removed, unless
another manager also owns it (then only the manager's ownership goes); setting a field
to another value than the live one while another manager owns it is a conflict (the
API server answers 409 unless the apply forces conflicts, as ``kubectl apply
--server-side --force-conflicts`` does). A manager's own ``Update`` entries (``kubectl
edit`` as ``kubectl``) are another entry, so they count as another owner.

Paths here are those of ``core.diff``'s normalized trees: keys, ``\\x00KEY=VALUE``
markers for items of keyed lists, and indices for other lists.
"""

from __future__ import annotations

import json
from .records import record
from collections.abc import Mapping, Sequence
from typing import Any

_MARK = "\x00"


@record(frozen=True)
class Ownership:
    """The managedFields of one live object, for one field manager."""

    manager: str
    mine: tuple[Mapping[str, Any], ...]  # the manager's Apply entries
    others: tuple[tuple[str, Mapping[str, Any]], ...]  # (manager, fields) of every other entry

    def removes(self, path: Sequence[Any], live_tree: Any) -> bool:
        """Whether applying a configuration without ``path`` removes it."""
        if not any(_owns(f, path, live_tree) for f in self.mine):
            return False
        return not self.owners(path, live_tree)

    def owners(self, path: Sequence[Any], live_tree: Any) -> list[str]:
        """Other managers owning ``path`` (sorted, unique)."""
        return sorted({m for m, f in self.others if _owns(f, path, live_tree)})


_LAST_APPLIED = ("metadata", "annotations", "kubectl.kubernetes.io/last-applied-configuration")


def _client_side_apply(entry: Mapping[str, Any]) -> bool:
    """An ``Update`` entry that owns the last-applied annotation: a client-side apply
    manager. kubectl ``apply --server-side`` migrates its fields to the applying manager
    and applies again (kubectl ``pkg/cmd/apply/apply.go`` ``migrateToSSAIfNecessary`` with
    client-go ``csaupgrade.FindFieldsOwners``/``UpgradeManagedFieldsPatch``), so the
    fields a client-side apply set can be removed by the first server-side apply."""
    return entry.get("operation") == "Update" and _owns(entry.get("fieldsV1"), _LAST_APPLIED, None)


def ownership(live_raw: Mapping[str, Any], manager: str) -> Ownership:
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
    return Ownership(manager, tuple(mine), tuple(others))


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


def _owns(fields: Any, path: Sequence[Any], tree: Any) -> bool:
    cur = fields
    for seg in path:
        if not isinstance(cur, Mapping):
            return False
        if not cur or (len(cur) == 1 and "." in cur):
            return True  # owned whole (an atomic field, or a leaf item)
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
            return False
    return True
