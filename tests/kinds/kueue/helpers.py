"""Shared helpers for the RayService-under-Kueue scenario tests."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Callable

import yaml

from rolloutctl.core.environment import Environment
from rolloutctl.core.model import Obj, Plan
from rolloutctl.core.simulate import simulate
from rolloutctl.core.world import World
from rolloutctl.kinds.kueue.model import KueueRayServiceModel, queue_objects

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "samples"


def docs(name: str) -> list[dict]:
    return [d for d in yaml.safe_load_all((SAMPLES / name).read_text()) if d]


def rs() -> dict:
    return docs("kueue-rayservice.yaml")[0]


def rs_new_image() -> dict:
    return docs("kueue-rayservice-new-image.yaml")[0]


def queues() -> list[dict]:
    return docs("kueue-queues.yaml")


def queues_two() -> list[dict]:
    return docs("kueue-queues-two-clusters.yaml")


def obj(raw: dict) -> Obj:
    return Obj(copy.deepcopy(raw), "test.yaml", 1)


def edit(raw: dict, f: Callable[[dict], Any]) -> dict:
    d = copy.deepcopy(raw)
    f(d)
    return d


def not_elastic(raw: dict) -> dict:
    return edit(raw, lambda d: d["metadata"].pop("annotations"))


class Run:
    def __init__(self, plan: Plan, world: World) -> None:
        self.plan, self.world = plan, world

    @property
    def actions(self):
        return [a for s in self.plan.steps for a in s.actions]

    def rules(self) -> list[str]:
        return [a.rule for a in self.actions]

    def index(self, pred) -> int:
        for i, a in enumerate(self.actions):
            if pred(a):
                return i
        raise AssertionError("no such action")

    def workloads(self) -> list[Obj]:
        return [w for w in self.world.of_kind("Workload") if w.name.startswith(("rayservice-", "raycluster-"))]

    def codes(self) -> set[str]:
        return {w.code for w in self.plan.warnings}


class _Keep:
    def __init__(self, m, box):
        self._m, self._box = m, box
        self.api_version, self.kind, self.timed = m.api_version, m.kind, m.timed

    def __getattr__(self, n):
        return getattr(self._m, n)

    def converged(self, d, w):
        self._box.append(w)
        return self._m.converged(d, w)

    def diagnose(self, d, w, e):
        self._box.append(w)
        return self._m.diagnose(d, w, e)


def plan(mode: str, desired: dict, *, observed: list[dict] | None = None, desired_queues: list[dict] | None = None,
         world: World | None = None, env: Environment | None = None) -> Run:
    env = env or Environment()
    d = obj(desired)
    obs = [obj(o) for o in (observed or [])]
    m = KueueRayServiceModel(mode, queues=queue_objects([obj(q) for q in desired_queues or []]),
                             observed_queues=queue_objects(obs))
    if world is None:
        world = m.observe(d, obs, env)
    box: list[World] = []
    p = simulate(_Keep(m, box), d, world, env)
    return Run(p, box[-1] if box else world)
