"""core.trees.pattern_parents: the objects a dotted pattern's field lives in (shared by
the CRD defaults of kinds/kuberay/defaults.py and admission's fields absent from an
older served version)."""

from __future__ import annotations

from rolloutctl.core.trees import pattern_parents


def test_every_list_item_in_document_order_and_only_objects():
    tree = {"spec": {"groups": [{"n": 1}, None, 3, {"m": 2}], "x": "s"}}
    name, parents = pattern_parents(tree, "spec.groups[].n")
    assert name == "n"
    assert [at for at, _ in parents] == [("spec", "groups", 0), ("spec", "groups", 3)]
    assert parents[0][1] is tree["spec"]["groups"][0]


def test_a_missing_or_wrongly_typed_step_yields_nothing():
    assert pattern_parents({"spec": {"groups": {"n": 1}}}, "spec.groups[].n")[1] == []
    assert pattern_parents({"spec": None}, "spec.a.b")[1] == []
    assert pattern_parents({}, "top") == ("top", [((), {})])
