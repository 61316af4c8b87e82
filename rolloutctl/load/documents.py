"""Splitting a text into documents and objects: multi-document YAML and JSON, ``kind: List``.
Every object remembers its file and line, and the line and column of every field.
Problems are returned as ``InputError`` values, never raised.

The YAML is read from the parser's event stream (libyaml when available) and
built into plain values by ``core.goyaml.Reader``, without PyYAML's node graph. That is what makes the
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

from typing import Any

import yaml

from ..core.goyaml import BYTE_POSITIONS, DocumentError, Reader
from ..core.model import Obj
from ..core.text import one_line, quote
from .errors import InputError
from .limits import Limits
from .positions import reader_error, syntax_error



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
    reader = Reader(text, limits.max_alias_nodes)
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
        errors.append(InputError(name, *syntax_error(exc, text, "JSON" if name.lower().endswith(".json") else "YAML")))
    except yaml.reader.ReaderError as exc:
        errors.append(InputError(name, *reader_error(exc, text, BYTE_POSITIONS)))
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
    if errors and ("{{" in text or "{%" in text):
        errors = [_template_hint(e, text) for e in errors]
    return objs, errors, ndocs


def _template_hint(e: InputError, text: str) -> InputError:
    """An error at (or just after) a line holding a Go template expression (``{{ ... }}``,
    which YAML reads as flow mappings) or a Jinja tag (``{% ... %}``, which YAML cannot
    start a value with) says so: the file is a template, not a rendered manifest."""
    lines = text.splitlines()
    for n in range(e.line, max(0, e.line - 3), -1):
        if 0 < n <= len(lines) and "{{" in lines[n - 1] and "}}" in lines[n - 1]:
            return InputError(e.file, e.line, f"{e.message} (line {n} holds a template expression {{{{ ... }}}}: "
                              "render the chart first, e.g. helm template, and check its output)")
        if 0 < n <= len(lines) and "{%" in lines[n - 1] and "%}" in lines[n - 1]:
            return InputError(e.file, e.line, f"{e.message} (line {n} holds a template tag {{% ... %}}: render "
                              "the template first, e.g. with Jinja or Ansible, and check its output)")
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
