"""An object as a Go controller holds it once the API server's JSON is decoded into
its Go types, as far as equality goes: what the operators' hashes see.

Decoding a stored object into a Go struct loses some differences a manifest shows and
keeps others:

- a plain (non-pointer) scalar that is absent decodes to its zero value, so
  ``stdin: false``, ``hostNetwork: false``, ``workingDir: ""`` or
  ``initialDelaySeconds: 0`` are the same as leaving the field out;
- a plain struct that is absent decodes to its zero value, so ``resources: {}`` on a
  container is the same as none;
- a pointer that is set is not nil, whatever it points to: ``securityContext: {}``,
  ``privileged: false``, ``storageClassName: ""`` or ``terminationGracePeriodSeconds: 0``
  differ from absent;
- a slice or a map that is set, even empty, is not nil: ``tolerations: []`` or
  ``nodeSelector: {}`` differ from absent (for ``dump.ForHash``; ``json.Marshal``
  leaves an empty one out when the field has ``omitempty``).

``go_form`` models two encoders of the decoded value:

- ``SPEW``: k8s.io/apimachinery ``pkg/util/dump`` ``ForHash`` (go-spew, every field
  printed, nil told from empty), which Grove's ``ComputeHash``
  (``operator/internal/utils/kubernetes/pod.go``) hashes;
- ``JSON``: ``encoding/json`` ``Marshal`` (``omitempty`` drops zero values, empty
  slices and maps; a nil slice or map without ``omitempty`` is ``null``, an empty one
  ``[]``/``{}``), which KubeRay's ``GenerateJsonHash`` (``ray-operator/controllers/ray/utils/util.go``)
  hashes.

The Go types are data (``core/k8s_go_types.py`` and the kinds' own tables). A field the
tables do not know is kept as written (it may be one a newer API version added).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: ``go_form``'s encoders
SPEW = "spew"
JSON = "json"

#: an omitted value (``go_form`` never returns it from the top)
ABSENT = object()

Tables = Sequence[Mapping[str, Mapping[str, str]]]


def go_form(value: Any, type_name: str, tables: Tables, encoder: str) -> Any:
    """``value`` (a struct of Go type ``type_name``, as stored) in a form equal for two
    values exactly when ``encoder`` writes them alike: omitted fields left out,
    everything else as written (keys in any order). A value that is not a mapping is
    returned as it is (malformed input is the validators' to report)."""
    return _struct(value, type_name, tables, encoder)


def field_form(value: Any, struct: str, field: str, tables: Tables, encoder: str) -> Any:
    """The value of ``struct``'s field ``field`` as ``go_form`` has it, or ``ABSENT``
    where ``encoder`` writes it as if the field were unset (a field the tables do not
    know: as written, None absent)."""
    kind = field_kind(tables, struct, field)
    if kind is None:
        return ABSENT if value is None else value
    return _field(value, kind, tables, encoder)


def is_zero(v: Any) -> bool:
    """A plain scalar's Go zero value: ``false``, ``0``, ``""``."""
    return v is False or v == "" or (type(v) in (int, float) and v == 0)


def field_kind(tables: Tables, type_name: str, field: str) -> str | None:
    """The kind of ``type_name``'s field ``field`` (``s``, ``p:T``, ``l:T``, ``m:T``, a
    struct's name; ``!``: no ``omitempty``), None when the tables do not know it."""
    fields = _fields(tables, type_name)
    return fields.get(field) if fields is not None else None


def _fields(tables: Tables, type_name: str) -> Mapping[str, str] | None:
    for t in tables:
        got = t.get(type_name)
        if got is not None:
            return got
    return None


def _struct(v: Any, type_name: str, tables: Tables, enc: str) -> Any:
    if not isinstance(v, Mapping):
        return v
    fields = _fields(tables, type_name)
    if fields is None:
        return dict(v)
    out = {}
    for k, x in v.items():
        kind = fields.get(k)
        got = x if kind is None else _field(x, kind, tables, enc)
        if got is not ABSENT:
            out[k] = got
    return out


def _field(x: Any, kind: str, tables: Tables, enc: str) -> Any:
    """A struct field's value, or ``ABSENT`` where the encoder writes it as if unset."""
    if x is None:
        return ABSENT
    always = kind.endswith("!")
    k = kind[:-1] if always else kind
    if k == "s":
        return ABSENT if is_zero(x) else x
    if k.startswith("p:"):
        return _value(x, k[2:], tables, enc)
    if k.startswith(("l:", "m:")):
        if enc == JSON and not always and not x and isinstance(x, (list, Mapping)):
            return ABSENT
        return _value(x, k, tables, enc)
    got = _struct(x, k, tables, enc)  # a plain struct is always written: empty is unset
    return got if got or not isinstance(got, Mapping) else ABSENT


def _value(x: Any, kind: str, tables: Tables, enc: str) -> Any:
    """A value that is set (a pointer's target, a slice or map element)."""
    if kind == "s" or x is None:
        return x
    if kind.startswith("p:"):
        return _value(x, kind[2:], tables, enc)
    if kind.startswith("l:"):
        return [_value(e, kind[2:], tables, enc) for e in x] if isinstance(x, list) else x
    if kind.startswith("m:"):
        return {key: _value(e, kind[2:], tables, enc) for key, e in x.items()} if isinstance(x, Mapping) else x
    return _struct(x, kind, tables, enc)


def keeps_empty_at(path: Sequence[Any], type_name: str, tables: Tables, encoder: str) -> bool:
    """Whether an empty value (``{}`` or ``[]``) at ``path`` inside a struct of type
    ``type_name`` is written unlike an absent one by ``encoder``: a pointer, a slice or
    a map for ``SPEW``; a pointer, or a slice or map without ``omitempty``, for
    ``JSON``. ``path``: field names, with list items and map keys as further segments
    (a list item or map value takes the element type). False where the tables do not
    know the path."""
    if not path:
        return False
    kind = type_name
    elem = last_always = False  # elem: the next segment is a list item or a map key
    for seg in path:
        if elem:
            kind, elem = kind[2:], False
            while kind.startswith("p:"):
                kind = kind[2:]
            continue
        while kind.startswith("p:"):
            kind = kind[2:]
        if not isinstance(seg, str) or kind == "s" or kind.startswith(("l:", "m:")):
            return False
        fields = _fields(tables, kind)
        got = fields.get(seg) if fields is not None else None
        if got is None:
            return False
        always = got.endswith("!")
        kind = got[:-1] if always else got
        elem = kind.startswith(("l:", "m:"))
        last_always = always
    if kind.startswith("p:"):
        return True
    if elem:
        return encoder == SPEW or last_always
    return False
