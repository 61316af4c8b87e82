"""``rolloutctl plan`` and ``rolloutctl next``: one plan per target, or its first pass."""

from __future__ import annotations

from typing import Any, Sequence

from ..app import (PlanOptions, _input_warnings, _match_key, _plan_model, _previous, _related, checked_inputs,
                   environment, reject_invalid, targets)
from ..core.model import Plan


def plan(paths: Sequence[str], opts: PlanOptions, *, kubectl_run: Any = None) -> list[Plan]:
    """``rolloutctl plan``: one Plan per RayService or PodCliqueSet in ``paths``."""
    from ..core.simulate import simulate

    environment(opts)  # usage errors first
    inputs = checked_inputs(paths, opts, kubectl_run=kubectl_run)
    desired, observed = inputs
    plans = []
    for obj in targets(desired, paths):
        env = environment(opts, inputs.capacity.get(_match_key(obj)))
        model = _plan_model(obj, opts, desired, observed)
        old = _previous(obj, observed)
        reject_invalid(model, obj, old)
        world = model.observe(obj, _related(obj, observed), env)
        on_step = (lambda n, ref=obj.ref: opts.progress(ref, n)) if opts.progress is not None else None
        plans.append(simulate(model, obj, world, env, extra_warnings=_input_warnings(obj, observed, opts)
                              + inputs.warnings.get(_match_key(obj), ()), on_step=on_step))
    return plans


def next_step(paths: Sequence[str], opts: PlanOptions, *, kubectl_run: Any = None) -> list[Plan]:
    """``rolloutctl next``: the immediate reconcile pass of each plan (even when it
    only waits or requeues); outcome, stuck and summary describe the whole plan."""
    from ..core.simulate import first_step

    return [first_step(p) for p in plan(paths, opts, kubectl_run=kubectl_run)]
