"""A small JSON Schema validator compiled once per schema, for the keywords our
input schemas use (``type``, ``properties``, ``additionalProperties``, ``required``,
``items``, ``enum``, ``const``, ``minimum``, ``maximum``, ``maxLength``, ``pattern``,
``anyOf``, local ``$ref``). It is several times faster to import and to run than the
general-purpose jsonschema package, which the tests use to check that both agree.

Errors mimic the fields of ``jsonschema.ValidationError`` that ``lint.schema``
reads: ``validator``, ``validator_value``, ``instance``, ``schema``, ``absolute_path``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Callable, Iterator

from ..core.quantity import QUANTITY_PATTERN, matches_quantity_pattern
from ..core.records import record

SUPPORTED = {"$schema", "$id", "$defs", "$ref", "title", "description", "default", "type", "properties",
             "additionalProperties", "required", "items", "enum", "const", "minimum", "maximum", "maxLength", "pattern", "anyOf",
             "x-kubernetes-validations",  # CEL rules: evaluated by admit/cel.py
             # how list items correlate on update: read by admit/ratchet.py
             "x-kubernetes-list-type", "x-kubernetes-list-map-keys"}


@record(frozen=True)
class SchemaError:
    validator: str
    validator_value: Any
    instance: Any
    schema: Mapping[str, Any]
    absolute_path: tuple
    message: str = ""


Check = Callable[[Any, tuple], Iterator[SchemaError]]


def go_pattern(pattern: str) -> str:
    """``pattern`` with Go's meaning of ``$`` in Python syntax. The API server checks a
    schema's ``pattern`` with Go's ``regexp`` (``k8s.io/apiextensions-apiserver``,
    ``pkg/apiserver/validation``), where ``$`` outside a character class is the end of the
    text; Python's ``$`` also matches before a final newline, so ``"1Gi\\n"`` would pass a
    quantity pattern the API server rejects. Each such ``$`` becomes ``\\Z``."""
    out, i, in_class = [], 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]" or pattern[i - 1] == "[" or pattern[i - 2:i] == "[^"
        elif c == "[":
            in_class = True
        elif c == "$":
            c = "\\Z"
        out.append(c)
        i += 1
    return "".join(out)


#: patterns every Kubernetes CRD repeats, read by a scanner that matches them exactly
#: instead of a compiled regular expression (``core.quantity``; tests compare the two)
KNOWN_PATTERNS: dict[str, Callable[[str], bool]] = {QUANTITY_PATTERN: matches_quantity_pattern}


def pattern_test(pattern: str) -> Callable[[str], bool]:
    """Whether a string matches a schema's ``pattern`` as the API server's Go ``regexp``
    finds it (``go_pattern``; a ``KNOWN_PATTERNS`` one by its scanner)."""
    known = KNOWN_PATTERNS.get(pattern)
    if known is not None:
        return known
    search = re.compile(go_pattern(pattern)).search
    return lambda v: search(v) is not None


_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


Valid = Callable[[Any], bool]


def _by_ref(root: Mapping[str, Any], ref: str, made: dict[str, Any], compile: Callable[[Mapping[str, Any]], Any]) -> Any:
    """What ``compile`` makes of the local ``$ref`` ``ref``, made once (``made``); a schema
    that refers to itself gets a forwarder while it is being compiled."""
    if ref not in made:
        if not ref.startswith("#/$defs/"):
            raise ValueError(f"unsupported $ref {ref!r}")
        holder: list[Any] = []
        made[ref] = lambda *a: holder[0](*a)  # allows recursion
        holder.append(compile(root["$defs"][ref[len("#/$defs/"):]]))
        made[ref] = holder[0]
    return made[ref]


def _supported(s: Mapping[str, Any]) -> None:
    """Refuse a schema node with a keyword the validator does not implement (it would
    ignore it silently)."""
    if not SUPPORTED.issuperset(s):
        raise ValueError(f"unsupported schema keywords: {sorted(set(s) - SUPPORTED)}")


def refuse_unknown(root: Mapping[str, Any]) -> None:
    """``_supported`` on every schema node of ``root`` at once: its sub-schemas
    (properties, additional properties, items, ``anyOf``) and its ``$defs``. (``Compiled``
    refuses each node as it compiles it; the tests check every bundled schema whole.)"""
    todo = [root, *(root.get("$defs") or {}).values()]
    while todo:
        s = todo.pop()
        if s.__class__ is not dict and not isinstance(s, Mapping):
            continue
        _supported(s)
        if s.get("properties"):
            todo.extend(s["properties"].values())
        if s.get("anyOf"):
            todo.extend(s["anyOf"])
        if "items" in s:
            todo.append(s["items"])
        if "additionalProperties" in s:
            todo.append(s["additionalProperties"])


class Compiled:
    """``iter_errors(instance)`` for one schema; sub-schemas compiled once and shared.
    Each schema is compiled twice: into a test of validity (plain calls that stop at the
    first error, no paths) and into the generators that describe every error; an
    instance is walked by the second only when the first finds it invalid (most are
    valid). The second is compiled when the first instance fails the test: a command
    whose inputs are all valid (most plans) never builds it. The test of validity
    compiles a property's, an item's or an additional property's sub-schema the first
    time an instance has one: a RayService's schema describes every field of a pod
    spec, of which a manifest sets a few. A node with a keyword the validator does not
    implement is refused when it is compiled, before any instance is checked against it
    (``_supported``; every bundled schema is clean, ``refuse_unknown``)."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self._refs: dict[str, Check] = {}
        self._valid_refs: dict[str, Valid] = {}
        self._check: Check | None = None
        self._valid = self._compile_valid(root)

    def iter_errors(self, instance: Any) -> Iterator[SchemaError]:
        if self._valid(instance):
            return iter(())
        if self._check is None:
            self._check = self._compile(self.root)
        return self._check(instance, ())

    def is_valid(self, instance: Any) -> bool:
        return self._valid(instance)

    # ------------------------------------------------------------------ validity
    def _valid_ref(self, ref: str) -> Valid:
        return _by_ref(self.root, ref, self._valid_refs, self._compile_valid)

    def _compile_valid(self, s: Mapping[str, Any]) -> Valid:
        """Whether an instance meets ``s``: true exactly when ``_compile(s)`` yields no error."""
        _supported(s)
        if "$ref" in s:
            return self._valid_ref(s["$ref"])
        tests: list[Valid] = []
        if "type" in s:
            names = s["type"] if isinstance(s["type"], list) else [s["type"]]
            kinds = [_TYPES[n] for n in names]
            tests.append(kinds[0] if len(kinds) == 1 else (lambda v, kinds=kinds: any(t(v) for t in kinds)))
        if "const" in s:
            cv = s["const"]
            tests.append(lambda v: _equal(v, cv))
        if "enum" in s:
            ev = s["enum"]
            tests.append(lambda v: any(_equal(v, e) for e in ev))
        if "minimum" in s:
            mv, number = s["minimum"], _TYPES["number"]
            tests.append(lambda v: not (number(v) and v < mv))
        if "maximum" in s:
            xv, number = s["maximum"], _TYPES["number"]
            tests.append(lambda v: not (number(v) and v > xv))
        if "maxLength" in s:
            ml = s["maxLength"]
            tests.append(lambda v: not (isinstance(v, str) and len(v) > ml))
        if "pattern" in s:
            found = pattern_test(s["pattern"])
            tests.append(lambda v: not isinstance(v, str) or found(v))
        if "anyOf" in s:
            alts = [self._compile_valid(x) for x in s["anyOf"]]
            tests.append(lambda v: any(alt(v) for alt in alts))
        if "required" in s:
            req = list(s["required"])
            tests.append(lambda v: not isinstance(v, dict) or all(k in v for k in req))
        if "properties" in s or "additionalProperties" in s:
            declared = s.get("properties") or {}
            props: dict[str, Valid] = {}  # compiled on first use
            ap = s.get("additionalProperties", True)
            ap_schema = ap if isinstance(ap, Mapping) else None
            ap_valid: Valid | None = None
            closed = ap is False
            compile = self._compile_valid

            def v_props(v: Any) -> bool:
                nonlocal ap_valid
                if not isinstance(v, dict):
                    return True
                for k, item in v.items():
                    sub = props.get(k)
                    if sub is None and k in declared:
                        sub = props[k] = compile(declared[k])
                    if sub is not None:
                        if not sub(item):
                            return False
                    elif closed:
                        return False
                    elif ap_schema is not None:
                        if ap_valid is None:
                            ap_valid = compile(ap_schema)
                        if not ap_valid(item):
                            return False
                return True
            tests.append(v_props)
        if "items" in s:
            item_schema = s["items"]
            item_valid: Valid | None = None
            compile = self._compile_valid

            def v_items(v: Any) -> bool:
                nonlocal item_valid
                if isinstance(v, list) and v:
                    if item_valid is None:
                        item_valid = compile(item_schema)
                    for item in v:
                        if not item_valid(item):
                            return False
                return True
            tests.append(v_items)
        if not tests:
            return lambda v: True
        if len(tests) == 1:
            return tests[0]

        def v_all(v: Any) -> bool:
            for t in tests:
                if not t(v):
                    return False
            return True
        return v_all

    # ------------------------------------------------------------------ compile
    def _ref(self, ref: str) -> Check:
        return _by_ref(self.root, ref, self._refs, self._compile)

    def _compile(self, s: Mapping[str, Any]) -> Check:
        _supported(s)
        if "$ref" in s:
            return self._ref(s["$ref"])
        checks: list[Check] = []
        if "type" in s:
            names = s["type"] if isinstance(s["type"], list) else [s["type"]]
            tests = [_TYPES[n] for n in names]
            tv = s["type"]

            def c_type(v: Any, p: tuple, tests=tests, tv=tv) -> Iterator[SchemaError]:
                if not any(t(v) for t in tests):
                    yield SchemaError("type", tv, v, s, p)
            checks.append(c_type)
        if "const" in s:
            cv = s["const"]

            def c_const(v: Any, p: tuple) -> Iterator[SchemaError]:
                if not _equal(v, cv):
                    yield SchemaError("const", cv, v, s, p)
            checks.append(c_const)
        if "enum" in s:
            ev = s["enum"]

            def c_enum(v: Any, p: tuple) -> Iterator[SchemaError]:
                if not any(_equal(v, e) for e in ev):
                    yield SchemaError("enum", ev, v, s, p)
            checks.append(c_enum)
        if "minimum" in s:
            mv = s["minimum"]

            def c_min(v: Any, p: tuple) -> Iterator[SchemaError]:
                if _TYPES["number"](v) and v < mv:
                    yield SchemaError("minimum", mv, v, s, p)
            checks.append(c_min)
        if "maximum" in s:
            xv = s["maximum"]

            def c_max(v: Any, p: tuple) -> Iterator[SchemaError]:
                if _TYPES["number"](v) and v > xv:
                    yield SchemaError("maximum", xv, v, s, p)
            checks.append(c_max)
        if "maxLength" in s:
            ml = s["maxLength"]

            def c_maxlen(v: Any, p: tuple) -> Iterator[SchemaError]:
                if isinstance(v, str) and len(v) > ml:
                    yield SchemaError("maxLength", ml, v, s, p)
            checks.append(c_maxlen)
        if "pattern" in s:
            found_in = pattern_test(s["pattern"])
            pv = s["pattern"]

            def c_pattern(v: Any, p: tuple) -> Iterator[SchemaError]:
                if isinstance(v, str) and not found_in(v):
                    yield SchemaError("pattern", pv, v, s, p)
            checks.append(c_pattern)
        if "anyOf" in s:
            subs = [self._compile(x) for x in s["anyOf"]]
            av = s["anyOf"]

            def c_any(v: Any, p: tuple) -> Iterator[SchemaError]:
                if not any(next(sub(v, p), None) is None for sub in subs):
                    yield SchemaError("anyOf", av, v, s, p)
            checks.append(c_any)
        if "required" in s:
            req = list(s["required"])

            def c_required(v: Any, p: tuple) -> Iterator[SchemaError]:
                if isinstance(v, dict) and any(k not in v for k in req):
                    yield SchemaError("required", req, v, s, p)
            checks.append(c_required)
        if "properties" in s or "additionalProperties" in s:
            props = {k: self._compile(sub) for k, sub in (s.get("properties") or {}).items()}
            ap = s.get("additionalProperties", True)
            ap_check = self._compile(ap) if isinstance(ap, Mapping) else None

            def c_props(v: Any, p: tuple) -> Iterator[SchemaError]:
                if not isinstance(v, dict):
                    return
                extra = False
                for k, item in v.items():
                    sub = props.get(k)
                    if sub is not None:
                        yield from sub(item, (*p, k))
                    elif ap is False:
                        extra = True
                    elif ap_check is not None:
                        yield from ap_check(item, (*p, k))
                if extra:
                    yield SchemaError("additionalProperties", ap, v, s, p)
            checks.append(c_props)
        if "items" in s:
            item_check = self._compile(s["items"])

            def c_items(v: Any, p: tuple) -> Iterator[SchemaError]:
                if isinstance(v, list):
                    for i, item in enumerate(v):
                        yield from item_check(item, (*p, i))
            checks.append(c_items)

        if len(checks) == 1:
            return checks[0]

        def c_all(v: Any, p: tuple) -> Iterator[SchemaError]:
            for c in checks:
                yield from c(v, p)
        return c_all
