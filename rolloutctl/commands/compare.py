"""``rolloutctl plan --compare``: the same change under every update strategy of its kind."""

from __future__ import annotations

from typing import Any, Sequence

from ..app import (InputProblem, PlanOptions, _input_warnings, _match_key, _plan_model, _previous, _related,
                   checked_inputs, environment, reject_invalid, targets)
from ..core.records import record, replace
from ..kinds import compare_note
from ..load.errors import InputError


@record(frozen=True)
class Compared:
    """One target's Comparison (which names the strategy its manifest asks for)."""

    comparison: Any

    @property
    def own_strategy(self) -> str:
        return str(self.comparison.own_strategy)

    @property
    def own_row_stuck(self) -> bool:
        """Exit code 1 of ``plan --compare``: the manifest's own strategy gets stuck
        (other rows being stuck is information, not failure)."""
        return any(r.strategy == self.own_strategy and r.outcome == "stuck" for r in self.comparison.rows)


def compare(paths: Sequence[str], opts: PlanOptions) -> list[Compared]:
    """``rolloutctl plan --compare``: for each target, the same change planned under
    every update strategy its kind has, side by side (CONTRACT.md ``Comparison``).
    The manifest itself must be valid; the variants are derived from it."""
    environment(opts)
    inputs = checked_inputs(paths, opts)
    desired, observed = inputs
    out = []
    for obj in targets(desired, paths):
        env = environment(opts, inputs.capacity.get(_match_key(obj)))
        model = _plan_model(obj, opts, desired, observed)
        if not hasattr(model, "compare"):
            raise InputProblem([InputError(obj.file, obj.line, f"plan --compare: no alternative update strategies "
                                           f"are modelled for {obj.kind}"
                                           + compare_note(obj))])
        reject_invalid(model, obj, _previous(obj, observed))
        c = model.compare(obj, _related(obj, observed), env)
        # what plan says of the input before any model runs (a generated name; an integration
        # whose option is not given, e.g. Kueue without --kueue), said once for all rows
        said = _input_warnings(obj, observed, opts) + inputs.warnings.get(_match_key(obj), ())
        if said:
            c = replace(c, warnings=tuple(c.warnings) + tuple(w for w in said if w not in c.warnings))
        out.append(Compared(replace(c, own_strategy=model.own_strategy(obj))))
    return out
