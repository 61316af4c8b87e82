"""A small evaluator for the part of CEL that CRD validation rules mostly use, so that
admitting an object does not pay for building the full CEL parser (``cel-python``
builds a Lark LALR parser on first use: about 0.4 s per process, more than the whole
start-up of ``rolloutctl``).

Covered: literals (strings, integers, ``true``/``false``/``null``, lists), the
identifiers the caller binds (``self``, ``oldSelf``), field selection, ``has(x.f)``,
``!``, ``&&``, ``||``, ``==``, ``!=``, ``<``, ``<=``, ``>``, ``>=``, ``in``, the macros
``all`` and ``exists``, ``size()`` and the optional ``hasValue()``. Semantics follow the
CEL language definition (github.com/google/cel-spec ``doc/langdef.md``): no
truthiness (logical operators need booleans), selecting a missing field is an error.
Where CEL absorbs an error (``error || true`` is true; ``all`` is false when any element
is false, whatever the others give) the evaluator does not: any error, even one CEL
would absorb, leaves the whole rule to the reference, so the two never differ on
what this one decides.

Anything else is not guessed: ``parse`` raises ``Unsupported`` for syntax outside the
subset and ``evaluate`` raises ``EvalError`` when evaluation fails; the caller
(``cel.py``) then hands the rule to ``cel-python``, the reference. A test checks that
both give the same answer on generated values.
"""

from __future__ import annotations

import re
from ..core.records import record
from functools import lru_cache
from typing import Any, Callable, Mapping

#: the empty optional (``oldSelf`` on create for an ``optionalOldSelf`` rule)
EMPTY = object()


class Unsupported(Exception):
    """The rule uses CEL this evaluator does not cover."""


class EvalError(Exception):
    """Evaluation failed (a CEL error value, e.g. selecting a missing field)."""


_TOKEN = re.compile(r"""\s*(?:
    (?P<str>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
  | (?P<int>\d+)(?![.\deE])
  | (?P<id>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>\|\||&&|==|!=|<=|>=|[!<>.(),\[\]])
)""", re.VERBOSE)
_KEYWORDS = {"true": True, "false": False, "null": None}
_RESERVED = {"as", "break", "const", "continue", "else", "for", "function", "if", "import", "let", "loop",
             "package", "namespace", "return", "var", "void", "while", "in"}


def _tokens(text: str) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise Unsupported(f"token at {pos}")
        pos = m.end()
        if m.group("str") is not None:
            raw = m.group("str")[1:-1]
            if "\\" in raw:
                raise Unsupported("escape sequence")
            out.append(("lit", raw))
        elif m.group("int") is not None:
            out.append(("lit", int(m.group("int"))))
        elif m.group("id") is not None:
            name = m.group("id")
            if name in _KEYWORDS:
                out.append(("lit", _KEYWORDS[name]))
            elif name == "in":
                out.append(("op", "in"))
            else:
                out.append(("id", name))
        else:
            out.append(("op", m.group("op")))
    out.append(("end", None))
    return out


Node = Callable[[Mapping[str, Any]], Any]


@record
class _Parser:
    toks: list[tuple[str, Any]]
    i: int = 0

    def peek(self) -> tuple[str, Any]:
        return self.toks[self.i]

    def take(self, kind: str, value: Any = None) -> Any:
        k, v = self.toks[self.i]
        if k != kind or (value is not None and v != value):
            raise Unsupported(f"expected {value or kind}")
        self.i += 1
        return v

    def accept(self, value: str) -> bool:
        if self.toks[self.i] == ("op", value):
            self.i += 1
            return True
        return False

    # expr := or ; or := and ('||' and)* ; and := rel ('&&' rel)* ; rel := unary (relop unary)?
    def expr(self) -> Node:
        node = self.conj()
        while self.accept("||"):
            node = _or(node, self.conj())
        return node

    def conj(self) -> Node:
        node = self.rel()
        while self.accept("&&"):
            node = _and(node, self.rel())
        return node

    def rel(self) -> Node:
        left = self.unary()
        k, v = self.peek()
        if k == "op" and v in _RELATIONS:
            self.i += 1
            return _relation(_RELATIONS[v], left, self.unary())
        return left

    def unary(self) -> Node:
        if self.accept("!"):
            return _not(self.unary())
        return self.member()

    def member(self) -> Node:
        node = self.primary()
        while self.accept("."):
            name = self.take("id")
            if self.accept("("):
                node = self.call(node, name)
            else:
                node = _select(node, name)
        return node

    def call(self, target: Node, name: str) -> Node:
        if name in ("all", "exists"):
            var = self.take("id")
            self.take("op", ",")
            pred = self.expr()
            self.take("op", ")")
            return _quantifier(name == "all", target, var, pred)
        self.take("op", ")")
        if name == "hasValue":
            return lambda env: target(env) is not EMPTY
        if name == "size":
            return lambda env: _size(target(env))
        raise Unsupported(f"method {name}()")

    def primary(self) -> Node:
        k, v = self.peek()
        self.i += 1
        if k == "lit":
            return lambda env, v=v: v
        if k == "op" and v == "(":
            node = self.expr()
            self.take("op", ")")
            return node
        if k == "op" and v == "[":
            items: list[Node] = []
            if not self.accept("]"):
                items.append(self.expr())
                while self.accept(","):
                    items.append(self.expr())
                self.take("op", "]")
            return lambda env: [n(env) for n in items]
        if k == "id" and v == "has":
            self.take("op", "(")
            target = self.primary_path()
            self.take("op", ")")
            return target
        if k == "id" and v == "size" and self.peek() == ("op", "("):
            self.i += 1
            arg = self.expr()
            self.take("op", ")")
            return lambda env: _size(arg(env))
        if k == "id" and v not in _RESERVED:
            if self.peek() == ("op", "("):
                raise Unsupported(f"function {v}()")
            return lambda env, v=v: _ident(env, v)
        raise Unsupported(f"unexpected {v!r}")

    def primary_path(self) -> Node:
        """The argument of ``has``: a selection ``e.f``; ``has`` tests ``f`` in ``e``."""
        start = self.i
        node = self.primary()
        last: str | None = None
        while self.peek() == ("op", "."):
            self.i += 1
            if last is not None:
                node = _select(node, last)
            last = self.take("id")
        if last is None or self.i == start:
            raise Unsupported("has() needs a field selection")
        return _has(node, last)


def _ident(env: Mapping[str, Any], name: str) -> Any:
    if name not in env:
        raise Unsupported(f"undeclared {name}")
    return env[name]


def _bool(v: Any) -> bool:
    if v is True or v is False:
        return v
    raise EvalError("no such overload: a logical operator needs booleans")


def _or(a: Node, b: Node) -> Node:
    return lambda env: _bool(a(env)) or _bool(b(env))


def _and(a: Node, b: Node) -> Node:
    return lambda env: _bool(a(env)) and _bool(b(env))


def _not(a: Node) -> Node:
    return lambda env: not _bool(a(env))


def _select(target: Node, name: str) -> Node:
    def run(env: Mapping[str, Any]) -> Any:
        v = target(env)
        if not isinstance(v, dict):
            raise EvalError(f"no such field {name!r} on a non-object")
        if name not in v:
            raise EvalError(f"no such key: {name}")
        return v[name]
    return run


def _has(target: Node, name: str) -> Node:
    def run(env: Mapping[str, Any]) -> bool:
        v = target(env)
        if not isinstance(v, dict):
            raise EvalError("has() on a non-object")
        return name in v
    return run


def _size(v: Any) -> int:
    if isinstance(v, (str, list, dict)) and not isinstance(v, bool):
        return len(v)
    raise EvalError("size() of a value without a size")


#: CEL's name of each JSON value type (exact types: a subclass is left to the reference)
_CEL_TYPE = {type(None): "null", bool: "bool", int: "int", float: "double", str: "string", list: "list",
             dict: "map"}


def _kind(v: Any) -> str:
    return _CEL_TYPE.get(type(v), type(v).__name__)


def _equal(a: Any, b: Any) -> bool:
    ka, kb = _kind(a), _kind(b)
    if ka in ("int", "double") and kb in ("int", "double"):
        raise EvalError("mixed numeric equality")  # left to the reference (heterogeneous equality)
    if ka != kb:
        raise EvalError("equality of different types")  # left to the reference
    if ka == "list":
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if ka == "map":
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    return bool(a == b)


def _in(a: Any, b: Any) -> bool:
    if isinstance(b, list):
        return any(_equal(a, x) for x in b)
    if isinstance(b, dict):
        return any(_equal(a, k) for k in b)
    raise EvalError("'in' needs a list or a map")


def _order(op: str) -> Callable[[Any, Any], bool]:
    def run(a: Any, b: Any) -> bool:
        ka, kb = _kind(a), _kind(b)
        if ka != kb or ka not in ("int", "string"):
            raise EvalError(f"no such overload: {ka} {op} {kb}")
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
    return run


_RELATIONS: dict[str, Callable[[Any, Any], bool]] = {
    "==": _equal, "!=": lambda a, b: not _equal(a, b), "in": _in,
    "<": _order("<"), "<=": _order("<="), ">": _order(">"), ">=": _order(">="),
}


def _relation(op: Callable[[Any, Any], bool], a: Node, b: Node) -> Node:
    return lambda env: op(a(env), b(env))


def _quantifier(every: bool, target: Node, var: str, pred: Node) -> Node:
    def run(env: Mapping[str, Any]) -> bool:
        items = target(env)
        if isinstance(items, dict):
            items = list(items)
        if not isinstance(items, list):
            raise EvalError("all()/exists() over a value that is not a list or map")
        for item in items:
            if _bool(pred({**env, var: item})) is not every:
                return not every
        return every
    return run


@lru_cache(maxsize=256)
def parse(rule: str) -> Node:
    """The rule as an evaluable function of its bindings; ``Unsupported`` outside the subset."""
    p = _Parser(_tokens(rule))
    node = p.expr()
    if p.peek()[0] != "end":
        raise Unsupported("trailing input")
    return node


def evaluate(rule: str, bindings: Mapping[str, Any]) -> bool:
    """The rule's boolean result over JSON values (``EMPTY`` for the empty optional);
    ``Unsupported``/``EvalError`` when the reference evaluator must decide."""
    result = parse(rule)(bindings)
    if result is not True and result is not False:
        raise EvalError("the rule did not give a boolean")
    return result
