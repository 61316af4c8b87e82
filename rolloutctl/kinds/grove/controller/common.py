"""What the Grove controllers' component syncs share: the action builders
(``create_action``, ``delete_action``, ``update_action``), the objects of a PodCliqueSet
(``owned``, ``by_names``, ``pods_of``, ``replica_of``) and ``Expected``, the
objects a component expects, by name. Upstream (ai-dynamo/grove @ fcc3b3bb): the lookups of
``operator/internal/controller/common/component/utils/`` (``lookups.go``, ``podclique.go``,
``podcliqueset.go``); the rule references name the controllers' packages
(``operator/internal/controller/{podcliqueset,podcliquescalinggroup,podclique}``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ....core.model import Action, Obj
from ....core.world import World
from .. import names as N
from ..spec import PCS


R_PCS = "grove:operator/internal/controller/podcliqueset"
R_PCSG = "grove:operator/internal/controller/podcliquescalinggroup"
R_PCLQ = "grove:operator/internal/controller/podclique"


def create_action(obj: dict[str, Any], reason: str, rule: str, *, index: int | None = None,
                  revision: str | None = "new", role: str | None = None, name: str | None = None) -> Action:
    md = obj["metadata"]
    return Action(verb="create", kind=obj["kind"], name=name or md["name"], namespace=md["namespace"],
                  reason=reason, rule=rule, index=index, revision=revision, role=role, payload=obj,
                  uid=md["name"] if name else None)


def delete_action(o: Obj, reason: str, rule: str, *, index: int | None = None, revision: str | None = None,
                  role: str | None = None, name: str | None = None) -> Action:
    return Action(verb="delete", kind=o.kind, name=name or o.name, namespace=o.namespace, reason=reason, rule=rule,
                  index=index, revision=revision, role=role, uid=o.name if name else None)


def update_action(o: Obj, new: dict[str, Any], reason: str, rule: str, fields: dict[str, Any] | None = None,
                  **kw: Any) -> Action:
    return Action(verb="update", kind=o.kind, name=o.name, namespace=o.namespace, reason=reason, rule=rule,
                  payload=new, fields=fields or {}, **kw)


def replica_of(o: Obj) -> int:
    try:
        return int(o.labels.get(N.L_PCS_REPLICA, "-1"))
    except ValueError:
        return -1


def owned(world: World, kind: str, pcs: PCS) -> list[Obj]:
    """Objects of ``kind`` that belong to this PodCliqueSet (part-of label), in key
    order. The result may be the world's own list: callers must not change it."""
    group = world.index(kind, N.L_PART_OF).get(pcs.name)
    if group is None:
        return []
    ns = pcs.namespace
    return group if all(o.namespace == ns for o in group) else [o for o in group if o.namespace == ns]


def pod_display_name(pod: Obj) -> str:
    """Pods the plan creates have a random suffix; observed pods keep their name."""
    if pod.metadata.get("generateName") and "." in pod.name:
        return N.pod_display_name(pod.labels.get(N.L_PCLQ, ""))
    return pod.name


def by_names(world: World, kind: str, pcs: PCS, names: set[str]) -> list[Obj]:
    """The PodCliqueSet's objects of ``kind`` among ``names``, in key order."""
    out = []
    for name in sorted(names):
        o = world.get(kind, pcs.namespace, name)
        if o is not None and o.labels.get(N.L_PART_OF) == pcs.name:
            out.append(o)
    return out


class Expected:
    """The objects a component expects for ``n`` replicas, in order, with their
    positions by name (``looked``: those among some names, in order)."""

    def __init__(self, items: list, names: list[str], replicas: list[int] | None = None) -> None:
        self.items = items
        self.names = set(names)
        self.pos: dict[str, list[int]] = {}
        for j, name in enumerate(names):
            self.pos.setdefault(name, []).append(j)
        #: names by PodCliqueSet replica, when ``replicas`` gives each item's
        self.by_replica: dict[int, set[str]] = {}
        for name, i in zip(names, replicas or ()):
            self.by_replica.setdefault(i, set()).add(name)

    def of_replicas(self, replicas: set[int]) -> set[str]:
        """Names of the expected objects of these PodCliqueSet replicas."""
        return {name for i in replicas for name in self.by_replica.get(i, ())}

    def looked(self, look: set[str] | None) -> list:
        if look is None:
            return self.items
        return [self.items[j] for j in sorted(j for n in look for j in self.pos.get(n, ()))]


def pods_of(world: World, pclq: Obj) -> list[Obj]:
    return [p for p in world.index("Pod", N.L_PCLQ).get(pclq.name, ()) if p.namespace == pclq.namespace]


def status_action(o: Obj, fields: Mapping[str, Any], reason: str, rule: str, *, hidden: bool = True,
                  index: int | None = None) -> Action:
    return Action(verb="status", kind=o.kind, name=o.name, namespace=o.namespace, reason=reason, rule=rule,
                  fields=dict(fields), hidden=hidden, index=index)
