"""Shared helpers of the advise tests: run ``advise``, apply its patch to the user's
manifest and plan the result again with ``plan``'s own use case."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import yaml

from rolloutctl import app
from rolloutctl.commands import advise as advising
from rolloutctl.commands import plan as planning
from rolloutctl.core.advice import apply_patch
from rolloutctl.core.simulate import run
from tests.conftest import SAMPLES

PCS_OLD = str(SAMPLES / "disaggregated-inference.yaml")
PCS_NEW = str(SAMPLES / "disaggregated-inference-v2.yaml")
RS_OLD = str(SAMPLES / "rayservice-text-ml.yaml")
RS_NEW = str(SAMPLES / "rayservice-text-ml-new-image.yaml")


def advise(new: str, old: str, *, capacity: Sequence[str] = (), min_ready: str | None = None,
           objective: str = "steps", exhaustive: bool = False, proposed: bool = True) -> Any:
    [a] = advising.advise([new], advising.AdviseOptions(plan=app.PlanOptions(observed=(old,), capacity=tuple(capacity)),
                                                        min_ready=min_ready, objective=objective, exhaustive=exhaustive,
                                                        proposed=proposed))
    return a


def patched(new: str, patch: dict, tmp: Path, name: str = "patched.yaml") -> str:
    raw = yaml.safe_load(Path(new).read_text())
    out = tmp / name
    out.write_text(yaml.safe_dump(apply_patch(raw, patch), sort_keys=False))
    return str(out)


class FloorWatch:
    """The model, recording the kind's floor deficit in every world of a plan (as a
    person watching the rollout would)."""

    def __init__(self, model: Any, desired: Any) -> None:
        self._m, self._d = model, desired
        self.api_version, self.kind, self.timed = model.api_version, model.kind, model.timed
        self.deficits: list[int] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._m, name)

    def metrics(self, world: Any) -> Any:
        self.deficits.append(self._m.floor_deficit(self._d, world))
        return self._m.metrics(world)

    @property
    def breached(self) -> bool:
        return max(self.deficits) > self.deficits[0]


def replan(path: str, old: str, capacity: Sequence[str] = (), *, check: bool = True) -> tuple[Any, FloorWatch, Any]:
    """``rolloutctl plan PATH --observed OLD --capacity ...`` (the plan use case), with
    the floor watched; returns (plan, watch, final world)."""
    opts = app.PlanOptions(observed=(old,), capacity=tuple(capacity))
    [plan] = planning.plan([path], opts) if check else [None]
    env = app.environment(opts)
    desired, observed = app.checked_inputs([path], opts)
    obj = app.targets(desired, [path])[0]
    model = app._plan_model(obj, opts, desired, observed)
    watch = FloorWatch(model, obj)
    world = model.observe(obj, app._related(obj, observed), env)
    watched_plan, final = run(watch, obj, world, env)
    if plan is None:
        return watched_plan, watch, final
    assert watched_plan.to_dict() == plan.to_dict()  # the watch changes nothing
    return plan, watch, final


def gpus(plan_or_candidate: Any) -> int:
    from rolloutctl.core.quantity import parse_quantity

    peak = plan_or_candidate.summary["peak"] if hasattr(plan_or_candidate, "summary") else plan_or_candidate.peak
    return parse_quantity(peak.get("nvidia.com/gpu", "0")) // 1000
