"""JSON and YAML documents: stable key order (as built), byte-identical output."""

from __future__ import annotations

import gc
import json
from contextlib import contextmanager
from json.encoder import encode_basestring
from typing import Any, Callable, Iterator


def to_json(doc: Any) -> str:
    """``json.dumps(doc, indent=2, ensure_ascii=False)`` plus a newline, byte for byte.

    The standard library writes indented JSON with its pure-Python encoder (its C
    encoder only writes compact JSON), one small string per token; a 100,000-pod plan
    is millions of them. This encoder writes each object and list in one ``join``
    instead, with the same separators, escapes and number formats; what it does not
    know (any type but dict, list, tuple, str, int, float, bool and None) it hands to
    ``json.dumps`` itself, so errors and formats stay the standard library's.
    ``tests/render/test_json_encoder.py`` compares the two."""
    with collector_paused():
        return _Writer().value(doc, "\n") + "\n"


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic collector off while a document is built and written: building
    it allocates millions of containers (none of them in cycles), and every full
    collection would walk the whole heap again, the finished plan included."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _float(o: float) -> str:
    # json.encoder's floatstr with allow_nan=True
    if o != o:
        return "NaN"
    if o == float("inf"):
        return "Infinity"
    if o == -float("inf"):
        return "-Infinity"
    return float.__repr__(o)


def _true(o: Any) -> str:
    return "true" if o else "false"


def _null(o: Any) -> str:
    return "null"


#: exact types written without a further call (subclasses take the general path)
_SCALARS: dict[type, Callable[[Any], str]] = {
    str: encode_basestring, int: int.__repr__, bool: _true, type(None): _null, float: _float}


def _key(k: Any) -> str:
    """A dict key as ``json.dumps`` writes it (``skipkeys=False``)."""
    if isinstance(k, str):
        return encode_basestring(k)
    if isinstance(k, float):
        return encode_basestring(_float(k))
    if k is True:
        return '"true"'
    if k is False:
        return '"false"'
    if k is None:
        return '"null"'
    if isinstance(k, int):
        return encode_basestring(int.__repr__(k))
    raise TypeError(f"keys must be str, int, float, bool or None, not {k.__class__.__name__}")


class _Writer:
    """One document's writing: the key prefixes of each key sequence at each indent
    (the actions of a plan share a handful of them), computed once per document."""

    def __init__(self) -> None:
        self._prefixes: dict[tuple, list[str]] = {}

    def value(self, o: Any, nl: str) -> str:
        """``o`` written at the indentation ``nl`` (a newline and the current indent)."""
        scalar = _SCALARS.get(type(o))
        if scalar is not None:
            return scalar(o)
        if isinstance(o, dict):
            if not o:
                return "{}"
            inner = nl + "  "
            keys = tuple(o)
            pre = self._prefixes.get((keys, nl))
            if pre is None:
                pre = self._prefixes[(keys, nl)] = [("{" if i == 0 else ",") + inner + _key(k) + ": "
                                                    for i, k in enumerate(keys)]
            parts = []
            put = parts.append
            get = _SCALARS.get
            for p, v in zip(pre, o.values()):
                put(p)
                s = get(type(v))
                put(s(v) if s is not None else self.value(v, inner))
            put(nl + "}")
            return "".join(parts)
        if isinstance(o, (list, tuple)):
            if not o:
                return "[]"
            inner = nl + "  "
            get = _SCALARS.get
            items = []
            for v in o:
                s = get(type(v))
                items.append(s(v) if s is not None else self.value(v, inner))
            return "[" + inner + ("," + inner).join(items) + nl + "]"
        if isinstance(o, str):
            return encode_basestring(o)
        if isinstance(o, bool):
            return _true(o)
        if isinstance(o, int):
            return int.__repr__(o)
        if isinstance(o, float):
            return _float(o)
        # anything else as the standard library writes it (or fails on it), re-indented
        return json.dumps(o, indent=2, ensure_ascii=False).replace("\n", nl)


def to_yaml(doc: Any) -> str:
    import yaml

    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return yaml.dump(doc, Dumper=dumper, sort_keys=False, default_flow_style=False, allow_unicode=True, width=120)
