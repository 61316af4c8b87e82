"""The PodCliqueScalingGroups of every PodCliqueSet replica. Upstream (ai-dynamo/grove @ fcc3b3bb):
``operator/internal/controller/podcliqueset/components/podcliquescalinggroup/``
``podcliquescalinggroup.go`` (``Sync``, ``buildResource``).
"""

from __future__ import annotations

from typing import Any

from ......core.model import Action, Obj
from ......core.queue import EVERY_KEY, Round
from ......core.world import World
from .... import objects as O
from ....spec import PCS
from .... import register as R
from ...common import Expected, R_PCS, by_names, create_action, delete_action, owned, replica_of, update_action
from .serviceaccount_rbac import _role


def _pcsgs(pcs: PCS, n: int) -> Expected:
    items = [(i, g, O.build_pcsg(pcs, i, g)) for i in range(n) for g in pcs.groups]
    return Expected(items, [raw["metadata"]["name"] for _i, _g, raw in items])


def patch_pcsg_metadata(cur: Obj, raw: dict[str, Any]) -> dict[str, Any] | None:
    """``buildResource`` under CreateOrPatch on an existing PodCliqueScalingGroup: its
    labels and annotations are replaced by the built ones (the operator's labels; the
    scaling-group config's annotations with the PodCliqueSet's MNNVL group), so an
    annotation added to, changed in or removed from the config reaches the live
    object. ``spec.replicas`` stays the live one (set only on create: an HPA or the
    scale subresource owns it); ``minAvailable`` and ``cliqueNames`` cannot change
    (the webhook, GV104). The patched object, or None when nothing differs.
    Upstream: ``podcliquescalinggroup.go`` ``doCreateOrUpdate``, ``buildResource``."""
    md = raw["metadata"]
    labels, annotations = md.get("labels") or {}, md.get("annotations") or {}
    if dict(cur.labels) == labels and dict(cur.annotations) == annotations:
        return None
    new = dict(cur.raw)
    new_md = dict(cur.metadata)
    new_md["labels"] = dict(labels)
    if annotations:
        new_md["annotations"] = dict(annotations)
    else:
        new_md.pop("annotations", None)
    new["metadata"] = new_md
    return new


def sync_scaling_groups(pcs: PCS, world: World, n: int | None = None, queue: Round = EVERY_KEY) -> list[Action]:
    """PodCliqueScalingGroups: missing ones created (``spec.replicas`` only then),
    existing ones patched when their labels or annotations differ from the built
    ones, those of replicas or groups no longer in the spec deleted. Upstream:
    ``podcliqueset/components/podcliquescalinggroup/podcliquescalinggroup.go`` ``Sync``,
    ``buildResource``."""
    acts = []
    n = pcs.replicas if n is None else n
    exp = pcs.derived(_pcsgs, n)
    expected = exp.names
    ctl = R.pcs_component("PodCliqueScalingGroup", "podcliquescalinggroup")
    look = queue.keys(ctl, world, (n,))
    unsettled: set[str] = set()
    for i, g, raw in exp.looked(look):
        name = raw["metadata"]["name"]
        cur = world.get("PodCliqueScalingGroup", pcs.namespace, name)
        if cur is None:
            acts.append(create_action(raw, f"scaling group {g.name} of replica {i} ({g.replicas} replicas)",
                                      f"{R_PCS}/components/podcliquescalinggroup/podcliquescalinggroup.go#buildResource",
                                      index=i, role=_role(pcs, i)))
            unsettled.add(name)
        elif not cur.terminating:
            patched = patch_pcsg_metadata(cur, raw)
            if patched is not None:
                changed = [k for k in ("labels", "annotations")
                           if dict(getattr(cur, k)) != (raw["metadata"].get(k) or {})]
                acts.append(update_action(
                    cur, patched, f"{' and '.join(changed)} set from the scaling-group config "
                                  "(replicas kept)",
                    f"{R_PCS}/components/podcliquescalinggroup/podcliquescalinggroup.go#buildResource",
                    fields={"changed": changed}, index=i, role=_role(pcs, i)))
                unsettled.add(name)
    pcsgs = owned(world, "PodCliqueScalingGroup", pcs) if look is None else \
        by_names(world, "PodCliqueScalingGroup", pcs, look)
    for o in pcsgs:
        if o.name not in expected and not o.terminating:
            acts.append(delete_action(o, "its replica or group is no longer in the spec",
                                      f"{R_PCS}/components/podcliquescalinggroup/podcliquescalinggroup.go#Sync",
                                      index=replica_of(o)))
            unsettled.add(o.name)
    queue.done(ctl, sorted(unsettled), (n,))
    return acts
