"""Splitting a text into documents and objects: multi-document YAML and JSON, ``kind: List``.
Every object remembers its file and line, and the line and column of every field.
Problems are returned as ``InputError`` values, never raised.

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

from typing import Any, Iterable

import yaml

from ..core.model import Obj
from ..core.text import one_line
from .errors import DocumentError, InputError, quote
from .goyaml import MAP_TAGS, MERGE, PLAIN_CACHE, SEQ_TAGS, key_text, scalar
from .limits import MAX_DEPTH, Limits
from .positions import reader_error, syntax_error

try:  # the libyaml parser when available (it is in the usual wheels)
    from yaml import CSafeLoader as _Loader

    _BYTE_POSITIONS = True  # libyaml reports reader errors at byte offsets
except ImportError:  # pragma: no cover - pure-Python fallback
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

    _BYTE_POSITIONS = False


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

    def documents(self) -> Iterable[tuple[Any, dict[tuple, int], int, dict[tuple, int]] | DocumentError]:
        """Yields ``(value, lines, line, cols)`` per document (value None when empty), or a ``DocumentError``."""
        get = self.loader.get_event
        while True:
            ev = get()
            if ev is None or isinstance(ev, yaml.StreamEndEvent):
                return
            if ev.__class__ is _DOC_START:
                try:
                    yield self.document()
                except DocumentError as f:
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
                if self.expanded > self.limits.max_alias_nodes:
                    raise DocumentError(line, f"YAML aliases expand to more than {self.limits.max_alias_nodes} nodes "
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
                        if value in top.value:
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


def parse_documents(text: str, name: str, limits: Limits = Limits(), *,
                    skip_non_objects: bool = False) -> tuple[list[Obj], list[InputError], int]:
    """Parse every document of ``text``. Returns objects, errors and the number of
    non-empty documents. ``kind: List`` documents contribute their items. With
    ``skip_non_objects`` a document that is not a Kubernetes object at all
    (``is_not_an_object``) is passed over instead of being an error, in a file that holds
    no Kubernetes object either (Helm values, a workflow)."""
    objs: list[Obj] = []
    errors: list[InputError] = []
    ndocs = 0
    skipped: list[tuple[Any, dict, int, dict]] = []
    reader = _Reader(text, limits)
    try:
        for doc in reader.documents():
            if isinstance(doc, DocumentError):
                ndocs += 1
                errors.append(InputError(name, doc.line, doc.message))
                continue
            value, lines, line, cols = doc
            if value is None:
                continue
            ndocs += 1
            if skip_non_objects and is_not_an_object(value):
                skipped.append((value, lines, line, cols))
                continue
            _collect(value, lines, name, line, objs, errors, cols=cols)
    except yaml.MarkedYAMLError as exc:
        errors.append(InputError(name, *syntax_error(exc, text)))
    except yaml.reader.ReaderError as exc:
        errors.append(InputError(name, *reader_error(exc, text, _BYTE_POSITIONS)))
    except yaml.YAMLError as exc:
        errors.append(InputError(name, 1, f"YAML error: {one_line(str(exc), 200)}"))
    finally:
        reader.close()
    if skipped and (objs or errors):
        # a file of manifests with a document that is not one: kubectl apply refuses that
        # document, so it is reported as any other would be (a file of no manifest at all,
        # values or a workflow, stays passed over)
        for value, lines, line, cols in skipped:
            _collect(value, lines, name, line, [], errors, cols=cols)
    if errors and "{{" in text:
        errors = [_template_hint(e, text) for e in errors]
    return objs, errors, ndocs


def _template_hint(e: InputError, text: str) -> InputError:
    """An error at (or just after) a line holding a Go template expression (``{{ ... }}``,
    which YAML reads as flow mappings) says so: the file is a chart template, not a
    rendered manifest."""
    lines = text.splitlines()
    for n in range(e.line, max(0, e.line - 3), -1):
        if 0 < n <= len(lines) and "{{" in lines[n - 1] and "}}" in lines[n - 1]:
            return InputError(e.file, e.line, f"{e.message} (line {n} holds a template expression {{{{ ... }}}}: "
                              "render the chart first, e.g. helm template, and check its output)")
    return e


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
    # kubectl reads a document as a list when its ``items`` is a list (``Unstructured.IsList``):
    # ``kind: List``, or a typed list such as ``RayServiceList`` (what ``kubectl get`` prints)
    if (value.get("kind") == "List" and "items" in value) or \
            (isinstance(value.get("items"), list) and str(value.get("kind") or "").endswith("List")):
        items = value.get("items")
        if not isinstance(items, list):
            errors.append(InputError(name, lines.get(("items",), line),
                                     "items: a List needs a list of objects, got "
                                     + ("null" if items is None else f"a {_kind_word(items)}")))
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
    if v is None:
        return "null"
    return type(v).__name__
