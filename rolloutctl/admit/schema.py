"""Schema rules (``SC###``): our JSON Schemas of the admitted kinds, compiled once per
process (``admit.validator``), turned into findings with file and line; and the
structural defaults of those schemas, applied as the API server applies CRD defaults.

The schema of a kind is named by its registry entry (``kinds.KINDS``, ``KIND.schema``); nothing
here knows an operator. Upstream: k8s.io/apiextensions-apiserver
``pkg/apiserver/schema/defaulting`` (``Default``: structural defaults, KEP-575),
``pkg/apiserver/schema/pruning`` and ``pkg/apiserver/validation``
(``ValidateCustomResource``: the openAPIV3Schema of the served version).
"""

from __future__ import annotations

import difflib
import json
from functools import lru_cache
from collections.abc import Mapping
from typing import Any, Callable, Iterable, Iterator, TypeVar

from ..core.model import Finding, Obj
from ..core.quantity import QUANTITY_PATTERN
from ..core.trees import copy_tree
from ..schemas_access import schema
from ..core.paths import field_path
from .validator import Compiled

UNKNOWN_FIELD = "SC001"
REQUIRED_FIELD = "SC002"
WRONG_TYPE = "SC003"
BAD_VALUE = "SC004"
UNSERVED_VERSION = "SC005"

_TYPE_VALIDATORS = {"type", "anyOf", "oneOf"}
T = TypeVar("T")


def load_schema(filename: str) -> dict[str, Any]:
    return schema(filename.removesuffix(".schema.json"))


@lru_cache(maxsize=None)
def _validator(filename: str) -> Compiled:
    """One compiled validator per schema and process."""
    return Compiled(load_schema(filename))


def resolve(root: Mapping[str, Any], node: Mapping[str, Any]) -> Mapping[str, Any]:
    """Follow ``$ref`` to the node it names. Schema nodes are the plain dicts that
    ``json.loads`` gives (``schemas_access.load_schema``), so the walks here and in
    ``admit.cel`` test them with ``dict``, not the slower ``Mapping`` ABC check."""
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        if not ref.startswith("#/$defs/"):
            break
        node = root["$defs"][ref[len("#/$defs/"):]]
    return node


class _Defaulter:
    """``structuraldefaulting.Default`` for one schema, each object node prepared once per
    process (``prepared``; the schema does not change): the properties that have a
    default, in schema order, and the resolved sub-schema of every property and of the
    items. Walking an object then costs its own fields, not every property the schema
    lists (a pod spec lists hundreds)."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self._nodes: dict[int, tuple[list[tuple[str, Any]], dict[str, Mapping[str, Any]], Any]] = {}

    def node(self, node: Mapping[str, Any]) -> tuple[list[tuple[str, Any]], dict[str, Mapping[str, Any]], Any]:
        """(defaults, {property: sub-schema}, items) of a resolved node."""
        prepared = self._nodes.get(id(node))
        if prepared is None:
            defaults, subs = [], {}
            for key, sub in (node.get("properties") or {}).items():
                sub_r = resolve(self.root, sub)
                if "default" in sub_r:
                    defaults.append((key, sub_r["default"]))
                subs[key] = sub_r
            items = node.get("items")
            prepared = self._nodes[id(node)] = (defaults, subs, resolve(self.root, items)
                                                if isinstance(items, dict) else None)
        return prepared

    def fill(self, value: Any) -> None:
        """The defaults of the schema filled into ``value`` (its root), in place."""
        node = self.node

        def walk(value: Any, prep: tuple[list[tuple[str, Any]], dict[str, Mapping[str, Any]], Any]) -> None:
            defaults, subs, items = prep
            if value.__class__ is dict:
                for key, default in defaults:
                    if key not in value:
                        value[key] = copy_tree(default)
                for key, item in value.items():
                    if item.__class__ is dict or item.__class__ is list:
                        sub = subs.get(key)
                        if sub is not None:
                            walk(item, node(sub))
            elif value.__class__ is list and items is not None:
                sp = node(items)
                for item in value:
                    if item.__class__ is dict or item.__class__ is list:
                        walk(item, sp)

        walk(value, node(resolve(self.root, self.root)))


def apply_schema_defaults(raw: dict, filename: str) -> dict:
    """``raw`` (changed in place and returned) with the ``default`` values of its schema
    filled in, nested, as ``structuraldefaulting.Default`` does: a default applies where
    the field is absent and its parent object exists."""
    prepared(load_schema(filename), _Defaulter).fill(raw)
    return raw


def _nullable(root: Mapping[str, Any], node: Mapping[str, Any]) -> bool:
    node = resolve(root, node)
    t = node.get("type")
    return node.get("nullable") is True or t == "null" or (isinstance(t, list) and "null" in t)


_NO_NODE: tuple[dict[str, Any], Any, Any] = ({}, None, None)
#: ``_Pruner.node``'s additional properties of an object that allows none
_CLOSED: dict[str, Any] = {}
#: the root of an object without a schema (one object: ``prepared`` holds what is made per root)
_NO_SCHEMA: dict[str, Any] = {}


class _Pruner:
    """One schema's nodes as ``prune_nulls`` needs them, each prepared once per process
    (``prepared``): the resolved sub-schemas of its properties, additional properties and
    items, and which of them are nullable."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self._nodes: dict[int, tuple[dict[str, Any], Any, Any]] = {}
        self._nullable: dict[int, bool] = {}

    def node(self, node: Any) -> tuple[dict[str, Any], Any, Any]:
        """(properties, additional properties, items) of a resolved node, resolved
        (additional properties ``_CLOSED``: the node allows none)."""
        if node is None:
            return _NO_NODE
        got = self._nodes.get(id(node))
        if got is None:
            root = self.root
            extra, items = node.get("additionalProperties"), node.get("items")
            got = self._nodes[id(node)] = (
                {k: resolve(root, v) for k, v in (node.get("properties") or {}).items()},
                resolve(root, extra) if isinstance(extra, dict) else _CLOSED if extra is False else None,
                resolve(root, items) if isinstance(items, dict) else None)
        return got

    def nullable(self, node: Any) -> bool:
        if node is None:
            return False
        got = self._nullable.get(id(node))
        if got is None:
            got = self._nullable[id(node)] = _nullable(self.root, node)
        return got


def prune_nulls(raw: Any, filename: str | None) -> Any:
    """Remove ``null`` fields the schema does not mark nullable (in place), as
    ``structuraldefaulting.PruneNonNullableNullsWithoutDefaults`` does for a custom
    resource and as Go's JSON decoding does for a built-in object (a nil pointer is
    an absent field). Runs before defaulting, so a pruned field with a default gets
    its default. Nulls inside lists are kept (validation reports them), and so is a null
    field of a name the schema does not know where it allows no other: the API server
    prunes unknown fields first (``unstructuredSchemaCoercer.apply``:
    ``structuralpruning.PruneWithOptions``, then ``PruneNonNullableNullsWithoutDefaults``),
    so strict field validation reports it as unknown whatever its value."""
    root = load_schema(filename) if filename else _NO_SCHEMA
    p = prepared(root, _Pruner)
    node, nullable = p.node, p.nullable

    def walk(value: Any, prep: tuple[dict[str, Any], Any, Any]) -> None:
        props, extra, items = prep
        if value.__class__ is dict:
            nulls = None
            for key, item in value.items():
                sub = props.get(key)
                if sub is None:
                    if extra is _CLOSED:
                        continue  # an unknown field: validation reports it (SC001)
                    sub = extra
                if item is None:
                    if not nullable(sub):
                        if nulls is None:
                            nulls = []
                        nulls.append(key)
                elif item.__class__ is dict or item.__class__ is list:
                    walk(item, node(sub))
            if nulls is not None:
                for key in nulls:
                    del value[key]
        elif value.__class__ is list:
            sp = node(items)
            for item in value:
                if item.__class__ is dict or item.__class__ is list:
                    walk(item, sp)

    walk(raw, node(resolve(root, root)) if filename else _NO_NODE)
    return raw


def _suggest(word: str, candidates: list[str]) -> str:
    lower = {c.lower(): c for c in candidates}
    if word.lower() in lower:
        return lower[word.lower()]
    close = difflib.get_close_matches(word, candidates, n=1, cutoff=0.6)
    return close[0] if close else ""


def _type_name(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def _short(v: Any, limit: int = 60) -> str:
    """A user's value in a message, cut to ``limit`` characters."""
    r = repr(v)
    return r if len(r) <= limit else r[: limit - 4] + "…" + r[-3:]


#: what a walk prepared of one schema, per (schema, preparation): schemas are loaded once per
#: process and never change; each is kept with what was made of it, so that its id stays its own
_PREPARED: dict[tuple[int, Callable[..., Any]], tuple[Mapping[str, Any], Any]] = {}


def prepared(root: Mapping[str, Any], make: Callable[[Mapping[str, Any]], T]) -> T:
    """``make(root)``, made once per schema and process (``Compiled`` validators of inline
    schemas, the CEL and keyed-list walks' prepared nodes)."""
    key = (id(root), make)
    held = _PREPARED.get(key)
    if held is None or held[0] is not root:
        held = _PREPARED[key] = (root, make(root))
    return held[1]  # type: ignore[no-any-return]


#: ``ratcheted(path, message)``: the finding at ``path`` (of the object's raw tree) as a
#: ratcheted warning's message, or None when the error stands (``admit.ratchet``)
Ratchet = Callable[[tuple, str], "str | None"]


def check_schema(obj: Obj, filename: str | None, ratcheted: Ratchet | None = None) -> list[Finding]:
    """Schema findings for one object against the schema file ``filename`` (none without
    one). On an update, ``ratcheted`` turns errors on unchanged parts into warnings; an
    unknown field (strict decoding, not the schema) and a wrong type (the models could
    not read the object) are never ratcheted."""
    if filename is None:
        return []
    return check_against(obj, load_schema(filename), _validator(filename), ratcheted)


def check_types(obj: Obj, root: Mapping[str, Any]) -> list[Finding]:
    """Wrong types (SC003) of ``obj`` against an inline schema of types (the observed
    side's read schemas); the schema is compiled once per process."""
    return [f for f in check_against(obj, root, prepared(root, Compiled)) if f.rule == WRONG_TYPE]


def check_against(obj: Obj, root: Mapping[str, Any], compiled: Compiled,
                  ratcheted: Ratchet | None = None) -> list[Finding]:
    out: list[Finding] = []

    def add(rule: str, path: tuple, message: str, node: tuple | None = None) -> None:
        at = path if node is None else node  # a missing field is the object's: its line, its correlation
        severity = "error"
        if ratcheted is not None and rule not in (UNKNOWN_FIELD, WRONG_TYPE):
            kept = ratcheted(at, message)
            if kept is not None:
                severity, message = "warning", kept
        out.append(Finding(rule=rule, severity=severity, file=obj.file, line=obj.line_of(*at),
                           message=message, path=field_path(obj.raw, path), object=obj.ref))

    for err in compiled.iter_errors(obj.raw):
        path = tuple(err.absolute_path)
        v = err.validator
        if v == "additionalProperties":
            props = sorted((resolve(root, err.schema).get("properties") or {}).keys())
            for key in err.instance:
                if key in props:
                    continue
                hint = _suggest(str(key), props)
                msg = f"unknown field {key!r}" + (f" (did you mean {hint!r}?)" if hint else "")
                add(UNKNOWN_FIELD, (*path, key), msg)
        elif v == "required":
            for key in err.validator_value:
                if isinstance(err.instance, Mapping) and key not in err.instance:
                    add(REQUIRED_FIELD, (*path, key), f"missing required field {key!r}", node=path)
        elif v in _TYPE_VALIDATORS:
            want = err.validator_value if v == "type" else "a quantity: an integer or a string"
            want = " or ".join(want) if isinstance(want, list) else want
            shown = "" if err.instance is None else " " + json.dumps(err.instance)[:60]
            hint = ""
            if v != "type" and isinstance(err.instance, float):
                # int-or-string: the API server refuses a JSON number with a fraction
                # ("must be of type integer,string"); quoted, it is a quantity
                hint = f" (quote it: \"{err.instance}\")"
            add(WRONG_TYPE, path, f"expected {want}, got {_type_name(err.instance)}{shown}{hint}")
        elif v == "const" and path in (("apiVersion",), ("kind",)):
            add(UNSERVED_VERSION, path, f"{path[0]} must be {err.validator_value!r}")
        elif v == "enum":
            allowed = ", ".join(map(str, err.validator_value))
            add(BAD_VALUE, path, f"unsupported value {_short(err.instance)}: must be one of {allowed}")
        elif v == "minimum":
            add(BAD_VALUE, path, f"must be greater than or equal to {err.validator_value} (got {_short(err.instance)})")
        elif v == "maximum":
            add(BAD_VALUE, path, f"must be less than or equal to {err.validator_value} (got {_short(err.instance)})")
        elif v == "maxLength":
            add(BAD_VALUE, path, f"must be no more than {err.validator_value} characters (got {len(err.instance)})")
        elif v == "pattern":
            add(BAD_VALUE, path, f"{_short(err.instance)} does not match {err.validator_value}")
        else:
            add(BAD_VALUE, path, err.message or f"invalid value ({v})")
    return sorted(set(out), key=Finding.sort_key)


def iter_property_names(filename: str) -> Iterator[tuple[tuple[str, ...], str]]:
    """(path of property names, name) for every property our schema declares (tests)."""
    root = load_schema(filename)

    def walk(node: Mapping[str, Any], path: tuple[str, ...], seen: frozenset) -> Iterator[tuple[tuple[str, ...], str]]:
        ref = node.get("$ref") if isinstance(node, dict) else None
        if ref:
            if ref in seen:
                return
            seen = seen | {ref}
        node = resolve(root, node)
        for key, sub in (node.get("properties") or {}).items():
            yield path, key
            yield from walk(sub, (*path, key), seen)
        if isinstance(node.get("items"), dict):
            yield from walk(node["items"], (*path, "[]"), seen)

    yield from walk(root, (), frozenset())


def _is_quantity(root: Mapping[str, Any], node: Mapping[str, Any]) -> bool:
    """A ``resource.Quantity`` node: it, or one of its ``anyOf`` alternatives, has the
    CRDs' quantity pattern (``core.quantity.QUANTITY_PATTERN``)."""
    node = resolve(root, node)
    if node.get("pattern") == QUANTITY_PATTERN:
        return True
    return any(s.__class__ is dict and s.get("pattern") == QUANTITY_PATTERN
               for s in (resolve(root, a) for a in node.get("anyOf") or ()))


class Reach:
    """Which nodes of one schema (``root``) have something (``here(node)``) at or below
    them, through ``children(node)``, each node found once per process (schemas are
    loaded once): a walk of an object then enters only the parts that lead to it. Nodes
    are resolved (``resolve``); one that is not a schema node counts as an empty one.
    In a recursive schema a node counts as reaching until its own walk is done (never
    wrong; at worst a longer walk)."""

    def __init__(self, root: Mapping[str, Any], here: Callable[[Mapping[str, Any]], bool],
                 children: Callable[[Mapping[str, Any]], Iterable[Any]]) -> None:
        self.root, self.here, self.children = root, here, children
        self._known: dict[int, bool] = {}

    def node(self, node: Any) -> Mapping[str, Any]:
        """``node`` resolved, and an empty node for what is not a schema node."""
        if node.__class__ is dict and "$ref" in node:
            node = resolve(self.root, node)
        return node if node.__class__ is dict else _NO_SCHEMA

    def __call__(self, node: Any) -> bool:
        node = self.node(node)
        known = self._known.get(id(node))
        return self._explore(node) if known is None else known

    def _explore(self, start: Mapping[str, Any]) -> bool:
        """Whether ``start`` (not known yet) reaches: a depth-first walk without
        recursion that stops at the first node found reaching (then every node on the
        way there reaches too) and records every node it finishes. (A schema's nodes
        have many more edges than nodes: resolving a child costs a call only when it
        is a reference.)"""
        known, here, children, root = self._known, self.here, self.children, self.root
        known[id(start)] = True  # (while its walk is not done)
        if here(start):
            return True
        nodes, todo = [start], [iter(children(start))]
        reached = False
        while todo:
            if reached:  # the top node reaches: so do all below it on the stack
                known[id(nodes.pop())] = True
                todo.pop()
                continue
            for child in todo[-1]:
                if child.__class__ is not dict:
                    child = _NO_SCHEMA
                elif "$ref" in child:
                    child = resolve(root, child)
                    if child.__class__ is not dict:
                        child = _NO_SCHEMA
                got = known.get(id(child))
                if got is None:
                    known[id(child)] = True
                    if here(child):
                        reached = True
                    else:
                        nodes.append(child)
                        todo.append(iter(children(child)))
                    break
                if got:
                    reached = True
                    break
            else:  # no child of the top node reaches
                known[id(nodes.pop())] = False
                todo.pop()
        return known[id(start)]


_UNSET = object()


class LazyProperties:
    """A node's ``{property: resolved sub-schema, or None when nothing the walk wants is
    at or below it}``, each property's answer found the first time an object has it (a
    pod spec's affinity and volumes are explored only for objects that set them).
    ``get(key, default)``: ``default`` for an undeclared property."""

    __slots__ = ("_props", "_resolve", "_below", "_got")

    def __init__(self, props: Mapping[str, Any], resolve: Callable[[Any], Any], below: Callable[[Any], bool]) -> None:
        self._props, self._resolve, self._below = props, resolve, below
        self._got: dict[str, Any] = {}

    def get(self, key: str, default: Any = None) -> Any:
        got = self._got.get(key, _UNSET)
        if got is _UNSET:
            sub = self._props.get(key, _UNSET)
            if sub is _UNSET:
                return default
            got = self._got[key] = self._resolve(sub) if self._below(sub) else None
        return got


class _Quantities:
    """Where a schema's ``resource.Quantity`` values are, each node prepared once per
    process (``prepared``): whether it is a quantity, and the resolved sub-schemas of its
    properties, additional properties and items that are or hold a quantity (the walk
    enters only those parts of an object: a pod's env, ports, probes and volumes hold
    none)."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self._nodes: dict[int, tuple[bool, "LazyProperties", Any, Any]] = {}
        self._is: dict[int, bool] = {}
        self._below = Reach(root, self._is_quantity, self._children)

    def _is_quantity(self, node: Mapping[str, Any]) -> bool:
        got = self._is.get(id(node))
        if got is None:
            got = self._is[id(node)] = _is_quantity(self.root, node)
        return got

    def _children(self, node: Mapping[str, Any]) -> list[Any]:
        extra, items = node.get("additionalProperties"), node.get("items")
        return [*(node.get("properties") or {}).values(), *(n for n in (extra, items) if isinstance(n, dict))]

    def node(self, node: Mapping[str, Any]) -> tuple[bool, "LazyProperties", Any, Any]:
        """(is a quantity, {property: sub-schema}, additional properties, items) of a
        resolved node, the sub-schemas resolved and only those that lead to a quantity."""
        prepared = self._nodes.get(id(node))
        if prepared is None:
            root, below = self.root, self._below
            extra, items = node.get("additionalProperties"), node.get("items")
            prepared = self._nodes[id(node)] = (
                self._is_quantity(node),
                # (a declared property that holds none maps to None: it never falls back to
                # additionalProperties)
                LazyProperties(node.get("properties") or {}, lambda v: resolve(root, v), below),
                resolve(root, extra) if isinstance(extra, dict) and below(extra) else None,
                resolve(root, items) if isinstance(items, dict) and below(items) else None)
        return prepared


def canonical_quantities(raw: Any, root: Mapping[str, Any], canonical: Callable[[Any], Any],
                         invalid: tuple[type[Exception], ...]) -> None:
    """Every value of ``raw`` whose schema (``root``) is a ``resource.Quantity`` replaced,
    in place, by ``canonical(value)``; one that raises ``invalid`` stays as written."""
    q = prepared(root, _Quantities)
    node = q.node

    def walk(value: Any, prep: tuple[bool, "LazyProperties", Any, Any]) -> None:
        _, props, extra, items = prep
        if value.__class__ is dict:
            for key, item in value.items():
                sub = props.get(key, extra)
                if sub is not None:
                    at(value, key, item, node(sub))
        elif value.__class__ is list and items is not None:
            sp = node(items)
            for i, item in enumerate(value):
                at(value, i, item, sp)

    def at(parent: Any, key: Any, item: Any, prep: tuple[bool, "LazyProperties", Any, Any]) -> None:
        if prep[0]:
            try:
                parent[key] = canonical(item)
            except invalid:
                pass
        elif item.__class__ is dict or item.__class__ is list:
            walk(item, prep)

    walk(raw, node(resolve(root, root)))
