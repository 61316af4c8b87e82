"""Issue 12, done when: a fuzz test that sets every field the models read in observed
objects to a wrong type — exit 2 with PATH:LINE, never exit 3 (an internal error).

The observed worlds are the settled clusters of a small PodCliqueSet (every object the
Grove model keeps: PodCliques, Pods, PodGangs, Services, ...) and of a RayService (the
RayService with its status, its RayCluster and Services). Every field of one object of
each kind, in turn, gets a value of another type; ``plan`` of a changed manifest against
that world must either ignore the field (exit 0/1) or refuse it as input (exit 2, every
line ``PATH:LINE: message``). Admission's observed checks decide which:
``rolloutctl/core/read_schemas.py`` and each kind's ``read_schemas.py`` (the Go types of ObjectMeta, Condition, Pod, Service,
RayService/RayCluster status, Grove's kinds) checked by ``admit.admit_one``.
"""

from __future__ import annotations

import copy
from typing import Any, Iterator

import pytest
import yaml

from rolloutctl.core.environment import Environment
from rolloutctl.core.model import Obj
from rolloutctl.core.simulate import run
from rolloutctl.kinds.grove.model import GroveModel
from tests.admit.test_upstream_samples import _settled_rayservice
from tests.conftest import write
from tests.hardening.helpers import ERROR_LINE
from tests.lint.cases import pcs
from tests.lint.cases import rs as _rs


def _rs_text(image: str = "rayproject/ray:2.46.0") -> str:
    return _rs().replace("    applications: []\n", "    applications:\n    - name: app\n      import_path: m:app\n") \
        .replace("rayproject/ray:2.46.0", image)


def _grove_world() -> list[dict]:
    doc = yaml.safe_load(pcs())
    obj = Obj(doc, "live.yaml", 1)
    model = GroveModel()
    _plan, world = run(model, obj, model.observe(obj, [], Environment()), Environment(max_steps=1000))
    return [copy.deepcopy(dict(o.raw)) for o in world]


def _ray_world() -> list[dict]:
    doc = yaml.safe_load(_rs_text())
    doc["metadata"].update(namespace="default", uid="u-1", generation=1)
    return _settled_rayservice(doc)


def _wrong(v: Any) -> Any:
    """A value of another JSON type than ``v``."""
    if isinstance(v, dict):
        return "x"
    if isinstance(v, list):
        return {"a": 1}
    if isinstance(v, str):
        return ["x"]
    return "x"  # numbers and booleans


def _fields(v: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """Every field of ``v`` (the first item of each list)."""
    if isinstance(v, dict):
        for k, x in v.items():
            yield (*path, k), x
            yield from _fields(x, (*path, k))
    elif isinstance(v, list) and v:
        yield (*path, 0), v[0]
        yield from _fields(v[0], (*path, 0))


def _cases(world: list[dict], name: str) -> list[Any]:
    out, seen_kinds = [], set()
    for i, o in enumerate(world):
        if o["kind"] in seen_kinds:
            continue
        seen_kinds.add(o["kind"])
        for path, value in _fields(o):
            if path[0] in ("apiVersion", "kind"):
                continue
            shown = ".".join("[0]" if isinstance(p, int) else str(p) for p in path)
            out.append(pytest.param(name, i, path, value, id=f"{name}-{o['kind']}-{shown}"))
    return out


WORLDS = {"grove": _grove_world(), "kuberay": _ray_world()}
DESIRED = {"grove": pcs().replace("image: busybox", "image: busybox:2"),
           "kuberay": _rs_text("rayproject/ray:2.47.0")}
CASES = [c for name, world in WORLDS.items() for c in _cases(world, name)]


@pytest.mark.parametrize("world, index, path, value", CASES)
def test_a_wrong_type_in_an_observed_field_is_input_error_never_internal(cli, tmp_path, world, index, path, value):
    objs = copy.deepcopy(WORLDS[world])
    target: Any = objs[index]
    for p in path[:-1]:
        target = target[p]
    target[path[-1]] = _wrong(value)
    live = write(tmp_path, "live.yaml", yaml.safe_dump_all(objs, sort_keys=False))
    desired = write(tmp_path, "desired.yaml", DESIRED[world])
    r = cli("plan", desired, "--observed", live, "-o", "json")
    assert r.exit_code in (0, 1, 2), (r.exit_code, r.stderr[-500:])
    if r.exit_code == 2:
        lines = r.stderr.splitlines()
        assert lines and all(ERROR_LINE.match(ln) for ln in lines), r.stderr
        assert all(ln.startswith(f"{live}:") for ln in lines), r.stderr
        assert r.stdout == ""
