"""The CEL validation rules a CRD carries (``x-kubernetes-validations`` in its schema),
evaluated as the API server evaluates them, with the ``cel-python`` library (import
name ``celpy``, imported only when a rule is met).

Upstream: k8s.io/apiextensions-apiserver ``pkg/apiserver/schema/cel/validation.go``
(``Validator.Validate``): each rule is evaluated with ``self`` bound to the value of the
node that carries it, when that value is present; a transition rule (one that names
``oldSelf``) only on update, with ``oldSelf`` bound to the stored value, unless the rule
says ``optionalOldSelf: true`` (then also on create, with ``oldSelf`` an empty optional).
A rule that evaluates to false is the rule's ``message`` at the node's path (plus its
``fieldPath``).

``cel-python`` implements standard CEL; the Kubernetes extension libraries
(``k8s.io/apiserver/pkg/cel/library``: quantity, lists, regex, urls, most of the
optional types) it lacks. A rule that needs one is reported as a warning "not
evaluated" (``SC012``), never passed silently. Rules in the subset ``cel_core`` covers
are evaluated there first (no parser to build); the rest, and whatever it cannot
decide, by ``cel-python``. One piece of the optional types is
registered with the library, because ``optionalOldSelf`` rules need it on every
create: ``oldSelf`` is then an empty optional and ``oldSelf.hasValue()`` is false
(``cel-go`` ``ext`` optional types: ``optional.none().hasValue() == false``).
"""

from __future__ import annotations

from functools import lru_cache
from collections.abc import Mapping
from typing import Any, Iterator

from ..core.model import Finding, Obj
from ..core.paths import field_path
from .ratchet import ratcheted
from .schema import Reach, prepared, resolve

RULE_FAILED = "SC011"
NOT_EVALUATED = "SC012"
KEYWORD = "x-kubernetes-validations"


class _NotEvaluable(Exception):
    pass


_NONE_KEY = "\x00optional.none"


def _has_value(value: Any) -> Any:
    """``optional.hasValue()``: false only for the empty optional (``_EMPTY_OPTIONAL``)."""
    from celpy import celtypes

    return celtypes.BoolType(not (isinstance(value, celtypes.MapType) and celtypes.StringType(_NONE_KEY) in value))


@lru_cache(maxsize=256)
def _program(rule: str) -> Any:
    """The compiled program of ``rule`` (compiled once per process: compiling is slow)."""
    import celpy

    try:
        env = celpy.Environment()
        return env.program(env.compile(rule), functions={"hasValue": _has_value})
    except Exception as exc:  # a parse error: CEL syntax celpy does not know
        raise _NotEvaluable(str(exc).splitlines()[0][:200]) from None


_EMPTY_OPTIONAL = object()


def _evaluate(rule: str, bindings: Mapping[str, Any]) -> bool:
    """The rule's result: by ``cel_core`` when the rule is in its subset and evaluates
    cleanly (no CEL parser to build), else by ``cel-python``. (``cel_core`` is imported
    here, when a rule is first evaluated: the RayService CRD's rules sit on fields most
    manifests leave out, ``managedBy`` and the GCS fault-tolerance backend, and a
    command that evaluates none does not pay for the module.)"""
    from . import cel_core

    try:
        return cel_core.evaluate(rule, {k: cel_core.EMPTY if v is _EMPTY_OPTIONAL else v for k, v in bindings.items()})
    except (cel_core.Unsupported, cel_core.EvalError):
        return _evaluate_reference(rule, bindings)


def _evaluate_reference(rule: str, bindings: Mapping[str, Any]) -> bool:
    import celpy
    from celpy import celtypes

    prog = _program(rule)

    def cel(v: Any) -> Any:
        if v is _EMPTY_OPTIONAL:
            return celtypes.MapType({celtypes.StringType(_NONE_KEY): celtypes.BoolType(True)})
        return celpy.json_to_cel(v)

    try:
        result = prog.evaluate({k: cel(v) for k, v in bindings.items()})
    except Exception as exc:
        raise _NotEvaluable(_reason(exc)) from None
    if isinstance(result, Exception):  # celpy returns evaluation errors as values
        raise _NotEvaluable(_reason(result))
    if not isinstance(result, bool) and type(result).__name__ != "BoolType":
        raise _NotEvaluable(f"the rule gave {type(result).__name__}, not a boolean")
    return bool(result)


def _reason(exc: BaseException) -> str:
    text = str(exc.args[0] if exc.args else exc)
    if "undeclared reference to '" in text:
        name = text.split("undeclared reference to '", 1)[1].split("'", 1)[0]
        return f"needs {name}(), a Kubernetes CEL extension the CEL library lacks"
    return text.splitlines()[0][:200] if text else type(exc).__name__


def _resolve(root: Mapping[str, Any], node: Any) -> Mapping[str, Any]:
    """``schema.resolve``, with an empty node for anything that is not one."""
    node = resolve(root, node)
    return node if isinstance(node, dict) else {}


def _rule_children(node: Mapping[str, Any]) -> list[Any]:
    """Where ``_rules_at`` goes from a node: its properties and its items."""
    items = node.get("items")
    return [*(node.get("properties") or {}).values(), *([items] if isinstance(items, dict) else [])]


class _RuleNodes:
    """Which nodes of one schema have a CEL rule at or below them (``Reach``): ``_rules_at``
    enters only the parts of an object that lead to a rule (a RayService schema has 3 rules,
    its objects hundreds of fields)."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.below = Reach(root, lambda n: bool(n.get(KEYWORD)), _rule_children)


def _rule_nodes(schema: Mapping[str, Any]) -> _RuleNodes:
    return prepared(schema, _RuleNodes)


def _rules_at(nodes: _RuleNodes, value: Any, old: Any, node: Mapping[str, Any],
              path: tuple) -> Iterator[tuple[tuple, Mapping[str, Any], Any, Any]]:
    """(path, rule, value, old value) for every rule of the schema over ``value``."""
    root = nodes.root
    node = _resolve(root, node)
    for rule in node.get(KEYWORD) or ():
        yield path, rule, value, old
    if isinstance(value, dict):
        props = node.get("properties") or {}
        for key, item in value.items():
            if key in props and nodes.below(props[key]):
                sub_old = old[key] if isinstance(old, dict) and key in old else _ABSENT
                yield from _rules_at(nodes, item, sub_old, props[key], (*path, key))
    elif isinstance(value, list) and isinstance(node.get("items"), dict) and nodes.below(node["items"]):
        for i, item in enumerate(value):
            # items are correlated by index only for a list the schema calls atomic; we
            # do not correlate list items (transition rules below lists are not evaluated)
            yield from _rules_at(nodes, item, _ABSENT, node["items"], (*path, i))


_ABSENT = object()


def check_cel(obj: Obj, schema: Mapping[str, Any], old: Obj | None = None) -> list[Finding]:
    """Findings of the CEL rules of ``schema`` over ``obj`` (``old``: the stored object on update)."""
    out: list[Finding] = []
    old_raw: Any = old.raw if old is not None else _ABSENT
    for path, rule, value, old_value in _rules_at(_rule_nodes(schema), obj.raw, old_raw, schema, ()):
        text = str(rule.get("rule") or "")
        if not text:
            continue
        transition = "oldSelf" in text
        if transition and old_value is _ABSENT and not rule.get("optionalOldSelf"):
            continue  # a transition rule is evaluated on update only
        where = _field(path, rule)
        line = obj.line_of(*where)
        shown = field_path(obj.raw, where)
        bindings: dict[str, Any] = {"self": value}
        try:
            if transition:
                bindings["oldSelf"] = _EMPTY_OPTIONAL if old_value is _ABSENT else old_value
            ok = _evaluate(text, bindings)
        except _NotEvaluable as why:
            out.append(Finding(NOT_EVALUATED, "warning", obj.file, line,
                               f"CEL rule not evaluated ({why}): {text}", shown, obj.ref))
            continue
        if not ok:
            message = str(rule.get("message") or f"failed rule: {text}")
            kept = None if transition or old_raw is _ABSENT else ratcheted(schema, obj.raw, old_raw, path, message)
            out.append(Finding(RULE_FAILED, "error" if kept is None else "warning", obj.file, line,
                               message if kept is None else kept, shown, obj.ref))
    return out


def _field(path: tuple, rule: Mapping[str, Any]) -> tuple:
    """The rule's node path plus its ``fieldPath`` (``.spec.template.cliques``)."""
    extra = str(rule.get("fieldPath") or "")
    return (*path, *[p for p in extra.split(".") if p]) if extra else path
