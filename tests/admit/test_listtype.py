"""SC014's key comparison: two items of a keyed list repeat a key exactly when their key
values are equal as JSON (``1`` and ``"1"``, ``1`` and ``1.0``, ``1`` and ``true`` are
different keys)."""

import json

from hypothesis import given, strategies as st

from rolloutctl.admit.listtype import duplicates

_ROOT = {"type": "object", "properties": {"xs": {
    "type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name", "port"],
    "items": {"type": "object"}}}}

_values = st.sampled_from(["a", "1", 1, 1.0, True, 0, -0.0, 0.0, None, "", [1], {"a": 1}]) | st.integers(-3, 3)
_items = st.fixed_dictionaries({}, optional={"name": _values, "port": _values, "other": _values})


@given(_items, _items)
def test_a_repeated_key_is_one_whose_key_values_are_equal_as_json(a, b):
    def key(x):
        return json.dumps({k: x[k] for k in ("name", "port") if k in x}, sort_keys=True)

    found = duplicates(_ROOT, {"xs": [a, b]})
    assert bool(found) == (key(a) == key(b))
    if found:
        assert found[0][0] == ("xs", 1)


def test_a_declared_property_never_falls_back_to_additional_properties():
    """A schema with both ``properties`` and a schema-valued ``additionalProperties``: a
    declared property is walked by its own schema only (``quantity`` and keyed lists),
    and an object without a schema is pruned without growing what is held per schema."""
    from rolloutctl.admit import schema as S

    q = {"type": "string", "pattern": S.QUANTITY_PATTERN}
    root = {"type": "object", "properties": {"name": {"type": "string"}}, "additionalProperties": q}
    raw = {"name": "2000m", "cpu": "2000m"}
    S.canonical_quantities(raw, root, lambda v: "canonical", (ValueError,))
    assert raw == {"name": "2000m", "cpu": "canonical"}
    keyed = {"type": "object", "properties": {"name": {"type": "string"}}, "additionalProperties": _ROOT["properties"]["xs"]}
    assert duplicates(keyed, {"name": "x", "ys": [{"name": "a"}, {"name": "a"}]}) == duplicates(
        keyed, {"ys": [{"name": "a"}, {"name": "a"}]})
    assert duplicates(keyed, {"name": [{"name": "a"}, {"name": "a"}]}) == []
    before = len(S._PREPARED)
    for _ in range(100):
        S.prune_nulls({"a": None}, None)
    assert len(S._PREPARED) <= before + 1
