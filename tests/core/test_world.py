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
        assert world.count("Pod") == fresh.count("Pod") == len(fresh.of_kind("Pod")) and world.count("Service") == 0
        assert {k: [o.raw for o in v] for k, v in world.index("Pod", "g").items()} == \
               {k: [o.raw for o in v] for k, v in fresh.index("Pod", "g").items()}


def test_unchanged_groups_keep_their_identity():
    world = World([pod("p1", "a"), pod("p2", "b")])
    a, b = world.index("Pod", "g")["a"], world.index("Pod", "g")["b"]
    nxt = world.replace(put=[pod("p3", "b")])
    assert nxt.index("Pod", "g")["a"] is a
    assert nxt.index("Pod", "g")["b"] is not b and len(nxt.index("Pod", "g")["b"]) == 2


def test_views_derive_across_worlds_that_never_computed_them():
    # given a world whose index was computed, then two derived worlds nobody looked at
    world = World([pod("p1", "a"), pod("p2", "b"), pod("p3", "c")])
    a = world.index("Pod", "g")["a"]
    mid = world.replace(put=[pod("p2", "b", ready=True)])
    last = mid.replace(put=[pod("p4", "c")], remove=[("Pod", "ns", "p3")])
    # when the last one is asked
    idx = last.index("Pod", "g")
    # then untouched groups are still the same list, and the view equals a fresh one
    assert idx["a"] is a
    fresh = World({k: last.get(*k) for k in last.keys()})
    assert {k: [o.raw for o in v] for k, v in idx.items()} == \
           {k: [o.raw for o in v] for k, v in fresh.index("Pod", "g").items()}
    assert [o.raw for o in last.of_kind("Pod")] == [o.raw for o in fresh.of_kind("Pod")]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["put", "remove", "delete", "status", "batch"]),
                          st.integers(0, 150), st.sampled_from(["a", "b"])), min_size=60, max_size=150))
def test_every_world_keeps_reading_what_it_read_when_made(script):
    # given a chain of worlds long enough that each one's own changes are folded into
    # a new shared map now and then, and a plain dict per world alongside
    world = World([pod(f"p{i}", "a") for i in range(10)])
    model = {("Pod", "ns", f"p{i}"): pod(f"p{i}", "a").raw for i in range(10)}
    kept = [(world, dict(model))]
    for op, i, g in script:
        k = ("Pod", "ns", f"p{i}")
        if op == "put":
            world = world.replace(put=[pod(f"p{i}", g)])
            model[k] = pod(f"p{i}", g).raw
        elif op == "remove":
            world = world.replace(remove=[k])
            model.pop(k, None)
        elif op == "delete":
            world = world.apply([Action("delete", "Pod", f"p{i}", "ns", "r", "x")])
            if k in model and "deletionTimestamp" not in model[k]["metadata"]:
                model[k] = world.get(*k).raw
        elif op == "batch":
            # several changes to one key in one apply: create, status, delete
            world = world.apply([Action("create", "Pod", f"p{i}", "ns", "r", "x", payload=pod(f"p{i}", g).raw),
                                 Action("status", "Pod", f"p{i}", "ns", "r", "x", fields={"ready": True}),
                                 Action("delete", "Pod", f"p{i}", "ns", "r", "x")])
            model[k] = world.get(*k).raw
            assert model[k]["status"] == {"ready": True} and "deletionTimestamp" in model[k]["metadata"]
        else:
            world = world.apply([Action("status", "Pod", f"p{i}", "ns", "r", "x", fields={"ready": True})])
            if k in model:
                model[k] = world.get(*k).raw
        kept.append((world, dict(model)))
    # then every world, old or new, reads exactly its own objects
    for w, m in kept:
        assert len(w) == len(m)
        assert w.keys() == sorted(m)
        assert sorted((o.name, o.raw == m[("Pod", "ns", o.name)]) for o in w) == sorted((k[2], True) for k in m)
        for i in range(151):
            k = ("Pod", "ns", f"p{i}")
            got = w.get(*k)
            assert (got.raw if got is not None else None) == m.get(k)
            assert (k in w) == (k in m)
        assert [o.name for o in w.of_kind("Pod")] == [k[2] for k in sorted(m)]


def test_keys_changed_from_covers_sibling_worlds():
    # given a round's input world and two worlds derived from it (a pass's scratch
    # world and the next round's input world)
    base = World([pod(f"p{i}", "a") for i in range(6)])
    scratch = base.replace(put=[pod("p1", "b")])
    nxt = base.apply([Action("status", "Pod", "p2", "ns", "r", "x", fields={"ready": True})]).replace(
        remove=[("Pod", "ns", "p3")])
    # then the keys that may differ between them are those changed on either side
    got = nxt.keys_changed_from(scratch)
    assert got is not None and {k[2] for k in got} == {"p1", "p2", "p3"}
    differ = {k for k in set(scratch.keys()) | set(nxt.keys()) if scratch.get(*k) is not nxt.get(*k)}
    assert differ <= got
    # and a world is unchanged from itself; unrelated worlds are not known
    assert nxt.keys_changed_from(nxt) == set()
    assert World([pod("p1", "a")]).keys_changed_from(nxt) is None


def svc(name: str, group: str) -> Obj:
    return Obj({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": "ns",
                                                                    "labels": {"g": group}}})


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["pod", "svc", "both", "remove", "status"]), st.integers(0, 8),
                          st.sampled_from(["a", "b"]), st.booleans()), min_size=1, max_size=40),
       st.lists(st.sampled_from(["Pod", "Service"]), max_size=40))
def test_a_layers_changes_of_one_kind_are_its_changes_filtered(script, asks):
    # given a tree of worlds (each derived from the last one or from the one before it,
    # as a pass's scratch worlds are siblings), whose layers are asked for one kind's
    # changes before anything composes them
    world = World([pod(f"p{i}", "a") for i in range(4)] + [svc("s0", "a")])
    worlds = [world]
    for n, (op, i, g, sibling) in enumerate(script):
        parent = worlds[-2] if sibling and len(worlds) > 1 else worlds[-1]
        if op == "pod":
            w = parent.replace(put=[pod(f"p{i}", g)])
        elif op == "svc":
            w = parent.replace(put=[svc(f"s{i}", g)])
        elif op == "both":
            w = parent.replace(put=[pod(f"p{i}", g), svc(f"s{i}", g), pod(f"p{(i + 3) % 9}", g)])
        elif op == "remove":
            w = parent.replace(remove=[("Pod", "ns", f"p{i}"), ("Service", "ns", f"s{i}")])
        else:
            w = parent.apply([Action("status", "Pod", f"p{i}", "ns", "r", "x", fields={"ready": True})])
        worlds.append(w)
        if n < len(asks):
            for *_views, layer in w._layers:
                layer.of_kind(asks[n])
    # then each layer's entries of a kind are, in order, its composed changes of that kind
    for w in worlds:
        for *_views, layer in w._layers:
            got = {kind: layer.of_kind(kind) for kind in ("Pod", "Service")}
            for kind, entries in got.items():
                assert entries == [(k, old, new) for k, (old, new) in layer.changes().items() if k[0] == kind]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["pod", "svc", "remove", "status"]), st.integers(0, 6),
                          st.sampled_from(["a", "b"])), min_size=1, max_size=25),
       st.lists(st.sampled_from(["Pod", "Service"]), max_size=10))
def test_changes_by_kind_since_are_the_changes_since_of_that_kind(script, early):
    # given a chain of worlds, some of whose layers were asked for a kind's changes early
    worlds = [World([pod(f"p{i}", "a") for i in range(3)] + [svc("s0", "a")])]
    for n, (op, i, g) in enumerate(script):
        w = worlds[-1]
        if op == "pod":
            w = w.replace(put=[pod(f"p{i}", g)])
        elif op == "svc":
            w = w.replace(put=[svc(f"s{i}", g)])
        elif op == "remove":
            w = w.replace(remove=[("Pod", "ns", f"p{i}"), ("Service", "ns", f"s{i}")])
        else:
            w = w.apply([Action("status", "Pod", f"p{i}", "ns", "r", "x", fields={"ready": True})])
        if n < len(early):
            of_kind = w.changes_by_kind_since(worlds[0].token)
            if of_kind is not None:
                of_kind(early[n])
        worlds.append(w)
    last = worlds[-1]
    # then, from every earlier world the last one can relate to, a kind's changes are the
    # changes since that world of that kind, in the same order; unknown worlds say None
    for before in worlds:
        whole = last.changes_since(before.token)
        of_kind = last.changes_by_kind_since(before.token)
        assert (whole is None) == (of_kind is None)
        if whole is not None:
            for kind in ("Pod", "Service"):
                assert of_kind(kind) == [(k, old, new) for k, (old, new) in whole.items() if k[0] == kind]
    assert last.changes_by_kind_since(World([pod("p0", "a")]).token) is None
    assert last.changes_by_kind_since(last.token)("Pod") == []
