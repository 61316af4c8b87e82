"""``rolloutctl advise``: the strategy and budgets that roll a change out best."""

from __future__ import annotations

from typing import Any, Sequence

from ..app import (InputProblem, PlanOptions, _input_warnings, _match_key, _plan_model, _previous, _related,
                   checked_inputs, environment, reject_invalid, targets)
from ..core.records import field, record
from ..load.errors import InputError


@record(frozen=True)
class AdviseOptions:
    plan: PlanOptions = field(default_factory=PlanOptions)
    min_ready: str | None = None
    objective: str = "steps"
    exhaustive: bool = False
    proposed: bool = True  # also the strategies proposed upstream but not implemented
    #: called with (target ref, candidates planned so far, share of the search budget used or
    #: None without one) after each candidate's plan
    progress: Any = None


def advise(paths: Sequence[str], opts: AdviseOptions, *, kubectl_run: Any = None) -> list[Any]:
    """``rolloutctl advise``: for each target, the strategy and budgets that roll the
    change out best under the constraints (``rolloutctl/advise``, CONTRACT.md ``Advice``).
    The observed state comes from ``--observed`` or ``--from-cluster``, as for ``plan``."""
    from ..advise import OBJECTIVES, Search, parse_min_ready

    if opts.objective not in OBJECTIVES:
        raise InputProblem([f"--minimize {opts.objective!r}: choose one of {', '.join(OBJECTIVES)}"])
    if not opts.plan.observed and not opts.plan.from_cluster:
        raise InputProblem(["rolloutctl advise: say what runs now with --observed PATH (the live objects or the "
                            "previously applied manifest) or --from-cluster; advise compares ways to roll a change out"])
    environment(opts.plan)  # usage errors first
    inputs = checked_inputs(paths, opts.plan, kubectl_run=kubectl_run)
    desired, observed = inputs
    out = []
    for obj in targets(desired, paths):
        env = environment(opts.plan, inputs.capacity.get(_match_key(obj)))
        model = _plan_model(obj, opts.plan, desired, observed)
        if not hasattr(model, "advice_spaces"):
            why = (f"--kueue {opts.plan.model_options['kueue']}: the Kueue models have no candidate strategies yet "
                   f"(without --kueue, advise plans the {obj.kind} without Kueue)"
                   if opts.plan.model_options.get("kueue") else f"no strategies are modelled for {obj.kind} with these "
                   "options")
            raise InputProblem([InputError(obj.file, obj.line, f"rolloutctl advise: {why}")])
        if opts.objective == "time" and not model.timed:
            raise InputProblem([InputError(obj.file, obj.line, f"--minimize time: the {obj.kind} model is untimed "
                                           "(its plans have no durations); use --minimize steps or peak")])
        old = _previous(obj, observed)
        reject_invalid(model, obj, old)
        try:
            floor = parse_min_ready(opts.min_ready, model.desired_pods(obj))
        except ValueError as exc:
            raise InputProblem([str(exc)]) from None
        search = Search(lambda o=obj: _plan_model(o, opts.plan, desired, observed), obj, _related(obj, observed),
                        old, env, floor, opts.objective, exhaustive=opts.exhaustive,
                        capacity_order=tuple(env.capacity), proposed=opts.proposed,
                        warnings=_input_warnings(obj, observed, opts.plan) + inputs.warnings.get(_match_key(obj), ()),
                        on_candidate=(lambda n, used, ref=obj.ref: opts.progress(ref, n, used)) if opts.progress else None)
        out.append(search.run())
    return out
