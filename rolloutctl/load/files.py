"""Reading manifests: files, directories, standard input; multi-document YAML and
JSON; ``kind: List``. Every object remembers its file and line, and the line of
every field. Problems are returned as ``InputError`` values, never raised.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Iterable

import yaml

from ..core.model import Obj

try:  # the libyaml parser when available (it is in the usual wheels)
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - pure-Python fallback
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

STDIN = "-"
STDIN_NAME = "<stdin>"
SUFFIXES = (".yaml", ".yml", ".json")

#: Defaults of the input limits (README "Limits"; flags --max-input-bytes, --max-alias-nodes).
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
DEFAULT_MAX_ALIAS_NODES = 100_000
MAX_DEPTH = 256


@dataclass(frozen=True)
class InputError:
    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


@dataclass(frozen=True)
class Limits:
    max_bytes: int = DEFAULT_MAX_BYTES
    max_alias_nodes: int = DEFAULT_MAX_ALIAS_NODES


@dataclass
class Loaded:
    objects: list[Obj] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    files: int = 0
    #: documents that are mappings but were skipped (empty ones are not counted)
    documents: int = 0


class _Fail(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


_SCALARS = yaml.constructor.SafeConstructor.yaml_constructors
_TAG_MAP = "tag:yaml.org,2002:map"
_TAG_SEQ = "tag:yaml.org,2002:seq"
_TAG_STR = "tag:yaml.org,2002:str"
_AS_TEXT = {"tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:binary"}


class _Builder:
    """Turns a composed node graph into plain Python values, with line numbers,
    duplicate-key detection and an alias-expansion budget."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.seen: set[int] = set()
        self.alias_nodes = 0
        self.ctor = yaml.constructor.SafeConstructor()

    def build(self, node: yaml.Node, lines: dict[tuple, int], path: tuple = (), depth: int = 0,
              via_alias: bool = False) -> Any:
        if depth > MAX_DEPTH:
            raise _Fail(node.start_mark.line + 1, f"document nested deeper than {MAX_DEPTH} levels")
        nid = id(node)
        if nid in self.seen and isinstance(node, (yaml.MappingNode, yaml.SequenceNode)):
            via_alias = True
        if via_alias:
            self.alias_nodes += 1
            if self.alias_nodes > self.limits.max_alias_nodes:
                raise _Fail(node.start_mark.line + 1,
                            f"YAML aliases expand to more than {self.limits.max_alias_nodes} nodes "
                            "(alias bomb?); raise --max-alias-nodes if this is intended")
        else:
            self.seen.add(nid)
        if path and not via_alias and path not in lines:
            lines[path] = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            out: dict[Any, Any] = {}
            self.ctor.flatten_mapping(node)
            for knode, vnode in node.value:
                key = self.build(knode, {}, (), depth + 1, via_alias)
                if isinstance(key, (dict, list)):
                    raise _Fail(knode.start_mark.line + 1, "a mapping key must be a scalar")
                if key in out:
                    raise _Fail(knode.start_mark.line + 1, f"duplicate key {key!r}")
                sub = path + (key,)
                if not via_alias:
                    lines[sub] = knode.start_mark.line + 1
                out[key] = self.build(vnode, lines, sub, depth + 1, via_alias)
            return out
        if isinstance(node, yaml.SequenceNode):
            return [self.build(v, lines, path + (i,), depth + 1, via_alias) for i, v in enumerate(node.value)]
        tag = node.tag
        if tag == _TAG_STR:
            return node.value
        if tag in _AS_TEXT:
            # Kubernetes reads timestamps and binary data as strings.
            return node.value
        fn = _SCALARS.get(tag)
        if fn is None or not isinstance(node, yaml.ScalarNode):
            raise _Fail(node.start_mark.line + 1, f"unsupported YAML tag {tag}")
        try:
            return fn(self.ctor, node)
        except Exception as exc:  # bad timestamp, bad base64, ...
            raise _Fail(node.start_mark.line + 1, f"bad {tag.rsplit(':', 1)[-1]} value {node.value!r}: {exc}")


def _read(path: str, limits: Limits, stdin: BinaryIO | None) -> bytes:
    if path == STDIN:
        stream = stdin if stdin is not None else sys.stdin.buffer
        data = stream.read(limits.max_bytes + 1)
    else:
        with open(path, "rb") as fh:
            data = fh.read(limits.max_bytes + 1)
    if len(data) > limits.max_bytes:
        raise _Fail(1, f"input is larger than {limits.max_bytes} bytes; raise --max-input-bytes if this is intended")
    return data


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise _Fail(line, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None


def parse_documents(text: str, name: str, limits: Limits = Limits()) -> tuple[list[Obj], list[InputError], int]:
    """Parse every document of ``text``. Returns objects, errors and the number of
    non-empty documents. ``kind: List`` documents contribute their items."""
    objs: list[Obj] = []
    errors: list[InputError] = []
    ndocs = 0
    if "\t" in text:
        # libyaml refuses tabs in indentation with an obscure message; say it plainly.
        for i, ln in enumerate(text.splitlines(), 1):
            stripped = ln.lstrip(" ")
            if stripped.startswith("\t"):
                return [], [InputError(name, i, "tab character used for indentation (YAML allows only spaces)")], 0
    try:
        nodes = yaml.compose_all(text, Loader=_Loader)
        builder = _Builder(limits)
        for node in nodes:
            if node is None:
                continue
            ndocs += 1
            line = node.start_mark.line + 1
            lines: dict[tuple, int] = {}
            try:
                value = builder.build(node, lines)
            except _Fail as f:
                errors.append(InputError(name, f.line, f.message))
                continue
            if value is None:
                continue
            _collect(value, lines, name, line, objs, errors)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        problem = exc.problem or exc.context or "invalid YAML"
        errors.append(InputError(name, line, f"YAML syntax error: {problem}"))
    except yaml.YAMLError as exc:
        errors.append(InputError(name, 1, f"YAML error: {exc}"))
    except RecursionError:
        errors.append(InputError(name, 1, f"document nested too deeply to read"))
    return objs, errors, ndocs


def _collect(value: Any, lines: dict[tuple, int], name: str, line: int, objs: list[Obj],
             errors: list[InputError]) -> None:
    if not isinstance(value, dict):
        what = type(value).__name__ if not isinstance(value, list) else "list"
        errors.append(InputError(name, line, f"document is a {_kind_word(value)}, expected a Kubernetes object (a mapping)"))
        return
    if value.get("kind") == "List" and isinstance(value.get("items"), list):
        for i, item in enumerate(value["items"]):
            sub = {p[2:]: ln for p, ln in lines.items() if len(p) > 2 and p[0] == "items" and p[1] == i}
            iline = lines.get(("items", i), line)
            _collect(item, sub, name, iline, objs, errors)
        return
    problems = []
    for f in ("apiVersion", "kind"):
        v = value.get(f)
        if not isinstance(v, str) or not v:
            problems.append(f)
    md = value.get("metadata")
    if not isinstance(md, dict):
        if md is not None:
            errors.append(InputError(name, lines.get(("metadata",), line), "metadata: must be a mapping"))
            return
        problems.append("metadata.name")
    elif not isinstance(md.get("name"), str) or not md.get("name"):
        problems.append("metadata.name")
    elif md.get("namespace") is not None and not isinstance(md.get("namespace"), str):
        errors.append(InputError(name, lines.get(("metadata", "namespace"), line), "metadata.namespace: must be a string"))
        return
    if problems:
        errors.append(InputError(name, line, "object without " + ", ".join(problems)))
        return
    objs.append(Obj(value, name, line, lines))


def _kind_word(v: Any) -> str:
    if isinstance(v, list):
        return "list"
    if isinstance(v, str):
        return "string"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    return type(v).__name__


def expand_paths(paths: Iterable[str]) -> tuple[list[str], list[InputError]]:
    """Files named directly, plus ``*.yaml``/``*.yml``/``*.json`` below directories (sorted)."""
    out: list[str] = []
    errors: list[InputError] = []
    for p in paths:
        if p == STDIN:
            out.append(p)
            continue
        if os.path.isdir(p):
            found = sorted(
                str(f) for f in Path(p).rglob("*")
                if f.suffix.lower() in SUFFIXES and f.is_file() and not any(part.startswith(".") for part in f.relative_to(p).parts)
            )
            out.extend(found)
        elif os.path.exists(p):
            out.append(p)
        else:
            errors.append(InputError(p, 0, "no such file or directory"))
    return out, errors


def load_paths(paths: Iterable[str], limits: Limits = Limits(), stdin: BinaryIO | None = None) -> Loaded:
    """Load every object from ``paths``. Errors are collected, not raised."""
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
        objs, errors, ndocs = parse_documents(text, name, limits)
        result.objects.extend(objs)
        result.errors.extend(errors)
        result.documents += ndocs
    return result
