"""The JSON renderer writes exactly what ``json.dumps(doc, indent=2, ensure_ascii=False)``
writes (CONTRACT.md: byte-identical output), for any document of JSON values and for
the values it hands to the standard library."""

from __future__ import annotations

import json
import math
from collections import OrderedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rolloutctl.core.model import Action, Plan, ObjectRef, Step
from rolloutctl.render import render_plans
from rolloutctl.render.data import to_json


def _reference(doc: object) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | \
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)))
_keys = st.text() | st.integers() | st.floats(allow_nan=False) | st.booleans() | st.none()
_docs = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
                     | st.dictionaries(_keys, inner, max_size=4), max_leaves=30)


@given(_docs)
@settings(max_examples=400, deadline=None)
def test_any_document_is_written_as_the_standard_library_writes_it(doc: object) -> None:
    assert to_json(doc) == _reference(doc)


class _Int(int):
    pass


class _Str(str):
    pass


@pytest.mark.parametrize("doc", [
    {"a": [], "b": {}, "c": [[], [{}]], "d": "ünïcode \u2028 \"quoted\" \\ \n\t\x00"},
    [math.nan, math.inf, -math.inf, 0.1, 1e300, -0.0],
    {_Str("k"): _Int(3), "v": _Str("s"), 1: True, 2.5: False, None: None, True: 1},
    OrderedDict([("z", 1), ("a", 2)]),
    (1, (2, 3), [4]),
])
def test_edge_values_match(doc: object) -> None:
    assert to_json(doc) == _reference(doc)


def test_what_json_cannot_write_fails_as_it_does() -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        to_json({"a": [object()]})
    with pytest.raises(TypeError):
        json.dumps({(1, 2): 1})
    with pytest.raises(TypeError):
        to_json({(1, 2): 1})


def test_a_plan_renders_as_its_document() -> None:
    acts = tuple(Action("create", "Pod", f"p-{i}", "default", "reason ü", "rule", index=i,
                        fields={"podReferences": i, "Initialized": True}) for i in range(3))
    plan = Plan(ObjectRef("PodCliqueSet", "default", "x", "grove.io/v1alpha1"), "RollingRecreate", "converged",
                (Step(1, "create 3 Pods", acts, ("wait",), {"pods": 3, "requests": {"cpu": "3"}}),),
                {"steps": 1, "peak": {}})
    assert render_plans([plan], "json", False) == _reference(plan.to_dict())


def test_dicts_of_one_shape_at_several_depths_keep_their_own_values() -> None:
    # the writer keeps the key prefixes of a key sequence per indent: every dict of that
    # shape still writes its own values, at its own depth
    doc = {"a": 1, "b": [{"a": 2, "b": None}, {"a": 3, "b": {"a": 4, "b": "x"}}], "c": {"b": 5, "a": 6}}
    assert to_json(doc) == _reference(doc)
    assert to_json([doc, doc]) == _reference([doc, doc])
