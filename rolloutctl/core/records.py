"""Record classes: the declarations of ``dataclasses`` without their start-up cost.

``@dataclass`` compiles each method it generates (``__init__``, ``__repr__``, ``__eq__``,
``__hash__``, the frozen ``__setattr__``/``__delattr__``, the orderings) with its own
``exec`` when the module is imported: about 1.5 ms a class on Python 3.11, and a RayService
plan imported 31 of them, 50 ms of a 0.39 s run. ``@record`` takes the same declarations
(annotated fields, plain defaults, ``dataclasses.field(default=..., default_factory=...,
compare=..., repr=...)``) and gives instances the same behaviour, but builds every method
except ``__init__`` from the shared functions below. Only ``__init__``, whose parameters
differ per class and which runs once per instance (some classes are built hundreds of
thousands of times in a large plan), is compiled, in one small ``exec``, when the class
is first instantiated.

What differs from ``dataclasses``: ``field`` is this module's (the same keywords:
``default``, ``default_factory``, ``compare``, ``repr``), ``dataclasses.fields``/``asdict``/
``replace`` do not know these classes (use ``replace`` below), and there is no
``InitVar``, ``ClassVar``, ``kw_only``, ``slots`` or inheritance of fields (nothing here
needs them; ``record`` rejects a class that inherits one). The ``dataclasses`` module
itself is not imported.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any, Callable, TypeVar

T = TypeVar("T")


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()  # no default


class FrozenInstanceError(AttributeError):
    """A write to a field of a frozen record."""


class Field:
    """What ``field(...)`` declares for one field."""

    __slots__ = ("default", "default_factory", "compare", "repr")

    def __init__(self, default: Any, default_factory: Any, compare: bool, repr: bool) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.default, self.default_factory, self.compare, self.repr = default, default_factory, compare, repr


def field(*, default: Any = MISSING, default_factory: Any = MISSING, compare: bool = True,
          repr: bool = True) -> Any:
    """A field's default, default factory, and whether it counts in equality, hash and
    ordering (``compare``) and shows in ``repr``, as ``dataclasses.field``."""
    return Field(default, default_factory, compare, repr)

_FACTORY = object()  # the __init__ default standing for "call the field's default_factory"


class _Spec:
    """One field: its name, default (MISSING: required), default_factory, and whether it
    takes part in equality/hash/ordering and in repr."""

    __slots__ = ("name", "default", "factory", "compare", "repr")

    def __init__(self, name: str, value: Any) -> None:
        self.name = name
        self.default, self.factory, self.compare, self.repr = value, MISSING, True, True
        if isinstance(value, Field):
            self.default, self.factory = value.default, value.default_factory
            self.compare, self.repr = bool(value.compare), bool(value.repr)


def _init_source(specs: list[_Spec], frozen: bool) -> str:
    params, body = ["self"], []
    for s in specs:
        if s.factory is not MISSING:
            params.append(f"{s.name}=_FACTORY")
            value = f"_factory_{s.name}() if {s.name} is _FACTORY else {s.name}"
        elif s.default is not MISSING:
            params.append(f"{s.name}=_default_{s.name}")
            value = s.name
        else:
            params.append(s.name)
            value = s.name
        # frozen: straight into the instance's __dict__ (its __setattr__ refuses writes), about
        # twice as fast as one object.__setattr__ call per field
        body.append(f"  _d[{s.name!r}] = {value}" if frozen else f"  self.{s.name} = {value}")
    if frozen and body:
        body.insert(0, "  _d = self.__dict__")
    return f"def __init__({', '.join(params)}):\n" + ("\n".join(body) or "  pass") + "\n"


def _make_init(cls: type, specs: list[_Spec], frozen: bool) -> Callable[..., None]:
    names: dict[str, Any] = {"_FACTORY": _FACTORY}
    for s in specs:
        if s.factory is not MISSING:
            names[f"_factory_{s.name}"] = s.factory
        elif s.default is not MISSING:
            names[f"_default_{s.name}"] = s.default
    exec(_init_source(specs, frozen), names)  # noqa: S102 - generated from the class's own field names
    init = names["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    return init


#: instantiations a class serves with the generic ``__init__`` before its own is compiled
COMPILE_AFTER = 16


def _generic_init(specs: list[_Spec], frozen: bool) -> Callable[..., None]:
    """An ``__init__`` for any field list, binding arguments as the compiled one's
    signature does (positional in field order, then keywords; defaults and factories
    for what is not given). Slower per call than a compiled one, but free to make."""
    names = [s.name for s in specs]
    known = frozenset(names)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(specs):
            raise TypeError(f"__init__() takes {len(specs) + 1} positional arguments but {len(args) + 1} were given")
        for k in kwargs:
            if k not in known:
                raise TypeError(f"__init__() got an unexpected keyword argument {k!r}")
        given = dict(zip(names, args))
        for k, v in kwargs.items():
            if k in given:
                raise TypeError(f"__init__() got multiple values for argument {k!r}")
            given[k] = v
        missing = [s.name for s in specs if s.name not in given and s.default is MISSING and s.factory is MISSING]
        if missing:
            raise TypeError(f"__init__() missing required arguments: {', '.join(map(repr, missing))}")
        d = self.__dict__
        for s in specs:
            value = given[s.name] if s.name in given else s.default if s.factory is MISSING else s.factory()
            if frozen:
                d[s.name] = value
            else:
                setattr(self, s.name, value)
    return __init__


def _first_init(cls: type, specs: list[_Spec], frozen: bool) -> Callable[..., None]:
    """The ``__init__`` a class starts with: the generic one (``_generic_init``) for its
    first ``COMPILE_AFTER`` instances, then it compiles the class's own, puts it on the
    class and runs it from then on. Records built a few times (most classes in a
    RayService plan, and every class on paths a command does not take) never pay for
    the compile, which costs about as much as a hundred generic calls."""
    generic = _generic_init(specs, frozen)
    calls = [0]

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        calls[0] += 1
        if calls[0] <= COMPILE_AFTER:
            generic(self, *args, **kwargs)
            return
        init = _make_init(cls, specs, frozen)
        type.__setattr__(cls, "__init__", init)
        init(self, *args, **kwargs)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _methods(cls: type, specs: list[_Spec], frozen: bool, order: bool) -> dict[str, Any]:
    compared = [s.name for s in specs if s.compare]
    shown = [s.name for s in specs if s.repr]
    # attrgetter of one name returns the value, not a 1-tuple: wrap so every key is a tuple
    key = attrgetter(*compared) if len(compared) > 1 else (
        (lambda o, _g=attrgetter(compared[0]): (_g(o),)) if compared else (lambda o: ()))

    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented

    def __repr__(self: Any) -> str:
        return f"{self.__class__.__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in shown)})"

    out: dict[str, Any] = {"__eq__": __eq__, "__repr__": __repr__}
    if frozen:
        fields = frozenset(s.name for s in specs)

        def __hash__(self: Any) -> int:
            return hash(key(self))

        def __setattr__(self: Any, name: str, value: Any) -> None:
            if type(self) is cls or name in fields:
                raise FrozenInstanceError(f"cannot assign to field {name!r}")
            object.__setattr__(self, name, value)

        def __delattr__(self: Any, name: str) -> None:
            if type(self) is cls or name in fields:
                raise FrozenInstanceError(f"cannot delete field {name!r}")
            object.__delattr__(self, name)

        out.update(__hash__=__hash__, __setattr__=__setattr__, __delattr__=__delattr__)
    else:
        out["__hash__"] = None  # mutable with equality: unhashable, as dataclasses makes it
    if order:
        def _ordering(compare: Callable[[tuple, tuple], bool], name: str) -> Callable[[Any, Any], Any]:
            def method(self: Any, other: Any) -> Any:
                if other.__class__ is self.__class__:
                    return compare(key(self), key(other))
                return NotImplemented
            method.__name__ = name
            return method

        out.update(__lt__=_ordering(tuple.__lt__, "__lt__"), __le__=_ordering(tuple.__le__, "__le__"),
                   __gt__=_ordering(tuple.__gt__, "__gt__"), __ge__=_ordering(tuple.__ge__, "__ge__"))
    return out


def _process(cls: type, frozen: bool, order: bool) -> type:
    if any(getattr(b, "__record_fields__", None) is not None for b in cls.__mro__[1:]):
        raise TypeError(f"{cls.__qualname__}: a record cannot inherit another record's fields")
    specs = []
    for name in cls.__dict__.get("__annotations__", {}):
        value = cls.__dict__.get(name, MISSING)
        spec = _Spec(name, value)
        if isinstance(spec.default, (list, dict, set)):
            raise ValueError(f"mutable default {type(spec.default).__name__} for field {name} "
                             "is not allowed: use default_factory")
        if spec.default is not MISSING:
            setattr(cls, name, spec.default)  # as dataclasses leaves it: the class attribute is the default
        elif value is not MISSING:
            delattr(cls, name)
        specs.append(spec)
    seen_default = False
    for s in specs:
        if s.default is not MISSING or s.factory is not MISSING:
            seen_default = True
        elif seen_default:
            raise TypeError(f"non-default argument {s.name!r} follows default argument")
    cls.__init__ = _first_init(cls, specs, frozen)  # type: ignore[misc]
    for name, fn in _methods(cls, specs, frozen, order).items():
        if name in cls.__dict__ and name not in ("__hash__",):
            continue  # the class's own method wins, as with dataclasses' repr/eq
        if fn is not None:
            fn.__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, fn)
    cls.__record_fields__ = tuple(s.name for s in specs)  # type: ignore[attr-defined]
    cls.__match_args__ = cls.__record_fields__  # type: ignore[attr-defined]
    return cls


def record(cls: type[T] | None = None, /, *, frozen: bool = False, order: bool = False) -> Any:
    """Like ``dataclasses.dataclass(frozen=..., order=...)`` with ``eq=True`` and
    ``repr=True``: ``@record`` or ``@record(frozen=True)``."""
    if cls is None:
        return lambda c: _process(c, frozen, order)
    return _process(cls, frozen, order)


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of a record with some fields changed, as ``dataclasses.replace``."""
    for name in obj.__record_fields__:  # type: ignore[attr-defined]
        if name not in changes:
            changes[name] = getattr(obj, name)
    return obj.__class__(**changes)  # type: ignore[call-arg]
