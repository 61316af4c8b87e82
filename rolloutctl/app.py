"""Use cases as plain functions returning core data. No printing, no exit codes:
problems are raised as ``InputProblem`` (exit 2) or ``ToolFailure`` (exit 3) and
turned into messages by the CLI.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from .core.environment import Environment
from .core.model import Obj, Plan, Warning
from .core.quantity import QuantityError, parse_quantity
from .kinds import is_modelled, model_class
from .load.files import InputError, Limits, Loaded, load_paths


class InputProblem(Exception):
    """Bad usage or unreadable/invalid input: exit code 2."""

    def __init__(self, errors: Sequence[InputError | str]) -> None:
        super().__init__("; ".join(str(e) for e in errors))
        self.errors = list(errors)


class ToolFailure(Exception):
    """The tool could not do its job for another reason (kubectl, internal): exit 3."""


@dataclass(frozen=True)
class PlanOptions:
    observed: tuple[str, ...] = ()
    capacity: tuple[str, ...] = ()
    never_ready: tuple[str, ...] = ()
    max_steps: int = 500
    limits: Limits = field(default_factory=Limits)
    model_options: Mapping[str, Any] = field(default_factory=dict)


def parse_capacity(items: Iterable[str]) -> dict[str, int]:
    """``RESOURCE=QTY`` pairs (``nvidia.com/gpu=16``, ``memory=800Mi``) in milli-units."""
    out: dict[str, int] = {}
    errors = []
    for item in items:
        res, sep, qty = item.partition("=")
        if not sep or not res.strip() or not qty.strip():
            errors.append(f"--capacity {item!r}: expected RESOURCE=QUANTITY, e.g. nvidia.com/gpu=16")
            continue
        try:
            out[res.strip()] = parse_quantity(qty.strip())
        except QuantityError as exc:
            errors.append(f"--capacity {item!r}: {exc}")
    if errors:
        raise InputProblem(errors)
    return out


def environment(opts: PlanOptions) -> Environment:
    if opts.max_steps < 1:
        raise InputProblem(["--max-steps must be at least 1"])
    return Environment(capacity=parse_capacity(opts.capacity), never_ready=tuple(opts.never_ready),
                       max_steps=opts.max_steps)


def load(paths: Sequence[str], limits: Limits, *, what: str = "") -> Loaded:
    loaded = load_paths(paths, limits)
    if loaded.errors:
        raise InputProblem(loaded.errors)
    return loaded


def check_duplicates(objs: Sequence[Obj]) -> None:
    seen: dict[tuple, Obj] = {}
    errors: list[InputError] = []
    for o in objs:
        k = (o.api_version.split("/")[0], o.kind, o.namespace, o.name)
        if k in seen:
            first = seen[k]
            errors.append(InputError(o.file, o.line, f"duplicate {o.kind} {o.namespace}/{o.name} "
                                     f"(also at {first.file}:{first.line})"))
        else:
            seen[k] = o
    if errors:
        raise InputProblem(errors)


def targets(objs: Sequence[Obj], source: str) -> list[Obj]:
    found = sorted((o for o in objs if is_modelled(o)), key=lambda o: (o.kind, o.namespace, o.name))
    if not found:
        raise InputProblem([f"{source}: no RayService (ray.io/v1) or PodCliqueSet (grove.io/v1alpha1) found"])
    return found


def reject_invalid(model: Any, obj: Obj, old: Obj | None) -> None:
    """A plan of a manifest the operator's webhook would reject is meaningless:
    stop with the rule that rejects it."""
    findings = [f for f in model.validate(obj, old) if f.severity == "error"]
    if findings:
        raise InputProblem([InputError(f.file or obj.file, f.line or obj.line,
                                       f"{f.rule}: {f.path + ': ' if f.path else ''}{f.message} "
                                       "(the operator would reject this manifest)") for f in findings])


def plan(paths: Sequence[str], opts: PlanOptions) -> list[Plan]:
    """``rolloutctl plan``: one Plan per RayService or PodCliqueSet in ``paths``."""
    from .core.simulate import simulate

    env = environment(opts)
    desired = load(paths, opts.limits).objects
    check_duplicates(desired)
    observed = load(opts.observed, opts.limits).objects if opts.observed else []
    check_duplicates(observed)
    plans = []
    for obj in targets(desired, " ".join(paths) or "input"):
        model = _model_for(obj, opts, desired, observed)
        old = _previous(obj, observed)
        reject_invalid(model, obj, old)
        world = model.observe(obj, _related(obj, observed), env)
        plans.append(simulate(model, obj, world, env, extra_warnings=_input_warnings(obj, observed)))
    return plans


def _model_for(obj: Obj, opts: PlanOptions, desired: Sequence[Obj], observed: Sequence[Obj]) -> Any:
    """The model of ``obj``; a RayService with ``--kueue MODEL`` gets KubeRay and Kueue
    interleaved (kinds/kueue), with the Kueue objects of the desired and observed input."""
    options = {k: v for k, v in opts.model_options.items() if k != "kueue"}
    if opts.model_options.get("kueue") and obj.kind == "RayService":
        from .kinds.kueue.model import KueueRayServiceModel, queue_objects

        return KueueRayServiceModel(kueue=opts.model_options["kueue"], queues=queue_objects(desired),
                                    observed_queues=queue_objects(observed), **options)
    return model_class(obj)(**options)


def next_step(paths: Sequence[str], opts: PlanOptions) -> list[Plan]:
    """``rolloutctl next``: the first step of each plan."""
    from .core.simulate import first_step

    return [first_step(p) for p in plan(paths, opts)]


def _previous(obj: Obj, observed: Sequence[Obj]) -> Obj | None:
    for o in observed:
        if o.kind == obj.kind and o.name == obj.name and o.namespace == obj.namespace:
            return o
    return None


def _related(obj: Obj, observed: Sequence[Obj]) -> list[Obj]:
    """Observed objects that may belong to ``obj``: the same top-level object and
    every child kind in its namespace (the model filters by owner labels)."""
    return [o for o in observed if o.namespace == obj.namespace and
            (not is_modelled(o) or (o.kind == obj.kind and o.name == obj.name))]


def _input_warnings(obj: Obj, observed: Sequence[Obj]) -> tuple[Warning, ...]:
    return ()


# ----------------------------------------------------------------------------- lint (issue 7)


@dataclass(frozen=True)
class LintOptions:
    live: tuple[str, ...] = ()
    strict: bool = False
    limits: Limits = field(default_factory=Limits)


@dataclass(frozen=True)
class LintResult:
    report: Any  # core.model.LintReport
    #: every object read, as (file, ref), in input order (JUnit lists clean objects too)
    objects: tuple[tuple[str, Any], ...]
    exit_code: int


def lint(paths: Sequence[str], opts: LintOptions, stdin: Any = None) -> LintResult:
    """``rolloutctl lint``: schema and admission rules over every object in ``paths``.
    Unreadable input becomes ``IN001`` findings (and exit code 2), not an exception."""
    from .lint.engine import LintInput, exit_code
    from .lint.engine import lint as run_lint

    loaded = load_paths(paths, opts.limits, stdin=stdin)
    live = load_paths(opts.live, opts.limits) if opts.live else Loaded()
    report = run_lint(LintInput(objects=loaded.objects, errors=loaded.errors, files=loaded.files,
                                live=live.objects, live_errors=live.errors, strict=opts.strict))
    return LintResult(report, tuple((o.file, o.ref) for o in loaded.objects), exit_code(report))
