"""The PodCliqueSet's ServiceAccount, Role, RoleBinding and service-account token
Secret. Upstream (ai-dynamo/grove @ fcc3b3bb): ``operator/internal/controller/podcliqueset/components/``
``serviceaccount/serviceaccount.go``, ``role/role.go``, ``rolebinding/rolebinding.go`` and
``satokensecret/satokensecret.go`` (each ``Sync``): four one-object components that share
one builder here (``objects.build_rbac``).
"""

from __future__ import annotations

from typing import Any

from ......core.model import Action
from ......core.world import World
from .... import objects as O
from ....spec import PCS
from ...common import R_PCS, create_action, update_action


def _role(pcs: PCS, i: int, role: str | None = None) -> str | None:
    """Objects of replicas at or above ``spec.replicas`` exist only as surge."""
    return "surge" if i >= pcs.replicas else role


def sync_rbac(pcs: PCS, world: World) -> list[Action]:
    """ServiceAccount (create-or-patch: labels and ``automountServiceAccountToken``),
    Role, RoleBinding and token Secret (created when missing, never patched).
    Upstream: ``podcliqueset/components/serviceaccount/serviceaccount.go`` ``Sync``
    (``CreateOrPatch``); ``role/role.go``, ``rolebinding/rolebinding.go`` ``Sync``
    (``Create``, already-exists ignored); ``satokensecret/satokensecret.go`` ``Sync``."""
    acts: list[Action] = []
    for raw in pcs.derived(_rbac):
        kind = raw["kind"]
        cur = world.get(kind, pcs.namespace, raw["metadata"]["name"])
        if cur is None:
            acts.append(create_action(raw, f"{kind} for the pods of {pcs.name}", f"{R_PCS}/components#Sync",
                                      revision=None))
        elif kind == "ServiceAccount" and not cur.terminating:
            changed = [f for f, same in (("labels", cur.labels == raw["metadata"]["labels"]),
                                         ("automountServiceAccountToken",
                                          cur.raw.get("automountServiceAccountToken") is True)) if not same]
            if changed:
                new = dict(cur.raw)
                new["metadata"] = dict(cur.metadata, labels=dict(raw["metadata"]["labels"]))
                new["automountServiceAccountToken"] = True
                acts.append(update_action(cur, new, f"{' and '.join(changed)} patched",
                                          f"{R_PCS}/components/serviceaccount/serviceaccount.go#Sync",
                                          fields={"changed": changed}))
    return acts


def _rbac(pcs: PCS) -> list[dict[str, Any]]:
    return O.build_rbac(pcs)
