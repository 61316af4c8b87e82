"""YAML as Go programs of the Kubernetes world decode it: ``sigs.k8s.io/yaml`` reads YAML
with go-yaml v2 (YAML 1.1 as Go has it) and turns it into JSON. kubectl sends manifests
that way (``load.documents``), and KubeRay decodes a RayService's ``serveConfigV2`` that
way (``first_document``). Plain scalars resolve as go-yaml v2's ``resolve`` does
(``sigs.k8s.io/yaml`` ``goyaml.v2/resolve.go``); tagged ones through PyYAML's
constructors, with the differences Kubernetes has (timestamps and binary data stay
strings, integral floats become integers); mapping keys become the strings Kubernetes
makes of them. ``Reader`` builds values from the parser's events (libyaml's when
available) without PyYAML's node graph or resolvers.
"""

from __future__ import annotations

from typing import Any, Iterable

import yaml

from .go_strconv import decimal_end, sign_end
from .text import int_text, one_line, quote

class NotJSONError(ValueError):
    """A plain ``.nan`` or ``.inf``: ``sigs.k8s.io/yaml`` turns YAML into JSON, which has
    neither (the callers say who sends it: ``Reader``)."""

    def __init__(self, line: int, value: str) -> None:
        super().__init__(value)
        self.line, self.value = line, value


try:  # the libyaml parser when available (it is in the usual wheels)
    from yaml import CSafeLoader as _Loader

    BYTE_POSITIONS = True  # libyaml reports reader errors at byte offsets
except ImportError:  # pragma: no cover - pure-Python fallback
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

    BYTE_POSITIONS = False

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
#: go-yaml v2 ``yamlStyleFloat``, which ``go_float_syntax`` matches
GO_FLOAT_PATTERN = r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$"
_GO_DIGITS = {2: "01", 8: "01234567", 10: "0123456789", 16: "0123456789abcdefABCDEF"}


def go_float_syntax(s: str) -> bool:
    """``s`` matches ``GO_FLOAT_PATTERN`` (go-yaml v2 ``yamlStyleFloat``): a sign, a
    decimal number, then an optional ``e``/``E``, sign and digits."""
    end = decimal_end(s, sign_end(s))
    if end < 0 or end == len(s):
        return end == len(s)
    return s[end] in ("e", "E") and decimal_end(s, sign_end(s, end + 1), fraction=False) == len(s)


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
    if go_float_syntax(plain):
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
            raise NotJSONError(line, value)
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


# ----------------------------------------------------------------------------- documents

#: deepest nesting of a document (README "Limits")
MAX_DEPTH = 256
#: default of ``--max-alias-nodes`` (README "Limits")
DEFAULT_MAX_ALIAS_NODES = 100_000


class DocumentError(Exception):
    """A problem in one document (or file); ``fatal`` ones end the file (the stream cannot be trusted)."""

    def __init__(self, line: int, message: str, fatal: bool = False) -> None:
        super().__init__(message)
        self.line = line
        self.message = message
        self.fatal = fatal


class _Frame:
    __slots__ = ("value", "is_map", "path", "size", "anchor", "key", "key_line", "key_col", "merges")

    def __init__(self, value: Any, path: tuple, anchor: str | None) -> None:
        self.value = value
        self.is_map = isinstance(value, dict)
        self.path = path
        self.size = 1
        self.anchor = anchor
        self.key: Any = _NO_KEY
        self.key_line = 0
        self.key_col = 0
        self.merges: list[tuple[Any, int]] | None = None


_NO_KEY = object()
_SCALAR_EV = yaml.ScalarEvent
_ALIAS_EV = yaml.AliasEvent
_MAP_START, _MAP_END = yaml.MappingStartEvent, yaml.MappingEndEvent
_SEQ_START, _SEQ_END = yaml.SequenceStartEvent, yaml.SequenceEndEvent
_DOC_START, _DOC_END = yaml.DocumentStartEvent, yaml.DocumentEndEvent


class Reader:
    """Builds the documents of one text from parser events: every document of a file of
    manifests, or the first of a config an operator decodes (``first_document``).
    ``last_key_wins``: a repeated mapping key keeps its last value, as go-yaml v2's
    ``Unmarshal`` does, instead of being an error, as ``kubectl apply``'s strict decoding
    makes it. ``sender``: who turns the YAML into JSON, as messages name it."""

    def __init__(self, text: str, max_alias_nodes: int = DEFAULT_MAX_ALIAS_NODES, *,
                 last_key_wins: bool = False, sender: str = "kubectl sends") -> None:
        self.max_alias_nodes = max_alias_nodes
        self.last_key_wins = last_key_wins
        self.sender = sender  # who turns the YAML into JSON, for the message about NaN
        self.loader = _Loader(text)
        self.expanded = 0  # nodes added by alias references, whole file

    def close(self) -> None:
        try:
            self.loader.dispose()
        except Exception:  # pragma: no cover - best effort
            pass

    def documents(self) -> Iterable[tuple[Any, dict[tuple, int], int, dict[tuple, int]] | DocumentError]:
        """Yields ``(value, lines, line, cols)`` per document (value None when empty), or a ``DocumentError``."""
        get = self.loader.get_event
        while True:
            ev = get()
            if ev is None or isinstance(ev, yaml.StreamEndEvent):
                return
            if ev.__class__ is _DOC_START:
                try:
                    doc: Any = self.document()
                except NotJSONError as exc:
                    doc = _not_json(exc, self.sender)
                except DocumentError as exc:
                    doc = exc
                yield doc
                if isinstance(doc, DocumentError):
                    if doc.fatal:
                        return
                    self.skip_document()

    def skip_document(self) -> None:
        get = self.loader.get_event
        while True:
            ev = get()
            if ev is None or isinstance(ev, (_DOC_END, yaml.StreamEndEvent)):
                return

    def document(self) -> tuple[Any, dict[tuple, int], int, dict[tuple, int]]:
        get = self.loader.get_event
        lines: dict[tuple, int] = {}
        cols: dict[tuple, int] = {}
        anchors: dict[str, tuple[Any, int]] = {}
        stack: list[_Frame] = []
        top: _Frame | None = None
        root: Any = None
        root_line = 0
        cache = PLAIN_CACHE
        while True:
            ev = get()
            cls = ev.__class__
            line = ev.start_mark.line + 1
            size = 1
            if cls is _SCALAR_EV:
                tag = ev.tag
                if tag is None and ev.implicit[0]:
                    value = cache.get(ev.value, cache)
                    if value is cache:
                        value = scalar(ev, line)
                else:
                    value = scalar(ev, line)
                if ev.anchor is not None:
                    anchors[ev.anchor] = (value, 1)
                if value is MERGE and not (top is not None and top.is_map and top.key is _NO_KEY):
                    value = "<<"  # only a key merges
            elif cls is _MAP_START or cls is _SEQ_START:
                is_map = cls is _MAP_START
                if ev.tag not in (MAP_TAGS if is_map else SEQ_TAGS):
                    raise DocumentError(line, f"unsupported YAML tag {quote(ev.tag)[1:-1]}")
                if len(stack) >= MAX_DEPTH:
                    raise DocumentError(line, f"document nested deeper than {MAX_DEPTH} levels", fatal=True)
                if top is None:
                    path: tuple = ()
                    root_line = line
                elif top.is_map:
                    if top.key is _NO_KEY:
                        raise DocumentError(line, "a mapping key must be a scalar")
                    path = top.path + (("<<",) if top.key is MERGE else (top.key,))
                else:
                    path = top.path + (len(top.value),)
                    lines[path] = line
                    cols[path] = ev.start_mark.column + 1
                top = _Frame({} if is_map else [], path, ev.anchor)
                stack.append(top)
                continue
            elif cls is _MAP_END or cls is _SEQ_END:
                done = stack.pop()
                if done.merges:
                    _merge(done)
                if done.anchor is not None:
                    anchors[done.anchor] = (done.value, done.size)
                value, size = done.value, done.size
                top = stack[-1] if stack else None
                if top is None:
                    root = value
                    continue
                if top.is_map:  # the mapping's key line is the line of the field
                    line = top.key_line
            elif cls is _ALIAS_EV:
                hit = anchors.get(ev.anchor)
                if hit is None:
                    raise DocumentError(line, f"alias *{quote(ev.anchor)[1:-1]} refers to no complete anchor "
                                      "(undefined, or recursive)")
                value, size = hit
                self.expanded += size
                if self.expanded > self.max_alias_nodes:
                    raise DocumentError(line, f"YAML aliases expand to more than {self.max_alias_nodes} nodes "
                                      "(alias bomb?); raise --max-alias-nodes if this is intended", fatal=True)
                if top is not None and top.is_map and top.key is _NO_KEY and isinstance(value, (dict, list)):
                    raise DocumentError(line, "a mapping key must be a scalar")
            elif cls is _DOC_END:
                return root, lines, root_line, cols
            else:  # pragma: no cover - no other events inside a document
                raise DocumentError(line, f"unexpected YAML event {cls.__name__}", fatal=True)
            # attach a finished value to its parent
            if top is None:
                root, root_line = value, line
                continue
            if top.is_map:
                key = top.key
                if key is _NO_KEY:  # this value is a key
                    if value is not MERGE:
                        value = value if value.__class__ is str else key_text(value)
                        if value in top.value and not self.last_key_wins:
                            raise DocumentError(line, f"duplicate key {quote(value)}")
                    top.key = value
                    top.key_line = line
                    top.key_col = ev.start_mark.column + 1
                    continue
                top.key = _NO_KEY
                top.size += size
                if key is MERGE:
                    if top.merges is None:
                        top.merges = []
                    top.merges.append((value, line))
                    continue
                top.value[key] = value
                lines[top.path + (key,)] = top.key_line
                cols[top.path + (key,)] = top.key_col
            else:
                top.size += size
                if cls is not _SEQ_END and cls is not _MAP_END:
                    lines[top.path + (len(top.value),)] = line
                    cols[top.path + (len(top.value),)] = ev.start_mark.column + 1
                top.value.append(value)


def _merge(frame: _Frame) -> None:
    """YAML merge keys (``<<: *base``): keys written in the mapping win; among
    several merged mappings, the earlier wins (PyYAML and go-yaml agree)."""
    out = frame.value
    for value, line in frame.merges or ():
        sources = value if isinstance(value, list) else [value]
        for src in sources:
            if not isinstance(src, dict):
                raise DocumentError(line, "merge key '<<' needs a mapping or a list of mappings")
            for k, v in src.items():
                if k not in out:
                    out[k] = v


def _not_json(exc: NotJSONError, sender: str) -> DocumentError:
    return DocumentError(exc.line, f"{quote(exc.value)[1:-1]}: {sender} YAML as JSON, which has no NaN or infinity "
                         "(quote it to send a string)")


def first_document(text: str) -> Any:
    """The first document of ``text`` as go-yaml v2's ``Unmarshal`` through
    ``sigs.k8s.io/yaml`` decodes it, reading no further (None when empty): scalars as
    ``go_yaml_resolve``, a repeated key's last value winning. Raises ``DocumentError`` or
    PyYAML's ``YAMLError`` (a syntax error)."""
    reader = Reader(text, last_key_wins=True, sender="KubeRay reads")
    try:
        for doc in reader.documents():
            if isinstance(doc, DocumentError):
                raise doc
            return doc[0]
        return None
    finally:
        reader.close()
