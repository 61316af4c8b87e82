"""What ``rolloutctl advise`` may set on a PodCliqueSet, and the availability floor it
keeps by default.

Candidate spaces (docs/advise.md):

- ``RollingRecreate`` (the operator's strategy): per standalone clique and per
  scaling group, ``rollingUpdate.maxUnavailable`` unset (the operator's one-at-a-time
  update) or 1..replicas (the per-component budget of ai-dynamo/grove PR #817,
  ``controller/podclique/components/pod/rollingupdate.py``
  ``process_pod_updates_with_budget`` and
  ``controller/podcliquescalinggroup/components/podclique/rollingupdate.py``
  ``process_pcsg_updates_with_budget``).
- ``RollingUpdate`` (proposed, PR #262): per standalone clique (pods) and per scaling
  group (scaling-group replicas), ``updateStrategy.maxUnavailable`` and ``maxSurge``
  each 0..replicas at that level, not both 0 (``admission`` GV203).
- ``ReplicaRecreate`` (proposed): ``spec.updateStrategy.rollingUpdate.maxUnavailable``
  and ``maxSurge`` 0..``spec.replicas``, not both 0.

Percentages resolve to one of these integers at the current replicas
(``admission.design_pr262.scaled_value``), so they add no distinct candidate; patches use
integers. The manifests are derived with ``proposed.compare.with_strategy``, the
helper ``plan --compare`` uses.

The default floor ("every clique keeps minAvailable"): a PodCliqueSet replica is
available while each standalone PodClique has at least its ``minAvailable`` ready
pods and each scaling group has at least its ``minAvailable`` replicas whose
PodCliques all do (Grove's gang minimum, ``MinAvailableBreached``); surge replicas
and surge pods count. The floor is ``spec.replicas`` available replicas.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.advice import SURGE, UNAVAILABLE, Built, Dimension, StrategySpace
from ...core.model import Obj
from ...core.records import record
from ...core.trees import copy_tree
from ...core.world import World
from . import names as N
from . import summary as SUM
from .proposed.compare import REPLICA_RECREATE, ROLLING_RECREATE, ROLLING_UPDATE, with_strategy
from .spec import PCS
from .ondelete import outdated_pod_warnings


def _items(raw: Mapping[str, Any], key: str) -> list[dict]:
    tmpl = (raw.get("spec") or {}).get("template") or {}
    items = tmpl.get(key) if isinstance(tmpl, Mapping) else None
    return [x for x in items if isinstance(x, dict)] if isinstance(items, list) else []


def _item(raw: Mapping[str, Any], key: str, name: str) -> dict | None:
    return next((x for x in _items(raw, key) if x.get("name") == name), None)


def _obj(raw: dict, like: Obj) -> Obj:
    return Obj(raw, like.file, like.line, like.lines)


def _patch(user: Obj, cand: Mapping[str, Any], fields: tuple[str, ...]) -> dict[str, Any]:
    """The fields to set on the user's manifest: ``spec.updateStrategy`` as a whole,
    and per clique / scaling group (matched by name) each of ``fields`` that differs
    (``null``: remove it)."""
    spec: dict[str, Any] = {"updateStrategy": copy_tree((cand.get("spec") or {}).get("updateStrategy"))}
    tmpl: dict[str, Any] = {}
    for key in ("cliques", "podCliqueScalingGroups"):
        rows = []
        for item in _items(cand, key):
            mine = _item(user.raw, key, str(item.get("name"))) or {}
            row: dict[str, Any] = {}
            for f in fields:
                if item.get(f) != mine.get(f):
                    row[f] = copy_tree(item.get(f))
            if row:
                rows.append({"name": item.get("name"), **row})
        if rows:
            tmpl[key] = rows
    if tmpl:
        spec["template"] = tmpl
    return {"spec": spec}


def advice_spaces(desired: Obj, old: Obj | None) -> list[StrategySpace]:
    pcs = PCS(desired)
    return [_rolling_recreate(desired, pcs), _rolling_update(desired, pcs), _replica_recreate(desired, pcs)]


def _budget_key(kind: str, name: str, block: str, field: str) -> str:
    return f"{kind}[{name}].{block}.{field}"


def _rolling_recreate(desired: Obj, pcs: PCS) -> StrategySpace:
    dims = []
    comps = [("cliques", c.name, c.replicas) for c in pcs.standalone]
    comps += [("podCliqueScalingGroups", g.name, g.replicas) for g in pcs.groups]
    for kind, name, reps in comps:
        dims.append(Dimension(_budget_key(kind, name, "rollingUpdate", "maxUnavailable"),
                              f"{kind}[name={name}].rollingUpdate.maxUnavailable", UNAVAILABLE,
                              (None, *range(1, max(1, reps) + 1)), group=f"{kind}/{name}"))

    def build(values: Mapping[str, Any]) -> Built:
        m = with_strategy(desired.raw, ROLLING_RECREATE)
        set_fields = 0
        for kind, name, _reps in comps:
            item = _item(m, kind, name)
            if item is None:
                continue
            v = values[_budget_key(kind, name, "rollingUpdate", "maxUnavailable")]
            mine = item.get("rollingUpdate") if isinstance(item.get("rollingUpdate"), dict) else {}
            if v is None:
                item.pop("rollingUpdate", None)
            else:
                item["rollingUpdate"] = {**mine, "maxUnavailable": v}
                set_fields += 1
        return Built(_obj(m, desired), _patch(desired, m, ("rollingUpdate",)), set_fields)

    return StrategySpace(ROLLING_RECREATE, False, tuple(dims), build,
                         note="per-component rollingUpdate.maxUnavailable: ai-dynamo/grove PR #817")


def _rolling_update(desired: Obj, pcs: PCS) -> StrategySpace:
    comps = [("cliques", c.name, c.replicas) for c in pcs.standalone]
    comps += [("podCliqueScalingGroups", g.name, g.replicas) for g in pcs.groups]
    dims = []
    for kind, name, reps in comps:
        for field, role in (("maxUnavailable", UNAVAILABLE), ("maxSurge", SURGE)):
            dims.append(Dimension(_budget_key(kind, name, "updateStrategy", field),
                                  f"{kind}[name={name}].updateStrategy.{field}", role,
                                  tuple(range(0, max(1, reps) + 1)), group=f"{kind}/{name}",
                                  start=1 if role == UNAVAILABLE else 0))

    def build(values: Mapping[str, Any]) -> Built:
        m = with_strategy(desired.raw, ROLLING_UPDATE)
        set_fields = 1
        for kind, name, _reps in comps:
            item = _item(m, kind, name)
            if item is None:
                continue
            mu = values[_budget_key(kind, name, "updateStrategy", "maxUnavailable")]
            ms = values[_budget_key(kind, name, "updateStrategy", "maxSurge")]
            us: dict[str, Any] = {}
            if mu != 1:  # the design's defaults (1 / 0) are left unset
                us["maxUnavailable"] = mu
            if ms != 0:
                us["maxSurge"] = ms
            if us:
                item["updateStrategy"] = us
                set_fields += len(us)
        return Built(_obj(m, desired), _patch(desired, m, ("updateStrategy", "rollingUpdate")), set_fields)

    return StrategySpace(ROLLING_UPDATE, True, tuple(dims), build, allowed=_not_both_zero(dims),
                         note="proposed in ai-dynamo/grove PR #262; not implemented by the operator")


def _replica_recreate(desired: Obj, pcs: PCS) -> StrategySpace:
    reps = max(1, pcs.replicas)
    dims = (Dimension("spec.updateStrategy.rollingUpdate.maxUnavailable", "spec.updateStrategy.rollingUpdate.maxUnavailable",
                      UNAVAILABLE, tuple(range(0, reps + 1)), group="PodCliqueSet", start=1),
            Dimension("spec.updateStrategy.rollingUpdate.maxSurge", "spec.updateStrategy.rollingUpdate.maxSurge",
                      SURGE, tuple(range(0, reps + 1)), group="PodCliqueSet", start=0))

    def build(values: Mapping[str, Any]) -> Built:
        m = with_strategy(desired.raw, REPLICA_RECREATE)
        mu, ms = values[dims[0].key], values[dims[1].key]
        ru: dict[str, Any] = {}
        if mu != 1:
            ru["maxUnavailable"] = mu
        if ms != 0:
            ru["maxSurge"] = ms
        if ru:
            m["spec"]["updateStrategy"]["rollingUpdate"] = ru
        return Built(_obj(m, desired), _patch(desired, m, ("updateStrategy", "rollingUpdate")), 1 + len(ru))

    return StrategySpace(REPLICA_RECREATE, True, dims, build, allowed=_not_both_zero(dims),
                         note="proposed in ai-dynamo/grove PR #262; not implemented by the operator")


def _not_both_zero(dims: tuple[Dimension, ...] | list[Dimension]) -> Any:
    pairs: dict[str, list[str]] = {}
    for d in dims:
        if d.role in (SURGE, UNAVAILABLE):
            pairs.setdefault(d.group, []).append(d.key)

    def allowed(values: Mapping[str, Any]) -> bool:
        return all(any(values[k] != 0 for k in keys) for keys in pairs.values())

    return allowed


@record(frozen=True)
class _Floor:
    """Which PodCliqueSet replicas keep the default floor in one world."""

    #: PodClique name -> the PodCliqueSet replica it belongs to
    owner: Mapping[str, int]
    ok: frozenset[int]


@record(frozen=True)
class FloorView:
    """``World.derived`` description of the default floor of one PodCliqueSet (its
    shape: standalone cliques and scaling groups with their ``minAvailable``). Built
    once, then patched from the pods that changed: only the PodCliqueSet replicas whose
    PodCliques' pods changed are checked again, so watching the floor of every world of
    a plan costs what the plan changes, not replicas x steps."""

    namespace: str
    name: str
    replicas: int
    #: (clique, minAvailable) of the standalone cliques
    standalone: tuple[tuple[str, int], ...]
    #: (group, replicas, minAvailable, ((member clique, minAvailable), ...)) of the scaling groups
    groups: tuple[tuple[str, int, int, tuple[tuple[str, int], ...]], ...]
    kinds = ("Pod",)  # what the view reads (``World.derived``)

    @staticmethod
    def of(pcs: PCS) -> "FloorView":
        return FloorView(pcs.namespace, pcs.name, pcs.replicas,
                         tuple((c.name, max(1, c.min_available)) for c in pcs.standalone),
                         tuple((g.name, g.replicas, max(1, g.min_available),
                                tuple((cn, max(1, pcs.clique_by_name[cn].min_available)) for cn in g.clique_names
                                      if cn in pcs.clique_by_name)) for g in pcs.groups))

    def _indices(self) -> range:
        # surge replicas count: a proposed strategy may run up to twice the replicas
        return range(2 * max(1, self.replicas) + 1)

    def _pclqs(self, i: int) -> list[str]:
        out = [N.pclq_name(self.name, i, c) for c, _m in self.standalone]
        for g, g_replicas, _gm, members in self.groups:
            pcsg = N.pcsg_name(self.name, i, g)
            out += [N.pclq_name(pcsg, j, cn) for j in range(2 * max(1, g_replicas) + 1) for cn, _m in members]
        return out

    def _replica_ok(self, i: int, world: World) -> bool:
        groups = SUM.pod_groups(world, self.namespace, self.name).groups

        def ready(name: str) -> int:
            s = groups.get(name)
            return s.act_ready if s is not None else 0

        if not (self.standalone or self.groups):
            return False
        if not all(ready(N.pclq_name(self.name, i, c)) >= m for c, m in self.standalone):
            return False
        for g, g_replicas, g_min, members in self.groups:
            pcsg = N.pcsg_name(self.name, i, g)
            good = sum(1 for j in range(2 * max(1, g_replicas) + 1)
                       if all(ready(N.pclq_name(pcsg, j, cn)) >= m for cn, m in members))
            if good < g_min:
                return False
        return True

    def build(self, world: World) -> _Floor:
        owner = {name: i for i in self._indices() for name in self._pclqs(i)}
        return _Floor(owner, frozenset(i for i in self._indices() if self._replica_ok(i, world)))

    def patch(self, prev: _Floor, changes: Mapping[Any, tuple[Obj | None, Obj | None]], world: World) -> _Floor:
        dirty = {prev.owner[c] for c in SUM.changed_pclq_names(changes) if c in prev.owner}
        if not dirty:
            return prev
        ok = set(prev.ok)
        for i in dirty:
            (ok.add if self._replica_ok(i, world) else ok.discard)(i)
        return _Floor(prev.owner, frozenset(ok))


def available_replicas(pcs: PCS, world: World) -> int:
    """PodCliqueSet replicas (surge replicas included) whose standalone PodCliques all
    have ``minAvailable`` ready pods and whose scaling groups all have ``minAvailable``
    replicas with every member PodClique at its ``minAvailable`` (``FloorView``)."""
    return len(world.derived(FloorView.of(pcs)).ok)


def floor_deficit(pcs: PCS, world: World) -> int:
    """How many PodCliqueSet replicas are short of the default floor (0: every
    replica keeps its gang minimum)."""
    return max(0, pcs.replicas - available_replicas(pcs, world))


def desired_pods(pcs: PCS) -> int:
    """The pods the manifest asks for (the base of ``--min-ready P%``)."""
    per = sum(c.replicas for c in pcs.standalone)
    per += sum(g.replicas * sum(pcs.clique_by_name[cn].replicas for cn in g.clique_names if cn in pcs.clique_by_name)
               for g in pcs.groups)
    return pcs.replicas * per


def rolls_out(pcs: PCS, world: World) -> tuple[str, str] | None:
    """None when every pod of the PodCliqueSet runs its clique's desired template at the
    end of the plan. The strategies the search offers all get there; the manifest as
    given may not: under OnDelete the pods keep the old template until someone deletes
    them (GREP-291, ``ondelete.outdated_pod_warnings``), so the change is not rolled out."""
    left = outdated_pod_warnings(pcs, world)
    if not left:
        return None
    return ("NotRolledOut", f"updateStrategy {pcs.strategy_type}: " + left[0].message.split(" (OnDelete")[0]
            + ", so the change is not rolled out")

