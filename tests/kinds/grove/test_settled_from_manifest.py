"""The settled cluster that ``observe`` derives from a previously applied PodCliqueSet
(its creation planned without recording steps: ``core.simulate.run(record=False)``) is
the world a recorded plan of that creation ends in: the same objects, byte for byte,
and the same outcome, so a rollout planned from it is the one a user would get from the
recorded creation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from bench.workloads import large_pcs, with_strategy
from rolloutctl.core.environment import Environment
from rolloutctl.core.model import Obj
from rolloutctl.core.simulate import run
from rolloutctl.core.world import World
from rolloutctl.kinds.grove.model import GroveModel

SAMPLES = Path(__file__).resolve().parents[3] / "samples"


def _worlds(manifest: dict) -> tuple[tuple[str, World], tuple[str, World]]:
    model = GroveModel()
    old = Obj(manifest)
    start = World([Obj({**manifest, "status": {}})])
    out = []
    for record in (True, False):
        plan, world = run(model, old, start, Environment(max_steps=100000), record=record)
        out.append((plan.outcome, world))
    return out[0], out[1]


def _dump(world: World) -> str:
    return json.dumps([[list(k), world.get(*k).raw] for k in world.keys()], sort_keys=True, default=str)


def _manifests() -> list[tuple[str, dict]]:
    out = [(p.name, yaml.safe_load(p.read_text())) for p in sorted(SAMPLES.glob("disaggregated-inference*.yaml"))]
    for strategy in ("RollingRecreate", "RollingUpdate", "ReplicaRecreate", "OnDelete"):
        out.append((f"large_pcs(100) {strategy}", with_strategy(large_pcs(100), strategy)))
    return out


@pytest.mark.parametrize("name,manifest", _manifests(), ids=[n for n, _m in _manifests()])
def test_the_settled_world_does_not_depend_on_recording_the_steps(name, manifest):
    (outcome, recorded), (outcome_unrecorded, unrecorded) = _worlds(manifest)
    assert outcome == outcome_unrecorded == "converged"
    assert recorded.count("Pod") > 0
    assert _dump(recorded) == _dump(unrecorded)
    assert recorded.memory == unrecorded.memory and recorded.now == unrecorded.now


def test_an_unrecorded_run_keeps_the_steps_actions_and_outcome():
    """The steps stay (what a caller may count), with the actions they took; only
    the titles, counts and metrics are left out."""
    manifest = yaml.safe_load((SAMPLES / "disaggregated-inference.yaml").read_text())
    model = GroveModel()
    old = Obj(manifest)
    start = World([Obj({**manifest, "status": {}})])
    full, _w = run(model, old, start, Environment(), record=True)
    bare, _w = run(model, old, start, Environment(), record=False)
    assert [[a.key for a in s.actions] for s in bare.steps] == [[a.key for a in s.actions] for s in full.steps]
    assert bare.outcome == full.outcome and bare.stuck == full.stuck
    assert all(s.title == "" and s.after == {} for s in bare.steps)
    assert all(s.title for s in full.steps)
