"""Kubernetes-aware structural diff of two objects (desired manifest vs live copy).

What makes it Kubernetes-aware (CONTRACT.md, "Diff"):

- lists of named things are matched by their key, not by position
  (``workerGroupSpecs`` by ``groupName``; ``cliques``, ``podCliqueScalingGroups``,
  containers, env, ports, volumes, volume mounts by ``name``; ...), and paths select
  items the same way: ``spec.rayClusterConfig.workerGroupSpecs[groupName=gpu].replicas``;
- a pure reordering of a keyed list is not a change, unless the kind says that the
  order of that list matters to its operator (``DiffHooks.order_matters``); then it
  is reported once, at the list's path, with ``old``/``new`` the keys in order;
- lists of plain values (``args``, ``command``, ``cliqueNames``) are compared whole;
- server-managed fields (status, managedFields, resourceVersion, uid, generation,
  creationTimestamp, the last-applied annotation, ...) are ignored;
- defaults (``DiffHooks.defaults``, from the kind) are applied to both sides first, so
  a field the API server or a defaulting webhook fills in is not a change;
- empty values (null, ``{}``, ``[]``) are the same as absent, and ``1.0`` is ``1``
  (the API server stores JSON);
- a field only the live copy has is not a change (the server or a controller set it)
  unless the live copy's ``kubectl.kubernetes.io/last-applied-configuration`` shows
  the user had set it: then it is a removal, as ``kubectl apply`` would decide;
- Secret ``data``/``stringData`` values and the values of environment variables whose
  name looks like a credential are masked (``***``, ``*** (before)``, ``*** (after)``,
  as ``kubectl diff`` does), but a change to them is still shown.

The comparison itself is done by ``deepdiff`` (imported lazily: start-up matters).
Pure: no I/O.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .applied import LAST_APPLIED, last_applied, last_applied_of  # noqa: F401 - diff's users read them here
from .managed_fields import ATOMIC_NOTE
from .model import Change, Obj
from .masking import is_secret, mask_change
from .paths import LIST_KEYS, Key
from .records import field, record
from .trees import tree_get


#: metadata fields the API server manages; never a change.
SERVER_METADATA = ("managedFields", "resourceVersion", "uid", "generation", "creationTimestamp", "selfLink",
                   "deletionTimestamp", "deletionGracePeriodSeconds")


_PREFIX = "\x00"  # marks a keyed-list item in the normalized form


def _identity(raw: dict) -> dict:
    return raw


def _never(path: tuple) -> bool:
    return False


def _raw(obj: Obj) -> Mapping[str, Any]:
    return obj.raw


@record(frozen=True)
class DiffHooks:
    """What a kind adds to the generic diff.

    ``defaults(raw) -> raw``: the object as the API server stores it (CRD defaults and
    the operator's defaulting webhook), applied to both sides; must not mutate its input.
    ``order_matters(list_path) -> bool``: whether a reordering of the keyed list at
    ``list_path`` (a tuple of keys and ``Key`` segments) changes what the operator does.
    ``keeps_empty(path) -> bool``: whether an empty mapping or list at ``path`` (field
    names; list items as positions or ``Key`` segments) differs from an absent one for
    the operator (KubeRay hashes Go's JSON, which writes ``rayStartParams: {}`` and an
    empty struct behind a pointer, but leaves a nil one out; Grove's pod template hash
    tells a nil map, slice or pointer from an empty one); elsewhere empties are absent.
    ``stored(obj) -> raw``: the object the diff compares, before ``defaults`` (the
    admitted object; Grove's with its quantities as written, which its pod template hash
    tells apart).
    ``merge_patch``: the object is a custom resource, which client-side ``kubectl apply``
    patches with a JSON merge patch (``CreateThreeWayJSONMergePatch``): a list that
    differs is sent whole, so what only the live copy has inside a list goes. Otherwise
    (a strategic merge patch) list items merge by key.
    """

    defaults: Callable[[dict], dict] = _identity
    order_matters: Callable[[tuple], bool] = _never
    keeps_empty: Callable[[tuple], bool] = _never
    stored: Callable[[Obj], Mapping[str, Any]] = _raw
    merge_patch: bool = False


# ----------------------------------------------------------------------------- paths


_SIMPLE = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$-]*$")
_BARE = re.compile(r'^[^\[\]="\s]+$')


def render_path(segments: Iterable[Any]) -> str:
    """``spec.template.cliques[name=x].spec`` from segments; keys that are not plain
    identifiers go in brackets (``labels[ray.io/serve]``), JSON-quoted when they hold
    brackets, ``=``, quotes or blanks (``data["a b"]``)."""
    out = ""
    for s in segments:
        if isinstance(s, Key):
            out += str(s)
        elif isinstance(s, int) and not isinstance(s, bool):
            out += f"[{s}]"
        else:
            s = str(s)
            if _SIMPLE.fullmatch(s):
                out += ("." if out else "") + s
            elif _BARE.fullmatch(s) and not s.isdigit():
                out += f"[{s}]"
            else:
                out += "[" + json.dumps(s) + "]"
    return out


_TOKEN = re.compile(r'\.?([A-Za-z_$][A-Za-z0-9_$-]*)|\[("(?:[^"\\]|\\.)*")\]|\[(\d+)\]|\[([^=\]]+)=([^\]]*)\]'
                    r'|\[([^\[\]="\s]+)\]')


def split_path(path: str) -> list[Any]:
    """The inverse of ``render_path``: segments (``str``, ``int``, ``Key``)."""
    out: list[Any] = []
    pos = 0
    while pos < len(path):
        m = _TOKEN.match(path, pos)
        if m is None or m.end() == pos:
            raise ValueError(f"cannot parse path {path!r} at {pos}")
        if m.group(1) is not None:
            out.append(m.group(1))
        elif m.group(2) is not None:
            out.append(json.loads(m.group(2)))
        elif m.group(3) is not None:
            out.append(int(m.group(3)))
        elif m.group(4) is not None:
            out.append(Key(m.group(4), m.group(5)))
        else:
            out.append(m.group(6))
        pos = m.end()
    return out


# ----------------------------------------------------------------------------- normalizing


def _scalar(v: Any) -> bool:
    return not isinstance(v, (dict, list))


def _list_key(name: Any, *lists: Any) -> str | None:
    """The key field that identifies every item of each list uniquely, if any."""
    for cand in LIST_KEYS.get(name, ()) if isinstance(name, str) else ():
        ok = True
        for items in lists:
            if not isinstance(items, list):
                continue
            seen = set()
            for it in items:
                v = it.get(cand) if isinstance(it, dict) else None
                if v is None or v == "" or isinstance(v, (dict, list)) or str(v) in seen:
                    ok = False
                    break
                seen.add(str(v))
            if not ok:
                break
        if ok:
            return cand
    return None


def _marker(k: str, v: Any) -> str:
    return f"{_PREFIX}{k}={v}"


def _unmarker(s: str) -> Key:
    k, _, v = s[1:].partition("=")
    return Key(k, v)


def _empty(v: Any) -> bool:
    return v is None or v == {} or v == []


def _normalize(v: Any, other: Any, name: Any = None, path: tuple = (),
               keeps: Callable[[tuple], bool] = _never) -> Any:
    """Keyed lists become ``{marker: item}`` dicts (key chosen with ``other``, the
    same place on the other side, so both sides agree); empties pruned, except an empty
    mapping or list where ``keeps`` says the operator tells it from an absent one, and an
    empty list where the other side has items (an apply replaces a list whole, so
    ``env: []`` empties a live ``env``; an empty mapping merges into the live one and
    changes nothing); integral floats become ints."""
    if isinstance(v, dict):
        out = {}
        o = other if isinstance(other, dict) else {}
        for k, x in v.items():
            here = (*path, k)
            ox = o.get(k)
            nx = _normalize(x, ox, k, here, keeps)
            if not _empty(nx) or (nx is not None and keeps is not _never and keeps(here)) or \
                    (nx == [] and isinstance(ox, list) and ox):
                out[k] = nx
        return out
    if isinstance(v, list):
        if not v:
            return []
        if all(_scalar(x) for x in v):
            return [_num(x) for x in v]
        key = _list_key(name, v, other)
        if key is not None:
            others = {str(i.get(key)): i for i in other} if isinstance(other, list) and _list_key(name, other) == key else {}
            out = {}
            for it in v:
                kv = str(it.get(key))
                nx = _normalize(it, others.get(kv), None, (*path, Key(key, kv)), keeps)
                out[_marker(key, kv)] = nx if nx else {key: it.get(key)}
            return out
        return [_normalize(x, other[i] if isinstance(other, list) and i < len(other) else None, None, (*path, i), keeps)
                for i, x in enumerate(v)]
    return _num(v)


def _num(v: Any) -> Any:
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def _denormalize(v: Any) -> Any:
    """Back to plain Kubernetes values (keyed dicts to lists, in their order)."""
    if isinstance(v, dict):
        if v and all(isinstance(k, str) and k.startswith(_PREFIX) for k in v):
            return [_denormalize(x) for x in v.values()]
        return {k: _denormalize(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_denormalize(x) for x in v]
    return v


def strip_server_fields(raw: Mapping[str, Any]) -> dict:
    """A copy without status and the metadata the API server manages."""
    out = {k: v for k, v in raw.items() if k != "status"}
    md = raw.get("metadata")
    if isinstance(md, Mapping):
        md2 = {k: v for k, v in md.items() if k not in SERVER_METADATA}
        ann = md2.get("annotations")
        if isinstance(ann, Mapping) and LAST_APPLIED in ann:
            md2["annotations"] = {k: v for k, v in ann.items() if k != LAST_APPLIED}
        out["metadata"] = md2
    return out


# ----------------------------------------------------------------------------- the diff


@record
class _Ctx:
    desired: Obj
    hooks: DiffHooks
    orders: list[Change] = field(default_factory=list)


def normalized(raw: Mapping[str, Any], other: Mapping[str, Any] | None = None,
               keeps_empty: Callable[[tuple], bool] = _never) -> dict:
    """The comparable form of an already stripped and defaulted object."""
    return _normalize(dict(raw), dict(other) if other is not None else None, keeps=keeps_empty)


def diff_objects(desired: Obj, live: Obj, hooks: DiffHooks = DiffHooks(), ownership: Any = None,
                 conflicts: list[tuple[str, list[str]]] | None = None) -> tuple[Change, ...]:
    """The changes ``kubectl apply`` of ``desired`` would make to ``live``, ordered by
    path. Each change carries the file and line of the desired manifest that caused
    it (for a removal: the line of the nearest enclosing field that is still there).

    With ``ownership`` (``core.managed_fields.Ownership``: server-side apply) removals
    follow the field manager's managedFields and the lists' types instead of the
    last-applied annotation (``Ownership.prune``: what the apply prunes, and what an
    atomic list the manifest sets replaces), and a changed field another manager owns is
    appended to ``conflicts`` as ``(path, managers, note)``: for a change inside an atomic
    list, the list (``Ownership.compare_path``), with ``note`` saying so, else ``note`` empty."""
    from deepdiff import DeepDiff  # lazy: ~170 ms of imports

    d_raw = hooks.defaults(strip_server_fields(hooks.stored(desired)))
    l_raw = hooks.defaults(strip_server_fields(hooks.stored(live)))
    d_n = normalized(d_raw, l_raw, hooks.keeps_empty)
    l_n = normalized(l_raw, d_raw, hooks.keeps_empty)
    applied = last_applied_of(live) if ownership is None else None
    a_n = normalized(hooks.defaults(strip_server_fields(applied)), l_raw, hooks.keeps_empty) \
        if applied is not None else None
    # what the manifest sets to null: client-side apply sends the null (a deletion of
    # original -> modified, kept by ``CreateThreeWayJSONMergePatch`` even without a
    # last-applied annotation), and the API server removes the field
    w_n = normalized(_nulls_marked(strip_server_fields((desired.written or desired).raw)), l_raw) \
        if ownership is None else None

    def _user_set(_a_n: Any, path: Sequence[Any]) -> bool:
        """Whether client-side apply removes what only the live copy has at ``path``: a
        field the last-applied configuration has or the manifest sets to null, and for a
        custom resource (``merge_patch``) anything inside a list (a list that differs is
        sent whole, so the live items' extra fields and extra items go)."""
        return (hooks.merge_patch and _through_list(path)) or _applied_has(a_n, path) or _null_at(w_n, path)

    def conflict(path: Sequence[Any], op: str) -> None:
        """Under server-side apply, the other managers of what the change at ``path``
        modifies (``Updater.update``: a conflict is a field another manager owns that the
        apply adds or modifies; a removal is none): the atomic list it is in, whatever the
        change there, or a field it replaces; none for a set list."""
        if ownership is None or conflicts is None:
            return
        node = ownership.compare_path(path)
        inside = len(node) < len(path)
        if not inside and (op != "replace" or ownership.element_relationship(path) == "set"):
            return
        owners = ownership.owners(node, l_n)
        where = render_path(_segments(node))
        if owners and all(c[0] != where for c in conflicts):
            conflicts.append((where, owners, ATOMIC_NOTE if inside or ownership.element_relationship(node) == "atomic" else ""))

    def set_change(path: Sequence[Any], old: Any, new: Any) -> None:
        """A ``set`` list under server-side apply: merged by value, the live values kept
        unless the apply prunes them (``Ownership.merge_set``)."""
        after = ownership.merge_set(path, old or [], new)
        if after != (old or []):
            add(_segments(path), "replace" if old and after else ("add" if after else "remove"), old, after or None)

    secret = is_secret(desired.raw)
    found: dict[str, Change] = {}
    segs_of: dict[str, list[Any]] = {}

    def add(segments: list[Any], op: str, old: Any, new: Any) -> None:
        path = render_path(segments)
        if path in found:
            return
        file, line = desired.file, line_for(desired, segments)
        c = Change(path, op, _denormalize(old) if old is not None else None,
                   _denormalize(new) if new is not None else None, file, line)
        found[path] = mask_change(c, segments, secret)
        segs_of[path] = segments

    dd = DeepDiff(l_n, d_n, view="tree", verbose_level=2, threshold_to_diff_deeper=0)
    for report, items in dd.items():
        for item in items:
            raw_path = item.path(output_format="list")
            segments = [_unmarker(p) if isinstance(p, str) and p.startswith(_PREFIX) else p for p in raw_path]
            # lists of plain values are compared whole
            cut = _scalar_list_cut(raw_path, l_n, d_n)
            if cut is not None:
                segments = segments[:cut]
                old, new = tree_get(l_n, raw_path[:cut]), tree_get(d_n, raw_path[:cut])
                if ownership is not None and ownership.element_relationship(raw_path[:cut]) == "set":
                    set_change(raw_path[:cut], old, new)
                    continue
                op = "replace" if old is not None and new is not None else ("add" if new is not None else "remove")
                if op == "remove" and ownership is not None:
                    for sub in ownership.prune(raw_path[:cut], l_n, d_n):
                        conflict(sub, op)
                        add(_segments(sub), op, tree_get(l_n, sub), None)
                    continue
                if op == "remove" and not _user_set(a_n, raw_path[:cut]):
                    continue
                conflict(raw_path[:cut], op)
                add(segments, op, old, new)
                continue
            old = None if _absent(item.t1) else item.t1
            new = None if _absent(item.t2) else item.t2
            if old is None and new is None:
                continue
            if ownership is not None and isinstance(old if new is None else new, list) and \
                    ownership.element_relationship(raw_path) == "set":
                set_change(raw_path, old, new)
                continue
            if new is None and ownership is not None:
                # what the apply removes of it: all of it, parts of it (a granular map such as
                # metadata.annotations keeps the entries other managers own), or nothing
                for sub in ownership.prune(raw_path, l_n, d_n):
                    conflict(sub, "remove")
                    add(_segments(sub), "remove", tree_get(l_n, sub), None)
                continue
            conflict(raw_path, "replace" if old is not None and new is not None else "add")
            if new is None:
                if list(raw_path) == ["metadata", "annotations"] and isinstance(old, Mapping):
                    # kubectl apply adds its last-applied annotation to the manifest it
                    # patches with (apply.go GetModifiedConfiguration), so the patch never
                    # drops the whole map: only the annotations the manifest last applied
                    # (or sets to null) go, other clients' stay
                    for k in sorted(old):
                        if _user_set(a_n, [*raw_path, k]):
                            add([*segments, k], "remove", old[k], None)
                    continue
                if not _user_set(a_n, raw_path):
                    continue  # set by the server or a controller
                add(segments, "remove", old, None)
            elif old is None:
                add(segments, "add", None, new)
            else:
                add(segments, "replace", old, new)

    for c, segments in _order_changes(d_n, l_n, hooks, desired):
        if ownership is not None and ownership.element_relationship(_normalized_path(segments)) == "atomic":
            conflict(_normalized_path(segments), "replace")  # reordering an atomic list modifies it
        if c.path not in found:
            found[c.path] = c
            segs_of[c.path] = segments
    return tuple(found[p] for p in sorted(found))


def _segments(raw_path: Sequence[Any]) -> list[Any]:
    """A normalized path as change segments (markers as ``Key``)."""
    return [_unmarker(p) if isinstance(p, str) and p.startswith(_PREFIX) else p for p in raw_path]


def _normalized_path(segments: Sequence[Any]) -> list[Any]:
    """The inverse of ``_segments``."""
    return [_marker(s.field, s.value) if isinstance(s, Key) else s for s in segments]


def _absent(v: Any) -> bool:
    return v is None or type(v).__name__ == "NotPresent" or repr(v) == "not present"



def _scalar_list_cut(path: Sequence[Any], a: Any, b: Any) -> int | None:
    """Index in ``path`` of the first list of plain values it walks into, if any."""
    for i, p in enumerate(path):
        if isinstance(p, int) and not isinstance(p, bool):
            la, lb = tree_get(a, path[:i]), tree_get(b, path[:i])
            lists = [x for x in (la, lb) if isinstance(x, list)]
            if lists and all(all(_scalar(v) for v in x) for x in lists):
                return i
    # the whole value at the path may itself be a list of scalars; that is fine as is
    return None


def _through_list(path: Sequence[Any]) -> bool:
    """Whether a normalized path goes through a list item (a position, or a keyed list's
    marker)."""
    return any((isinstance(p, int) and not isinstance(p, bool)) or (isinstance(p, str) and p.startswith(_PREFIX))
               for p in path)


#: what an explicit null of the manifest becomes in ``_nulls_marked`` (kept by ``_normalize``)
_NULL = "\x00null"


def _nulls_marked(v: Any) -> Any:
    """``v`` with its explicit nulls replaced by ``_NULL``."""
    if isinstance(v, dict):
        return {k: _NULL if x is None else _nulls_marked(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_nulls_marked(x) for x in v]
    return v


def _null_at(written_n: Any, path: Sequence[Any]) -> bool:
    """Whether the manifest (``_nulls_marked``, normalized) sets ``path`` or a field
    above it to null."""
    return any(tree_get(written_n, path[:i]) == _NULL for i in range(1, len(path) + 1))


def _applied_has(applied_n: Any, path: Sequence[Any]) -> bool:
    """Whether the last-applied configuration has a value at ``path``."""
    if applied_n is None:
        return False
    return tree_get(applied_n, path) is not None


def line_for(desired: Obj, segments: Sequence[Any]) -> int:
    """The line in the desired manifest of the deepest existing prefix of ``segments``."""
    raw_path: list[Any] = []
    cur: Any = desired.raw
    for s in segments:
        if isinstance(s, Key):
            if not isinstance(cur, list):
                break
            idx = next((i for i, it in enumerate(cur) if isinstance(it, dict) and str(it.get(s.field)) == s.value), None)
            if idx is None:
                break
            raw_path.append(idx)
            cur = cur[idx]
        elif isinstance(s, int) and not isinstance(s, bool):
            if not isinstance(cur, list) or s >= len(cur):
                break
            raw_path.append(s)
            cur = cur[s]
        else:
            if not isinstance(cur, dict) or s not in cur:
                break
            raw_path.append(s)
            cur = cur[s]
    return desired.line_of(*raw_path)


def _order_changes(d_n: Any, l_n: Any, hooks: DiffHooks, desired: Obj) -> list[tuple[Change, list[Any]]]:
    """Keyed lists whose items were reordered, where the order matters to the kind."""
    out: list[tuple[Change, list[Any]]] = []

    def walk(a: Any, b: Any, segs: list[Any]) -> None:
        if not (isinstance(a, dict) and isinstance(b, dict)):
            return
        keyed = bool(a) and bool(b) and all(isinstance(k, str) and k.startswith(_PREFIX) for k in list(a) + list(b))
        if keyed:
            common = [k for k in a if k in b]
            order_a = [k for k in a if k in common]
            order_b = [k for k in b if k in common]
            if order_a != order_b and hooks.order_matters(tuple(segs)):
                old = [_unmarker(k).value for k in a]
                new = [_unmarker(k).value for k in b]
                c = Change(render_path(segs), "replace", old, new, desired.file, line_for(desired, segs))
                out.append((c, list(segs)))
            for k in common:
                walk(a[k], b[k], segs + [_unmarker(k)])
            return
        for k in a:
            if k in b:
                walk(a[k], b[k], segs + [k])

    walk(l_n, d_n, [])
    return out
