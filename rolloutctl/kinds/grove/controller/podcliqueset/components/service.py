"""The headless Service of every PodCliqueSet replica. Upstream (ai-dynamo/grove @ fcc3b3bb):
``operator/internal/controller/podcliqueset/components/service/service.go`` (``Sync``,
``buildResource``, ``GetExistingResourceNames``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ......core.model import Action, Obj
from ......core.queue import EVERY_KEY, Round
from ......core.world import World
from .... import names as N
from .... import objects as O
from ....spec import PCS
from .... import register as R
from ...common import Expected, R_PCS, create_action, owned, replica_of, update_action
from .serviceaccount_rbac import _role


def service_patch(cur: Obj, raw: Mapping[str, Any]) -> list[str]:
    """What the headless Service's create-or-patch changes on a live Service: its
    labels (replaced whole), selector, ``clusterIP`` or ``publishNotReadyAddresses``
    (fields the API server defaults are not touched).
    Upstream: ``service/service.go`` ``doCreateOrUpdate`` / ``buildResource``."""
    out = []
    if cur.labels != raw["metadata"]["labels"]:
        out.append("labels")
    for f in ("selector", "clusterIP", "publishNotReadyAddresses"):
        have = cur.spec.get(f)
        if f == "publishNotReadyAddresses":
            have = bool(have)
        if have != raw["spec"][f]:
            out.append(f)
    return out


def sync_headless_services(pcs: PCS, world: World, n: int | None = None, queue: Round = EVERY_KEY) -> list[Action]:
    """One headless Service per replica, created or patched. Services of replicas
    scaled away are left in place: upstream's ``Sync`` never deletes them (only the
    PodCliqueSet's deletion does), see ``excess_headless_services``.
    Upstream: ``podcliqueset/components/service/service.go`` ``Sync``."""
    acts = []
    n = pcs.replicas if n is None else n
    exp = pcs.derived(_services, n)
    ctl = R.pcs_component("Service", "service")
    look = queue.keys(ctl, world, (n,))
    unsettled: set[str] = set()
    rule = f"{R_PCS}/components/service/service.go#Sync"
    for i, raw in exp.looked(look):
        name = raw["metadata"]["name"]
        cur = world.get("Service", pcs.namespace, name)
        if cur is None:
            acts.append(create_action(raw, f"headless Service of replica {i}", rule, index=i, revision=None,
                                      role=_role(pcs, i)))
            unsettled.add(name)
            continue
        changed = service_patch(cur, raw) if not cur.terminating else []
        if changed:
            new = dict(cur.raw)
            new["metadata"] = dict(cur.metadata, labels=dict(raw["metadata"]["labels"]))
            new["spec"] = dict(cur.spec, **raw["spec"])
            acts.append(update_action(cur, new, f"headless Service of replica {i}: {', '.join(changed)} patched", rule,
                                      fields={"changed": changed}, index=i))
            unsettled.add(name)
    queue.done(ctl, sorted(unsettled), (n,))
    return acts


def excess_headless_services(pcs: PCS, world: World) -> list[Obj]:
    """Headless Services of this PodCliqueSet at replica indices ``>= spec.replicas``:
    upstream lists them (``GetExistingResourceNames``) but its ``Sync`` only creates
    or patches the expected ones, so they stay until the PodCliqueSet is deleted."""
    return [s for s in owned(world, "Service", pcs)
            if s.labels.get(N.L_COMPONENT) == N.C_HEADLESS_SERVICE and replica_of(s) >= pcs.replicas
            and not s.terminating]


def _services(pcs: PCS, n: int) -> Expected:
    items = [(i, O.build_headless_service(pcs, i)) for i in range(n)]
    return Expected(items, [raw["metadata"]["name"] for _i, raw in items])
