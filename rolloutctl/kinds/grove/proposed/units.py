"""What the proposed strategies' budgets count: each component's resolved
``updateStrategy`` budget and its rollout units (a PodClique's pods, a scaling
group's replicas) with old/available/scheduled flags for ``rollout.decide``.

Design: ai-dynamo/grove PR #262 ``docs/designs/update-strategy.md`` ("Proposed
semantics": maxUnavailable and maxSurge per PodClique and per scaling group). Shared
by the ``RollingUpdate`` policy and the stuck analysis, so neither imports the other.
"""

from __future__ import annotations

from ....core.model import Obj
from .. import names as N
from .. import objects as O
from .. import update_common as U
from ..spec import PCS
from . import state as S
from .budgets import Budget, resolve
from .rollout import Unit


def clique_budget(pcs: PCS, pclq: Obj) -> Budget:
    c = S.clique_of(pcs, pclq)
    return resolve(c.update_strategy if c is not None else None, S.spec_replicas(pclq))


def group_budget(pcs: PCS, view: S.View, pcsg: Obj) -> Budget:
    g = view.group_of(pcsg)
    return resolve(g.update_strategy if g is not None else None, S.spec_replicas(pcsg, g.replicas if g else 1))


def pod_units(view: S.View, pclq: Obj) -> list[Unit]:
    t = pclq.labels.get(N.L_TEMPLATE_HASH)
    return [Unit(O.pod_index(p) if O.pod_index(p) is not None else -1, p.labels.get(N.L_TEMPLATE_HASH) != t,
                 O.pod_ready(p), O.pod_scheduled(p), U.created_key(p)) for p in view.pods(pclq)]


def pcsg_units(view: S.View, pcsg: Obj) -> list[Unit]:
    out = []
    for j, members in sorted(view.pcsg_units(pcsg).items()):
        if any(q.terminating for q in members):
            continue
        out.append(Unit(j, any(view.pclq_outdated(q) for q in members), view.pcsg_replica_available(pcsg, j),
                        any(O.pod_scheduled(p) for q in members for p in view.pods(q))))
    return out
