"""Properties of the structural diff over generated pod-like objects."""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from rolloutctl.core.diff import diff_objects
from rolloutctl.core.model import Obj

names = st.lists(st.sampled_from(["a", "b", "c", "d", "e", "f"]), min_size=1, max_size=5, unique=True)


@st.composite
def pods(draw):
    containers = []
    for n in draw(names):
        env = [{"name": e.upper(), "value": draw(st.sampled_from(["1", "2", "x"]))} for e in draw(names)]
        containers.append({"name": n, "image": f"img-{n}:{draw(st.integers(1, 3))}", "env": env})
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": containers}}


@settings(max_examples=40, deadline=None)
@given(pods(), st.randoms(use_true_random=False))
def test_shuffling_keyed_lists_is_never_a_change(pod, rnd):
    shuffled = copy.deepcopy(pod)
    rnd.shuffle(shuffled["spec"]["containers"])
    for c in shuffled["spec"]["containers"]:
        rnd.shuffle(c["env"])
    assert diff_objects(Obj(shuffled), Obj(pod)) == ()


@settings(max_examples=40, deadline=None)
@given(pods(), st.data())
def test_one_edit_is_one_change_at_its_keyed_path(pod, data):
    desired = copy.deepcopy(pod)
    c = data.draw(st.sampled_from(desired["spec"]["containers"]))
    e = data.draw(st.sampled_from(c["env"]))
    old = e["value"]
    e["value"] = old + "-new"
    [ch] = diff_objects(Obj(desired), Obj(pod))
    assert (ch.path, ch.op, ch.old, ch.new) == (f"spec.containers[name={c['name']}].env[name={e['name']}].value",
                                                "replace", old, old + "-new")
