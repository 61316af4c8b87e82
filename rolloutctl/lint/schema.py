"""Schema rules (``SC###``): our JSON Schemas of the input kinds, compiled once per
process (``lint.validator``), turned into findings with file and line; and the
structural defaults of those schemas, applied as the API server applies CRD defaults.
"""

from __future__ import annotations

import copy
import difflib
import json
from functools import lru_cache
from typing import Any, Iterator, Mapping

from ..core.model import Finding, Obj
from ..schemas_access import schema
from .paths import field_path
from .validator import Compiled

#: (API group, kind) -> schema file name in ``schemas/``; the schema pins the version
SCHEMAS = {
    ("ray.io", "RayService"): "rayservice.schema.json",
    ("grove.io", "PodCliqueSet"): "podcliqueset.schema.json",
}

UNKNOWN_FIELD = "SC001"
REQUIRED_FIELD = "SC002"
WRONG_TYPE = "SC003"
BAD_VALUE = "SC004"
UNSERVED_VERSION = "SC005"

_TYPE_VALIDATORS = {"type", "anyOf", "oneOf"}


def load_schema(filename: str) -> dict[str, Any]:
    return schema(filename.removesuffix(".schema.json"))


@lru_cache(maxsize=None)
def _validator(filename: str) -> Compiled:
    """One compiled validator per schema and process."""
    return Compiled(load_schema(filename))


def schema_file_for(obj: Obj) -> str | None:
    group = obj.api_version.split("/")[0] if "/" in obj.api_version else ""
    return SCHEMAS.get((group, obj.kind))


def _resolve(root: Mapping[str, Any], node: Mapping[str, Any]) -> Mapping[str, Any]:
    while isinstance(node, Mapping) and "$ref" in node:
        ref = node["$ref"]
        if not ref.startswith("#/$defs/"):
            break
        node = root["$defs"][ref[len("#/$defs/"):]]
    return node


def _fill(root: Mapping[str, Any], node: Mapping[str, Any], value: Any) -> None:
    node = _resolve(root, node)
    if isinstance(value, dict):
        props = node.get("properties") or {}
        for key, sub in props.items():
            sub_r = _resolve(root, sub)
            if key not in value and "default" in sub_r:
                value[key] = copy.deepcopy(sub_r["default"])
            if key in value:
                _fill(root, sub_r, value[key])
    elif isinstance(value, list) and isinstance(node.get("items"), Mapping):
        for item in value:
            _fill(root, node["items"], item)


def apply_schema_defaults(obj: Obj) -> Obj:
    """A copy of ``obj`` with the ``default`` values of its schema filled in (structural
    defaulting of the API server). Lines are kept; unknown kinds are returned as is."""
    filename = schema_file_for(obj)
    if filename is None:
        return obj
    raw = copy.deepcopy(dict(obj.raw))
    _fill(load_schema(filename), load_schema(filename), raw)
    return Obj(raw, obj.file, obj.line, obj.lines)


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


def check_schema(obj: Obj) -> list[Finding]:
    """Schema findings for one object of a modelled kind (empty for other kinds)."""
    filename = schema_file_for(obj)
    if filename is None:
        return []
    root = load_schema(filename)
    out: list[Finding] = []

    def add(rule: str, path: tuple, message: str) -> None:
        out.append(Finding(rule=rule, severity="error", file=obj.file, line=obj.line_of(*path),
                           message=message, path=field_path(obj.raw, path), object=obj.ref))

    for err in _validator(filename).iter_errors(obj.raw):
        path = tuple(err.absolute_path)
        v = err.validator
        if v == "additionalProperties":
            props = sorted((_resolve(root, err.schema).get("properties") or {}).keys())
            for key in err.instance:
                if key in props:
                    continue
                hint = _suggest(str(key), props)
                msg = f"unknown field {key!r}" + (f" (did you mean {hint!r}?)" if hint else "")
                add(UNKNOWN_FIELD, (*path, key), msg)
        elif v == "required":
            for key in err.validator_value:
                if isinstance(err.instance, Mapping) and key not in err.instance:
                    out.append(Finding(rule=REQUIRED_FIELD, severity="error", file=obj.file,
                                       line=obj.line_of(*path), message=f"missing required field {key!r}",
                                       path=field_path(obj.raw, (*path, key)), object=obj.ref))
        elif v in _TYPE_VALIDATORS:
            want = err.validator_value if v == "type" else "a quantity or number"
            want = " or ".join(want) if isinstance(want, list) else want
            shown = "" if err.instance is None else " " + json.dumps(err.instance)[:60]
            add(WRONG_TYPE, path, f"expected {want}, got {_type_name(err.instance)}{shown}")
        elif v == "const" and path in (("apiVersion",), ("kind",)):
            add(UNSERVED_VERSION, path, f"{path[0]} must be {err.validator_value!r}")
        elif v == "enum":
            allowed = ", ".join(map(str, err.validator_value))
            add(BAD_VALUE, path, f"unsupported value {_short(err.instance)}: must be one of {allowed}")
        elif v == "minimum":
            add(BAD_VALUE, path, f"must be greater than or equal to {err.validator_value} (got {_short(err.instance)})")
        elif v == "maxLength":
            add(BAD_VALUE, path, f"must be no more than {err.validator_value} characters (got {len(err.instance)})")
        elif v == "pattern":
            add(BAD_VALUE, path, f"{_short(err.instance)} does not match {err.validator_value}")
        else:
            add(BAD_VALUE, path, err.message or f"invalid value ({v})")
    return sorted(set(out), key=Finding.sort_key)


def check_input(obj: Obj) -> list[Finding]:
    """What the API server and the pods' own validation refuse in a modelled object:
    the schema, then (for a well-typed object) Kubernetes' checks on the container
    resources of its pod templates (SC006). ``plan``/``next``/``diff`` stop on these."""
    out = check_schema(obj)
    if not out and schema_file_for(obj) is not None:
        from .pods import check_pod_resources

        out = sorted(set(check_pod_resources(obj)), key=Finding.sort_key)
    return out


def iter_property_names(filename: str) -> Iterator[tuple[tuple[str, ...], str]]:
    """(path of property names, name) for every property our schema declares (tests)."""
    root = load_schema(filename)

    def walk(node: Mapping[str, Any], path: tuple[str, ...], seen: frozenset) -> Iterator[tuple[tuple[str, ...], str]]:
        ref = node.get("$ref") if isinstance(node, Mapping) else None
        if ref:
            if ref in seen:
                return
            seen = seen | {ref}
        node = _resolve(root, node)
        for key, sub in (node.get("properties") or {}).items():
            yield path, key
            yield from walk(sub, (*path, key), seen)
        if isinstance(node.get("items"), Mapping):
            yield from walk(node["items"], (*path, "[]"), seen)

    yield from walk(root, (), frozenset())
