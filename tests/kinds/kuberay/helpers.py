"""Shared helpers for the RayService scenario tests."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Callable

import yaml

from rolloutctl.core.environment import Environment
from rolloutctl.core.model import Obj, Plan
from rolloutctl.core.simulate import simulate
from rolloutctl.core.world import World
from rolloutctl.kinds.kuberay.model import RayServiceModel

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "samples" / "rayservice-text-ml.yaml"


def base() -> dict:
    return yaml.safe_load(SAMPLE.read_text())


def obj(raw: dict) -> Obj:
    return Obj(copy.deepcopy(raw), "test.yaml", 1)


def edit(raw: dict, f: Callable[[dict], Any]) -> dict:
    d = copy.deepcopy(raw)
    f(d)
    return d


def incremental(raw: dict, step: int = 25, surge: int = 50, interval: int = 30) -> dict:
    def f(d: dict) -> None:
        d["spec"]["upgradeStrategy"] = {"type": "NewClusterWithIncrementalUpgrade", "clusterUpgradeOptions": {
            "gatewayClassName": "istio", "stepSizePercent": step, "maxSurgePercent": surge, "intervalSeconds": interval}}
        d["spec"]["rayClusterConfig"]["enableInTreeAutoscaling"] = True
    return edit(raw, f)


def new_image(raw: dict, image: str = "registry.example.com/text-ml:1.5.0") -> dict:
    def f(d: dict) -> None:
        rc = d["spec"]["rayClusterConfig"]
        rc["headGroupSpec"]["template"]["spec"]["containers"][0]["image"] = image
        for g in rc["workerGroupSpecs"]:
            g["template"]["spec"]["containers"][0]["image"] = image
    return edit(raw, f)


class Run:
    """A plan plus the world it ended in."""

    def __init__(self, plan: Plan, world: World) -> None:
        self.plan = plan
        self.world = world

    @property
    def actions(self):
        return [a for s in self.plan.steps for a in s.actions]

    def verbs(self, kind: str) -> list[tuple[str, str]]:
        return [(a.verb, a.name) for a in self.actions if a.kind == kind]


class _Keep:
    def __init__(self, m: RayServiceModel, box: list) -> None:
        self._m, self._box = m, box
        self.api_version, self.kind, self.timed = m.api_version, m.kind, m.timed

    def __getattr__(self, n: str) -> Any:
        return getattr(self._m, n)

    def converged(self, d, w):
        self._box.append(w)
        return self._m.converged(d, w)

    def diagnose(self, d, w, e):
        self._box.append(w)
        return self._m.diagnose(d, w, e)


def plan(desired: dict, observed: list[Obj] | World | None = None, env: Environment | None = None,
         model: RayServiceModel | None = None) -> Run:
    m = model or RayServiceModel()
    env = env or Environment()
    d = obj(desired)
    if isinstance(observed, World):
        world = m.with_notes(d, observed)
    else:
        world = m.observe(d, observed or [], env)
    box: list[World] = []
    p = simulate(_Keep(m, box), d, world, env)
    return Run(p, box[-1] if box else world)


def steps(desired: dict, world: World, n: int, env: Environment | None = None) -> World:
    """The world after ``n`` reconcile passes that do something (and the world between)."""
    m = RayServiceModel()
    env = env or Environment()
    d = obj(desired)
    done = 0
    guard = 0
    while done < n and guard < 1000:
        guard += 1
        acts, memory = m.reconcile_pass(d, world)
        world = world.with_memory(**memory)
        if acts:
            world = world.apply(acts)
            done += 1
        prog = m.advance(d, world, env)
        world = prog.world
        if not acts and not prog.progressed:
            break
    return world


def settled(raw: dict) -> World:
    """The settled world of a previously applied manifest."""
    m = RayServiceModel()
    return m.observe(obj(raw), [obj(raw)], Environment())


def rs_status(world: World, name: str = "text-ml", ns: str = "ml-serving") -> dict:
    o = world.get("RayService", ns, name)
    assert o is not None
    return dict(o.status)


def cond(world: World, t: str) -> tuple[str, str] | None:
    for c in rs_status(world).get("conditions") or []:
        if c.get("type") == t:
            return c.get("status"), c.get("reason")
    return None


def clusters(world: World) -> list[str]:
    return [o.name for o in world.of_kind("RayCluster") if not o.terminating]


def retarget(world: World, desired: dict) -> World:
    """The same world with the RayService's spec replaced (a user edit, generation +1)."""
    o = world.get("RayService", "ml-serving", "text-ml")
    raw = copy.deepcopy(dict(o.raw))
    raw["spec"] = copy.deepcopy(desired["spec"])
    raw["metadata"]["generation"] = int(raw["metadata"].get("generation", 1)) + 1
    return world.replace(put=[Obj(raw)])
