"""The registry: every operator package's ``KIND`` descriptor (``core.kind.KindDescriptor``),
as data. Outside ``kinds/`` nothing names an operator: the commands ask these functions,
which iterate over ``KINDS``. Listing the kinds imports none of their rules (the
descriptors name their parts as ``"module:attribute"``), so start-up stays cheap.

A new kind is one package under ``kinds/`` with a ``KIND`` and one entry here."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..core.kind import KindDescriptor
from ..core.model import Finding, Obj
from . import grove, kuberay, kueue

#: every operator package, kinds first, then the integrations that act on them
KINDS: tuple[KindDescriptor, ...] = (grove.KIND, kuberay.KIND, kueue.KIND)


def group_of(api_version: str) -> str:
    return api_version.split("/")[0] if "/" in api_version else ""


def _key(obj: Obj) -> tuple[str, str]:
    return group_of(obj.api_version), obj.kind


def descriptor(group: str, kind: str) -> KindDescriptor | None:
    """The kind (not an integration) that owns (group, kind), or None for a kind the
    tool does not model (admission's registry lookup)."""
    for d in KINDS:
        if not d.integration and (d.group, d.kind) == (group, kind):
            return d
    return None


def kind_of(obj: Obj) -> KindDescriptor | None:
    return descriptor(*_key(obj))


def other_group_of(obj: Obj) -> KindDescriptor | None:
    """The modelled kind whose name ``obj`` has under another API group (a fork's or an
    old group, e.g. ``core.grove.io`` for ``grove.io``), or None; ``obj`` itself is not
    modelled then."""
    if kind_of(obj) is not None:
        return None
    return next((d for d in modelled_kinds() if d.kind == obj.kind), None)


def acting_on(obj: Obj) -> list[KindDescriptor]:
    """The kind of ``obj`` and every integration acting on it, in registry order."""
    return [d for d in KINDS if (d.group, d.kind) == _key(obj)]


def _selected(obj: Obj, options: Mapping[str, Any]) -> KindDescriptor | None:
    """The integration the model options select for ``obj`` (``--kueue MODEL``), if any."""
    for d in acting_on(obj):
        if d.integration and options.get(d.option):
            return d
    return None


def unselected_warnings(obj: Obj, options: Mapping[str, Any]) -> list[Any]:
    """What the integrations acting on ``obj`` whose option is not given say of it (its
    plan models its kind's operator alone): each one's ``unselected`` warning, if any."""
    out = []
    for d in acting_on(obj):
        if d.integration and d.unselected and not options.get(d.option):
            w = d.load("unselected")(obj)
            if w is not None:
                out.append(w)
    return out


def integration_options() -> frozenset[str]:
    """The model options that select an integration's model (``kueue``)."""
    return frozenset(d.option for d in KINDS if d.integration)


def read_schema(group: str, kind: str) -> dict:
    """The JSON Schema of what the models read of an observed (group, kind) object:
    a kind's ``KIND.read_schemas``, the core kinds' (``core.read_schemas``), else
    ObjectMeta alone for kinds the models do not read."""
    from ..core.read_schemas import GENERIC, READ_SCHEMAS

    for d in KINDS:
        own = d.load("read_schemas")
        if own is not None and (group, kind) in own:
            return own[(group, kind)]
    return READ_SCHEMAS.get((group, kind), GENERIC)


def admitter(obj: Obj) -> KindDescriptor | None:
    """The package that models the admission of ``obj``, an object of a kind it does not
    own but its models read (``KindDescriptor.admits``), or None."""
    return next((d for d in KINDS if _key(obj) in d.admits), None)


def admit_other(obj: Obj, side: str) -> list[Any]:
    """What admission finds in ``obj`` per its ``admitter`` (``admit_other``; side
    "desired" or "observed"); empty when no package models its admission."""
    d = admitter(obj)
    fn = d.load("admit_other") if d is not None else None
    return list(fn(obj, side)) if fn is not None else []


def is_modelled(obj: Obj) -> bool:
    return kind_of(obj) is not None


def model_class(obj: Obj) -> Any | None:
    """The ``KindModel`` class of ``obj``'s kind (None: not modelled)."""
    d = kind_of(obj)
    return d.load("model") if d is not None else None


def model_for(obj: Obj, options: Mapping[str, Any], desired: Sequence[Obj] = (),
              observed: Sequence[Obj] = ()) -> Any | None:
    """The model that plans ``obj`` under the model options: an integration's when an
    option selects one (``--kueue MODEL``: KubeRay and Kueue interleaved, with the
    queues among ``desired`` and ``observed``), else its kind's; None: not modelled."""
    rest = {k: v for k, v in options.items() if k not in integration_options()}
    chosen = _selected(obj, options)
    if chosen is not None:
        return chosen.load("model")(options[chosen.option], desired=desired, observed=observed, **rest)
    cls = model_class(obj)
    return cls(**rest) if cls is not None else None


def compare_note(obj: Obj) -> str:
    """What ``plan --compare`` adds when ``obj``'s model compares nothing: the
    integrations' notes (" (with --kueue MODEL it compares ...)")."""
    notes = [d.compare_note for d in acting_on(obj) if d.integration and d.compare_note]
    return "".join(f" ({n})" for n in notes)


def live_reads(obj: Obj, options: Mapping[str, Any] | None = None) -> list[Any]:
    """The ``core.kind.LiveRead``s of ``obj``'s model under the model options: every
    kind it reads, how they are selected (an integration's replace its kind's)."""
    d = _selected(obj, options or {}) or kind_of(obj)
    fn = d.load("live_reads") if d is not None else None
    return list(fn(obj)) if fn is not None else []


def capacity_reads(obj: Obj, options: Mapping[str, Any]) -> list[Any]:
    """Extra reads that cap ``--capacity from-cluster`` (an integration's quotas)."""
    d = _selected(obj, options)
    fn = d.load("capacity_reads") if d is not None else None
    return list(fn()) if fn is not None else []


def capacity_limits(obj: Obj, options: Mapping[str, Any], objects: Sequence[Obj]) -> list[dict[str, int]]:
    """The caps (``{resource: limit}`` each) that ``capacity_reads`` found."""
    d = _selected(obj, options)
    fn = d.load("capacity_limits") if d is not None else None
    return list(fn(objects)) if fn is not None else []


def validators(obj: Obj, options: Mapping[str, Any] | None = None) -> list[Any]:
    """The webhook rules ``(obj, old) -> [Finding]`` that check ``obj``: its kind's and
    every integration's acting on it (each decides whether the object is its own), under
    the model options given (``--feature-gate``: a descriptor's ``validator``), which
    ``check_options`` has accepted."""
    out = []
    for d in acting_on(obj):
        fn = d.load("validator")(options) if options and d.validator else d.load("validate")
        if fn is not None:
            out.append(fn)
    return out


def rule_sources() -> list[tuple[KindDescriptor, Any]]:
    """(descriptor, its ``RULES``) of every package with rules, in registry order."""
    return [(d, d.load("rules")) for d in KINDS if d.rules]


def pod_templates(obj: Obj) -> Iterator[tuple[tuple, Mapping[str, Any]]]:
    """(path, pod spec) of every pod template in the manifest of a modelled kind."""
    d = kind_of(obj)
    fn = d.load("pod_templates") if d is not None else None
    if fn is not None:
        yield from fn(obj)


def injected_into_pods(obj: Obj, options: Mapping[str, Any] | None = None) -> list[tuple[tuple, str, str, str]]:
    """(template path, list, name, what) of every container and volume the operator of
    ``obj``'s kind, run with the model ``options``, adds to the Pods of a pod template
    (``KIND.injected_into_pods``)."""
    d = kind_of(obj)
    fn = d.load("injected_into_pods") if d is not None else None
    return list(fn(obj, options)) if fn is not None else []


def children_refused(obj: Obj) -> list[Finding]:
    """What the API server would refuse of the objects other than Pods that the operator
    of ``obj``'s kind creates from the admitted ``obj`` (``KIND.children_refused``)."""
    d = kind_of(obj)
    fn = d.load("children_refused") if d is not None else None
    return list(fn(obj)) if fn is not None else []


def pod_rules_refused_first(obj: Obj) -> frozenset[str]:
    """The ``lint.pods`` rules whose case the operator of ``obj``'s kind refuses itself
    before it creates a Pod (``KIND.pod_rules_refused_first``)."""
    d = kind_of(obj)
    return frozenset(d.pod_rules_refused_first) if d is not None else frozenset()


def pod_budget(obj: Obj) -> int | None:
    """How many pods the manifest asks for, when its kind bounds it (``--max-pods``)."""
    d = kind_of(obj)
    fn = d.load("pod_budget") if d is not None else None
    return fn(obj.raw) if fn is not None else None


def check_options(options: Mapping[str, Any]) -> None:
    """Every kind's check of the model options (raises ``core.kind.OptionError``)."""
    for d in KINDS:
        fn = d.load("check_options")
        if fn is not None:
            fn(options)


def modelled_kinds() -> list[KindDescriptor]:
    """The kinds ``plan`` can target, in registry order (not the integrations)."""
    return [d for d in KINDS if not d.integration]
