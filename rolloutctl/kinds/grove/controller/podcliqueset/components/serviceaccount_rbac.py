"""The PodCliqueSet's ServiceAccount, Role, RoleBinding and service-account token
Secret. Upstream (ai-dynamo/grove @ fcc3b3bb): ``operator/internal/controller/podcliqueset/components/``
``serviceaccount/serviceaccount.go``, ``role/role.go``, ``rolebinding/rolebinding.go`` and
``satokensecret/satokensecret.go`` (each ``Sync``): four one-object components that share
one builder here (``objects.build_rbac``). The token Secret's ``Sync`` asks the
PodCliqueSet reconcile to stop after its component group until the token controller has
written the token (``waiting_for_token``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ......core.model import Action, Obj
from ......core.world import World
from .... import names as N
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
            why = f"{kind} for the pods of {pcs.name}"
            if kind == "Secret":
                why += ("; the reconcile stops after this component group until the token controller has "
                        "written its token, and requeues (satokensecret.go Sync: newWaitingForTokenError)")
            acts.append(create_action(raw, why, f"{R_PCS}/components#Sync", revision=None))
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


def has_service_account_token(secret: Obj) -> bool:
    """The token controller (kube-controller-manager) has written ``data.token``.
    Upstream: ``satokensecret/satokensecret.go`` ``hasServiceAccountToken``."""
    data = secret.raw.get("data")
    return isinstance(data, Mapping) and bool(data.get("token"))


def waiting_for_token(pcs: PCS, world: World) -> bool:
    """Whether the token Secret's ``Sync`` returns ``newWaitingForTokenError``
    (``ErrCodeRequeueAfter``) on ``world``: it creates the missing Secret and returns it,
    and returns it again while the Secret has no token. ``syncKindGroup`` then stops the
    reconcile after the first component group (``syncPodCliqueSetResources``: no
    PodCliques, scaling groups or PodGangs yet) and requeues it after
    ``ComponentSyncRetryInterval``.
    Upstream: ``podcliqueset/components/satokensecret/satokensecret.go`` ``Sync``;
    ``podcliqueset/reconcilespec.go`` ``syncKindGroup``."""
    secret = world.get("Secret", pcs.namespace, N.token_secret_name(pcs.name))
    return secret is None or not has_service_account_token(secret)
