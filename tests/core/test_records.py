"""``core.records.record`` behaves like ``dataclasses.dataclass`` for every declaration the
project uses: same constructor (positional, keyword, defaults, factories), equality, hash,
ordering, repr and frozenness. Each case declares the same class both ways and compares
what a caller sees."""

from __future__ import annotations

import dataclasses
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rolloutctl.core.records import FrozenInstanceError, field, record, replace


def _both(frozen: bool, order: bool = False):
    def decl(field):
        class Thing:
            kind: str
            name: str
            index: int | None = None
            tags: tuple = ()
            fields: dict = field(default_factory=dict)
            payload: object = field(default=None, compare=False, repr=False)
            uid: str | None = field(default=None, compare=False)
        return Thing
    return (dataclasses.dataclass(frozen=frozen, order=order)(decl(dataclasses.field)),
            record(frozen=frozen, order=order)(decl(field)))


values = st.tuples(st.sampled_from(["Pod", "PodClique"]), st.text(max_size=3), st.none() | st.integers(-2, 2),
                   st.tuples(st.integers(0, 3)), st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
                   st.none() | st.integers(), st.none() | st.text(max_size=2))


@given(a=values, b=values, frozen=st.booleans())
def test_equality_hash_and_repr_match_dataclasses(a, b, frozen):
    dc, rc = _both(frozen)
    da, db, ra, rb = dc(*a), dc(*b), rc(*a), rc(*b)
    assert (ra == rb) == (da == db)
    assert (ra != rb) == (da != db)
    assert repr(ra).replace("decl.<locals>.", "") == repr(da).replace("decl.<locals>.", "")
    assert (_hash(ra) is None) == (_hash(da) is None)  # unhashable alike (mutable, or a dict field)
    if _hash(ra) is not None and ra == rb:
        assert _hash(ra) == _hash(rb)
    if not frozen:
        assert _hash(ra) is None


def _hash(x):
    try:
        return hash(x)
    except TypeError:
        return None


@given(a=values, b=values)
def test_ordering_matches_dataclasses(a, b):
    dc, rc = _both(True, order=True)
    a, b = a[:3], b[:3]  # order needs comparable values: the dicts are left at their default
    if (a[2] is None) != (b[2] is None):
        return  # None against int does not order, in either
    da, db, ra, rb = dc(*a), dc(*b), rc(*a), rc(*b)
    assert (ra < rb, ra <= rb, ra > rb, ra >= rb) == (da < db, da <= db, da > db, da >= db)
    assert sorted([rb, ra]) == sorted([ra, rb])


def test_constructor_defaults_factories_and_keywords():
    _, rc = _both(True)
    x, y = rc("Pod", "a"), rc(kind="Pod", name="a")
    assert x == y and x.index is None and x.tags == () and x.fields == {}
    assert x.fields is not y.fields  # a fresh default per instance
    assert rc("Pod", "a", 3, fields={"k": 1}).fields == {"k": 1}
    with pytest.raises(TypeError):
        rc("Pod")  # a required field missing
    with pytest.raises(TypeError):
        rc("Pod", "a", nope=1)


def test_frozen_records_refuse_writes_and_mutable_ones_take_them():
    _, rc = _both(True)
    x = rc("Pod", "a")
    with pytest.raises(FrozenInstanceError):
        x.name = "b"  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        del x.name  # type: ignore[misc]
    _, mc = _both(False)
    m = mc("Pod", "a")
    m.name = "b"
    assert m.name == "b"


def test_compare_false_fields_do_not_count():
    @record(frozen=True)
    class Ref:
        name: str
        payload: object = field(default=None, compare=False, repr=False)

    assert Ref("a", payload=1) == Ref("a", payload=2)
    assert hash(Ref("a", payload=1)) == hash(Ref("a", payload=2)) == hash(Ref("a"))
    assert repr(Ref("a", payload=1)).endswith("Ref(name='a')")


def test_replace_copies_with_changes():
    _, rc = _both(True)
    x = rc("Pod", "a", 1, payload="p")
    y = replace(x, index=2)
    assert (y.kind, y.name, y.index, y.payload) == ("Pod", "a", 2, "p") and x.index == 1


def test_own_methods_win_and_class_attribute_is_the_default():
    @record(frozen=True)
    class Named:
        name: str
        size: int = 3

        def __str__(self) -> str:
            return f"<{self.name}>"

    assert str(Named("x")) == "<x>" and Named.size == 3 and Named.__match_args__ == ("name", "size")


def test_declarations_dataclasses_would_refuse_are_refused():
    with pytest.raises(TypeError):
        @record
        class Bad:
            a: int = 1
            b: int
    with pytest.raises(ValueError):
        @record
        class Shared:
            a: list = []  # one list for every instance: dataclasses refuses it too
    assert issubclass(FrozenInstanceError, AttributeError)


def test_project_records_pickle_and_compare():
    """The project's own records (a plan's pieces) survive pickling, which the
    hypothesis database and multiprocessing users rely on."""
    from rolloutctl.core.model import Action, ObjectRef, Step

    a = Action("create", "Pod", "p", "default", "why", "rule", index=0, fields={"x": 1})
    s = Step(1, "t", (a,))
    assert pickle.loads(pickle.dumps(s)) == s
    assert sorted([ObjectRef("Pod", "b", "x"), ObjectRef("Pod", "a", "y")])[0].namespace == "a"


def test_the_first_instance_behaves_like_every_later_one():
    """__init__ is compiled on the first instantiation: a bad first call fails as a bad
    later call does, and the class works afterwards."""
    @record(frozen=True)
    class Late:
        a: int
        b: int = 2

    with pytest.raises(TypeError):
        Late()
    assert Late(1) == Late(a=1, b=2) and Late(1, 3).b == 3
    with pytest.raises(TypeError):
        Late()


def test_the_package_declares_records_not_dataclasses():
    """Start-up: every record class in rolloutctl/ is a ``record`` (a dataclass costs
    about 1.5 ms at import on Python 3.11), and the ``dataclasses`` module is not
    imported at all."""
    from pathlib import Path

    import rolloutctl

    root = Path(rolloutctl.__file__).parent
    offenders = [str(p.relative_to(root)) for p in sorted(root.rglob("*.py"))
                 if p.name != "records.py" and ("from dataclasses" in p.read_text() or "import dataclasses" in p.read_text())]
    assert offenders == [], f"use rolloutctl.core.records (record, field, replace) in {offenders}"


@pytest.mark.parametrize("frozen", [True, False])
def test_the_generic_and_the_compiled_constructor_agree(frozen):
    """A class's first instances are built by the generic ``__init__``, later ones by the
    compiled one: every way of calling gives the dataclass's result on both sides of the
    switch, and the same calls fail."""
    from rolloutctl.core.records import COMPILE_AFTER

    calls = [(("Pod", "a"), {}), ((), {"kind": "Pod", "name": "b"}), (("Pod", "c", 3), {"fields": {"k": 1}}),
             (("Pod", "d", 1, (2,), {"x": 0}, "p", "u"), {}), (("Pod",), {"name": "e", "uid": "u"})]
    bad = [(("Pod",), {}), (("Pod", "a"), {"nope": 1}), (("Pod", "a"), {"kind": "Pod"}), (tuple(range(8)), {})]
    dc, rc = _both(frozen)
    for _ in range(COMPILE_AFTER // len(calls) + 2):
        for args, kwargs in calls:
            d, r = dc(*args, **kwargs), rc(*args, **kwargs)
            assert repr(r).replace("decl.<locals>.", "") == repr(d).replace("decl.<locals>.", "")
            assert r.payload == d.payload
            if "fields" not in kwargs and len(args) < 5:
                assert r.fields is not rc(*args, **kwargs).fields  # a fresh default per instance
        for args, kwargs in bad:
            with pytest.raises(TypeError):
                rc(*args, **kwargs)
