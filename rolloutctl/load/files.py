"""Reading manifests: files, directories, standard input; multi-document YAML and
JSON; ``kind: List``. Every object remembers its file and line, and the line of
every field. Problems are returned as ``InputError`` values, never raised.

The YAML is read from the parser's event stream (libyaml when available) and
built into plain values here, without PyYAML's node graph. That is what makes the
limits cheap and exact:

* an alias is never copied: it costs what its anchor expands to, counted against
  the per-file budget ``--max-alias-nodes`` before any later stage (schema check,
  models, JSON output) could expand it;
* nesting is tracked on an explicit stack (no recursion, no ``RecursionError``);
* mapping keys become strings as Kubernetes makes them (``sigs.k8s.io/yaml``
  converts ``1:``/``true:`` keys to ``"1"``/``"true"``), so no later stage meets a
  non-string key; duplicate keys are an error, as in ``kubectl apply``;
* a failure inside one document (a duplicate key, an unsupported tag) is
  reported and the next document is still read.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Iterable

import yaml

from ..core.model import Obj
from ..core.text import _breaks, one_line  # noqa: F401 - one_line is used by every caller of the loader

try:  # the libyaml parser when available (it is in the usual wheels)
    from yaml import CSafeLoader as _Loader

    _BYTE_POSITIONS = True  # libyaml reports reader errors at byte offsets
except ImportError:  # pragma: no cover - pure-Python fallback
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

    _BYTE_POSITIONS = False

STDIN = "-"
STDIN_NAME = "<stdin>"
SUFFIXES = (".yaml", ".yml", ".json")

#: Defaults of the input limits (README "Limits"; flags --max-input-bytes, --max-alias-nodes).
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
DEFAULT_MAX_ALIAS_NODES = 100_000
#: Default of ``--max-pods`` (README "Limits"): the most pods a plan may model.
DEFAULT_MAX_PODS = 100_000
MAX_DEPTH = 256
#: longest excerpt of a user's value quoted in a message
_QUOTE = 60


@dataclass(frozen=True)
class InputError:
    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {one_line(self.message)}"


def quote(value: Any) -> str:
    """A short rendering of a user's value for a message (YAML spelling of
    booleans and null)."""
    if value is None or isinstance(value, bool):
        return "null" if value is None else ("true" if value else "false")
    r = _int_text(value) if isinstance(value, int) else repr(value)
    return r if len(r) <= _QUOTE else r[: _QUOTE - 4] + "…" + r[-3:]


def _int_text(v: int) -> str:
    try:
        return str(v)
    except ValueError:  # more digits than Python will print
        return "<an integer of more than 4300 digits>"


@dataclass(frozen=True)
class Limits:
    max_bytes: int = DEFAULT_MAX_BYTES
    max_alias_nodes: int = DEFAULT_MAX_ALIAS_NODES
    #: not a loader limit: the planner's (``app.check_scale``), carried with the others
    max_pods: int = DEFAULT_MAX_PODS


@dataclass
class Loaded:
    objects: list[Obj] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    files: int = 0
    #: documents that are mappings but were skipped (empty ones are not counted)
    documents: int = 0
    #: standard input was named and held no document at all
    empty_stdin: bool = False
    #: ``helm template`` output: file -> its ``# Source:`` comments (``helm_sources``)
    sources: dict[str, "HelmSources"] = field(default_factory=dict)


_SOURCE_COMMENT = re.compile(r"^# Source: (\S.*?)\s*$")


@dataclass(frozen=True)
class HelmSources:
    """The ``# Source: CHART/templates/FILE`` comment lines of one rendered file
    (``helm template`` writes one before each document), with the rendered text, so
    a rendered line can be traced to its template."""

    comments: tuple[tuple[int, str], ...]  # (line of the comment, template path), in order
    lines: tuple[str, ...]

    def source_of(self, line: int) -> tuple[str, int] | None:
        """(template path, line of its comment) of the document holding rendered ``line``."""
        import bisect

        i = bisect.bisect_left(self.comments, (line, "")) - 1
        return (self.comments[i][1], self.comments[i][0]) if i >= 0 else None


def helm_sources(text: str) -> HelmSources | None:
    if "# Source: " not in text:
        return None
    lines = text.splitlines()
    comments = tuple((i + 1, m.group(1)) for i, ln in enumerate(lines) if (m := _SOURCE_COMMENT.match(ln)))
    return HelmSources(comments, tuple(lines)) if comments else None


class _Fail(Exception):
    """A problem in one document; ``fatal`` ones end the file (the stream cannot be trusted)."""

    def __init__(self, line: int, message: str, fatal: bool = False) -> None:
        super().__init__(message)
        self.line = line
        self.message = message
        self.fatal = fatal


# ----------------------------------------------------------------------------- scalars

_SCALARS = yaml.constructor.SafeConstructor.yaml_constructors
_TAG = "tag:yaml.org,2002:"
_TAG_MAP = _TAG + "map"
_TAG_SEQ = _TAG + "seq"
_TAG_STR = _TAG + "str"
_TAG_MERGE = _TAG + "merge"
#: Kubernetes reads timestamps and binary data as strings; "=" (the YAML 1.1 value key) too.
_AS_TEXT = {_TAG + "timestamp", _TAG + "binary", _TAG + "value"}
_MAP_TAGS = {None, "!", _TAG_MAP, _TAG + "set"}
_SEQ_TAGS = {None, "!", _TAG_SEQ, _TAG + "omap", _TAG + "pairs"}


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
    if _GO_FLOAT.match(plain):
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
_PLAIN_CACHE: dict[str, Any] = {}
_PLAIN_CACHE_MAX = 20_000
_INT64 = float(2 ** 63)


def _construct(tag: str, value: str, line: int) -> Any:
    if tag == _TAG_STR or tag in _AS_TEXT:
        return value
    fn = _SCALARS.get(tag)
    if fn is None or tag in (_TAG_MAP, _TAG_SEQ, _TAG + "set", _TAG + "omap", _TAG + "pairs"):
        raise _Fail(line, f"unsupported YAML tag {quote(tag)[1:-1]}")
    try:
        out = fn(_CTOR, yaml.ScalarNode(tag, value))
    except Exception as exc:  # bad int/float/bool literal, ...
        raise _Fail(line, f"bad {tag.rsplit(':', 1)[-1]} value {quote(value)}: {one_line(str(exc), 200)}") from None
    if out.__class__ is float and out.is_integer() and -_INT64 <= out < _INT64:
        # kubectl sends YAML as JSON, and Go writes the float64 2.0 as 2: what the
        # API server and the operators see of `replicas: 2.0` is the integer 2.
        return int(out)
    return out


def _scalar(ev: yaml.ScalarEvent, line: int) -> Any:
    tag = ev.tag
    if tag is None or tag == "!":
        if tag == "!" or not ev.implicit[0]:  # quoted, or the non-specific tag
            return ev.value
        value = ev.value
        hit = _PLAIN_CACHE.get(value, _PLAIN_CACHE)
        if hit is not _PLAIN_CACHE:
            return hit
        if value == "<<":  # go-yaml's isMerge: a plain "<<" key merges
            return _MERGE
        out = go_yaml_resolve(value)
        if out is _NAN_INF:
            raise _Fail(line, f"{quote(value)[1:-1]}: kubectl sends YAML as JSON, which has no NaN or infinity "
                              "(quote it to send a string)")
        if out.__class__ is float and out.is_integer() and -_INT64 <= out < _INT64:
            out = int(out)  # Go writes the float64 8.0 as 8: the API server reads an integer
        if len(_PLAIN_CACHE) >= _PLAIN_CACHE_MAX:
            _PLAIN_CACHE.clear()
        _PLAIN_CACHE[value] = out
        return out
    return _construct(tag, ev.value, line)


class _MergeKey:
    def __repr__(self) -> str:
        return "'<<'"


_MERGE = _MergeKey()


def _key_text(key: Any) -> str:
    """A mapping key as the string Kubernetes makes of it."""
    if isinstance(key, str):
        return key
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return _int_text(key)
    if isinstance(key, float):
        return repr(key) if key == key and key not in (float("inf"), float("-inf")) else str(key)
    return str(key)


# ----------------------------------------------------------------------------- documents


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


class _Reader:
    """Builds the documents of one file from parser events."""

    def __init__(self, text: str, limits: Limits) -> None:
        self.limits = limits
        self.loader = _Loader(text)
        self.expanded = 0  # nodes added by alias references, whole file

    def close(self) -> None:
        try:
            self.loader.dispose()
        except Exception:  # pragma: no cover - best effort
            pass

    def documents(self) -> Iterable[tuple[Any, dict[tuple, int], int, dict[tuple, int]] | _Fail]:
        """Yields ``(value, lines, line, cols)`` per document (value None when empty), or a ``_Fail``."""
        get = self.loader.get_event
        while True:
            ev = get()
            if ev is None or isinstance(ev, yaml.StreamEndEvent):
                return
            if ev.__class__ is _DOC_START:
                try:
                    yield self.document()
                except _Fail as f:
                    yield f
                    if f.fatal:
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
        cache = _PLAIN_CACHE
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
                        value = _scalar(ev, line)
                else:
                    value = _scalar(ev, line)
                if ev.anchor is not None:
                    anchors[ev.anchor] = (value, 1)
                if value is _MERGE and not (top is not None and top.is_map and top.key is _NO_KEY):
                    value = "<<"  # only a key merges
            elif cls is _MAP_START or cls is _SEQ_START:
                is_map = cls is _MAP_START
                if ev.tag not in (_MAP_TAGS if is_map else _SEQ_TAGS):
                    raise _Fail(line, f"unsupported YAML tag {quote(ev.tag)[1:-1]}")
                if len(stack) >= MAX_DEPTH:
                    raise _Fail(line, f"document nested deeper than {MAX_DEPTH} levels", fatal=True)
                if top is None:
                    path: tuple = ()
                    root_line = line
                elif top.is_map:
                    if top.key is _NO_KEY:
                        raise _Fail(line, "a mapping key must be a scalar")
                    path = top.path + (("<<",) if top.key is _MERGE else (top.key,))
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
                    raise _Fail(line, f"alias *{quote(ev.anchor)[1:-1]} refers to no complete anchor "
                                      "(undefined, or recursive)")
                value, size = hit
                self.expanded += size
                if self.expanded > self.limits.max_alias_nodes:
                    raise _Fail(line, f"YAML aliases expand to more than {self.limits.max_alias_nodes} nodes "
                                      "(alias bomb?); raise --max-alias-nodes if this is intended", fatal=True)
                if top is not None and top.is_map and top.key is _NO_KEY and isinstance(value, (dict, list)):
                    raise _Fail(line, "a mapping key must be a scalar")
            elif cls is _DOC_END:
                return root, lines, root_line, cols
            else:  # pragma: no cover - no other events inside a document
                raise _Fail(line, f"unexpected YAML event {cls.__name__}", fatal=True)
            # attach a finished value to its parent
            if top is None:
                root, root_line = value, line
                continue
            if top.is_map:
                key = top.key
                if key is _NO_KEY:  # this value is a key
                    if value is not _MERGE:
                        value = value if value.__class__ is str else _key_text(value)
                        if value in top.value:
                            raise _Fail(line, f"duplicate key {quote(value)}")
                    top.key = value
                    top.key_line = line
                    top.key_col = ev.start_mark.column + 1
                    continue
                top.key = _NO_KEY
                top.size += size
                if key is _MERGE:
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
                raise _Fail(line, "merge key '<<' needs a mapping or a list of mappings")
            for k, v in src.items():
                if k not in out:
                    out[k] = v


def _syntax_error(exc: yaml.MarkedYAMLError, text: str) -> tuple[int, str]:
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 1 if mark else 1
    problem = exc.problem or exc.context or "invalid YAML"
    lines = text.splitlines()
    bad = lines[line - 1] if 0 < line <= len(lines) else ""
    if "'\t'" in problem or bad[: len(bad) - len(bad.lstrip(" \t"))].count("\t"):
        return line, "tab character used for indentation (YAML allows only spaces)"
    return line, f"YAML syntax error: {one_line(problem, 200)}"


def _reader_error(exc: yaml.reader.ReaderError, text: str) -> tuple[int, str]:
    pos = exc.position if isinstance(exc.position, int) else 0
    before = text.encode("utf-8", "surrogatepass")[:pos] if _BYTE_POSITIONS else text[:pos]
    line = before.count(b"\n" if _BYTE_POSITIONS else "\n") + 1  # type: ignore[arg-type]
    char = exc.character
    code = f"#x{char:04x}" if isinstance(char, int) else quote(char)
    return line, f"character {code} is not allowed in YAML ({one_line(exc.reason, 100)})"


def parse_documents(text: str, name: str, limits: Limits = Limits(), *,
                    skip_non_objects: bool = False) -> tuple[list[Obj], list[InputError], int]:
    """Parse every document of ``text``. Returns objects, errors and the number of
    non-empty documents. ``kind: List`` documents contribute their items. With
    ``skip_non_objects`` a document that is not a Kubernetes object at all
    (``is_not_an_object``) is passed over instead of being an error."""
    objs: list[Obj] = []
    errors: list[InputError] = []
    ndocs = 0
    reader = _Reader(text, limits)
    try:
        for doc in reader.documents():
            if isinstance(doc, _Fail):
                ndocs += 1
                errors.append(InputError(name, doc.line, doc.message))
                continue
            value, lines, line, cols = doc
            if value is None:
                continue
            ndocs += 1
            if skip_non_objects and is_not_an_object(value):
                continue
            _collect(value, lines, name, line, objs, errors, cols=cols)
    except yaml.MarkedYAMLError as exc:
        errors.append(InputError(name, *_syntax_error(exc, text)))
    except yaml.reader.ReaderError as exc:
        errors.append(InputError(name, *_reader_error(exc, text)))
    except yaml.YAMLError as exc:
        errors.append(InputError(name, 1, f"YAML error: {one_line(str(exc), 200)}"))
    finally:
        reader.close()
    return objs, errors, ndocs


# ----------------------------------------------------------------------------- objects


def is_not_an_object(value: Any) -> bool:
    """A document that is no Kubernetes object, not even a broken one: not a mapping (a
    list such as ``.pre-commit-hooks.yaml``, a scalar), or a mapping with neither
    ``apiVersion`` nor ``kind`` (a ``.pre-commit-config.yaml``, a GitHub workflow,
    ``package.json``, Helm values). A mapping with one of the two is a manifest with a
    mistake in it, and stays an error."""
    return not isinstance(value, dict) or ("apiVersion" not in value and "kind" not in value)


def _collect(value: Any, lines: dict[tuple, int], name: str, line: int, objs: list[Obj],
             errors: list[InputError], depth: int = 0, cols: dict[tuple, int] | None = None) -> None:
    if not isinstance(value, dict):
        errors.append(InputError(name, line, f"document is a {_kind_word(value)}, expected a Kubernetes object (a mapping)"))
        return
    if value.get("kind") == "List" and "items" in value:
        items = value.get("items")
        if not isinstance(items, list):
            errors.append(InputError(name, lines.get(("items",), line),
                                     f"items: a List needs a list of objects, got a {_kind_word(items)}"))
            return
        if depth > 8:
            errors.append(InputError(name, line, "a List nested in Lists more than 8 deep"))
            return
        per_item: list[dict[tuple, int]] = [{} for _ in items]
        per_item_cols: list[dict[tuple, int]] = [{} for _ in items]
        for p, ln in lines.items():
            if len(p) > 2 and p[0] == "items" and isinstance(p[1], int) and p[1] < len(items):
                per_item[p[1]][p[2:]] = ln
        for p, c in (cols or {}).items():
            if len(p) > 2 and p[0] == "items" and isinstance(p[1], int) and p[1] < len(items):
                per_item_cols[p[1]][p[2:]] = c
        for i, item in enumerate(items):
            _collect(item, per_item[i], name, lines.get(("items", i), line), objs, errors, depth + 1,
                     cols=per_item_cols[i])
        return
    problems = []
    for f in ("apiVersion", "kind"):
        v = value.get(f)
        if v is None or v == "":
            problems.append(f)
        elif not isinstance(v, str):
            errors.append(InputError(name, lines.get((f,), line), f"{f}: must be a string, got {_describe(v)}"))
            return
    md = value.get("metadata")
    if not isinstance(md, dict):
        if md is not None:
            errors.append(InputError(name, lines.get(("metadata",), line),
                                     f"metadata: must be a mapping, got {_describe(md)}"))
            return
        problems.append("metadata.name")
    else:
        n = md.get("name")
        gen = md.get("generateName")
        if (n is None or n == "") and isinstance(gen, str) and gen:
            pass  # the API server names it on create (lint checks generateName; diff/plan: always new)
        elif n is None or n == "":
            problems.append("metadata.name")
        elif not isinstance(n, str):
            hint = " (quote it: YAML reads yes/no/on/off/true/false as booleans)" if isinstance(n, bool) else ""
            errors.append(InputError(name, lines.get(("metadata", "name"), line),
                                     f"metadata.name: must be a string, got {_describe(n)}{hint}"))
            return
        ns = md.get("namespace")
        if ns is not None and not isinstance(ns, str):
            errors.append(InputError(name, lines.get(("metadata", "namespace"), line),
                                     f"metadata.namespace: must be a string, got {_describe(ns)}"))
            return
    if problems:
        errors.append(InputError(name, line, "object without " + ", ".join(problems)))
        return
    objs.append(Obj(value, name, line, lines, cols))


def _describe(v: Any) -> str:
    word = _kind_word(v)
    if isinstance(v, (dict, list)):
        return f"a {word}"
    return f"{word} {quote(v)}"


def _kind_word(v: Any) -> str:
    if isinstance(v, dict):
        return "mapping"
    if isinstance(v, list):
        return "list"
    if isinstance(v, str):
        return "string"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    return type(v).__name__


# ----------------------------------------------------------------------------- files


def expand_paths(paths: Iterable[str]) -> tuple[list[str], list[InputError]]:
    """Files named directly, plus ``*.yaml``/``*.yml``/``*.json`` below directories
    (sorted; hidden files and directories skipped; symbolic links to directories
    are not followed, so a link cycle cannot make the walk endless)."""
    out: list[str] = []
    errors: list[InputError] = []
    for p in paths:
        if p == STDIN:
            out.append(p)
            continue
        if os.path.isdir(p):
            found: list[str] = []
            walk_errors: list[OSError] = []
            for root, dirs, files in os.walk(p, onerror=walk_errors.append):
                dirs[:] = [d for d in dirs if not d.startswith(".")]
                for f in files:
                    if f.startswith(".") or not f.lower().endswith(SUFFIXES):
                        continue
                    full = os.path.join(root, f)
                    if os.path.isfile(full):
                        found.append(full)
            for exc in walk_errors:
                errors.append(InputError(exc.filename or p, 0, f"cannot read directory: {exc.strerror or exc}"))
            out.extend(sorted(found, key=lambda s: Path(s).parts))
        elif os.path.exists(p):
            out.append(p)
        elif any(c in p for c in "*?["):
            # a pattern the shell did not expand (quoted in a CI file, or matching nothing)
            import glob

            hits = sorted(h for h in glob.glob(p, recursive=True)
                          if os.path.isfile(h) and h.lower().endswith(SUFFIXES))
            if hits:
                out.extend(hits)
            else:
                errors.append(InputError(p, 0, "no file matches this pattern"))
        else:
            errors.append(InputError(p, 0, "no such file or directory"))
    return out, errors


def _read(path: str, limits: Limits, stdin: BinaryIO | None) -> bytes:
    if path == STDIN:
        stream = stdin if stdin is not None else sys.stdin.buffer
        data = stream.read(limits.max_bytes + 1)
    else:
        if os.path.isdir(path):
            raise _Fail(0, "is a directory")
        with open(path, "rb") as fh:
            data = fh.read(limits.max_bytes + 1)
    if len(data) > limits.max_bytes:
        raise _Fail(1, f"input is larger than {limits.max_bytes} bytes; raise --max-input-bytes if this is intended")
    return data


_BOMS = ((b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xff\xfe\x00\x00", "utf-32-le"),
         (b"\xfe\xff", "utf-16-be"), (b"\xff\xfe", "utf-16-le"))


def _decode(data: bytes) -> str:
    """UTF-8 (with or without a BOM); UTF-16/32 when they carry a BOM, as YAML allows
    (Windows PowerShell 5 writes ``kubectl get -o yaml > f`` as UTF-16)."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom):].decode(codec)
            except UnicodeDecodeError as exc:
                raise _Fail(1, f"not valid {codec.upper()} text (at byte {exc.start + len(bom)})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise _Fail(line, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None


def load_paths(paths: Iterable[str], limits: Limits = Limits(), stdin: BinaryIO | None = None, *,
               skip_non_objects: bool = False) -> Loaded:
    """Load every object from ``paths``. Errors are collected, not raised.
    ``skip_non_objects``: see ``parse_documents`` (``lint`` of whatever files a
    repository holds)."""
    result = Loaded()
    files, errs = expand_paths(paths)
    result.errors.extend(errs)
    stdin_used = False
    for f in files:
        name = STDIN_NAME if f == STDIN else f
        if f == STDIN:
            if stdin_used:
                continue
            stdin_used = True
        result.files += 1
        try:
            text = _decode(_read(f, limits, stdin))
        except _Fail as fail:
            result.errors.append(InputError(name, fail.line, fail.message))
            continue
        except OSError as exc:
            result.errors.append(InputError(name, 0, f"cannot read: {exc.strerror or exc}"))
            continue
        objs, errors, ndocs = parse_documents(text, name, limits, skip_non_objects=skip_non_objects)
        if f == STDIN and ndocs == 0 and not errors:
            result.empty_stdin = True
        src = helm_sources(text)
        if src is not None:
            result.sources[name] = src
        result.objects.extend(objs)
        result.errors.extend(errors)
        result.documents += ndocs
    return result
