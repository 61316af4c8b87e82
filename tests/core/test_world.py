"""World views derived incrementally must equal views computed from scratch."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from rolloutctl.core.model import Action, Obj
from rolloutctl.core.world import World


def pod(name: str, group: str, ready: bool = False) -> Obj:
    return Obj({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "ns", "labels": {"g": group}},
                "status": {"ready": ready}})


ops = st.lists(st.tuples(st.sampled_from(["put", "remove", "delete", "status"]),
                         st.integers(0, 12), st.sampled_from(["a", "b", "c"])), max_size=30)


@settings(max_examples=60, deadline=None)
@given(ops, st.lists(st.booleans(), max_size=30))
def test_incremental_views_equal_fresh_views(script, look):
    world = World([pod(f"p{i}", "a") for i in range(5)])
    world.index("Pod", "g")
    for n, (op, i, g) in enumerate(script):
        name = f"p{i}"
        if op == "put":
            world = world.replace(put=[pod(name, g)])
        elif op == "remove":
            world = world.replace(remove=[("Pod", "ns", name)])
        elif op == "delete":
            world = world.apply([Action("delete", "Pod", name, "ns", "r", "x")])
        else:
            world = world.apply([Action("status", "Pod", name, "ns", "r", "x", fields={"ready": True})])
        if n < len(look) and look[n]:
            world.of_kind("Pod")
            world.index("Pod", "g")
        fresh = World({k: world.get(*k) for k in world.keys()})
        assert [o.name for o in world.of_kind("Pod")] == [o.name for o in fresh.of_kind("Pod")]
        assert {k: [o.raw for o in v] for k, v in world.index("Pod", "g").items()} == \
               {k: [o.raw for o in v] for k, v in fresh.index("Pod", "g").items()}


def test_unchanged_groups_keep_their_identity():
    world = World([pod("p1", "a"), pod("p2", "b")])
    a, b = world.index("Pod", "g")["a"], world.index("Pod", "g")["b"]
    nxt = world.replace(put=[pod("p3", "b")])
    assert nxt.index("Pod", "g")["a"] is a
    assert nxt.index("Pod", "g")["b"] is not b and len(nxt.index("Pod", "g")["b"]) == 2
