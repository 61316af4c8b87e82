"""YAML scalars as kubectl decodes them: ``sigs.k8s.io/yaml`` reads YAML with go-yaml v2
(YAML 1.1 as Go has it) and sends it as JSON. Plain scalars resolve as go-yaml v2's
``resolve`` does (``sigs.k8s.io/yaml`` ``goyaml.v2/resolve.go``); tagged ones through
PyYAML's constructors, with the differences Kubernetes has (timestamps and binary data
stay strings, integral floats become integers); mapping keys become the strings
Kubernetes makes of them.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from ..core.text import one_line
from .errors import DocumentError, int_text, quote

_SCALARS = yaml.constructor.SafeConstructor.yaml_constructors
_TAG = "tag:yaml.org,2002:"
_TAG_MAP = _TAG + "map"
_TAG_SEQ = _TAG + "seq"
_TAG_STR = _TAG + "str"
_TAG_MERGE = _TAG + "merge"
#: Kubernetes reads timestamps and binary data as strings; "=" (the YAML 1.1 value key) too.
_AS_TEXT = {_TAG + "timestamp", _TAG + "binary", _TAG + "value"}
MAP_TAGS = {None, "!", _TAG_MAP, _TAG + "set"}
SEQ_TAGS = {None, "!", _TAG_SEQ, _TAG + "omap", _TAG + "pairs"}


_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(2 ** 63), 2 ** 63 - 1, 2 ** 64 - 1
#: go-yaml v2 ``resolve.go``: the first character hints what a plain scalar may be
_HINT_SIGN, _HINT_DIGIT, _HINT_MAP, _HINT_DOT = "S", "D", "M", "."
_HINTS = {**{c: _HINT_DIGIT for c in "0123456789"}, "+": _HINT_SIGN, "-": _HINT_SIGN,
          **{c: _HINT_MAP for c in "yYnNtTfFoO~"}, ".": _HINT_DOT}
_NAN_INF = object()
#: go-yaml v2 ``resolveMap``
_RESOLVE_MAP: dict[str, Any] = {
    **{w: True for w in ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON")},
    **{w: False for w in ("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF")},
    **{w: None for w in ("", "~", "null", "Null", "NULL")},
    **{w: _NAN_INF for w in (".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF",
                             "-.inf", "-.Inf", "-.INF")},
}
#: go-yaml v2 ``yamlStyleFloat``
_GO_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_GO_DIGITS = {2: "01", 8: "01234567", 10: "0123456789", 16: "0123456789abcdefABCDEF"}


def _go_parse_uint(s: str, base: int) -> int | None:
    """``strconv.ParseUint(s, base, 64)`` for base 0 (Go prefixes 0x, 0o, 0b, and a
    leading 0 for octal) or an explicit base; None on a syntax or range error."""
    if base == 0:
        base = 10
        if len(s) > 1 and s[0] == "0":
            p = s[1].lower()
            if p in "xob":
                base, s = {"x": 16, "o": 8, "b": 2}[p], s[2:]
            else:
                base, s = 8, s[1:]
    if not s or any(c not in _GO_DIGITS[base] for c in s):
        return None
    n = int(s, base)
    return n if n <= _UINT64_MAX else None


def _go_parse_int(s: str, base: int = 0) -> int | None:
    """``strconv.ParseInt(s, base, 64)``: an optional sign, then ``_go_parse_uint``."""
    neg = s[:1] == "-"
    body = s[1:] if s[:1] in "+-" else s
    n = _go_parse_uint(body, base)
    if n is None:
        return None
    n = -n if neg else n
    return n if _INT64_MIN <= n <= _INT64_MAX else None


def go_yaml_resolve(value: str) -> Any:
    """A plain (unquoted, untagged) scalar as ``sigs.k8s.io/yaml`` reads it: go-yaml v2's
    ``resolve`` (sigs.k8s.io/yaml goyaml.v2/resolve.go), YAML 1.1 as Go has it, then JSON.

    Differences from PyYAML that change what the API server receives: ``y``/``Y``/
    ``n``/``N`` are booleans; ``1:30`` is a string (no sexagesimal numbers); ``0o3``
    is 3; ``08`` and ``1e3`` are numbers (floats 8.0 and 1000.0, sent as JSON 8 and
    1000); underscores between digits are dropped (``1_000`` is 1000); a timestamp
    stays the string it is (go-yaml v2 decodes timestamps into ``interface{}`` as
    strings). Returns ``_NAN_INF`` for ``.nan``/``.inf``, which JSON cannot carry."""
    if value in _RESOLVE_MAP:
        return _RESOLVE_MAP[value]
    hint = _HINTS.get(value[:1])
    if hint == _HINT_DOT:
        if "_" not in value:  # strconv.ParseFloat(in): underscores need a base prefix
            try:
                out = float(value)
            except ValueError:
                return value
            return out if out not in (float("inf"), float("-inf")) else value
        return value
    if hint not in (_HINT_DIGIT, _HINT_SIGN):
        return value
    plain = value.replace("_", "")
    n = _go_parse_int(plain)
    if n is not None:
        return n
    u = _go_parse_uint(plain, 0)
    if u is not None:
        return u
    if _GO_FLOAT.fullmatch(plain):
        out = float(plain)
        if out not in (float("inf"), float("-inf")):  # ParseFloat: out of range is an error
            return out
    if plain.startswith("0b"):
        n = _go_parse_int(plain[2:], 2)
        if n is not None:
            return n
    elif plain.startswith("-0b"):
        n = _go_parse_int("-" + plain[3:], 2)
        if n is not None:
            return n
    if plain[:1] != "-" and plain[:1] != "+":
        # ParseUint failed on range: big.Int.SetString(plain, 0)
        body, base = plain, 10
        if len(body) > 1 and body[0] == "0" and body[1].lower() in "xob":
            base, body = {"x": 16, "o": 8, "b": 2}[body[1].lower()], body[2:]
        elif len(body) > 1 and body[0] == "0":
            base, body = 8, body[1:]
        if body and all(c in _GO_DIGITS[base] for c in body):
            return int(body, base)
    return value


_CTOR = yaml.constructor.SafeConstructor()
PLAIN_CACHE: dict[str, Any] = {}
_PLAIN_CACHE_MAX = 20_000
_INT64 = float(2 ** 63)


def _construct(tag: str, value: str, line: int) -> Any:
    if tag == _TAG_STR or tag in _AS_TEXT:
        return value
    fn = _SCALARS.get(tag)
    if fn is None or tag in (_TAG_MAP, _TAG_SEQ, _TAG + "set", _TAG + "omap", _TAG + "pairs"):
        raise DocumentError(line, f"unsupported YAML tag {quote(tag)[1:-1]}")
    try:
        out = fn(_CTOR, yaml.ScalarNode(tag, value))
    except Exception as exc:  # bad int/float/bool literal, ...
        raise DocumentError(line, f"bad {tag.rsplit(':', 1)[-1]} value {quote(value)}: {one_line(str(exc), 200)}") from None
    if out.__class__ is float and out.is_integer() and -_INT64 <= out < _INT64:
        # kubectl sends YAML as JSON, and Go writes the float64 2.0 as 2: what the
        # API server and the operators see of `replicas: 2.0` is the integer 2.
        return int(out)
    return out


def scalar(ev: yaml.ScalarEvent, line: int) -> Any:
    """The value of one scalar event (``MERGE`` for a plain ``<<``); plain scalars are
    memoised in ``PLAIN_CACHE`` (manifests repeat the same few words)."""
    tag = ev.tag
    if tag is None or tag == "!":
        if tag == "!" or not ev.implicit[0]:  # quoted, or the non-specific tag
            return ev.value
        value = ev.value
        hit = PLAIN_CACHE.get(value, PLAIN_CACHE)
        if hit is not PLAIN_CACHE:
            return hit
        if value == "<<":  # go-yaml's isMerge: a plain "<<" key merges
            return MERGE
        out = go_yaml_resolve(value)
        if out is _NAN_INF:
            raise DocumentError(line, f"{quote(value)[1:-1]}: kubectl sends YAML as JSON, which has no NaN or infinity "
                              "(quote it to send a string)")
        if out.__class__ is float and out.is_integer() and -_INT64 <= out < _INT64:
            out = int(out)  # Go writes the float64 8.0 as 8: the API server reads an integer
        if len(PLAIN_CACHE) >= _PLAIN_CACHE_MAX:
            PLAIN_CACHE.clear()
        PLAIN_CACHE[value] = out
        return out
    return _construct(tag, ev.value, line)


class _MergeKey:
    """The plain ``<<`` key of a YAML merge."""

    def __repr__(self) -> str:
        return "'<<'"


MERGE = _MergeKey()


def key_text(key: Any) -> str:
    """A mapping key as the string Kubernetes makes of it."""
    if isinstance(key, str):
        return key
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return int_text(key)
    if isinstance(key, float):
        return repr(key) if key == key and key not in (float("inf"), float("-inf")) else str(key)
    return str(key)
